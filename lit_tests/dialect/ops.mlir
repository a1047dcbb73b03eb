// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// RUN: fuse-opt %s --mlir-print-op-generic | fuse-opt | FileCheck %s

// Round trip of every op of the fuse dialect, in the custom form and through
// the generic form. Element types f32, f16, bf16, f64, i1, i8, i16, i32, i64,
// ui8, ui16, ui32 and ui64, the f8 and f4 types, i4, ui4, i2 and ui2, rank-0
// tensors and zero-sized dimensions all appear somewhere.

// Every float-only unary op, chained so that each operand is checked.
// CHECK-LABEL: func.func @unary_float_ops
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
//       CHECK:   %[[EXP:.*]] = fuse.exp %[[X]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[LOG:.*]] = fuse.log %[[EXP]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[SQRT:.*]] = fuse.sqrt %[[LOG]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[RSQRT:.*]] = fuse.rsqrt %[[SQRT]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[RECIPROCAL:.*]] = fuse.reciprocal %[[RSQRT]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[TANH:.*]] = fuse.tanh %[[RECIPROCAL]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[SIGMOID:.*]] = fuse.sigmoid %[[TANH]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ERF:.*]] = fuse.erf %[[SIGMOID]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[SIN:.*]] = fuse.sin %[[ERF]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[COS:.*]] = fuse.cos %[[SIN]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[TAN:.*]] = fuse.tan %[[COS]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ASIN:.*]] = fuse.asin %[[TAN]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ACOS:.*]] = fuse.acos %[[ASIN]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ATAN:.*]] = fuse.atan %[[ACOS]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[SINH:.*]] = fuse.sinh %[[ATAN]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[COSH:.*]] = fuse.cosh %[[SINH]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ASINH:.*]] = fuse.asinh %[[COSH]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ACOSH:.*]] = fuse.acosh %[[ASINH]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ATANH:.*]] = fuse.atanh %[[ACOSH]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[FLOOR:.*]] = fuse.floor %[[ATANH]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[CEIL:.*]] = fuse.ceil %[[FLOOR]] : tensor<2x3xf32>
//  CHECK-NEXT:   %[[ROUND:.*]] = fuse.round %[[CEIL]] : tensor<2x3xf32>
//  CHECK-NEXT:   return %[[ROUND]]
func.func @unary_float_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %exp = fuse.exp %x : tensor<2x3xf32>
  %log = fuse.log %exp : tensor<2x3xf32>
  %sqrt = fuse.sqrt %log : tensor<2x3xf32>
  %rsqrt = fuse.rsqrt %sqrt : tensor<2x3xf32>
  %reciprocal = fuse.reciprocal %rsqrt : tensor<2x3xf32>
  %tanh = fuse.tanh %reciprocal : tensor<2x3xf32>
  %sigmoid = fuse.sigmoid %tanh : tensor<2x3xf32>
  %erf = fuse.erf %sigmoid : tensor<2x3xf32>
  %sin = fuse.sin %erf : tensor<2x3xf32>
  %cos = fuse.cos %sin : tensor<2x3xf32>
  %tan = fuse.tan %cos : tensor<2x3xf32>
  %asin = fuse.asin %tan : tensor<2x3xf32>
  %acos = fuse.acos %asin : tensor<2x3xf32>
  %atan = fuse.atan %acos : tensor<2x3xf32>
  %sinh = fuse.sinh %atan : tensor<2x3xf32>
  %cosh = fuse.cosh %sinh : tensor<2x3xf32>
  %asinh = fuse.asinh %cosh : tensor<2x3xf32>
  %acosh = fuse.acosh %asinh : tensor<2x3xf32>
  %atanh = fuse.atanh %acosh : tensor<2x3xf32>
  %floor = fuse.floor %atanh : tensor<2x3xf32>
  %ceil = fuse.ceil %floor : tensor<2x3xf32>
  %round = fuse.round %ceil : tensor<2x3xf32>
  return %round : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_float_types
//  CHECK-SAME: (%[[A:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xbf16>, %[[C:.*]]: tensor<4xf64>)
//       CHECK:   fuse.exp %[[A]] : tensor<4xf16>
//       CHECK:   fuse.tanh %[[B]] : tensor<4xbf16>
//       CHECK:   fuse.sqrt %[[C]] : tensor<4xf64>
func.func @unary_float_types(%a: tensor<4xf16>, %b: tensor<4xbf16>, %c: tensor<4xf64>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>) {
  %0 = fuse.exp %a : tensor<4xf16>
  %1 = fuse.tanh %b : tensor<4xbf16>
  %2 = fuse.sqrt %c : tensor<4xf64>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>
}

// CHECK-LABEL: func.func @unary_numeric_ops
//  CHECK-SAME: (%[[F:.*]]: tensor<3xf32>, %[[I8:.*]]: tensor<3xi8>, %[[I32:.*]]: tensor<3xi32>, %[[I64:.*]]: tensor<3xi64>)
//       CHECK:   fuse.neg %[[F]] : tensor<3xf32>
//       CHECK:   fuse.neg %[[I32]] : tensor<3xi32>
//       CHECK:   fuse.abs %[[I8]] : tensor<3xi8>
//       CHECK:   fuse.abs %[[F]] : tensor<3xf32>
//       CHECK:   fuse.sign %[[I64]] : tensor<3xi64>
//       CHECK:   fuse.sign %[[F]] : tensor<3xf32>
func.func @unary_numeric_ops(%f: tensor<3xf32>, %i8: tensor<3xi8>, %i32: tensor<3xi32>, %i64: tensor<3xi64>)
    -> (tensor<3xf32>, tensor<3xi32>, tensor<3xi8>, tensor<3xf32>, tensor<3xi64>, tensor<3xf32>) {
  %0 = fuse.neg %f : tensor<3xf32>
  %1 = fuse.neg %i32 : tensor<3xi32>
  %2 = fuse.abs %i8 : tensor<3xi8>
  %3 = fuse.abs %f : tensor<3xf32>
  %4 = fuse.sign %i64 : tensor<3xi64>
  %5 = fuse.sign %f : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<3xi32>, tensor<3xi8>, tensor<3xf32>, tensor<3xi64>, tensor<3xf32>
}

