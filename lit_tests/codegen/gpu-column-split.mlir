// Column reductions on the GPU at other shapes and kinds (see
// gpu-column-reduction.mlir for the schedule): 63 columns read one by one
// (tiles of 32 single columns, 4 slices of 37 rows), 5 rows (4 slices of a
// row or two: a block is a warp at least), 1000 rows of 96 columns (3 tiles, 64 slices), and
// 4096 rows of 24 columns (one tile of 6 groups and 2 past the last, 128
// slices: 1024 threads). The slices' partials are combined in a loop (not
// unrolled: 128 vectors in flight would spill). The GPU check
// (bench/gpu/prepare.sh) runs this graph on the device against the
// reference; here the host runtime checks the graph itself.

// REQUIRES: ptxas
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: for k in 0 1 2 3; do %ptxas -arch=sm_90 -v %t/sm_90/fuse_k${k}_columns.ptx -o %t/c90.cubin && %ptxas -arch=sm_80 -v %t/sm_80/fuse_k${k}_columns.ptx -o %t/c80.cubin; done 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s --check-prefix=HOST

func.func @columns(%a: tensor<37x63xf32>, %b: tensor<5x48xf32>, %c: tensor<1000x96xf32>, %d: tensor<4096x24xf32>)
    -> (tensor<63xf32>, tensor<48xf32>, tensor<96xf32>, tensor<24xf32>) {
  %m = fuse.reduce max %a dims = [0] : tensor<37x63xf32> -> tensor<63xf32>
  %s = fuse.reduce sum %b dims = [0] : tensor<5x48xf32> -> tensor<48xf32>
  %i = fuse.reduce min %c dims = [0] : tensor<1000x96xf32> -> tensor<96xf32>
  %n = fuse.reduce mean %d dims = [0] : tensor<4096x24xf32> -> tensor<24xf32>
  return %m, %s, %i, %n : tensor<63xf32>, tensor<48xf32>, tensor<96xf32>, tensor<24xf32>
}

// SUMMARY: kernel 0 fuse_k0_columns schedule column-reduction grid 2 block 128 shared 0
// SUMMARY: kernel 1 fuse_k1_columns schedule column-reduction grid 2 block 32 shared 0
// SUMMARY: kernel 2 fuse_k2_columns schedule column-reduction grid 3 block 512 shared 0
// SUMMARY: kernel 3 fuse_k3_columns schedule column-reduction grid 1 block 1024 shared 0

// PTXAS-COUNT-8: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: spill

// HOST: check: passed, 4 outputs match the reference
