// Softmax over the rows of a [32, 256] matrix: max, subtract, exp, sum,
// divide. The fusion pipeline makes it one row-reduction kernel.
func.func @softmax(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
  %m = fuse.reduce max %x dims = [1] keep_dims : tensor<32x256xf32> -> tensor<32x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x256xf32>
  %d = fuse.sub %x, %mb : tensor<32x256xf32>
  %e = fuse.exp %d : tensor<32x256xf32>
  %s = fuse.reduce sum %e dims = [1] keep_dims : tensor<32x256xf32> -> tensor<32x1xf32>
  %sb = fuse.broadcast %s, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x256xf32>
  %y = fuse.div %e, %sb : tensor<32x256xf32>
  return %y : tensor<32x256xf32>
}