// CHECK-LABEL: func.func @not_on_bool_and_int
//  CHECK-SAME: (%[[B:.*]]: tensor<2x2xi1>, %[[I:.*]]: tensor<2x2xi64>)
//       CHECK:   fuse.not %[[B]] : tensor<2x2xi1>
//       CHECK:   fuse.not %[[I]] : tensor<2x2xi64>
func.func @not_on_bool_and_int(%b: tensor<2x2xi1>, %i: tensor<2x2xi64>) -> (tensor<2x2xi1>, tensor<2x2xi64>) {
  %0 = fuse.not %b : tensor<2x2xi1>
  %1 = fuse.not %i : tensor<2x2xi64>
  return %0, %1 : tensor<2x2xi1>, tensor<2x2xi64>
}

// The result type (i1, the operand's shape) is inferred.
// CHECK-LABEL: func.func @float_predicates
//  CHECK-SAME: (%[[A:.*]]: tensor<5xf16>, %[[B:.*]]: tensor<2x0xbf16>)
//       CHECK:   %[[INF:.*]] = fuse.isinf %[[A]] : tensor<5xf16>
//       CHECK:   %[[NAN:.*]] = fuse.isnan %[[B]] : tensor<2x0xbf16>
//       CHECK:   return %[[INF]], %[[NAN]] : tensor<5xi1>, tensor<2x0xi1>
func.func @float_predicates(%a: tensor<5xf16>, %b: tensor<2x0xbf16>) -> (tensor<5xi1>, tensor<2x0xi1>) {
  %0 = fuse.isinf %a : tensor<5xf16>
  %1 = fuse.isnan %b : tensor<2x0xbf16>
  return %0, %1 : tensor<5xi1>, tensor<2x0xi1>
}

// CHECK-LABEL: func.func @unary_rank0_and_empty
//  CHECK-SAME: (%[[S:.*]]: tensor<f64>, %[[E:.*]]: tensor<0x4xf32>)
//       CHECK:   fuse.log %[[S]] : tensor<f64>
//       CHECK:   fuse.round %[[E]] : tensor<0x4xf32>
func.func @unary_rank0_and_empty(%s: tensor<f64>, %e: tensor<0x4xf32>) -> (tensor<f64>, tensor<0x4xf32>) {
  %0 = fuse.log %s : tensor<f64>
  %1 = fuse.round %e : tensor<0x4xf32>
  return %0, %1 : tensor<f64>, tensor<0x4xf32>
}

