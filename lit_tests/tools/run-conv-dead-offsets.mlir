// Convolutions whose outer window offsets read only padding (see
// passes/conv-dead-offsets.mlir), run against the reference on random
// inputs: DeepLabV3's ASPP with a bias, one dim pruned and one kept, a
// depthwise one (the window-reduction lowering), and a stride-2 one that
// keeps the first three offsets of a 5-wide window on a map of 3 (pads 0
// and 6: the last two read only the end pad; the end pad becomes 4).

// RUN: fuse-run %s --check --seed 3 | FileCheck %s
// RUN: fuse-run %s --check --seed 4 --threads 3 | FileCheck %s
// CHECK: check: passed, 4 outputs match the reference
// CHECK-NEXT: check guards: {{[0-9]+}} guards around the buffers of {{[0-9]+}} kernel launch(es) intact

func.func @main(%x: tensor<1x32x8x8xf32> {fuse.name = "x"},
                %w: tensor<16x32x3x3xf32> {fuse.name = "w"},
                %b: tensor<16xf32> {fuse.name = "b"},
                %x2: tensor<2x3x4x20xf32> {fuse.name = "x2"},
                %w2: tensor<8x3x3x3xf32> {fuse.name = "w2"},
                %x3: tensor<1x16x6x6xf32> {fuse.name = "x3"},
                %w3: tensor<16x1x3x3xf32> {fuse.name = "w3"},
                %x4: tensor<1x4x3x3xf32> {fuse.name = "x4"},
                %w4: tensor<8x4x5x5xf32> {fuse.name = "w4"})
    -> (tensor<1x16x8x8xf32> {fuse.name = "aspp"},
        tensor<2x8x4x20xf32> {fuse.name = "one_dim"},
        tensor<1x16x6x6xf32> {fuse.name = "depthwise"},
        tensor<1x8x3x3xf32> {fuse.name = "stride2"}) {
  %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [12, 12] pads = [12, 12, 12, 12] group = 1
      : tensor<1x32x8x8xf32>, tensor<16x32x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
  %y2 = fuse.conv %x2, %w2 strides = [1, 1] dilations = [6, 2] pads = [6, 2, 6, 2] group = 1
      : tensor<2x3x4x20xf32>, tensor<8x3x3x3xf32> -> tensor<2x8x4x20xf32>
  %y3 = fuse.conv %x3, %w3 strides = [1, 1] dilations = [8, 8] pads = [8, 8, 8, 8] group = 16
      : tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x6x6xf32>
  %y4 = fuse.conv %x4, %w4 strides = [2, 2] dilations = [1, 1] pads = [0, 0, 6, 6] group = 1
      : tensor<1x4x3x3xf32>, tensor<8x4x5x5xf32> -> tensor<1x8x3x3xf32>
  return %y, %y2, %y3, %y4 : tensor<1x16x8x8xf32>, tensor<2x8x4x20xf32>, tensor<1x16x6x6xf32>, tensor<1x8x3x3xf32>
}
