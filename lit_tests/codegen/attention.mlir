// Attention as one host kernel (ScheduleLegality's attention schedule),
// defined by its structure, not its spelling: Q K, pointwise ops on the
// scores, a row softmax and P V form one kernel whose scores stay on the
// stack, however the exporter spelled them. Five attentions over 2 x 4
// heads, 40 queries (a head of at most 128 rows is one block where there
// are 4 heads or more; attention-blocks.mlir has blocks of 32 rows and a
// partial one) and 24 keys (not a multiple of a vector: one partial tile
// of keys), checked against the reference runtime:
//   a: the scale on the scores, an additive mask [2,1,1,24] broadcast,
//      K read through transpose_b;
//   b: a square-root scale on Q and on K, K given transposed (no
//      transpose_b), a boolean mask through select (ONNX Where), the
//      softmax's division as a product with the reciprocal, V read through
//      transpose_b;
//   c: the heads split by reshape + transpose inside the kernel, K and V
//      repeated for grouped-query heads (2 KV heads for 4 query heads,
//      by broadcast + reshape, as Expand exports it), P cleaned by
//      select(isnan(P), 0, P) as BERT's export has it, the heads merged
//      after the kernel;
//   d: the same structure whose probabilities are also returned: no
//      attention kernel (its scores must be stored), a matmul, a row
//      kernel and a matmul as before.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=IR

// CHECK: fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}matmul {{.*}}reduce {{.*}}exp {{.*}}reduce {{.*}}matmul
// CHECK: fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}matmul {{.*}}select {{.*}}reciprocal {{.*}}matmul
// CHECK: fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}transpose {{.*}}matmul {{.*}}isnan {{.*}}matmul
// CHECK-NOT: attention
// CHECK: check: passed, 5 outputs match the reference

// The kernel's stack holds a block of rows of scores and of P: here a
// head's 40 rows of 32 keys (the tile padded), never the scores of more
// than one head. In order: the block's Q rows (40 x 32), a K row, the key
// and value tiles (32 x 32), the rows of scores and P (40 x 32), the
// output rows (40 x 16).
// IR-LABEL: func.func @fuse_k0_attention
// IR-NOT: llvm.alloca %c{{2560|5120}}_i64
// IR: llvm.alloca %c1280_i64 x f32
// IR-NEXT: arith.constant 32
// IR-NEXT: llvm.alloca %c32_i64 x f32
// IR-NEXT: arith.constant 1024
// IR-NEXT: llvm.alloca %c1024_i64 x f32
// IR-NEXT: arith.constant 1024
// IR-NEXT: llvm.alloca %c1024_i64_0 x f32
// IR-NEXT: arith.constant 1280
// IR-NEXT: llvm.alloca %c1280_i64_1 x f32
// IR-NEXT: arith.constant 640
// IR-NEXT: llvm.alloca %c640_i64 x f32
// IR-NOT: llvm.alloca %c{{2560|5120}}_i64
// IR: math.fma %{{.*}} : vector<8xf32>
// IR: vector.reduction <maximumf>
// IR: math.exp
// IR: vector.reduction <add>
// IR: math.fma %{{.*}} : vector<8xf32>
// IR-LABEL: func.func @fuse_k1_attention

