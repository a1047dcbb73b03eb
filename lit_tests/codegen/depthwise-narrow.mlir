// Depthwise convolutions on maps whose positions are not whole vectors (the
// 14x14 and 7x7 stages of mobilenet_v2). The host runs such a window kernel
// row by row (a row: one channel of one image), so a channel's weight, bias
// and clip are one value per vector; a row's last vector overlaps the one
// before it. With unit strides and a "same" padding the input position is
// the output position plus a constant per window offset: one masked vector
// load per offset, across output rows (and, where a channel's map is shorter
// than a vector, across channels). fuse-run --check compares every output
// with the reference runtime's conv (random inputs): 14x14 at batch 2 with
// bias and relu6; 7x7 with a 5x5 window; 3x3 maps (9 positions: the flat
// loop, vectors across channels and images); a 2x2 window with the padding
// after (SAME_UPPER) on 5x7; a 1-D one of 20 positions; stride 2 onto 14x14
// and 7x7 (by rows, each offset a masked load per output row among a
// vector's lanes: depthwise-pieces.mlir), and onto 6x3 (a vector's lanes in
// six output rows, more pieces than loadIm2colPieces takes: a masked gather
// per offset). Maps of whole vectors whose
// output rows are not (16x24, on AVX-512) run by output rows: each vector
// one run of its row, at stride 1 (one masked load) and 2 (a masked load of
// twice the lanes, their even elements).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --check --no-fusion --cache-dir %t/cache | FileCheck %s --check-prefix=UNFUSED

// HOST: plan: 10 kernels
// HOST-COUNT-10: window-reduction
// HOST-NOT: kernel
// HOST: check: passed, 10 outputs match the reference
// UNFUSED: check: passed, 10 outputs match the reference

func.func @narrow(%a: tensor<2x12x14x14xf32>, %wa: tensor<12x1x3x3xf32>, %ba: tensor<12xf32>,
                  %b: tensor<1x6x7x7xf32>, %wb: tensor<6x1x5x5xf32>,
                  %c: tensor<2x5x3x3xf32>, %wc: tensor<5x1x3x3xf32>,
                  %d: tensor<1x4x5x7xf32>, %wd: tensor<4x1x2x2xf32>,
                  %e: tensor<1x3x20xf32>, %we: tensor<3x1x3xf32>,
                  %f: tensor<1x8x28x28xf32>, %wf: tensor<8x1x3x3xf32>,
                  %g: tensor<1x8x14x14xf32>, %wg: tensor<8x1x3x3xf32>,
                  %h: tensor<2x4x16x24xf32>, %wh: tensor<4x1x3x3xf32>, %bh: tensor<4xf32>,
                  %i: tensor<1x4x32x48xf32>, %wi: tensor<4x1x3x3xf32>,
                  %j: tensor<1x2x12x6xf32>, %wj: tensor<2x1x3x3xf32>)
    -> (tensor<2x12x14x14xf32>, tensor<1x6x7x7xf32>, tensor<2x5x3x3xf32>,
        tensor<1x4x5x7xf32>, tensor<1x3x20xf32>, tensor<1x8x14x14xf32>,
        tensor<1x8x7x7xf32>, tensor<2x4x16x24xf32>, tensor<1x4x16x24xf32>,
        tensor<1x2x6x3xf32>) {
  // 14x14, 3x3, pads 1, bias, relu6.
  %ya = fuse.conv %a, %wa, %ba strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 12
      : tensor<2x12x14x14xf32>, tensor<12x1x3x3xf32>, tensor<12xf32> -> tensor<2x12x14x14xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x12x14x14xf32>
  %six = fuse.constant dense<6.0> : tensor<2x12x14x14xf32>
  %ra = fuse.max %ya, %zero : tensor<2x12x14x14xf32>
  %oa = fuse.min %ra, %six : tensor<2x12x14x14xf32>
  // 7x7, 5x5, pads 2.
  %ob = fuse.conv %b, %wb strides = [1, 1] dilations = [1, 1] pads = [2, 2, 2, 2] group = 6
      : tensor<1x6x7x7xf32>, tensor<6x1x5x5xf32> -> tensor<1x6x7x7xf32>
  // 3x3 maps: 9 positions, fewer than a vector.
  %oc = fuse.conv %c, %wc strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 5
      : tensor<2x5x3x3xf32>, tensor<5x1x3x3xf32> -> tensor<2x5x3x3xf32>
  // 2x2, the padding after (SAME_UPPER).
  %od = fuse.conv %d, %wd strides = [1, 1] dilations = [1, 1] pads = [0, 0, 1, 1] group = 4
      : tensor<1x4x5x7xf32>, tensor<4x1x2x2xf32> -> tensor<1x4x5x7xf32>
  // 1-D, 20 positions.
  %oe = fuse.conv %e, %we strides = [1] dilations = [1] pads = [1, 1] group = 3
      : tensor<1x3x20xf32>, tensor<3x1x3xf32> -> tensor<1x3x20xf32>
  // Stride 2 onto 14x14 and 7x7.
  %of = fuse.conv %f, %wf strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x14x14xf32>
  %og = fuse.conv %g, %wg strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x14x14xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x7x7xf32>
  // Rows of 24 on 16x24 maps (whole vectors): at stride 1 with bias, and
  // at stride 2 from 32x48.
  %oh = fuse.conv %h, %wh, %bh strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 4
      : tensor<2x4x16x24xf32>, tensor<4x1x3x3xf32>, tensor<4xf32> -> tensor<2x4x16x24xf32>
  %oi = fuse.conv %i, %wi strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 4
      : tensor<1x4x32x48xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x16x24xf32>
  // Stride 2 onto 6x3: six output rows a vector.
  %oj = fuse.conv %j, %wj strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 2
      : tensor<1x2x12x6xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x6x3xf32>
  return %oa, %ob, %oc, %od, %oe, %of, %og, %oh, %oi, %oj : tensor<2x12x14x14xf32>, tensor<1x6x7x7xf32>, tensor<2x5x3x3xf32>,
      tensor<1x4x5x7xf32>, tensor<1x3x20xf32>, tensor<1x8x14x14xf32>, tensor<1x8x7x7xf32>,
      tensor<2x4x16x24xf32>, tensor<1x4x16x24xf32>, tensor<1x2x6x3xf32>
}
