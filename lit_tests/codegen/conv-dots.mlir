// The last 1-4 columns of a host matmul past its whole vectors (at most 2
// on AVX2) as dot products along k (HostMatmulEmitter's dotTail), where the
// kernel packs B itself without blocks of k and K is whole vectors: their
// panel holds the columns one after another, and a row block's dot tile
// multiplies vectors of A's row and of the column's panel, summed across
// lanes for the epilogue. fuse-run --check compares every output with the
// reference runtime's conv and matmul on random inputs:
// - a 3x3 convolution of 16 channels (K 144) into 20 (the last row block
//   clamped) on 2 images of 7 x 7 (49 columns: a strip of 3 vectors, then
//   one dot column after it in the same row block; AVX2: 6 vectors and one),
//   with bias, a residual add and relu;
// - a 3x3 stride-2 convolution of 64 channels into 128 (A 288 KiB: no
//   blocks of k) onto 14 x 14 (196 columns: 3 groups, then a group of 4 dot
//   columns alone; AVX2 a partly valid vector);
// - a matmul whose B is computed (m * m) and packed in the kernel: 530 columns
//   (8 groups, a vector, then 2 dot columns; AVX2: groups of 16, the 2 dot
//   columns a group alone), 31 rows.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --seed 3 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=V4
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=V3

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check: passed, 3 outputs match the reference

// V4-LABEL: func.func @fuse_k0_matmul
// V4-COUNT-6: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// V4-LABEL: func.func @fuse_k1_matmul
// V4-COUNT-24: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// V4-LABEL: func.func @fuse_k2_matmul
// V4-COUNT-12: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// V3-LABEL: func.func @fuse_k0_matmul
// V3-COUNT-6: vector.reduction <add>, {{.*}} : vector<8xf32> into f32
// V3-LABEL: func.func @fuse_k1_matmul
// V3-NOT: vector.reduction
// V3-LABEL: func.func @fuse_k2_matmul
// V3-COUNT-12: vector.reduction <add>, {{.*}} : vector<8xf32> into f32

func.func @dots(%x: tensor<2x16x7x7xf32>, %w: tensor<20x16x3x3xf32>, %b: tensor<20xf32>,
                %res: tensor<2x20x7x7xf32>,
                %y: tensor<1x64x28x28xf32>, %wy: tensor<128x64x3x3xf32>,
                %a: tensor<31x32xf32>, %m: tensor<32x530xf32>)
    -> (tensor<2x20x7x7xf32>, tensor<1x128x14x14xf32>, tensor<31x530xf32>) {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x16x7x7xf32>, tensor<20x16x3x3xf32>, tensor<20xf32> -> tensor<2x20x7x7xf32>
  %s = fuse.add %c, %res : tensor<2x20x7x7xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x20x7x7xf32>
  %r = fuse.max %s, %zero : tensor<2x20x7x7xf32>
  %d = fuse.conv %y, %wy strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x64x28x28xf32>, tensor<128x64x3x3xf32> -> tensor<1x128x14x14xf32>
  %e = fuse.mul %m, %m : tensor<32x530xf32>
  %f = fuse.matmul %a, %e : tensor<31x32xf32>, tensor<32x530xf32> -> tensor<31x530xf32>
  return %r, %d, %f : tensor<2x20x7x7xf32>, tensor<1x128x14x14xf32>, tensor<31x530xf32>
}
