// A convolution's im2col fuses into its matmul as B's prologue on the host,
// whose pack kernel computes B once per element (an implicit GEMM: the
// column matrix is never stored): one matmul fusion holding the im2col, the
// matmul and the epilogue. The GPU computes B's prologue per tile, so there
// the im2col stays a window_reduction kernel of its own. An im2col on A
// stays apart on both. lit_tests/codegen/implicit-gemm.mlir runs them.

// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s --check-prefix=HOST
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline="target=gpu" | FileCheck %s --check-prefix=GPU

// HOST-LABEL: func.func @conv_relu
//       HOST:   fuse.fusion matmul
//       HOST:     fuse.im2col
//       HOST:     fuse.matmul
//       HOST:     fuse.max
//   HOST-NOT:   fuse.fusion
// GPU-LABEL: func.func @conv_relu
//       GPU:   fuse.fusion window_reduction
//       GPU:     fuse.im2col
//       GPU:   fuse.fusion matmul
func.func @conv_relu(%x: tensor<1x8x20x20xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x20x20xf32> {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x3x3xf32>, tensor<16xf32> -> tensor<1x16x20x20xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x16x20x20xf32>
  %r = fuse.max %y, %zero : tensor<1x16x20x20xf32>
  return %r : tensor<1x16x20x20xf32>
}

// -----

// The column matrix as A (transposed): not the pack's operand.
// HOST-LABEL: func.func @im2col_on_a
//       HOST:   fuse.fusion window_reduction
//       HOST:   fuse.fusion matmul
// GPU-LABEL: func.func @im2col_on_a
//       GPU:   fuse.fusion window_reduction
//       GPU:   fuse.fusion matmul
func.func @im2col_on_a(%x: tensor<1x8x20x20xf32>, %w: tensor<72x16xf32>) -> tensor<400x16xf32> {
  %c = fuse.im2col %x window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x20x20xf32> -> tensor<1x8x9x400xf32>
  %a = fuse.reshape %c : tensor<1x8x9x400xf32> -> tensor<72x400xf32>
  %y = fuse.matmul %a, %w transpose_a : tensor<72x400xf32>, tensor<72x16xf32> -> tensor<400x16xf32>
  return %y : tensor<400x16xf32>
}

