// Squeeze-and-excitation blocks as mobilenet_v3 and efficientnet export
// them: a global mean pool, two 1x1 convolutions of the 1x1 map (fully
// connected layers, each with a bias) with relu and a hard sigmoid, and the
// channels of the input scaled by the result. The fully connected layers
// are row reductions over their input channels (fuse-lower-convolutions'
// lowerFullyConnected), not matmuls of one column, and read the weights
// as they are (no copy kernel of a reshape). fuse-run --check
// compares the outputs with the reference runtime's convolutions (random
// inputs): 576 -> 144 -> 576 channels on 7x7 maps (mobilenet_v3_small's
// last blocks), and 40 -> 10 -> 40 at batch 2 (channel counts that are not
// whole vectors).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 8 kernels
// CHECK-NOT: matmul
// CHECK: kernel 0 {{.*}}: window-reduction
// CHECK: kernel 1 {{.*}}: row-reduction
// CHECK: kernel 2 {{.*}}: row-reduction
// CHECK: kernel 3 {{.*}}: pointwise
// CHECK: kernel 4 {{.*}}: window-reduction
// CHECK: kernel 5 {{.*}}: row-reduction
// CHECK: kernel 6 {{.*}}: row-reduction
// CHECK: kernel 7 {{.*}}: pointwise
// CHECK-NOT: matmul
// CHECK: check: passed, 2 outputs match the reference

func.func @se(%x: tensor<1x576x7x7xf32>, %w1: tensor<144x576x1x1xf32>, %b1: tensor<144xf32>,
              %w2: tensor<576x144x1x1xf32>, %b2: tensor<576xf32>,
              %y: tensor<2x40x14x14xf32>, %v1: tensor<10x40x1x1xf32>, %c1: tensor<10xf32>,
              %v2: tensor<40x10x1x1xf32>, %c2: tensor<40xf32>)
    -> (tensor<1x576x7x7xf32>, tensor<2x40x14x14xf32>) {
  %p = fuse.pool mean %x window = [7, 7] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x576x7x7xf32> -> tensor<1x576x1x1xf32>
  %f1 = fuse.conv %p, %w1, %b1 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x576x1x1xf32>, tensor<144x576x1x1xf32>, tensor<144xf32> -> tensor<1x144x1x1xf32>
  %z = fuse.constant dense<0.0> : tensor<1x144x1x1xf32>
  %r = fuse.max %f1, %z : tensor<1x144x1x1xf32>
  %f2 = fuse.conv %r, %w2, %b2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x144x1x1xf32>, tensor<576x144x1x1xf32>, tensor<576xf32> -> tensor<1x576x1x1xf32>
  %three = fuse.constant dense<3.0> : tensor<1x576x1x1xf32>
  %six = fuse.constant dense<6.0> : tensor<1x576x1x1xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x576x1x1xf32>
  %sh = fuse.add %f2, %three : tensor<1x576x1x1xf32>
  %lo = fuse.max %sh, %zero : tensor<1x576x1x1xf32>
  %hi = fuse.min %lo, %six : tensor<1x576x1x1xf32>
  %g = fuse.div %hi, %six : tensor<1x576x1x1xf32>
  %gs = fuse.broadcast %g, dims = [0, 1, 2, 3] : tensor<1x576x1x1xf32> -> tensor<1x576x7x7xf32>
  %o = fuse.mul %x, %gs : tensor<1x576x7x7xf32>

  %q = fuse.pool mean %y window = [14, 14] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<2x40x14x14xf32> -> tensor<2x40x1x1xf32>
  %h1 = fuse.conv %q, %v1, %c1 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x40x1x1xf32>, tensor<10x40x1x1xf32>, tensor<10xf32> -> tensor<2x10x1x1xf32>
  %hz = fuse.constant dense<0.0> : tensor<2x10x1x1xf32>
  %hr = fuse.max %h1, %hz : tensor<2x10x1x1xf32>
  %h2 = fuse.conv %hr, %v2, %c2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x10x1x1xf32>, tensor<40x10x1x1xf32>, tensor<40xf32> -> tensor<2x40x1x1xf32>
  %s = fuse.sigmoid %h2 : tensor<2x40x1x1xf32>
  %ss = fuse.broadcast %s, dims = [0, 1, 2, 3] : tensor<2x40x1x1xf32> -> tensor<2x40x14x14xf32>
  %o2 = fuse.mul %y, %ss : tensor<2x40x14x14xf32>
  return %o, %o2 : tensor<1x576x7x7xf32>, tensor<2x40x14x14xf32>
}
