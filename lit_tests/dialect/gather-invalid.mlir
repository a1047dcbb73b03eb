// RUN: fuse-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fuse.gather (dialect/FuseOps.cpp).

func.func @gather_axis_out_of_range(%t: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<4x2xf32> {
  // expected-error @+1 {{axis 2 is out of range [0, 2) for data of rank 2}}
  %0 = fuse.gather %t[%i] axis = 2 : tensor<4x3xf32>, tensor<2xi64> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @gather_negative_axis(%t: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<4x2xf32> {
  // expected-error @+1 {{axis -1 is out of range [0, 2) for data of rank 2}}
  %0 = fuse.gather %t[%i] axis = -1 : tensor<4x3xf32>, tensor<2xi64> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @gather_float_indices(%t: tensor<4x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{indices must be i32 or i64, but are 'f32'}}
  %0 = fuse.gather %t[%i] axis = 0 : tensor<4x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_i8_indices(%t: tensor<4x3xf32>, %i: tensor<2xi8>) -> tensor<2x3xf32> {
  // expected-error @+1 {{indices must be i32 or i64, but are 'i8'}}
  %0 = fuse.gather %t[%i] axis = 0 : tensor<4x3xf32>, tensor<2xi8> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_wrong_result_shape(%t: tensor<4x3xf32>, %i: tensor<2x5xi64>) -> tensor<10x3xf32> {
  // expected-error @+1 {{result type 'tensor<10x3xf32>' does not match the expected 'tensor<2x5x3xf32>'}}
  %0 = fuse.gather %t[%i] axis = 0 : tensor<4x3xf32>, tensor<2x5xi64> -> tensor<10x3xf32>
  return %0 : tensor<10x3xf32>
}

// -----

func.func @gather_wrong_result_element_type(%t: tensor<4x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{result type 'tensor<2x3xf16>' does not match the expected 'tensor<2x3xf32>'}}
  %0 = fuse.gather %t[%i] axis = 0 : tensor<4x3xf32>, tensor<2xi32> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
