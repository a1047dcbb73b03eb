// A classifier whose bias is zero (torchvision's mobilenet_v2 at its
// initialization): the add folds away, so the returned value is the
// matvec's reduce, the matmul's value. The row reduction writes the output
// in place (no copy kernel) and the plan names the matmul and the output's
// add as its ops; fuse-run --check compares with the reference runtime.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 1 kernel for 4 ops
// CHECK-NEXT: kernel 0 fuse_k0_rows: row-reduction, 2 ops, reads {{[0-9]+}} B, writes 400 B
// CHECK-NEXT: ops matmul add
// CHECK-NOT: kernel
// CHECK: check out0: {{.*}}: ok
// CHECK: check: passed, 1 outputs match the reference
func.func @classifier(%x: tensor<1x256xf32>, %w: tensor<100x256xf32>) -> tensor<1x100xf32> {
  %0 = fuse.matmul %x, %w transpose_b : tensor<1x256xf32>, tensor<100x256xf32> -> tensor<1x100xf32>
  %zero = fuse.constant dense<0.0> : tensor<100xf32>
  %bb = fuse.broadcast %zero, dims = [1] : tensor<100xf32> -> tensor<1x100xf32>
  %y = fuse.add %0, %bb : tensor<1x100xf32>
  return %y : tensor<1x100xf32>
}
