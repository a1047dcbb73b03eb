// RUN: fuse-opt %s -split-input-file -fuse-lower-convolutions | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s --check-prefix=PIPELINE

// A padded 1-D convolution: the column matrix (fuse.im2col: channels x
// kernel offsets x output positions, zero in the padding), one matmul with
// the weight as a shared [M, C * K] matrix.
// CHECK-LABEL: func.func @conv1d_padded
//  CHECK-SAME: (%[[X:.*]]: tensor<1x2x5xf32>, %[[W:.*]]: tensor<4x2x3xf32>)
//   CHECK-NOT:   fuse.conv
//       CHECK:   %[[K:.*]] = fuse.im2col %[[X]] window = [3] strides = [1] dilations = [1] pads = [1, 1] : tensor<1x2x5xf32> -> tensor<1x2x3x5xf32>
//       CHECK:   %[[WM:.*]] = fuse.reshape %[[W]] : tensor<4x2x3xf32> -> tensor<4x6xf32>
//       CHECK:   %[[C:.*]] = fuse.reshape %[[K]] : tensor<1x2x3x5xf32> -> tensor<1x6x5xf32>
//       CHECK:   %[[Y:.*]] = fuse.matmul %[[WM]], %[[C]] : tensor<4x6xf32>, tensor<1x6x5xf32> -> tensor<1x4x5xf32>
//       CHECK:   return %[[Y]]
// PIPELINE-LABEL: func.func @conv1d_padded
//   PIPELINE-NOT:   fuse.conv
//       PIPELINE:   fuse.matmul
func.func @conv1d_padded(%x: tensor<1x2x5xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x5xf32> {
  %y = fuse.conv %x, %w strides = [1] dilations = [1] pads = [1, 1] group = 1
      : tensor<1x2x5xf32>, tensor<4x2x3xf32> -> tensor<1x4x5xf32>
  return %y : tensor<1x4x5xf32>
}

// -----

// Depthwise with a batch of two and a bias: the kernel offsets in row-major
// order, strided by 2 and dilated by 1; the weight [G, M / G, C / G * K]
// broadcast over the batch for one batched matmul over (N, G); the result
// reshaped to [N, M, OH, OW] and the bias broadcast on dim 1 and added.
// CHECK-LABEL: func.func @depthwise_batched_bias
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[W:.*]]: tensor<3x1x2x2xf32>, %[[B:.*]]: tensor<3xf32>)
//       CHECK:   %[[K:.*]] = fuse.im2col %[[X]] window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
//       CHECK:   %[[WR:.*]] = fuse.reshape %[[W]] : tensor<3x1x2x2xf32> -> tensor<3x1x4xf32>
//       CHECK:   %[[WB:.*]] = fuse.broadcast %[[WR]], dims = [1, 2, 3] : tensor<3x1x4xf32> -> tensor<2x3x1x4xf32>
//       CHECK:   %[[M:.*]] = fuse.matmul %[[WB]], %[[K]] : tensor<2x3x1x4xf32>, tensor<2x3x4x4xf32> -> tensor<2x3x1x4xf32>
//       CHECK:   %[[R:.*]] = fuse.reshape %[[M]] : tensor<2x3x1x4xf32> -> tensor<2x3x2x2xf32>
//       CHECK:   %[[BB:.*]] = fuse.broadcast %[[B]], dims = [1] : tensor<3xf32> -> tensor<2x3x2x2xf32>
//       CHECK:   %[[Y:.*]] = fuse.add %[[R]], %[[BB]] : tensor<2x3x2x2xf32>
//       CHECK:   return %[[Y]]
func.func @depthwise_batched_bias(%x: tensor<2x3x4x4xf32>, %w: tensor<3x1x2x2xf32>, %b: tensor<3xf32>) -> tensor<2x3x2x2xf32> {
  %y = fuse.conv %x, %w, %b strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] group = 3
      : tensor<2x3x4x4xf32>, tensor<3x1x2x2xf32>, tensor<3xf32> -> tensor<2x3x2x2xf32>
  return %y : tensor<2x3x2x2xf32>
}

// -----

// Two groups, batch 1, f16, dilation 2 and uneven pads on the second dim
// only: the groups are the matmul's batch, no broadcast.
// CHECK-LABEL: func.func @grouped_dilated_f16
//       CHECK:   fuse.im2col %{{.*}} window = [2, 3] strides = [1, 1] dilations = [1, 2] pads = [0, 0, 0, 2] : tensor<1x4x3x5xf16> -> tensor<1x4x6x6xf16>
//       CHECK:   %[[WR:.*]] = fuse.reshape %{{.*}} : tensor<6x2x2x3xf16> -> tensor<2x3x12xf16>
//       CHECK:   %[[C:.*]] = fuse.reshape %{{.*}} : tensor<1x4x6x6xf16> -> tensor<2x12x6xf16>
//       CHECK:   %[[M:.*]] = fuse.matmul %[[WR]], %[[C]] : tensor<2x3x12xf16>, tensor<2x12x6xf16> -> tensor<2x3x6xf16>
//       CHECK:   fuse.reshape %[[M]] : tensor<2x3x6xf16> -> tensor<1x6x2x3xf16>
func.func @grouped_dilated_f16(%x: tensor<1x4x3x5xf16>, %w: tensor<6x2x2x3xf16>) -> tensor<1x6x2x3xf16> {
  %y = fuse.conv %x, %w strides = [1, 1] dilations = [1, 2] pads = [0, 0, 0, 2] group = 2
      : tensor<1x4x3x5xf16>, tensor<6x2x2x3xf16> -> tensor<1x6x2x3xf16>
  return %y : tensor<1x6x2x3xf16>
}

// -----

// A 1x1 convolution with unit strides and no padding reads its input as the
// column matrix: no im2col.
// CHECK-LABEL: func.func @pointwise_conv
//   CHECK-NOT:   fuse.im2col
//       CHECK:   %[[C:.*]] = fuse.reshape %{{.*}} : tensor<1x8x4x4xf32> -> tensor<1x8x16xf32>
//       CHECK:   fuse.matmul %{{.*}}, %[[C]] : tensor<16x8xf32>, tensor<1x8x16xf32> -> tensor<1x16x16xf32>
func.func @pointwise_conv(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %y = fuse.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32> -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}
