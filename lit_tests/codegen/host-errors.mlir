// fuse-compile's errors: a clear message and a non-zero exit.

// RUN: not fuse-compile %s --target=host-x86-64-v3 -o %t 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: not fuse-compile %s.missing --target=host -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fuse-compile %s --target=riscv -o %t 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: echo 'func.func @f(' > %t.bad.mlir
// RUN: not fuse-compile %t.bad.mlir --target=host -o %t 2>&1 | FileCheck %s --check-prefix=MALFORMED

func.func @matmul(%x: tensor<4x8xi32>, %w: tensor<8x3xi32>) -> tensor<4x3xi32> {
  %y = fuse.matmul %x, %w : tensor<4x8xi32>, tensor<8x3xi32> -> tensor<4x3xi32>
  return %y : tensor<4x3xi32>
}

// MATMUL: fuse-compile: error: {{.*}}host-errors.mlir: host code generation for host-x86-64-v{{[34]}} failed: {{.*}}host-errors.mlir:10:8: 'fuse.matmul' op cannot be generated for the host in a matmul kernel: integer matmuls are not supported yet
// MISSING: fuse-compile: error: cannot read '{{.*}}host-errors.mlir.missing'
// UNKNOWN: fuse-compile: error: unknown target 'riscv'
// MALFORMED: fuse-compile: error: {{.*}}bad.mlir: the source does not parse
