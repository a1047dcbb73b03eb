// fuse-fold-empty-tensors: an op whose results hold no element becomes a
// splat constant of its type; what fed only it is dead and canonicalization
// drops it. An op with an empty operand but elements in its result (a sum
// over no element, a concat with an empty part) is kept. The whole pipeline
// then fuses a softmax over rows of no element for the host and for a GPU
// (its row kernel refused an empty domain before).

// RUN: fuse-opt %s --fuse-fold-empty-tensors --canonicalize | FileCheck %s
// RUN: fuse-opt %s --fuse-fusion-pipeline | FileCheck %s --check-prefix=FUSED
// RUN: fuse-opt %s --fuse-fusion-pipeline=target=gpu | FileCheck %s --check-prefix=FUSED

// CHECK-LABEL: func.func @softmax_of_nothing
// CHECK-NEXT: %[[C:.*]] = fuse.constant dense<0.000000e+00> : tensor<32x0xf32>
// CHECK-NEXT: return %[[C]]
// FUSED-LABEL: func.func @softmax_of_nothing
// FUSED-NOT: fuse.reduce
// FUSED: return
// FUSED-LABEL: func.func @kept
func.func @softmax_of_nothing(%x: tensor<32x0xf32>) -> tensor<32x0xf32> {
  %e = fuse.exp %x : tensor<32x0xf32>
  %m = fuse.reduce sum %e dims = [1] keep_dims : tensor<32x0xf32> -> tensor<32x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x0xf32>
  %y = fuse.div %e, %mb : tensor<32x0xf32>
  return %y : tensor<32x0xf32>
}

// CHECK-LABEL: func.func @kept
// CHECK: fuse.reduce sum
// CHECK: fuse.concat
func.func @kept(%r: tensor<3x0xf32>, %x: tensor<2x3xi32>, %e: tensor<0x3xi32>)
    -> (tensor<3xf32>, tensor<2x3xi32>) {
  %s = fuse.reduce sum %r dims = [1] : tensor<3x0xf32> -> tensor<3xf32>
  %n = fuse.neg %e : tensor<0x3xi32>
  %c = fuse.concat %x, %n axis = 0 : tensor<2x3xi32>, tensor<0x3xi32> -> tensor<2x3xi32>
  return %s, %c : tensor<3xf32>, tensor<2x3xi32>
}
