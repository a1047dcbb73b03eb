// Implicit GEMM on AVX-512 with blocks of k for a larger A where C's
// columns are whole vectors and a group's panels are large
// (kBlockMaxWholeLhsBytes, kBlockMinWholePanelBytes):
// - a 3x3 convolution of 128 channels into 128 (K 1152: panels of 288 KiB;
//   A 576 KiB, above the 256 KiB of kBlockMaxLhsBytes and at most 1 MiB) on
//   2 images of 8 x 8 (64 columns each: one column group per image, 2 row
//   parts each), with bias and relu: blocks of k;
// - a 3x3 convolution of 64 channels into 128 (K 576: panels of 144 KiB,
//   A 288 KiB) on the same maps: one block.
// Each kernel's scratch is an arena region: the first's panels (2 row
// parts x 2 images x 1152 x 64 columns x 4 B = 1152 KiB) and partial sums
// (2 parts x 2 groups x 128 rows x 64 columns x 4 B = 128 KiB) on AVX-512
// (v4; 1152 KiB without the blocks), the second's panels alone (576 KiB).
// AVX2 (v3) keeps the 256 KiB limit: one block each, no partial sums.
// fuse-run --check compares the outputs with the reference runtime's conv
// on random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4
// RUN: FileCheck %s --check-prefix=V4 < %t/v4/bundle.txt
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: FileCheck %s --check-prefix=V3 < %t/v3/bundle.txt

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check: passed, 2 outputs match the reference

// V4: arena#0 tensor %{{[0-9]+}} offset 0 bytes 1310720
// V4-NEXT: arena#1 tensor %{{[0-9]+}} offset 0 bytes 589824
// V3: arena#0 tensor %{{[0-9]+}} offset 0 bytes 589824
// V3-NEXT: arena#1 tensor %{{[0-9]+}} offset 0 bytes 294912

func.func @whole(%x: tensor<2x128x8x8xf32>, %w: tensor<128x128x3x3xf32>, %b: tensor<128xf32>,
                 %y: tensor<2x64x8x8xf32>, %wy: tensor<128x64x3x3xf32>)
    -> (tensor<2x128x8x8xf32>, tensor<2x128x8x8xf32>) {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x128x8x8xf32>, tensor<128x128x3x3xf32>, tensor<128xf32> -> tensor<2x128x8x8xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x128x8x8xf32>
  %r = fuse.max %c, %zero : tensor<2x128x8x8xf32>
  %d = fuse.conv %y, %wy strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x64x8x8xf32>, tensor<128x64x3x3xf32> -> tensor<2x128x8x8xf32>
  return %r, %d : tensor<2x128x8x8xf32>, tensor<2x128x8x8xf32>
}
