// RUN: fuse-opt %s -split-input-file -fuse-fold-matmul-transposes | FileCheck %s

// Kᵀ made inside the kernel by swapping K's last two dims: the matmul
// reads K through transpose_b and the transpose goes.
// CHECK-LABEL: func.func @swap
//       CHECK:   ^bb0(%[[Q:.*]]: tensor<4x5x8xf32>, %[[K:.*]]: tensor<4x9x8xf32>):
//   CHECK-NOT:     fuse.transpose
//       CHECK:     fuse.matmul %[[Q]], %[[K]] transpose_b : tensor<4x5x8xf32>, tensor<4x9x8xf32> -> tensor<4x5x9xf32>
func.func @swap(%q: tensor<4x5x8xf32>, %k: tensor<4x9x8xf32>) -> tensor<4x5x9xf32> {
  %0 = fuse.fusion matmul(%q, %k) : (tensor<4x5x8xf32>, tensor<4x9x8xf32>) -> tensor<4x5x9xf32> {
  ^bb0(%a: tensor<4x5x8xf32>, %b: tensor<4x9x8xf32>):
    %t = fuse.transpose %b, permutation = [0, 2, 1] : tensor<4x9x8xf32> -> tensor<4x8x9xf32>
    %s = fuse.matmul %a, %t : tensor<4x5x8xf32>, tensor<4x8x9xf32> -> tensor<4x5x9xf32>
    fuse.yield %s : tensor<4x5x9xf32>
  }
  return %0 : tensor<4x5x9xf32>
}

// -----

// The heads split and Kᵀ in one transpose (0, 2, 3, 1) of [B, S, H, D], K
// scaled by a splat (SDPA's export): the scale moves before a transpose
// (0, 2, 1, 3) that keeps D innermost, read through transpose_b; the
// constant and the transpose keep their fuse.op_index (the plan's names).
// CHECK-LABEL: func.func @heads_and_scale
//       CHECK:   ^bb0(%[[Q:.*]]: tensor<1x2x5x8xf32>, %[[K:.*]]: tensor<1x9x2x8xf32>):
//   CHECK-NOT:     tensor<1x2x8x9xf32>
//       CHECK:     %[[T:.*]] = fuse.transpose %[[K]], permutation = [0, 2, 1, 3] {fuse.op_index = 1 : i64} : tensor<1x9x2x8xf32> -> tensor<1x2x9x8xf32>
//       CHECK:     %[[C:.*]] = fuse.constant {fuse.op_index = 2 : i64} dense<5.000000e-01> : tensor<1x2x9x8xf32>
//       CHECK:     %[[M:.*]] = fuse.mul %[[T]], %[[C]] {fuse.op_index = 3 : i64} : tensor<1x2x9x8xf32>
//       CHECK:     fuse.matmul %[[Q]], %[[M]] transpose_b : tensor<1x2x5x8xf32>, tensor<1x2x9x8xf32> -> tensor<1x2x5x9xf32>
//   CHECK-NOT:     tensor<1x2x8x9xf32>
func.func @heads_and_scale(%q: tensor<1x2x5x8xf32>, %k: tensor<1x9x2x8xf32>) -> tensor<1x2x5x9xf32> {
  %0 = fuse.fusion matmul(%q, %k) : (tensor<1x2x5x8xf32>, tensor<1x9x2x8xf32>) -> tensor<1x2x5x9xf32> {
  ^bb0(%a: tensor<1x2x5x8xf32>, %b: tensor<1x9x2x8xf32>):
    %t = fuse.transpose %b, permutation = [0, 2, 3, 1] {fuse.op_index = 1 : i64} : tensor<1x9x2x8xf32> -> tensor<1x2x8x9xf32>
    %c = fuse.constant {fuse.op_index = 2 : i64} dense<0.5> : tensor<1x2x8x9xf32>
    %m = fuse.mul %t, %c {fuse.op_index = 3 : i64} : tensor<1x2x8x9xf32>
    %s = fuse.matmul %a, %m : tensor<1x2x5x8xf32>, tensor<1x2x8x9xf32> -> tensor<1x2x5x9xf32>
    fuse.yield %s : tensor<1x2x5x9xf32>
  }
  return %0 : tensor<1x2x5x9xf32>
}

// -----

