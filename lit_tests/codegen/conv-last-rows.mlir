// The host matmul's last row block of fewer rows than the tile's 6 runs a
// tile of its own rows where the clamped tile would compute at least 1 in
// 50 of the rows again (M = 64: 10 blocks and one of 4 rows; M = 8: one of
// 6 and one of 2; not M = 256, 2 rows of 258), and the blocks of k of the
// implicit GEMM's one-kernel form keep their panel rows at the start of
// the strip's panel (row k - the block's first), so that every block reuses
// the lines the block before it read. fuse-run --check compares every
// output with the reference runtime's on random inputs, with 1, 2 and 3
// threads (other chunk boundaries):
// - a 3x3 convolution of 64 channels into 64 on 2 images of 12 x 20 (240
//   columns: 3 groups of 64, then one of 48; K 576 in blocks of 117 on
//   AVX-512), bias, a residual add and relu;
// - a 3x3 convolution of 32 channels into 8 on 9 x 10 (blocks of k, the
//   last row block of 2 rows);
// - a 3x3 convolution of 32 channels into 256 on 6 x 6 (the last block
//   clamped);
// - matmuls of 10 rows (B read in place, 50 columns) and of 128 rows (B
//   transposed into packed panels).
// The kernels (AVX-512) hold the 4-row tile (16 accumulators) of the first
// convolution, whose panel slots are its k less the block's first.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 2 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check out3: {{.*}}: ok
// CHECK: check out4: {{.*}}: ok
// CHECK: check: passed, 5 outputs match the reference

// IR-LABEL: func.func @fuse_k{{[0-9]+}}_matmul
// IR: %{{.*}}:16 = scf.for %[[K:[^ ]*]] = %[[KBEGIN:[^ ]*]] to %{{.*}} iter_args
// IR: arith.subi %[[K]], %[[KBEGIN]] : i64
// IR: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// IR: %{{.*}}:24 = scf.for %[[K2:[^ ]*]] = %[[KBEGIN2:[^ ]*]] to %{{.*}} iter_args
// IR: arith.subi %[[K2]], %[[KBEGIN2]] : i64

func.func @last_rows(%x: tensor<2x64x12x20xf32>, %w: tensor<64x64x3x3xf32>, %b: tensor<64xf32>,
                     %res: tensor<2x64x12x20xf32>,
                     %y: tensor<1x32x9x10xf32>, %wy: tensor<8x32x3x3xf32>,
                     %z: tensor<1x32x6x6xf32>, %wz: tensor<256x32x3x3xf32>,
                     %a: tensor<10x40xf32>, %m: tensor<40x50xf32>,
                     %p: tensor<128x24xf32>, %q: tensor<112x24xf32>)
    -> (tensor<2x64x12x20xf32>, tensor<1x8x9x10xf32>, tensor<1x256x6x6xf32>,
        tensor<10x50xf32>, tensor<128x112xf32>) {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x64x12x20xf32>, tensor<64x64x3x3xf32>, tensor<64xf32> -> tensor<2x64x12x20xf32>
  %s = fuse.add %c, %res : tensor<2x64x12x20xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x64x12x20xf32>
  %r = fuse.max %s, %zero : tensor<2x64x12x20xf32>
  %d = fuse.conv %y, %wy strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x32x9x10xf32>, tensor<8x32x3x3xf32> -> tensor<1x8x9x10xf32>
  %e = fuse.conv %z, %wz strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x32x6x6xf32>, tensor<256x32x3x3xf32> -> tensor<1x256x6x6xf32>
  %f = fuse.matmul %a, %m : tensor<10x40xf32>, tensor<40x50xf32> -> tensor<10x50xf32>
  %g = fuse.matmul %p, %q transpose_b : tensor<128x24xf32>, tensor<112x24xf32> -> tensor<128x112xf32>
  return %r, %d, %e, %f, %g : tensor<2x64x12x20xf32>, tensor<1x8x9x10xf32>, tensor<1x256x6x6xf32>,
      tensor<10x50xf32>, tensor<128x112xf32>
}
