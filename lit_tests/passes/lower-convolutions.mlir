// RUN: fuse-opt %s -split-input-file -fuse-lower-convolutions | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s --check-prefix=PIPELINE
// RUN: fuse-opt %s -split-input-file -fuse-lower-convolutions=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: not fuse-opt %s -split-input-file -fuse-lower-convolutions=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: fuse-lower-convolutions: unknown target 'tpu'; expected host or gpu

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

// Depthwise with a batch of two and a bias (one input channel per group):
// not an im2col and a matmul of one row per group but the sum over the
// window offsets (row-major) of the input's slice at that offset (strided
// by 2) times the channel's weight there, broadcast on dim 1; then the bias.
// The fusion pipeline makes it one pointwise kernel: the weight slices only
// move data, read where the kernel needs them.
// CHECK-LABEL: func.func @depthwise_batched_bias
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[W:.*]]: tensor<3x1x2x2xf32>, %[[B:.*]]: tensor<3xf32>)
//   CHECK-NOT:   fuse.im2col
//       CHECK:   %[[S0:.*]] = fuse.slice %[[X]] offsets = [0, 0, 0, 0] sizes = [2, 3, 2, 2] strides = [1, 1, 2, 2]
//       CHECK:   %[[W0:.*]] = fuse.slice %[[W]] offsets = [0, 0, 0, 0] sizes = [3, 1, 1, 1] strides = [1, 1, 1, 1]
//       CHECK:   %[[V0:.*]] = fuse.reshape %[[W0]] : tensor<3x1x1x1xf32> -> tensor<3xf32>
//       CHECK:   %[[B0:.*]] = fuse.broadcast %[[V0]], dims = [1] : tensor<3xf32> -> tensor<2x3x2x2xf32>
//       CHECK:   %[[T0:.*]] = fuse.mul %[[S0]], %[[B0]]
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 0, 1]
//       CHECK:   fuse.slice %[[W]] offsets = [0, 0, 0, 1]
//       CHECK:   %[[A1:.*]] = fuse.add %[[T0]], %{{.*}}
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 1, 0]
//       CHECK:   fuse.slice %[[X]] offsets = [0, 0, 1, 1]
//       CHECK:   %[[SUM:.*]] = fuse.add %{{.*}}, %{{.*}} : tensor<2x3x2x2xf32>
//       CHECK:   %[[BB:.*]] = fuse.broadcast %[[B]], dims = [1] : tensor<3xf32> -> tensor<2x3x2x2xf32>
//       CHECK:   %[[Y:.*]] = fuse.add %[[SUM]], %[[BB]] : tensor<2x3x2x2xf32>
//       CHECK:   return %[[Y]]
// PIPELINE-LABEL: func.func @depthwise_batched_bias
//   PIPELINE-COUNT-1: fuse.fusion pointwise
//   PIPELINE-NOT: fuse.fusion
//       PIPELINE: return
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

// -----

// A padded depthwise convolution (3x3, pads 1): the input is padded with
// zeros first (a concat per spatial dim, each a kernel of its own: a
// concat under the nine slices would be re-selected per lane nine times),
// then one pointwise kernel sums the nine slices.
// CHECK-LABEL: func.func @depthwise_padded
//       CHECK:   %[[H:.*]] = fuse.concat %{{.*}}, %[[X:.*]], %{{.*}} axis = 2 : tensor<1x8x1x10xf32>, tensor<1x8x10x10xf32>, tensor<1x8x1x10xf32> -> tensor<1x8x12x10xf32>
//       CHECK:   %[[P:.*]] = fuse.concat %{{.*}}, %[[H]], %{{.*}} axis = 3 : tensor<1x8x12x1xf32>, tensor<1x8x12x10xf32>, tensor<1x8x12x1xf32> -> tensor<1x8x12x12xf32>
//       CHECK:   fuse.slice %[[P]] offsets = [0, 0, 0, 0] sizes = [1, 8, 10, 10] strides = [1, 1, 1, 1]
//       CHECK:   fuse.slice %[[P]] offsets = [0, 0, 2, 2] sizes = [1, 8, 10, 10] strides = [1, 1, 1, 1]
// On the GPU (no concat in its pointwise kernels) it stays an im2col and a
// batched matmul.
// GPU-LABEL: func.func @depthwise_padded
//   GPU-NOT:   fuse.concat
//       GPU:   fuse.im2col
//       GPU:   fuse.matmul
// PIPELINE-LABEL: func.func @depthwise_padded
//   PIPELINE-COUNT-3: fuse.fusion pointwise
//   PIPELINE-NOT: fuse.fusion
//       PIPELINE: return
func.func @depthwise_padded(%x: tensor<1x8x10x10xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32> {
  %y = fuse.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x10x10xf32>
  return %y : tensor<1x8x10x10xf32>
}
