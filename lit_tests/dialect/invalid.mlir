// RUN: fuse-opt %s -split-input-file -verify-diagnostics

// One case per distinct verifier message of dialect/FuseOps.cpp, then the ODS
// constraints (types, traits, parents) that reject malformed ops.

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

func.func @dynamic_shape_rejected(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor}}
  %0 = fuse.exp %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @unranked_tensor_rejected(%x: tensor<*xf32>) {
  // expected-error @+1 {{expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = fuse.isnan %x : tensor<*xf32>
  return
}

// -----

func.func @bool_to_numeric_op(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer or 4-bit signless integer or 4-bit unsigned integer or 2-bit signless integer or 2-bit unsigned integer values, but got 'tensor<4xi1>'}}
  %0 = fuse.add %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @int_to_float_op(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = fuse.tanh %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @float_to_integer_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer or 4-bit signless integer or 4-bit unsigned integer or 2-bit signless integer or 2-bit unsigned integer values, but got 'tensor<4xf32>'}}
  %0 = fuse.xor %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Signedness lives in the ui types; the signed si types are not fuse types.
func.func @signed_integer_type_rejected(%x: tensor<4xsi32>) -> tensor<4xsi32> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of}}
  %0 = fuse.neg %x : tensor<4xsi32>
  return %0 : tensor<4xsi32>
}

// -----

func.func @unsupported_element_type(%x: tensor<4xi3>) -> tensor<4xi3> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of}}
  %0 = fuse.abs %x : tensor<4xi3>
  return %0 : tensor<4xi3>
}

// -----

// The f8 and f4 types are for casts and data movement: no arithmetic.
func.func @arithmetic_on_f8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of}}
  %0 = fuse.add %x, %x : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// f8E4M3 (IEEE-like, with infinities) is not an ONNX type.
func.func @f8_type_outside_the_list(%x: tensor<4xf32>) -> tensor<4xf8E4M3> {
  // expected-error @+1 {{result #0 must be static or named-dim tensor of}}
  %0 = fuse.cast %x : tensor<4xf32> to tensor<4xf8E4M3>
  return %0 : tensor<4xf8E4M3>
}

// -----

