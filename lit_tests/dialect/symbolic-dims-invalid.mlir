// RUN: fuse-opt %s -split-input-file -verify-diagnostics

// A `?` without a #fuse.dims name is no fuse tensor.
func.func @unnamed(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor}}
  %0 = fuse.tanh %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// One name per `?`.
func.func @count(%x: tensor<?x?xf32, #fuse.dims<sequence>>) -> tensor<?x?xf32, #fuse.dims<sequence>> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor}}
  %0 = fuse.tanh %x : tensor<?x?xf32, #fuse.dims<sequence>>
  return %0 : tensor<?x?xf32, #fuse.dims<sequence>>
}

// -----

// A constant is a static dim, never a name.
func.func @constant(%x: tensor<?xf32, #fuse.dims<4>>) -> tensor<?xf32, #fuse.dims<4>> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor}}
  %0 = fuse.tanh %x : tensor<?xf32, #fuse.dims<4>>
  return %0 : tensor<?xf32, #fuse.dims<4>>
}

// -----

// Different names are different dims.
func.func @mismatch(%x: tensor<?xf32, #fuse.dims<batch>>, %y: tensor<?xf32, #fuse.dims<sequence>>) -> tensor<?xf32, #fuse.dims<batch>> {
  // expected-error @+1 {{requires the same encoding for all operands and results}}
  %0 = "fuse.add"(%x, %y) : (tensor<?xf32, #fuse.dims<batch>>, tensor<?xf32, #fuse.dims<sequence>>) -> tensor<?xf32, #fuse.dims<batch>>
  return %0 : tensor<?xf32, #fuse.dims<batch>>
}

// -----

func.func @reshape(%x: tensor<?x4xf32, #fuse.dims<sequence>>) -> tensor<?xf32, #fuse.dims<sequence*2>> {
  // expected-error @+1 {{operand has sequence*4 elements but the result has sequence*2; reshape keeps the number of elements}}
  %0 = fuse.reshape %x : tensor<?x4xf32, #fuse.dims<sequence>> -> tensor<?xf32, #fuse.dims<sequence*2>>
  return %0 : tensor<?xf32, #fuse.dims<sequence*2>>
}

// -----

func.func @broadcast(%x: tensor<?xf32, #fuse.dims<batch>>) -> tensor<3x?xf32, #fuse.dims<sequence>> {
  // expected-error @+1 {{operand dimension 0 has size batch, expected 1 or sequence (result dimension 1)}}
  %0 = fuse.broadcast %x, dims = [1] : tensor<?xf32, #fuse.dims<batch>> -> tensor<3x?xf32, #fuse.dims<sequence>>
  return %0 : tensor<3x?xf32, #fuse.dims<sequence>>
}

// -----

func.func @matmul(%x: tensor<?x?xf32, #fuse.dims<batch, sequence>>, %w: tensor<64x8xf32>) -> tensor<?x8xf32, #fuse.dims<batch>> {
  // expected-error @+1 {{contraction sizes differ: lhs has K = sequence, rhs has K = 64}}
  %0 = fuse.matmul %x, %w : tensor<?x?xf32, #fuse.dims<batch, sequence>>, tensor<64x8xf32> -> tensor<?x8xf32, #fuse.dims<batch>>
  return %0 : tensor<?x8xf32, #fuse.dims<batch>>
}

// -----

func.func @concat(%x: tensor<?xf32, #fuse.dims<sequence>>) -> tensor<?xf32, #fuse.dims<sequence*2 + 1>> {
  // expected-error @+1 {{result type 'tensor<?xf32, #fuse.dims<sequence*2 + 1>>' does not match the expected 'tensor<?xf32, #fuse.dims<sequence*2>>'}}
  %0 = fuse.concat %x, %x axis = 0 : tensor<?xf32, #fuse.dims<sequence>>, tensor<?xf32, #fuse.dims<sequence>> -> tensor<?xf32, #fuse.dims<sequence*2 + 1>>
  return %0 : tensor<?xf32, #fuse.dims<sequence*2 + 1>>
}

// -----

// A part of a symbolic dim must fit for every value of the dims.
func.func @slice(%x: tensor<?x8xf32, #fuse.dims<sequence>>) -> tensor<2x8xf32> {
  // expected-error @+1 {{dimension 0 is symbolic (sequence): a slice takes it whole, or with stride 1 a part that fits for every value of the dims; offset 0, size 2 and stride 1 do not}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [2, 8] strides = [1, 1] : tensor<?x8xf32, #fuse.dims<sequence>> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_size(%x: tensor<?x8xf32, #fuse.dims<sequence>>) -> tensor<?x8xf32, #fuse.dims<sequence>> {
  // expected-error @+1 {{offset and size of dimension 1 must not be negative, but are 0 and -1 (a size of -1 names the result's symbolic dim, but it is static)}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [-1, -1] strides = [1, 1] : tensor<?x8xf32, #fuse.dims<sequence>> -> tensor<?x8xf32, #fuse.dims<sequence>>
  return %0 : tensor<?x8xf32, #fuse.dims<sequence>>
}

// -----

// Pool, im2col, conv and scatter need static dims.
func.func @pool(%x: tensor<1x1x?xf32, #fuse.dims<sequence>>) -> tensor<1x1x?xf32, #fuse.dims<sequence>> {
  // expected-error @+1 {{needs static dims, but dim 2 (sequence) of tensor<1x1x?xf32, #fuse.dims<sequence>> is symbolic}}
  %0 = fuse.pool max %x window = [1] strides = [1] dilations = [1] pads = [0, 0] : tensor<1x1x?xf32, #fuse.dims<sequence>> -> tensor<1x1x?xf32, #fuse.dims<sequence>>
  return %0 : tensor<1x1x?xf32, #fuse.dims<sequence>>
}

// -----

func.func @iota() -> tensor<?xi64, #fuse.dims<sequence>> {
  // expected-error @+1 {{axis 1 is out of range [0, 1) for a result of rank 1}}
  %0 = fuse.iota axis = 1 : tensor<?xi64, #fuse.dims<sequence>>
  return %0 : tensor<?xi64, #fuse.dims<sequence>>
}

