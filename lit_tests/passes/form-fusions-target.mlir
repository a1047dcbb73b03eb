// Fusion formation asks the target's schedules (fuse-form-fusions target=):
// x - mean(x) over the whole tensor is one kernel on the host (a full
// reduction whose result is used over the domain runs as a row kernel of one
// row) but not on the GPU, whose full reduction returns one value: there the
// mean is one fusion and the subtraction another, instead of a fusion the GPU
// refuses (which code generation used to split into one kernel per op, the
// broadcast alone a kernel). Non-consecutive reduced dims make the same
// difference for a column reduction. Both are checked through fuse-opt (the
// pass); lit_tests/codegen/gpu-target-fusion.mlir compiles @center.

// RUN: fuse-opt %s -split-input-file --fuse-fusion-pipeline | FileCheck %s --check-prefix=HOST
// RUN: fuse-opt %s -split-input-file --fuse-fusion-pipeline=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: not fuse-opt %s --fuse-form-fusions=target=tpu 2>&1 | FileCheck %s --check-prefix=BAD

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
// BAD: fuse-form-fusions: unknown target 'tpu'; expected host or gpu

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
