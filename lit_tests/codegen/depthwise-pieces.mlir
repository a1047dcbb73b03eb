// Depthwise convolutions onto maps whose positions are not whole vectors and
// whose input position is not the output position plus a constant (a
// stride, or a padding that shrinks the map): the host window kernel runs
// by rows (a row: one channel's map), each row's vectors unrolled, so every
// lane's output coordinates are constants. Each window offset reads a
// vector in pieces, one per output row among its lanes: one masked load of
// a run (at stride 2, twice the lanes, their even elements), the padding's
// lanes masked off at compile time (RegionEmitterBase::loadIm2colPieces),
// no gather. fuse-run --check compares every output with the reference
// runtime's conv (random inputs): a 5x5 window at stride 2 onto 14x14 with
// bias and relu (mobilenet_v3's); 3x3 at stride 2 onto 7x7 at batch 2 (up
// to three pieces a vector on AVX-512); 3x3 at stride 1 without padding onto
// 14x14; stride 2 with the padding after (SAME_UPPER) onto 7x7, from 15x15
// and from 14x14 (whose last column reads the padding); a dilation of 2 at
// stride 2 onto 10x10; stride 2 onto 5x5 (four pieces a vector, some all
// padding); strides [1, 2] onto 14x14.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm | FileCheck %s --check-prefix=V4
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm | FileCheck %s --check-prefix=V3

// HOST: plan: 8 kernels
// HOST-COUNT-8: window-reduction
// HOST-NOT: kernel
// HOST: check: passed, 8 outputs match the reference

// V4-NOT: llvm.masked.gather
// V4: llvm.masked.load.v32f32
// V4-NOT: llvm.masked.gather
// V3-NOT: llvm.masked.gather
// V3: llvm.masked.load.v16f32
// V3-NOT: llvm.masked.gather

func.func @pieces(%a: tensor<1x6x28x28xf32>, %wa: tensor<6x1x5x5xf32>, %ba: tensor<6xf32>,
                  %b: tensor<2x5x14x14xf32>, %wb: tensor<5x1x3x3xf32>,
                  %c: tensor<1x4x16x16xf32>, %wc: tensor<4x1x3x3xf32>,
                  %d: tensor<1x3x15x15xf32>, %wd: tensor<3x1x3x3xf32>,
                  %e: tensor<1x4x20x20xf32>, %we: tensor<4x1x3x3xf32>,
                  %f: tensor<1x3x14x14xf32>, %wf: tensor<3x1x3x3xf32>,
                  %g: tensor<1x4x10x10xf32>, %wg: tensor<4x1x3x3xf32>,
                  %h: tensor<1x4x14x28xf32>, %wh: tensor<4x1x3x3xf32>)
    -> (tensor<1x6x14x14xf32>, tensor<2x5x7x7xf32>, tensor<1x4x14x14xf32>,
        tensor<1x3x7x7xf32>, tensor<1x4x10x10xf32>, tensor<1x3x7x7xf32>,
        tensor<1x4x5x5xf32>, tensor<1x4x14x14xf32>) {
  // 5x5 at stride 2 onto 14x14, bias, relu.
  %ya = fuse.conv %a, %wa, %ba strides = [2, 2] dilations = [1, 1] pads = [2, 2, 2, 2] group = 6
      : tensor<1x6x28x28xf32>, tensor<6x1x5x5xf32>, tensor<6xf32> -> tensor<1x6x14x14xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x6x14x14xf32>
  %oa = fuse.max %ya, %zero : tensor<1x6x14x14xf32>
  // 3x3 at stride 2 onto 7x7, batch 2.
  %ob = fuse.conv %b, %wb strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 5
      : tensor<2x5x14x14xf32>, tensor<5x1x3x3xf32> -> tensor<2x5x7x7xf32>
  // 3x3 at stride 1, no padding: 16x16 onto 14x14.
  %oc = fuse.conv %c, %wc strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 4
      : tensor<1x4x16x16xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x14x14xf32>
  // Stride 2, the padding after: 15x15 onto 7x7.
  %od = fuse.conv %d, %wd strides = [2, 2] dilations = [1, 1] pads = [0, 0, 1, 1] group = 3
      : tensor<1x3x15x15xf32>, tensor<3x1x3x3xf32> -> tensor<1x3x7x7xf32>
  // Dilation 2 at stride 2: 20x20 onto 10x10.
  %oe = fuse.conv %e, %we strides = [2, 2] dilations = [2, 2] pads = [2, 2, 2, 2] group = 4
      : tensor<1x4x20x20xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x10x10xf32>
  // Stride 2, the padding after, from 14x14: the last column reads it.
  %of = fuse.conv %f, %wf strides = [2, 2] dilations = [1, 1] pads = [0, 0, 1, 1] group = 3
      : tensor<1x3x14x14xf32>, tensor<3x1x3x3xf32> -> tensor<1x3x7x7xf32>
  // Stride 2 onto 5x5: vectors of four rows' pieces.
  %og = fuse.conv %g, %wg strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 4
      : tensor<1x4x10x10xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x5xf32>
  // Strides [1, 2]: 14x28 onto 14x14.
  %oh = fuse.conv %h, %wh strides = [1, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 4
      : tensor<1x4x14x28xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x14x14xf32>
  return %oa, %ob, %oc, %od, %oe, %of, %og, %oh : tensor<1x6x14x14xf32>, tensor<2x5x7x7xf32>, tensor<1x4x14x14xf32>,
      tensor<1x3x7x7xf32>, tensor<1x4x10x10xf32>, tensor<1x3x7x7xf32>, tensor<1x4x5x5xf32>,
      tensor<1x4x14x14xf32>
}
