// The sum of squares of a vector (a squared L2 norm): a multiply feeding a
// reduction of every element to a scalar, a full-reduction schedule.
func.func @sum_squares(%x: tensor<4096xf32>) -> tensor<f32> {
  %sq = fuse.mul %x, %x : tensor<4096xf32>
  %s = fuse.reduce sum %sq dims = [0] : tensor<4096xf32> -> tensor<f32>
  return %s : tensor<f32>
}
