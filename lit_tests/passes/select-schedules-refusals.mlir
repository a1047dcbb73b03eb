// fuse-select-schedules refuses a fusion its target cannot run, at the op
// that prevents it, naming the target and the schedule. A column reduction
// whose reduced dims interleave with kept ones (@split_columns) runs on the
// host (runs of dims) but not on the GPU; @leading_columns runs on both.

// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-select-schedules=target=gpu
// RUN: not fuse-opt %s -split-input-file --fuse-select-schedules=target=host 2>/dev/null | FileCheck %s --check-prefix=HOST
// RUN: not fuse-opt %s --fuse-select-schedules=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not fuse-opt %s --fuse-select-schedules=vector-width=12 2>&1 | FileCheck %s --check-prefix=WIDTH

// TARGET: error: fuse-select-schedules: unknown target 'tpu'; expected host or gpu
// WIDTH: error: fuse-select-schedules: vector-width must be a power of two, not 12

// HOST-LABEL: func.func @leading_columns
// HOST: fuse.schedule = {inner = 128 : i64, kind = "column_reduction", outer = 1 : i64, reduced = 4 : i64
// HOST-LABEL: func.func @split_columns
// HOST: fuse.schedule = {inner = 1 : i64, kind = "column_reduction", outer = 8 : i64, reduced = 64 : i64
func.func @leading_columns(%x: tensor<4x8x16xf32>) -> tensor<8x16xf32> {
  %r = fuse.fusion column_reduction (%x) : (tensor<4x8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<4x8x16xf32>):
    %s = fuse.reduce sum %a dims = [0] : tensor<4x8x16xf32> -> tensor<8x16xf32>
    fuse.yield %s : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// -----

func.func @split_columns(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %r = fuse.fusion column_reduction (%x) : (tensor<4x8x16xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4x8x16xf32>):
    // expected-error @below {{'fuse.reduce' op cannot be generated for the GPU in a column_reduction kernel: its reduced dims are not consecutive}}
    %s = fuse.reduce sum %a dims = [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
    fuse.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @not_trailing(%x: tensor<6x4xf32>) -> tensor<4xf32> {
  %r = fuse.fusion row_reduction (%x) : (tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<6x4xf32>):
    // expected-error @below {{'fuse.reduce' op cannot be generated for the GPU in a row_reduction kernel: it does not reduce the trailing dims}}
    %s = fuse.reduce sum %a dims = [0] : tensor<6x4xf32> -> tensor<4xf32>
    fuse.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @rows_differ(%x: tensor<4x6xf32>, %y: tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6xf32>) {
  %r:2 = fuse.fusion row_reduction (%x, %y) : (tensor<4x6xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6xf32>) {
  ^bb0(%a: tensor<4x6xf32>, %b: tensor<6x4xf32>):
    %s = fuse.reduce sum %a dims = [1] : tensor<4x6xf32> -> tensor<4xf32>
    // expected-error @below {{'fuse.reduce' op cannot be generated for the GPU in a row_reduction kernel: its rows differ from another reduction's}}
    %t = fuse.reduce sum %b dims = [1] : tensor<6x4xf32> -> tensor<6xf32>
    fuse.yield %s, %t : tensor<4xf32>, tensor<6xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<6xf32>
}

// -----

func.func @row_read_elsewhere(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = fuse.fusion row_reduction (%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = fuse.reduce max %a dims = [1] : tensor<4x4xf32> -> tensor<4xf32>
    // expected-error @below {{'fuse.broadcast' op cannot be generated for the GPU in a row_reduction kernel: it reads a row's reduction other than at its own row}}
    %b = fuse.broadcast %m, dims = [1] : tensor<4xf32> -> tensor<4x4xf32>
    %d = fuse.sub %a, %b : tensor<4x4xf32>
    fuse.yield %d : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @row_result_shape(%x: tensor<4x6xf32>, %z: tensor<5xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  // expected-error @below {{'fuse.fusion' op cannot be generated for the GPU as a row_reduction kernel: result 1 has 5 elements, neither 4 rows nor 24 elements}}
  %r:2 = fuse.fusion row_reduction (%x, %z) : (tensor<4x6xf32>, tensor<5xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  ^bb0(%a: tensor<4x6xf32>, %c: tensor<5xf32>):
    %s = fuse.reduce sum %a dims = [1] : tensor<4x6xf32> -> tensor<4xf32>
    %e = fuse.exp %c : tensor<5xf32>
    fuse.yield %s, %e : tensor<4xf32>, tensor<5xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<5xf32>
}

// -----

func.func @no_reduce(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @below {{'fuse.fusion' op cannot be generated for the GPU as a column_reduction kernel: it has no fuse.reduce}}
  %r = fuse.fusion column_reduction (%x) : (tensor<4x6xf32>) -> tensor<4x6xf32> {
  ^bb0(%a: tensor<4x6xf32>):
    %e = fuse.exp %a : tensor<4x6xf32>
    fuse.yield %e : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}

// -----

// A variance of the whole tensor: the host runs it as a row kernel of one
// row; the GPU's full_reduction schedule refuses it.
// HOST-LABEL: func.func @variance
// HOST: fuse.schedule = {kind = "row_reduction", row_length = 64 : i64, rows = 1 : i64
func.func @variance(%x: tensor<8x8xf32>) -> tensor<f32> {
  %r = fuse.fusion full_reduction (%x) : (tensor<8x8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<8x8xf32>):
    %m = fuse.reduce mean %a dims = [0, 1] : tensor<8x8xf32> -> tensor<f32>
    // expected-error @below {{'fuse.broadcast' op cannot be generated for the GPU in a full_reduction kernel: it uses a reduction's result over 64 elements (reduce-then-broadcast is a row kernel)}}
    %b = fuse.broadcast %m, dims = [] : tensor<f32> -> tensor<8x8xf32>
    %d = fuse.sub %a, %b : tensor<8x8xf32>
    %s = fuse.mul %d, %d : tensor<8x8xf32>
    %v = fuse.reduce mean %s dims = [0, 1] : tensor<8x8xf32> -> tensor<f32>
    fuse.yield %v : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @partial_reduce(%x: tensor<8x8xf32>) -> tensor<8xf32> {
  %r = fuse.fusion full_reduction (%x) : (tensor<8x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8x8xf32>):
    // expected-error @below {{'fuse.reduce' op cannot be generated for the GPU in a full_reduction kernel: it does not reduce every element}}
    %s = fuse.reduce sum %a dims = [1] : tensor<8x8xf32> -> tensor<8xf32>
    fuse.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @window_of_computed_operand(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %r = fuse.fusion window_reduction (%x) : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  ^bb0(%a: tensor<1x1x8x8xf32>):
    %e = fuse.exp %a : tensor<1x1x8x8xf32>
    // expected-error @+1 {{'fuse.pool' op cannot be generated for the GPU in a window_reduction kernel: its operand is computed in the kernel (it is read from memory at each window position)}}
    %p = fuse.pool max %e window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
    fuse.yield %p : tensor<1x1x4x4xf32>
  }
  return %r : tensor<1x1x4x4xf32>
}

// -----

func.func @window_too_large(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x1x1xf32> {
  %r = fuse.fusion window_reduction (%x) : (tensor<1x1x32x32xf32>) -> tensor<1x1x1x1xf32> {
  ^bb0(%a: tensor<1x1x32x32xf32>):
    // expected-error @+1 {{'fuse.pool' op cannot be generated for the GPU in a window_reduction kernel: its window has more than 256 positions}}
    %p = fuse.pool mean %a window = [32, 32] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x32x32xf32> -> tensor<1x1x1x1xf32>
    fuse.yield %p : tensor<1x1x1x1xf32>
  }
  return %r : tensor<1x1x1x1xf32>
}

// -----

func.func @window_with_reduction(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4xf32> {
  %r = fuse.fusion window_reduction (%x) : (tensor<1x1x8x8xf32>) -> tensor<1x1x4xf32> {
  ^bb0(%a: tensor<1x1x8x8xf32>):
    %p = fuse.pool max %a window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
    // expected-error @+1 {{'fuse.reduce' op cannot be generated for the GPU in a window_reduction kernel: a window reduction joins only pointwise ops}}
    %s = fuse.reduce sum %p dims = [3] : tensor<1x1x4x4xf32> -> tensor<1x1x4xf32>
    fuse.yield %s : tensor<1x1x4xf32>
  }
  return %r : tensor<1x1x4xf32>
}
