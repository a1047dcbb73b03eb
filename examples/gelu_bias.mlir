// GELU (tanh form) of x + bias: a broadcast, one add and the GELU chain.
// The fusion pipeline turns the whole function into one pointwise kernel.
func.func @gelu_bias(%x: tensor<64x768xf32>, %bias: tensor<768xf32>) -> tensor<64x768xf32> {
  %b = fuse.broadcast %bias, dims = [1] : tensor<768xf32> -> tensor<64x768xf32>
  %h = fuse.add %x, %b : tensor<64x768xf32>
  %half = fuse.constant dense<0.5> : tensor<64x768xf32>
  %one = fuse.constant dense<1.0> : tensor<64x768xf32>
  %c0 = fuse.constant dense<0.044715> : tensor<64x768xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<64x768xf32>
  %h2 = fuse.mul %h, %h : tensor<64x768xf32>
  %h3 = fuse.mul %h2, %h : tensor<64x768xf32>
  %t0 = fuse.mul %h3, %c0 : tensor<64x768xf32>
  %t1 = fuse.add %h, %t0 : tensor<64x768xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<64x768xf32>
  %t3 = fuse.tanh %t2 : tensor<64x768xf32>
  %t4 = fuse.add %t3, %one : tensor<64x768xf32>
  %t5 = fuse.mul %h, %t4 : tensor<64x768xf32>
  %y = fuse.mul %t5, %half : tensor<64x768xf32>
  return %y : tensor<64x768xf32>
}