// CHECK-LABEL: func.func @binary_arith_ops
//  CHECK-SAME: (%[[F32:.*]]: tensor<4xf32>, %[[F16:.*]]: tensor<4xf16>, %[[BF16:.*]]: tensor<4xbf16>, %[[F64:.*]]: tensor<4xf64>, %[[I8:.*]]: tensor<4xi8>, %[[I32:.*]]: tensor<4xi32>)
//       CHECK:   fuse.add %[[F32]], %[[F32]] : tensor<4xf32>
//       CHECK:   fuse.sub %[[F16]], %[[F16]] : tensor<4xf16>
//       CHECK:   fuse.mul %[[BF16]], %[[BF16]] : tensor<4xbf16>
//       CHECK:   fuse.pow %[[F64]], %[[F64]] : tensor<4xf64>
//       CHECK:   fuse.pow %[[I32]], %[[I32]] : tensor<4xi32>
//       CHECK:   fuse.max %[[I8]], %[[I8]] : tensor<4xi8>
//       CHECK:   fuse.min %[[F32]], %[[F32]] : tensor<4xf32>
//       CHECK:   fuse.add %[[I32]], %[[I32]] : tensor<4xi32>
func.func @binary_arith_ops(%f32: tensor<4xf32>, %f16: tensor<4xf16>, %bf16: tensor<4xbf16>, %f64: tensor<4xf64>, %i8: tensor<4xi8>, %i32: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>, tensor<4xi32>, tensor<4xi8>, tensor<4xf32>, tensor<4xi32>) {
  %0 = fuse.add %f32, %f32 : tensor<4xf32>
  %1 = fuse.sub %f16, %f16 : tensor<4xf16>
  %2 = fuse.mul %bf16, %bf16 : tensor<4xbf16>
  %3 = fuse.pow %f64, %f64 : tensor<4xf64>
  %4 = fuse.pow %i32, %i32 : tensor<4xi32>
  %5 = fuse.max %i8, %i8 : tensor<4xi8>
  %6 = fuse.min %f32, %f32 : tensor<4xf32>
  %7 = fuse.add %i32, %i32 : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>, tensor<4xi32>, tensor<4xi8>, tensor<4xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @div_and_rem_flags
//  CHECK-SAME: (%[[F:.*]]: tensor<2x2xf32>, %[[I:.*]]: tensor<2x2xi64>)
//       CHECK:   fuse.div %[[F]], %[[F]] : tensor<2x2xf32>
//       CHECK:   fuse.div %[[I]], %[[I]] : tensor<2x2xi64>
//       CHECK:   fuse.div %[[I]], %[[I]] {is_unsigned} : tensor<2x2xi64>
//       CHECK:   fuse.rem %[[F]], %[[F]] : tensor<2x2xf32>
//       CHECK:   fuse.rem %[[F]], %[[F]] {fmod} : tensor<2x2xf32>
//       CHECK:   fuse.rem %[[I]], %[[I]] {fmod, is_unsigned} : tensor<2x2xi64>
func.func @div_and_rem_flags(%f: tensor<2x2xf32>, %i: tensor<2x2xi64>)
    -> (tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi64>) {
  %0 = fuse.div %f, %f : tensor<2x2xf32>
  %1 = fuse.div %i, %i : tensor<2x2xi64>
  %2 = fuse.div %i, %i {is_unsigned} : tensor<2x2xi64>
  %3 = fuse.rem %f, %f : tensor<2x2xf32>
  %4 = fuse.rem %f, %f {fmod} : tensor<2x2xf32>
  %5 = fuse.rem %i, %i {fmod, is_unsigned} : tensor<2x2xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi64>
}

// CHECK-LABEL: func.func @logical_ops
//  CHECK-SAME: (%[[B:.*]]: tensor<3xi1>, %[[I8:.*]]: tensor<3xi8>, %[[I64:.*]]: tensor<3xi64>)
//       CHECK:   fuse.and %[[B]], %[[B]] : tensor<3xi1>
//       CHECK:   fuse.or %[[I8]], %[[I8]] : tensor<3xi8>
//       CHECK:   fuse.xor %[[I64]], %[[I64]] : tensor<3xi64>
func.func @logical_ops(%b: tensor<3xi1>, %i8: tensor<3xi8>, %i64: tensor<3xi64>) -> (tensor<3xi1>, tensor<3xi8>, tensor<3xi64>) {
  %0 = fuse.and %b, %b : tensor<3xi1>
  %1 = fuse.or %i8, %i8 : tensor<3xi8>
  %2 = fuse.xor %i64, %i64 : tensor<3xi64>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi8>, tensor<3xi64>
}

// CHECK-LABEL: func.func @binary_rank0_and_empty
//  CHECK-SAME: (%[[S:.*]]: tensor<i32>, %[[E:.*]]: tensor<3x0xf16>)
//       CHECK:   fuse.mul %[[S]], %[[S]] : tensor<i32>
//       CHECK:   fuse.div %[[E]], %[[E]] : tensor<3x0xf16>
func.func @binary_rank0_and_empty(%s: tensor<i32>, %e: tensor<3x0xf16>) -> (tensor<i32>, tensor<3x0xf16>) {
  %0 = fuse.mul %s, %s : tensor<i32>
  %1 = fuse.div %e, %e : tensor<3x0xf16>
  return %0, %1 : tensor<i32>, tensor<3x0xf16>
}

// CHECK-LABEL: func.func @compare_every_predicate
//  CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
//       CHECK:   fuse.compare eq, %[[F]], %[[F]] : tensor<4xf32>
//       CHECK:   fuse.compare ne, %[[F]], %[[F]] : tensor<4xf32>
//       CHECK:   fuse.compare lt, %[[F]], %[[F]] : tensor<4xf32>
//       CHECK:   fuse.compare le, %[[I]], %[[I]] : tensor<4xi32>
//       CHECK:   fuse.compare gt, %[[I]], %[[I]] : tensor<4xi32>
//       CHECK:   fuse.compare ge, %[[F]], %[[F]] : tensor<4xf32>
//       CHECK:   fuse.compare ult, %[[I]], %[[I]] : tensor<4xi32>
//       CHECK:   fuse.compare ule, %[[I]], %[[I]] : tensor<4xi32>
//       CHECK:   fuse.compare ugt, %[[I]], %[[I]] : tensor<4xi32>
//       CHECK:   fuse.compare uge, %[[I]], %[[I]] : tensor<4xi32>
func.func @compare_every_predicate(%f: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = fuse.compare eq, %f, %f : tensor<4xf32>
  %1 = fuse.compare ne, %f, %f : tensor<4xf32>
  %2 = fuse.compare lt, %f, %f : tensor<4xf32>
  %3 = fuse.compare le, %i, %i : tensor<4xi32>
  %4 = fuse.compare gt, %i, %i : tensor<4xi32>
  %5 = fuse.compare ge, %f, %f : tensor<4xf32>
  %6 = fuse.compare ult, %i, %i : tensor<4xi32>
  %7 = fuse.compare ule, %i, %i : tensor<4xi32>
  %8 = fuse.compare ugt, %i, %i : tensor<4xi32>
  %9 = fuse.compare uge, %i, %i : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @compare_bool_rank0
//  CHECK-SAME: (%[[B:.*]]: tensor<i1>)
//       CHECK:   %[[R:.*]] = fuse.compare eq, %[[B]], %[[B]] : tensor<i1>
//       CHECK:   return %[[R]] : tensor<i1>
func.func @compare_bool_rank0(%b: tensor<i1>) -> tensor<i1> {
  %0 = fuse.compare eq, %b, %b : tensor<i1>
  return %0 : tensor<i1>
}

// CHECK-LABEL: func.func @select
//  CHECK-SAME: (%[[C:.*]]: tensor<2x3xi1>, %[[X:.*]]: tensor<2x3xbf16>, %[[Y:.*]]: tensor<2x3xbf16>, %[[S:.*]]: tensor<i1>, %[[I:.*]]: tensor<i8>)
//       CHECK:   fuse.select %[[C]], %[[X]], %[[Y]] : tensor<2x3xi1>, tensor<2x3xbf16>
//       CHECK:   fuse.select %[[S]], %[[I]], %[[I]] : tensor<i1>, tensor<i8>
func.func @select(%c: tensor<2x3xi1>, %x: tensor<2x3xbf16>, %y: tensor<2x3xbf16>, %s: tensor<i1>, %i: tensor<i8>)
    -> (tensor<2x3xbf16>, tensor<i8>) {
  %0 = fuse.select %c, %x, %y : tensor<2x3xi1>, tensor<2x3xbf16>
  %1 = fuse.select %s, %i, %i : tensor<i1>, tensor<i8>
  return %0, %1 : tensor<2x3xbf16>, tensor<i8>
}

// CHECK-LABEL: func.func @cast
//  CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[I32:.*]]: tensor<4xi32>, %[[I64:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<4xi1>)
//       CHECK:   fuse.cast %[[F]] : tensor<4xf32> to tensor<4xf16>
//       CHECK:   fuse.cast %[[H]] : tensor<4xf16> to tensor<4xbf16>
//       CHECK:   fuse.cast %[[F]] : tensor<4xf32> to tensor<4xf64>
//       CHECK:   fuse.cast %[[F]] : tensor<4xf32> to tensor<4xi8>
//       CHECK:   fuse.cast %[[I32]] {is_unsigned} : tensor<4xi32> to tensor<4xf32>
//       CHECK:   fuse.cast %[[I64]] : tensor<4xi64> to tensor<4xi1>
//       CHECK:   fuse.cast %[[B]] : tensor<4xi1> to tensor<4xi32>
func.func @cast(%f: tensor<4xf32>, %h: tensor<4xf16>, %i32: tensor<4xi32>, %i64: tensor<4xi64>, %b: tensor<4xi1>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>, tensor<4xi8>, tensor<4xf32>, tensor<4xi1>, tensor<4xi32>) {
  %0 = fuse.cast %f : tensor<4xf32> to tensor<4xf16>
  %1 = fuse.cast %h : tensor<4xf16> to tensor<4xbf16>
  %2 = fuse.cast %f : tensor<4xf32> to tensor<4xf64>
  %3 = fuse.cast %f : tensor<4xf32> to tensor<4xi8>
  %4 = fuse.cast %i32 {is_unsigned} : tensor<4xi32> to tensor<4xf32>
  %5 = fuse.cast %i64 : tensor<4xi64> to tensor<4xi1>
  %6 = fuse.cast %b : tensor<4xi1> to tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>, tensor<4xi8>, tensor<4xf32>, tensor<4xi1>, tensor<4xi32>
}

// CHECK-LABEL: func.func @cast_low_precision
//  CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[E:.*]]: tensor<4xf8E5M2FNUZ>, %[[Q:.*]]: tensor<4xf4E2M1FN>, %[[I:.*]]: tensor<4xi4>, %[[U:.*]]: tensor<2xui2>)
//       CHECK:   fuse.cast %[[F]] : tensor<4xf32> to tensor<4xf8E4M3FN>
//       CHECK:   fuse.cast %[[H]] {saturate} : tensor<4xf16> to tensor<4xf8E4M3FNUZ>
//       CHECK:   fuse.cast %[[F]] {saturate} : tensor<4xf32> to tensor<4xf8E5M2>
//       CHECK:   fuse.cast %[[E]] : tensor<4xf8E5M2FNUZ> to tensor<4xf32>
//       CHECK:   fuse.cast %[[F]] : tensor<4xf32> to tensor<4xf8E8M0FNU>
//       CHECK:   fuse.cast %[[F]] round_mode nearest {saturate} : tensor<4xf32> to tensor<4xf8E8M0FNU>
//       CHECK:   fuse.cast %[[H]] round_mode down : tensor<4xf16> to tensor<4xf8E8M0FNU>
//       CHECK:   fuse.cast %[[Q]] : tensor<4xf4E2M1FN> to tensor<4xf16>
//       CHECK:   fuse.cast %[[I]] : tensor<4xi4> to tensor<4xui4>
//       CHECK:   fuse.cast %[[U]] : tensor<2xui2> to tensor<2xi2>
func.func @cast_low_precision(%f: tensor<4xf32>, %h: tensor<4xf16>, %e: tensor<4xf8E5M2FNUZ>, %q: tensor<4xf4E2M1FN>, %i: tensor<4xi4>, %u: tensor<2xui2>)
    -> (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FNUZ>, tensor<4xf8E5M2>, tensor<4xf32>, tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>, tensor<4xf16>, tensor<4xui4>, tensor<2xi2>) {
  %0 = fuse.cast %f : tensor<4xf32> to tensor<4xf8E4M3FN>
  %1 = fuse.cast %h {saturate} : tensor<4xf16> to tensor<4xf8E4M3FNUZ>
  %2 = fuse.cast %f {saturate} : tensor<4xf32> to tensor<4xf8E5M2>
  %3 = fuse.cast %e : tensor<4xf8E5M2FNUZ> to tensor<4xf32>
  %4 = fuse.cast %f : tensor<4xf32> to tensor<4xf8E8M0FNU>
  %5 = fuse.cast %f round_mode nearest {saturate} : tensor<4xf32> to tensor<4xf8E8M0FNU>
  %6 = fuse.cast %h round_mode down : tensor<4xf16> to tensor<4xf8E8M0FNU>
  %7 = fuse.cast %q : tensor<4xf4E2M1FN> to tensor<4xf16>
  %8 = fuse.cast %i : tensor<4xi4> to tensor<4xui4>
  %9 = fuse.cast %u : tensor<2xui2> to tensor<2xi2>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FNUZ>, tensor<4xf8E5M2>, tensor<4xf32>, tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>, tensor<4xf8E8M0FNU>, tensor<4xf16>, tensor<4xui4>, tensor<2xi2>
}

// CHECK-LABEL: func.func @low_precision_data_movement
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf8E4M3FN>, %[[C:.*]]: tensor<3x2xi1>, %[[I:.*]]: tensor<6xi4>)
//       CHECK:   %[[T:.*]] = fuse.transpose %[[X]], permutation = [1, 0] : tensor<2x3xf8E4M3FN> -> tensor<3x2xf8E4M3FN>
//       CHECK:   fuse.select %[[C]], %[[T]], %[[T]] : tensor<3x2xi1>, tensor<3x2xf8E4M3FN>
//       CHECK:   fuse.add %[[I]], %[[I]] : tensor<6xi4>
//       CHECK:   fuse.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf8E8M0FNU>
//       CHECK:   fuse.constant dense<[-8, 7]> : tensor<2xi4>
func.func @low_precision_data_movement(%x: tensor<2x3xf8E4M3FN>, %c: tensor<3x2xi1>, %i: tensor<6xi4>)
    -> (tensor<3x2xf8E4M3FN>, tensor<6xi4>, tensor<2xf8E8M0FNU>, tensor<2xi4>) {
  %0 = fuse.transpose %x, permutation = [1, 0] : tensor<2x3xf8E4M3FN> -> tensor<3x2xf8E4M3FN>
  %1 = fuse.select %c, %0, %0 : tensor<3x2xi1>, tensor<3x2xf8E4M3FN>
  %2 = fuse.add %i, %i : tensor<6xi4>
  %3 = fuse.constant dense<[1.0, 2.0]> : tensor<2xf8E8M0FNU>
  %4 = fuse.constant dense<[-8, 7]> : tensor<2xi4>
  return %1, %2, %3, %4 : tensor<3x2xf8E4M3FN>, tensor<6xi4>, tensor<2xf8E8M0FNU>, tensor<2xi4>
}

// CHECK-LABEL: func.func @constants
//       CHECK:   fuse.constant dense<1.000000e+00> : tensor<4xf32>
//       CHECK:   fuse.constant dense<[1, 2, 3]> : tensor<3xi32>
//       CHECK:   fuse.constant dense<{{\[}}[true, false], [false, true]]> : tensor<2x2xi1>
//       CHECK:   fuse.constant dense<-5> : tensor<i8>
//       CHECK:   fuse.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>
//       CHECK:   fuse.constant dense<2.500000e-01> : tensor<f16>
//       CHECK:   fuse.constant dense<0x7FF8000000000000> : tensor<2xf64>
//       CHECK:   fuse.constant dense<> : tensor<0x3xi64>
func.func @constants() -> (tensor<4xf32>, tensor<3xi32>, tensor<2x2xi1>, tensor<i8>, tensor<2xbf16>, tensor<f16>, tensor<2xf64>, tensor<0x3xi64>) {
  %0 = fuse.constant dense<1.0> : tensor<4xf32>
  %1 = fuse.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = fuse.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %3 = fuse.constant dense<-5> : tensor<i8>
  %4 = fuse.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %5 = fuse.constant dense<0.25> : tensor<f16>
  %6 = fuse.constant dense<0x7FF8000000000000> : tensor<2xf64>
  %7 = fuse.constant dense<> : tensor<0x3xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<3xi32>, tensor<2x2xi1>, tensor<i8>, tensor<2xbf16>, tensor<f16>, tensor<2xf64>, tensor<0x3xi64>
}

// CHECK-LABEL: func.func @broadcast
//  CHECK-SAME: (%[[ROW:.*]]: tensor<4xf32>, %[[ONES:.*]]: tensor<1x4xi32>, %[[S:.*]]: tensor<f64>)
//       CHECK:   fuse.broadcast %[[ROW]], dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
//       CHECK:   fuse.broadcast %[[ONES]], dims = [1, 2] : tensor<1x4xi32> -> tensor<2x5x4xi32>
//       CHECK:   fuse.broadcast %[[S]], dims = [] : tensor<f64> -> tensor<2x0xf64>
func.func @broadcast(%row: tensor<4xf32>, %ones: tensor<1x4xi32>, %s: tensor<f64>)
    -> (tensor<3x4xf32>, tensor<2x5x4xi32>, tensor<2x0xf64>) {
  %0 = fuse.broadcast %row, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  %1 = fuse.broadcast %ones, dims = [1, 2] : tensor<1x4xi32> -> tensor<2x5x4xi32>
  %2 = fuse.broadcast %s, dims = [] : tensor<f64> -> tensor<2x0xf64>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<2x5x4xi32>, tensor<2x0xf64>
}

// CHECK-LABEL: func.func @reshape
//  CHECK-SAME: (%[[X:.*]]: tensor<2x6xf16>, %[[ONE:.*]]: tensor<1x1xi64>, %[[E:.*]]: tensor<0x3xi8>)
//       CHECK:   fuse.reshape %[[X]] : tensor<2x6xf16> -> tensor<3x4xf16>
//       CHECK:   fuse.reshape %[[ONE]] : tensor<1x1xi64> -> tensor<i64>
//       CHECK:   fuse.reshape %[[E]] : tensor<0x3xi8> -> tensor<3x0xi8>
func.func @reshape(%x: tensor<2x6xf16>, %one: tensor<1x1xi64>, %e: tensor<0x3xi8>) -> (tensor<3x4xf16>, tensor<i64>, tensor<3x0xi8>) {
  %0 = fuse.reshape %x : tensor<2x6xf16> -> tensor<3x4xf16>
  %1 = fuse.reshape %one : tensor<1x1xi64> -> tensor<i64>
  %2 = fuse.reshape %e : tensor<0x3xi8> -> tensor<3x0xi8>
  return %0, %1, %2 : tensor<3x4xf16>, tensor<i64>, tensor<3x0xi8>
}

// CHECK-LABEL: func.func @transpose
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3x0xi1>, %[[S:.*]]: tensor<bf16>)
//       CHECK:   fuse.transpose %[[X]], permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
//       CHECK:   fuse.transpose %[[Y]], permutation = [2, 0, 1] : tensor<2x3x0xi1> -> tensor<0x2x3xi1>
//       CHECK:   fuse.transpose %[[S]], permutation = [] : tensor<bf16> -> tensor<bf16>
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x3x0xi1>, %s: tensor<bf16>) -> (tensor<3x2xf32>, tensor<0x2x3xi1>, tensor<bf16>) {
  %0 = fuse.transpose %x, permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = fuse.transpose %y, permutation = [2, 0, 1] : tensor<2x3x0xi1> -> tensor<0x2x3xi1>
  %2 = fuse.transpose %s, permutation = [] : tensor<bf16> -> tensor<bf16>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<0x2x3xi1>, tensor<bf16>
}

