// Reductions of the narrow integers (i4, ui4, i2, ui2) have no host
// lowering yet: a clear error names the op, never wrong code.

// RUN: not fuse-compile %s --target=host-x86-64-v3 -o %t 2>&1 | FileCheck %s

func.func @sum(%x: tensor<4x8xi4>) -> tensor<4xi4> {
  %r = fuse.fusion row_reduction (%x) : (tensor<4x8xi4>) -> tensor<4xi4> {
  ^bb0(%a: tensor<4x8xi4>):
    %s = fuse.reduce sum %a dims = [1] : tensor<4x8xi4> -> tensor<4xi4>
    fuse.yield %s : tensor<4xi4>
  }
  return %r : tensor<4xi4>
}

// CHECK: error: {{.*}}host-errors-narrow-reduction.mlir:9:10: 'fuse.reduce' op cannot be generated for the host in a row_reduction kernel: element type 'i4' is not supported
