// Implicit GEMM on the host: a convolution's im2col is its matmul's B
// prologue, computed once per element into B's panels (the column matrix is
// never stored) by the matmul kernel itself, one kernel per convolution:
// each iteration packs a column group's panels (a group is the widest
// strip: 64 columns on AVX-512, 16 on AVX2) and runs its row blocks over
// them; with fewer than 8 groups, each group's row blocks split into two
// parts, each packing the group's panels into a copy of its own.
// fuse-run --check compares with the reference runtime's conv on random
// inputs: 3x3 with padding and rows of 24 (576 columns; vectors cross
// rows), stride 2 with 30 output positions per image in 2 batches and a
// 1-D dilated one (36 columns: two row parts per group; the last vector
// strip partly valid); for an im2col on A (transposed) the window kernel
// stays apart; 2 images of 26 x 26 into 64 channels (676 columns per image:
// the last group of each image holds narrower strips and a partly valid
// vector on AVX-512, and each group is enough work for a chunk of its own,
// so both threads run); a 5x5 one with stride 2 on rows of 40, resnet18's
// stem in small (rows of 20 outputs, each lane's input gathered).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 -o %t/v3
// RUN: FileCheck %s --check-prefix=V3 < %t/v3/bundle.txt
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4
// RUN: FileCheck %s --check-prefix=V4 < %t/v4/bundle.txt

// The matmul after the window kernel (im2col on A, B a weight of 16
// columns) reads B from panels packed once per binding of the inputs: 8
// kernels on either target.
// CHECK: plan: 8 kernels for {{[0-9]+}} ops, target host-x86-64-v{{[34]}}, 1 once per binding of the inputs
// CHECK-NEXT: fuse_k0_matmul: matmul
// CHECK-NEXT: ops im2col reshape reshape matmul reshape broadcast add constant max
// CHECK-NEXT: fuse_k1_matmul: matmul
// CHECK-NEXT: ops im2col reshape reshape matmul reshape
// CHECK-NEXT: fuse_k2_matmul: matmul
// CHECK-NEXT: ops im2col reshape reshape matmul
// CHECK-NEXT: fuse_k3_window: window-reduction
// CHECK-NEXT: ops im2col reshape
// CHECK: ops im2col reshape reshape matmul reshape broadcast add
// CHECK: check: passed, 6 outputs match the reference

// One iteration per column group: 576 / 16 on AVX2, 576 / 64 on AVX-512.
// The stride-2 one has 30 columns per image in 2 images: 2 x 2 groups on
// AVX2, two row parts each; 2 x 1 on AVX-512, two parts each. The 1-D one
// (36 columns, 10 rows: 2 row blocks) 3 groups on AVX2, 1 on AVX-512, two
// parts each.
// V3: kernel 0 fuse_k0_matmul schedule matmul iterations 36
// V3-NEXT: ops 0:im2col
// V3-NEXT: bindings input#1(%1) input#0(%0) input#2(%2) output#0({{%[0-9]+}}) arena#0
// V3-NEXT: kernel 1 fuse_k1_matmul schedule matmul iterations 8
// V3: kernel 2 fuse_k2_matmul schedule matmul iterations 6
// V4: kernel 0 fuse_k0_matmul schedule matmul iterations 9
// V4-NEXT: ops 0:im2col
// V4-NEXT: bindings input#1(%1) input#0(%0) input#2(%2) output#0({{%[0-9]+}}) arena#0
// V4-NEXT: kernel 1 fuse_k1_matmul schedule matmul iterations 4
// V4: kernel 2 fuse_k2_matmul schedule matmul iterations 2

func.func @implicit_gemm(%x: tensor<1x8x24x24xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>,
                         %s: tensor<2x4x11x13xf32>, %ws: tensor<12x4x3x3xf32>,
                         %h: tensor<1x6x40xf32>, %wh: tensor<10x6x3xf32>,
                         %v: tensor<72x16xf32>,
                         %p: tensor<2x16x26x26xf32>, %wp: tensor<64x16x3x3xf32>, %bp: tensor<64xf32>,
                         %st: tensor<1x3x40x40xf32>, %wst: tensor<16x3x5x5xf32>)
    -> (tensor<1x16x24x24xf32>, tensor<2x12x5x6xf32>, tensor<1x10x36xf32>, tensor<576x16xf32>,
        tensor<2x64x26x26xf32>, tensor<1x16x20x20xf32>) {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<1x8x24x24xf32>, tensor<16x8x3x3xf32>, tensor<16xf32> -> tensor<1x16x24x24xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x16x24x24xf32>
  %r = fuse.max %y, %zero : tensor<1x16x24x24xf32>
  %t = fuse.conv %s, %ws strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<2x4x11x13xf32>, tensor<12x4x3x3xf32> -> tensor<2x12x5x6xf32>
  %d = fuse.conv %h, %wh strides = [1] dilations = [2] pads = [0, 0] group = 1
      : tensor<1x6x40xf32>, tensor<10x6x3xf32> -> tensor<1x10x36xf32>
  %c = fuse.im2col %x window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x24x24xf32> -> tensor<1x8x9x576xf32>
  %a = fuse.reshape %c : tensor<1x8x9x576xf32> -> tensor<72x576xf32>
  %m = fuse.matmul %a, %v transpose_a : tensor<72x576xf32>, tensor<72x16xf32> -> tensor<576x16xf32>
  %q = fuse.conv %p, %wp, %bp strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
      : tensor<2x16x26x26xf32>, tensor<64x16x3x3xf32>, tensor<64xf32> -> tensor<2x64x26x26xf32>
  %stem = fuse.conv %st, %wst strides = [2, 2] dilations = [1, 1] pads = [2, 2, 2, 2] group = 1
      : tensor<1x3x40x40xf32>, tensor<16x3x5x5xf32> -> tensor<1x16x20x20xf32>
  return %r, %t, %d, %m, %q, %stem : tensor<1x16x24x24xf32>, tensor<2x12x5x6xf32>, tensor<1x10x36xf32>, tensor<576x16xf32>,
                              tensor<2x64x26x26xf32>, tensor<1x16x20x20xf32>
}
