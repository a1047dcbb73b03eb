// How the attention kernel splits a head's query rows into blocks (one
// iteration each; each block stages the tiles of K and V it reads, except
// that K and V given as fusion inputs of f32 rows, as here, are read where
// they lie, but for K's last partial tile, staged for its transpose): a
// head of at most 128 rows is one block where there are at least 4 heads to
// share out among the threads; else blocks of 32 rows, the last one partial.
// Three attentions checked against the reference runtime:
//   a: 2 heads of 40 queries, 24 keys: too few heads, blocks of 32 and 8;
//   b: 4 heads of 136 queries (over 128), 72 keys: blocks of 32, the last
//      of 8, and a partial tile of keys;
//   c: 4 heads of 128 queries, 72 keys, a boolean mask: one block per head.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s --check-prefix=THREE
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=IR

// CHECK: fuse_k0_attention: attention
// CHECK: fuse_k1_attention: attention
// CHECK: fuse_k2_attention: attention
// CHECK: check: passed, 3 outputs match the reference
// THREE: check: passed, 3 outputs match the reference

// The block's Q rows (rows x depth) on the stack.
// IR-LABEL: func.func @fuse_k0_attention
// IR: llvm.alloca %c1024_i64 x f32
// IR-LABEL: func.func @fuse_k1_attention
// IR: llvm.alloca %c512_i64 x f32
// IR-LABEL: func.func @fuse_k2_attention
// IR: llvm.alloca %c2048_i64 x f32

func.func @blocks(%qa: tensor<1x2x40x32xf32>, %ka: tensor<1x2x24x32xf32>, %va: tensor<1x2x24x16xf32>,
                  %qb: tensor<1x4x136x16xf32>, %kb: tensor<1x4x72x16xf32>, %vb: tensor<1x4x72x16xf32>,
                  %qc: tensor<1x4x128x16xf32>, %kc: tensor<1x4x72x16xf32>, %vc: tensor<1x4x72x16xf32>,
                  %keep: tensor<1x1x128x72xi1>)
    -> (tensor<1x2x40x16xf32>, tensor<1x4x136x16xf32>, tensor<1x4x128x16xf32>) {
  // a
  %sa = fuse.matmul %qa, %ka transpose_b : tensor<1x2x40x32xf32>, tensor<1x2x24x32xf32> -> tensor<1x2x40x24xf32>
  %ca = fuse.constant dense<0.17> : tensor<1x2x40x24xf32>
  %ta = fuse.mul %sa, %ca : tensor<1x2x40x24xf32>
  %xa = fuse.reduce max %ta dims = [3] keep_dims : tensor<1x2x40x24xf32> -> tensor<1x2x40x1xf32>
  %xab = fuse.broadcast %xa, dims = [0, 1, 2, 3] : tensor<1x2x40x1xf32> -> tensor<1x2x40x24xf32>
  %da = fuse.sub %ta, %xab : tensor<1x2x40x24xf32>
  %ea = fuse.exp %da : tensor<1x2x40x24xf32>
  %la = fuse.reduce sum %ea dims = [3] keep_dims : tensor<1x2x40x24xf32> -> tensor<1x2x40x1xf32>
  %lab = fuse.broadcast %la, dims = [0, 1, 2, 3] : tensor<1x2x40x1xf32> -> tensor<1x2x40x24xf32>
  %pa = fuse.div %ea, %lab : tensor<1x2x40x24xf32>
  %oa = fuse.matmul %pa, %va : tensor<1x2x40x24xf32>, tensor<1x2x24x16xf32> -> tensor<1x2x40x16xf32>

  // b
  %sb = fuse.matmul %qb, %kb transpose_b : tensor<1x4x136x16xf32>, tensor<1x4x72x16xf32> -> tensor<1x4x136x72xf32>
  %cb = fuse.constant dense<0.25> : tensor<1x4x136x72xf32>
  %tb = fuse.mul %sb, %cb : tensor<1x4x136x72xf32>
  %xb = fuse.reduce max %tb dims = [3] keep_dims : tensor<1x4x136x72xf32> -> tensor<1x4x136x1xf32>
  %xbb = fuse.broadcast %xb, dims = [0, 1, 2, 3] : tensor<1x4x136x1xf32> -> tensor<1x4x136x72xf32>
  %db = fuse.sub %tb, %xbb : tensor<1x4x136x72xf32>
  %eb = fuse.exp %db : tensor<1x4x136x72xf32>
  %lb = fuse.reduce sum %eb dims = [3] keep_dims : tensor<1x4x136x72xf32> -> tensor<1x4x136x1xf32>
  %lbb = fuse.broadcast %lb, dims = [0, 1, 2, 3] : tensor<1x4x136x1xf32> -> tensor<1x4x136x72xf32>
  %pb = fuse.div %eb, %lbb : tensor<1x4x136x72xf32>
  %ob = fuse.matmul %pb, %vb : tensor<1x4x136x72xf32>, tensor<1x4x72x16xf32> -> tensor<1x4x136x16xf32>

  // c
  %sc = fuse.matmul %qc, %kc transpose_b : tensor<1x4x128x16xf32>, tensor<1x4x72x16xf32> -> tensor<1x4x128x72xf32>
  %keepc = fuse.broadcast %keep, dims = [0, 1, 2, 3] : tensor<1x1x128x72xi1> -> tensor<1x4x128x72xi1>
  %low = fuse.constant dense<-30.0> : tensor<1x4x128x72xf32>
  %tc = fuse.select %keepc, %sc, %low : tensor<1x4x128x72xi1>, tensor<1x4x128x72xf32>
  %xc = fuse.reduce max %tc dims = [3] keep_dims : tensor<1x4x128x72xf32> -> tensor<1x4x128x1xf32>
  %xcb = fuse.broadcast %xc, dims = [0, 1, 2, 3] : tensor<1x4x128x1xf32> -> tensor<1x4x128x72xf32>
  %dc = fuse.sub %tc, %xcb : tensor<1x4x128x72xf32>
  %ec = fuse.exp %dc : tensor<1x4x128x72xf32>
  %lc = fuse.reduce sum %ec dims = [3] keep_dims : tensor<1x4x128x72xf32> -> tensor<1x4x128x1xf32>
  %lcb = fuse.broadcast %lc, dims = [0, 1, 2, 3] : tensor<1x4x128x1xf32> -> tensor<1x4x128x72xf32>
  %pc = fuse.div %ec, %lcb : tensor<1x4x128x72xf32>
  %oc = fuse.matmul %pc, %vc : tensor<1x4x128x72xf32>, tensor<1x4x72x16xf32> -> tensor<1x4x128x16xf32>
  return %oa, %ob, %oc : tensor<1x2x40x16xf32>, tensor<1x4x136x16xf32>, tensor<1x4x128x16xf32>
}
