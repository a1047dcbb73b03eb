// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s --check-prefix=COUNT

// A transformer MLP block: relu(x W1 + b1) W2 + b2 + x, tokens 8, hidden 32,
// inner 128. Two kernels, one per matmul: the bias and relu are the first
// matmul's epilogue, the bias and residual the second's. The relu output is
// the only intermediate written to memory: fusing it into the second matmul
// as a prologue would put two matmuls in one kernel.

// COUNT-LABEL: func.func @mlp_block
// COUNT-COUNT-2: fuse.fusion
// COUNT-NOT: fuse.fusion

// CHECK-LABEL: func.func @mlp_block
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W1:.*]]: tensor<32x128xf32>, %[[B1:.*]]: tensor<128xf32>, %[[W2:.*]]: tensor<128x32xf32>, %[[B2:.*]]: tensor<32xf32>)
// CHECK: %[[H:.*]] = fuse.fusion matmul(%[[X]], %[[W1]], %[[B1]]) : (tensor<8x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<8x128xf32>
// CHECK: fuse.matmul
// CHECK: fuse.broadcast
// CHECK: fuse.add
// CHECK: fuse.max
// CHECK: %[[Y:.*]] = fuse.fusion matmul(%[[H]], %[[W2]], %[[B2]], %[[X]]) : (tensor<8x128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK: fuse.matmul
// CHECK: fuse.add
// CHECK: fuse.add
// CHECK: return %[[Y]]
func.func @mlp_block(%x: tensor<8x32xf32>, %w1: tensor<32x128xf32>, %b1: tensor<128xf32>,
                     %w2: tensor<128x32xf32>, %b2: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = fuse.matmul %x, %w1 : tensor<8x32xf32>, tensor<32x128xf32> -> tensor<8x128xf32>
  %1 = fuse.broadcast %b1, dims = [1] : tensor<128xf32> -> tensor<8x128xf32>
  %2 = fuse.add %0, %1 : tensor<8x128xf32>
  %zero = fuse.constant dense<0.0> : tensor<8x128xf32>
  %3 = fuse.max %2, %zero : tensor<8x128xf32>
  %4 = fuse.matmul %3, %w2 : tensor<8x128xf32>, tensor<128x32xf32> -> tensor<8x32xf32>
  %5 = fuse.broadcast %b2, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %6 = fuse.add %4, %5 : tensor<8x32xf32>
  %7 = fuse.add %6, %x : tensor<8x32xf32>
  return %7 : tensor<8x32xf32>
}
