// Depthwise convolutions (one input channel per group): fuse-lower-
// convolutions makes each the sum over its window offsets of the im2col's
// slice at that offset times the channel's weight, and fusion makes that one
// window_reduction kernel (the bias, the relu6 and the residual add join it)
// that reads the input at each offset and never stores the column matrix.
// On the host, fuse-run --check compares every output with the reference
// runtime's conv (random inputs): batch 2; rows of 21 (vectors cross rows:
// a masked load per row piece or a gather, per vector), 32 (whole vectors
// per row) and 7 (shorter than a vector: a masked
// load per window offset, depthwise-narrow.mlir); stride 2 with uneven
// pads; stride 2 with rows of 21 (a masked load of twice the lanes, their
// even elements, per row piece); dilation 2; a 1-D one. Last, a regular
// convolution with stride 2 and rows of 21, whose im2col is a kernel of its
// own before the matmul. For sm_80 and sm_90 ptxas assembles every kernel.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --check --no-fusion --cache-dir %t/cache | FileCheck %s --check-prefix=UNFUSED
// RUN: %if ptxas %{ fuse-compile %s --target=sm_80 -o %t/sm_80 && fuse-compile %s --target=sm_90 -o %t/sm_90 && FileCheck %s --check-prefix=GPU < %t/sm_80/bundle.txt %}

// HOST: plan: 8 kernels
// HOST-COUNT-7: window-reduction
// HOST: matmul
// HOST-NOT: kernel
// HOST: check out0: {{.*}}: ok
// HOST: check out1: {{.*}}: ok
// HOST: check out2: {{.*}}: ok
// HOST: check out3: {{.*}}: ok
// HOST: check out4: {{.*}}: ok
// HOST: check out5: {{.*}}: ok
// HOST: check out6: {{.*}}: ok
// HOST: check: passed, 7 outputs match the reference
// UNFUSED: check: passed, 7 outputs match the reference
// GPU-COUNT-7: schedule window-reduction
// GPU: schedule matmul
// GPU-NOT: schedule

func.func @depthwise(%a: tensor<2x16x10x21xf32>, %wa: tensor<16x1x3x3xf32>, %ba: tensor<16xf32>,
                     %b: tensor<1x8x6x32xf32>, %wb: tensor<8x1x3x3xf32>,
                     %c: tensor<2x4x9x9xf32>, %wc: tensor<4x1x3x3xf32>,
                     %d: tensor<1x8x7x7xf32>, %wd: tensor<8x1x3x3xf32>,
                     %e: tensor<1x6x40xf32>, %we: tensor<6x1x5xf32>, %be: tensor<6xf32>,
                     %f: tensor<1x8x6x41xf32>, %wf: tensor<8x1x3x3xf32>,
                     %g: tensor<1x3x6x41xf32>, %wg: tensor<4x3x3x3xf32>)
    -> (tensor<2x16x10x21xf32>, tensor<1x8x6x32xf32>, tensor<2x4x4x4xf32>,
        tensor<1x8x7x7xf32>, tensor<1x6x40xf32>, tensor<1x8x3x21xf32>,
        tensor<1x4x3x21xf32>) {
  // 3x3, pads 1, bias, relu6, residual.
  %ya = fuse.conv %a, %wa, %ba strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 16
      : tensor<2x16x10x21xf32>, tensor<16x1x3x3xf32>, tensor<16xf32> -> tensor<2x16x10x21xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x16x10x21xf32>
  %six = fuse.constant dense<6.0> : tensor<2x16x10x21xf32>
  %ra = fuse.max %ya, %zero : tensor<2x16x10x21xf32>
  %ca = fuse.min %ra, %six : tensor<2x16x10x21xf32>
  %oa = fuse.add %ca, %a : tensor<2x16x10x21xf32>
  // Rows of 32: whole vectors.
  %ob = fuse.conv %b, %wb strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x6x32xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x6x32xf32>
  // Stride 2, uneven pads.
  %oc = fuse.conv %c, %wc strides = [2, 2] dilations = [1, 1] pads = [0, 1, 1, 0] group = 4
      : tensor<2x4x9x9xf32>, tensor<4x1x3x3xf32> -> tensor<2x4x4x4xf32>
  // Dilation 2 on 7x7 (rows shorter than a vector).
  %od = fuse.conv %d, %wd strides = [1, 1] dilations = [2, 2] pads = [2, 2, 2, 2] group = 8
      : tensor<1x8x7x7xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x7x7xf32>
  // 1-D, kernel 5, bias.
  %oe = fuse.conv %e, %we, %be strides = [1] dilations = [1] pads = [2, 2] group = 6
      : tensor<1x6x40xf32>, tensor<6x1x5xf32>, tensor<6xf32> -> tensor<1x6x40xf32>
  // Stride 2, rows of 21: depthwise, then a regular convolution.
  %of = fuse.conv %f, %wf strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x6x41xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x3x21xf32>
  %og = fuse.conv %g, %wg strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x3x6x41xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x3x21xf32>
  return %oa, %ob, %oc, %od, %oe, %of, %og : tensor<2x16x10x21xf32>, tensor<1x8x6x32xf32>, tensor<2x4x4x4xf32>,
      tensor<1x8x7x7xf32>, tensor<1x6x40xf32>, tensor<1x8x3x21xf32>, tensor<1x4x3x21xf32>
}
