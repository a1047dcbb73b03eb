// The order of a matmul epilogue (ScheduleLegality's
// matmulMovesBeforeElementwise): the host applies elementwise ops at the
// matmul result's positions and moves them (transposes) only after the last
// elementwise op; the GPU's epilogue follows the moves. A hand-written
// fusion that scales a head split is refused on the host, at the transpose,
// and runs on the GPU; one that scales before the split runs on both.

// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-select-schedules=target=host
// RUN: fuse-opt %s -split-input-file --fuse-select-schedules=target=gpu | FileCheck %s --check-prefix=GPU

// GPU-LABEL: func.func @scale_after_split
// GPU: kind = "matmul"
// GPU-LABEL: func.func @scale_before_split
// GPU: kind = "matmul"
// GPU-LABEL: func.func @slice_of_result
// GPU: kind = "matmul"
func.func @scale_after_split(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<2x8x8xf32> {
  %r = fuse.fusion matmul (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x8xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>):
    %m = fuse.matmul %a, %b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %s = fuse.reshape %m : tensor<8x16xf32> -> tensor<8x2x8xf32>
    // expected-error @below {{'fuse.transpose' op cannot be generated for the host in a matmul kernel: it moves the matmul's result between positions before the last elementwise op (fuse.mul)}}
    %t = fuse.transpose %s, permutation = [1, 0, 2] : tensor<8x2x8xf32> -> tensor<2x8x8xf32>
    %c = fuse.constant dense<0.5> : tensor<2x8x8xf32>
    %q = fuse.mul %t, %c : tensor<2x8x8xf32>
    fuse.yield %q : tensor<2x8x8xf32>
  }
  return %r : tensor<2x8x8xf32>
}

// -----

func.func @scale_before_split(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<2x8x8xf32> {
  %r = fuse.fusion matmul (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x8xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>):
    %m = fuse.matmul %a, %b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %c = fuse.constant dense<0.5> : tensor<8x16xf32>
    %q = fuse.mul %m, %c : tensor<8x16xf32>
    %s = fuse.reshape %q : tensor<8x16xf32> -> tensor<8x2x8xf32>
    %t = fuse.transpose %s, permutation = [1, 0, 2] : tensor<8x2x8xf32> -> tensor<2x8x8xf32>
    fuse.yield %t : tensor<2x8x8xf32>
  }
  return %r : tensor<2x8x8xf32>
}

// -----

func.func @slice_of_result(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x8xf32> {
  %r = fuse.fusion matmul (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x8xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>):
    %m = fuse.matmul %a, %b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    // expected-error @below {{'fuse.slice' op cannot be generated for the host in a matmul kernel: a matmul epilogue is elementwise ops, reshapes and transposes}}
    %s = fuse.slice %m offsets = [0, 0] sizes = [8, 8] strides = [1, 1] : tensor<8x16xf32> -> tensor<8x8xf32>
    fuse.yield %s : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
