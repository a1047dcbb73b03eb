// The relative shift of Transformer-XL and Funnel attention: a transpose,
// a slice of rows, a reshape that regroups them, a slice of columns, all
// in one pointwise kernel. Each output row of 16 (one AVX-512 vector) reads
// 16 consecutive elements of the sliced rows of 31, which cross a row of
// the transposed input: the kernel must gather them. It took them for one
// contiguous run because the first slice kept the block of 16 it was given,
// though the run it mapped to no longer started at a multiple of 16; 960 of
// 2048 elements were wrong, with and without --check's guards. Y8 (half a
// vector) and Y32 (two) are the same chain at other widths; the host and
// reference runtimes must agree exactly (layout ops only).

// RUN: fuse-run %s --check --seed 7 | FileCheck %s
// RUN: fuse-run %s --check --seed 8 --threads 3 | FileCheck %s

// CHECK: check Y16: max abs error 0, {{.*}}: ok
// CHECK: check Y8: max abs error 0, {{.*}}: ok
// CHECK: check Y32: max abs error 0, {{.*}}: ok
// CHECK: check: passed, 3 outputs match the reference

func.func @main(%x: tensor<32x4x2x16xf32> {fuse.name = "X"},
                %w: tensor<64x4x2x32xf32> {fuse.name = "W"})
    -> (tensor<2x4x16x16xf32> {fuse.name = "Y16"},
        tensor<2x4x8x8xf32> {fuse.name = "Y8"},
        tensor<2x4x32x32xf32> {fuse.name = "Y32"}) {
  %0 = fuse.transpose %x, permutation = [2, 1, 0, 3] : tensor<32x4x2x16xf32> -> tensor<2x4x32x16xf32>
  %1 = fuse.slice %0 offsets = [0, 0, 1, 0] sizes = [2, 4, 31, 16] strides = [1, 1, 1, 1] : tensor<2x4x32x16xf32> -> tensor<2x4x31x16xf32>
  %2 = fuse.reshape %1 : tensor<2x4x31x16xf32> -> tensor<2x4x16x31xf32>
  %y16 = fuse.slice %2 offsets = [0, 0, 0, 0] sizes = [2, 4, 16, 16] strides = [1, 1, 1, 1] : tensor<2x4x16x31xf32> -> tensor<2x4x16x16xf32>
  %y8 = fuse.slice %2 offsets = [0, 0, 0, 0] sizes = [2, 4, 8, 8] strides = [1, 1, 1, 1] : tensor<2x4x16x31xf32> -> tensor<2x4x8x8xf32>
  %3 = fuse.transpose %w, permutation = [2, 1, 0, 3] : tensor<64x4x2x32xf32> -> tensor<2x4x64x32xf32>
  %4 = fuse.slice %3 offsets = [0, 0, 1, 0] sizes = [2, 4, 63, 32] strides = [1, 1, 1, 1] : tensor<2x4x64x32xf32> -> tensor<2x4x63x32xf32>
  %5 = fuse.reshape %4 : tensor<2x4x63x32xf32> -> tensor<2x4x32x63xf32>
  %y32 = fuse.slice %5 offsets = [0, 0, 0, 0] sizes = [2, 4, 32, 32] strides = [1, 1, 1, 1] : tensor<2x4x32x63xf32> -> tensor<2x4x32x32xf32>
  return %y16, %y8, %y32 : tensor<2x4x16x16xf32>, tensor<2x4x8x8xf32>, tensor<2x4x32x32xf32>
}