// CHECK-LABEL: func.func @slice
//  CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>, %[[S:.*]]: tensor<i32>)
//       CHECK:   fuse.slice %[[X]] offsets = [0, 1] sizes = [2, 3] strides = [1, 2] : tensor<4x6xf32> -> tensor<2x3xf32>
//       CHECK:   fuse.slice %[[X]] offsets = [4, 0] sizes = [0, 6] strides = [1, 1] : tensor<4x6xf32> -> tensor<0x6xf32>
//       CHECK:   fuse.slice %[[S]] offsets = [] sizes = [] strides = [] : tensor<i32> -> tensor<i32>
func.func @slice(%x: tensor<4x6xf32>, %s: tensor<i32>) -> (tensor<2x3xf32>, tensor<0x6xf32>, tensor<i32>) {
  %0 = fuse.slice %x offsets = [0, 1] sizes = [2, 3] strides = [1, 2] : tensor<4x6xf32> -> tensor<2x3xf32>
  %1 = fuse.slice %x offsets = [4, 0] sizes = [0, 6] strides = [1, 1] : tensor<4x6xf32> -> tensor<0x6xf32>
  %2 = fuse.slice %s offsets = [] sizes = [] strides = [] : tensor<i32> -> tensor<i32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<0x6xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @concat
//  CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>, %[[E:.*]]: tensor<2x0xf32>, %[[I:.*]]: tensor<3xi8>)
//       CHECK:   fuse.concat %[[A]], %[[B]], %[[E]] axis = 1 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x0xf32> -> tensor<2x8xf32>
//       CHECK:   fuse.concat %[[A]], %[[A]] axis = 0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
//       CHECK:   fuse.concat %[[I]] axis = 0 : tensor<3xi8> -> tensor<3xi8>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %e: tensor<2x0xf32>, %i: tensor<3xi8>)
    -> (tensor<2x8xf32>, tensor<4x3xf32>, tensor<3xi8>) {
  %0 = fuse.concat %a, %b, %e axis = 1 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x0xf32> -> tensor<2x8xf32>
  %1 = fuse.concat %a, %a axis = 0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %2 = fuse.concat %i axis = 0 : tensor<3xi8> -> tensor<3xi8>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<4x3xf32>, tensor<3xi8>
}

// CHECK-LABEL: func.func @reduce_every_kind
//  CHECK-SAME: (%[[X:.*]]: tensor<4x8x2xf32>, %[[I:.*]]: tensor<4x8xi32>, %[[E:.*]]: tensor<0x3xf64>)
//       CHECK:   fuse.reduce sum %[[X]] dims = [1] : tensor<4x8x2xf32> -> tensor<4x2xf32>
//       CHECK:   fuse.reduce prod %[[I]] dims = [0, 1] : tensor<4x8xi32> -> tensor<i32>
//       CHECK:   fuse.reduce max %[[X]] dims = [2] keep_dims : tensor<4x8x2xf32> -> tensor<4x8x1xf32>
//       CHECK:   fuse.reduce min %[[I]] dims = [1] : tensor<4x8xi32> -> tensor<4xi32>
//       CHECK:   fuse.reduce mean %[[X]] dims = [0, 2] keep_dims : tensor<4x8x2xf32> -> tensor<1x8x1xf32>
//       CHECK:   fuse.reduce sum %[[E]] dims = [0] : tensor<0x3xf64> -> tensor<3xf64>
//       CHECK:   fuse.reduce sum %[[I]] dims = [] : tensor<4x8xi32> -> tensor<4x8xi32>
func.func @reduce_every_kind(%x: tensor<4x8x2xf32>, %i: tensor<4x8xi32>, %e: tensor<0x3xf64>)
    -> (tensor<4x2xf32>, tensor<i32>, tensor<4x8x1xf32>, tensor<4xi32>, tensor<1x8x1xf32>, tensor<3xf64>, tensor<4x8xi32>) {
  %0 = fuse.reduce sum %x dims = [1] : tensor<4x8x2xf32> -> tensor<4x2xf32>
  %1 = fuse.reduce prod %i dims = [0, 1] : tensor<4x8xi32> -> tensor<i32>
  %2 = fuse.reduce max %x dims = [2] keep_dims : tensor<4x8x2xf32> -> tensor<4x8x1xf32>
  %3 = fuse.reduce min %i dims = [1] : tensor<4x8xi32> -> tensor<4xi32>
  %4 = fuse.reduce mean %x dims = [0, 2] keep_dims : tensor<4x8x2xf32> -> tensor<1x8x1xf32>
  %5 = fuse.reduce sum %e dims = [0] : tensor<0x3xf64> -> tensor<3xf64>
  %6 = fuse.reduce sum %i dims = [] : tensor<4x8xi32> -> tensor<4x8xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x2xf32>, tensor<i32>, tensor<4x8x1xf32>, tensor<4xi32>, tensor<1x8x1xf32>, tensor<3xf64>, tensor<4x8xi32>
}

// CHECK-LABEL: func.func @pool_kinds
//  CHECK-SAME: (%[[X:.*]]: tensor<1x4x9x9xf32>, %[[I:.*]]: tensor<2x3x10xi8>)
//       CHECK:   fuse.pool max %[[X]] window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x4x9x9xf32> -> tensor<1x4x5x5xf32>
//       CHECK:   fuse.pool mean %[[X]] window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode count_include_pad : tensor<1x4x9x9xf32> -> tensor<1x4x5x5xf32>
//       CHECK:   fuse.pool max %[[I]] window = [3] strides = [1] dilations = [2] pads = [0, 0] : tensor<2x3x10xi8> -> tensor<2x3x6xi8>
func.func @pool_kinds(%x: tensor<1x4x9x9xf32>, %i: tensor<2x3x10xi8>)
    -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<2x3x6xi8>) {
  %0 = fuse.pool max %x window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x4x9x9xf32> -> tensor<1x4x5x5xf32>
  %1 = fuse.pool mean %x window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode count_include_pad : tensor<1x4x9x9xf32> -> tensor<1x4x5x5xf32>
  %2 = fuse.pool max %i window = [3] strides = [1] dilations = [2] pads = [0, 0] : tensor<2x3x10xi8> -> tensor<2x3x6xi8>
  return %0, %1, %2 : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<2x3x6xi8>
}

