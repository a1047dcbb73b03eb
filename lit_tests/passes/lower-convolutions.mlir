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
// not a matmul of one row per group but the sum over the window offsets k
// (row-major) of the im2col's slice at k times the channel's weight there
// (the weight as [C, K], sliced at k, broadcast on dim 1): each window row
// in order, then the rows pairwise (a tree of adds); then the bias.
// The fusion pipeline makes it one window_reduction kernel: the im2col and
// the slices only move data, read where the kernel needs them.
// CHECK-LABEL: func.func @depthwise_batched_bias
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[W:.*]]: tensor<3x1x2x2xf32>, %[[B:.*]]: tensor<3xf32>)
//       CHECK:   %[[C:.*]] = fuse.im2col %[[X]] window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
//       CHECK:   %[[WK:.*]] = fuse.reshape %[[W]] : tensor<3x1x2x2xf32> -> tensor<3x4xf32>
//       CHECK:   %[[S0:.*]] = fuse.slice %[[C]] offsets = [0, 0, 0, 0] sizes = [2, 3, 1, 4] strides = [1, 1, 1, 1]
//       CHECK:   %[[W0:.*]] = fuse.slice %[[WK]] offsets = [0, 0] sizes = [3, 1] strides = [1, 1]
//       CHECK:   %[[V0:.*]] = fuse.reshape %[[W0]] : tensor<3x1xf32> -> tensor<3xf32>
//       CHECK:   %[[B0:.*]] = fuse.broadcast %[[V0]], dims = [1] : tensor<3xf32> -> tensor<2x3x4xf32>
//       CHECK:   %[[R0:.*]] = fuse.reshape %[[S0]] : tensor<2x3x1x4xf32> -> tensor<2x3x4xf32>
//       CHECK:   %[[T0:.*]] = fuse.mul %[[R0]], %[[B0]]
//       CHECK:   fuse.slice %[[C]] offsets = [0, 0, 1, 0]
//       CHECK:   fuse.slice %[[WK]] offsets = [0, 1]
//       CHECK:   %[[A1:.*]] = fuse.add %[[T0]], %{{.*}}
//       CHECK:   fuse.slice %[[C]] offsets = [0, 0, 2, 0]
//       CHECK:   fuse.slice %[[C]] offsets = [0, 0, 3, 0]
//       CHECK:   %[[A2:.*]] = fuse.add %{{.*}}, %{{.*}}
//       CHECK:   %[[SUM:.*]] = fuse.add %[[A1]], %[[A2]] : tensor<2x3x4xf32>
//       CHECK:   %[[OUT:.*]] = fuse.reshape %[[SUM]] : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
//       CHECK:   %[[BB:.*]] = fuse.broadcast %[[B]], dims = [1] : tensor<3xf32> -> tensor<2x3x2x2xf32>
//       CHECK:   %[[Y:.*]] = fuse.add %[[OUT]], %[[BB]] : tensor<2x3x2x2xf32>
//       CHECK:   return %[[Y]]
// PIPELINE-LABEL: func.func @depthwise_batched_bias
//   PIPELINE-COUNT-1: fuse.fusion window_reduction
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

