// RUN: fuse-opt %s -fuse-fusion-pipeline -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline=target=gpu -split-input-file | FileCheck %s --check-prefix=GPU
// RUN: fuse-opt %s -fuse-fusion-pipeline="explain=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// fuse-horizontal-fusion: matmul kernels whose matmuls read one lhs, and
// that read nothing computed after the first of them, become one
// `fuse.fusion horizontal` (one launch) on the host. The GPU keeps them
// apart.

// Q, K and V projections of one input, each with its bias and head split:
// one horizontal fusion of three members; the kernels after it read its
// results.
// CHECK-LABEL: func.func @qkv
// CHECK: %[[H:.*]]:3 = fuse.fusion horizontal
// CHECK: fuse.fusion matmul
// CHECK: fuse.fusion matmul
// CHECK: fuse.fusion matmul
// CHECK: fuse.yield
// CHECK: fuse.fusion attention(%[[H]]#0, %[[H]]#1, %[[H]]#2)
// GPU-LABEL: func.func @qkv
// GPU-NOT: horizontal
// GPU: fuse.fusion matmul
// GPU: fuse.fusion matmul
// GPU: fuse.fusion matmul
// EXPLAIN: remark: horizontal fusion of 3 matmul kernels that read one input
func.func @qkv(%x: tensor<8x32xf32>, %wq: tensor<32x32xf32>,
               %bq: tensor<32xf32>, %wk: tensor<32x32xf32>,
               %bk: tensor<32xf32>, %wv: tensor<32x32xf32>,
               %bv: tensor<32xf32>) -> tensor<4x8x8xf32> {
  %q0 = fuse.matmul %x, %wq : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bqb = fuse.broadcast %bq, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %q1 = fuse.add %q0, %bqb : tensor<8x32xf32>
  %q2 = fuse.reshape %q1 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %q = fuse.transpose %q2, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %k0 = fuse.matmul %x, %wk : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bkb = fuse.broadcast %bk, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %k1 = fuse.add %k0, %bkb : tensor<8x32xf32>
  %k2 = fuse.reshape %k1 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %k = fuse.transpose %k2, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %v0 = fuse.matmul %x, %wv : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %bvb = fuse.broadcast %bv, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %v1 = fuse.add %v0, %bvb : tensor<8x32xf32>
  %v2 = fuse.reshape %v1 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %v = fuse.transpose %v2, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %s = fuse.matmul %q, %k {transpose_b} : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  %m = fuse.reduce max %s dims = [2] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x8xf32>
  %d = fuse.sub %s, %mb : tensor<4x8x8xf32>
  %e = fuse.exp %d : tensor<4x8x8xf32>
  %z = fuse.reduce sum %e dims = [2] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  %zb = fuse.broadcast %z, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x8xf32>
  %p = fuse.div %e, %zb : tensor<4x8x8xf32>
  %o = fuse.matmul %p, %v : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  return %o : tensor<4x8x8xf32>
}

// -----

// The second matmul's B is the first's result: it depends on the first, so
// the two stay two launches.
// CHECK-LABEL: func.func @dependent
// CHECK-NOT: horizontal
// CHECK: return
func.func @dependent(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %a = fuse.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = fuse.matmul %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %a, %b : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// The second matmul's B is computed by a kernel after the first matmul
// (from an input alone, but a reduction kernel of its own): the second may
// not move up, and is not grouped.
// CHECK-LABEL: func.func @operand_computed_later
// CHECK-NOT: horizontal
// CHECK: return
func.func @operand_computed_later(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>,
    %u: tensor<16x16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %a = fuse.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %r = fuse.reduce sum %u dims = [0] : tensor<16x16x16xf32> -> tensor<16x16xf32>
  %b = fuse.matmul %x, %r : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %a, %b : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Two matmuls of different lhs values: nothing to share.
// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT: horizontal
// CHECK: return
func.func @different_inputs(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>,
    %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %a = fuse.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = fuse.matmul %y, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %a, %b : tensor<16x16xf32>, tensor<16x16xf32>
}
