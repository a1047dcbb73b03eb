// A column kernel computes its results a block of columns at a time, each
// column's reduction its own: a slice of the centred values that reads
// other columns' elements (@a: 16x1x24, 384 elements, the columns' count,
// from rows 7-22 of column 3 of dim 1) took each column's mean for them
// (max abs error 1.96), as did the same slice broadcast back over the
// domain (@b, max abs error 1.23). Such moves now stay out of the column
// kernel (pointwise kernels), as a transpose does (column-transpose.mlir);
// a slice of one position of each column (@c) stays in it. fuse-run
// --check compares the outputs with the reference runtime's on random
// inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: kernel {{.*}}: column-reduction
// CHECK-NEXT: ops reduce broadcast sub{{$}}
// CHECK: kernel {{.*}}: pointwise
// CHECK-NEXT: ops slice exp
// CHECK: kernel {{.*}}: column-reduction
// CHECK-NEXT: ops reduce broadcast sub{{$}}
// CHECK: kernel {{.*}}: pointwise
// CHECK-NEXT: ops slice reshape broadcast mul
// CHECK: kernel {{.*}}: column-reduction
// CHECK-NEXT: ops reduce broadcast sub slice
// CHECK: check: passed, 5 outputs match the reference

module {
  func.func @main(%a: tensor<64x16x24xf32>, %b: tensor<64x16x24xf32>, %c: tensor<64x16x24xf32>) -> (tensor<64x16x24xf32>, tensor<16x1x24xf32>, tensor<64x16x24xf32>, tensor<1x16x24xf32>, tensor<64x16x24xf32>) {
    %am = fuse.reduce mean %a dims = [0] keep_dims : tensor<64x16x24xf32> -> tensor<1x16x24xf32>
    %amb = fuse.broadcast %am, dims = [0, 1, 2] : tensor<1x16x24xf32> -> tensor<64x16x24xf32>
    %ad = fuse.sub %a, %amb : tensor<64x16x24xf32>
    %as = fuse.slice %ad offsets = [7, 3, 0] sizes = [16, 1, 24] strides = [1, 1, 1] : tensor<64x16x24xf32> -> tensor<16x1x24xf32>
    %ae = fuse.exp %as : tensor<16x1x24xf32>
    %bm = fuse.reduce mean %b dims = [0] keep_dims : tensor<64x16x24xf32> -> tensor<1x16x24xf32>
    %bmb = fuse.broadcast %bm, dims = [0, 1, 2] : tensor<1x16x24xf32> -> tensor<64x16x24xf32>
    %bd = fuse.sub %b, %bmb : tensor<64x16x24xf32>
    %bs = fuse.slice %bd offsets = [0, 3, 0] sizes = [16, 1, 24] strides = [1, 1, 1] : tensor<64x16x24xf32> -> tensor<16x1x24xf32>
    %bs3 = fuse.reshape %bs : tensor<16x1x24xf32> -> tensor<1x16x24xf32>
    %bsb = fuse.broadcast %bs3, dims = [0, 1, 2] : tensor<1x16x24xf32> -> tensor<64x16x24xf32>
    %bo = fuse.mul %bd, %bsb : tensor<64x16x24xf32>
    %cm = fuse.reduce mean %c dims = [0] keep_dims : tensor<64x16x24xf32> -> tensor<1x16x24xf32>
    %cmb = fuse.broadcast %cm, dims = [0, 1, 2] : tensor<1x16x24xf32> -> tensor<64x16x24xf32>
    %cd = fuse.sub %c, %cmb : tensor<64x16x24xf32>
    %cs = fuse.slice %cd offsets = [5, 0, 0] sizes = [1, 16, 24] strides = [1, 1, 1] : tensor<64x16x24xf32> -> tensor<1x16x24xf32>
    return %ad, %ae, %bo, %cs, %cd : tensor<64x16x24xf32>, tensor<16x1x24xf32>, tensor<64x16x24xf32>, tensor<1x16x24xf32>, tensor<64x16x24xf32>
  }
}
