// Attention over more keys than a row of scores and of P fits on the
// kernel's stack (40000 keys with 16 elements per Q row; up to about 32000
// keys they are on the stack), 6 queries, 2 heads: still one host kernel
// each, in one of two forms (HostAttentionEmitter.cpp):
//   a: the row kernel is a softmax (P = E / sum): an online softmax over
//      tiles of keys, a running max and sum per row and the output rows
//      rescaled as the max grows; the stack holds a tile of scores and of
//      E per row, nothing grows with the keys;
//   b: the same with P = E times the sum's reciprocal, and a boolean mask
//      (select with -inf) that masks the first 100 keys of every row, so
//      each row's first tile is all -inf (its E is NaN there: the tile
//      must add nothing, not NaN);
//   c: P cleaned by select(isnan(P), 0, P) as BERT's export has it: the
//      online softmax too, each row's output 0 where its sum is 0 or NaN
//      (the guard's value for a row with every key masked). Before, the
//      rows of scores and P lived in the kernel's scratch (12 x 2 x 40000
//      x 4 bytes); no arena now.
// Before, past 16384 keys each kept a matmul, a row kernel and a matmul,
// and stored all of the scores. Checked against the reference runtime; the
// GPU (8192 keys at most in shared memory) keeps three kernels.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=IR
// RUN: %if ptxas %{ fuse-compile %s --target=sm_90 -o %t/sm_90 && FileCheck %s --check-prefix=GPU < %t/sm_90/bundle.txt %}

// CHECK: kernel {{[0-9]+}} fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops matmul constant mul reduce broadcast sub exp reduce broadcast div matmul
// CHECK: kernel {{[0-9]+}} fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}select {{.*}}reciprocal {{.*}}matmul
// CHECK: kernel {{[0-9]+}} fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}isnan {{.*}}matmul
// CHECK-NOT: kernel
// CHECK: total: {{.*}} arena 0 B
// CHECK: check: passed, 3 outputs match the reference

// The stack holds no row of 40000 keys; the online kernels keep the
// running max of each row; the guarded one stores 0 where a row's sum is 0
// or NaN (unordered-or-equal).
// IR-NOT: llvm.alloca %c400{{[0-9]+}}_i64
// IR: arith.maximumf
// IR: arith.maximumf
// IR: arith.maximumf
// IR: arith.cmpf ueq
// IR-NOT: llvm.alloca %c400{{[0-9]+}}_i64

// GPU: kernels 10
// GPU-NOT: attention

func.func @long(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x40000x16xf32>, %v: tensor<1x2x40000x8xf32>)
    -> (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) {
  %s = fuse.matmul %q, %k transpose_b : tensor<1x2x6x16xf32>, tensor<1x2x40000x16xf32> -> tensor<1x2x6x40000xf32>
  %scale = fuse.constant dense<0.25> : tensor<1x2x6x40000xf32>
  %s1 = fuse.mul %s, %scale : tensor<1x2x6x40000xf32>
  %m = fuse.reduce max %s1 dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %d = fuse.sub %s1, %mb : tensor<1x2x6x40000xf32>
  %e = fuse.exp %d : tensor<1x2x6x40000xf32>
  %l = fuse.reduce sum %e dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %lb = fuse.broadcast %l, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %p = fuse.div %e, %lb : tensor<1x2x6x40000xf32>
  %o = fuse.matmul %p, %v : tensor<1x2x6x40000xf32>, tensor<1x2x40000x8xf32> -> tensor<1x2x6x8xf32>

  %sb = fuse.matmul %q, %k transpose_b : tensor<1x2x6x16xf32>, tensor<1x2x40000x16xf32> -> tensor<1x2x6x40000xf32>
  %masked = fuse.constant dense<false> : tensor<6x100xi1>
  %kept = fuse.constant dense<true> : tensor<6x39900xi1>
  %keep = fuse.concat %masked, %kept axis = 1 : tensor<6x100xi1>, tensor<6x39900xi1> -> tensor<6x40000xi1>
  %keepb = fuse.broadcast %keep, dims = [2, 3] : tensor<6x40000xi1> -> tensor<1x2x6x40000xi1>
  %ninf = fuse.constant dense<0xFF800000> : tensor<1x2x6x40000xf32>
  %tb = fuse.select %keepb, %sb, %ninf : tensor<1x2x6x40000xi1>, tensor<1x2x6x40000xf32>
  %xb = fuse.reduce max %tb dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %xbb = fuse.broadcast %xb, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %db = fuse.sub %tb, %xbb : tensor<1x2x6x40000xf32>
  %eb = fuse.exp %db : tensor<1x2x6x40000xf32>
  %lb2 = fuse.reduce sum %eb dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %rb = fuse.reciprocal %lb2 : tensor<1x2x6x1xf32>
  %rbb = fuse.broadcast %rb, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %pb = fuse.mul %eb, %rbb : tensor<1x2x6x40000xf32>
  %ob = fuse.matmul %pb, %v : tensor<1x2x6x40000xf32>, tensor<1x2x40000x8xf32> -> tensor<1x2x6x8xf32>

  %sc = fuse.matmul %q, %k transpose_b : tensor<1x2x6x16xf32>, tensor<1x2x40000x16xf32> -> tensor<1x2x6x40000xf32>
  %xc = fuse.reduce max %sc dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %xcb = fuse.broadcast %xc, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %dc = fuse.sub %sc, %xcb : tensor<1x2x6x40000xf32>
  %ec = fuse.exp %dc : tensor<1x2x6x40000xf32>
  %lc = fuse.reduce sum %ec dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %lcb = fuse.broadcast %lc, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %pc = fuse.div %ec, %lcb : tensor<1x2x6x40000xf32>
  %nan = fuse.isnan %pc : tensor<1x2x6x40000xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x2x6x40000xf32>
  %pc2 = fuse.select %nan, %zero, %pc : tensor<1x2x6x40000xi1>, tensor<1x2x6x40000xf32>
  %oc = fuse.matmul %pc2, %v : tensor<1x2x6x40000xf32>, tensor<1x2x40000x8xf32> -> tensor<1x2x6x8xf32>
  return %o, %ob, %oc : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>
}