// A 1x1 convolution of a 1x1 map with a bias at batch 2 (a squeeze-and-
// excitation block's fully connected layer): not a matmul of one column but
// the sums over the input channels (dim 2) of the weight [M, C, 1, 1] and
// the input [N, C, 1, 1] spread to [N, M, C, 1, 1], into the result's own
// shape (no reshape before or after); then the bias. The fusion pipeline
// makes it a row reduction. In f16 it stays a matmul (which sums the
// products in f32).
// CHECK-LABEL: func.func @fully_connected
//  CHECK-SAME: (%[[X:.*]]: tensor<2x24x1x1xf32>, %[[W:.*]]: tensor<6x24x1x1xf32>, %[[B:.*]]: tensor<6xf32>
//   CHECK-NOT:   fuse.matmul
//       CHECK:   %[[SW:.*]] = fuse.broadcast %[[W]], dims = [1, 2, 3, 4] : tensor<6x24x1x1xf32> -> tensor<2x6x24x1x1xf32>
//       CHECK:   %[[SX:.*]] = fuse.broadcast %[[X]], dims = [0, 2, 3, 4] : tensor<2x24x1x1xf32> -> tensor<2x6x24x1x1xf32>
//       CHECK:   %[[P:.*]] = fuse.mul %[[SW]], %[[SX]] : tensor<2x6x24x1x1xf32>
//       CHECK:   %[[S:.*]] = fuse.reduce sum %[[P]] dims = [2] : tensor<2x6x24x1x1xf32> -> tensor<2x6x1x1xf32>
//       CHECK:   %[[SB:.*]] = fuse.broadcast %[[B]], dims = [1] : tensor<6xf32> -> tensor<2x6x1x1xf32>
//       CHECK:   fuse.add %[[S]], %[[SB]]
//       CHECK:   fuse.matmul %{{.*}}, %{{.*}} : tensor<6x24xf16>, tensor<2x24x1xf16> -> tensor<2x6x1xf16>
// PIPELINE-LABEL: func.func @fully_connected
//   PIPELINE-NOT:   fuse.fusion pointwise
//       PIPELINE:   fuse.fusion row_reduction
//       PIPELINE:   fuse.reduce sum
//       PIPELINE:   fuse.fusion matmul
//       PIPELINE:   fuse.matmul
func.func @fully_connected(%x: tensor<2x24x1x1xf32>, %w: tensor<6x24x1x1xf32>, %b: tensor<6xf32>,
                           %xh: tensor<2x24x1x1xf16>, %wh: tensor<6x24x1x1xf16>)
    -> (tensor<2x6x1x1xf32>, tensor<2x6x1x1xf16>) {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x24x1x1xf32>, tensor<6x24x1x1xf32>, tensor<6xf32> -> tensor<2x6x1x1xf32>
  %yh = fuse.conv %xh, %wh strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x24x1x1xf16>, tensor<6x24x1x1xf16> -> tensor<2x6x1x1xf16>
  return %y, %yh : tensor<2x6x1x1xf32>, tensor<2x6x1x1xf16>
}

// -----

// A padded depthwise convolution (3x3, pads 1): the im2col reads the
// padding as zeros (no concat), and the nine slices of it fuse into one
// window_reduction kernel, on the host and the GPU alike.
// CHECK-LABEL: func.func @depthwise_padded
//   CHECK-NOT:   fuse.concat
//       CHECK:   %[[C:.*]] = fuse.im2col %{{.*}} window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x10x10xf32> -> tensor<1x8x9x100xf32>
//       CHECK:   fuse.slice %[[C]] offsets = [0, 0, 0, 0] sizes = [1, 8, 1, 100] strides = [1, 1, 1, 1]
//       CHECK:   fuse.slice %[[C]] offsets = [0, 0, 8, 0] sizes = [1, 8, 1, 100] strides = [1, 1, 1, 1]
//   CHECK-NOT:   fuse.matmul
// GPU-LABEL: func.func @depthwise_padded
//   GPU-NOT:   fuse.concat
//       GPU:   fuse.im2col
//   GPU-NOT:   fuse.matmul
// PIPELINE-LABEL: func.func @depthwise_padded
//   PIPELINE-COUNT-1: fuse.fusion window_reduction
//   PIPELINE-NOT: fuse.fusion
//       PIPELINE: return
func.func @depthwise_padded(%x: tensor<1x8x10x10xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32> {
  %y = fuse.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x10x10xf32>
  return %y : tensor<1x8x10x10xf32>
}

// -----

// The op of a convolution's result keeps the conv's fuse.op_index (by
// which a plan names the ops of its kernels): the bias add of a 1x1
// convolution, the last reshape of a depthwise one without a bias.
// CHECK-LABEL: func.func @op_index
//   CHECK-NOT:   fuse.op_index
//       CHECK:   fuse.matmul
//   CHECK-NOT:   fuse.op_index
//       CHECK:   fuse.add %{{.*}}, %{{.*}} {fuse.op_index = 3 : i64} : tensor<1x16x4x4xf32>
//   CHECK-NOT:   fuse.op_index
//       CHECK:   fuse.im2col
//   CHECK-NOT:   fuse.op_index
//       CHECK:   fuse.reshape %{{.*}} {fuse.op_index = 4 : i64} : tensor<1x8x16xf32> -> tensor<1x8x4x4xf32>
//   CHECK-NOT:   fuse.op_index
//       CHECK:   return
// GPU-LABEL: func.func @op_index
// PIPELINE-LABEL: func.func @op_index
func.func @op_index(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>,
                    %v: tensor<8x1x3x3xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x8x4x4xf32>) {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1 {fuse.op_index = 3 : i64}
      : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32> -> tensor<1x16x4x4xf32>
  %z = fuse.conv %x, %v strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8 {fuse.op_index = 4 : i64}
      : tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x4x4xf32>
  return %y, %z : tensor<1x16x4x4xf32>, tensor<1x8x4x4xf32>
}
