// RUN: fuse-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fuse.scatter (dialect/FuseOps.cpp).

func.func @scatter_scalar_data(%x: tensor<f32>, %i: tensor<1xi64>, %u: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+1 {{data must have rank >= 1, but is 'tensor<f32>'}}
  %0 = fuse.scatter %x[%i] = %u : tensor<f32>, tensor<1xi64>, tensor<1xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scatter_float_indices(%x: tensor<4x3xf32>, %i: tensor<2xf32>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{indices must be i32 or i64, but are 'f32'}}
  %0 = fuse.scatter %x[%i] = %u : tensor<4x3xf32>, tensor<2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_updates_shape(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{updates must be 'tensor<2x3xf32>' (the indices' shape, then the data's dims after the first), but are 'tensor<2x4xf32>'}}
  %0 = fuse.scatter %x[%i] = %u : tensor<4x3xf32>, tensor<2xi64>, tensor<2x4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_updates_type(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf16>) -> tensor<4x3xf32> {
  // expected-error @+1 {{updates must be 'tensor<2x3xf32>' (the indices' shape, then the data's dims after the first), but are 'tensor<2x3xf16>'}}
  %0 = fuse.scatter %x[%i] = %u : tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf16> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_result_type(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{result type 'tensor<4x4xf32>' does not match the expected 'tensor<4x3xf32>'}}
  %0 = fuse.scatter %x[%i] = %u : tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @scatter_unknown_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'reduction' [none, add, mul, max, min]}}
  %0 = fuse.scatter %x[%i] = %u reduction = sub : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