// CHECK-LABEL: func.func @argmax_argmin
//  CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>, %[[I:.*]]: tensor<5xi8>)
//       CHECK:   fuse.argmax %[[X]] axis = 1 : tensor<4x8xf16> -> tensor<4xi64>
//       CHECK:   fuse.argmax %[[X]] axis = 0 keep_dims : tensor<4x8xf16> -> tensor<1x8xi64>
//       CHECK:   fuse.argmin %[[X]] axis = 1 select_last_index : tensor<4x8xf16> -> tensor<4xi64>
//       CHECK:   fuse.argmin %[[I]] axis = 0 keep_dims select_last_index : tensor<5xi8> -> tensor<1xi64>
//       CHECK:   fuse.argmax %[[I]] axis = 0 : tensor<5xi8> -> tensor<i64>
func.func @argmax_argmin(%x: tensor<4x8xf16>, %i: tensor<5xi8>)
    -> (tensor<4xi64>, tensor<1x8xi64>, tensor<4xi64>, tensor<1xi64>, tensor<i64>) {
  %0 = fuse.argmax %x axis = 1 : tensor<4x8xf16> -> tensor<4xi64>
  %1 = fuse.argmax %x axis = 0 keep_dims : tensor<4x8xf16> -> tensor<1x8xi64>
  %2 = fuse.argmin %x axis = 1 select_last_index : tensor<4x8xf16> -> tensor<4xi64>
  %3 = fuse.argmin %i axis = 0 keep_dims select_last_index : tensor<5xi8> -> tensor<1xi64>
  %4 = fuse.argmax %i axis = 0 : tensor<5xi8> -> tensor<i64>
  return %0, %1, %2, %3, %4 : tensor<4xi64>, tensor<1x8xi64>, tensor<4xi64>, tensor<1xi64>, tensor<i64>
}

