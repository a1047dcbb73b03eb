// RUN: fuse-opt %s -split-input-file -fuse-lower-convolutions | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s --check-prefix=PIPELINE

// A padded 1-D convolution: zeros concatenated on both sides, one strided
// slice per kernel offset stacked on a new dim, one matmul with the weight
// as a shared [M, C * K] matrix.
// CHECK-LABEL: func.func @conv1d_padded
//  CHECK-SAME: (%[[X:.*]]: tensor<1x2x5xf32>, %[[W:.*]]: tensor<4x2x3xf32>)
//   CHECK-NOT:   fuse.conv
//       CHECK:   %[[Z0:.*]] = fuse.constant dense<0.000000e+00> : tensor<1x2x1xf32>
//       CHECK:   %[[Z1:.*]] = fuse.constant dense<0.000000e+00> : tensor<1x2x1xf32>
//       CHECK:   %[[P:.*]] = fuse.concat %[[Z0]], %[[X]], %[[Z1]] axis = 2 : tensor<1x2x1xf32>, tensor<1x2x5xf32>, tensor<1x2x1xf32> -> tensor<1x2x7xf32>
//       CHECK:   %[[S0:.*]] = fuse.slice %[[P]] offsets = [0, 0, 0] sizes = [1, 2, 5] strides = [1, 1, 1]
//       CHECK:   %[[R0:.*]] = fuse.reshape %[[S0]] : tensor<1x2x5xf32> -> tensor<1x2x1x5xf32>
//       CHECK:   %[[S1:.*]] = fuse.slice %[[P]] offsets = [0, 0, 1] sizes = [1, 2, 5] strides = [1, 1, 1]
//       CHECK:   %[[R1:.*]] = fuse.reshape %[[S1]]
//       CHECK:   %[[S2:.*]] = fuse.slice %[[P]] offsets = [0, 0, 2] sizes = [1, 2, 5] strides = [1, 1, 1]
//       CHECK:   %[[R2:.*]] = fuse.reshape %[[S2]]
//       CHECK:   %[[K:.*]] = fuse.concat %[[R0]], %[[R1]], %[[R2]] axis = 2 : {{.*}} -> tensor<1x2x3x5xf32>
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
//   CHECK-NOT:   fuse.concat {{.*}} axis = 3
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 0, 0] sizes = [2, 3, 2, 2] strides = [1, 1, 2, 2]
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 0, 1] sizes = [2, 3, 2, 2] strides = [1, 1, 2, 2]
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 1, 0] sizes = [2, 3, 2, 2] strides = [1, 1, 2, 2]
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 1, 1] sizes = [2, 3, 2, 2] strides = [1, 1, 2, 2]
//       CHECK:   %[[K:.*]] = fuse.concat {{.*}} axis = 2 : {{.*}} -> tensor<2x3x4x4xf32>
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
//       CHECK:   %[[Z:.*]] = fuse.constant dense<0.000000e+00> : tensor<1x4x3x2xf16>
//       CHECK:   %[[P:.*]] = fuse.concat %{{.*}}, %[[Z]] axis = 3 : tensor<1x4x3x5xf16>, tensor<1x4x3x2xf16> -> tensor<1x4x3x7xf16>
//       CHECK:   fuse.slice %[[P]] offsets = [0, 0, 0, 4] sizes = [1, 4, 2, 3] strides = [1, 1, 1, 1]
//       CHECK:   %[[WR:.*]] = fuse.reshape %{{.*}} : tensor<6x2x2x3xf16> -> tensor<2x3x12xf16>
//       CHECK:   %[[C:.*]] = fuse.reshape %{{.*}} : tensor<1x4x6x6xf16> -> tensor<2x12x6xf16>
//       CHECK:   %[[M:.*]] = fuse.matmul %[[WR]], %[[C]] : tensor<2x3x12xf16>, tensor<2x12x6xf16> -> tensor<2x3x6xf16>
//       CHECK:   fuse.reshape %[[M]] : tensor<2x3x6xf16> -> tensor<1x6x2x3xf16>
func.func @grouped_dilated_f16(%x: tensor<1x4x3x5xf16>, %w: tensor<6x2x2x3xf16>) -> tensor<1x6x2x3xf16> {
  %y = fuse.conv %x, %w strides = [1, 1] dilations = [1, 2] pads = [0, 0, 0, 2] group = 2
      : tensor<1x4x3x5xf16>, tensor<6x2x2x3xf16> -> tensor<1x6x2x3xf16>
  return %y : tensor<1x6x2x3xf16>
}
