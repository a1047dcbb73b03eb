// Short rows (64 elements: 16 vector steps) take one warp each, 8 rows per
// block of 256 threads: every reduction is a butterfly of shuffles within
// the warp (gpu.subgroup_reduce), with no shared memory and no barrier;
// lane 0 stores the per-row result.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_rows.ptx -o %t/r90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_rows.ptx -o %t/r80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @layernorm_stats(%x: tensor<100x64xf32>) -> (tensor<100x64xf32>, tensor<100xf32>) {
  %r:2 = fuse.fusion row_reduction (%x) : (tensor<100x64xf32>) -> (tensor<100x64xf32>, tensor<100xf32>) {
  ^bb0(%a: tensor<100x64xf32>):
    %m = fuse.reduce mean %a dims = [1] : tensor<100x64xf32> -> tensor<100xf32>
    %mb = fuse.broadcast %m, dims = [0] : tensor<100xf32> -> tensor<100x64xf32>
    %d = fuse.sub %a, %mb : tensor<100x64xf32>
    %d2 = fuse.mul %d, %d : tensor<100x64xf32>
    %v = fuse.reduce mean %d2 dims = [1] : tensor<100x64xf32> -> tensor<100xf32>
    fuse.yield %d, %v : tensor<100x64xf32>, tensor<100xf32>
  }
  return %r#0, %r#1 : tensor<100x64xf32>, tensor<100xf32>
}

// KERNELS-LABEL: gpu.func @fuse_k0_rows
// KERNELS-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNELS: gpu.subgroup_reduce add %{{.*}} uniform : (f32) -> f32
// KERNELS: gpu.subgroup_reduce add %{{.*}} uniform : (f32) -> f32
// KERNELS: scf.if
// KERNELS: llvm.store %{{.*}} : f32, !llvm.ptr<1>
// KERNELS-NOT: gpu.barrier
// KERNELS-NOT: gpu.all_reduce

// PTX-NOT: .extern
// PTX: .entry fuse_k0_rows(
// PTX: ld.global.nc.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: st.global.v4.b32
// PTX-NOT: bar.sync

// SUMMARY: kernel 0 fuse_k0_rows schedule row-reduction grid 13 block 256 shared 0

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
