// A column kernel computes its results a block of columns at a time, each
// column's reduction seeded for its own positions: a transpose after it
// that moves positions (here 64x16x24 centred over dim 0, stored as
// 16x64x24) read other columns' means (fails before: max abs error 0.68).
// Such a transpose now stays out of the column kernel, as it does of a row
// kernel (row-transpose.mlir). fuse-run --check compares the output with
// the reference runtime's on random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 2 kernels
// CHECK: kernel 0 {{.*}}: column-reduction
// CHECK-NOT: transpose
// CHECK: kernel 1 {{.*}}: pointwise
// CHECK-NEXT: ops {{.*}}transpose
// CHECK: check: passed, 1 outputs match the reference

module {
  func.func @main(%arg0: tensor<64x16x24xf32>) -> tensor<16x64x24xf32> {
    %2 = fuse.reduce mean %arg0 dims = [0] keep_dims : tensor<64x16x24xf32> -> tensor<1x16x24xf32>
    %3 = fuse.broadcast %2, dims = [0, 1, 2] : tensor<1x16x24xf32> -> tensor<64x16x24xf32>
    %4 = fuse.sub %arg0, %3 : tensor<64x16x24xf32>
    %33 = fuse.transpose %4, permutation = [1, 0, 2] : tensor<64x16x24xf32> -> tensor<16x64x24xf32>
    return %33 : tensor<16x64x24xf32>
  }
}
