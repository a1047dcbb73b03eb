// kernel-reuse.mlir's graph with 37-long softmax rows: the same matmul.
func.func @f(%x: tensor<32x96xf32>, %w: tensor<96x80xf32>, %s: tensor<4x37xf32>)
    -> (tensor<32x80xf32>, tensor<4x37xf32>) {
  %m = fuse.matmul %x, %w : tensor<32x96xf32>, tensor<96x80xf32> -> tensor<32x80xf32>
  %z = fuse.constant dense<0.0> : tensor<32x80xf32>
  %r = fuse.max %m, %z : tensor<32x80xf32>
  %mx = fuse.reduce max %s dims = [1] keep_dims : tensor<4x37xf32> -> tensor<4x1xf32>
  %mb = fuse.broadcast %mx, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x37xf32>
  %d = fuse.sub %s, %mb : tensor<4x37xf32>
  %e = fuse.exp %d : tensor<4x37xf32>
  %sum = fuse.reduce sum %e dims = [1] keep_dims : tensor<4x37xf32> -> tensor<4x1xf32>
  %sb = fuse.broadcast %sum, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x37xf32>
  %p = fuse.div %e, %sb : tensor<4x37xf32>
  return %r, %p : tensor<32x80xf32>, tensor<4x37xf32>
}
