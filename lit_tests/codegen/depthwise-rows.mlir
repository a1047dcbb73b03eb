// Depthwise convolutions whose host window kernels run by rows, each row's
// vectors unrolled (a row of at most 16 vectors), at the row's start plus a
// constant: the lanes' coordinates in the row are constants, decoded once
// per row for the rest (RegionEmitterBase::rowOffsetOf), and a window row's
// products are FMAs. fuse-run --check compares every output with the
// reference runtime's conv (random inputs): output rows of 112 (7 whole
// vectors, no overlapping last one; mobilenet_v2's first stage) with bias
// and relu6 at batch 2; rows of 300 positions (19 vectors: the loop over a
// row's vectors, not unrolled, and its overlapping last vector); a 5x5
// window at stride 2 onto 14x14 (rows of 196 positions across output rows,
// a chain of five products per window row; efficientnet_b0's); a 3x5
// window with dilation 2 onto rows of 40.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --check --no-fusion --cache-dir %t/cache | FileCheck %s --check-prefix=UNFUSED

// HOST: plan: 4 kernels
// HOST-COUNT-4: window-reduction
// HOST-NOT: kernel
// HOST: check: passed, 4 outputs match the reference
// UNFUSED: check: passed, 4 outputs match the reference

func.func @rows(%a: tensor<2x3x6x112xf32>, %wa: tensor<3x1x3x3xf32>, %ba: tensor<3xf32>,
                %b: tensor<1x2x3x300xf32>, %wb: tensor<2x1x3x3xf32>,
                %c: tensor<1x4x28x28xf32>, %wc: tensor<4x1x5x5xf32>, %bc: tensor<4xf32>,
                %d: tensor<1x3x9x40xf32>, %wd: tensor<3x1x3x5xf32>)
    -> (tensor<2x3x6x112xf32>, tensor<1x2x3x300xf32>, tensor<1x4x14x14xf32>,
        tensor<1x3x9x40xf32>) {
  // Rows of 112, bias, relu6.
  %ya = fuse.conv %a, %wa, %ba strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 3
      : tensor<2x3x6x112xf32>, tensor<3x1x3x3xf32>, tensor<3xf32> -> tensor<2x3x6x112xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x3x6x112xf32>
  %six = fuse.constant dense<6.0> : tensor<2x3x6x112xf32>
  %ra = fuse.max %ya, %zero : tensor<2x3x6x112xf32>
  %oa = fuse.min %ra, %six : tensor<2x3x6x112xf32>
  // Rows of 300.
  %ob = fuse.conv %b, %wb strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 2
      : tensor<1x2x3x300xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x3x300xf32>
  // 5x5, stride 2, pads 2, bias.
  %oc = fuse.conv %c, %wc, %bc strides = [2, 2] dilations = [1, 1] pads = [2, 2, 2, 2] group = 4
      : tensor<1x4x28x28xf32>, tensor<4x1x5x5xf32>, tensor<4xf32> -> tensor<1x4x14x14xf32>
  // 3x5, dilation 2, "same" pads.
  %od = fuse.conv %d, %wd strides = [1, 1] dilations = [2, 2] pads = [2, 4, 2, 4] group = 3
      : tensor<1x3x9x40xf32>, tensor<3x1x3x5xf32> -> tensor<1x3x9x40xf32>
  return %oa, %ob, %oc, %od : tensor<2x3x6x112xf32>, tensor<1x2x3x300xf32>, tensor<1x4x14x14xf32>,
      tensor<1x3x9x40xf32>
}
