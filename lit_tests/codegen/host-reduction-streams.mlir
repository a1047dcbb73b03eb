// Bandwidth-bound reductions on AVX-512 (issue 18). A full reduction's
// partials kernel reads a whole chunk of 16384 elements as one stream of 4
// vector accumulators a vector apart (the short last chunk through the
// peeled loop, an scf.if choosing); a column
// reduction with one result over more than 8 rows runs in blocks of 8 rows,
// each block reading its rows of the columns a vector at a time (each row
// prefetched 1 KiB on), the partial sums
// kept in the output between blocks (a mean divides at the last block).
// Measured (fuse-bench, 2 threads): sum of 2^26 9.6-10 -> 7.2-8.5 ms, column
// sums of 4096x4096 2.0-2.3 -> 1.4 ms. Checked against the reference
// runtime on random inputs (the summation order differs from the
// reference's: a sum or mean of n f32 terms within rtol 2 eps (1 + sqrt(n)),
// atol eps n in units of the output's scale, Numerics.h; max exact): sums
// of 5 chunks and 77 elements and of exactly 2 chunks, column sums of 37
// rows (4 blocks and 5 rows) x 100 columns (6 vectors and 4 single
// columns), a column mean of 9 rows x 50 and a column max of 20
// rows x 1000.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR

// CHECK: check: passed, 5 outputs match the reference

func.func @reductions(%a: tensor<81997xf32>, %b: tensor<32768xf32>, %c: tensor<37x100xf32>, %d: tensor<9x50xf32>, %e: tensor<20x1000xf32>) -> (tensor<f32>, tensor<f32>, tensor<100xf32>, tensor<50xf32>, tensor<1000xf32>) {
  %sa = fuse.reduce sum %a dims = [0] : tensor<81997xf32> -> tensor<f32>
  %mb = fuse.reduce mean %b dims = [0] : tensor<32768xf32> -> tensor<f32>
  %sc = fuse.reduce sum %c dims = [0] : tensor<37x100xf32> -> tensor<100xf32>
  %md = fuse.reduce mean %d dims = [0] : tensor<9x50xf32> -> tensor<50xf32>
  %xe = fuse.reduce max %e dims = [0] : tensor<20x1000xf32> -> tensor<1000xf32>
  return %sa, %mb, %sc, %md, %xe : tensor<f32>, tensor<f32>, tensor<100xf32>, tensor<50xf32>, tensor<1000xf32>
}

// The 5 whole chunks streamed, the short last one peeled:
// IR-LABEL: func.func @fuse_k0_partials
// IR: scf.if %{{.*}} -> (f32) {
// IR: scf.for %{{.*}} = %c0_i64{{.*}} to %c16384_i64{{.*}} step %c64_i64 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// IR-COUNT-4: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// IR: } else {
// IR: step %c64_i64
// IR-LABEL: func.func @fuse_k2_partials
// IR-NOT: scf.if
// IR: scf.for %{{.*}} = %c0_i64 to %c16384_i64{{.*}} step %c64_i64 iter_args
// The column sums in blocks of 8 rows, each from the output's partial:
// IR-LABEL: func.func @fuse_k4_columns
// IR: scf.for %[[BLOCK:.*]] = %c0_i64 to %c37_i64 step %c8_i64
// IR: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// IR: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// IR: scf.for %{{.*}} = %[[BLOCK]] to %{{.*}} step %c1_i64{{.*}} iter_args({{.*}}) -> (vector<16xf32>)
// IR: "llvm.intr.prefetch"
// IR: arith.addf %{{.*}} : vector<16xf32>
// IR: llvm.store %{{.*}} : vector<16xf32>, !llvm.ptr
// The mean divides at the last block only:
// IR-LABEL: func.func @fuse_k5_columns
// IR: arith.divf %{{.*}} : vector<16xf32>
// IR: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// IR: llvm.store %{{.*}} : vector<16xf32>, !llvm.ptr
