// RUN: fuse-opt %s -split-input-file -fuse-outline-fusions | FileCheck %s

// Groups as fuse-form-fusions marks them; a value used after its group is
// yielded, constants are cloned in, and the function is sorted again.
// CHECK-LABEL: func.func @multi_output_group
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]]:2 = fuse.fusion pointwise(%[[X]]) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK: ^bb0(%[[A:.*]]: tensor<8xf32>):
// CHECK: %[[E:.*]] = fuse.exp %[[A]] : tensor<8xf32>
// CHECK-NOT: fuse.group
// CHECK: %[[C:.*]] = fuse.constant dense<2.000000e+00>
// CHECK: %[[M:.*]] = fuse.mul %[[E]], %[[C]]
// CHECK: fuse.yield %[[E]], %[[M]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @multi_output_group(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = fuse.constant dense<2.0> : tensor<8xf32>
  %e = fuse.exp %x {fuse.group = 0 : i64} : tensor<8xf32>
  %m = fuse.mul %e, %c {fuse.group = 0 : i64} : tensor<8xf32>
  return %e, %m : tensor<8xf32>, tensor<8xf32>
}

// -----

// Ops without a group get a kernel each; so does a constant that is
// returned as it is. Every tensor op ends up in exactly one fusion.
// CHECK-LABEL: func.func @ungrouped_ops_get_own_kernels
// CHECK: %[[C:.*]] = fuse.fusion pointwise() : () -> tensor<2xf32>
// CHECK: fuse.constant
// CHECK: %[[A:.*]] = fuse.fusion pointwise
// CHECK: fuse.exp
// CHECK: %[[B:.*]] = fuse.fusion row_reduction(%[[A]])
// CHECK: fuse.reduce sum
// CHECK-NOT: fuse.fusion
// CHECK: return %[[B]], %[[C]]
func.func @ungrouped_ops_get_own_kernels(%x: tensor<2x8xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = fuse.constant dense<1.0> : tensor<2xf32>
  %e = fuse.exp %x : tensor<2x8xf32>
  %s = fuse.reduce sum %e dims = [1] : tensor<2x8xf32> -> tensor<2xf32>
  return %s, %c : tensor<2xf32>, tensor<2xf32>
}

// -----

// Group 0's ops are interleaved with group 1's: the kernel of group 0 goes
// after its last op, and the sort moves group 1's kernel after it.
// CHECK-LABEL: func.func @interleaved_groups_sorted
// CHECK: %[[G0:.*]]:2 = fuse.fusion pointwise(%{{.*}}) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: fuse.exp
// CHECK: fuse.tanh
// CHECK: fuse.fusion pointwise(%[[G0]]#0, %[[G0]]#1)
// CHECK: fuse.neg
// CHECK: fuse.add
func.func @interleaved_groups_sorted(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = fuse.exp %x {fuse.group = 0 : i64} : tensor<4xf32>
  %b = fuse.neg %a {fuse.group = 1 : i64} : tensor<4xf32>
  %c = fuse.tanh %x {fuse.group = 0 : i64} : tensor<4xf32>
  %d = fuse.add %b, %c {fuse.group = 1 : i64} : tensor<4xf32>
  return %d : tensor<4xf32>
}
