// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// RUN: fuse-opt %s --mlir-print-op-generic | fuse-opt | FileCheck %s

// Round trip of fuse.conv: 1-D and 2-D, with and without bias, groups
// (depthwise included), strides, dilations and uneven pads, f32, f16, bf16.

// CHECK-LABEL: func.func @conv2d
//  CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>, %[[D:.*]]: tensor<16x1x3x3xf32>)
//       CHECK:   %[[Y:.*]] = fuse.conv %[[X]], %[[W]], %[[B]] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
//       CHECK:   fuse.conv %[[Y]], %[[D]] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 16 : tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x4x4xf32>
//       CHECK:   fuse.conv %[[X]], %[[W]] strides = [2, 1] dilations = [2, 3] pads = [0, 1, 2, 0] group = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x3x3xf32>
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>, %d: tensor<16x1x3x3xf32>)
    -> (tensor<1x16x4x4xf32>, tensor<1x16x3x3xf32>) {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
  %z = fuse.conv %y, %d strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 16
      : tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x4x4xf32>
  %u = fuse.conv %x, %w strides = [2, 1] dilations = [2, 3] pads = [0, 1, 2, 0] group = 1
      : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x3x3xf32>
  return %z, %u : tensor<1x16x4x4xf32>, tensor<1x16x3x3xf32>
}

// CHECK-LABEL: func.func @conv1d_low_precision
//       CHECK:   fuse.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [2] dilations = [1] pads = [1, 1] group = 2 : tensor<2x4x9xf16>, tensor<6x2x3xf16>, tensor<6xf16> -> tensor<2x6x5xf16>
//       CHECK:   fuse.conv %{{.*}}, %{{.*}} strides = [1] dilations = [4] pads = [0, 0] group = 1 : tensor<1x2x9xbf16>, tensor<3x2x2xbf16> -> tensor<1x3x5xbf16>
func.func @conv1d_low_precision(%x: tensor<2x4x9xf16>, %w: tensor<6x2x3xf16>, %b: tensor<6xf16>,
                                %h: tensor<1x2x9xbf16>, %k: tensor<3x2x2xbf16>)
    -> (tensor<2x6x5xf16>, tensor<1x3x5xbf16>) {
  %0 = fuse.conv %x, %w, %b strides = [2] dilations = [1] pads = [1, 1] group = 2
      : tensor<2x4x9xf16>, tensor<6x2x3xf16>, tensor<6xf16> -> tensor<2x6x5xf16>
  %1 = fuse.conv %h, %k strides = [1] dilations = [4] pads = [0, 0] group = 1
      : tensor<1x2x9xbf16>, tensor<3x2x2xbf16> -> tensor<1x3x5xbf16>
  return %0, %1 : tensor<2x6x5xf16>, tensor<1x3x5xbf16>
}

// fuse.im2col (fuse-lower-convolutions' column matrix): 1-D and 2-D,
// strides, dilations, uneven pads.
// CHECK-LABEL: func.func @im2col
//       CHECK:   fuse.im2col %{{.*}} window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x9x64xf32>
//       CHECK:   fuse.im2col %{{.*}} window = [2] strides = [2] dilations = [3] pads = [0, 1] : tensor<2x4x9xf16> -> tensor<2x4x2x4xf16>
func.func @im2col(%x: tensor<1x3x8x8xf32>, %y: tensor<2x4x9xf16>) -> (tensor<1x3x9x64xf32>, tensor<2x4x2x4xf16>) {
  %0 = fuse.im2col %x window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x9x64xf32>
  %1 = fuse.im2col %y window = [2] strides = [2] dilations = [3] pads = [0, 1] : tensor<2x4x9xf16> -> tensor<2x4x2x4xf16>
  return %0, %1 : tensor<1x3x9x64xf32>, tensor<2x4x2x4xf16>
}
