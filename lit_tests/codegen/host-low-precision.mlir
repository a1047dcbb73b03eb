// Host code generation of the f8, f4 and narrow integer types: one byte per
// element in memory; an f8 load becomes i8 -> i32 bit manipulation and an
// f32 value (a multiply for the subnormals), a store rounds to nearest even
// with integer adds and shifts plus one f32 add (the subnormal rounding);
// i4 computes in i8 and wraps by a shift pair. No f8, f4 or i4 type reaches
// LLVM, and no extf/truncf touches them.

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --implicit-check-not=f8E --implicit-check-not=f4E --implicit-check-not=xi4 --implicit-check-not=arith.extf --implicit-check-not=arith.truncf
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: test -s %t/kernels.so

// CHECK-LABEL: func.func @fuse_k0_pointwise
// The f32 -> f8E4M3FN store: round the bits at bit 20, rebias, and the
// subnormals through an add of 2^14.
//       CHECK:   %[[X:.*]] = llvm.load {{.*}} -> vector<8xf32>
//       CHECK:   arith.bitcast %[[X]] : vector<8xf32> to vector<8xi32>
//       CHECK:   arith.constant dense<1.638400e+04> : vector<8xf32>
//       CHECK:   arith.addf {{.*}} : vector<8xf32>
//       CHECK:   arith.trunci {{.*}} : vector<8xi32> to vector<8xi8>
// The decode for the fused cast back to f32.
//       CHECK:   arith.extui {{.*}} : vector<8xi8> to vector<8xi32>
//       CHECK:   arith.uitofp {{.*}} : vector<8xi32> to vector<8xf32>
// The i4 add wraps in i8.
//       CHECK:   arith.addi {{.*}} : vector<8xi8>
//       CHECK:   arith.shli {{.*}} : vector<8xi8>
//       CHECK:   arith.shrsi {{.*}} : vector<8xi8>
//       CHECK:   llvm.store {{.*}} : vector<8xi8>, !llvm.ptr

func.func @k(%x: tensor<1001xf32>, %i: tensor<1001xi4>) -> (tensor<1001xf8E4M3FN>, tensor<1001xf32>, tensor<1001xi4>) {
  %r:3 = fuse.fusion pointwise (%x, %i) : (tensor<1001xf32>, tensor<1001xi4>) -> (tensor<1001xf8E4M3FN>, tensor<1001xf32>, tensor<1001xi4>) {
  ^bb0(%a: tensor<1001xf32>, %b: tensor<1001xi4>):
    %0 = fuse.cast %a {saturate} : tensor<1001xf32> to tensor<1001xf8E4M3FN>
    %1 = fuse.cast %0 : tensor<1001xf8E4M3FN> to tensor<1001xf32>
    %2 = fuse.add %b, %b : tensor<1001xi4>
    fuse.yield %0, %1, %2 : tensor<1001xf8E4M3FN>, tensor<1001xf32>, tensor<1001xi4>
  }
  return %r#0, %r#1, %r#2 : tensor<1001xf8E4M3FN>, tensor<1001xf32>, tensor<1001xi4>
}
