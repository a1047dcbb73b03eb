// A matmul whose B is a fusion input another kernel computed (an NCHW 1x1
// convolution after a depthwise one) packs B inside the matmul kernel, a
// column group at a time (packsInput): an iteration per group of each batch
// instead of per row block, and the group's panels in the fusion's scratch.
// fuse-run --check compares every output with the reference runtime's conv
// on random inputs, with 1, 2 and 3 threads (other chunk boundaries):
// - 32 channels into 20 on 2 images of 23 x 23 (529 columns: 9 groups of
//   64 a batch, the last of 17 columns, a dot column on AVX-512), with a
//   bias (4 row blocks, the last clamped);
// - 8 channels into 13 on 24 x 40 (960 columns, 15 groups; K 8, not whole
//   vectors) with a residual add;
// - 8 channels into 48 on 112 x 112: C (2.4 MiB) is larger than
//   kMaxGroupStoreBytes, so B is read in place (an iteration per row block).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4
// RUN: FileCheck %s --check-prefix=V4 < %t/v4/bundle.txt
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: FileCheck %s --check-prefix=V3 < %t/v3/bundle.txt
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 2 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s

// V4: kernel 1 fuse_k1_matmul schedule matmul iterations 18 grain
// V4: kernel 3 fuse_k3_matmul schedule matmul iterations 15 grain
// V4: kernel 5 fuse_k5_matmul schedule matmul iterations 8 grain
// V3: kernel 1 fuse_k1_matmul schedule matmul iterations 68 grain
// V3: kernel 3 fuse_k3_matmul schedule matmul iterations 60 grain
// V3: kernel 5 fuse_k5_matmul schedule matmul iterations 8 grain

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check: passed, 3 outputs match the reference

func.func @f(%x: tensor<2x32x23x23xf32>, %wd: tensor<32x1x3x3xf32>,
             %w: tensor<20x32x1x1xf32>, %b: tensor<20xf32>,
             %y: tensor<1x8x24x40xf32>, %wy: tensor<8x1x3x3xf32>,
             %wp: tensor<13x8x1x1xf32>, %res: tensor<1x13x24x40xf32>,
             %z: tensor<1x8x112x112xf32>, %wz: tensor<8x1x3x3xf32>,
             %we: tensor<48x8x1x1xf32>)
    -> (tensor<2x20x23x23xf32>, tensor<1x13x24x40xf32>, tensor<1x48x112x112xf32>) {
  %d = fuse.conv %x, %wd strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 32
      : tensor<2x32x23x23xf32>, tensor<32x1x3x3xf32> -> tensor<2x32x23x23xf32>
  %c = fuse.conv %d, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x32x23x23xf32>, tensor<20x32x1x1xf32>, tensor<20xf32> -> tensor<2x20x23x23xf32>
  %e = fuse.conv %y, %wy strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x24x40xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x24x40xf32>
  %p = fuse.conv %e, %wp strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x8x24x40xf32>, tensor<13x8x1x1xf32> -> tensor<1x13x24x40xf32>
  %r = fuse.add %p, %res : tensor<1x13x24x40xf32>
  %g = fuse.conv %z, %wz strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 8
      : tensor<1x8x112x112xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x112x112xf32>
  %h = fuse.conv %g, %we strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x8x112x112xf32>, tensor<48x8x1x1xf32> -> tensor<1x48x112x112xf32>
  return %c, %r, %h : tensor<2x20x23x23xf32>, tensor<1x13x24x40xf32>, tensor<1x48x112x112xf32>
}
