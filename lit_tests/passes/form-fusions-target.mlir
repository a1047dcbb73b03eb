// Fusion formation asks the target's schedules (fuse-form-fusions target=):
// x - mean(x) over the whole tensor is one kernel on the host (a full
// reduction whose result is used over the domain runs as a row kernel of one
// row) but not on the GPU, whose full reduction returns one value: there the
// mean is one fusion and the subtraction another, instead of a fusion the GPU
// refuses (which code generation used to split into one kernel per op, the
// broadcast alone a kernel). Non-consecutive reduced dims make the same
// difference for a column reduction. Both are checked through fuse-opt (the
// pass); lit_tests/codegen/gpu-target-fusion.mlir compiles @center.
// @scaled_heads goes the other way: a head split (reshape, transpose) of a
// matmul's result followed by a scale (DistilBERT's q / sqrt(d)) is one
// kernel on the GPU, whose matmul epilogue follows the moves; the host's
// applies elementwise ops at the result's positions, so there the scale is a
// kernel of its own (fuse-outline-fusions checks the groups for the same
// target).

// RUN: fuse-opt %s -split-input-file --fuse-fusion-pipeline | FileCheck %s --check-prefix=HOST
// RUN: fuse-opt %s -split-input-file --fuse-fusion-pipeline=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: not fuse-opt %s --fuse-form-fusions=target=tpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fuse-opt %s --fuse-outline-fusions=target=tpu 2>&1 | FileCheck %s --check-prefix=BAD-OUTLINE

// HOST-LABEL: func.func @center
// HOST: fuse.fusion full_reduction(%arg0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// HOST-NOT: fuse.fusion
// GPU-LABEL: func.func @center
// GPU: fuse.fusion full_reduction(%arg0) : (tensor<64x64xf32>) -> tensor<f32>
// GPU: fuse.fusion pointwise
// GPU-NOT: fuse.fusion
// HOST-LABEL: func.func @split_columns
// HOST: fuse.fusion column_reduction
// HOST-NOT: fuse.fusion
// GPU-LABEL: func.func @split_columns
// GPU: fuse.fusion pointwise
// GPU: fuse.fusion column_reduction
// HOST-LABEL: func.func @mean_of_rows
// HOST: fuse.fusion row_reduction(%arg0)
// HOST: fuse.reduce sum
// HOST-NEXT: fuse.yield
// HOST: fuse.fusion full_reduction
// HOST: fuse.neg
// HOST-NEXT: fuse.reduce mean
// GPU-LABEL: func.func @mean_of_rows
// GPU: fuse.fusion row_reduction(%arg0)
// GPU: fuse.reduce sum
// GPU-NEXT: fuse.yield
// GPU: fuse.fusion full_reduction
// GPU: fuse.neg
// GPU-NEXT: fuse.reduce mean
// HOST-LABEL: func.func @transposed_rows
// HOST: fuse.fusion row_reduction
// HOST: fuse.fusion pointwise
// HOST: fuse.transpose
// HOST-NEXT: fuse.exp
// GPU-LABEL: func.func @transposed_rows
// GPU: fuse.fusion row_reduction
// GPU: fuse.fusion pointwise
// GPU: fuse.transpose
// GPU-NEXT: fuse.exp
// HOST-LABEL: func.func @scaled_heads
// HOST: fuse.fusion matmul
// HOST: fuse.transpose
// HOST-NEXT: fuse.yield
// HOST: fuse.fusion pointwise
// HOST: fuse.mul
// GPU-LABEL: func.func @scaled_heads
// GPU: fuse.fusion matmul
// GPU: fuse.transpose
// GPU-NEXT: fuse.mul
// GPU-NEXT: fuse.yield
// GPU-NOT: fuse.fusion
// BAD: fuse-form-fusions: unknown target 'tpu'; expected host or gpu
// BAD-OUTLINE: fuse-outline-fusions: unknown target 'tpu'; expected host or gpu

func.func @center(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = fuse.reduce mean %x dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  %b = fuse.broadcast %s, dims = [] : tensor<f32> -> tensor<64x64xf32>
  %d = fuse.sub %x, %b : tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @split_columns(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %e = fuse.exp %x : tensor<4x8x16xf32>
  %s = fuse.reduce sum %e dims = [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// The negation of per-row sums (computed by the row kernel) joins the mean
// over the rows: a full reduction whose operand another kernel's reduction
// computed (ScheduleLegality looks only at the kernel's own reductions).
func.func @mean_of_rows(%x: tensor<8x16xf32>) -> tensor<f32> {
  %r = fuse.reduce sum %x dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %n = fuse.neg %r : tensor<8xf32>
  %m = fuse.reduce mean %n dims = [0] : tensor<8xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A transpose of per-row sums reads each row's sum at another row's
// position: the row schedule cannot hold it (ScheduleLegality refuses it,
// and fusion formation asks the same question), so the transpose starts the
// next kernel.
func.func @transposed_rows(%x: tensor<4x6x8xf32>) -> tensor<6x4xf32> {
  %r = fuse.reduce sum %x dims = [2] : tensor<4x6x8xf32> -> tensor<4x6xf32>
  %t = fuse.transpose %r, permutation = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  %e = fuse.exp %t : tensor<6x4xf32>
  return %e : tensor<6x4xf32>
}

// -----

func.func @scaled_heads(%x: tensor<128x256xf32>, %w: tensor<256x256xf32>) -> tensor<4x128x64xf32> {
  %m = fuse.matmul %x, %w : tensor<128x256xf32>, tensor<256x256xf32> -> tensor<128x256xf32>
  %r = fuse.reshape %m : tensor<128x256xf32> -> tensor<128x4x64xf32>
  %t = fuse.transpose %r, permutation = [1, 0, 2] : tensor<128x4x64xf32> -> tensor<4x128x64xf32>
  %c = fuse.constant dense<0.125> : tensor<4x128x64xf32>
  %s = fuse.mul %t, %c : tensor<4x128x64xf32>
  return %s : tensor<4x128x64xf32>
}
