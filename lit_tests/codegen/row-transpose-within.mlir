// A transpose that permutes positions within a row kernel's rows (rows of
// 8x12 stored as 12x8) stays in the row kernel: the store pass reads the
// row's own stash and reduction results (see row-transpose.mlir).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 1 kernel
// CHECK: kernel 0 {{.*}}: row-reduction
// CHECK-NEXT: ops {{.*}}transpose
// CHECK: check: passed, 1 outputs match the reference

module {
  func.func @main(%x: tensor<1x56x8x12xf32>) -> tensor<1x56x12x8xf32> {
    %m = fuse.reduce mean %x dims = [2, 3] keep_dims : tensor<1x56x8x12xf32> -> tensor<1x56x1x1xf32>
    %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<1x56x1x1xf32> -> tensor<1x56x8x12xf32>
    %d = fuse.sub %x, %mb : tensor<1x56x8x12xf32>
    %t = fuse.transpose %d, permutation = [0, 1, 3, 2] : tensor<1x56x8x12xf32> -> tensor<1x56x12x8xf32>
    return %t : tensor<1x56x12x8xf32>
  }
}
