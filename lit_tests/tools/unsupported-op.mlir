// A model with an op the host code generator cannot compile yet (an integer
// matmul): an error that names the op, exit status 2, and no silent run on
// the reference runtime. The reference runtime runs it when asked for by name.

// RUN: not fuse-run %s --cache-dir %t.cache 2>&1 | FileCheck %s
// RUN: fuse-run %s --runtime reference | FileCheck %s --check-prefix=REFERENCE

func.func @matmul(%x: tensor<4x8xi32>, %w: tensor<8x3xi32>) -> tensor<4x3xi32> {
  %y = fuse.matmul %x, %w : tensor<4x8xi32>, tensor<8x3xi32> -> tensor<4x3xi32>
  return %y : tensor<4x3xi32>
}

// CHECK: fuse-run: error: {{.*}}unsupported-op.mlir: host code generation for host-x86-64-v{{[34]}} failed: {{.*}}'fuse.matmul' op cannot be generated for the host
// CHECK-NOT: output

// REFERENCE: output out0: tensor<4x3xi32>
