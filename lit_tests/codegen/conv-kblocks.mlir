// Implicit GEMM on the host with blocks of k and the last columns in one
// strip. With K more than half again a block's rows (128 for 64 columns on
// AVX-512, 512 for 16 on AVX2) and A (the weights, M x K) at most 256 KiB,
// each column group packs its panels a block of k at a time (whole
// channels: a multiple of the window's offsets) and runs its row blocks
// over them, the tiles' partial sums kept in scratch between blocks and the
// epilogue (bias, residual add, relu) on the last block. The columns past
// the widest strips are one strip of their vectors, the last partly valid.
// fuse-run --check compares every output with the reference runtime's conv
// and matmul on random inputs:
// - a 3x3 convolution of 32 channels (K 288: blocks of 99, 99 and 90 on
//   AVX-512; one block on AVX2) into 16 (3 row blocks, the last clamped) on
//   2 images of 9 x 10 (90 columns: a group of 64, then one of 2 vectors,
//   the second with 10 valid lanes), with bias, a residual add and relu;
// - a 1x1 convolution of 256 channels (K 256: 2 blocks of 128 on AVX-512)
//   into 8 on 24 x 24 (576 columns: 9 groups, B a reshape of the input,
//   packed row by row);
// - a 3x3 convolution of 64 channels into 512 (A 1.2 MiB: one block) on
//   7 x 7, the last strip of 4 vectors;
// - matmuls whose B is read in place (50 columns: a strip of 4 vectors, 2
//   lanes valid in the last) and transposed into packed panels (112
//   columns: a strip of 3 vectors from column 64 on AVX-512).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check out3: {{.*}}: ok
// CHECK: check out4: {{.*}}: ok
// CHECK: check: passed, 5 outputs match the reference

func.func @kblocks(%x: tensor<2x32x9x10xf32>, %w: tensor<16x32x3x3xf32>, %b: tensor<16xf32>,
                   %res: tensor<2x16x9x10xf32>,
                   %y: tensor<1x256x24x24xf32>, %wy: tensor<8x256x1x1xf32>,
                   %z: tensor<1x64x7x7xf32>, %wz: tensor<512x64x3x3xf32>,
                   %a: tensor<20x40xf32>, %m: tensor<40x50xf32>,
                   %p: tensor<30x24xf32>, %q: tensor<112x24xf32>)
    -> (tensor<2x16x9x10xf32>, tensor<1x8x24x24xf32>, tensor<1x512x7x7xf32>,
        tensor<20x50xf32>, tensor<30x112xf32>) {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x32x9x10xf32>, tensor<16x32x3x3xf32>, tensor<16xf32> -> tensor<2x16x9x10xf32>
  %s = fuse.add %c, %res : tensor<2x16x9x10xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x16x9x10xf32>
  %r = fuse.max %s, %zero : tensor<2x16x9x10xf32>
  %d = fuse.conv %y, %wy strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x256x24x24xf32>, tensor<8x256x1x1xf32> -> tensor<1x8x24x24xf32>
  %e = fuse.conv %z, %wz strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x64x7x7xf32>, tensor<512x64x3x3xf32> -> tensor<1x512x7x7xf32>
  %f = fuse.matmul %a, %m : tensor<20x40xf32>, tensor<40x50xf32> -> tensor<20x50xf32>
  %g = fuse.matmul %p, %q transpose_b : tensor<30x24xf32>, tensor<112x24xf32> -> tensor<30x112xf32>
  return %r, %d, %e, %f, %g : tensor<2x16x9x10xf32>, tensor<1x8x24x24xf32>, tensor<1x512x7x7xf32>,
      tensor<20x50xf32>, tensor<30x112xf32>
}
