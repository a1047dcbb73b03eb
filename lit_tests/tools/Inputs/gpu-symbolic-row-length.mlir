// A softmax over rows whose length is the symbolic dim (attention's scores
// over the keys): the GPU row kernel's block size and vector width depend
// on the length (gpu-symbolic-softmax.mlir).
func.func @softmax(%x: tensor<8x?xf32, #fuse.dims<sequence>> {fuse.name = "x"})
    -> tensor<8x?xf32, #fuse.dims<sequence>> {
  %m = fuse.reduce max %x dims = [1] keep_dims : tensor<8x?xf32, #fuse.dims<sequence>> -> tensor<8x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x?xf32, #fuse.dims<sequence>>
  %d = fuse.sub %x, %mb : tensor<8x?xf32, #fuse.dims<sequence>>
  %e = fuse.exp %d : tensor<8x?xf32, #fuse.dims<sequence>>
  %s = fuse.reduce sum %e dims = [1] keep_dims : tensor<8x?xf32, #fuse.dims<sequence>> -> tensor<8x1xf32>
  %sb = fuse.broadcast %s, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x?xf32, #fuse.dims<sequence>>
  %y = fuse.div %e, %sb : tensor<8x?xf32, #fuse.dims<sequence>>
  return %y : tensor<8x?xf32, #fuse.dims<sequence>>
}
