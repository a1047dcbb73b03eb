// Attention whose K comes from its projection as exported: the heads split
// by a reshape and Kᵀ made by a transpose (0, 2, 3, 1) of the projection's
// [B, N, H, D]. The transpose moves K's innermost dim, so in the
// projection's epilogue it would store Kᵀ a lane at a time (FormFusions'
// transposesForMatmulB leaves it out); it joins the attention instead,
// which reads K through transpose_b (FoldMatmulTransposes) and transposes
// its tiles from the projection's rows where they lie, D contiguous floats
// H * D apart (HostAttentionEmitter.cpp, headRowsInPlace). Two attentions,
// batch 2, 4 heads of 32, checked against the reference runtime at 2 and 3
// threads:
//   a: 150 queries and keys: blocks of 32 rows, so a `_keys` kernel stages
//      each head's tiles once; the last tile of keys is partial (staged);
//   b: 64 queries and keys: one block per head, the attention kernel reads
//      the rows itself; Kᵀ is the transpose alone (the scale on Q).
// (Unscaled, scores of x W rows this long are large enough that the
// softmax's rounding passes the check's tolerance, before this change too.)

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s --check-prefix=THREE

// CHECK: _horizontal_1: horizontal
// CHECK-NOT: transpose
// CHECK-SAME: {{$}}
// CHECK-NEXT: ops matmul reshape transpose matmul reshape matmul reshape transpose{{$}}
// CHECK: _keys: attention
// CHECK-NEXT: ops transpose
// CHECK: _attention: attention
// CHECK-NEXT: ops transpose
// CHECK: check: passed, 2 outputs match the reference
// THREE: check: passed, 2 outputs match the reference

func.func @heads(%x: tensor<2x150x128xf32>, %y: tensor<2x64x128xf32>,
                 %wq: tensor<128x128xf32>, %wk: tensor<128x128xf32>,
                 %wv: tensor<128x128xf32>)
    -> (tensor<2x4x150x32xf32>, tensor<2x4x64x32xf32>) {
  // a
  %q0 = fuse.matmul %x, %wq : tensor<2x150x128xf32>, tensor<128x128xf32> -> tensor<2x150x128xf32>
  %q1 = fuse.reshape %q0 : tensor<2x150x128xf32> -> tensor<2x150x4x32xf32>
  %q = fuse.transpose %q1, permutation = [0, 2, 1, 3] : tensor<2x150x4x32xf32> -> tensor<2x4x150x32xf32>
  %k0 = fuse.matmul %x, %wk : tensor<2x150x128xf32>, tensor<128x128xf32> -> tensor<2x150x128xf32>
  %k1 = fuse.reshape %k0 : tensor<2x150x128xf32> -> tensor<2x150x4x32xf32>
  %kt = fuse.transpose %k1, permutation = [0, 2, 3, 1] : tensor<2x150x4x32xf32> -> tensor<2x4x32x150xf32>
  %c = fuse.constant dense<0.17> : tensor<2x4x32x150xf32>
  %ks = fuse.mul %kt, %c : tensor<2x4x32x150xf32>
  %v0 = fuse.matmul %x, %wv : tensor<2x150x128xf32>, tensor<128x128xf32> -> tensor<2x150x128xf32>
  %v1 = fuse.reshape %v0 : tensor<2x150x128xf32> -> tensor<2x150x4x32xf32>
  %v = fuse.transpose %v1, permutation = [0, 2, 1, 3] : tensor<2x150x4x32xf32> -> tensor<2x4x150x32xf32>
  %s = fuse.matmul %q, %ks : tensor<2x4x150x32xf32>, tensor<2x4x32x150xf32> -> tensor<2x4x150x150xf32>
  %m = fuse.reduce max %s dims = [3] keep_dims : tensor<2x4x150x150xf32> -> tensor<2x4x150x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<2x4x150x1xf32> -> tensor<2x4x150x150xf32>
  %d = fuse.sub %s, %mb : tensor<2x4x150x150xf32>
  %e = fuse.exp %d : tensor<2x4x150x150xf32>
  %l = fuse.reduce sum %e dims = [3] keep_dims : tensor<2x4x150x150xf32> -> tensor<2x4x150x1xf32>
  %lb = fuse.broadcast %l, dims = [0, 1, 2, 3] : tensor<2x4x150x1xf32> -> tensor<2x4x150x150xf32>
  %p = fuse.div %e, %lb : tensor<2x4x150x150xf32>
  %o = fuse.matmul %p, %v : tensor<2x4x150x150xf32>, tensor<2x4x150x32xf32> -> tensor<2x4x150x32xf32>

  // b
  %bq0 = fuse.matmul %y, %wq : tensor<2x64x128xf32>, tensor<128x128xf32> -> tensor<2x64x128xf32>
  %bq1 = fuse.reshape %bq0 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
  %bq2 = fuse.transpose %bq1, permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
  %bc = fuse.constant dense<0.17> : tensor<2x4x64x32xf32>
  %bq = fuse.mul %bq2, %bc : tensor<2x4x64x32xf32>
  %bk0 = fuse.matmul %y, %wk : tensor<2x64x128xf32>, tensor<128x128xf32> -> tensor<2x64x128xf32>
  %bk1 = fuse.reshape %bk0 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
  %bkt = fuse.transpose %bk1, permutation = [0, 2, 3, 1] : tensor<2x64x4x32xf32> -> tensor<2x4x32x64xf32>
  %bv0 = fuse.matmul %y, %wv : tensor<2x64x128xf32>, tensor<128x128xf32> -> tensor<2x64x128xf32>
  %bv1 = fuse.reshape %bv0 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
  %bv = fuse.transpose %bv1, permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
  %bs = fuse.matmul %bq, %bkt : tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32> -> tensor<2x4x64x64xf32>
  %bm = fuse.reduce max %bs dims = [3] keep_dims : tensor<2x4x64x64xf32> -> tensor<2x4x64x1xf32>
  %bmb = fuse.broadcast %bm, dims = [0, 1, 2, 3] : tensor<2x4x64x1xf32> -> tensor<2x4x64x64xf32>
  %bd = fuse.sub %bs, %bmb : tensor<2x4x64x64xf32>
  %be = fuse.exp %bd : tensor<2x4x64x64xf32>
  %bl = fuse.reduce sum %be dims = [3] keep_dims : tensor<2x4x64x64xf32> -> tensor<2x4x64x1xf32>
  %blb = fuse.broadcast %bl, dims = [0, 1, 2, 3] : tensor<2x4x64x1xf32> -> tensor<2x4x64x64xf32>
  %bp = fuse.div %be, %blb : tensor<2x4x64x64xf32>
  %bo = fuse.matmul %bp, %bv : tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32> -> tensor<2x4x64x32xf32>
  return %o, %bo : tensor<2x4x150x32xf32>, tensor<2x4x64x32xf32>
}
