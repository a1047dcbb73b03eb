// fuse-compile's errors: a clear message and a non-zero exit.

// RUN: not fuse-compile %s --target=host-x86-64-v3 -o %t 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: not fuse-compile %s.missing --target=host -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not fuse-compile %s --target=riscv -o %t 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: echo 'func.func @f(' > %t.bad.mlir
// RUN: not fuse-compile %t.bad.mlir --target=host -o %t 2>&1 | FileCheck %s --check-prefix=MALFORMED

func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %y = fuse.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// MATMUL: fuse-compile: error: {{.*}}host-errors.mlir: host code generation failed: {{.*}}host-errors.mlir:11:8: 'fuse.matmul' op cannot be generated for the host: the matmul schedule has no host code generator yet
// MISSING: fuse-compile: error: cannot read '{{.*}}host-errors.mlir.missing'
// CUDA: fuse-compile: error: fuse-compile compiles for the host only so far; target 'sm_90'
// UNKNOWN: fuse-compile: error: unknown target 'riscv'
// MALFORMED: fuse-compile: error: {{.*}}bad.mlir: the source does not parse