// transpose_b already set: the flag flips off, B is read as stored.
// CHECK-LABEL: func.func @double_flip
//       CHECK:   ^bb0(%[[Q:.*]]: tensor<4x5x8xf32>, %[[K:.*]]: tensor<4x8x9xf32>):
//   CHECK-NOT:     fuse.transpose
//       CHECK:     fuse.matmul %[[Q]], %[[K]] : tensor<4x5x8xf32>, tensor<4x8x9xf32> -> tensor<4x5x9xf32>
func.func @double_flip(%q: tensor<4x5x8xf32>, %k: tensor<4x8x9xf32>) -> tensor<4x5x9xf32> {
  %0 = fuse.fusion matmul(%q, %k) : (tensor<4x5x8xf32>, tensor<4x8x9xf32>) -> tensor<4x5x9xf32> {
  ^bb0(%a: tensor<4x5x8xf32>, %b: tensor<4x8x9xf32>):
    %t = fuse.transpose %b, permutation = [0, 2, 1] : tensor<4x8x9xf32> -> tensor<4x9x8xf32>
    %s = fuse.matmul %a, %t transpose_b : tensor<4x5x8xf32>, tensor<4x9x8xf32> -> tensor<4x5x9xf32>
    fuse.yield %s : tensor<4x5x9xf32>
  }
  return %0 : tensor<4x5x9xf32>
}

// -----

// Left alone: a transpose that does not put its operand's innermost dim
// second to last (the matmul reads its rows contiguously already), a
// scale that is not a splat, A made by a transpose (the attention schedule
// reads Q without transpose_a), and matmuls outside any fusion (their
// values would be stored between kernels as tensors the graph does not
// have).
// CHECK-LABEL: func.func @kept
//       CHECK:   fuse.transpose %{{.*}}, permutation = [1, 0, 2]
//       CHECK:   fuse.matmul %{{[^ ]+}}, %{{[^ ]+}} : tensor<4x5x8xf32>, tensor<4x8x9xf32>
//       CHECK:   fuse.transpose %{{.*}}, permutation = [0, 2, 1]
//       CHECK:   fuse.mul
//       CHECK:   fuse.matmul %{{[^ ]+}}, %{{[^ ]+}} : tensor<4x5x8xf32>, tensor<4x8x9xf32>
//       CHECK:   fuse.transpose %{{.*}}, permutation = [0, 2, 1]
//       CHECK:   fuse.matmul %{{[^ ]+}}, %{{[^ ]+}} : tensor<4x5x8xf32>, tensor<4x8x9xf32>
//       CHECK:   fuse.transpose %{{.*}}, permutation = [1, 0]
//       CHECK:   fuse.matmul %{{[^ ]+}}, %{{[^ ]+}} : tensor<5x8xf32>, tensor<8x3xf32>
//   CHECK-NOT:   transpose_a
//   CHECK-NOT:   transpose_b
func.func @kept(%q: tensor<4x5x8xf32>, %k: tensor<8x4x9xf32>, %k2: tensor<4x9x8xf32>, %w: tensor<4x8x9xf32>, %x: tensor<8x5xf32>, %y: tensor<8x3xf32>) -> (tensor<4x5x9xf32>, tensor<4x5x9xf32>, tensor<4x5x9xf32>, tensor<5x3xf32>) {
  %0 = fuse.fusion matmul(%q, %k) : (tensor<4x5x8xf32>, tensor<8x4x9xf32>) -> tensor<4x5x9xf32> {
  ^bb0(%a: tensor<4x5x8xf32>, %b: tensor<8x4x9xf32>):
    %t = fuse.transpose %b, permutation = [1, 0, 2] : tensor<8x4x9xf32> -> tensor<4x8x9xf32>
    %s = fuse.matmul %a, %t : tensor<4x5x8xf32>, tensor<4x8x9xf32> -> tensor<4x5x9xf32>
    fuse.yield %s : tensor<4x5x9xf32>
  }
  %1 = fuse.fusion matmul(%q, %k2, %w) : (tensor<4x5x8xf32>, tensor<4x9x8xf32>, tensor<4x8x9xf32>) -> tensor<4x5x9xf32> {
  ^bb0(%a: tensor<4x5x8xf32>, %b: tensor<4x9x8xf32>, %c: tensor<4x8x9xf32>):
    %t = fuse.transpose %b, permutation = [0, 2, 1] : tensor<4x9x8xf32> -> tensor<4x8x9xf32>
    %m = fuse.mul %t, %c : tensor<4x8x9xf32>
    %s = fuse.matmul %a, %m : tensor<4x5x8xf32>, tensor<4x8x9xf32> -> tensor<4x5x9xf32>
    fuse.yield %s : tensor<4x5x9xf32>
  }
  %t2 = fuse.transpose %k2, permutation = [0, 2, 1] : tensor<4x9x8xf32> -> tensor<4x8x9xf32>
  %2 = fuse.matmul %q, %t2 : tensor<4x5x8xf32>, tensor<4x8x9xf32> -> tensor<4x5x9xf32>
  %3 = fuse.fusion matmul(%x, %y) : (tensor<8x5xf32>, tensor<8x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%a: tensor<8x5xf32>, %b: tensor<8x3xf32>):
    %t = fuse.transpose %a, permutation = [1, 0] : tensor<8x5xf32> -> tensor<5x8xf32>
    %s = fuse.matmul %t, %b : tensor<5x8xf32>, tensor<8x3xf32> -> tensor<5x3xf32>
    fuse.yield %s : tensor<5x3xf32>
  }
  return %0, %1, %2, %3 : tensor<4x5x9xf32>, tensor<4x5x9xf32>, tensor<4x5x9xf32>, tensor<5x3xf32>
}

