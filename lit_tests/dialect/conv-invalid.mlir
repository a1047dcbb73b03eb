// RUN: fuse-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fuse.conv (dialect/FuseOps.cpp).

func.func @conv_element_types_differ(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf16>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{operand element types differ: the input has 'f32', the weight and bias must have it too}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf16> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_3d_rejected(%x: tensor<1x2x4x4x4xf32>, %w: tensor<4x2x1x1x1xf32>) -> tensor<1x4x4x4x4xf32> {
  // expected-error @+1 {{input must have rank 3 or 4 ([N, C, spatial...] with 1 or 2 spatial dims), but has rank 5}}
  %0 = fuse.conv %x, %w strides = [1, 1, 1] dilations = [1, 1, 1] pads = [0, 0, 0, 0, 0, 0] group = 1 : tensor<1x2x4x4x4xf32>, tensor<4x2x1x1x1xf32> -> tensor<1x4x4x4x4xf32>
  return %0 : tensor<1x4x4x4x4xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3x1xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{weight must have the input's rank 3, but has rank 4}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3x1xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_strides_length(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{strides and dilations must have one entry per spatial dim (1), but have 2 and 1}}
  %0 = fuse.conv %x, %w strides = [1, 1] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_pads_length(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{pads must have a begin and an end pad per spatial dim (2 entries), but has 1}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_zero_stride(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{strides [0] and dilations [1] must be >= 1}}
  %0 = fuse.conv %x, %w strides = [0] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_negative_pad(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{pads [-1, 1] must be >= 0}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [-1, 1] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_group_divides(%x: tensor<1x2x8xf32>, %w: tensor<4x1x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{group 3 must be >= 1 and divide the 2 input channels and the 4 output channels}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 3 : tensor<1x2x8xf32>, tensor<4x1x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_channels_per_group(%x: tensor<1x4x8xf32>, %w: tensor<4x4x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{weight dim 1 is 4, expected 2 (input channels per group)}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 2 : tensor<1x4x8xf32>, tensor<4x4x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_bias_shape(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>, %b: tensor<2xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{bias must have shape [4] (one per output channel), but has [2]}}
  %0 = fuse.conv %x, %w, %b strides = [1] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32>, tensor<2xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x2x4xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x1xf32> {
  // expected-error @+1 {{spatial dim 0: the padded input (4) is smaller than the dilated kernel (5)}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [2] pads = [0, 0] group = 1 : tensor<1x2x4xf32>, tensor<4x2x3xf32> -> tensor<1x4x1xf32>
  return %0 : tensor<1x4x1xf32>
}

// -----

func.func @conv_result_shape(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{result type 'tensor<1x4x8xf32>' does not match the expected 'tensor<1x4x6xf32>'}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}

// -----

func.func @conv_integer_rejected(%x: tensor<1x2x8xi8>, %w: tensor<4x2x3xi8>) -> tensor<1x4x6xi8> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<1x2x8xi8>'}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 1 : tensor<1x2x8xi8>, tensor<4x2x3xi8> -> tensor<1x4x6xi8>
  return %0 : tensor<1x4x6xi8>
}

// -----

// fuse.im2col shares fuse.pool's window checks; its own is the result shape.
func.func @im2col_result_shape(%x: tensor<1x2x8xf32>) -> tensor<1x2x3x8xf32> {
  // expected-error @+1 {{result type 'tensor<1x2x3x8xf32>' does not match the expected 'tensor<1x2x3x6xf32>'}}
  %0 = fuse.im2col %x window = [3] strides = [1] dilations = [1] pads = [0, 0] : tensor<1x2x8xf32> -> tensor<1x2x3x8xf32>
  return %0 : tensor<1x2x3x8xf32>
}

// -----

func.func @im2col_window_too_large(%x: tensor<1x2x4xf32>) -> tensor<1x2x6x1xf32> {
  // expected-error @+1 {{window dimension 0: a window of 6 with dilation 1 does not fit in the padded size 5}}
  %0 = fuse.im2col %x window = [6] strides = [1] dilations = [1] pads = [0, 1] : tensor<1x2x4xf32> -> tensor<1x2x6x1xf32>
  return %0 : tensor<1x2x6x1xf32>
}

// -----

// A dilated kernel or a padded input past 2^63 (issue 19): they wrapped, a
// signed overflow in the verifier.
func.func @conv_dilation_passes_2_to_63(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{spatial dim 0: the padded input or the dilated kernel passes 2^63 (pads [0, 0], dilations [4611686018427387904], kernel 3)}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [4611686018427387904] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_pads_pass_2_to_63(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{spatial dim 0: the padded input or the dilated kernel passes 2^63 (pads [9223372036854775807, 1], dilations [1], kernel 3)}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [9223372036854775807, 1] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

// Weight channels times group past 2^63: the wrapped product equalled the
// input's channels.
func.func @conv_group_channels_pass_2_to_63(%x: tensor<1x4x8xf32>, %w: tensor<4x4611686018427387905x1xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{weight dim 1 is 4611686018427387905, expected 1 (input channels per group)}}
  %0 = fuse.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] group = 4 : tensor<1x4x8xf32>, tensor<4x4611686018427387905x1xf32> -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}
