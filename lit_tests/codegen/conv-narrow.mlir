// Regular convolutions on maps whose rows are narrower than a vector (the
// 14x14 and 7x7 stages of resnet18): the matmul's B is the im2col, packed
// by the matmul kernel a vector of columns at a time, k inside: each vector
// lies in one row of B (one channel and window offset k) and is read as the
// slice of the im2col at that k: with
// unit strides and a "same" padding one masked vector load at the output
// position plus k's shift, across output rows; otherwise one masked gather.
// fuse-run --check compares every output with the reference runtime's conv
// (random inputs): 3x3 on 14x14 at batch 2 with bias and relu; 3x3 on 7x7
// (the rows' last vector has one column); stride 2 from 14x14 onto 7x7;
// dilation 2 on 9x9; a 1-D one of 12 positions.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --check --no-fusion --cache-dir %t/cache | FileCheck %s --check-prefix=UNFUSED

// HOST: check: passed, 5 outputs match the reference
// UNFUSED: check: passed, 5 outputs match the reference

func.func @narrow(%a: tensor<2x16x14x14xf32>, %wa: tensor<32x16x3x3xf32>, %ba: tensor<32xf32>,
                  %b: tensor<1x24x7x7xf32>, %wb: tensor<40x24x3x3xf32>,
                  %c: tensor<1x8x14x14xf32>, %wc: tensor<24x8x3x3xf32>,
                  %d: tensor<1x6x9x9xf32>, %wd: tensor<16x6x3x3xf32>,
                  %e: tensor<1x4x12xf32>, %we: tensor<8x4x3xf32>)
    -> (tensor<2x32x14x14xf32>, tensor<1x40x7x7xf32>, tensor<1x24x7x7xf32>,
        tensor<1x16x9x9xf32>, tensor<1x8x12xf32>) {
  %ya = fuse.conv %a, %wa, %ba strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x16x14x14xf32>, tensor<32x16x3x3xf32>, tensor<32xf32> -> tensor<2x32x14x14xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x32x14x14xf32>
  %oa = fuse.max %ya, %zero : tensor<2x32x14x14xf32>
  %ob = fuse.conv %b, %wb strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x24x7x7xf32>, tensor<40x24x3x3xf32> -> tensor<1x40x7x7xf32>
  %oc = fuse.conv %c, %wc strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x8x14x14xf32>, tensor<24x8x3x3xf32> -> tensor<1x24x7x7xf32>
  %od = fuse.conv %d, %wd strides = [1, 1] dilations = [2, 2] pads = [2, 2, 2, 2] group = 1
      : tensor<1x6x9x9xf32>, tensor<16x6x3x3xf32> -> tensor<1x16x9x9xf32>
  %oe = fuse.conv %e, %we strides = [1] dilations = [1] pads = [1, 1] group = 1
      : tensor<1x4x12xf32>, tensor<8x4x3xf32> -> tensor<1x8x12xf32>
  return %oa, %ob, %oc, %od, %oe : tensor<2x32x14x14xf32>, tensor<1x40x7x7xf32>, tensor<1x24x7x7xf32>,
      tensor<1x16x9x9xf32>, tensor<1x8x12xf32>
}
