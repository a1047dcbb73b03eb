// Implicit GEMM on the host: a convolution's im2col is its matmul's B
// prologue, computed once per element by the pack kernel into B's panels
// (the column matrix is never stored), then the matmul with its epilogue.
// fuse-run --check compares with the reference runtime's conv on random
// inputs: 3x3 with padding and rows of 20 (vectors cross rows), stride 2
// with 33 output positions (the last vector strip holds one column), and a
// 1-D dilated one; for an im2col on A (transposed) the window kernel stays
// apart.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 8 kernels
// CHECK-NEXT: fuse_k0_pack: matmul
// CHECK-NEXT: ops im2col reshape reshape matmul reshape broadcast add constant max
// CHECK-NEXT: fuse_k0_matmul: matmul
// CHECK: fuse_k2_pack: matmul
// CHECK-NEXT: ops im2col
// CHECK-NEXT: fuse_k2_matmul: matmul
// CHECK: fuse_k4_pack: matmul
// CHECK-NEXT: ops im2col
// CHECK-NEXT: fuse_k4_matmul: matmul
// CHECK: fuse_k6_window: window-reduction
// CHECK-NEXT: ops im2col reshape
// CHECK-NEXT: fuse_k7_matmul: matmul
// CHECK-NEXT: ops matmul
// CHECK: check: passed, 4 outputs match the reference
func.func @implicit_gemm(%x: tensor<1x8x20x20xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>,
                         %s: tensor<2x4x11x13xf32>, %ws: tensor<12x4x3x3xf32>,
                         %h: tensor<1x6x40xf32>, %wh: tensor<10x6x3xf32>,
                         %v: tensor<72x16xf32>)
    -> (tensor<1x16x20x20xf32>, tensor<2x12x5x6xf32>, tensor<1x10x36xf32>, tensor<400x16xf32>) {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x8x20x20xf32>, tensor<16x8x3x3xf32>, tensor<16xf32> -> tensor<1x16x20x20xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x16x20x20xf32>
  %r = fuse.max %y, %zero : tensor<1x16x20x20xf32>
  %t = fuse.conv %s, %ws strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x4x11x13xf32>, tensor<12x4x3x3xf32> -> tensor<2x12x5x6xf32>
  %d = fuse.conv %h, %wh strides = [1] dilations = [2] pads = [0, 0] group = 1
      : tensor<1x6x40xf32>, tensor<10x6x3xf32> -> tensor<1x10x36xf32>
  %c = fuse.im2col %x window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x20x20xf32> -> tensor<1x8x9x400xf32>
  %a = fuse.reshape %c : tensor<1x8x9x400xf32> -> tensor<72x400xf32>
  %m = fuse.matmul %a, %v transpose_a : tensor<72x400xf32>, tensor<72x16xf32> -> tensor<400x16xf32>
  return %r, %t, %d, %m : tensor<1x16x20x20xf32>, tensor<2x12x5x6xf32>, tensor<1x10x36xf32>, tensor<400x16xf32>
}
