// The f8, f4 and narrow integer types have no GPU lowering yet: the error
// names the first op that reads or produces one.

// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s

func.func @cast(%x: tensor<64xf32>) -> tensor<64xf8E5M2> {
  %r = fuse.fusion pointwise (%x) : (tensor<64xf32>) -> tensor<64xf8E5M2> {
  ^bb0(%a: tensor<64xf32>):
    %c = fuse.cast %a : tensor<64xf32> to tensor<64xf8E5M2>
    fuse.yield %c : tensor<64xf8E5M2>
  }
  return %r : tensor<64xf8E5M2>
}

// CHECK: error: {{.*}}gpu-errors-low-precision.mlir:9:10: 'fuse.cast' op cannot be generated for the GPU: the f8, f4, i4, ui4, i2 and ui2 element types are not supported on the GPU yet
