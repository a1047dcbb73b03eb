// RUN: fuse-opt %s -split-input-file -canonicalize | FileCheck %s

// Folders and canonicalizations of the fuse dialect. Expected values are
// worked out by hand: the folder computes in double and rounds once to the
// element type.

//===----------------------------------------------------------------------===//
// Unary constant folding on splats
//===----------------------------------------------------------------------===//

// e rounded to f32 is 2.71828175 (0x402DF854).
// CHECK-LABEL: func.func @fold_exp_f32
//       CHECK:   %[[C:.*]] = fuse.constant dense<2.71828175> : tensor<4xf32>
//  CHECK-NEXT:   return %[[C]]
func.func @fold_exp_f32() -> tensor<4xf32> {
  %0 = fuse.constant dense<1.0> : tensor<4xf32>
  %1 = fuse.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// e rounded to f16 (step 2^-9 in [2, 4)) is 1392 * 2^-9 = 2.71875.
// CHECK-LABEL: func.func @fold_exp_f16
//       CHECK:   %[[C:.*]] = fuse.constant dense<2.718750e+00> : tensor<2xf16>
//  CHECK-NEXT:   return %[[C]]
func.func @fold_exp_f16() -> tensor<2xf16> {
  %0 = fuse.constant dense<1.0> : tensor<2xf16>
  %1 = fuse.exp %0 : tensor<2xf16>
  return %1 : tensor<2xf16>
}

// -----

// 1/3 in bf16 (8 significant bits) is 1.0101011b * 2^-2 = 0.333984375.
// CHECK-LABEL: func.func @fold_reciprocal_bf16
//       CHECK:   %[[C:.*]] = fuse.constant dense<3.339840e-01> : tensor<3xbf16>
//  CHECK-NEXT:   return %[[C]]
func.func @fold_reciprocal_bf16() -> tensor<3xbf16> {
  %0 = fuse.constant dense<3.0> : tensor<3xbf16>
  %1 = fuse.reciprocal %0 : tensor<3xbf16>
  return %1 : tensor<3xbf16>
}

// -----

// CHECK-LABEL: func.func @fold_sqrt_f64
//       CHECK:   %[[C:.*]] = fuse.constant dense<1.4142135623730951> : tensor<f64>
//  CHECK-NEXT:   return %[[C]]
func.func @fold_sqrt_f64() -> tensor<f64> {
  %0 = fuse.constant dense<2.0> : tensor<f64>
  %1 = fuse.sqrt %0 : tensor<f64>
  return %1 : tensor<f64>
}

// -----

// neg(neg(-2.5)), abs, sign, floor and ceil of -2.5; rsqrt(4) and
// sigmoid(0) are 0.5; log(1) and tanh(0) are 0.
// CHECK-LABEL: func.func @fold_float_unary_values
//   CHECK-DAG:   %[[NEGNEG:.*]] = fuse.constant dense<-2.500000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[ABS:.*]] = fuse.constant dense<2.500000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[SIGN:.*]] = fuse.constant dense<-1.000000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[FLOOR:.*]] = fuse.constant dense<-3.000000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[CEIL:.*]] = fuse.constant dense<-2.000000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[RSQRT:.*]] = fuse.constant dense<5.000000e-01> : tensor<2xf32>
//   CHECK-DAG:   %[[LOG:.*]] = fuse.constant dense<0.000000e+00> : tensor<2xf32>
//       CHECK:   return %[[NEGNEG]], %[[ABS]], %[[SIGN]], %[[FLOOR]], %[[CEIL]], %[[RSQRT]], %[[RSQRT]], %[[LOG]], %[[LOG]]
func.func @fold_float_unary_values() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %x = fuse.constant dense<-2.5> : tensor<2xf32>
  %four = fuse.constant dense<4.0> : tensor<2xf32>
  %zero = fuse.constant dense<0.0> : tensor<2xf32>
  %one = fuse.constant dense<1.0> : tensor<2xf32>
  %neg = fuse.neg %x : tensor<2xf32>
  %neg2 = fuse.neg %neg : tensor<2xf32>
  %abs = fuse.abs %x : tensor<2xf32>
  %sign = fuse.sign %x : tensor<2xf32>
  %floor = fuse.floor %x : tensor<2xf32>
  %ceil = fuse.ceil %x : tensor<2xf32>
  %rsqrt = fuse.rsqrt %four : tensor<2xf32>
  %sigmoid = fuse.sigmoid %zero : tensor<2xf32>
  %log = fuse.log %one : tensor<2xf32>
  %tanh = fuse.tanh %zero : tensor<2xf32>
  return %neg2, %abs, %sign, %floor, %ceil, %rsqrt, %sigmoid, %log, %tanh : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Round is half to even: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -0.5 -> -0.
// CHECK-LABEL: func.func @fold_round_half_to_even
//   CHECK-DAG:   %[[TWO:.*]] = fuse.constant dense<2.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[FOUR:.*]] = fuse.constant dense<4.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[MTWO:.*]] = fuse.constant dense<-2.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[MZERO:.*]] = fuse.constant dense<-0.000000e+00> : tensor<f32>
//       CHECK:   return %[[TWO]], %[[FOUR]], %[[MTWO]], %[[MZERO]]
func.func @fold_round_half_to_even() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = fuse.constant dense<2.5> : tensor<f32>
  %b = fuse.constant dense<3.5> : tensor<f32>
  %c = fuse.constant dense<-2.5> : tensor<f32>
  %d = fuse.constant dense<-0.5> : tensor<f32>
  %0 = fuse.round %a : tensor<f32>
  %1 = fuse.round %b : tensor<f32>
  %2 = fuse.round %c : tensor<f32>
  %3 = fuse.round %d : tensor<f32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Integer neg and abs wrap: both map -128 to itself in i8.
// CHECK-LABEL: func.func @fold_int_unary
//   CHECK-DAG:   %[[NEG:.*]] = fuse.constant dense<-5> : tensor<4xi32>
//   CHECK-DAG:   %[[MIN:.*]] = fuse.constant dense<-128> : tensor<4xi8>
//   CHECK-DAG:   %[[SIGN:.*]] = fuse.constant dense<-1> : tensor<4xi64>
//   CHECK-DAG:   %[[SIGN0:.*]] = fuse.constant dense<0> : tensor<4xi32>
//   CHECK-DAG:   %[[ABS:.*]] = fuse.constant dense<7> : tensor<4xi32>
//       CHECK:   return %[[NEG]], %[[MIN]], %[[MIN]], %[[ABS]], %[[SIGN]], %[[SIGN0]]
func.func @fold_int_unary() -> (tensor<4xi32>, tensor<4xi8>, tensor<4xi8>, tensor<4xi32>, tensor<4xi64>, tensor<4xi32>) {
  %five = fuse.constant dense<5> : tensor<4xi32>
  %min = fuse.constant dense<-128> : tensor<4xi8>
  %m7 = fuse.constant dense<-7> : tensor<4xi32>
  %m7l = fuse.constant dense<-7> : tensor<4xi64>
  %zero = fuse.constant dense<0> : tensor<4xi32>
  %0 = fuse.neg %five : tensor<4xi32>
  %1 = fuse.neg %min : tensor<4xi8>
  %2 = fuse.abs %min : tensor<4xi8>
  %3 = fuse.abs %m7 : tensor<4xi32>
  %4 = fuse.sign %m7l : tensor<4xi64>
  %5 = fuse.sign %zero : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xi8>, tensor<4xi8>, tensor<4xi32>, tensor<4xi64>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @fold_not
//   CHECK-DAG:   %[[F:.*]] = fuse.constant dense<false> : tensor<3xi1>
//   CHECK-DAG:   %[[M1:.*]] = fuse.constant dense<-1> : tensor<3xi8>
//       CHECK:   return %[[F]], %[[M1]]
func.func @fold_not() -> (tensor<3xi1>, tensor<3xi8>) {
  %t = fuse.constant dense<true> : tensor<3xi1>
  %z = fuse.constant dense<0> : tensor<3xi8>
  %0 = fuse.not %t : tensor<3xi1>
  %1 = fuse.not %z : tensor<3xi8>
  return %0, %1 : tensor<3xi1>, tensor<3xi8>
}

// -----

// Folding keeps the NaN of the operand.
// CHECK-LABEL: func.func @fold_sign_of_nan
//       CHECK:   %[[NAN:.*]] = fuse.constant dense<0x7FC00000> : tensor<2xf32>
//  CHECK-NEXT:   return %[[NAN]]
func.func @fold_sign_of_nan() -> tensor<2xf32> {
  %nan = fuse.constant dense<0x7FC00000> : tensor<2xf32>
  %0 = fuse.sign %nan : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Dense constants that are not splats are never folded.
// CHECK-LABEL: func.func @no_fold_dense_unary
//       CHECK:   %[[C:.*]] = fuse.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
//       CHECK:   %[[E:.*]] = fuse.exp %[[C]] : tensor<2xf32>
//       CHECK:   return %[[E]]
func.func @no_fold_dense_unary() -> tensor<2xf32> {
  %0 = fuse.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = fuse.exp %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Binary constant folding on splats
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_float_binary
//   CHECK-DAG:   %[[ADD:.*]] = fuse.constant dense<3.750000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[SUB:.*]] = fuse.constant dense<-7.500000e-01> : tensor<2xf32>
//   CHECK-DAG:   %[[MUL:.*]] = fuse.constant dense<3.375000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[DIV:.*]] = fuse.constant dense<0.666666686> : tensor<2xf32>
//   CHECK-DAG:   %[[POW:.*]] = fuse.constant dense<1.024000e+03> : tensor<2xf32>
//       CHECK:   return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[POW]]
func.func @fold_float_binary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = fuse.constant dense<1.5> : tensor<2xf32>
  %b = fuse.constant dense<2.25> : tensor<2xf32>
  %two = fuse.constant dense<2.0> : tensor<2xf32>
  %ten = fuse.constant dense<10.0> : tensor<2xf32>
  %0 = fuse.add %a, %b : tensor<2xf32>
  %1 = fuse.sub %a, %b : tensor<2xf32>
  %2 = fuse.mul %a, %b : tensor<2xf32>
  %3 = fuse.div %a, %b : tensor<2xf32>
  %4 = fuse.pow %two, %ten : tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// 1/3 rounded to f32 is 0.333333343 (0x3EAAAAAB).
// CHECK-LABEL: func.func @fold_div_rounds_to_f32
//       CHECK:   %[[C:.*]] = fuse.constant dense<0.333333343> : tensor<4xf32>
//  CHECK-NEXT:   return %[[C]]
func.func @fold_div_rounds_to_f32() -> tensor<4xf32> {
  %one = fuse.constant dense<1.0> : tensor<4xf32>
  %three = fuse.constant dense<3.0> : tensor<4xf32>
  %0 = fuse.div %one, %three : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// max and min propagate NaN from either side.
// CHECK-LABEL: func.func @fold_max_min_nan
//   CHECK-DAG:   %[[NAN:.*]] = fuse.constant dense<0x7FC00000> : tensor<2xf32>
//   CHECK-DAG:   %[[TWO:.*]] = fuse.constant dense<2.000000e+00> : tensor<2xf32>
//   CHECK-DAG:   %[[M1:.*]] = fuse.constant dense<-1.000000e+00> : tensor<2xf32>
//       CHECK:   return %[[NAN]], %[[NAN]], %[[NAN]], %[[NAN]], %[[TWO]], %[[M1]]
func.func @fold_max_min_nan() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %nan = fuse.constant dense<0x7FC00000> : tensor<2xf32>
  %one = fuse.constant dense<1.0> : tensor<2xf32>
  %two = fuse.constant dense<2.0> : tensor<2xf32>
  %m1 = fuse.constant dense<-1.0> : tensor<2xf32>
  %0 = fuse.max %nan, %one : tensor<2xf32>
  %1 = fuse.max %one, %nan : tensor<2xf32>
  %2 = fuse.min %nan, %one : tensor<2xf32>
  %3 = fuse.min %one, %nan : tensor<2xf32>
  %4 = fuse.max %m1, %two : tensor<2xf32>
  %5 = fuse.min %two, %m1 : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// The floor-mod takes the divisor's sign (-7 mod 3 = 2, 7 mod -3 = -2,
// -4 mod 2 = +0); fmod the dividend's (-1, 1, -0).
// CHECK-LABEL: func.func @fold_rem_floor_mod_vs_fmod
//   CHECK-DAG:   %[[TWO:.*]] = fuse.constant dense<2.000000e+00> : tensor<f64>
//   CHECK-DAG:   %[[M1:.*]] = fuse.constant dense<-1.000000e+00> : tensor<f64>
//   CHECK-DAG:   %[[M2:.*]] = fuse.constant dense<-2.000000e+00> : tensor<f64>
//   CHECK-DAG:   %[[ONE:.*]] = fuse.constant dense<1.000000e+00> : tensor<f64>
//   CHECK-DAG:   %[[PZERO:.*]] = fuse.constant dense<0.000000e+00> : tensor<f64>
//   CHECK-DAG:   %[[MZERO:.*]] = fuse.constant dense<-0.000000e+00> : tensor<f64>
//       CHECK:   return %[[TWO]], %[[M1]], %[[M2]], %[[ONE]], %[[PZERO]], %[[MZERO]]
func.func @fold_rem_floor_mod_vs_fmod() -> (tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) {
  %m7 = fuse.constant dense<-7.0> : tensor<f64>
  %p7 = fuse.constant dense<7.0> : tensor<f64>
  %p3 = fuse.constant dense<3.0> : tensor<f64>
  %m3 = fuse.constant dense<-3.0> : tensor<f64>
  %m4 = fuse.constant dense<-4.0> : tensor<f64>
  %p2 = fuse.constant dense<2.0> : tensor<f64>
  %0 = fuse.rem %m7, %p3 : tensor<f64>
  %1 = fuse.rem %m7, %p3 {fmod} : tensor<f64>
  %2 = fuse.rem %p7, %m3 : tensor<f64>
  %3 = fuse.rem %p7, %m3 {fmod} : tensor<f64>
  %4 = fuse.rem %m4, %p2 : tensor<f64>
  %5 = fuse.rem %m4, %p2 {fmod} : tensor<f64>
  return %0, %1, %2, %3, %4, %5 : tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>
}

// -----

// Integer arithmetic wraps at the element width.
// CHECK-LABEL: func.func @fold_int_arith_wraps
//   CHECK-DAG:   %[[ADD:.*]] = fuse.constant dense<-2147483648> : tensor<2xi32>
//   CHECK-DAG:   %[[SUB:.*]] = fuse.constant dense<127> : tensor<2xi8>
//   CHECK-DAG:   %[[MUL:.*]] = fuse.constant dense<-12> : tensor<2xi64>
//       CHECK:   return %[[ADD]], %[[SUB]], %[[MUL]]
func.func @fold_int_arith_wraps() -> (tensor<2xi32>, tensor<2xi8>, tensor<2xi64>) {
  %max = fuse.constant dense<2147483647> : tensor<2xi32>
  %one = fuse.constant dense<1> : tensor<2xi32>
  %min8 = fuse.constant dense<-128> : tensor<2xi8>
  %one8 = fuse.constant dense<1> : tensor<2xi8>
  %three = fuse.constant dense<3> : tensor<2xi64>
  %m4 = fuse.constant dense<-4> : tensor<2xi64>
  %0 = fuse.add %max, %one : tensor<2xi32>
  %1 = fuse.sub %min8, %one8 : tensor<2xi8>
  %2 = fuse.mul %three, %m4 : tensor<2xi64>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi8>, tensor<2xi64>
}

// -----

// Integer max and min read signed values.
// CHECK-LABEL: func.func @fold_int_max_min_signed
//   CHECK-DAG:   %[[MAX:.*]] = fuse.constant dense<1> : tensor<2xi8>
//   CHECK-DAG:   %[[MIN:.*]] = fuse.constant dense<-1> : tensor<2xi8>
//       CHECK:   return %[[MAX]], %[[MIN]]
func.func @fold_int_max_min_signed() -> (tensor<2xi8>, tensor<2xi8>) {
  %m1 = fuse.constant dense<-1> : tensor<2xi8>
  %p1 = fuse.constant dense<1> : tensor<2xi8>
  %0 = fuse.max %m1, %p1 : tensor<2xi8>
  %1 = fuse.min %p1, %m1 : tensor<2xi8>
  return %0, %1 : tensor<2xi8>, tensor<2xi8>
}

// -----

// Integer division truncates toward zero, is_unsigned reads -2 (i8) as 254,
// division by zero gives 0 and INT_MIN / -1 wraps to INT_MIN.
// CHECK-LABEL: func.func @fold_int_div
//   CHECK-DAG:   %[[TRUNC:.*]] = fuse.constant dense<-3> : tensor<i32>
//   CHECK-DAG:   %[[UDIV:.*]] = fuse.constant dense<127> : tensor<i8>
//   CHECK-DAG:   %[[ZERO:.*]] = fuse.constant dense<0> : tensor<i32>
//   CHECK-DAG:   %[[MIN:.*]] = fuse.constant dense<-2147483648> : tensor<i32>
//       CHECK:   return %[[TRUNC]], %[[UDIV]], %[[ZERO]], %[[MIN]]
func.func @fold_int_div() -> (tensor<i32>, tensor<i8>, tensor<i32>, tensor<i32>) {
  %m7 = fuse.constant dense<-7> : tensor<i32>
  %two = fuse.constant dense<2> : tensor<i32>
  %m2 = fuse.constant dense<-2> : tensor<i8>
  %two8 = fuse.constant dense<2> : tensor<i8>
  %zero = fuse.constant dense<0> : tensor<i32>
  %min = fuse.constant dense<-2147483648> : tensor<i32>
  %m1 = fuse.constant dense<-1> : tensor<i32>
  %0 = fuse.div %m7, %two : tensor<i32>
  %1 = fuse.div %m2, %two8 {is_unsigned} : tensor<i8>
  %2 = fuse.div %m7, %zero : tensor<i32>
  %3 = fuse.div %min, %m1 : tensor<i32>
  return %0, %1, %2, %3 : tensor<i32>, tensor<i8>, tensor<i32>, tensor<i32>
}

// -----

// -7 mod 3: floor-mod 2, fmod -1; 255 (i8 -1 read unsigned) mod 10 = 5; a
// remainder by zero gives 0.
// CHECK-LABEL: func.func @fold_int_rem
//   CHECK-DAG:   %[[FLOOR:.*]] = fuse.constant dense<2> : tensor<i32>
//   CHECK-DAG:   %[[FMOD:.*]] = fuse.constant dense<-1> : tensor<i32>
//   CHECK-DAG:   %[[UREM:.*]] = fuse.constant dense<5> : tensor<i8>
//   CHECK-DAG:   %[[ZERO:.*]] = fuse.constant dense<0> : tensor<i32>
//       CHECK:   return %[[FLOOR]], %[[FMOD]], %[[UREM]], %[[ZERO]]
func.func @fold_int_rem() -> (tensor<i32>, tensor<i32>, tensor<i8>, tensor<i32>) {
  %m7 = fuse.constant dense<-7> : tensor<i32>
  %three = fuse.constant dense<3> : tensor<i32>
  %m1 = fuse.constant dense<-1> : tensor<i8>
  %ten = fuse.constant dense<10> : tensor<i8>
  %zero = fuse.constant dense<0> : tensor<i32>
  %0 = fuse.rem %m7, %three : tensor<i32>
  %1 = fuse.rem %m7, %three {fmod} : tensor<i32>
  %2 = fuse.rem %m1, %ten {is_unsigned} : tensor<i8>
  %3 = fuse.rem %m7, %zero : tensor<i32>
  return %0, %1, %2, %3 : tensor<i32>, tensor<i32>, tensor<i8>, tensor<i32>
}

// -----

// Integer pow is exact and wraps (2^8 = 0 in i8); a negative exponent gives
// 0, except for the bases 1 and -1.
// CHECK-LABEL: func.func @fold_int_pow
//   CHECK-DAG:   %[[P81:.*]] = fuse.constant dense<81> : tensor<i32>
//   CHECK-DAG:   %[[ZERO8:.*]] = fuse.constant dense<0> : tensor<i8>
//   CHECK-DAG:   %[[ZERO:.*]] = fuse.constant dense<0> : tensor<i32>
//   CHECK-DAG:   %[[M1:.*]] = fuse.constant dense<-1> : tensor<i32>
//   CHECK-DAG:   %[[ONE:.*]] = fuse.constant dense<1> : tensor<i32>
//       CHECK:   return %[[P81]], %[[ZERO8]], %[[ZERO]], %[[M1]], %[[ONE]]
func.func @fold_int_pow() -> (tensor<i32>, tensor<i8>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %three = fuse.constant dense<3> : tensor<i32>
  %four = fuse.constant dense<4> : tensor<i32>
  %two8 = fuse.constant dense<2> : tensor<i8>
  %eight8 = fuse.constant dense<8> : tensor<i8>
  %two = fuse.constant dense<2> : tensor<i32>
  %m1 = fuse.constant dense<-1> : tensor<i32>
  %m2 = fuse.constant dense<-2> : tensor<i32>
  %m3 = fuse.constant dense<-3> : tensor<i32>
  %0 = fuse.pow %three, %four : tensor<i32>
  %1 = fuse.pow %two8, %eight8 : tensor<i8>
  %2 = fuse.pow %two, %m1 : tensor<i32>
  %3 = fuse.pow %m1, %m3 : tensor<i32>
  %4 = fuse.pow %m1, %m2 : tensor<i32>
  return %0, %1, %2, %3, %4 : tensor<i32>, tensor<i8>, tensor<i32>, tensor<i32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @fold_logical
//   CHECK-DAG:   %[[F:.*]] = fuse.constant dense<false> : tensor<2xi1>
//   CHECK-DAG:   %[[T:.*]] = fuse.constant dense<true> : tensor<2xi1>
//   CHECK-DAG:   %[[AND:.*]] = fuse.constant dense<8> : tensor<2xi8>
//   CHECK-DAG:   %[[OR:.*]] = fuse.constant dense<14> : tensor<2xi8>
//   CHECK-DAG:   %[[XOR:.*]] = fuse.constant dense<6> : tensor<2xi8>
//       CHECK:   return %[[F]], %[[T]], %[[F]], %[[AND]], %[[OR]], %[[XOR]]
func.func @fold_logical() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>) {
  %t = fuse.constant dense<true> : tensor<2xi1>
  %f = fuse.constant dense<false> : tensor<2xi1>
  %a = fuse.constant dense<12> : tensor<2xi8>
  %b = fuse.constant dense<10> : tensor<2xi8>
  %0 = fuse.and %t, %f : tensor<2xi1>
  %1 = fuse.or %t, %f : tensor<2xi1>
  %2 = fuse.xor %t, %t : tensor<2xi1>
  %3 = fuse.and %a, %b : tensor<2xi8>
  %4 = fuse.or %a, %b : tensor<2xi8>
  %5 = fuse.xor %a, %b : tensor<2xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>
}

// -----

// CHECK-LABEL: func.func @no_fold_dense_binary
//   CHECK-DAG:   %[[A:.*]] = fuse.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
//   CHECK-DAG:   %[[B:.*]] = fuse.constant dense<3.000000e+00> : tensor<2xf32>
//       CHECK:   %[[R:.*]] = fuse.add %[[A]], %[[B]] : tensor<2xf32>
//       CHECK:   return %[[R]]
func.func @no_fold_dense_binary() -> tensor<2xf32> {
  %a = fuse.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = fuse.constant dense<3.0> : tensor<2xf32>
  %0 = fuse.add %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_zero
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
//  CHECK-NEXT:   return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = fuse.constant dense<0.0> : tensor<4xf32>
  %0 = fuse.add %x, %zero : tensor<4xf32>
  %1 = fuse.add %zero, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero_int
//  CHECK-SAME: (%[[X:.*]]: tensor<4xi64>)
//  CHECK-NEXT:   return %[[X]]
func.func @add_zero_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  %zero = fuse.constant dense<0> : tensor<4xi64>
  %0 = fuse.add %zero, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @sub_zero
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
//  CHECK-NEXT:   return %[[X]]
func.func @sub_zero(%x: tensor<4xf16>) -> tensor<4xf16> {
  %zero = fuse.constant dense<0.0> : tensor<4xf16>
  %0 = fuse.sub %x, %zero : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @mul_one
//  CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>, %[[Y:.*]]: tensor<4xi32>)
//  CHECK-NEXT:   return %[[X]], %[[Y]]
func.func @mul_one(%x: tensor<4xbf16>, %y: tensor<4xi32>) -> (tensor<4xbf16>, tensor<4xi32>) {
  %one = fuse.constant dense<1.0> : tensor<4xbf16>
  %onei = fuse.constant dense<1> : tensor<4xi32>
  %0 = fuse.mul %x, %one : tensor<4xbf16>
  %1 = fuse.mul %onei, %y : tensor<4xi32>
  return %0, %1 : tensor<4xbf16>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @div_one
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf64>, %[[Y:.*]]: tensor<4xi8>)
//  CHECK-NEXT:   return %[[X]], %[[Y]]
func.func @div_one(%x: tensor<4xf64>, %y: tensor<4xi8>) -> (tensor<4xf64>, tensor<4xi8>) {
  %one = fuse.constant dense<1.0> : tensor<4xf64>
  %onei = fuse.constant dense<1> : tensor<4xi8>
  %0 = fuse.div %x, %one : tensor<4xf64>
  %1 = fuse.div %y, %onei {is_unsigned} : tensor<4xi8>
  return %0, %1 : tensor<4xf64>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @no_fold_add_one
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[ONE:.*]] = fuse.constant dense<1.000000e+00> : tensor<4xf32>
//       CHECK:   %[[R:.*]] = fuse.add %[[X]], %[[ONE]] : tensor<4xf32>
//       CHECK:   return %[[R]]
func.func @no_fold_add_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = fuse.constant dense<1.0> : tensor<4xf32>
  %0 = fuse.add %x, %one : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_mul_two
//  CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
//       CHECK:   %[[TWO:.*]] = fuse.constant dense<2> : tensor<4xi32>
//       CHECK:   %[[R:.*]] = fuse.mul %[[X]], %[[TWO]] : tensor<4xi32>
//       CHECK:   return %[[R]]
func.func @no_fold_mul_two(%x: tensor<4xi32>) -> tensor<4xi32> {
  %two = fuse.constant dense<2> : tensor<4xi32>
  %0 = fuse.mul %x, %two : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// 0 - x is a negation, not x; 1 / x is not x.
// CHECK-LABEL: func.func @no_fold_zero_minus_x_one_over_x
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
//   CHECK-DAG:   %[[ZERO:.*]] = fuse.constant dense<0.000000e+00> : tensor<4xf32>
//   CHECK-DAG:   %[[ONE:.*]] = fuse.constant dense<1.000000e+00> : tensor<4xf32>
//       CHECK:   %[[SUB:.*]] = fuse.sub %[[ZERO]], %[[X]] : tensor<4xf32>
//       CHECK:   %[[DIV:.*]] = fuse.div %[[ONE]], %[[X]] : tensor<4xf32>
//       CHECK:   return %[[SUB]], %[[DIV]]
func.func @no_fold_zero_minus_x_one_over_x(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = fuse.constant dense<0.0> : tensor<4xf32>
  %one = fuse.constant dense<1.0> : tensor<4xf32>
  %0 = fuse.sub %zero, %x : tensor<4xf32>
  %1 = fuse.div %one, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @select_splat_condition
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
//  CHECK-NEXT:   return %[[X]], %[[Y]]
func.func @select_splat_condition(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = fuse.constant dense<true> : tensor<4xi1>
  %f = fuse.constant dense<false> : tensor<4xi1>
  %0 = fuse.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>
  %1 = fuse.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_equal_branches
//  CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xi8>)
//  CHECK-NEXT:   return %[[X]]
func.func @select_equal_branches(%c: tensor<4xi1>, %x: tensor<4xi8>) -> tensor<4xi8> {
  %0 = fuse.select %c, %x, %x : tensor<4xi1>, tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @no_fold_select_dense_condition
//  CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[Y:.*]]: tensor<2xf32>)
//       CHECK:   %[[C:.*]] = fuse.constant dense<[true, false]> : tensor<2xi1>
//       CHECK:   %[[R:.*]] = fuse.select %[[C]], %[[X]], %[[Y]] : tensor<2xi1>, tensor<2xf32>
//       CHECK:   return %[[R]]
func.func @no_fold_select_dense_condition(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c = fuse.constant dense<[true, false]> : tensor<2xi1>
  %0 = fuse.select %c, %x, %y : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast_to_same_type
//  CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
//  CHECK-NEXT:   return %[[X]]
func.func @cast_to_same_type(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = fuse.cast %x : tensor<4xi32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// 0.1 in f32 is 0.100000001490116...; widening keeps it exactly. 0.1 in bf16
// is 1.1001101b * 2^-4 = 0.10009765625. 65520 is halfway between the largest
// f16 (65504) and 65536, so it rounds to even: infinity.
// CHECK-LABEL: func.func @cast_float_splat
//   CHECK-DAG:   %[[F64:.*]] = fuse.constant dense<0.10000000149011612> : tensor<2xf64>
//   CHECK-DAG:   %[[BF16:.*]] = fuse.constant dense<1.000980e-01> : tensor<2xbf16>
//   CHECK-DAG:   %[[INF:.*]] = fuse.constant dense<0x7C00> : tensor<2xf16>
//       CHECK:   return %[[F64]], %[[BF16]], %[[INF]]
func.func @cast_float_splat() -> (tensor<2xf64>, tensor<2xbf16>, tensor<2xf16>) {
  %a = fuse.constant dense<0.1> : tensor<2xf32>
  %b = fuse.constant dense<0.1> : tensor<2xf64>
  %c = fuse.constant dense<65520.0> : tensor<2xf32>
  %0 = fuse.cast %a : tensor<2xf32> to tensor<2xf64>
  %1 = fuse.cast %b : tensor<2xf64> to tensor<2xbf16>
  %2 = fuse.cast %c : tensor<2xf32> to tensor<2xf16>
  return %0, %1, %2 : tensor<2xf64>, tensor<2xbf16>, tensor<2xf16>
}

// -----

// Casts into the f8 and f4 types round by their own rules (saturate,
// round_mode, NaN on overflow): not folded. From them into f32 is exact.
// CHECK-LABEL: func.func @no_fold_cast_to_low_precision
//   CHECK-DAG:   %[[C:.*]] = fuse.constant dense<4.640000e+02> : tensor<2xf32>
//   CHECK-DAG:   %[[S:.*]] = fuse.constant dense<5.000000e-01> : tensor<2xf32>
//       CHECK:   %[[A:.*]] = fuse.cast %[[C]] : tensor<2xf32> to tensor<2xf8E4M3FN>
//       CHECK:   %[[B:.*]] = fuse.cast %[[C]] {saturate} : tensor<2xf32> to tensor<2xf8E5M2>
//       CHECK:   %[[Q:.*]] = fuse.cast %[[C]] : tensor<2xf32> to tensor<2xf4E2M1FN>
//       CHECK:   return %[[A]], %[[B]], %[[Q]], %[[S]]
func.func @no_fold_cast_to_low_precision() -> (tensor<2xf8E4M3FN>, tensor<2xf8E5M2>, tensor<2xf4E2M1FN>, tensor<2xf32>) {
  %c = fuse.constant dense<464.0> : tensor<2xf32>
  %h = fuse.constant dense<0.5> : tensor<2xf8E4M3FN>
  %0 = fuse.cast %c : tensor<2xf32> to tensor<2xf8E4M3FN>
  %1 = fuse.cast %c {saturate} : tensor<2xf32> to tensor<2xf8E5M2>
  %2 = fuse.cast %c : tensor<2xf32> to tensor<2xf4E2M1FN>
  %3 = fuse.cast %h : tensor<2xf8E4M3FN> to tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xf8E4M3FN>, tensor<2xf8E5M2>, tensor<2xf4E2M1FN>, tensor<2xf32>
}

// -----

// Rounding up moves 2^-127 (0x00) to 2^-126: a cast of f8E8M0FNU to itself
// is the identity only with round_mode down or nearest.
// CHECK-LABEL: func.func @cast_e8m0_to_itself
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf8E8M0FNU>)
//       CHECK:   %[[UP:.*]] = fuse.cast %[[X]] : tensor<4xf8E8M0FNU> to tensor<4xf8E8M0FNU>
//       CHECK:   return %[[UP]], %[[X]], %[[X]]
func.func @cast_e8m0_to_itself(%x: tensor<4xf8E8M0FNU>) -> (tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>) {
  %0 = fuse.cast %x : tensor<4xf8E8M0FNU> to tensor<4xf8E8M0FNU>
  %1 = fuse.cast %x round_mode down : tensor<4xf8E8M0FNU> to tensor<4xf8E8M0FNU>
  %2 = fuse.cast %x round_mode nearest : tensor<4xf8E8M0FNU> to tensor<4xf8E8M0FNU>
  return %0, %1, %2 : tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>
}

// -----

// i4 and ui2 arithmetic wraps to the width: 7 + 3 = -6 in i4, 3 * 3 = 1 in
// ui2.
// CHECK-LABEL: func.func @narrow_integer_splats_wrap
//   CHECK-DAG:   %[[A:.*]] = fuse.constant dense<-6> : tensor<3xi4>
//   CHECK-DAG:   %[[B:.*]] = fuse.constant dense<1> : tensor<3xui2>
//       CHECK:   return %[[A]], %[[B]]
func.func @narrow_integer_splats_wrap() -> (tensor<3xi4>, tensor<3xui2>) {
  %a = fuse.constant dense<7> : tensor<3xi4>
  %b = fuse.constant dense<3> : tensor<3xi4>
  %c = fuse.constant dense<3> : tensor<3xui2>
  %0 = fuse.add %a, %b : tensor<3xi4>
  %1 = fuse.mul %c, %c : tensor<3xui2>
  return %0, %1 : tensor<3xi4>, tensor<3xui2>
}

// -----

// CHECK-LABEL: func.func @no_fold_cast_changes_type
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[R:.*]] = fuse.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
//       CHECK:   return %[[R]]
func.func @no_fold_cast_changes_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = fuse.cast %x : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_identity
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
//  CHECK-NEXT:   return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fuse.transpose %x, permutation = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_transpose_cancel
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
//  CHECK-NEXT:   return %[[X]]
func.func @transpose_transpose_cancel(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fuse.transpose %x, permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = fuse.transpose %0, permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// [1, 2, 0] twice: result dim i is operand dim p[p[i]], so [2, 0, 1].
// CHECK-LABEL: func.func @transpose_transpose_compose
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
//  CHECK-NEXT:   %[[T:.*]] = fuse.transpose %[[X]], permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
//  CHECK-NEXT:   return %[[T]]
func.func @transpose_transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = fuse.transpose %x, permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = fuse.transpose %0, permutation = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_splat
//       CHECK:   %[[C:.*]] = fuse.constant dense<5> : tensor<3x2xi32>
//  CHECK-NEXT:   return %[[C]]
func.func @transpose_of_splat() -> tensor<3x2xi32> {
  %c = fuse.constant dense<5> : tensor<2x3xi32>
  %0 = fuse.transpose %c, permutation = [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func.func @no_fold_transpose
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
//       CHECK:   %[[T:.*]] = fuse.transpose %[[X]], permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
//       CHECK:   return %[[T]]
func.func @no_fold_transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = fuse.transpose %x, permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_identity
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
//  CHECK-NEXT:   return %[[X]]
func.func @reshape_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fuse.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape_compose
//  CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
//  CHECK-NEXT:   %[[R:.*]] = fuse.reshape %[[X]] : tensor<2x6xf32> -> tensor<12xf32>
//  CHECK-NEXT:   return %[[R]]
func.func @reshape_reshape_compose(%x: tensor<2x6xf32>) -> tensor<12xf32> {
  %0 = fuse.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %1 = fuse.reshape %0 : tensor<3x4xf32> -> tensor<12xf32>
  return %1 : tensor<12xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape_cancel
//  CHECK-SAME: (%[[X:.*]]: tensor<2x6xi1>)
//  CHECK-NEXT:   return %[[X]]
func.func @reshape_reshape_cancel(%x: tensor<2x6xi1>) -> tensor<2x6xi1> {
  %0 = fuse.reshape %x : tensor<2x6xi1> -> tensor<3x4xi1>
  %1 = fuse.reshape %0 : tensor<3x4xi1> -> tensor<2x6xi1>
  return %1 : tensor<2x6xi1>
}

// -----

// CHECK-LABEL: func.func @reshape_of_splat
//       CHECK:   %[[C:.*]] = fuse.constant dense<2.500000e-01> : tensor<6xf16>
//  CHECK-NEXT:   return %[[C]]
func.func @reshape_of_splat() -> tensor<6xf16> {
  %c = fuse.constant dense<0.25> : tensor<2x3xf16>
  %0 = fuse.reshape %c : tensor<2x3xf16> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

// CHECK-LABEL: func.func @no_fold_reshape
//  CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
//       CHECK:   %[[R:.*]] = fuse.reshape %[[X]] : tensor<2x6xf32> -> tensor<3x4xf32>
//       CHECK:   return %[[R]]
func.func @no_fold_reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = fuse.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_splat
//       CHECK:   %[[C:.*]] = fuse.constant dense<1.000000e+00> : tensor<3x4xf32>
//  CHECK-NEXT:   return %[[C]]
func.func @broadcast_of_splat() -> tensor<3x4xf32> {
  %c = fuse.constant dense<1.0> : tensor<4xf32>
  %0 = fuse.broadcast %c, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_identity
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xi64>)
//  CHECK-NEXT:   return %[[X]]
func.func @broadcast_identity(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = fuse.broadcast %x, dims = [0, 1] : tensor<2x3xi64> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func.func @no_fold_broadcast_dense
//       CHECK:   %[[C:.*]] = fuse.constant dense<[1, 2]> : tensor<2xi32>
//       CHECK:   %[[B:.*]] = fuse.broadcast %[[C]], dims = [1] : tensor<2xi32> -> tensor<3x2xi32>
//       CHECK:   return %[[B]]
func.func @no_fold_broadcast_dense() -> tensor<3x2xi32> {
  %c = fuse.constant dense<[1, 2]> : tensor<2xi32>
  %0 = fuse.broadcast %c, dims = [1] : tensor<2xi32> -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// The ui types read unsigned in every fold: 200 (ui8) / 7 = 28 and 200 % 7
// = 4 (read signed, -56 would give -8 and 0); max and min of 40000 (ui16)
// and 1 pick 40000 and 1; 3000000000 (ui32) is not below 1; the largest
// ui64 wins a max; division and remainder by 0 give 0.
// CHECK-LABEL: func.func @fold_unsigned_arith
//   CHECK-DAG:   %[[DIV:.*]] = fuse.constant dense<28> : tensor<ui8>
//   CHECK-DAG:   %[[REM:.*]] = fuse.constant dense<4> : tensor<ui8>
//   CHECK-DAG:   %[[MAX:.*]] = fuse.constant dense<40000> : tensor<ui16>
//   CHECK-DAG:   %[[MIN:.*]] = fuse.constant dense<1> : tensor<ui16>
//   CHECK-DAG:   %[[BIG:.*]] = fuse.constant dense<18446744073709551615> : tensor<ui64>
//   CHECK-DAG:   %[[ZERO:.*]] = fuse.constant dense<0> : tensor<ui32>
//       CHECK:   return %[[DIV]], %[[REM]], %[[MAX]], %[[MIN]], %[[BIG]], %[[ZERO]], %[[ZERO]]
func.func @fold_unsigned_arith() -> (tensor<ui8>, tensor<ui8>, tensor<ui16>,
    tensor<ui16>, tensor<ui64>, tensor<ui32>, tensor<ui32>) {
  %a = fuse.constant dense<200> : tensor<ui8>
  %seven = fuse.constant dense<7> : tensor<ui8>
  %b = fuse.constant dense<40000> : tensor<ui16>
  %one = fuse.constant dense<1> : tensor<ui16>
  %big = fuse.constant dense<18446744073709551615> : tensor<ui64>
  %five = fuse.constant dense<5> : tensor<ui64>
  %c = fuse.constant dense<3000000000> : tensor<ui32>
  %zero = fuse.constant dense<0> : tensor<ui32>
  %0 = fuse.div %a, %seven : tensor<ui8>
  %1 = fuse.rem %a, %seven : tensor<ui8>
  %2 = fuse.max %b, %one : tensor<ui16>
  %3 = fuse.min %one, %b : tensor<ui16>
  %4 = fuse.max %five, %big : tensor<ui64>
  %5 = fuse.div %c, %zero : tensor<ui32>
  %6 = fuse.rem %c, %zero : tensor<ui32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<ui8>, tensor<ui8>, tensor<ui16>,
      tensor<ui16>, tensor<ui64>, tensor<ui32>, tensor<ui32>
}

// -----

// Compares on ui read unsigned under every predicate (3000000000 > 1), on
// i32 the signed predicates read signed (-1 < 1) and the u ones unsigned.
// CHECK-LABEL: func.func @fold_compare
//   CHECK-DAG:   %[[T:.*]] = fuse.constant dense<true> : tensor<2xi1>
//   CHECK-DAG:   %[[F:.*]] = fuse.constant dense<false> : tensor<2xi1>
//       CHECK:   return %[[F]], %[[T]], %[[T]], %[[F]], %[[F]], %[[T]]
func.func @fold_compare() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>,
    tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %big = fuse.constant dense<3000000000> : tensor<2xui32>
  %one = fuse.constant dense<1> : tensor<2xui32>
  %m1 = fuse.constant dense<-1> : tensor<2xi32>
  %p1 = fuse.constant dense<1> : tensor<2xi32>
  %nan = fuse.constant dense<0x7FC00000> : tensor<2xf32>
  %0 = fuse.compare lt, %big, %one : tensor<2xui32>
  %1 = fuse.compare ge, %big, %one : tensor<2xui32>
  %2 = fuse.compare lt, %m1, %p1 : tensor<2xi32>
  %3 = fuse.compare ult, %m1, %p1 : tensor<2xi32>
  %4 = fuse.compare eq, %nan, %nan : tensor<2xf32>
  %5 = fuse.compare ne, %nan, %nan : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>,
      tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// On ui, abs is the identity (folded away even on a non-constant), sign of
// 200 is 1 (not -1), and pow reads its exponent unsigned: 3^200 mod 256 =
// 161 (read signed, the exponent -56 would give 0).
// CHECK-LABEL: func.func @fold_unsigned_unary
//  CHECK-SAME: (%[[X:.*]]: tensor<4xui8>)
//   CHECK-DAG:   %[[SIGN:.*]] = fuse.constant dense<1> : tensor<ui8>
//   CHECK-DAG:   %[[POW:.*]] = fuse.constant dense<161> : tensor<ui8>
//       CHECK:   return %[[X]], %[[SIGN]], %[[POW]]
func.func @fold_unsigned_unary(%x: tensor<4xui8>) -> (tensor<4xui8>,
    tensor<ui8>, tensor<ui8>) {
  %a = fuse.constant dense<200> : tensor<ui8>
  %three = fuse.constant dense<3> : tensor<ui8>
  %0 = fuse.abs %x : tensor<4xui8>
  %1 = fuse.sign %a : tensor<ui8>
  %2 = fuse.pow %three, %a : tensor<ui8>
  return %0, %1, %2 : tensor<4xui8>, tensor<ui8>, tensor<ui8>
}

// -----

// A fusion that yields one value twice and reads one input twice does each
// once: the repeated result is the first's, the repeated argument the
// first's (each result is a stored tensor).
// CHECK-LABEL: func.func @fusion_repeats
// CHECK: %[[F:.*]]:2 = fuse.fusion pointwise(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[S:.*]] = fuse.add %[[A]], %[[A]]
// CHECK-NEXT: %[[T:.*]] = fuse.mul %[[S]], %[[B]]
// CHECK-NEXT: fuse.yield %[[S]], %[[T]]
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#0
func.func @fusion_repeats(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:3 = fuse.fusion pointwise(%x, %y, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>):
    %s = fuse.add %a, %c : tensor<4xf32>
    %t = fuse.mul %s, %b : tensor<4xf32>
    fuse.yield %s, %t, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// x & true and x | false for i1 masks, the constant a splat (as static
// exports give it) or a splat broadcast to a symbolic shape (as dynamic-axes
// exports give it: GPT-2's causal mask And-ed with a broadcast `true`);
// x & false and x & (a mask that is not a splat) stay.
// CHECK-LABEL: func.func @and_true_or_false
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8xi1, #fuse.dims<s>>, %[[Y:.*]]: tensor<4xi1>, %[[M:.*]]: tensor<?x8xi1, #fuse.dims<s>>)
//       CHECK:   %[[F:.*]] = fuse.broadcast %{{.*}} -> tensor<?x8xi1, #fuse.dims<s>>
//       CHECK:   %[[AF:.*]] = fuse.and %[[X]], %[[F]]
//       CHECK:   %[[AM:.*]] = fuse.and %[[X]], %[[M]]
//       CHECK:   return %[[X]], %[[X]], %[[Y]], %[[Y]], %[[X]], %[[AF]], %[[AM]]
func.func @and_true_or_false(%x: tensor<?x8xi1, #fuse.dims<s>>, %y: tensor<4xi1>, %m: tensor<?x8xi1, #fuse.dims<s>>)
    -> (tensor<?x8xi1, #fuse.dims<s>>, tensor<?x8xi1, #fuse.dims<s>>, tensor<4xi1>, tensor<4xi1>,
        tensor<?x8xi1, #fuse.dims<s>>, tensor<?x8xi1, #fuse.dims<s>>, tensor<?x8xi1, #fuse.dims<s>>) {
  %true = fuse.constant dense<true> : tensor<i1>
  %false = fuse.constant dense<false> : tensor<i1>
  %tb = fuse.broadcast %true, dims = [] : tensor<i1> -> tensor<?x8xi1, #fuse.dims<s>>
  %fb = fuse.broadcast %false, dims = [] : tensor<i1> -> tensor<?x8xi1, #fuse.dims<s>>
  %t4 = fuse.constant dense<true> : tensor<4xi1>
  %f4 = fuse.constant dense<false> : tensor<4xi1>
  %0 = fuse.and %tb, %x : tensor<?x8xi1, #fuse.dims<s>>
  %1 = fuse.and %x, %tb : tensor<?x8xi1, #fuse.dims<s>>
  %2 = fuse.and %y, %t4 : tensor<4xi1>
  %3 = fuse.or %f4, %y : tensor<4xi1>
  %4 = fuse.or %x, %fb : tensor<?x8xi1, #fuse.dims<s>>
  %5 = fuse.and %x, %fb : tensor<?x8xi1, #fuse.dims<s>>
  %6 = fuse.and %x, %m : tensor<?x8xi1, #fuse.dims<s>>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x8xi1, #fuse.dims<s>>, tensor<?x8xi1, #fuse.dims<s>>, tensor<4xi1>, tensor<4xi1>,
      tensor<?x8xi1, #fuse.dims<s>>, tensor<?x8xi1, #fuse.dims<s>>, tensor<?x8xi1, #fuse.dims<s>>
}

// -----

// x + 0 and x * 1 where the constant is a splat broadcast to a symbolic
// shape (a dynamic-axes export's bias of zeros); x * 2 stays.
// CHECK-LABEL: func.func @identities_symbolic
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #fuse.dims<s>>)
//       CHECK:   %[[M:.*]] = fuse.mul %[[X]], %{{.*}}
//       CHECK:   return %[[X]], %[[X]], %[[X]], %[[M]]
func.func @identities_symbolic(%x: tensor<?x4xf32, #fuse.dims<s>>)
    -> (tensor<?x4xf32, #fuse.dims<s>>, tensor<?x4xf32, #fuse.dims<s>>, tensor<?x4xf32, #fuse.dims<s>>, tensor<?x4xf32, #fuse.dims<s>>) {
  %c0 = fuse.constant dense<0.0> : tensor<f32>
  %c1 = fuse.constant dense<1.0> : tensor<f32>
  %c2 = fuse.constant dense<2.0> : tensor<f32>
  %z = fuse.broadcast %c0, dims = [] : tensor<f32> -> tensor<?x4xf32, #fuse.dims<s>>
  %o = fuse.broadcast %c1, dims = [] : tensor<f32> -> tensor<?x4xf32, #fuse.dims<s>>
  %t = fuse.broadcast %c2, dims = [] : tensor<f32> -> tensor<?x4xf32, #fuse.dims<s>>
  %0 = fuse.add %z, %x : tensor<?x4xf32, #fuse.dims<s>>
  %1 = fuse.sub %x, %z : tensor<?x4xf32, #fuse.dims<s>>
  %2 = fuse.mul %x, %o : tensor<?x4xf32, #fuse.dims<s>>
  %3 = fuse.mul %x, %t : tensor<?x4xf32, #fuse.dims<s>>
  return %0, %1, %2, %3 : tensor<?x4xf32, #fuse.dims<s>>, tensor<?x4xf32, #fuse.dims<s>>, tensor<?x4xf32, #fuse.dims<s>>, tensor<?x4xf32, #fuse.dims<s>>
}