// CHECK-LABEL: func.func @matmul
//  CHECK-SAME: (%[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32x64xf32>, %[[BT:.*]]: tensor<64x32xf32>, %[[AT:.*]]: tensor<32x16xf32>, %[[X:.*]]: tensor<8x16x32xf32>, %[[Q:.*]]: tensor<12x64x32xbf16>, %[[I:.*]]: tensor<2x0xi8>)
//       CHECK:   fuse.matmul %[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
//       CHECK:   fuse.matmul %[[AT]], %[[B]] transpose_a : tensor<32x16xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
//       CHECK:   fuse.matmul %[[A]], %[[BT]] transpose_b : tensor<16x32xf32>, tensor<64x32xf32> -> tensor<16x64xf32>
//       CHECK:   fuse.matmul %[[AT]], %[[BT]] transpose_a transpose_b : tensor<32x16xf32>, tensor<64x32xf32> -> tensor<16x64xf32>
//       CHECK:   fuse.matmul %[[X]], %[[B]] : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<8x16x64xf32>
//       CHECK:   fuse.matmul %[[BT]], %[[X]] transpose_b : tensor<64x32xf32>, tensor<8x16x32xf32> -> tensor<8x64x16xf32>
//       CHECK:   fuse.matmul %[[Q]], %[[Q]] transpose_b : tensor<12x64x32xbf16>, tensor<12x64x32xbf16> -> tensor<12x64x64xbf16>
//       CHECK:   fuse.matmul %[[I]], %[[I]] transpose_b : tensor<2x0xi8>, tensor<2x0xi8> -> tensor<2x2xi8>
func.func @matmul(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %bt: tensor<64x32xf32>, %at: tensor<32x16xf32>,
                  %x: tensor<8x16x32xf32>, %q: tensor<12x64x32xbf16>, %i: tensor<2x0xi8>)
    -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<8x16x64xf32>, tensor<8x64x16xf32>, tensor<12x64x64xbf16>, tensor<2x2xi8>) {
  %0 = fuse.matmul %a, %b : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = fuse.matmul %at, %b transpose_a : tensor<32x16xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %2 = fuse.matmul %a, %bt transpose_b : tensor<16x32xf32>, tensor<64x32xf32> -> tensor<16x64xf32>
  %3 = fuse.matmul %at, %bt transpose_a transpose_b : tensor<32x16xf32>, tensor<64x32xf32> -> tensor<16x64xf32>
  %4 = fuse.matmul %x, %b : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<8x16x64xf32>
  %5 = fuse.matmul %bt, %x transpose_b : tensor<64x32xf32>, tensor<8x16x32xf32> -> tensor<8x64x16xf32>
  %6 = fuse.matmul %q, %q transpose_b : tensor<12x64x32xbf16>, tensor<12x64x32xbf16> -> tensor<12x64x64xbf16>
  %7 = fuse.matmul %i, %i transpose_b : tensor<2x0xi8>, tensor<2x0xi8> -> tensor<2x2xi8>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<8x16x64xf32>, tensor<8x64x16xf32>, tensor<12x64x64xbf16>, tensor<2x2xi8>
}

