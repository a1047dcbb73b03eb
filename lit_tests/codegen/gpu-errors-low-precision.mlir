// The narrow integers compile on the GPU (gpu-low-precision.mlir) except in
// reductions, which the GPU refuses for every integer type yet: an i4 sum
// names the reduce and says why.

// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s

func.func @sum(%x: tensor<64x16xi4>) -> tensor<64xi4> {
  %r = fuse.fusion row_reduction (%x) : (tensor<64x16xi4>) -> tensor<64xi4> {
  ^bb0(%a: tensor<64x16xi4>):
    %s = fuse.reduce sum %a dims = [1] : tensor<64x16xi4> -> tensor<64xi4>
    fuse.yield %s : tensor<64xi4>
  }
  return %r : tensor<64xi4>
}

// CHECK: error: {{.*}}gpu-errors-low-precision.mlir:10:10: 'fuse.reduce' op cannot be generated for the GPU in a row_reduction kernel: integer reductions are not supported yet
