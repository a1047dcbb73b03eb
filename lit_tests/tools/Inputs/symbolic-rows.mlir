// A layer norm, a GELU-like pointwise tail and a softmax over rows of 64 on
// symbolic outer dims (batch, sequence): every fusion takes the dims at run
// time (issue 22, step C).
func.func @rows(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
                %g: tensor<64xf32> {fuse.name = "g"}, %be: tensor<64xf32> {fuse.name = "be"},
                %eps: tensor<f32> {fuse.name = "eps"})
    -> (tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x?x64xf32, #fuse.dims<batch, sequence>>) {
  %mu = fuse.reduce mean %x dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %mub = fuse.broadcast %mu, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %d = fuse.sub %x, %mub : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %d2 = fuse.mul %d, %d : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %var = fuse.reduce mean %d2 dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %eb = fuse.broadcast %eps, dims = [] : tensor<f32> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %ve = fuse.add %var, %eb : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %rs = fuse.rsqrt %ve : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %rsb = fuse.broadcast %rs, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %n = fuse.mul %d, %rsb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %gb = fuse.broadcast %g, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %be, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.mul %n, %gb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %ln = fuse.add %s, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %ln : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %mx = fuse.reduce max %t dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %sh = fuse.sub %t, %mxb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %e = fuse.exp %sh : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %sm = fuse.reduce sum %e dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %smb = fuse.broadcast %sm, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %p = fuse.div %e, %smb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %ln, %p : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
