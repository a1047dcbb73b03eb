// Implicit GEMM on AVX-512 with blocks of k for a larger A where C's
// columns are whole vectors (kBlockMaxWholeLhsBytes): a 3x3 convolution of
// 64 channels into 128 (K 576, A 288 KiB: above the 256 KiB of
// kBlockMaxLhsBytes, at most the 1 MiB allowed without dot columns) on 2
// images of 8 x 8 (64 columns each: one column group per image, 2 row parts
// each), with bias and relu. The arena is the kernel's scratch: the panels
// (2 row parts x 2 images x 576 x 64 columns x 4 B = 576 KiB on AVX-512)
// and, with blocks of k, the tiles' partial sums after them (2 parts x 2
// groups x 128 rows x 64 columns x 4 B = 128 KiB): 704 KiB on AVX-512 (v4;
// 576 KiB in one block). AVX2 (v3) keeps the 256 KiB limit: one block, no
// partial sums. fuse-run --check compares the output with the reference
// runtime's conv on random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4
// RUN: FileCheck %s --check-prefix=V4 < %t/v4/bundle.txt
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: FileCheck %s --check-prefix=V3 < %t/v3/bundle.txt

// CHECK: check out0: {{.*}}: ok
// CHECK: check: passed, 1 outputs match the reference

// V4: arena 720896 bytes
// V3: arena 294912 bytes

func.func @whole(%x: tensor<2x64x8x8xf32>, %w: tensor<128x64x3x3xf32>, %b: tensor<128xf32>)
    -> tensor<2x128x8x8xf32> {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x64x8x8xf32>, tensor<128x64x3x3xf32>, tensor<128xf32> -> tensor<2x128x8x8xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x128x8x8xf32>
  %r = fuse.max %c, %zero : tensor<2x128x8x8xf32>
  return %r : tensor<2x128x8x8xf32>
}
