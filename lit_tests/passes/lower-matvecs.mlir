// RUN: fuse-opt %s -split-input-file -fuse-lower-matvecs | FileCheck %s

// One row of C, B transposed: the sum over k of A * B^T, broadcast to
// [M, N, K], reduced over the last dim; no reshape.
// CHECK-LABEL: func.func @classifier
//  CHECK-SAME: (%[[A:.*]]: tensor<1x64xf32>, %[[B:.*]]: tensor<10x64xf32>)
//   CHECK-NOT:   fuse.matmul
//   CHECK-NOT:   fuse.reshape
//       CHECK:   %[[SA:.*]] = fuse.broadcast %[[A]], dims = [0, 2] : tensor<1x64xf32> -> tensor<1x10x64xf32>
//       CHECK:   %[[SB:.*]] = fuse.broadcast %[[B]], dims = [1, 2] : tensor<10x64xf32> -> tensor<1x10x64xf32>
//       CHECK:   %[[P:.*]] = fuse.mul %[[SA]], %[[SB]] : tensor<1x10x64xf32>
//       CHECK:   %[[S:.*]] = fuse.reduce sum %[[P]] dims = [2] : tensor<1x10x64xf32> -> tensor<1x10xf32>
//       CHECK:   return %[[S]]
func.func @classifier(%a: tensor<1x64xf32>, %b: tensor<10x64xf32>) -> tensor<1x10xf32> {
  %c = fuse.matmul %a, %b transpose_b : tensor<1x64xf32>, tensor<10x64xf32> -> tensor<1x10xf32>
  return %c : tensor<1x10xf32>
}

// -----

// A batch of two single rows (four rows in all is the most) sharing B, in
// f64: [2, 1, 5, 8] products, summed into C's shape.
// CHECK-LABEL: func.func @batched_rows
//       CHECK:   fuse.broadcast %{{.*}}, dims = [0, 1, 3] : tensor<2x1x8xf64> -> tensor<2x1x5x8xf64>
//       CHECK:   fuse.broadcast %{{.*}}, dims = [2, 3] : tensor<5x8xf64> -> tensor<2x1x5x8xf64>
//       CHECK:   fuse.reduce sum %{{.*}} dims = [3] : tensor<2x1x5x8xf64> -> tensor<2x1x5xf64>
//   CHECK-NOT:   fuse.reshape
//   CHECK-NOT:   fuse.matmul
func.func @batched_rows(%a: tensor<2x1x8xf64>, %b: tensor<5x8xf64>) -> tensor<2x1x5xf64> {
  %c = fuse.matmul %a, %b transpose_b : tensor<2x1x8xf64>, tensor<5x8xf64> -> tensor<2x1x5xf64>
  return %c : tensor<2x1x5xf64>
}

// -----

// Left alone: five rows; B not transposed; f16 (the matmul accumulates in
// f32, the products would be rounded); B batched.
// CHECK-LABEL: func.func @kept
//   CHECK-NOT:   fuse.reduce
//   CHECK-COUNT-4: fuse.matmul
func.func @kept(%a: tensor<5x8xf32>, %b: tensor<6x8xf32>, %c: tensor<1x8xf32>, %d: tensor<8x6xf32>,
                %e: tensor<1x8xf16>, %f: tensor<6x8xf16>, %g: tensor<2x1x8xf32>, %h: tensor<2x6x8xf32>)
    -> (tensor<5x6xf32>, tensor<1x6xf32>, tensor<1x6xf16>, tensor<2x1x6xf32>) {
  %0 = fuse.matmul %a, %b transpose_b : tensor<5x8xf32>, tensor<6x8xf32> -> tensor<5x6xf32>
  %1 = fuse.matmul %c, %d : tensor<1x8xf32>, tensor<8x6xf32> -> tensor<1x6xf32>
  %2 = fuse.matmul %e, %f transpose_b : tensor<1x8xf16>, tensor<6x8xf16> -> tensor<1x6xf16>
  %3 = fuse.matmul %g, %h transpose_b : tensor<2x1x8xf32>, tensor<2x6x8xf32> -> tensor<2x1x6xf32>
  return %0, %1, %2, %3 : tensor<5x6xf32>, tensor<1x6xf32>, tensor<1x6xf16>, tensor<2x1x6xf32>
}

// -----

// The reduce is the matmul's result: it keeps the matmul's fuse.op_index
// (by which a plan names the ops of its kernels); the ops before it, which
// compute no value of the graph's, take none.
// CHECK-LABEL: func.func @op_index
//   CHECK-NOT:   fuse.op_index
//       CHECK:   fuse.reduce sum %{{.*}} dims = [2] {fuse.op_index = 7 : i64}
//   CHECK-NOT:   fuse.op_index
func.func @op_index(%a: tensor<1x64xf32>, %b: tensor<10x64xf32>) -> tensor<1x10xf32> {
  %c = fuse.matmul %a, %b transpose_b {fuse.op_index = 7 : i64} : tensor<1x64xf32>, tensor<10x64xf32> -> tensor<1x10xf32>
  return %c : tensor<1x10xf32>
}
