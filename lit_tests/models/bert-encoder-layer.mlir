// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s --check-prefix=COUNT

// A BERT-style encoder layer (post-norm): sequence 8, hidden 32, 4 heads of 8,
// FFN 64. It comes out in exactly 7 kernels (launches):
//   1    the Q, K and V projections, each matmul + bias + head split
//        (reshape, transpose) as its epilogue's index map, as one horizontal
//        fusion: they read one input, so one launch runs the three;
//   2    attention: Q K^T (K's transpose read through transpose_b), scaled,
//        plus the broadcast mask, the softmax over the keys and P V, one
//        block of query rows per work item, the scores never stored;
//   3    output projection + bias + residual, the heads merged (transpose,
//        reshape) as index maps on its load;
//   4    layernorm (a row reduction cannot join a matmul epilogue);
//   5    FFN up-projection + bias + GELU (tanh form);
//   6    FFN down-projection + bias + residual;
//   7    layernorm.
// Every kernel boundary is a matmul operand or a reduction next to a matmul;
// no kernel writes a value that only its own ops read.

// COUNT-LABEL: func.func @bert_encoder_layer
// COUNT-COUNT-10: fuse.fusion
// COUNT-NOT: fuse.fusion

// CHECK-LABEL: func.func @bert_encoder_layer
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x32xf32>, %[[MASK:[a-z0-9]+]]: tensor<8x8xf32>
// CHECK: %[[QKV:.*]]:3 = fuse.fusion horizontal(%[[X]], {{.*}}) : {{.*}} -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>, tensor<4x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[HX:[a-z0-9]+]]: tensor<8x32xf32>
// CHECK-NEXT: fuse.fusion matmul(%[[HX]], {{.*}}) : {{.*}} -> tensor<4x8x8xf32>
// CHECK: fuse.fusion matmul(%[[HX]], {{.*}}) : {{.*}} -> tensor<4x8x8xf32>
// CHECK: fuse.fusion matmul(%[[HX]], {{.*}}) : {{.*}} -> tensor<4x8x8xf32>
// CHECK: %[[A:.*]] = fuse.fusion attention(%[[QKV]]#0, %[[QKV]]#1, %[[MASK]], %[[QKV]]#2) : {{.*}} -> tensor<4x8x8xf32>
// CHECK: fuse.matmul {{.*}} transpose_b
// CHECK: fuse.reduce max
// CHECK: fuse.reduce sum
// CHECK: fuse.matmul
// CHECK: %[[H:.*]] = fuse.fusion matmul(%[[A]], {{.*}}%[[X]]) : {{.*}} -> tensor<8x32xf32>
// CHECK: %[[Y:.*]] = fuse.fusion row_reduction(%[[H]], {{.*}}) : {{.*}} -> tensor<8x32xf32>
// CHECK: %[[G:.*]] = fuse.fusion matmul(%[[Y]], {{.*}}) : {{.*}} -> tensor<8x64xf32>
// CHECK: fuse.tanh
// CHECK: %[[F:.*]] = fuse.fusion matmul(%[[G]], {{.*}}%[[Y]]) : {{.*}} -> tensor<8x32xf32>
// CHECK: %[[Z:.*]] = fuse.fusion row_reduction(%[[F]], {{.*}}) : {{.*}} -> tensor<8x32xf32>
// CHECK: return %[[Z]]
func.func @bert_encoder_layer(%x: tensor<8x32xf32>, %mask: tensor<8x8xf32>,
    %wq: tensor<32x32xf32>, %bq: tensor<32xf32>,
    %wk: tensor<32x32xf32>, %bk: tensor<32xf32>,
    %wv: tensor<32x32xf32>, %bv: tensor<32xf32>,
    %wo: tensor<32x32xf32>, %bo: tensor<32xf32>,
    %g1: tensor<32xf32>, %be1: tensor<32xf32>,
    %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
    %w2: tensor<64x32xf32>, %b2: tensor<32xf32>,
    %g2: tensor<32xf32>, %be2: tensor<32xf32>) -> tensor<8x32xf32> {
  // Q, K, V projections with bias; heads split into [heads, seq, head_dim].
  %q0 = fuse.matmul %x, %wq : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bqb = fuse.broadcast %bq, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %q1 = fuse.add %q0, %bqb : tensor<8x32xf32>
  %q2 = fuse.reshape %q1 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %q = fuse.transpose %q2, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %k0 = fuse.matmul %x, %wk : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bkb = fuse.broadcast %bk, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %k1 = fuse.add %k0, %bkb : tensor<8x32xf32>
  %k2 = fuse.reshape %k1 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %k = fuse.transpose %k2, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %v0 = fuse.matmul %x, %wv : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bvb = fuse.broadcast %bv, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %v1 = fuse.add %v0, %bvb : tensor<8x32xf32>
  %v2 = fuse.reshape %v1 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %v = fuse.transpose %v2, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>

  // Scaled Q K^T plus the mask.
  %s0 = fuse.matmul %q, %k transpose_b : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  %scale = fuse.constant dense<0.353553385> : tensor<4x8x8xf32>
  %s1 = fuse.mul %s0, %scale : tensor<4x8x8xf32>
  %maskb = fuse.broadcast %mask, dims = [1, 2] : tensor<8x8xf32> -> tensor<4x8x8xf32>
  %s = fuse.add %s1, %maskb : tensor<4x8x8xf32>

  // Softmax over the keys.
  %mx = fuse.reduce max %s dims = [2] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  %mxb = fuse.broadcast %mx, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x8xf32>
  %sh = fuse.sub %s, %mxb : tensor<4x8x8xf32>
  %e = fuse.exp %sh : tensor<4x8x8xf32>
  %sum = fuse.reduce sum %e dims = [2] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  %sumb = fuse.broadcast %sum, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x8xf32>
  %p = fuse.div %e, %sumb : tensor<4x8x8xf32>

  // P V, heads merged back into [seq, hidden].
  %o0 = fuse.matmul %p, %v : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  %o1 = fuse.transpose %o0, permutation = [1, 0, 2] : tensor<4x8x8xf32> -> tensor<8x4x8xf32>
  %o = fuse.reshape %o1 : tensor<8x4x8xf32> -> tensor<8x32xf32>

  // Output projection + bias + residual.
  %a0 = fuse.matmul %o, %wo : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bob = fuse.broadcast %bo, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %a1 = fuse.add %a0, %bob : tensor<8x32xf32>
  %h = fuse.add %a1, %x : tensor<8x32xf32>

  // Layernorm 1.
  %mean1 = fuse.reduce mean %h dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %mean1b = fuse.broadcast %mean1, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %d1 = fuse.sub %h, %mean1b : tensor<8x32xf32>
  %d1sq = fuse.mul %d1, %d1 : tensor<8x32xf32>
  %var1 = fuse.reduce mean %d1sq dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %eps = fuse.constant dense<1.0e-12> : tensor<8xf32>
  %ve1 = fuse.add %var1, %eps : tensor<8xf32>
  %rstd1 = fuse.rsqrt %ve1 : tensor<8xf32>
  %rstd1b = fuse.broadcast %rstd1, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %n1 = fuse.mul %d1, %rstd1b : tensor<8x32xf32>
  %g1b = fuse.broadcast %g1, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %n1g = fuse.mul %n1, %g1b : tensor<8x32xf32>
  %be1b = fuse.broadcast %be1, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %y = fuse.add %n1g, %be1b : tensor<8x32xf32>

  // FFN: up-projection + bias, GELU (tanh form), down-projection + bias.
  %f0 = fuse.matmul %y, %w1 : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  %b1b = fuse.broadcast %b1, dims = [1] : tensor<64xf32> -> tensor<8x64xf32>
  %f1 = fuse.add %f0, %b1b : tensor<8x64xf32>
  %c0 = fuse.constant dense<0.044715> : tensor<8x64xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<8x64xf32>
  %one = fuse.constant dense<1.0> : tensor<8x64xf32>
  %half = fuse.constant dense<0.5> : tensor<8x64xf32>
  %f1sq = fuse.mul %f1, %f1 : tensor<8x64xf32>
  %f1cube = fuse.mul %f1sq, %f1 : tensor<8x64xf32>
  %t0 = fuse.mul %f1cube, %c0 : tensor<8x64xf32>
  %t1 = fuse.add %f1, %t0 : tensor<8x64xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<8x64xf32>
  %t3 = fuse.tanh %t2 : tensor<8x64xf32>
  %t4 = fuse.add %t3, %one : tensor<8x64xf32>
  %t5 = fuse.mul %f1, %half : tensor<8x64xf32>
  %gelu = fuse.mul %t5, %t4 : tensor<8x64xf32>
  %f2 = fuse.matmul %gelu, %w2 : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  %b2b = fuse.broadcast %b2, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %f3 = fuse.add %f2, %b2b : tensor<8x32xf32>
  %h2 = fuse.add %f3, %y : tensor<8x32xf32>

  // Layernorm 2.
  %mean2 = fuse.reduce mean %h2 dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %mean2b = fuse.broadcast %mean2, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %d2 = fuse.sub %h2, %mean2b : tensor<8x32xf32>
  %d2sq = fuse.mul %d2, %d2 : tensor<8x32xf32>
  %var2 = fuse.reduce mean %d2sq dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %ve2 = fuse.add %var2, %eps : tensor<8xf32>
  %rstd2 = fuse.rsqrt %ve2 : tensor<8xf32>
  %rstd2b = fuse.broadcast %rstd2, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %n2 = fuse.mul %d2, %rstd2b : tensor<8x32xf32>
  %g2b = fuse.broadcast %g2, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %n2g = fuse.mul %n2, %g2b : tensor<8x32xf32>
  %be2b = fuse.broadcast %be2, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %z = fuse.add %n2g, %be2b : tensor<8x32xf32>
  return %z : tensor<8x32xf32>
}
