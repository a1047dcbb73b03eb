// Convolutions through the compile pipeline: fuse-lower-convolutions turns
// each into an im2col and a matmul before fusion (a depthwise one into a sum
// of the im2col's slices times the weights, one window kernel; see
// depthwise.mlir), and the kernels that come
// out are the existing schedules'. On the host, fuse-run --check compares
// them with the reference runtime's conv (random inputs, the numerics
// policy's bound for a dot product of C / group * K terms); for sm_80 and
// sm_90, every kernel's PTX is assembled by ptxas (a cubin per kernel).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --check --no-fusion --cache-dir %t/cache | FileCheck %s --check-prefix=HOST

// HOST: output out0: tensor<2x8x4x4xf32>
// HOST: output out1: tensor<2x8x2x2xf32>
// HOST: output out2: tensor<1x6x8xf16>
// HOST: output out3: tensor<1x4x8xf16>
// HOST: output out4: tensor<1x4x10x21xf32>
// HOST: output out5: tensor<1x2x8x16xf32>
// HOST: check out0: {{.*}}: ok
// HOST: check out1: {{.*}}: ok
// HOST: check out2: {{.*}}: ok
// HOST: check out3: {{.*}}: ok
// HOST: check out4: {{.*}}: ok
// HOST: check out5: {{.*}}: ok
// HOST: check: passed, 6 outputs match the reference

// A 3x3 convolution with bias and relu, a depthwise strided one after it,
// a grouped, dilated 1-D one in f16, a depthwise dilated 1-D one in f16
// with uneven pads, and two whose output rows are at least a vector wide
// (the im2col reads a row's lanes with one masked load): 21 wide (vectors
// cross rows: checked per vector) with padding, and 16 wide (whole vectors
// per row) with padding on one side.
func.func @cnn(%x: tensor<2x3x6x6xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>,
               %dw: tensor<8x1x3x3xf32>, %h: tensor<1x4x9xf16>, %k: tensor<6x2x2xf16>,
               %dk: tensor<4x1x3xf16>, %db: tensor<4xf16>,
               %x2: tensor<1x3x10x21xf32>, %w2: tensor<4x3x3x3xf32>,
               %x3: tensor<1x2x9x16xf32>, %w3: tensor<2x2x2x3xf32>)
    -> (tensor<2x8x4x4xf32>, tensor<2x8x2x2xf32>, tensor<1x6x8xf16>, tensor<1x4x8xf16>,
        tensor<1x4x10x21xf32>, tensor<1x2x8x16xf32>) {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x3x6x6xf32>, tensor<8x3x3x3xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>
  %z = fuse.constant dense<0.0> : tensor<2x8x4x4xf32>
  %y = fuse.max %c, %z : tensor<2x8x4x4xf32>
  %d = fuse.conv %y, %dw strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] group = 8
      : tensor<2x8x4x4xf32>, tensor<8x1x3x3xf32> -> tensor<2x8x2x2xf32>
  %s = fuse.conv %h, %k strides = [1] dilations = [2] pads = [1, 0] group = 2
      : tensor<1x4x9xf16>, tensor<6x2x2xf16> -> tensor<1x6x8xf16>
  %e = fuse.conv %h, %dk, %db strides = [1] dilations = [2] pads = [2, 1] group = 4
      : tensor<1x4x9xf16>, tensor<4x1x3xf16>, tensor<4xf16> -> tensor<1x4x8xf16>
  %f = fuse.conv %x2, %w2 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x3x10x21xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x10x21xf32>
  %g = fuse.conv %x3, %w3 strides = [1, 1] dilations = [1, 1] pads = [0, 1, 0, 1] group = 1
      : tensor<1x2x9x16xf32>, tensor<2x2x2x3xf32> -> tensor<1x2x8x16xf32>
  return %y, %d, %s, %e, %f, %g : tensor<2x8x4x4xf32>, tensor<2x8x2x2xf32>, tensor<1x6x8xf16>,
      tensor<1x4x8xf16>, tensor<1x4x10x21xf32>, tensor<1x2x8x16xf32>
}
