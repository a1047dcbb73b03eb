// Column reductions on the GPU: one thread per group of 4 adjacent columns
// (adjacent threads read adjacent 16-byte pieces of a row: coalesced), a
// pass down the rows per reduction with one accumulator per column (the
// variance reads the mean broadcast back), a pass storing the centered
// values, then the per-column results. Columns of 63 are read one by one.

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

// KERNELS-LABEL: gpu.func @fuse_k0_columns
// KERNELS-SAME: known_block_size = array<i32: 32, 1, 1>
// KERNELS: scf.for
// KERNELS: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// KERNELS: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// KERNELS: arith.divf
// KERNELS: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// KERNELS: arith.subf
// KERNELS: arith.divf
// KERNELS: scf.for
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// KERNELS: math.sqrt %{{.*}} : vector<4xf32>
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>

// PTX-NOT: .extern
// PTX: .entry fuse_k0_columns(
// PTX: ld.global.nc.v4.b32
// PTX: st.global.v4.b32

// SUMMARY: kernel 0 fuse_k0_columns schedule column-reduction grid 1 block 32 shared 0
// SUMMARY: bindings input#0(%0) output#0(%{{[0-9]+}}) output#1(%{{[0-9]+}})

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
