// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). The
// fusion pipeline makes the whole chain one pointwise kernel.
func.func @gelu(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
  %half = fuse.constant dense<0.5> : tensor<32x256xf32>
  %one = fuse.constant dense<1.0> : tensor<32x256xf32>
  %c0 = fuse.constant dense<0.044715> : tensor<32x256xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<32x256xf32>
  %x2 = fuse.mul %x, %x : tensor<32x256xf32>
  %x3 = fuse.mul %x2, %x : tensor<32x256xf32>
  %t0 = fuse.mul %x3, %c0 : tensor<32x256xf32>
  %t1 = fuse.add %x, %t0 : tensor<32x256xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<32x256xf32>
  %t3 = fuse.tanh %t2 : tensor<32x256xf32>
  %t4 = fuse.add %t3, %one : tensor<32x256xf32>
  %t5 = fuse.mul %x, %t4 : tensor<32x256xf32>
  %y = fuse.mul %t5, %half : tensor<32x256xf32>
  return %y : tensor<32x256xf32>
}
