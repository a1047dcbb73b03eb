// An integer matmul has no GPU lowering: the error names the op and the
// schedule.

// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s

func.func @matmul(%a: tensor<4x8xi32>, %b: tensor<8x3xi32>) -> tensor<4x3xi32> {
  %r = fuse.fusion matmul (%a, %b) : (tensor<4x8xi32>, tensor<8x3xi32>) -> tensor<4x3xi32> {
  ^bb0(%x: tensor<4x8xi32>, %y: tensor<8x3xi32>):
    %m = fuse.matmul %x, %y : tensor<4x8xi32>, tensor<8x3xi32> -> tensor<4x3xi32>
    fuse.yield %m : tensor<4x3xi32>
  }
  return %r : tensor<4x3xi32>
}

// CHECK: error: {{.*}}gpu-errors-integer-matmul.mlir:9:10: 'fuse.matmul' op cannot be generated for the GPU in a matmul kernel: integer matmuls are not supported yet
