// Column reductions on the GPU: a block per tile of 8 groups of 4 adjacent
// columns (a tile's row is 128 contiguous bytes), its threads the groups
// times slices of the rows (here 32 slices of 300 rows: 256 threads). Per
// reduction, each thread combines its slice's rows into one accumulator per
// column, stores it in shared memory and, after a barrier, combines the 32
// slices' partials in order (the variance reads the mean broadcast back);
// then the pass storing the centered values (each slice its rows, groups
// past the last store nothing), then the per-column results from slice 0.
// gpu-column-split.mlir has other shapes and kinds.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_columns.ptx -o %t/c90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_columns.ptx -o %t/c80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @column_stats(%x: tensor<2x300x64xf32>) -> (tensor<2x64xf32>, tensor<2x300x64xf32>) {
  %r:2 = fuse.fusion column_reduction (%x) : (tensor<2x300x64xf32>) -> (tensor<2x64xf32>, tensor<2x300x64xf32>) {
  ^bb0(%a: tensor<2x300x64xf32>):
    %m = fuse.reduce mean %a dims = [1] : tensor<2x300x64xf32> -> tensor<2x64xf32>
    %mb = fuse.broadcast %m, dims = [0, 2] : tensor<2x64xf32> -> tensor<2x300x64xf32>
    %d = fuse.sub %a, %mb : tensor<2x300x64xf32>
    %d2 = fuse.mul %d, %d : tensor<2x300x64xf32>
    %v = fuse.reduce mean %d2 dims = [1] : tensor<2x300x64xf32> -> tensor<2x64xf32>
    %s = fuse.sqrt %v : tensor<2x64xf32>
    fuse.yield %s, %d : tensor<2x64xf32>, tensor<2x300x64xf32>
  }
  return %r#0, %r#1 : tensor<2x64xf32>, tensor<2x300x64xf32>
}

// KERNELS: llvm.mlir.global internal @fuse_k0_columns_partials() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8192 x i8>
// KERNELS-LABEL: gpu.func @fuse_k0_columns
// KERNELS-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNELS: scf.for
// KERNELS: scf.for {{.*}} to %c300_i64 step %c32_i64{{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// KERNELS: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// KERNELS: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<3>
// KERNELS-NEXT: gpu.barrier
// KERNELS: scf.for {{.*}} to %c256_i64 step %c8_i64{{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// KERNELS: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xf32>
// KERNELS: gpu.barrier
// KERNELS: arith.divf
// KERNELS: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// KERNELS: arith.subf
// KERNELS: gpu.barrier
// KERNELS: gpu.barrier
// KERNELS: arith.divf
// KERNELS: scf.if
// KERNELS: scf.for
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// KERNELS: scf.if
// KERNELS: math.sqrt %{{.*}} : vector<4xf32>
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>

// PTX-NOT: .extern
// PTX: .entry fuse_k0_columns(
// PTX: ld.global.nc.v4.b32
// PTX: st.global.v4.b32

// SUMMARY: kernel 0 fuse_k0_columns schedule column-reduction grid 4 block 256 shared 0
// SUMMARY: bindings input#0(%0) output#0(%{{[0-9]+}}) output#1(%{{[0-9]+}})

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
