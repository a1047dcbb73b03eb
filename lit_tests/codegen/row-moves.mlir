// A row kernel computes its results row by row (its reductions' results
// and its row stash are the current row's), so a data movement after them
// must keep each element in its row, as a transpose must
// (row-transpose.mlir). Before, a slice or concat whose result had as many
// elements as the rows or the domain joined the row kernel and read other
// rows' elements from the current row's:
//   @a: a LayerNorm's 8x16x32 result sliced to 1x4x32 (128 elements, the
//       rows' count: rows 0-3), max abs error 2.88;
//   @b: a 64x2 LayerNorm's two columns concatenated along the rows into
//       128x1 (the domain's count), max abs error 140;
//   @c: a prologue, the centred values of rows 96-99 (a slice of 128
//       elements) broadcast over the rows, max abs error 2.3.
// These moves now stay out of the row kernel (pointwise kernels); a slice
// that keeps the rows whole (@d: one element of each row) stays in it.
// fuse-run --check compares the outputs with the reference runtime's on
// random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: kernel {{.*}}: row-reduction
// CHECK-NEXT: ops reduce broadcast sub mul reduce constant add rsqrt broadcast mul{{$}}
// CHECK: kernel {{.*}}: pointwise
// CHECK-NEXT: ops slice exp
// CHECK: kernel {{.*}}: row-reduction
// CHECK-NEXT: ops reduce broadcast sub mul reduce constant add rsqrt broadcast mul{{$}}
// CHECK: kernel {{.*}}: pointwise
// CHECK-NEXT: ops slice slice concat
// CHECK: kernel {{.*}}: row-reduction
// CHECK-NEXT: ops reduce broadcast sub{{$}}
// CHECK: kernel {{.*}}: pointwise
// CHECK-NEXT: ops slice reshape broadcast mul
// CHECK: kernel {{.*}}: row-reduction
// CHECK-NEXT: ops {{.*}}rsqrt broadcast mul slice{{$}}
// CHECK: check: passed, 5 outputs match the reference

module {
  func.func @main(%a: tensor<8x16x32xf32>, %b: tensor<64x2xf32>, %c: tensor<8x16x32xf32>, %x: tensor<8x16x32xf32>) -> (tensor<8x16x32xf32>, tensor<1x4x32xf32>, tensor<128x1xf32>, tensor<8x16x32xf32>, tensor<8x16x1xf32>) {
    %am = fuse.reduce mean %a dims = [2] keep_dims : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
    %amb = fuse.broadcast %am, dims = [0, 1, 2] : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
    %ad = fuse.sub %a, %amb : tensor<8x16x32xf32>
    %ad2 = fuse.mul %ad, %ad : tensor<8x16x32xf32>
    %av = fuse.reduce mean %ad2 dims = [2] keep_dims : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
    %aeps = fuse.constant dense<1.0e-5> : tensor<8x16x1xf32>
    %ave = fuse.add %av, %aeps : tensor<8x16x1xf32>
    %ar = fuse.rsqrt %ave : tensor<8x16x1xf32>
    %arb = fuse.broadcast %ar, dims = [0, 1, 2] : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
    %ay = fuse.mul %ad, %arb : tensor<8x16x32xf32>
    %as = fuse.slice %ay offsets = [0, 0, 0] sizes = [1, 4, 32] strides = [1, 1, 1] : tensor<8x16x32xf32> -> tensor<1x4x32xf32>
    %ae = fuse.exp %as : tensor<1x4x32xf32>
    %bm = fuse.reduce mean %b dims = [1] keep_dims : tensor<64x2xf32> -> tensor<64x1xf32>
    %bmb = fuse.broadcast %bm, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x2xf32>
    %bd = fuse.sub %b, %bmb : tensor<64x2xf32>
    %bd2 = fuse.mul %bd, %bd : tensor<64x2xf32>
    %bv = fuse.reduce mean %bd2 dims = [1] keep_dims : tensor<64x2xf32> -> tensor<64x1xf32>
    %beps = fuse.constant dense<1.0e-5> : tensor<64x1xf32>
    %bve = fuse.add %bv, %beps : tensor<64x1xf32>
    %br = fuse.rsqrt %bve : tensor<64x1xf32>
    %brb = fuse.broadcast %br, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x2xf32>
    %by = fuse.mul %bd, %brb : tensor<64x2xf32>
    %b0 = fuse.slice %by offsets = [0, 0] sizes = [64, 1] strides = [1, 1] : tensor<64x2xf32> -> tensor<64x1xf32>
    %b1 = fuse.slice %by offsets = [0, 1] sizes = [64, 1] strides = [1, 1] : tensor<64x2xf32> -> tensor<64x1xf32>
    %bo = fuse.concat %b0, %b1 axis = 0 : tensor<64x1xf32>, tensor<64x1xf32> -> tensor<128x1xf32>
    %cm = fuse.reduce mean %c dims = [2] keep_dims : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
    %cmb = fuse.broadcast %cm, dims = [0, 1, 2] : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
    %cd = fuse.sub %c, %cmb : tensor<8x16x32xf32>
    %cs = fuse.slice %cd offsets = [3, 0, 0] sizes = [1, 4, 32] strides = [1, 1, 1] : tensor<8x16x32xf32> -> tensor<1x4x32xf32>
    %cs3 = fuse.reshape %cs : tensor<1x4x32xf32> -> tensor<8x16x1xf32>
    %csb = fuse.broadcast %cs3, dims = [0, 1, 2] : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
    %co = fuse.mul %cd, %csb : tensor<8x16x32xf32>
    %xm = fuse.reduce mean %x dims = [2] keep_dims : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
    %xmb = fuse.broadcast %xm, dims = [0, 1, 2] : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
    %xd = fuse.sub %x, %xmb : tensor<8x16x32xf32>
    %xd2 = fuse.mul %xd, %xd : tensor<8x16x32xf32>
    %xv = fuse.reduce mean %xd2 dims = [2] keep_dims : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
    %xeps = fuse.constant dense<1.0e-5> : tensor<8x16x1xf32>
    %xve = fuse.add %xv, %xeps : tensor<8x16x1xf32>
    %xr = fuse.rsqrt %xve : tensor<8x16x1xf32>
    %xrb = fuse.broadcast %xr, dims = [0, 1, 2] : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
    %xy = fuse.mul %xd, %xrb : tensor<8x16x32xf32>
    %xs = fuse.slice %xy offsets = [0, 0, 5] sizes = [8, 16, 1] strides = [1, 1, 1] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
    return %ay, %ae, %bo, %co, %xs : tensor<8x16x32xf32>, tensor<1x4x32xf32>, tensor<128x1xf32>, tensor<8x16x32xf32>, tensor<8x16x1xf32>
  }
}
