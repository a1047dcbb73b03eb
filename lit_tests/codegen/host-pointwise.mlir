// A hand-written pointwise fusion (GELU, tanh form, with a bias broadcast
// over rows) lowered for the host: an AVX2 loop of vector<8xf32> with a
// scalar tail, the bias read through its index map (never materialized),
// tanh replaced by a polynomial, and no libm call left in the shared object.

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=KERNELS --implicit-check-not=vector.from_elements
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm-dialect | FileCheck %s --check-prefix=LLVMDIALECT
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm | FileCheck %s --check-prefix=LLVMIR
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=AVX512
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt
// RUN: llvm-nm -u %t/kernels.so | FileCheck %s --allow-empty --check-prefix=UNDEFINED

func.func @gelu(%x: tensor<4x1000xf32>, %bias: tensor<1000xf32>) -> tensor<4x1000xf32> {
  %r = fuse.fusion pointwise (%x, %bias) : (tensor<4x1000xf32>, tensor<1000xf32>) -> tensor<4x1000xf32> {
  ^bb0(%a: tensor<4x1000xf32>, %b: tensor<1000xf32>):
    %bb = fuse.broadcast %b, dims = [1] : tensor<1000xf32> -> tensor<4x1000xf32>
    %y = fuse.add %a, %bb : tensor<4x1000xf32>
    %half = fuse.constant dense<0.5> : tensor<4x1000xf32>
    %one = fuse.constant dense<1.0> : tensor<4x1000xf32>
    %k = fuse.constant dense<0.7978846> : tensor<4x1000xf32>
    %c = fuse.constant dense<0.044715> : tensor<4x1000xf32>
    %y2 = fuse.mul %y, %y : tensor<4x1000xf32>
    %y3 = fuse.mul %y2, %y : tensor<4x1000xf32>
    %cy3 = fuse.mul %c, %y3 : tensor<4x1000xf32>
    %in = fuse.add %y, %cy3 : tensor<4x1000xf32>
    %kin = fuse.mul %k, %in : tensor<4x1000xf32>
    %t = fuse.tanh %kin : tensor<4x1000xf32>
    %t1 = fuse.add %one, %t : tensor<4x1000xf32>
    %hy = fuse.mul %half, %y : tensor<4x1000xf32>
    %g = fuse.mul %hy, %t1 : tensor<4x1000xf32>
    fuse.yield %g : tensor<4x1000xf32>
  }
  return %r : tensor<4x1000xf32>
}

// KERNELS-LABEL: func.func @fuse_k0_pointwise
// KERNELS-SAME: (%{{.*}}: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// KERNELS: %[[VEND:.*]] = arith.addi %[[BEGIN]]
// KERNELS: scf.for %[[I:.*]] = %[[BEGIN]] to %[[VEND]] step %{{.*}} : i64 {
// KERNELS: %[[COL:.*]] = arith.remui %[[I]]
// KERNELS: llvm.getelementptr %{{.*}}[%[[COL]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// KERNELS: llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// KERNELS: math.tanh %{{.*}} : vector<8xf32>
// KERNELS: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// KERNELS: scf.for %{{.*}} = %[[VEND]] to %[[END]] step %{{.*}} : i64 {
// KERNELS: math.tanh %{{.*}} : f32

// The bias is one contiguous vector load per step, not a gather of lanes: the
// KERNELS run rejects any vector.from_elements (--implicit-check-not).

// LLVMDIALECT-LABEL: llvm.func @fuse_k0_pointwise
// LLVMDIALECT-NOT: math.
// LLVMDIALECT: llvm.intr.fma({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>

// LLVMIR-LABEL: define void @fuse_k0_pointwise(ptr
// LLVMIR: <8 x float>
// LLVMIR-NOT: call {{.*}}@tanh

// AVX512: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// AVX512: math.tanh %{{.*}} : vector<16xf32>

// SUMMARY: target host-x86-64-v3
// SUMMARY: kernel 0 fuse_k0_pointwise schedule pointwise iterations 4000 grain 4096
// SUMMARY: bindings input#0(%0) input#1(%1) output#0(%{{[0-9]+}})
// SUMMARY: arena 0 bytes

// UNDEFINED-NOT: {{.}}
