// Layer normalization over the rows of a [32, 256] matrix, with a scale
// (gamma) and a shift (beta) per column: mean, centered variance, rsqrt,
// normalize, scale and shift. The fusion pipeline makes it one row-reduction
// kernel.
func.func @layernorm(%x: tensor<32x256xf32>, %gamma: tensor<256xf32>, %beta: tensor<256xf32>) -> tensor<32x256xf32> {
  %mean = fuse.reduce mean %x dims = [1] keep_dims : tensor<32x256xf32> -> tensor<32x1xf32>
  %meanb = fuse.broadcast %mean, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x256xf32>
  %d = fuse.sub %x, %meanb : tensor<32x256xf32>
  %d2 = fuse.mul %d, %d : tensor<32x256xf32>
  %var = fuse.reduce mean %d2 dims = [1] keep_dims : tensor<32x256xf32> -> tensor<32x1xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<32x1xf32>
  %ve = fuse.add %var, %eps : tensor<32x1xf32>
  %rstd = fuse.rsqrt %ve : tensor<32x1xf32>
  %rstdb = fuse.broadcast %rstd, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x256xf32>
  %n = fuse.mul %d, %rstdb : tensor<32x256xf32>
  %g = fuse.broadcast %gamma, dims = [1] : tensor<256xf32> -> tensor<32x256xf32>
  %b = fuse.broadcast %beta, dims = [1] : tensor<256xf32> -> tensor<32x256xf32>
  %s = fuse.mul %n, %g : tensor<32x256xf32>
  %y = fuse.add %s, %b : tensor<32x256xf32>
  return %y : tensor<32x256xf32>
}