// -----

// On symbolic dims (issue 22): the moved transpose keeps the dims' names. A
// scale is a broadcast scalar there (no splat constant of symbolic shape
// exists): the scalar is broadcast again to the moved transpose's shape,
// and the scaled K is read through transpose_b, as on static dims (GPT-2's
// and Llama's dynamic-axes exports: their attention then takes its rows and
// keys at run time).
// CHECK-LABEL: func.func @symbolic_heads
//       CHECK:     %[[T:.*]] = fuse.transpose %{{.*}}, permutation = [0, 2, 1, 3] : tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>
//       CHECK:     fuse.matmul %{{.*}}, %[[T]] transpose_b : tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
// CHECK-LABEL: func.func @symbolic_scale
//       CHECK:     %[[T:.*]] = fuse.transpose %{{.*}}, permutation = [0, 2, 1, 3] : tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>
//       CHECK:     %[[C:.*]] = fuse.constant dense<5.000000e-01> : tensor<f32>
//       CHECK:     %[[B:.*]] = fuse.broadcast %[[C]], dims = [] : tensor<f32> -> tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>
//       CHECK:     %[[M:.*]] = fuse.mul %[[T]], %[[B]] : tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>
//       CHECK:     fuse.matmul %{{.*}}, %[[M]] transpose_b
//   CHECK-NOT:     tensor<?x2x8x?xf32
//       CHECK:     fuse.yield
func.func @symbolic_heads(%q: tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, %k: tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>>) -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  %0 = fuse.fusion matmul(%q, %k) : (tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>>) -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  ^bb0(%a: tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, %b: tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>>):
    %t = fuse.transpose %b, permutation = [0, 2, 3, 1] : tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x8x?xf32, #fuse.dims<batch, sequence>>
    %s = fuse.matmul %a, %t : tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, tensor<?x2x8x?xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
    fuse.yield %s : tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  }
  return %0 : tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
}
func.func @symbolic_scale(%q: tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, %k: tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>>) -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  %0 = fuse.fusion matmul(%q, %k) : (tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>>) -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  ^bb0(%a: tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, %b: tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>>):
    %t = fuse.transpose %b, permutation = [0, 2, 3, 1] : tensor<?x?x2x8xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x8x?xf32, #fuse.dims<batch, sequence>>
    %c = fuse.constant dense<0.5> : tensor<f32>
    %cb = fuse.broadcast %c, dims = [] : tensor<f32> -> tensor<?x2x8x?xf32, #fuse.dims<batch, sequence>>
    %m = fuse.mul %t, %cb : tensor<?x2x8x?xf32, #fuse.dims<batch, sequence>>
    %s = fuse.matmul %a, %m : tensor<?x2x?x8xf32, #fuse.dims<batch, sequence>>, tensor<?x2x8x?xf32, #fuse.dims<batch, sequence>> -> tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
    fuse.yield %s : tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  }
  return %0 : tensor<?x2x?x?xf32, #fuse.dims<batch, sequence, sequence>>
}
