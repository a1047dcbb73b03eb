// Convolutions whose im2col the matmul kernel packs (an implicit GEMM), where
// the input position is not the output position plus a constant (a stride,
// or a padding that shrinks the map) and the output's width is not a whole
// number of vectors: a packed vector of positions then spans output rows.
// Each window offset reads it in pieces, one per output row it can cover:
// one masked load of a run (at stride 2, twice the lanes and their even
// elements) whose mask and place are computed once per vector and offset,
// merged by selects (RegionEmitterBase::loadRowPieces), no gather.
// fuse-run --check compares every output with the reference runtime's conv
// (random inputs):
// - resnet's stride-2 3x3 convolution, 16 -> 24 channels onto 28x28 (two
//   pieces a vector), with bias and relu;
// - a stride-2 1x1 convolution (a downsample), 16 -> 32 onto 14x14 (up to
//   three pieces), at batch 2;
// - a stride-2 3x3 convolution with the padding after (SAME_UPPER) from 15x15
//   onto 8x8 (its last column reads the padding; up to three pieces);
// - a 3x3 convolution at stride 1 without padding, 20x20 onto 18x18;
// - a stride-2 3x3 convolution with a dilation of 2 onto 7x7 (four pieces).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm | FileCheck %s --check-prefix=V4
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm | FileCheck %s --check-prefix=V3

// HOST: plan: 5 kernels
// HOST-COUNT-5: kernel {{[0-9]}} fuse_k{{[0-9]}}_matmul: matmul,
// HOST-NOT: kernel
// HOST: check: passed, 5 outputs match the reference

// V4-NOT: llvm.masked.gather
// V4: llvm.masked.load.v32f32
// V4-NOT: llvm.masked.gather
// V3-NOT: llvm.masked.gather
// V3: llvm.masked.load.v16f32
// V3-NOT: llvm.masked.gather

func.func @row_pieces(%a: tensor<1x16x56x56xf32>, %wa: tensor<24x16x3x3xf32>, %ba: tensor<24xf32>,
                      %b: tensor<2x16x28x28xf32>, %wb: tensor<32x16x1x1xf32>,
                      %c: tensor<1x8x15x15xf32>, %wc: tensor<16x8x3x3xf32>,
                      %d: tensor<1x8x20x20xf32>, %wd: tensor<16x8x3x3xf32>,
                      %e: tensor<1x8x15x15xf32>, %we: tensor<16x8x3x3xf32>)
    -> (tensor<1x24x28x28xf32>, tensor<2x32x14x14xf32>, tensor<1x16x8x8xf32>,
        tensor<1x16x18x18xf32>, tensor<1x16x7x7xf32>) {
  // 3x3 at stride 2 onto 28x28, bias, relu.
  %0 = fuse.conv %a, %wa, %ba strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x16x56x56xf32>, tensor<24x16x3x3xf32>, tensor<24xf32> -> tensor<1x24x28x28xf32>
  %z = fuse.constant dense<0.0> : tensor<1x24x28x28xf32>
  %1 = fuse.max %0, %z : tensor<1x24x28x28xf32>
  // 1x1 at stride 2 onto 14x14, batch 2.
  %2 = fuse.conv %b, %wb strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x16x28x28xf32>, tensor<32x16x1x1xf32> -> tensor<2x32x14x14xf32>
  // 3x3 at stride 2, the padding after: 15x15 onto 8x8.
  %3 = fuse.conv %c, %wc strides = [2, 2] dilations = [1, 1] pads = [0, 0, 2, 2] group = 1
      : tensor<1x8x15x15xf32>, tensor<16x8x3x3xf32> -> tensor<1x16x8x8xf32>
  // 3x3 at stride 1, no padding: 20x20 onto 18x18.
  %4 = fuse.conv %d, %wd strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x3x3xf32> -> tensor<1x16x18x18xf32>
  // 3x3 at stride 2 with a dilation of 2, 15x15 onto 7x7.
  %5 = fuse.conv %e, %we strides = [2, 2] dilations = [2, 2] pads = [1, 1, 1, 1] group = 1
      : tensor<1x8x15x15xf32>, tensor<16x8x3x3xf32> -> tensor<1x16x7x7xf32>
  return %1, %2, %3, %4, %5 : tensor<1x24x28x28xf32>, tensor<2x32x14x14xf32>, tensor<1x16x8x8xf32>,
      tensor<1x16x18x18xf32>, tensor<1x16x7x7xf32>
}
