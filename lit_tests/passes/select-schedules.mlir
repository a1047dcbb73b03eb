// fuse-select-schedules records how each fusion runs on a target, from the
// one legality rule both code generators build their kernels from: one case
// per schedule, then one per refusal, for the host and the GPU.

// RUN: fuse-opt %s -split-input-file --fuse-select-schedules | FileCheck %s --check-prefix=HOST
// RUN: fuse-opt %s -split-input-file --fuse-select-schedules="target=host vector-width=8" | FileCheck %s --check-prefix=AVX2
// RUN: fuse-opt %s -split-input-file --fuse-select-schedules=target=gpu | FileCheck %s --check-prefix=GPU

// HOST-LABEL: func.func @pointwise
// HOST: fuse.fusion pointwise{{.*}}fuse.schedule = {elements = 1024 : i64, kind = "pointwise", vector_width = 16 : i64}
// AVX2-LABEL: func.func @pointwise
// AVX2: vector_width = 8 : i64
// GPU-LABEL: func.func @pointwise
// GPU: fuse.schedule = {elements = 1024 : i64, kind = "pointwise", vector_width = 4 : i64}
func.func @pointwise(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = fuse.fusion pointwise (%x) : (tensor<32x32xf32>) -> tensor<32x32xf32> {
  ^bb0(%a: tensor<32x32xf32>):
    %e = fuse.exp %a : tensor<32x32xf32>
    fuse.yield %e : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// -----

// HOST-LABEL: func.func @full
// HOST: fuse.schedule = {elements = 4096 : i64, kind = "full_reduction"
// GPU-LABEL: func.func @full
// GPU: fuse.schedule = {elements = 4096 : i64, kind = "full_reduction"
func.func @full(%x: tensor<64x64xf32>) -> tensor<f32> {
  %r = fuse.fusion full_reduction (%x) : (tensor<64x64xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<64x64xf32>):
    %s = fuse.reduce sum %a dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
    fuse.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A softmax-like row kernel whose rows are stored in [4, 6, 1]: the dim of
// size 1 after the reduced one does not break the rows, on either target.
// HOST-LABEL: func.func @rows
// HOST: fuse.schedule = {kind = "row_reduction", row_length = 6 : i64, rows = 4 : i64, vector_width = 16 : i64}
// GPU-LABEL: func.func @rows
// GPU: fuse.schedule = {kind = "row_reduction", row_length = 6 : i64, rows = 4 : i64, vector_width = 4 : i64}
func.func @rows(%x: tensor<4x6x1xf32>) -> tensor<4x6x1xf32> {
  %r = fuse.fusion row_reduction (%x) : (tensor<4x6x1xf32>) -> tensor<4x6x1xf32> {
  ^bb0(%a: tensor<4x6x1xf32>):
    %m = fuse.reduce max %a dims = [1] : tensor<4x6x1xf32> -> tensor<4x1xf32>
    %b = fuse.broadcast %m, dims = [0, 2] : tensor<4x1xf32> -> tensor<4x6x1xf32>
    %d = fuse.sub %a, %b : tensor<4x6x1xf32>
    fuse.yield %d : tensor<4x6x1xf32>
  }
  return %r : tensor<4x6x1xf32>
}

// -----

// HOST-LABEL: func.func @columns
// HOST: fuse.schedule = {inner = 16 : i64, kind = "column_reduction", outer = 1 : i64, reduced = 8 : i64
// GPU-LABEL: func.func @columns
// GPU: fuse.schedule = {inner = 16 : i64, kind = "column_reduction", outer = 1 : i64, reduced = 8 : i64
func.func @columns(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %r = fuse.fusion column_reduction (%x) : (tensor<8x16xf32>) -> tensor<16xf32> {
  ^bb0(%a: tensor<8x16xf32>):
    %s = fuse.reduce sum %a dims = [0] : tensor<8x16xf32> -> tensor<16xf32>
    fuse.yield %s : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// HOST-LABEL: func.func @matmul
// HOST: fuse.schedule = {kind = "matmul", vector_width = 16 : i64}
// GPU-LABEL: func.func @matmul
// GPU: fuse.schedule = {kind = "matmul", vector_width = 4 : i64}
func.func @matmul(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %r = fuse.fusion matmul (%x, %w) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>):
    %m = fuse.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
    fuse.yield %m : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// HOST-LABEL: func.func @window
// HOST: fuse.schedule = {elements = 2048 : i64, kind = "window_reduction", vector_width = 16 : i64, window_positions = 9 : i64}
// GPU-LABEL: func.func @window
// GPU: fuse.schedule = {elements = 2048 : i64, kind = "window_reduction", vector_width = 4 : i64, window_positions = 9 : i64}
func.func @window(%x: tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  %r = fuse.fusion window_reduction (%x) : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  ^bb0(%a: tensor<2x4x16x16xf32>):
    %p = fuse.pool max %a window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
    %e = fuse.exp %p : tensor<2x4x16x16xf32>
    fuse.yield %e : tensor<2x4x16x16xf32>
  }
  return %r : tensor<2x4x16x16xf32>
}
