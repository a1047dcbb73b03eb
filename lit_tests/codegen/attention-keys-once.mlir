// Attention whose heads are several blocks of query rows each (150 rows
// per head: blocks of 32, the last of 22): each head's K tiles are staged
// once, by a `_keys` kernel of their own, into the scratch, and every block
// reads them there (HostAttentionEmitter.cpp, emitKeysKernel), where each
// block used to stage and transpose every tile again. The softmax's P is
// not written: its sum's pass keeps E where P would go and each output row
// is divided by its row's sum at the end (emitWholeRows, foldsSums).
// Four attentions, 4 heads, 150 queries, 150 keys (a partial last tile),
// checked against the reference runtime, at 2 and 3 threads:
//   a: K [1, 4, 150, 32] read through transpose_b where it lies (its whole
//      tiles transposed from there, the last one staged first), a scale on
//      the scores;
//   b: Kᵀ made by a transpose of a projection [1, 150, 4, 32] and scaled by
//      a splat before the matmul (a prologue, computed once per element);
//   c: K given transposed, [1, 4, 32, 150] (runs of keys copied);
//   d: a boolean mask (select with -inf) that masks every key of the first
//      10 rows of each head, P as E times the sum's reciprocal, cleaned by
//      select(isnan(P), 0, P): those rows' outputs are 0 (their sum is
//      NaN), the others' divided by their sums.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s --check-prefix=THREE
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3 && FileCheck %s --check-prefix=V3 < %t/v3/bundle.txt

// CHECK: kernel 0 fuse_k0_keys: attention
// CHECK: kernel 1 fuse_k0_attention: attention
// CHECK: kernel 2 fuse_k{{[0-9]+}}_keys: attention
// CHECK: kernel 3 fuse_k{{[0-9]+}}_attention: attention
// CHECK: kernel 4 fuse_k{{[0-9]+}}_keys: attention
// CHECK: kernel 5 fuse_k{{[0-9]+}}_attention: attention
// CHECK: kernel 6 fuse_k{{[0-9]+}}_keys: attention
// CHECK: kernel 7 fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}select {{.*}}reciprocal {{.*}}isnan {{.*}}matmul
// CHECK-NOT: kernel
// CHECK: check: passed, 4 outputs match the reference
// THREE: check: passed, 4 outputs match the reference

// The keys kernel transposes K's tiles by shuffles (a 16 x 16 transpose's
// first round interleaves two rows: lanes 0, 16, 2, 18, ...); the attention
// kernel reads them and transposes nothing.
// IR-LABEL: func.func @fuse_k0_keys
// IR: vector.shuffle {{.*}} [0, 16, 2, 18,
// IR-LABEL: func.func @fuse_k0_attention
// IR-NOT: [0, 16, 2, 18,
// IR: return

// At v3 (8 lanes, tiles of 32 keys) too: one keys kernel per attention,
// 4 heads x 5 tiles.
// V3: kernel 0 fuse_k0_keys schedule attention iterations 20
// V3: kernel 1 fuse_k0_attention schedule attention iterations 20

