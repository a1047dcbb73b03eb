// Attention whose Kᵀ is made inside the kernel (the heads split and Kᵀ by
// transposes of the projection, a scale on K: GPT-2's and Llama's exports)
// reads K's rows as stored, through transpose_b (FoldMatmulTransposes):
// the key tile is staged a row of D at a time and transposed in registers,
// where through the transposes each element of Kᵀ was a gather (0.52 ->
// 0.43 ms for GPT-2's attention at 128 tokens, about 4x for 4 heads x 1500
// keys of 64 on one thread). Two attentions over 2 heads, 40 queries and
// 72 keys (a partial tile), checked against the reference runtime:
//   a: K [2, 72, 32] transposed to [2, 32, 72] inside the kernel;
//   b: the heads split and Kᵀ in one transpose (0, 2, 3, 1) of the
//      projection [1, 72, 2, 32], K scaled by a splat before the matmul.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR

// CHECK: fuse_k0_attention: attention
// CHECK: fuse_k1_attention: attention
// CHECK: check: passed, 2 outputs match the reference

// K's elements are never read one lane position at a time (a position
// extracted from a vector of 16 i64s), and its rows are transposed by
// shuffles.
// IR-LABEL: func.func @fuse_k0_attention
// IR-NOT: i64 from vector<16xi64>
// IR: vector.shuffle
// IR-NOT: i64 from vector<16xi64>
// IR-LABEL: func.func @fuse_k1_attention
// IR-NOT: i64 from vector<16xi64>
// IR: vector.shuffle
// IR-NOT: i64 from vector<16xi64>
// IR: return

func.func @attention(%q: tensor<2x40x32xf32>, %k: tensor<2x72x32xf32>,
                     %v: tensor<2x72x32xf32>, %qh: tensor<1x2x40x32xf32>,
                     %kp: tensor<1x72x2x32xf32>, %vh: tensor<1x2x72x32xf32>)
    -> (tensor<2x40x32xf32>, tensor<1x2x40x32xf32>) {
  // a
  %kt = fuse.transpose %k, permutation = [0, 2, 1] : tensor<2x72x32xf32> -> tensor<2x32x72xf32>
  %s = fuse.matmul %q, %kt : tensor<2x40x32xf32>, tensor<2x32x72xf32> -> tensor<2x40x72xf32>
  %x = fuse.reduce max %s dims = [2] keep_dims : tensor<2x40x72xf32> -> tensor<2x40x1xf32>
  %xb = fuse.broadcast %x, dims = [0, 1, 2] : tensor<2x40x1xf32> -> tensor<2x40x72xf32>
  %d = fuse.sub %s, %xb : tensor<2x40x72xf32>
  %e = fuse.exp %d : tensor<2x40x72xf32>
  %l = fuse.reduce sum %e dims = [2] keep_dims : tensor<2x40x72xf32> -> tensor<2x40x1xf32>
  %lb = fuse.broadcast %l, dims = [0, 1, 2] : tensor<2x40x1xf32> -> tensor<2x40x72xf32>
  %p = fuse.div %e, %lb : tensor<2x40x72xf32>
  %o = fuse.matmul %p, %v : tensor<2x40x72xf32>, tensor<2x72x32xf32> -> tensor<2x40x32xf32>

  // b
  %kth = fuse.transpose %kp, permutation = [0, 2, 3, 1] : tensor<1x72x2x32xf32> -> tensor<1x2x32x72xf32>
  %c = fuse.constant dense<0.42> : tensor<1x2x32x72xf32>
  %ks = fuse.mul %kth, %c : tensor<1x2x32x72xf32>
  %sh = fuse.matmul %qh, %ks : tensor<1x2x40x32xf32>, tensor<1x2x32x72xf32> -> tensor<1x2x40x72xf32>
  %xh = fuse.reduce max %sh dims = [3] keep_dims : tensor<1x2x40x72xf32> -> tensor<1x2x40x1xf32>
  %xhb = fuse.broadcast %xh, dims = [0, 1, 2, 3] : tensor<1x2x40x1xf32> -> tensor<1x2x40x72xf32>
  %dh = fuse.sub %sh, %xhb : tensor<1x2x40x72xf32>
  %eh = fuse.exp %dh : tensor<1x2x40x72xf32>
  %lh = fuse.reduce sum %eh dims = [3] keep_dims : tensor<1x2x40x72xf32> -> tensor<1x2x40x1xf32>
  %lhb = fuse.broadcast %lh, dims = [0, 1, 2, 3] : tensor<1x2x40x1xf32> -> tensor<1x2x40x72xf32>
  %ph = fuse.div %eh, %lhb : tensor<1x2x40x72xf32>
  %oh = fuse.matmul %ph, %vh : tensor<1x2x40x72xf32>, tensor<1x2x72x32xf32> -> tensor<1x2x40x32xf32>
  return %o, %oh : tensor<2x40x32xf32>, tensor<1x2x40x32xf32>
}
