// A BERT-style encoder layer (post-norm): sequence 64, hidden 128, 4 heads
// of 32, FFN 512. The fusion pipeline makes it 7 kernels: the Q, K and V
// projections (bias and head split in the epilogue) as one horizontal
// launch, attention (scaled Q K^T plus the mask, the softmax and P V, the
// scores never stored), the output projection + bias + residual with the
// heads merged on its load, layernorm, the FFN up-projection + bias + GELU,
// the down-projection + bias + residual, layernorm.
func.func @encoder_layer(%x: tensor<64x128xf32>, %mask: tensor<64x64xf32>,
    %wq: tensor<128x128xf32>, %bq: tensor<128xf32>,
    %wk: tensor<128x128xf32>, %bk: tensor<128xf32>,
    %wv: tensor<128x128xf32>, %bv: tensor<128xf32>,
    %wo: tensor<128x128xf32>, %bo: tensor<128xf32>,
    %g1: tensor<128xf32>, %be1: tensor<128xf32>,
    %w1: tensor<128x512xf32>, %b1: tensor<512xf32>,
    %w2: tensor<512x128xf32>, %b2: tensor<128xf32>,
    %g2: tensor<128xf32>, %be2: tensor<128xf32>) -> tensor<64x128xf32> {
  // Q, K, V projections with bias; heads split into [heads, seq, head_dim].
  %q0 = fuse.matmul %x, %wq : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %bqb = fuse.broadcast %bq, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %q1 = fuse.add %q0, %bqb : tensor<64x128xf32>
  %q2 = fuse.reshape %q1 : tensor<64x128xf32> -> tensor<64x4x32xf32>
  %q = fuse.transpose %q2, permutation = [1, 0, 2] : tensor<64x4x32xf32> -> tensor<4x64x32xf32>
  %k0 = fuse.matmul %x, %wk : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %bkb = fuse.broadcast %bk, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %k1 = fuse.add %k0, %bkb : tensor<64x128xf32>
  %k2 = fuse.reshape %k1 : tensor<64x128xf32> -> tensor<64x4x32xf32>
  %k = fuse.transpose %k2, permutation = [1, 0, 2] : tensor<64x4x32xf32> -> tensor<4x64x32xf32>
  %v0 = fuse.matmul %x, %wv : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %bvb = fuse.broadcast %bv, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %v1 = fuse.add %v0, %bvb : tensor<64x128xf32>
  %v2 = fuse.reshape %v1 : tensor<64x128xf32> -> tensor<64x4x32xf32>
  %v = fuse.transpose %v2, permutation = [1, 0, 2] : tensor<64x4x32xf32> -> tensor<4x64x32xf32>

  // Scaled Q K^T plus the mask.
  %s0 = fuse.matmul %q, %k transpose_b : tensor<4x64x32xf32>, tensor<4x64x32xf32> -> tensor<4x64x64xf32>
  %scale = fuse.constant dense<0.176776695> : tensor<4x64x64xf32>
  %s1 = fuse.mul %s0, %scale : tensor<4x64x64xf32>
  %maskb = fuse.broadcast %mask, dims = [1, 2] : tensor<64x64xf32> -> tensor<4x64x64xf32>
  %s = fuse.add %s1, %maskb : tensor<4x64x64xf32>

  // Softmax over the keys.
  %mx = fuse.reduce max %s dims = [2] : tensor<4x64x64xf32> -> tensor<4x64xf32>
  %mxb = fuse.broadcast %mx, dims = [0, 1] : tensor<4x64xf32> -> tensor<4x64x64xf32>
  %sh = fuse.sub %s, %mxb : tensor<4x64x64xf32>
  %e = fuse.exp %sh : tensor<4x64x64xf32>
  %sum = fuse.reduce sum %e dims = [2] : tensor<4x64x64xf32> -> tensor<4x64xf32>
  %sumb = fuse.broadcast %sum, dims = [0, 1] : tensor<4x64xf32> -> tensor<4x64x64xf32>
  %p = fuse.div %e, %sumb : tensor<4x64x64xf32>

  // P V, heads merged back into [seq, hidden].
  %o0 = fuse.matmul %p, %v : tensor<4x64x64xf32>, tensor<4x64x32xf32> -> tensor<4x64x32xf32>
  %o1 = fuse.transpose %o0, permutation = [1, 0, 2] : tensor<4x64x32xf32> -> tensor<64x4x32xf32>
  %o = fuse.reshape %o1 : tensor<64x4x32xf32> -> tensor<64x128xf32>

  // Output projection + bias + residual.
  %a0 = fuse.matmul %o, %wo : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %bob = fuse.broadcast %bo, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %a1 = fuse.add %a0, %bob : tensor<64x128xf32>
  %h = fuse.add %a1, %x : tensor<64x128xf32>

  // Layernorm 1.
  %mean1 = fuse.reduce mean %h dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %mean1b = fuse.broadcast %mean1, dims = [0] : tensor<64xf32> -> tensor<64x128xf32>
  %d1 = fuse.sub %h, %mean1b : tensor<64x128xf32>
  %d1sq = fuse.mul %d1, %d1 : tensor<64x128xf32>
  %var1 = fuse.reduce mean %d1sq dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %eps = fuse.constant dense<1.0e-12> : tensor<64xf32>
  %ve1 = fuse.add %var1, %eps : tensor<64xf32>
  %rstd1 = fuse.rsqrt %ve1 : tensor<64xf32>
  %rstd1b = fuse.broadcast %rstd1, dims = [0] : tensor<64xf32> -> tensor<64x128xf32>
  %n1 = fuse.mul %d1, %rstd1b : tensor<64x128xf32>
  %g1b = fuse.broadcast %g1, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %n1g = fuse.mul %n1, %g1b : tensor<64x128xf32>
  %be1b = fuse.broadcast %be1, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %y = fuse.add %n1g, %be1b : tensor<64x128xf32>

  // FFN: up-projection + bias, GELU (tanh form), down-projection + bias.
  %f0 = fuse.matmul %y, %w1 : tensor<64x128xf32>, tensor<128x512xf32> -> tensor<64x512xf32>
  %b1b = fuse.broadcast %b1, dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %f1 = fuse.add %f0, %b1b : tensor<64x512xf32>
  %c0 = fuse.constant dense<0.044715> : tensor<64x512xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<64x512xf32>
  %one = fuse.constant dense<1.0> : tensor<64x512xf32>
  %half = fuse.constant dense<0.5> : tensor<64x512xf32>
  %f1sq = fuse.mul %f1, %f1 : tensor<64x512xf32>
  %f1cube = fuse.mul %f1sq, %f1 : tensor<64x512xf32>
  %t0 = fuse.mul %f1cube, %c0 : tensor<64x512xf32>
  %t1 = fuse.add %f1, %t0 : tensor<64x512xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<64x512xf32>
  %t3 = fuse.tanh %t2 : tensor<64x512xf32>
  %t4 = fuse.add %t3, %one : tensor<64x512xf32>
  %t5 = fuse.mul %f1, %half : tensor<64x512xf32>
  %gelu = fuse.mul %t5, %t4 : tensor<64x512xf32>
  %f2 = fuse.matmul %gelu, %w2 : tensor<64x512xf32>, tensor<512x128xf32> -> tensor<64x128xf32>
  %b2b = fuse.broadcast %b2, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %f3 = fuse.add %f2, %b2b : tensor<64x128xf32>
  %h2 = fuse.add %f3, %y : tensor<64x128xf32>

  // Layernorm 2.
  %mean2 = fuse.reduce mean %h2 dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %mean2b = fuse.broadcast %mean2, dims = [0] : tensor<64xf32> -> tensor<64x128xf32>
  %d2 = fuse.sub %h2, %mean2b : tensor<64x128xf32>
  %d2sq = fuse.mul %d2, %d2 : tensor<64x128xf32>
  %var2 = fuse.reduce mean %d2sq dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %ve2 = fuse.add %var2, %eps : tensor<64xf32>
  %rstd2 = fuse.rsqrt %ve2 : tensor<64xf32>
  %rstd2b = fuse.broadcast %rstd2, dims = [0] : tensor<64xf32> -> tensor<64x128xf32>
  %n2 = fuse.mul %d2, %rstd2b : tensor<64x128xf32>
  %g2b = fuse.broadcast %g2, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %n2g = fuse.mul %n2, %g2b : tensor<64x128xf32>
  %be2b = fuse.broadcast %be2, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %z = fuse.add %n2g, %be2b : tensor<64x128xf32>
  return %z : tensor<64x128xf32>
}