func.func @unsigned_to_float_op(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<4xui8>'}}
  %0 = fuse.exp %x : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// ui8 and i8 are different types: an elementwise op does not mix them.
func.func @unsigned_and_signless_mixed(%x: tensor<4xui8>, %y: tensor<4xi8>) -> tensor<4xui8> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "fuse.add"(%x, %y) : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @argmax_result_not_i64(%x: tensor<4x8xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{result #0 must be static or named-dim tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = fuse.argmax %x axis = 1 : tensor<4x8xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @select_condition_not_bool(%c: tensor<4xi8>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = fuse.select %c, %x, %x : tensor<4xi8>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_not_a_tensor() {
  // expected-error @+1 {{result #0 must be static or named-dim tensor of}}
  %0 = fuse.constant dense<1.0> : vector<4xf32>
  return
}

// -----

func.func @constant_value_and_result_differ() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "fuse.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

func.func @unary_result_type_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "fuse.neg"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @binary_shapes_differ(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = "fuse.add"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_element_types_differ(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "fuse.add"(%x, %y) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @predicate_result_shape_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = "fuse.isnan"(%x) : (tensor<4xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @compare_operand_types_differ(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %0 = "fuse.compare"(%x, %y) <{predicate = 0 : i64}> : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_unknown_predicate(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate'}}
  %0 = fuse.compare lessthan, %x, %x : tensor<4xf32>
  return
}

// -----

func.func @compare_unsigned_predicate_on_float(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{unsigned predicate 'ult' requires integer operands, but got 'f32'}}
  %0 = fuse.compare ult, %x, %x : tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

func.func @div_unsigned_on_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'is_unsigned' requires integer operands, but got 'f32'}}
  %0 = fuse.div %x, %x {is_unsigned} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rem_unsigned_on_float(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'is_unsigned' requires integer operands, but got 'f64'}}
  %0 = fuse.rem %x, %x {fmod, is_unsigned} : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @select_condition_shape_differs(%c: tensor<3xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = fuse.select %c, %x, %x : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_value_types_differ(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "fuse.select"(%c, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_changes_shape(%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = fuse.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

func.func @cast_unsigned_from_float(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'is_unsigned' requires integer operands, but got 'f32'}}
  %0 = fuse.cast %x {is_unsigned} : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @cast_saturate_to_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'saturate' requires an f8 result, but got 'f16'}}
  %0 = fuse.cast %x {saturate} : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// f4E2M1FN always saturates: the flag is for the f8 types only.
func.func @cast_saturate_to_f4(%x: tensor<4xf32>) -> tensor<4xf4E2M1FN> {
  // expected-error @+1 {{'saturate' requires an f8 result, but got 'f4E2M1FN'}}
  %0 = fuse.cast %x {saturate} : tensor<4xf32> to tensor<4xf4E2M1FN>
  return %0 : tensor<4xf4E2M1FN>
}

// -----

func.func @cast_round_mode_to_e4m3(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'round_mode' requires an f8E8M0FNU result, but got 'f8E4M3FN'}}
  %0 = fuse.cast %x round_mode nearest : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @cast_unknown_round_mode(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'round_mode' [up, down, nearest]}}
  %0 = fuse.cast %x round_mode toward_zero : tensor<4xf32> to tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

func.func @broadcast_element_type_differs(%x: tensor<4xf32>) -> tensor<3x4xf16> {
  // expected-error @+1 {{result element type 'f16' differs from the operand element type 'f32'}}
  %0 = fuse.broadcast %x, dims = [1] : tensor<4xf32> -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

func.func @broadcast_dims_count(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{dims has 2 entries, expected one per operand dimension (1)}}
  %0 = fuse.broadcast %x, dims = [0, 1] : tensor<4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @broadcast_dims_not_increasing(%x: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{dims must be strictly increasing and within [0, 2), but got [1, 0]}}
  %0 = fuse.broadcast %x, dims = [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @broadcast_dim_out_of_range(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{dims must be strictly increasing and within [0, 2), but got [2]}}
  %0 = fuse.broadcast %x, dims = [2] : tensor<4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @broadcast_size_mismatch(%x: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{operand dimension 0 has size 4, expected 1 or 3 (result dimension 1)}}
  %0 = fuse.broadcast %x, dims = [1] : tensor<4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @reshape_element_type_differs(%x: tensor<2x6xf32>) -> tensor<12xi32> {
  // expected-error @+1 {{result element type 'i32' differs from the operand element type 'f32'}}
  %0 = fuse.reshape %x : tensor<2x6xf32> -> tensor<12xi32>
  return %0 : tensor<12xi32>
}

// -----

func.func @reshape_element_count(%x: tensor<2x6xf32>) -> tensor<5x2xf32> {
  // expected-error @+1 {{operand has 12 elements but the result has 10; reshape keeps the number of elements}}
  %0 = fuse.reshape %x : tensor<2x6xf32> -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// 16 x (2^60 + 1) elements wrap an int64 to 16: refused, not counted as 16.
func.func @reshape_element_count_wraps(%x: tensor<16xf32>) -> tensor<1152921504606846977x16xf32> {
  // expected-error @+1 {{the result has more elements than an int64 counts}}
  %0 = fuse.reshape %x : tensor<16xf32> -> tensor<1152921504606846977x16xf32>
  return %0 : tensor<1152921504606846977x16xf32>
}

// -----

func.func @transpose_repeated_dimension(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{permutation [0, 0] is not a permutation of [0, 2)}}
  %0 = fuse.transpose %x, permutation = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @transpose_permutation_length(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{permutation [1, 0, 2] is not a permutation of [0, 2)}}
  %0 = fuse.transpose %x, permutation = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected 'tensor<3x2xf32>'}}
  %0 = fuse.transpose %x, permutation = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_entry_count(%x: tensor<4x6xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{offsets, sizes and strides need one entry per dimension (2), but have 2, 2 and 1}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [2, 2] strides = [1] : tensor<4x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @slice_zero_stride(%x: tensor<4x6xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{stride of dimension 1 is 0, expected at least 1}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [2, 2] strides = [1, 0] : tensor<4x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @slice_negative_offset(%x: tensor<4x6xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{offset and size of dimension 0 must not be negative, but are -1 and 2}}
  %0 = fuse.slice %x offsets = [-1, 0] sizes = [2, 2] strides = [1, 1] : tensor<4x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @slice_reads_past_end(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{slice of dimension 1 (offset 2, size 3, stride 2) reads past its size 6}}
  %0 = fuse.slice %x offsets = [0, 2] sizes = [2, 3] strides = [1, 2] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A huge stride must be reported, not overflow the bounds check.
func.func @slice_huge_stride(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{slice of dimension 1 (offset 0, size 3, stride 9223372036854775807) reads past its size 6}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [2, 3] strides = [1, 9223372036854775807] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_result_type(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected 'tensor<2x2xf32>'}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [2, 2] strides = [1, 1] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concat_no_operand() {
  // expected-error @+1 {{needs at least one operand}}
  %0 = "fuse.concat"() <{axis = 0 : i64}> : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = fuse.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_element_type_differs(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x6xf32> {
  // expected-error @+1 {{operand 1 has type 'tensor<2x3xf16>', expected rank 2 and element type 'f32'}}
  %0 = fuse.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x3xf16> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_other_dimension_differs(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{operand 1 has size 3 in dimension 0, but operand 0 has 2; only dimension 1 (the axis) may differ}}
  %0 = fuse.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_result_type(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{result type 'tensor<2x9xf32>' does not match the expected 'tensor<2x8xf32>'}}
  %0 = fuse.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// Empty operands whose sizes along the axis add up past 2^63: the sum
// wrapped to INT64_MIN (a signed overflow), and the error named the expected
// type 'tensor<0x?xf32>' (issue 19).
func.func @concat_axis_passes_2_to_63(%a: tensor<0x4611686018427387904xf32>) -> tensor<0x1xf32> {
  // expected-error @+1 {{the operands' sizes in dimension 1 (the axis) add up past 2^63}}
  %0 = fuse.concat %a, %a axis = 1 : tensor<0x4611686018427387904xf32>, tensor<0x4611686018427387904xf32> -> tensor<0x1xf32>
  return %0 : tensor<0x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @pool_sum_kind(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{kind sum is not one of max, mean}}
  %0 = fuse.pool sum %x window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @pool_mean_of_integers(%x: tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32> {
  // expected-error @+1 {{a mean pool needs a float operand, got 'i32'}}
  %0 = fuse.pool mean %x window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xi32> -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}

// -----

func.func @pool_window_longer_than_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{window [1, 1] has 2 dimensions, expected 1 to the operand's rank 1}}
  %0 = fuse.pool max %x window = [1, 1] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pool_pads_per_dim(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{strides, dilations and pads need 2, 2 and 4 entries, but have 2, 2 and 2}}
  %0 = fuse.pool max %x window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @pool_zero_stride(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{window dimension 1 has window 2, stride 0 and dilation 1, expected each at least 1}}
  %0 = fuse.pool max %x window = [2, 2] strides = [2, 0] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @pool_negative_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{window dimension 0 has pads -1 and 0, expected at least 0}}
  %0 = fuse.pool max %x window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [-1, 0, 0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @pool_window_too_large(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @+1 {{window dimension 1: a window of 3 with dilation 2 does not fit in the padded size 4}}
  %0 = fuse.pool max %x window = [2, 3] strides = [2, 2] dilations = [1, 2] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

func.func @pool_wrong_result(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{result type 'tensor<1x1x2x2xf32>' does not match the expected 'tensor<1x1x3x3xf32>'}}
  %0 = fuse.pool max %x window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode : tensor<1x1x5x5xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @reduce_dims_not_increasing(%x: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{dims must be strictly increasing and within [0, 2), but got [1, 1]}}
  %0 = fuse.reduce sum %x dims = [1, 1] : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dims must be strictly increasing and within [0, 2), but got [-1]}}
  %0 = fuse.reduce sum %x dims = [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_max_of_empty_dimension(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'max' over dimension 1 of size 0 has no value; max and min need at least one element}}
  %0 = fuse.reduce max %x dims = [1] : tensor<4x0xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_result_without_keep_dims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{result type 'tensor<4x1xf32>' does not match the expected 'tensor<4xf32>'}}
  %0 = fuse.reduce sum %x dims = [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduce_bool_operand(%x: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{operand #0 must be static or named-dim tensor of}}
  %0 = fuse.reduce sum %x dims = [0] : tensor<4xi1> -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = fuse.argmax %x axis = 2 : tensor<4x8xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @argmin_empty_axis(%x: tensor<4x0xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{axis 1 has size 0: no index to return}}
  %0 = fuse.argmin %x axis = 1 : tensor<4x0xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @argmax_result_with_keep_dims(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{result type 'tensor<4xi64>' does not match the expected 'tensor<4x1xi64>'}}
  %0 = fuse.argmax %x axis = 1 keep_dims : tensor<4x8xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

func.func @matmul_rank_1(%a: tensor<4xf32>, %b: tensor<4x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operands must have rank at least 2, but have ranks 1 and 2}}
  %0 = fuse.matmul %a, %b : tensor<4xf32>, tensor<4x2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @matmul_element_types_differ(%a: tensor<2x4xf32>, %b: tensor<4x2xf16>) -> tensor<2x2xf32> {
  // expected-error @+1 {{operand element types differ: 'f32' and 'f16'}}
  %0 = fuse.matmul %a, %b : tensor<2x4xf32>, tensor<4x2xf16> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @matmul_contraction_sizes_differ(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{contraction sizes differ: lhs has K = 2, rhs has K = 4}}
  %0 = fuse.matmul %a, %b transpose_a : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @matmul_batch_dims_differ(%a: tensor<3x2x4xf32>, %b: tensor<5x4x2xf32>) -> tensor<3x2x2xf32> {
  // expected-error @+1 {{batch dimensions [3] and [5] differ; they must be equal, or one operand rank 2}}
  %0 = fuse.matmul %a, %b : tensor<3x2x4xf32>, tensor<5x4x2xf32> -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

func.func @matmul_result_type(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{result type 'tensor<2x3xf16>' does not match the expected 'tensor<2x3xf32>'}}
  %0 = fuse.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

func.func @fusion_argument_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body has 0 arguments, expected one per input (1)}}
  %0 = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    %c = fuse.constant dense<0.0> : tensor<4xf32>
    fuse.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_argument_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{body argument 0 has type 'tensor<4xf16>', but input 0 has type 'tensor<4xf32>'}}
  %0 = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    fuse.yield %a : tensor<4xf16>
  }
  return %0 : tensor<4xf16>
}

// -----

func.func @fusion_without_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body must end with fuse.yield, but ends with 'llvm.unreachable'}}
  %0 = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    llvm.unreachable
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_yield_count(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{body yields 1 values, expected one per result (2)}}
  %0:2 = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield %a : tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @fusion_yield_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{yielded value 0 has type 'tensor<4xf32>', but result 0 has type 'tensor<4xf16>'}}
  %0 = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf16>
}

// -----

func.func @fusion_captures_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fuse.fusion pointwise () : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %e = fuse.exp %x : tensor<4xf32>
    fuse.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects region #0 to have 0 or 1 blocks}}
  %0 = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield %a : tensor<4xf32>
  ^bb1:
    fuse.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_unknown_schedule_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind'}}
  %0 = fuse.fusion tiled (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_fusion(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op 'fuse.fusion'}}
  fuse.yield %x : tensor<4xf32>
}

// -----

func.func @horizontal_holds_an_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{of kind horizontal holds only fuse.fusion members that are not horizontal, not 'fuse.neg'}}
  %r = fuse.fusion horizontal(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = fuse.neg %a : tensor<4xf32>
    fuse.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @horizontal_members_depend(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{of kind horizontal has a member that reads another member's result; members must be independent}}
  %r = fuse.fusion horizontal(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %m = fuse.fusion pointwise(%a) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %n = fuse.neg %b : tensor<4xf32>
      fuse.yield %n : tensor<4xf32>
    }
    %k = fuse.fusion pointwise(%m) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%c: tensor<4xf32>):
      %e = fuse.exp %c : tensor<4xf32>
      fuse.yield %e : tensor<4xf32>
    }
    fuse.yield %k : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @horizontal_without_members(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{of kind horizontal has no members}}
  %r = fuse.fusion horizontal(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
