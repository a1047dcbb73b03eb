// fuse-select-schedules and scatters: a scatter is a kernel of its own (the
// scatter schedule, with constants only); a fusion of another schedule that
// holds one, or a scatter fusion with other ops, is refused at the op.

// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-select-schedules=target=host
// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-select-schedules=target=gpu

// Accepted: a scatter alone.
func.func @scatter_alone(%x: tensor<8x4xf32>, %i: tensor<2xi64>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %r = fuse.fusion scatter (%x, %i, %u) : (tensor<8x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<2xi64>, %c: tensor<2x4xf32>):
    %s = fuse.scatter %a[%b] = %c : tensor<8x4xf32>, tensor<2xi64>, tensor<2x4xf32> -> tensor<8x4xf32>
    fuse.yield %s : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

func.func @scatter_in_pointwise(%x: tensor<8x4xf32>, %i: tensor<2xi64>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %r = fuse.fusion pointwise (%x, %i, %u) : (tensor<8x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<2xi64>, %c: tensor<2x4xf32>):
    // expected-error @+1 {{in a pointwise kernel: a scatter is a kernel of its own (the scatter schedule)}}
    %s = fuse.scatter %a[%b] = %c : tensor<8x4xf32>, tensor<2xi64>, tensor<2x4xf32> -> tensor<8x4xf32>
    fuse.yield %s : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

func.func @scatter_with_exp(%x: tensor<8x4xf32>, %i: tensor<2xi64>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %r = fuse.fusion scatter (%x, %i, %u) : (tensor<8x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<2xi64>, %c: tensor<2x4xf32>):
    %s = fuse.scatter %a[%b] = %c : tensor<8x4xf32>, tensor<2xi64>, tensor<2x4xf32> -> tensor<8x4xf32>
    // expected-error @+1 {{in a scatter kernel: a scatter kernel holds one fuse.scatter and nothing else}}
    %e = fuse.exp %s : tensor<8x4xf32>
    fuse.yield %e : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

func.func @scatter_kind_without_scatter(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{as a scatter kernel: it must compute one fuse.scatter and return it}}
  %r = fuse.fusion scatter (%x) : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    fuse.yield %a : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}
