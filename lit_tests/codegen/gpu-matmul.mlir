// A matmul whose epilogue splits heads (bias add, reshape, transpose) is
// still the tiled kernel: the epilogue sees the matmul's result at moved
// positions, so each output of the register tile is stored one by one at
// its position after the transpose (head h, row i, column d at
// h*2048 + i*32 + d), the bias read at the matmul's own column.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_matmul.ptx -o %t/m90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_matmul.ptx -o %t/m80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @projection(%x: tensor<64x128xf32>, %w: tensor<128x128xf32>, %bias: tensor<128xf32>) -> tensor<4x64x32xf32> {
  %r = fuse.fusion matmul (%x, %w, %bias) : (tensor<64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<4x64x32xf32> {
  ^bb0(%a: tensor<64x128xf32>, %b: tensor<128x128xf32>, %c: tensor<128xf32>):
    %m = fuse.matmul %a, %b : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
    %cb = fuse.broadcast %c, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
    %y = fuse.add %m, %cb : tensor<64x128xf32>
    %h = fuse.reshape %y : tensor<64x128xf32> -> tensor<64x4x32xf32>
    %t = fuse.transpose %h, permutation = [1, 0, 2] : tensor<64x4x32xf32> -> tensor<4x64x32xf32>
    fuse.yield %t : tensor<4x64x32xf32>
  }
  return %r : tensor<4x64x32xf32>
}

// KERNELS-LABEL: gpu.func @fuse_k0_matmul
// KERNELS-SAME: workgroup(
// KERNELS: math.fma
// KERNELS: gpu.barrier
// The forward map of the transpose: head, row, column of the head.
// KERNELS: scf.if
// KERNELS: vector.extract
// KERNELS-NEXT: %[[P:.*]] = arith.addi
// KERNELS: %[[H:.*]] = arith.divui %[[P]], %c32_i64{{[_0-9]*}} : i64
// KERNELS: arith.remui %[[H]], %c4_i64{{[_0-9]*}} : i64
// KERNELS: arith.divui %[[P]], %c128_i64{{[_0-9]*}} : i64
// KERNELS: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// KERNELS: arith.addf
// KERNELS: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>

// PTX-NOT: .extern
// PTX: .entry fuse_k0_matmul(
// PTX: bar.sync
// PTX: ld.shared.v4.b32
// PTX: fma.rn.f32
// PTX: st.global.b32

// SUMMARY: kernel 0 fuse_k0_matmul schedule matmul grid 2 block 256 shared 0
// SUMMARY: bindings input#0(%0) input#1(%1) input#2(%2) output#0(%{{[0-9]+}})

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
