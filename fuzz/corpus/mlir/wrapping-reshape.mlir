func.func @main(%x: tensor<16xf32>) -> tensor<16x1152921504606846977xf32> {
  %r = fuse.reshape %x : tensor<16xf32> -> tensor<16x1152921504606846977xf32>
  return %r : tensor<16x1152921504606846977xf32>
}
