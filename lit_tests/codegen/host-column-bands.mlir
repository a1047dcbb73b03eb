// A column reduction with one result over at least 512 rows is split into
// bands of rows (at most 16, each at least 256 rows): a partials kernel, one
// iteration per band of an outer index, reduces the band over all the
// columns in blocks of 8 rows, a vector of columns at a time, each row's
// step prefetching that row 1 KiB on, into the band's partial row in scratch
// (the first block from the identity, the band's result unfinished); a finish
// kernel, one iteration per chunk of columns, combines the bands' rows in
// band order, then finishes (a mean divides there only). Each thread
// streams whole rows of a contiguous part of the operand: column sums of
// 4096x4096 (fuse-bench, 2 threads, 6 alternating passes) 1.6-2.9 ms split
// by columns, 1.0-2.6 ms in bands; and a narrow operand (3 columns) is
// spread over the threads.
//
// Checked against the reference runtime on random inputs (the summation
// order differs from the reference's: a sum or mean of n f32 terms within
// rtol 2 eps (1 + sqrt(n)), atol eps n in units of the output's scale,
// Numerics.h; max and integer sums exact): a mean over 1000 rows with 4
// outer indices (3 bands of 333-334 rows, 100 columns: the partials in 6
// vectors and 4 single columns, the finish in a chunk of 64, 2 vectors and 4
// single columns), sums of 70000 x 3 (16 bands; only single
// columns), an i32 sum of 600 x 33 (2 bands), a max of 513 x 20 (2 bands:
// 256 and 257 rows); and 511 x 40 rows, under two bands, in one kernel. Then
// the combines and types of the finish: an i8 sum (wraps), an f64 min, a
// product of 1 + x/100 (an operand computed in the fusion), a max of logs
// (NaN where x < 0: NaN propagates through the bands' combine), and a sum
// over two reduced dims of [32, 8, 32, 64] (dims 0 and 2: 1024 rows in 4
// bands, 8 outer indices between them).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/bundle
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle/bundle.txt

// CHECK: check: passed, 10 outputs match the reference

func.func @bands(%x: tensor<4x1000x100xf32>, %y: tensor<70000x3xf32>, %z: tensor<600x33xi32>, %w: tensor<513x20xf32>, %v: tensor<511x40xf32>,
                 %i: tensor<600x17xi8>, %f: tensor<700x24xf64>, %p: tensor<520x16xf32>, %l: tensor<530x48xf32>, %m: tensor<32x8x32x64xf32>)
    -> (tensor<4x100xf32>, tensor<3xf32>, tensor<33xi32>, tensor<20xf32>, tensor<40xf32>,
        tensor<17xi8>, tensor<24xf64>, tensor<16xf32>, tensor<48xf32>, tensor<8x64xf32>) {
  %a = fuse.reduce mean %x dims = [1] : tensor<4x1000x100xf32> -> tensor<4x100xf32>
  %b = fuse.reduce sum %y dims = [0] : tensor<70000x3xf32> -> tensor<3xf32>
  %c = fuse.reduce sum %z dims = [0] : tensor<600x33xi32> -> tensor<33xi32>
  %d = fuse.reduce max %w dims = [0] : tensor<513x20xf32> -> tensor<20xf32>
  %e = fuse.reduce sum %v dims = [0] : tensor<511x40xf32> -> tensor<40xf32>
  %is = fuse.reduce sum %i dims = [0] : tensor<600x17xi8> -> tensor<17xi8>
  %fm = fuse.reduce min %f dims = [0] : tensor<700x24xf64> -> tensor<24xf64>
  %hundredth = fuse.constant dense<0.01> : tensor<520x16xf32>
  %one = fuse.constant dense<1.0> : tensor<520x16xf32>
  %ps = fuse.mul %p, %hundredth : tensor<520x16xf32>
  %p1 = fuse.add %ps, %one : tensor<520x16xf32>
  %pp = fuse.reduce prod %p1 dims = [0] : tensor<520x16xf32> -> tensor<16xf32>
  %logs = fuse.log %l : tensor<530x48xf32>
  %lm = fuse.reduce max %logs dims = [0] : tensor<530x48xf32> -> tensor<48xf32>
  %ms = fuse.reduce sum %m dims = [0, 2] : tensor<32x8x32x64xf32> -> tensor<8x64xf32>
  return %a, %b, %c, %d, %e, %is, %fm, %pp, %lm, %ms : tensor<4x100xf32>, tensor<3xf32>, tensor<33xi32>, tensor<20xf32>, tensor<40xf32>,
      tensor<17xi8>, tensor<24xf64>, tensor<16xf32>, tensor<48xf32>, tensor<8x64xf32>
}

// The bands of the mean: iteration = outer index x 3 bands; the band's rows
// [band * 1000 / 3, (band + 1) * 1000 / 3) in blocks of 8; each block of a
// chunk from the identity at the band's first row, else from the band's
// partial row; no division.
// IR-LABEL: func.func @fuse_k0_column_partials
// IR: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %c1_i64
// IR: arith.remui %[[IV]], %c3_i64
// IR: scf.for %[[BLOCK:.*]] = %{{.*}} to %{{.*}} step %c8_i64
// IR: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// IR: arith.cmpi eq, %[[BLOCK]], %{{.*}} : i64
// IR: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// IR: scf.for %{{.*}} = %[[BLOCK]] to %{{.*}} step %c1_i64{{.*}} iter_args({{.*}}) -> (vector<16xf32>)
// Each row's step prefetches its row 256 elements on:
// IR: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c256_i64{{.*}} : i64
// IR: %[[LINE:.*]] = llvm.getelementptr %{{.*}}[%[[AHEAD]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// IR: "llvm.intr.prefetch"(%[[LINE]]) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// IR: arith.addf %{{.*}} : vector<16xf32>
// IR-NOT: arith.divf
// IR: llvm.store %{{.*}} : vector<16xf32>, !llvm.ptr
// IR-LABEL: func.func @fuse_k0_column_finish
// IR-COUNT-2: llvm.load %{{.*}} : !llvm.ptr -> vector<64xf32>
// IR-NEXT: arith.addf %{{.*}} : vector<64xf32>
// IR: llvm.load %{{.*}} : !llvm.ptr -> vector<64xf32>
// IR-NEXT: arith.addf %{{.*}} : vector<64xf32>
// IR-NOT: llvm.load
// IR: arith.divf %{{.*}} : vector<64xf32>
// IR: llvm.store %{{.*}} : vector<64xf32>, !llvm.ptr
// Under 512 rows: one kernel split by columns.
// IR-NOT: fuse_k8_column_partials
// IR-LABEL: func.func @fuse_k8_columns

// SUMMARY: kernels 19
// SUMMARY: kernel 0 fuse_k0_column_partials schedule column-reduction iterations 12 grain 1
// SUMMARY: kernel 1 fuse_k0_column_finish schedule column-reduction iterations 8 grain
// SUMMARY: kernel 2 fuse_k2_column_partials schedule column-reduction iterations 16 grain
// SUMMARY: kernel 3 fuse_k2_column_finish schedule column-reduction iterations 1 grain
// The sum over dims 0 and 2: 8 outer indices x 4 bands.
// SUMMARY: kernel 17 fuse_k17_column_partials schedule column-reduction iterations 32 grain 1
// SUMMARY: kernel 18 fuse_k17_column_finish schedule column-reduction iterations 8 grain
