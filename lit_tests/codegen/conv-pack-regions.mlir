// Implicit GEMM's one-kernel form on the host: each chunk of iterations
// packs its column groups' panels (and keeps its k blocks' partial sums) in
// the scratch region of its first iteration, one after another; the pack
// walks the channels outside and the window offsets inside (unrolled up to
// 49 offsets, a loop past them), and reads a vector of a stride-2 im2col
// whose output rows are whole vectors as one masked run of twice its
// width, every other element kept. fuse-run --check compares every output
// with the reference runtime's conv on random inputs, with 1, 2 and 3
// threads (other chunk boundaries):
// - a 3x3 convolution of 32 channels into 16 on 3 images of 9 x 10 (90
//   columns: a group of 64, then a narrower one of 26), bias and relu: K
//   288 in blocks of k on AVX-512, 2 row parts (12 iterations; with 2
//   threads the second chunk starts at a narrower group and packs a whole
//   group after it into the same region);
// - a 3x3 convolution of 128 channels into 64 (A 288 KiB, panels of 288
//   KiB: blocks of k on AVX-512, whose 90 columns take no dot columns; one
//   block on AVX2) on 2 images of 9 x 10, with a residual add;
// - a 5x5 and a 7x7 convolution with "same" padding (25 and 49 offsets,
//   unrolled; masked loads at shifted positions) and a 9x9 one (81
//   offsets: a loop);
// - a 7x7 convolution with stride 2 on 20 x 20 (10 x 10 outputs: gathered
//   lanes);
// - a 7x7 convolution with stride 2 and pads 3 on 3 channels of 40 x 64
//   (20 x 32 outputs, runs) like resnet18's stem, and a 3x3 one with
//   stride 2 and pads 1 on 10 x 32 (5 x 16 outputs, runs).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 2 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check out3: {{.*}}: ok
// CHECK: check out4: {{.*}}: ok
// CHECK: check out5: {{.*}}: ok
// CHECK: check out6: {{.*}}: ok
// CHECK: check out7: {{.*}}: ok
// CHECK: check: passed, 8 outputs match the reference

func.func @regions(%x: tensor<3x32x9x10xf32>, %w: tensor<16x32x3x3xf32>, %b: tensor<16xf32>,
                   %y: tensor<2x128x9x10xf32>, %wy: tensor<64x128x3x3xf32>,
                   %res: tensor<2x64x9x10xf32>,
                   %z: tensor<1x8x20x20xf32>, %w5: tensor<16x8x5x5xf32>,
                   %w7: tensor<16x8x7x7xf32>, %ws: tensor<16x8x7x7xf32>,
                   %w9: tensor<16x8x9x9xf32>,
                   %stem: tensor<1x3x40x64xf32>, %wstem: tensor<16x3x7x7xf32>,
                   %u: tensor<1x4x10x32xf32>, %wu: tensor<8x4x3x3xf32>)
    -> (tensor<3x16x9x10xf32>, tensor<2x64x9x10xf32>, tensor<1x16x20x20xf32>,
        tensor<1x16x20x20xf32>, tensor<1x16x10x10xf32>, tensor<1x16x20x20xf32>,
        tensor<1x16x20x32xf32>, tensor<1x8x5x16xf32>) {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<3x32x9x10xf32>, tensor<16x32x3x3xf32>, tensor<16xf32> -> tensor<3x16x9x10xf32>
  %zero = fuse.constant dense<0.0> : tensor<3x16x9x10xf32>
  %r = fuse.max %c, %zero : tensor<3x16x9x10xf32>
  %d = fuse.conv %y, %wy strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x128x9x10xf32>, tensor<64x128x3x3xf32> -> tensor<2x64x9x10xf32>
  %e = fuse.add %d, %res : tensor<2x64x9x10xf32>
  %f = fuse.conv %z, %w5 strides = [1, 1] dilations = [1, 1] pads = [2, 2, 2, 2] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x5x5xf32> -> tensor<1x16x20x20xf32>
  %g = fuse.conv %z, %w7 strides = [1, 1] dilations = [1, 1] pads = [3, 3, 3, 3] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x7x7xf32> -> tensor<1x16x20x20xf32>
  %h = fuse.conv %z, %ws strides = [2, 2] dilations = [1, 1] pads = [3, 3, 3, 3] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x7x7xf32> -> tensor<1x16x10x10xf32>
  %i = fuse.conv %z, %w9 strides = [1, 1] dilations = [1, 1] pads = [4, 4, 4, 4] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x9x9xf32> -> tensor<1x16x20x20xf32>
  %j = fuse.conv %stem, %wstem strides = [2, 2] dilations = [1, 1] pads = [3, 3, 3, 3] group = 1
      : tensor<1x3x40x64xf32>, tensor<16x3x7x7xf32> -> tensor<1x16x20x32xf32>
  %l = fuse.conv %u, %wu strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x4x10x32xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x5x16xf32>
  return %r, %e, %f, %g, %h, %i, %j, %l : tensor<3x16x9x10xf32>, tensor<2x64x9x10xf32>,
      tensor<1x16x20x20xf32>, tensor<1x16x20x20xf32>, tensor<1x16x10x10xf32>,
      tensor<1x16x20x20xf32>, tensor<1x16x20x32xf32>, tensor<1x8x5x16xf32>
}
