// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-form-fusions=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline -fuse-select-schedules -verify-diagnostics -o /dev/null
// RUN: fuse-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// Issue 22, step B: the fusion passes run on symbolic dims, counting each
// symbol at a representative size (passes/RepresentativeDims.h), and refuse
// per op or per kernel where a static dim is needed:
// - a dim that is a sum of terms (sequence - 1) counts as a symbol of its
//   own (a prime of its own): ops on it fuse with each other, and the
//   comparisons with the other dims stay conservative (the slice that makes
//   sequence - 1 rows counts more rows than its operand here, so the ops
//   before it are not recomputed into it);
// - fuse-select-schedules records sizes in a schedule: it refuses each fusion
//   with a symbolic dim, naming the dim;
// - attention (symbolic keys) is in symbolic-dims-fusion.mlir.
// The dialect's canonicalization runs (a splat broadcast to a `?` dim stays a
// broadcast: no constant of symbolic shape exists).

// CHECK-LABEL: func.func @bert_like
// CHECK: fuse.fusion matmul
// CHECK: fuse.matmul
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.tanh
// CHECK-NEXT: fuse.yield
func.func @bert_like(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>>,
                     %w: tensor<64x64xf32>, %b: tensor<64xf32>)
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  // expected-error @+1 {{'fuse.fusion' op needs static dims for its schedule, but dim 0 (batch) of tensor<?x?x64xf32, #fuse.dims<batch, sequence>> is symbolic; schedules of symbolic dims are not implemented yet (issue 22): bind the dims first}}
  %m = fuse.matmul %x, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.add %m, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %s : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}

// -----

// The ops on sequence - 1 rows fuse with each other, those on sequence rows
// too.
// CHECK-LABEL: func.func @sum_dim
// CHECK: %[[F:.*]] = fuse.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.exp
// CHECK-NEXT: fuse.neg
// CHECK-NEXT: fuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[A:.*]] = fuse.fusion pointwise(%[[F]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.slice
// CHECK-NEXT: fuse.tanh
// CHECK-NEXT: fuse.abs
// CHECK-NEXT: fuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]], %[[A]]
// EXPLAIN-NOT: sum of terms
// EXPLAIN: remark: fused %3 (fuse.tanh) into %4 (fuse.abs) (pointwise)
// EXPLAIN: remark: fused %2 (fuse.slice) into %3 (fuse.tanh) (pointwise)
// EXPLAIN: remark: fused %0 (fuse.exp) into %1 (fuse.neg) (pointwise)
// EXPLAIN: remark: not fused %1 (fuse.neg) into %2 (fuse.slice)
func.func @sum_dim(%x: tensor<?x64xf32, #fuse.dims<sequence>>)
    -> (tensor<?x64xf32, #fuse.dims<sequence>>, tensor<?x64xf32, #fuse.dims<sequence - 1>>) {
  // expected-error @+1 {{'fuse.fusion' op needs static dims for its schedule, but dim 0 (sequence) of tensor<?x64xf32, #fuse.dims<sequence>> is symbolic}}
  %e = fuse.exp %x : tensor<?x64xf32, #fuse.dims<sequence>>
  %n = fuse.neg %e : tensor<?x64xf32, #fuse.dims<sequence>>
  // expected-error @+1 {{'fuse.fusion' op needs static dims for its schedule, but dim 0 (sequence) of tensor<?x64xf32, #fuse.dims<sequence>> is symbolic}}
  %s = fuse.slice %n offsets = [1, 0] sizes = [-1, 64] strides = [1, 1] : tensor<?x64xf32, #fuse.dims<sequence>> -> tensor<?x64xf32, #fuse.dims<sequence - 1>>
  %t = fuse.tanh %s : tensor<?x64xf32, #fuse.dims<sequence - 1>>
  %u = fuse.abs %t : tensor<?x64xf32, #fuse.dims<sequence - 1>>
  return %n, %u : tensor<?x64xf32, #fuse.dims<sequence>>, tensor<?x64xf32, #fuse.dims<sequence - 1>>
}

// -----

// CANON-LABEL: func.func @splat
// CANON: %[[C:.*]] = fuse.constant dense<1.000000e+00> : tensor<64xf32>
// CANON: fuse.broadcast %[[C]], dims = [1] : tensor<64xf32> -> tensor<?x64xf32, #fuse.dims<sequence>>
// CHECK-LABEL: func.func @splat
// CHECK: fuse.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.add
func.func @splat(%x: tensor<?x64xf32, #fuse.dims<sequence>>) -> tensor<?x64xf32, #fuse.dims<sequence>> {
  %c = fuse.constant dense<1.0> : tensor<64xf32>
  // expected-error @+1 {{'fuse.fusion' op needs static dims for its schedule, but dim 0 (sequence) of tensor<?x64xf32, #fuse.dims<sequence>> is symbolic}}
  %b = fuse.broadcast %c, dims = [1] : tensor<64xf32> -> tensor<?x64xf32, #fuse.dims<sequence>>
  %s = fuse.add %x, %b : tensor<?x64xf32, #fuse.dims<sequence>>
  return %s : tensor<?x64xf32, #fuse.dims<sequence>>
}

// -----

// The representative size of a symbol is the first prime at or above its
// hint that divides no static dim (64 here): 131 for the default hint 128,
// 1009 for a declared 1000. The traffic of the explain summary counts four
// sequence x 64 f32 tensors at each.
// EXPLAIN: remark: fusion: 2 kernels, 131 KiB of traffic -> 1 kernels, 65.5 KiB
// EXPLAIN: remark: fusion: 2 kernels, 1009 KiB of traffic -> 1 kernels, 504.5 KiB
// CHECK-LABEL: func.func @hinted
// CHECK: fuse.fusion pointwise
func.func @hinted(%x: tensor<?x64xf32, #fuse.dims<sequence>>) -> tensor<?x64xf32, #fuse.dims<sequence>>
    attributes {fuse.dim_hints = {sequence = 1000 : i64}} {
  // expected-error @+1 {{'fuse.fusion' op needs static dims for its schedule, but dim 0 (sequence)}}
  %e = fuse.exp %x : tensor<?x64xf32, #fuse.dims<sequence>>
  %n = fuse.neg %e : tensor<?x64xf32, #fuse.dims<sequence>>
  return %n : tensor<?x64xf32, #fuse.dims<sequence>>
}
