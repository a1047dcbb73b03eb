// An empty input whose dims multiply past 2^63 (npy-huge-shape.mlir).
func.func @empty(%x: tensor<4294967296x4294967296x0xf32>) -> tensor<0x4294967296xf32> {
  %y = fuse.reshape %x : tensor<4294967296x4294967296x0xf32> -> tensor<0x4294967296xf32>
  return %y : tensor<0x4294967296xf32>
}