func.func @attention(%q: tensor<2x4x40x32xf32>, %k: tensor<2x4x24x32xf32>,
                     %v: tensor<2x4x24x16xf32>, %mask: tensor<2x1x1x24xf32>,
                     %kt: tensor<2x4x32x24xf32>, %vt: tensor<2x4x16x24xf32>,
                     %keep: tensor<2x1x40x24xi1>, %x: tensor<2x40x128xf32>,
                     %kv: tensor<2x2x24x32xf32>)
    -> (tensor<2x4x40x16xf32>, tensor<2x4x40x16xf32>, tensor<2x40x128xf32>,
        tensor<2x4x40x16xf32>, tensor<2x4x40x24xf32>) {
  // a
  %sa = fuse.matmul %q, %k transpose_b : tensor<2x4x40x32xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x24xf32>
  %scale = fuse.constant dense<0.17> : tensor<2x4x40x24xf32>
  %sa1 = fuse.mul %sa, %scale : tensor<2x4x40x24xf32>
  %ma = fuse.broadcast %mask, dims = [0, 1, 2, 3] : tensor<2x1x1x24xf32> -> tensor<2x4x40x24xf32>
  %ta = fuse.add %sa1, %ma : tensor<2x4x40x24xf32>
  %xa = fuse.reduce max %ta dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %xab = fuse.broadcast %xa, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %da = fuse.sub %ta, %xab : tensor<2x4x40x24xf32>
  %ea = fuse.exp %da : tensor<2x4x40x24xf32>
  %la = fuse.reduce sum %ea dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %lab = fuse.broadcast %la, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %pa = fuse.div %ea, %lab : tensor<2x4x40x24xf32>
  %oa = fuse.matmul %pa, %v : tensor<2x4x40x24xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x40x16xf32>

  // b
  %root = fuse.constant dense<0.41> : tensor<2x4x40x32xf32>
  %qb = fuse.mul %q, %root : tensor<2x4x40x32xf32>
  %rootk = fuse.constant dense<0.41> : tensor<2x4x32x24xf32>
  %kb = fuse.mul %kt, %rootk : tensor<2x4x32x24xf32>
  %sb = fuse.matmul %qb, %kb : tensor<2x4x40x32xf32>, tensor<2x4x32x24xf32> -> tensor<2x4x40x24xf32>
  %keepb = fuse.broadcast %keep, dims = [0, 1, 2, 3] : tensor<2x1x40x24xi1> -> tensor<2x4x40x24xi1>
  %low = fuse.constant dense<-30.0> : tensor<2x4x40x24xf32>
  %tb = fuse.select %keepb, %sb, %low : tensor<2x4x40x24xi1>, tensor<2x4x40x24xf32>
  %xb = fuse.reduce max %tb dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %xbb = fuse.broadcast %xb, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %db = fuse.sub %tb, %xbb : tensor<2x4x40x24xf32>
  %eb = fuse.exp %db : tensor<2x4x40x24xf32>
  %lb = fuse.reduce sum %eb dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %rb = fuse.reciprocal %lb : tensor<2x4x40x1xf32>
  %rbb = fuse.broadcast %rb, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %pb = fuse.mul %eb, %rbb : tensor<2x4x40x24xf32>
  %ob = fuse.matmul %pb, %vt transpose_b : tensor<2x4x40x24xf32>, tensor<2x4x16x24xf32> -> tensor<2x4x40x16xf32>

  // c
  %x4 = fuse.reshape %x : tensor<2x40x128xf32> -> tensor<2x40x4x32xf32>
  %qc = fuse.transpose %x4, permutation = [0, 2, 1, 3] : tensor<2x40x4x32xf32> -> tensor<2x4x40x32xf32>
  %kv5 = fuse.broadcast %kv, dims = [0, 1, 3, 4] : tensor<2x2x24x32xf32> -> tensor<2x2x2x24x32xf32>
  %kc = fuse.reshape %kv5 : tensor<2x2x2x24x32xf32> -> tensor<2x4x24x32xf32>
  %sc = fuse.matmul %qc, %kc transpose_b : tensor<2x4x40x32xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x24xf32>
  %xc = fuse.reduce max %sc dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %xcb = fuse.broadcast %xc, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %dc = fuse.sub %sc, %xcb : tensor<2x4x40x24xf32>
  %ec = fuse.exp %dc : tensor<2x4x40x24xf32>
  %lc = fuse.reduce sum %ec dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %lcb = fuse.broadcast %lc, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %pc = fuse.div %ec, %lcb : tensor<2x4x40x24xf32>
  %nan = fuse.isnan %pc : tensor<2x4x40x24xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x4x40x24xf32>
  %pc1 = fuse.select %nan, %zero, %pc : tensor<2x4x40x24xi1>, tensor<2x4x40x24xf32>
  %oc = fuse.matmul %pc1, %kc : tensor<2x4x40x24xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x32xf32>
  %oc1 = fuse.transpose %oc, permutation = [0, 2, 1, 3] : tensor<2x4x40x32xf32> -> tensor<2x40x4x32xf32>
  %oc2 = fuse.reshape %oc1 : tensor<2x40x4x32xf32> -> tensor<2x40x128xf32>

  // d
  %sd = fuse.matmul %q, %k transpose_b : tensor<2x4x40x32xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x24xf32>
  %xd = fuse.reduce max %sd dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %xdb = fuse.broadcast %xd, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %dd = fuse.sub %sd, %xdb : tensor<2x4x40x24xf32>
  %ed = fuse.exp %dd : tensor<2x4x40x24xf32>
  %ld = fuse.reduce sum %ed dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %ldb = fuse.broadcast %ld, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %pd = fuse.div %ed, %ldb : tensor<2x4x40x24xf32>
  %od = fuse.matmul %pd, %v : tensor<2x4x40x24xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x40x16xf32>
  return %oa, %ob, %oc2, %od, %pd : tensor<2x4x40x16xf32>, tensor<2x4x40x16xf32>, tensor<2x40x128xf32>, tensor<2x4x40x16xf32>, tensor<2x4x40x24xf32>
}