func.func @attention(%q: tensor<1x4x150x32xf32>, %k: tensor<1x4x150x32xf32>,
                     %v: tensor<1x4x150x32xf32>, %kp: tensor<1x150x4x32xf32>,
                     %kt: tensor<1x4x32x150xf32>)
    -> (tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32>,
        tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32>) {
  // a
  %s = fuse.matmul %q, %k transpose_b : tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32> -> tensor<1x4x150x150xf32>
  %scale = fuse.constant dense<0.17> : tensor<1x4x150x150xf32>
  %s1 = fuse.mul %s, %scale : tensor<1x4x150x150xf32>
  %m = fuse.reduce max %s1 dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %d = fuse.sub %s1, %mb : tensor<1x4x150x150xf32>
  %e = fuse.exp %d : tensor<1x4x150x150xf32>
  %l = fuse.reduce sum %e dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %lb = fuse.broadcast %l, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %p = fuse.div %e, %lb : tensor<1x4x150x150xf32>
  %o = fuse.matmul %p, %v : tensor<1x4x150x150xf32>, tensor<1x4x150x32xf32> -> tensor<1x4x150x32xf32>

  // b
  %kth = fuse.transpose %kp, permutation = [0, 2, 3, 1] : tensor<1x150x4x32xf32> -> tensor<1x4x32x150xf32>
  %c = fuse.constant dense<0.42> : tensor<1x4x32x150xf32>
  %ks = fuse.mul %kth, %c : tensor<1x4x32x150xf32>
  %sb = fuse.matmul %q, %ks : tensor<1x4x150x32xf32>, tensor<1x4x32x150xf32> -> tensor<1x4x150x150xf32>
  %mb2 = fuse.reduce max %sb dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %mbb = fuse.broadcast %mb2, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %db = fuse.sub %sb, %mbb : tensor<1x4x150x150xf32>
  %eb = fuse.exp %db : tensor<1x4x150x150xf32>
  %lb2 = fuse.reduce sum %eb dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %lbb = fuse.broadcast %lb2, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %pb = fuse.div %eb, %lbb : tensor<1x4x150x150xf32>
  %ob = fuse.matmul %pb, %v : tensor<1x4x150x150xf32>, tensor<1x4x150x32xf32> -> tensor<1x4x150x32xf32>

  // c
  %sc = fuse.matmul %q, %kt : tensor<1x4x150x32xf32>, tensor<1x4x32x150xf32> -> tensor<1x4x150x150xf32>
  %mc = fuse.reduce max %sc dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %mcb = fuse.broadcast %mc, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %dc = fuse.sub %sc, %mcb : tensor<1x4x150x150xf32>
  %ec = fuse.exp %dc : tensor<1x4x150x150xf32>
  %lc = fuse.reduce sum %ec dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %lcb = fuse.broadcast %lc, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %pc = fuse.div %ec, %lcb : tensor<1x4x150x150xf32>
  %oc = fuse.matmul %pc, %v : tensor<1x4x150x150xf32>, tensor<1x4x150x32xf32> -> tensor<1x4x150x32xf32>

  // d
  %sd = fuse.matmul %q, %k transpose_b : tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32> -> tensor<1x4x150x150xf32>
  %masked = fuse.constant dense<false> : tensor<10x150xi1>
  %kept = fuse.constant dense<true> : tensor<140x150xi1>
  %keep = fuse.concat %masked, %kept axis = 0 : tensor<10x150xi1>, tensor<140x150xi1> -> tensor<150x150xi1>
  %keepb = fuse.broadcast %keep, dims = [2, 3] : tensor<150x150xi1> -> tensor<1x4x150x150xi1>
  %ninf = fuse.constant dense<0xFF800000> : tensor<1x4x150x150xf32>
  %td = fuse.select %keepb, %sd, %ninf : tensor<1x4x150x150xi1>, tensor<1x4x150x150xf32>
  %md = fuse.reduce max %td dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %mdb = fuse.broadcast %md, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %dd = fuse.sub %td, %mdb : tensor<1x4x150x150xf32>
  %ed = fuse.exp %dd : tensor<1x4x150x150xf32>
  %ld = fuse.reduce sum %ed dims = [3] keep_dims : tensor<1x4x150x150xf32> -> tensor<1x4x150x1xf32>
  %rd = fuse.reciprocal %ld : tensor<1x4x150x1xf32>
  %rdb = fuse.broadcast %rd, dims = [0, 1, 2, 3] : tensor<1x4x150x1xf32> -> tensor<1x4x150x150xf32>
  %pd = fuse.mul %ed, %rdb : tensor<1x4x150x150xf32>
  %nan = fuse.isnan %pd : tensor<1x4x150x150xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x4x150x150xf32>
  %pd2 = fuse.select %nan, %zero, %pd : tensor<1x4x150x150xi1>, tensor<1x4x150x150xf32>
  %od = fuse.matmul %pd2, %v : tensor<1x4x150x150xf32>, tensor<1x4x150x32xf32> -> tensor<1x4x150x32xf32>
  return %o, %ob, %oc, %od : tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32>, tensor<1x4x150x32xf32>
}