// A softmax row kernel: one fusion with two results.
// CHECK-LABEL: func.func @fusion_multi_result
//  CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[R:.*]]:2 = fuse.fusion row_reduction(%[[X]]) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
//       CHECK:   ^bb0(%[[A:.*]]: tensor<4x8xf32>):
//       CHECK:     %[[MAX:.*]] = fuse.reduce max %[[A]] dims = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
//       CHECK:     %[[BMAX:.*]] = fuse.broadcast %[[MAX]], dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
//       CHECK:     %[[SUB:.*]] = fuse.sub %[[A]], %[[BMAX]] : tensor<4x8xf32>
//       CHECK:     %[[EXP:.*]] = fuse.exp %[[SUB]] : tensor<4x8xf32>
//       CHECK:     %[[SUM:.*]] = fuse.reduce sum %[[EXP]] dims = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
//       CHECK:     %[[BSUM:.*]] = fuse.broadcast %[[SUM]], dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
//       CHECK:     %[[DIV:.*]] = fuse.div %[[EXP]], %[[BSUM]] : tensor<4x8xf32>
//       CHECK:     fuse.yield %[[DIV]], %[[MAX]] : tensor<4x8xf32>, tensor<4x1xf32>
//       CHECK:   return %[[R]]#0, %[[R]]#1
func.func @fusion_multi_result(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %r:2 = fuse.fusion row_reduction (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %max = fuse.reduce max %a dims = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
    %bmax = fuse.broadcast %max, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %sub = fuse.sub %a, %bmax : tensor<4x8xf32>
    %exp = fuse.exp %sub : tensor<4x8xf32>
    %sum = fuse.reduce sum %exp dims = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
    %bsum = fuse.broadcast %sum, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %div = fuse.div %exp, %bsum : tensor<4x8xf32>
    fuse.yield %div, %max : tensor<4x8xf32>, tensor<4x1xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x1xf32>
}

// CHECK-LABEL: func.func @fusion_every_schedule_kind
//  CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x2xf32>)
//       CHECK:   %[[P:.*]] = fuse.fusion pointwise(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
//       CHECK:   ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>):
//       CHECK:     %[[ADD:.*]] = fuse.add %[[A]], %[[B]] : tensor<4x8xf32>
//       CHECK:     fuse.yield %[[ADD]] : tensor<4x8xf32>
//       CHECK:   fuse.fusion row_reduction(%[[P]]) : (tensor<4x8xf32>) -> tensor<4xf32> {
//       CHECK:     fuse.reduce sum
//       CHECK:   fuse.fusion column_reduction(%[[P]]) : (tensor<4x8xf32>) -> tensor<8xf32> {
//       CHECK:     fuse.reduce max
//       CHECK:   fuse.fusion full_reduction(%[[X]]) : (tensor<4x8xf32>) -> tensor<f32> {
//       CHECK:     fuse.reduce mean
//       CHECK:   fuse.fusion matmul(%[[X]], %[[W]]) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
//       CHECK:     fuse.matmul
func.func @fusion_every_schedule_kind(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %w: tensor<8x2xf32>)
    -> (tensor<4xf32>, tensor<8xf32>, tensor<f32>, tensor<4x2xf32>) {
  %p = fuse.fusion pointwise (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %s = fuse.add %a, %b : tensor<4x8xf32>
    fuse.yield %s : tensor<4x8xf32>
  }
  %row = fuse.fusion row_reduction (%p) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = fuse.reduce sum %a dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fuse.yield %s : tensor<4xf32>
  }
  %col = fuse.fusion column_reduction (%p) : (tensor<4x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = fuse.reduce max %a dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
    fuse.yield %s : tensor<8xf32>
  }
  %full = fuse.fusion full_reduction (%x) : (tensor<4x8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = fuse.reduce mean %a dims = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    fuse.yield %s : tensor<f32>
  }
  %mm = fuse.fusion matmul (%x, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>):
    %s = fuse.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    fuse.yield %s : tensor<4x2xf32>
  }
  return %row, %col, %full, %mm : tensor<4xf32>, tensor<8xf32>, tensor<f32>, tensor<4x2xf32>
}

