// A row kernel computes its results row by row: its reductions' results are
// the current row's, and a reduction's operand kept for the store pass (a
// row stash) holds that row alone. A transpose after them that moves
// positions from one row to another (Swin's window partition after its
// LayerNorm: 1x14x14x32 -> 1x2x7x2x7x32 -> 1x2x2x7x7x32) read other rows'
// values from this row's: wrong values, or a read past the stash (NaN in
// torchvision's swin_t, a crash). Such a transpose now stays out of the row
// kernel; one that permutes within the rows (@within: rows of 8x12, stored
// as 12x8) stays in it
// (row-transpose-within.mlir). fuse-run --check compares the outputs with the
// reference runtime's on random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 2 kernels
// CHECK: kernel 0 {{.*}}: row-reduction
// CHECK-NOT: transpose
// CHECK: kernel 1 {{.*}}: pointwise
// CHECK-NEXT: ops {{.*}}transpose
// CHECK: check: passed, 1 outputs match the reference

module {
  func.func @main(%x: tensor<1x14x14x32xf32>) -> tensor<1x2x2x7x7x32xf32> {
    %m = fuse.reduce mean %x dims = [3] keep_dims : tensor<1x14x14x32xf32> -> tensor<1x14x14x1xf32>
    %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<1x14x14x1xf32> -> tensor<1x14x14x32xf32>
    %d = fuse.sub %x, %mb : tensor<1x14x14x32xf32>
    %d2 = fuse.mul %d, %d : tensor<1x14x14x32xf32>
    %v = fuse.reduce mean %d2 dims = [3] keep_dims : tensor<1x14x14x32xf32> -> tensor<1x14x14x1xf32>
    %eps = fuse.constant dense<1.0e-5> : tensor<1x14x14x1xf32>
    %ve = fuse.add %v, %eps : tensor<1x14x14x1xf32>
    %r = fuse.rsqrt %ve : tensor<1x14x14x1xf32>
    %rb = fuse.broadcast %r, dims = [0, 1, 2, 3] : tensor<1x14x14x1xf32> -> tensor<1x14x14x32xf32>
    %y = fuse.mul %d, %rb : tensor<1x14x14x32xf32>
    %w = fuse.reshape %y : tensor<1x14x14x32xf32> -> tensor<1x2x7x2x7x32xf32>
    %t = fuse.transpose %w, permutation = [0, 1, 3, 2, 4, 5] : tensor<1x2x7x2x7x32xf32> -> tensor<1x2x2x7x7x32xf32>
    return %t : tensor<1x2x2x7x7x32xf32>
  }
}
