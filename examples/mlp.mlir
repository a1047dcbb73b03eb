// A transformer MLP block: relu(x W1 + b1) W2 + b2 + x with 64 tokens,
// hidden 128, inner 512. The weights are stored with unit scale and each
// product is scaled by 1/sqrt(fan_in) (the "equalized learning rate" form),
// so that activations stay of order 1 for inputs of order 1, as in a trained
// model. The fusion pipeline makes it two matmul kernels: the scale, bias and
// relu are the first one's epilogue, the scale, bias and residual the
// second's; the relu output is the only intermediate in memory.
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x512xf32>, %b1: tensor<512xf32>,
               %w2: tensor<512x128xf32>, %b2: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = fuse.matmul %x, %w1 : tensor<64x128xf32>, tensor<128x512xf32> -> tensor<64x512xf32>
  %s1 = fuse.constant dense<0.0883883476> : tensor<64x512xf32>
  %1 = fuse.mul %0, %s1 : tensor<64x512xf32>
  %bb1 = fuse.broadcast %b1, dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %2 = fuse.add %1, %bb1 : tensor<64x512xf32>
  %zero = fuse.constant dense<0.0> : tensor<64x512xf32>
  %3 = fuse.max %2, %zero : tensor<64x512xf32>
  %4 = fuse.matmul %3, %w2 : tensor<64x512xf32>, tensor<512x128xf32> -> tensor<64x128xf32>
  %s2 = fuse.constant dense<0.0441941738> : tensor<64x128xf32>
  %5 = fuse.mul %4, %s2 : tensor<64x128xf32>
  %bb2 = fuse.broadcast %b2, dims = [1] : tensor<128xf32> -> tensor<64x128xf32>
  %6 = fuse.add %5, %bb2 : tensor<64x128xf32>
  %7 = fuse.add %6, %x : tensor<64x128xf32>
  return %7 : tensor<64x128xf32>
}