// A kernel with no inputs, one with no results, and a discardable attribute.
// CHECK-LABEL: func.func @fusion_edge_cases
//       CHECK:   %[[C:.*]] = fuse.fusion pointwise() attributes {fuse.tag = "k0"} : () -> tensor<2xi32> {
//       CHECK:     %[[K:.*]] = fuse.constant dense<7> : tensor<2xi32>
//       CHECK:     fuse.yield %[[K]] : tensor<2xi32>
//       CHECK:   fuse.fusion pointwise(%[[C]]) : (tensor<2xi32>) -> () {
//       CHECK:   ^bb0(%{{.*}}: tensor<2xi32>):
//       CHECK:     fuse.yield{{$}}
func.func @fusion_edge_cases() -> tensor<2xi32> {
  %c = fuse.fusion pointwise () attributes {fuse.tag = "k0"} : () -> tensor<2xi32> {
    %k = fuse.constant dense<7> : tensor<2xi32>
    fuse.yield %k : tensor<2xi32>
  }
  fuse.fusion pointwise (%c) : (tensor<2xi32>) -> () {
  ^bb0(%a: tensor<2xi32>):
    fuse.yield
  }
  return %c : tensor<2xi32>
}

// i16 and the unsigned ui8, ui16, ui32 and ui64 in elementwise, compare,
// cast (both ways), reduce, argmax and a fusion; a ui64 constant above
// INT64_MAX keeps its value.
// CHECK-LABEL: func.func @unsigned_and_i16
//  CHECK-SAME: (%[[A:.*]]: tensor<4xui8>, %[[B:.*]]: tensor<4xui16>, %[[C:.*]]: tensor<4xui32>, %[[D:.*]]: tensor<4xui64>, %[[E:.*]]: tensor<4xi16>)
//       CHECK:   %[[MAX:.*]] = fuse.max %[[A]], %[[A]] : tensor<4xui8>
//  CHECK-NEXT:   %[[DIV:.*]] = fuse.div %[[B]], %[[B]] : tensor<4xui16>
//  CHECK-NEXT:   %[[REM:.*]] = fuse.rem %[[C]], %[[C]] : tensor<4xui32>
//  CHECK-NEXT:   %[[LT:.*]] = fuse.compare lt, %[[D]], %[[D]] : tensor<4xui64>
//  CHECK-NEXT:   %[[AND:.*]] = fuse.and %[[E]], %[[E]] : tensor<4xi16>
//  CHECK-NEXT:   %[[TOF:.*]] = fuse.cast %[[A]] : tensor<4xui8> to tensor<4xf32>
//  CHECK-NEXT:   %[[TOU:.*]] = fuse.cast %[[TOF]] : tensor<4xf32> to tensor<4xui64>
//  CHECK-NEXT:   %[[SUM:.*]] = fuse.reduce sum %[[C]] dims = [0] : tensor<4xui32> -> tensor<ui32>
//  CHECK-NEXT:   %[[ARG:.*]] = fuse.argmin %[[B]] axis = 0 : tensor<4xui16> -> tensor<i64>
//  CHECK-NEXT:   %[[BIG:.*]] = fuse.constant dense<18446744073709551615> : tensor<4xui64>
//  CHECK-NEXT:   %[[F:.*]] = fuse.fusion pointwise(%[[D]], %[[BIG]]) : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64> {
//  CHECK-NEXT:   ^bb0(%[[X:.*]]: tensor<4xui64>, %[[Y:.*]]: tensor<4xui64>):
//  CHECK-NEXT:     %[[S:.*]] = fuse.sub %[[X]], %[[Y]] : tensor<4xui64>
//  CHECK-NEXT:     fuse.yield %[[S]] : tensor<4xui64>
func.func @unsigned_and_i16(%a: tensor<4xui8>, %b: tensor<4xui16>,
                            %c: tensor<4xui32>, %d: tensor<4xui64>,
                            %e: tensor<4xi16>)
    -> (tensor<4xui8>, tensor<4xui16>, tensor<4xui32>, tensor<4xi1>,
        tensor<4xi16>, tensor<4xui64>, tensor<ui32>, tensor<i64>,
        tensor<4xui64>) {
  %0 = fuse.max %a, %a : tensor<4xui8>
  %1 = fuse.div %b, %b : tensor<4xui16>
  %2 = fuse.rem %c, %c : tensor<4xui32>
  %3 = fuse.compare lt, %d, %d : tensor<4xui64>
  %4 = fuse.and %e, %e : tensor<4xi16>
  %5 = fuse.cast %a : tensor<4xui8> to tensor<4xf32>
  %6 = fuse.cast %5 : tensor<4xf32> to tensor<4xui64>
  %7 = fuse.reduce sum %c dims = [0] : tensor<4xui32> -> tensor<ui32>
  %8 = fuse.argmin %b axis = 0 : tensor<4xui16> -> tensor<i64>
  %big = fuse.constant dense<18446744073709551615> : tensor<4xui64>
  %9 = fuse.fusion pointwise (%d, %big) : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64> {
  ^bb0(%x: tensor<4xui64>, %y: tensor<4xui64>):
    %s = fuse.sub %x, %y : tensor<4xui64>
    fuse.yield %s : tensor<4xui64>
  }
  return %0, %1, %2, %3, %4, %6, %7, %8, %9 : tensor<4xui8>, tensor<4xui16>,
      tensor<4xui32>, tensor<4xi1>, tensor<4xi16>, tensor<4xui64>,
      tensor<ui32>, tensor<i64>, tensor<4xui64>
}
