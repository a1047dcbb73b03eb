// RUN: not fuse-opt %s -fuse-form-fusions="max-live-values=1" 2>&1 | FileCheck %s --check-prefixes=LIVE,CHECK
// RUN: not fuse-opt %s -fuse-form-fusions="max-operands=0" 2>&1 | FileCheck %s --check-prefixes=OPERANDS,CHECK
// RUN: not fuse-opt %s -fuse-form-fusions="max-ops=0" 2>&1 | FileCheck %s --check-prefixes=OPS,CHECK
// RUN: not fuse-opt %s -fuse-form-fusions="matmul-tile=0" 2>&1 | FileCheck %s --check-prefixes=TILE,CHECK
// RUN: not fuse-opt %s -fuse-form-fusions="launch-cost-bytes=-1" 2>&1 | FileCheck %s --check-prefixes=LAUNCH,CHECK
// RUN: not fuse-opt %s -fuse-fusion-pipeline="max-operands=1" 2>&1 | FileCheck %s --check-prefixes=PIPELINE,CHECK

// An invalid cost model constant is an error and the pass fails; nothing is
// printed.

// LIVE: error: fuse-form-fusions: max-live-values must be at least 2, got 1
// OPERANDS: error: fuse-form-fusions: max-operands must be at least 2, got 0
// OPS: error: fuse-form-fusions: max-ops must be at least 1, got 0
// TILE: error: fuse-form-fusions: matmul-tile must be at least 1, got 0
// LAUNCH: error: fuse-form-fusions: launch-cost-bytes must be at least 0, got -1
// PIPELINE: error: fuse-form-fusions: max-operands must be at least 2, got 1
// CHECK-NOT: func.func
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuse.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
