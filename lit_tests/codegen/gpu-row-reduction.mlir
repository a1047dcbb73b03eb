// Softmax rows on the GPU: one block per row (rows of 1000: 256 threads),
// a pass over the row for the max and one for the sum of exponentials, each
// combined across the block by warp shuffles and shared memory, then the
// stores; the row is read with 128-bit loads (rows of 1000 start aligned).

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: fuse-compile %s --target=sm_80 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_rows.ptx -o %t/r90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_rows.ptx -o %t/r80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @softmax(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %r = fuse.fusion row_reduction (%x) : (tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  ^bb0(%a: tensor<8x1000xf32>):
    %m = fuse.reduce max %a dims = [1] : tensor<8x1000xf32> -> tensor<8xf32>
    %mb = fuse.broadcast %m, dims = [0] : tensor<8xf32> -> tensor<8x1000xf32>
    %d = fuse.sub %a, %mb : tensor<8x1000xf32>
    %e = fuse.exp %d : tensor<8x1000xf32>
    %s = fuse.reduce sum %e dims = [1] : tensor<8x1000xf32> -> tensor<8xf32>
    %sb = fuse.broadcast %s, dims = [0] : tensor<8xf32> -> tensor<8x1000xf32>
    %y = fuse.div %e, %sb : tensor<8x1000xf32>
    fuse.yield %y : tensor<8x1000xf32>
  }
  return %r : tensor<8x1000xf32>
}

// KERNELS-LABEL: gpu.func @fuse_k0_rows
// KERNELS-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNELS: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// KERNELS: -> (vector<4xf32>)
// KERNELS: arith.maximumf
// KERNELS: gpu.all_reduce maximumf
// KERNELS: -> (vector<4xf32>)
// KERNELS: math.exp %{{.*}} : vector<4xf32>
// KERNELS: gpu.all_reduce add
// KERNELS: arith.divf %{{.*}} : vector<4xf32>
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// KERNELS: gpu.barrier

// PTX-NOT: .extern
// PTX: .entry fuse_k0_rows(
// PTX: ld.global.nc.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: st.global.v4.b32

// SUMMARY: kernel 0 fuse_k0_rows schedule row-reduction grid 8 block 256 shared 0

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