// -----

func.func @iota_negative_axis() -> tensor<?xi64, #fuse.dims<sequence>> {
  // expected-error @+1 {{axis -1 is out of range [0, 1) for a result of rank 1}}
  %0 = fuse.iota axis = -1 : tensor<?xi64, #fuse.dims<sequence>>
  return %0 : tensor<?xi64, #fuse.dims<sequence>>
}

// -----

func.func @dim_value() -> tensor<i64> {
  // expected-error @+1 {{dim names 2 dims, expected one}}
  %0 = fuse.dim_value {dim = #fuse.dims<batch, sequence>} : tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @dim_value_negative() -> tensor<i64> {
  // expected-error @+1 {{dim is -2, expected a size (>= 0) or a symbolic dim}}
  %0 = fuse.dim_value {dim = #fuse.dims<-2>} : tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @syntax() -> tensor<i64> {
  // expected-error @+1 {{expected a dim symbol or an integer}}
  %0 = fuse.dim_value {dim = #fuse.dims<batch + >} : tensor<i64>
  return %0 : tensor<i64>
}

// -----

// An entry with no positive coefficient is below zero for every size of its
// symbols (but 0): no dim.
func.func @never_a_size(%x: tensor<?xf32, #fuse.dims<-sequence - 1>>) -> tensor<?xf32, #fuse.dims<-sequence - 1>> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor}}
  %0 = fuse.tanh %x : tensor<?xf32, #fuse.dims<-sequence - 1>>
  return %0 : tensor<?xf32, #fuse.dims<-sequence - 1>>
}

// -----

func.func @dim_value_never_a_size() -> tensor<i64> {
  // expected-error @+1 {{dim is -sequence-1, expected a size (>= 0) or a symbolic dim}}
  %0 = fuse.dim_value {dim = #fuse.dims<-sequence - 1>} : tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Dims that can be sizes may add up to a negative constant.
func.func @concat_negative(%x: tensor<?xf32, #fuse.dims<sequence - 2>>, %y: tensor<?xf32, #fuse.dims<-sequence + 1>>) -> tensor<1xf32> {
  // expected-error @+1 {{the operands' sizes in dimension 0 (the axis) add up to -1, expected a size (>= 0) or a symbolic dim}}
  %0 = fuse.concat %x, %y axis = 0 : tensor<?xf32, #fuse.dims<sequence - 2>>, tensor<?xf32, #fuse.dims<-sequence + 1>> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// MLIR's Elementwise takes a `?` for any size: the named dims must match.
func.func @cast_dims(%x: tensor<?xf32, #fuse.dims<a>>) -> tensor<?xi32, #fuse.dims<b>> {
  // expected-error @+1 {{result #0 has type 'tensor<?xi32, #fuse.dims<b>>', whose dims differ from those of 'tensor<?xf32, #fuse.dims<a>>'; an elementwise op's operands and results have one shape}}
  %0 = fuse.cast %x : tensor<?xf32, #fuse.dims<a>> to tensor<?xi32, #fuse.dims<b>>
  return %0 : tensor<?xi32, #fuse.dims<b>>
}

// -----

func.func @cast_static(%x: tensor<?xf32, #fuse.dims<a>>) -> tensor<4xi32> {
  // expected-error @+1 {{result #0 has type 'tensor<4xi32>', whose dims differ from those of 'tensor<?xf32, #fuse.dims<a>>'}}
  %0 = fuse.cast %x : tensor<?xf32, #fuse.dims<a>> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @select_condition(%c: tensor<?xi1, #fuse.dims<b>>, %x: tensor<?xf32, #fuse.dims<a>>) -> tensor<?xf32, #fuse.dims<a>> {
  // expected-error @+1 {{operand #1 has type 'tensor<?xf32, #fuse.dims<a>>', whose dims differ from those of 'tensor<?xi1, #fuse.dims<b>>'}}
  %0 = fuse.select %c, %x, %x : tensor<?xi1, #fuse.dims<b>>, tensor<?xf32, #fuse.dims<a>>
  return %0 : tensor<?xf32, #fuse.dims<a>>
}

// -----

func.func @isnan_result(%x: tensor<?xf32, #fuse.dims<a>>) -> tensor<?xi1, #fuse.dims<b>> {
  // expected-error @+1 {{result #0 has type 'tensor<?xi1, #fuse.dims<b>>', whose dims differ from those of 'tensor<?xf32, #fuse.dims<a>>'}}
  %0 = "fuse.isnan"(%x) : (tensor<?xf32, #fuse.dims<a>>) -> tensor<?xi1, #fuse.dims<b>>
  return %0 : tensor<?xi1, #fuse.dims<b>>
}
