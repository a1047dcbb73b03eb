// A matmul of one batch whose B is a fusion input another kernel computed
// (an NCHW 1x1 convolution after a depthwise one) on a small map: fewer
// column groups than kMinColumnGroups (a 7x7 map has one, 14x14 four), the
// last vector of C only a few valid columns. B is packed inside the matmul
// kernel (packsInput), so that those columns are dot products along k
// (dotTail) instead of a vector of mostly idle lanes; each group's row
// blocks split into 2 parts, each packing its own copy. Iterations are then
// parts x groups, not row blocks (in place, before). Not with K a
// non-multiple of the vector width or with blocks of k (which take no dot
// columns): those stay in place.
// fuse-run --check compares every output with the reference runtime's conv
// on random inputs, with 1, 2 and 3 threads (other chunk boundaries):
// - 32 channels into 20 on 7 x 7 (49 columns: 3 vectors and one dot column
//   on AVX-512; 4 row blocks, the last clamped), bias and relu: 2
//   iterations on v4 (1 group x 2 parts), 8 on v3 (4 groups of 16 columns);
// - 16 channels into 13 on 14 x 14 (196 columns: 4 groups, 4 dot columns
//   on AVX-512) with a residual add: 8 iterations on v4; 13 groups on v3;
// - 24 channels into 40 on 7 x 7: K is not whole vectors of 16, so B stays
//   in place on v4 (7 row blocks); on v3 (K 3 vectors of 8) it is packed;
// - 256 channels into 8 on 7 x 7: K takes blocks of k on v4, so B stays in
//   place (2 row blocks); on v3 (one block) it is packed.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4
// RUN: FileCheck %s --check-prefix=V4 < %t/v4/bundle.txt
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: FileCheck %s --check-prefix=V3 < %t/v3/bundle.txt
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 2 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s

// V4: kernel 1 fuse_k1_matmul schedule matmul iterations 2 grain
// V4: kernel 3 fuse_k3_matmul schedule matmul iterations 8 grain
// V4: kernel 5 fuse_k5_matmul schedule matmul iterations 7 grain
// V4: kernel 7 fuse_k7_matmul schedule matmul iterations 2 grain
// V3: kernel 1 fuse_k1_matmul schedule matmul iterations 8 grain
// V3: kernel 3 fuse_k3_matmul schedule matmul iterations 13 grain
// V3: kernel 5 fuse_k5_matmul schedule matmul iterations 8 grain
// V3: kernel 7 fuse_k7_matmul schedule matmul iterations 8 grain

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check out3: {{.*}}: ok
// CHECK: check: passed, 4 outputs match the reference

func.func @f(%x: tensor<1x32x7x7xf32>, %wd: tensor<32x1x3x3xf32>,
             %w: tensor<20x32x1x1xf32>, %b: tensor<20xf32>,
             %y: tensor<1x16x14x14xf32>, %wy: tensor<16x1x3x3xf32>,
             %wp: tensor<13x16x1x1xf32>, %res: tensor<1x13x14x14xf32>,
             %z: tensor<1x24x7x7xf32>, %wz: tensor<24x1x3x3xf32>,
             %we: tensor<40x24x1x1xf32>,
             %u: tensor<1x256x7x7xf32>, %wu: tensor<256x1x3x3xf32>,
             %wk: tensor<8x256x1x1xf32>)
    -> (tensor<1x20x7x7xf32>, tensor<1x13x14x14xf32>, tensor<1x40x7x7xf32>,
        tensor<1x8x7x7xf32>) {
  %d = fuse.conv %x, %wd strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 32
      : tensor<1x32x7x7xf32>, tensor<32x1x3x3xf32> -> tensor<1x32x7x7xf32>
  %c = fuse.conv %d, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x32x7x7xf32>, tensor<20x32x1x1xf32>, tensor<20xf32> -> tensor<1x20x7x7xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x20x7x7xf32>
  %cr = fuse.max %c, %zero : tensor<1x20x7x7xf32>
  %e = fuse.conv %y, %wy strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 16
      : tensor<1x16x14x14xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x14x14xf32>
  %p = fuse.conv %e, %wp strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x16x14x14xf32>, tensor<13x16x1x1xf32> -> tensor<1x13x14x14xf32>
  %r = fuse.add %p, %res : tensor<1x13x14x14xf32>
  %g = fuse.conv %z, %wz strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 24
      : tensor<1x24x7x7xf32>, tensor<24x1x3x3xf32> -> tensor<1x24x7x7xf32>
  %h = fuse.conv %g, %we strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x24x7x7xf32>, tensor<40x24x1x1xf32> -> tensor<1x40x7x7xf32>
  %v = fuse.conv %u, %wu strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 256
      : tensor<1x256x7x7xf32>, tensor<256x1x3x3xf32> -> tensor<1x256x7x7xf32>
  %k = fuse.conv %v, %wk strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x256x7x7xf32>, tensor<8x256x1x1xf32> -> tensor<1x8x7x7xf32>
  return %cr, %r, %h, %k : tensor<1x20x7x7xf32>, tensor<1x13x14x14xf32>, tensor<1x40x7x7xf32>,
      tensor<1x8x7x7xf32>
}
