// Depthwise convolutions with 7x7 windows (convnext's, pads 3, with a
// bias), one of 1x7 and one of 7x1 are each one window_reduction kernel.
// Their 49 window offsets lower to a slice of the columns, a slice of the
// weight and its broadcast, a multiply and an add each: the index maps do
// not count toward max-ops (347 ops, 99 counted), and the sums of rows,
// each made as soon as its two halves are, keep fuse-form-fusions' groups
// under max-operands while they grow (the tree's top first took two inputs
// per row). The kernels were 16 (the column matrix stored, 49 times the
// input, and read by pointwise kernels of parts of the sum). fuse-run
// --check compares every output with the reference runtime's conv on
// random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// CHECK: plan: 3 kernels
// CHECK-COUNT-3: window-reduction
// CHECK-NOT: kernel
// CHECK: check: passed, 3 outputs match the reference
// FUSED-COUNT-3: fuse.fusion window_reduction
// FUSED-NOT: fuse.fusion

func.func @windows(%x: tensor<1x24x20x20xf32>, %w7: tensor<24x1x7x7xf32>, %b7: tensor<24xf32>,
                   %wr: tensor<24x1x1x7xf32>, %wc: tensor<24x1x7x1xf32>)
    -> (tensor<1x24x20x20xf32>, tensor<1x24x20x20xf32>, tensor<1x24x20x20xf32>) {
  %y = fuse.conv %x, %w7, %b7 strides = [1, 1] dilations = [1, 1] pads = [3, 3, 3, 3] group = 24
      : tensor<1x24x20x20xf32>, tensor<24x1x7x7xf32>, tensor<24xf32> -> tensor<1x24x20x20xf32>
  %r = fuse.conv %x, %wr strides = [1, 1] dilations = [1, 1] pads = [0, 3, 0, 3] group = 24
      : tensor<1x24x20x20xf32>, tensor<24x1x1x7xf32> -> tensor<1x24x20x20xf32>
  %c = fuse.conv %x, %wc strides = [1, 1] dilations = [1, 1] pads = [3, 0, 3, 0] group = 24
      : tensor<1x24x20x20xf32>, tensor<24x1x7x1xf32> -> tensor<1x24x20x20xf32>
  return %y, %r, %c : tensor<1x24x20x20xf32>, tensor<1x24x20x20xf32>, tensor<1x24x20x20xf32>
}
