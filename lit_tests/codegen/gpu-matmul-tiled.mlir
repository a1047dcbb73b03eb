// A matmul whose epilogue keeps positions (bias add, tanh) is a
// shared-memory tiled kernel: 64 x 64 outputs per block of 256 threads,
// K in steps of 16 through two shared tiles (16 x 64, the lhs k-major and
// padded to 16 x 68 against bank conflicts; zero outside the matrix),
// a 4 x 4 register tile per thread read as 128-bit shared loads, and the
// epilogue applied to each row of the register tile before the store.
// Grid: (N tiles, M tiles, batch). 100 x 132 per batch: partial tiles.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_matmul.ptx -o %t/m90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_matmul.ptx -o %t/m80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @ffn(%x: tensor<2x100x128xf32>, %w: tensor<128x132xf32>, %bias: tensor<132xf32>) -> tensor<2x100x132xf32> {
  %r = fuse.fusion matmul (%x, %w, %bias) : (tensor<2x100x128xf32>, tensor<128x132xf32>, tensor<132xf32>) -> tensor<2x100x132xf32> {
  ^bb0(%a: tensor<2x100x128xf32>, %b: tensor<128x132xf32>, %c: tensor<132xf32>):
    %m = fuse.matmul %a, %b : tensor<2x100x128xf32>, tensor<128x132xf32> -> tensor<2x100x132xf32>
    %cb = fuse.broadcast %c, dims = [2] : tensor<132xf32> -> tensor<2x100x132xf32>
    %y = fuse.add %m, %cb : tensor<2x100x132xf32>
    %t = fuse.tanh %y : tensor<2x100x132xf32>
    fuse.yield %t : tensor<2x100x132xf32>
  }
  return %r : tensor<2x100x132xf32>
}

// KERNELS-LABEL: gpu.func @fuse_k0_matmul
// KERNELS-SAME: workgroup(%[[LHS:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[RHS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// KERNELS-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNELS: gpu.block_id  y
// KERNELS: gpu.block_id  z
// KERNELS: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// KERNELS: scf.if %{{.*}} -> (f32) {
// KERNELS: memref.store %{{.*}}, %[[LHS]]
// KERNELS: memref.store %{{.*}}, %[[RHS]]
// KERNELS: gpu.barrier
// KERNELS: vector.load %[[LHS]][{{.*}}] {alignment = 16 : i64}
// KERNELS: vector.load %[[RHS]][{{.*}}] {alignment = 16 : i64}
// KERNELS: math.fma
// KERNELS: gpu.barrier
// KERNELS: math.tanh %{{.*}} : vector<4xf32>
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>

// PTX-NOT: .extern
// PTX: .entry fuse_k0_matmul(
// PTX: st.shared.b32
// PTX: bar.sync
// PTX: ld.shared.v4.b32
// PTX: fma.rn.f32
// PTX: st.global.v4.b32

// SUMMARY: kernel 0 fuse_k0_matmul schedule matmul grid 3x2x2 block 256 shared 0
// SUMMARY: bindings input#0(%0) input#1(%1) input#2(%2) output#0(%{{[0-9]+}})

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
