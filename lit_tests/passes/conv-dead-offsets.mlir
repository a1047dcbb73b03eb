// RUN: fuse-opt %s -split-input-file -fuse-lower-convolutions | FileCheck %s

// A convolution's window offsets that read only padding at every output
// position are dropped before the lowering: their products are zeros.
// DeepLabV3's ASPP (3x3, dilation 12, pads 12) on an 8x8 map reads the map
// at the centre offset alone: a 1x1 convolution, a matmul on the input as
// it is, where it lowered to a column matrix of nine offsets.
// CHECK-LABEL: func.func @aspp
//  CHECK-SAME: (%[[X:.*]]: tensor<1x32x8x8xf32>, %[[W:.*]]: tensor<16x32x3x3xf32>
//   CHECK-NOT:   fuse.im2col
//       CHECK:   fuse.slice %[[W]] offsets = [0, 0, 1, 1] sizes = [16, 32, 1, 1] strides = [1, 1, 1, 1] : tensor<16x32x3x3xf32> -> tensor<16x32x1x1xf32>
//   CHECK-NOT:   fuse.im2col
//       CHECK:   fuse.matmul
//   CHECK-NOT:   fuse.conv
func.func @aspp(%x: tensor<1x32x8x8xf32>, %w: tensor<16x32x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [12, 12] pads = [12, 12, 12, 12] group = 1
      : tensor<1x32x8x8xf32>, tensor<16x32x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// -----

// One dim loses its outer offsets (dilation 6 on 4 rows), the other keeps
// all three (dilation 2 on 20 columns): a 1x3 window, the rows unpadded.
// CHECK-LABEL: func.func @one_dim
//       CHECK:   fuse.slice %{{.*}} offsets = [0, 0, 1, 0] sizes = [8, 3, 1, 3]
//       CHECK:   fuse.im2col %{{.*}} window = [1, 3] strides = [1, 1] dilations = [6, 2] pads = [0, 2, 0, 2] : tensor<2x3x4x20xf32> -> tensor<2x3x3x80xf32>
func.func @one_dim(%x: tensor<2x3x4x20xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<2x8x4x20xf32> {
  %y = fuse.conv %x, %w strides = [1, 1] dilations = [6, 2] pads = [6, 2, 6, 2] group = 1
      : tensor<2x3x4x20xf32>, tensor<8x3x3x3xf32> -> tensor<2x8x4x20xf32>
  return %y : tensor<2x8x4x20xf32>
}

// -----

// Every offset reads the map somewhere: nothing is dropped.
// CHECK-LABEL: func.func @all_live
//   CHECK-NOT:   fuse.slice
//       CHECK:   fuse.im2col %{{.*}} window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1]
func.func @all_live(%x: tensor<1x4x7x7xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %y = fuse.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x4x7x7xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
