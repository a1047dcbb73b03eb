// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: fuse-opt %s -split-input-file -fuse-form-fusions=verify-incremental=true -o /dev/null

// Ops that only move data (slice, reshape, transpose, broadcast, constant)
// over kernel inputs join a pointwise kernel of another size: the kernel
// reads them where it needs them. Arithmetic of another size, a data-moving
// op the kernel must also yield, and a concat are not recomputed.

// A slice of a weight, reshaped and broadcast, scales the input: one kernel.
// CHECK-LABEL: func.func @weight_slice
//       CHECK:   fuse.fusion pointwise
//       CHECK:     fuse.slice
//       CHECK:     fuse.mul
//   CHECK-NOT:   fuse.fusion
//       CHECK:   return
func.func @weight_slice(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x8xf32> {
  %s = fuse.slice %w offsets = [0, 1] sizes = [8, 1] strides = [1, 1] : tensor<8x3xf32> -> tensor<8x1xf32>
  %r = fuse.reshape %s : tensor<8x1xf32> -> tensor<8xf32>
  %b = fuse.broadcast %r, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %y = fuse.mul %x, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The slice is also a result: a kernel writes it over its own 8 elements.
// CHECK-LABEL: func.func @weight_slice_returned
// CHECK-COUNT-2: fuse.fusion pointwise
// EXPLAIN: not fused {{.*}}: fuse.slice iterates over 8 elements, the pointwise kernel over 32: it would be recomputed
func.func @weight_slice_returned(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> (tensor<4x8xf32>, tensor<8x1xf32>) {
  %s = fuse.slice %w offsets = [0, 1] sizes = [8, 1] strides = [1, 1] : tensor<8x3xf32> -> tensor<8x1xf32>
  %r = fuse.reshape %s : tensor<8x1xf32> -> tensor<8xf32>
  %b = fuse.broadcast %r, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %y = fuse.mul %x, %b : tensor<4x8xf32>
  return %y, %s : tensor<4x8xf32>, tensor<8x1xf32>
}

// -----

// An exp of the weight is arithmetic: it would run once per element of the
// kernel instead of once per element of the weight.
// CHECK-LABEL: func.func @weight_exp
// CHECK-COUNT-2: fuse.fusion pointwise
// EXPLAIN: not fused {{.*}}: fuse.exp iterates over 8 elements, the pointwise kernel over 32: it would be recomputed
func.func @weight_exp(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = fuse.exp %w : tensor<8xf32>
  %b = fuse.broadcast %e, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %y = fuse.mul %x, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A zero-padding concat under two shifted slices stays a kernel of its own.
// CHECK-LABEL: func.func @padded_slices
// CHECK-COUNT-2: fuse.fusion pointwise
// EXPLAIN: not fused {{.*}} (fuse.concat) into {{.*}} (fuse.slice): fuse.slice iterates over 8 elements, the pointwise kernel over 10: it would be recomputed
func.func @padded_slices(%x: tensor<8xf32>) -> tensor<8xf32> {
  %z = fuse.constant dense<0.0> : tensor<1xf32>
  %p = fuse.concat %z, %x, %z axis = 0 : tensor<1xf32>, tensor<8xf32>, tensor<1xf32> -> tensor<10xf32>
  %a = fuse.slice %p offsets = [0] sizes = [8] strides = [1] : tensor<10xf32> -> tensor<8xf32>
  %b = fuse.slice %p offsets = [2] sizes = [8] strides = [1] : tensor<10xf32> -> tensor<8xf32>
  %y = fuse.add %a, %b : tensor<8xf32>
  return %y : tensor<8xf32>
}
