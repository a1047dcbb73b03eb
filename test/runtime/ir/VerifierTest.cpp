//===- VerifierTest.cpp - One case per validation message -----------------===//
//
// Each case builds a graph that breaks exactly one rule, directly (not
// through the builder, which would refuse it), and checks the full message.
//
//===----------------------------------------------------------------------===//

#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <functional>

using namespace fuse;

namespace {

const TensorType kF32x23{ElementType::F32, {2, 3}};
const TensorType kF32x32{ElementType::F32, {3, 2}};
const TensorType kI32x23{ElementType::I32, {2, 3}};
const TensorType kI1x23{ElementType::I1, {2, 3}};

TensorType f32(std::vector<std::int64_t> shape) {
  return {ElementType::F32, std::move(shape)};
}

/// A graph of `inputs` and one op whose result has type `result`.
Graph oneOp(std::vector<TensorType> inputs, OpKind kind, AttrMap attributes,
            TensorType result) {
  Graph graph;
  std::vector<TensorId> operands;
  for (TensorType &type : inputs)
    operands.push_back(graph.addInput(std::move(type)));
  const TensorId id = TensorId(graph.tensors.size());
  graph.tensors.push_back({std::move(result), ""});
  graph.ops.push_back({kind, operands, {id}, std::move(attributes)});
  graph.outputs.push_back({id, ""});
  return graph;
}

AttrMap dims(std::vector<std::int64_t> values) {
  return {{"dims", Attribute::i64Array(std::move(values))}};
}

AttrMap reduceAttrs(const char *kind, std::vector<std::int64_t> values) {
  return {{"kind", Attribute::enumName(kind)},
          {"dims", Attribute::i64Array(std::move(values))}};
}

AttrMap sliceAttrs(std::vector<std::int64_t> offsets,
                   std::vector<std::int64_t> sizes,
                   std::vector<std::int64_t> strides) {
  return {{"offsets", Attribute::i64Array(std::move(offsets))},
          {"sizes", Attribute::i64Array(std::move(sizes))},
          {"strides", Attribute::i64Array(std::move(strides))}};
}

AttrMap predicate(const char *name) {
  return {{"predicate", Attribute::enumName(name)}};
}

struct Case {
  std::string name;
  std::function<Graph()> build;
  std::string message;
};

std::vector<Case> cases() {
  return {
      // Operands and element-type rules.
      {"WrongOperandCount",
       [] { return oneOp({kF32x23}, OpKind::Add, {}, kF32x23); },
       "op #0 (add): expected 2 operands, got 1"},
      {"VariadicWithoutOperands",
       [] {
         return oneOp({}, OpKind::Concat, {{"axis", Attribute::i64(0)}},
                      kF32x23);
       },
       "op #0 (concat): expected at least 1 operand, got 0"},
      {"FloatRuleViolated",
       [] { return oneOp({kI32x23}, OpKind::Exp, {}, kI32x23); },
       "op #0 (exp): operand 0 has element type i32, expected a float type "
       "(f32, f16, bf16, f64)"},
      {"NumericRuleViolated",
       [] {
         return oneOp({kI1x23, kI1x23}, OpKind::Add, {}, kI1x23);
       },
       "op #0 (add): operand 0 has element type i1, expected a numeric type "
       "(any but i1 and the f8/f4 types)"},
      // The f8/f4 types are for casts and data movement only.
      {"NoArithmeticOnF8",
       [] {
         const TensorType f8{ElementType::F8E4M3FN, {4}};
         return oneOp({f8, f8}, OpKind::Add, {}, f8);
       },
       "op #0 (add): operand 0 has element type f8E4M3FN, expected a numeric "
       "type (any but i1 and the f8/f4 types)"},
      {"NoFloatFunctionOnF4",
       [] {
         const TensorType f4{ElementType::F4E2M1FN, {4}};
         return oneOp({f4}, OpKind::Exp, {}, f4);
       },
       "op #0 (exp): operand 0 has element type f4E2M1FN, expected a float "
       "type (f32, f16, bf16, f64)"},
      {"IntegerRuleViolated",
       [] {
         return oneOp({kF32x23, kF32x23}, OpKind::Xor, {}, kF32x23);
       },
       "op #0 (xor): operand 0 has element type f32, expected an integer "
       "type (i1, i8, i32, i64, i16, ui8, ui16, ui32, ui64, i4, ui4, i2, ui2)"},
      {"FloatRuleRejectsUnsignedInteger",
       [] {
         const TensorType ui32{ElementType::UI32, {4}};
         return oneOp({ui32}, OpKind::Exp, {}, ui32);
       },
       "op #0 (exp): operand 0 has element type ui32, expected a float type "
       "(f32, f16, bf16, f64)"},
      {"FloatPredicateOnI16",
       [] {
         return oneOp({{ElementType::I16, {2}}}, OpKind::IsNaN, {},
                      {ElementType::I1, {2}});
       },
       "op #0 (isnan): operand 0 has element type i16, expected a float type "
       "(f32, f16, bf16, f64)"},
      {"ElementwiseShapeMismatch",
       [] {
         return oneOp({kF32x23, kF32x32}, OpKind::Mul, {}, kF32x23);
       },
       "op #0 (mul): operand 1 has type tensor<3x2xf32>, expected "
       "tensor<2x3xf32> (the type of operand 0; there is no implicit "
       "broadcasting)"},
      {"ResultTypeMismatch",
       [] { return oneOp({kF32x23}, OpKind::Exp, {}, kF32x32); },
       "op #0 (exp): result type tensor<3x2xf32> does not match the "
       "inferred tensor<2x3xf32>"},
      {"NegativeDimension",
       [] {
         return oneOp({f32({2, -1})}, OpKind::Exp, {}, f32({2, -1}));
       },
       "tensor 0's type has a negative dimension: tensor<2x-1xf32>"},
      // Attributes.
      {"UnknownAttribute",
       [] {
         return oneOp({kF32x23}, OpKind::Reduce,
                      {{"kind", Attribute::enumName("sum")},
                       {"dims", Attribute::i64Array({1})},
                       {"axis", Attribute::i64(0)}},
                      f32({2}));
       },
       "op #0 (reduce): unknown attribute 'axis' (allowed: kind, dims, "
       "keep_dims)"},
      {"AttributeOnOpWithoutAttributes",
       [] {
         return oneOp({kF32x23, kF32x23}, OpKind::Add,
                      {{"fmod", Attribute::flag(true)}}, kF32x23);
       },
       "op #0 (add): unknown attribute 'fmod' (this op takes no "
       "attributes)"},
      {"WronglyTypedAttribute",
       [] {
         return oneOp({kF32x23}, OpKind::Reduce,
                      {{"kind", Attribute::enumName("sum")},
                       {"dims", Attribute::i64(1)}},
                      f32({2}));
       },
       "op #0 (reduce): attribute 'dims' must be I64Array, got I64"},
      {"UnknownEnumValue",
       [] {
         return oneOp({kF32x23}, OpKind::Reduce, reduceAttrs("avg", {1}),
                      f32({2}));
       },
       "op #0 (reduce): attribute 'kind' is \"avg\", expected one of sum, "
       "prod, max, min, mean"},
      {"MissingAttribute",
       [] { return oneOp({kF32x23}, OpKind::Transpose, {}, kF32x32); },
       "op #0 (transpose): missing required attribute 'permutation'"},
      {"UnsignedOnFloats",
       [] {
         return oneOp({kF32x23, kF32x23}, OpKind::Div,
                      {{"is_unsigned", Attribute::flag(true)}}, kF32x23);
       },
       "op #0 (div): attribute 'is_unsigned' needs integer operands, got "
       "f32"},
      {"DenseSizeMismatch",
       [] {
         DenseValue value{
             ElementType::F32, {2}, std::vector<std::uint8_t>(4), false};
         return oneOp({}, OpKind::Constant,
                      {{"value", Attribute::dense(value)}}, f32({2}));
       },
       "op #0 (constant): attribute 'value' holds 4 bytes, expected 8 (2 "
       "elements of f32)"},
      {"DenseSplatSizeMismatch",
       [] {
         DenseValue value{
             ElementType::I32, {5}, std::vector<std::uint8_t>(8), true};
         return oneOp({}, OpKind::Constant,
                      {{"value", Attribute::dense(value)}},
                      {ElementType::I32, {5}});
       },
       "op #0 (constant): attribute 'value' holds 8 bytes, expected 4 (one "
       "splat element of i32)"},
      {"DenseBadBoolean",
       [] {
         DenseValue value{ElementType::I1, {2}, {1, 2}, false};
         return oneOp({}, OpKind::Constant,
                      {{"value", Attribute::dense(value)}},
                      {ElementType::I1, {2}});
       },
       "op #0 (constant): attribute 'value' has an i1 element stored as 2, "
       "expected 0 or 1"},
      {"DenseI4NotSignExtended",
       [] {
         // 8 in i4 is -8, which its byte holds as 0xF8.
         DenseValue value{ElementType::I4, {2}, {0xF8, 0x08}, false};
         return oneOp({}, OpKind::Constant,
                      {{"value", Attribute::dense(value)}},
                      {ElementType::I4, {2}});
       },
       "op #0 (constant): attribute 'value' stores an element of i4 as 8, "
       "expected its 4 bits sign-extended to the byte"},
      {"DenseUi2HighBits",
       [] {
         DenseValue value{ElementType::UI2, {1}, {0x07}, true};
         return oneOp({}, OpKind::Constant,
                      {{"value", Attribute::dense(value)}},
                      {ElementType::UI2, {3}});
       },
       "op #0 (constant): attribute 'value' stores an element of ui2 as 7, "
       "expected its 2 bits zero-extended to the byte"},
      {"DenseF4HighBits",
       [] {
         DenseValue value{ElementType::F4E2M1FN, {1}, {0x1F}, false};
         return oneOp({}, OpKind::Constant,
                      {{"value", Attribute::dense(value)}},
                      {ElementType::F4E2M1FN, {1}});
       },
       "op #0 (constant): attribute 'value' stores an element of f4E2M1FN as "
       "31, expected its 4 bits zero-extended to the byte"},
      // compare, select, cast.
      {"CompareOperandMismatch",
       [] {
         return oneOp({kF32x23, kI32x23}, OpKind::Compare, predicate("eq"),
                      kI1x23);
       },
       "op #0 (compare): operand 1 has type tensor<2x3xi32>, expected "
       "tensor<2x3xf32> (the type of operand 0)"},
      {"UnsignedPredicateOnFloats",
       [] {
         return oneOp({kF32x23, kF32x23}, OpKind::Compare, predicate("ult"),
                      kI1x23);
       },
       "op #0 (compare): predicate 'ult' reads integers as unsigned and is "
       "not allowed on f32 operands"},
      {"SelectConditionNotBool",
       [] {
         return oneOp({kF32x23, kF32x23, kF32x23}, OpKind::Select, {}, kF32x23);
       },
       "op #0 (select): operand 0 (the condition) has element type f32, "
       "expected i1"},
      {"SelectBranchMismatch",
       [] {
         return oneOp({kI1x23, kF32x23, kI32x23}, OpKind::Select, {}, kF32x23);
       },
       "op #0 (select): operand 2 has type tensor<2x3xi32>, expected "
       "tensor<2x3xf32> (the type of operand 1)"},
      {"SelectConditionShape",
       [] {
         return oneOp({{ElementType::I1, {3, 2}}, kF32x23, kF32x23},
                      OpKind::Select, {}, kF32x23);
       },
       "op #0 (select): operand 0 (the condition) has type tensor<3x2xi1>, "
       "expected the shape of operand 1, tensor<2x3xf32>"},
      {"CastUnsignedFromFloat",
       [] {
         return oneOp({kF32x23}, OpKind::Cast,
                      {{"is_unsigned", Attribute::flag(true)}}, kI32x23);
       },
       "op #0 (cast): attribute 'is_unsigned' needs an integer operand, got "
       "f32"},
      {"CastSaturateToF16",
       [] {
         return oneOp({kF32x23}, OpKind::Cast,
                      {{"saturate", Attribute::flag(true)}},
                      {ElementType::F16, {2, 3}});
       },
       "op #0 (cast): attribute 'saturate' needs an f8 result, got f16"},
      {"CastSaturateToF4",
       [] {
         return oneOp({kF32x23}, OpKind::Cast,
                      {{"saturate", Attribute::flag(true)}},
                      {ElementType::F4E2M1FN, {2, 3}});
       },
       "op #0 (cast): attribute 'saturate' needs an f8 result, got f4E2M1FN"},
      {"CastRoundModeToE4M3",
       [] {
         return oneOp({kF32x23}, OpKind::Cast,
                      {{"round_mode", Attribute::enumName("down")}},
                      {ElementType::F8E4M3FN, {2, 3}});
       },
       "op #0 (cast): attribute 'round_mode' needs an f8E8M0FNU result, got "
       "f8E4M3FN"},
      {"CastUnknownRoundMode",
       [] {
         return oneOp({kF32x23}, OpKind::Cast,
                      {{"round_mode", Attribute::enumName("even")}},
                      {ElementType::F8E8M0FNU, {2, 3}});
       },
       "op #0 (cast): attribute 'round_mode' is \"even\", expected one of up, "
       "down, nearest"},
      {"CastChangesShape",
       [] { return oneOp({kF32x23}, OpKind::Cast, {}, kF32x32); },
       "op #0 (cast): result type tensor<3x2xf32> must have the operand's "
       "shape, tensor<2x3xf32>"},
      // Shape ops.
      {"BroadcastElementType",
       [] {
         return oneOp({f32({3})}, OpKind::Broadcast, dims({1}),
                      {ElementType::F16, {2, 3}});
       },
       "op #0 (broadcast): result type tensor<2x3xf16> must have the "
       "operand's element type, f32"},
      {"BroadcastDimsLength",
       [] {
         return oneOp({f32({3})}, OpKind::Broadcast, dims({0, 1}), kF32x23);
       },
       "op #0 (broadcast): attribute 'dims' = [0, 1] has 2 entries, "
       "expected 1 (the operand's rank)"},
      {"BroadcastDimOutOfRange",
       [] { return oneOp({f32({3})}, OpKind::Broadcast, dims({2}), kF32x23); },
       "op #0 (broadcast): attribute 'dims' = [2] has dim 2 out of range "
       "[0, 2)"},
      {"BroadcastDimsNotIncreasing",
       [] {
         return oneOp({f32({3, 2})}, OpKind::Broadcast, dims({1, 0}), kF32x23);
       },
       "op #0 (broadcast): attribute 'dims' = [1, 0] must be strictly "
       "increasing"},
      {"BroadcastIncompatibleDim",
       [] { return oneOp({f32({2})}, OpKind::Broadcast, dims({1}), kF32x23); },
       "op #0 (broadcast): operand dim 0 of size 2 cannot broadcast to "
       "result dim 1 of size 3 (it must be 1 or equal)"},
      {"ReshapeElementType",
       [] {
         return oneOp({kF32x23}, OpKind::Reshape, {}, {ElementType::I32, {6}});
       },
       "op #0 (reshape): result type tensor<6xi32> must have the operand's "
       "element type, f32"},
      {"ReshapeElementCount",
       [] { return oneOp({kF32x23}, OpKind::Reshape, {}, f32({7})); },
       "op #0 (reshape): result type tensor<7xf32> has 7 elements, expected "
       "6 (those of tensor<2x3xf32>)"},
      {"BadPermutation",
       [] {
         return oneOp({kF32x23}, OpKind::Transpose,
                      {{"permutation", Attribute::i64Array({1, 1})}}, kF32x32);
       },
       "op #0 (transpose): attribute 'permutation' = [1, 1] is not a "
       "permutation of [0, 2)"},
      {"SliceAttributeLength",
       [] {
         return oneOp({kF32x23}, OpKind::Slice, sliceAttrs({0}, {1, 1}, {1, 1}),
                      f32({1, 1}));
       },
       "op #0 (slice): attribute 'offsets' = [0] has 1 entries, expected 2 "
       "(the operand's rank)"},
      {"SliceStride",
       [] {
         return oneOp({kF32x23}, OpKind::Slice,
                      sliceAttrs({0, 0}, {1, 1}, {1, 0}), f32({1, 1}));
       },
       "op #0 (slice): stride 0 of dim 1 must be >= 1"},
      {"SliceSize",
       [] {
         return oneOp({kF32x23}, OpKind::Slice,
                      sliceAttrs({0, 0}, {-1, 1}, {1, 1}), f32({1, 1}));
       },
       "op #0 (slice): size -1 of dim 0 must be >= 0"},
      {"SliceOffset",
       [] {
         return oneOp({kF32x23}, OpKind::Slice,
                      sliceAttrs({0, 4}, {1, 0}, {1, 1}), f32({1, 0}));
       },
       "op #0 (slice): offset 4 of dim 1 is out of range [0, 3]"},
      // offset = dim with size 1 reads one past the end; a stride of 2
      // hid it from a truncating division ((dim - 1 - offset) / 2 is 0).
      {"SliceOffsetAtEndStrided",
       [] {
         return oneOp({kF32x23}, OpKind::Slice,
                      sliceAttrs({0, 3}, {1, 1}, {1, 2}), f32({1, 1}));
       },
       "op #0 (slice): dim 1 of size 3 is too small for offset 3, size 1, "
       "stride 2 (the last element read, offset + (size - 1) * stride, must "
       "be < 3)"},
      // The last element read passes 2^63: too far, not wrapped in range.
      {"SliceLastPasses2To63",
       [] {
         return oneOp({kF32x23}, OpKind::Slice,
                      sliceAttrs({0, 1}, {1, 3}, {1, INT64_MAX}), f32({1, 3}));
       },
       "op #0 (slice): dim 1 of size 3 is too small for offset 1, size 3, "
       "stride 9223372036854775807 (the last element read, offset + (size - "
       "1) * stride, must be < 3)"},
      // Empty operands whose concatenated axis passes 2^63 (it wrapped to
      // INT64_MIN).
      {"ConcatAxisPasses2To63",
       [] {
         return oneOp(
             {f32({0, INT64_MAX / 2 + 1}), f32({0, INT64_MAX / 2 + 1})},
             OpKind::Concat, {{"axis", Attribute::i64(1)}}, f32({0, 1}));
       },
       "op #0 (concat): the operands' dims along axis 1 add up past 2^63 "
       "(operand 0 is tensor<0x4611686018427387904xf32>, 2 operands)"},
      {"SliceOutOfBounds",
       [] {
         return oneOp({kF32x23}, OpKind::Slice,
                      sliceAttrs({0, 1}, {1, 2}, {1, 2}), f32({1, 2}));
       },
       "op #0 (slice): dim 1 of size 3 is too small for offset 1, size 2, "
       "stride 2 (the last element read, offset + (size - 1) * stride, must "
       "be < 3)"},
      {"ConcatAxisOutOfRange",
       [] {
         return oneOp({kF32x23, kF32x23}, OpKind::Concat,
                      {{"axis", Attribute::i64(2)}}, kF32x23);
       },
       "op #0 (concat): attribute 'axis' = 2 out of range [0, 2)"},
      {"ConcatIncompatible",
       [] {
         return oneOp({kF32x23, kF32x32}, OpKind::Concat,
                      {{"axis", Attribute::i64(0)}}, f32({5, 3}));
       },
       "op #0 (concat): operand 1 has type tensor<3x2xf32>, expected the "
       "rank, element type and every dim but axis 0 of operand 0, "
       "tensor<2x3xf32>"},
      // Reductions and matmul.
      {"ReduceDimOutOfRange",
       [] {
         return oneOp({kF32x23}, OpKind::Reduce, reduceAttrs("sum", {2}),
                      f32({2}));
       },
       "op #0 (reduce): attribute 'dims' = [2] has dim 2 out of range [0, "
       "2)"},
      {"ReduceMaxOverEmptyDim",
       [] {
         return oneOp({f32({0, 3})}, OpKind::Reduce, reduceAttrs("max", {0}),
                      f32({3}));
       },
       "op #0 (reduce): reduction 'max' over dim 0 of size 0 has no value "
       "(tensor<0x3xf32>)"},
      {"ArgMaxOverEmptyAxis",
       [] {
         return oneOp({f32({2, 0})}, OpKind::ArgMax,
                      {{"axis", Attribute::i64(1)}}, {ElementType::I64, {2}});
       },
       "op #0 (argmax): argmax over axis 1 of size 0 has no index "
       "(tensor<2x0xf32>)"},
      {"MatmulElementTypes",
       [] {
         return oneOp({kF32x23, {ElementType::F16, {3, 2}}}, OpKind::Matmul, {},
                      f32({2, 2}));
       },
       "op #0 (matmul): operand 1 has element type f16, expected f32 (that "
       "of operand 0)"},
      {"MatmulRank",
       [] {
         return oneOp({f32({3}), kF32x32}, OpKind::Matmul, {}, f32({2}));
       },
       "op #0 (matmul): operand 0 has type tensor<3xf32>, expected rank >= "
       "2"},
      {"MatmulContraction",
       [] {
         return oneOp({kF32x23, kF32x23}, OpKind::Matmul, {}, f32({2, 3}));
       },
       "op #0 (matmul): contraction dims differ: operand 0 tensor<2x3xf32> "
       "has K = 3, operand 1 tensor<2x3xf32> has K = 2"},
      {"MatmulBatch",
       [] {
         return oneOp({f32({4, 2, 3}), f32({5, 3, 2})}, OpKind::Matmul, {},
                      f32({4, 2, 2}));
       },
       "op #0 (matmul): batch dims differ: [4] and [5] (they must be equal, "
       "or one operand must have rank 2)"},
      // Graph structure.
      {"UnknownOpKind",
       [] { return oneOp({kF32x23}, static_cast<OpKind>(999), {}, kF32x23); },
       "op #0: unknown op kind 999 (Ops.def has " +
           std::to_string(allOpKinds().size()) + ")"},
      {"OperandRefersToNoTensor",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.ops[0].operands[0] = 9;
         return graph;
       },
       "op #0 (exp): operand 0 refers to no tensor: tensor 9 (the graph has "
       "2)"},
      {"OperandUsedBeforeDefinition",
       [] {
         Graph graph;
         graph.addInput(kF32x23);
         graph.tensors.push_back({kF32x23, ""});
         graph.tensors.push_back({kF32x23, ""});
         graph.ops.push_back({OpKind::Exp, {2}, {1}, {}});
         graph.ops.push_back({OpKind::Neg, {0}, {2}, {}});
         return graph;
       },
       "op #0 (exp): operand 0 is tensor 2, used before op #1 defines it"},
      {"OperandNeverDefined",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.tensors.push_back({kF32x23, ""});
         graph.ops[0].operands[0] = 2;
         return graph;
       },
       "op #0 (exp): operand 0 is tensor 2, which is neither an input nor "
       "the result of an op"},
      {"TwoResults",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.ops[0].results.push_back(0);
         return graph;
       },
       "op #0 (exp): expected 1 result, got 2"},
      {"ResultRefersToNoTensor",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.ops[0].results[0] = -1;
         return graph;
       },
       "op #0 (exp): result refers to no tensor: tensor -1 (the graph has "
       "2)"},
      {"ResultIsAnInput",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.ops[0].results[0] = 0;
         return graph;
       },
       "op #0 (exp): result tensor 0 is a graph input"},
      {"ResultDefinedTwice",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.ops.push_back({OpKind::Neg, {0}, {1}, {}});
         return graph;
       },
       "op #1 (neg): result tensor 1 is already the result of op #0"},
      {"DanglingTensor",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.tensors.push_back({kF32x23, ""});
         return graph;
       },
       "tensor 2 is neither an input nor the result of an op"},
      {"InputRefersToNoTensor",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.inputs.push_back(5);
         return graph;
       },
       "input #1 refers to no tensor: tensor 5 (the graph has 2)"},
      {"InputListedTwice",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.inputs.push_back(0);
         return graph;
       },
       "input #1: tensor 0 is listed as an input more than once"},
      {"OutputRefersToNoTensor",
       [] {
         Graph graph = oneOp({kF32x23}, OpKind::Exp, {}, kF32x23);
         graph.outputs.push_back({3, ""});
         return graph;
       },
       "output #1 refers to no tensor: tensor 3 (the graph has 2)"},
  };
}

class ValidationMessageTest : public testing::TestWithParam<Case> {};

TEST_P(ValidationMessageTest, Reports) {
  const Status status = validate(GetParam().build());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Verifier, ValidationMessageTest,
                         testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

TEST(VerifierTest, BuilderRequiresResultTypeWhereNotInferred) {
  for (OpKind kind : {OpKind::Cast, OpKind::Broadcast, OpKind::Reshape}) {
    Graph graph;
    TensorId x = graph.addInput(kF32x23);
    AttrMap attributes;
    if (kind == OpKind::Broadcast)
      attributes = dims({0, 1});
    Expected<TensorId> result = graph.addOp(kind, {x}, attributes);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.message(), "op #0 (" + std::string(mnemonic(kind)) +
                                    "): a result type is required (" +
                                    std::string(mnemonic(kind)) +
                                    " does not infer it)");
  }
}

TEST(VerifierTest, BuilderRejectsUnknownOperand) {
  Graph graph;
  graph.addInput(kF32x23);
  Expected<TensorId> result = graph.addOp(OpKind::Exp, {4});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.message(),
            "op #0 (exp): operand 0 refers to no tensor: tensor 4 (the graph "
            "has 1)");
  const Status output = graph.markOutput(7);
  EXPECT_EQ(output.message(),
            "output #0 refers to no tensor: tensor 7 (the graph has 1)");
}

TEST(VerifierTest, NewIntegerTypesFollowIntegerAndNumericRules) {
  for (ElementType type :
       {ElementType::I16, ElementType::UI8, ElementType::UI16,
        ElementType::UI32, ElementType::UI64}) {
    const std::string name(elementTypeName(type));
    GraphBuilder b;
    const TensorType t{type, {2, 3}};
    TensorId x = b.input(t), y = b.input(t);
    b.output(b.binary(OpKind::Xor, x, y));
    b.output(b.unary(OpKind::Not, x));
    b.output(b.binary(OpKind::Rem, x, y));
    b.output(b.unary(OpKind::Abs, x));
    b.output(b.compare(ComparePredicate::Ult, x, y));
    b.output(b.reduce(ReduceKind::Max, x, {1}));
    b.output(b.argmin(x, 0, false, false));
    b.output(b.matmul(x, b.transpose(y, {1, 0})));
    b.output(b.cast(x, ElementType::F32));
    b.output(b.cast(b.cast(x, ElementType::F32), type));
    Expected<Graph> graph = b.finish();
    ASSERT_TRUE(graph.ok()) << name << ": " << graph.message();
    EXPECT_TRUE(validate(*graph).ok()) << name;
    // `is_unsigned` is accepted (and redundant on the ui types).
    EXPECT_TRUE(validate(oneOp({t, t}, OpKind::Div,
                               {{"is_unsigned", Attribute::flag(true)}}, t))
                    .ok())
        << name;
    // Integers are not floats: float ops refuse them.
    EXPECT_FALSE(validate(oneOp({t}, OpKind::Sqrt, {}, t)).ok()) << name;
  }
}

// The engine's fast path asks followsTypeRule, so what it accepts is what
// validate() accepts: every rule, every type, checked against a one-op graph.
TEST(VerifierTest, FollowsTypeRuleAgreesWithValidation) {
  const std::pair<OpKind, TypeRule> ops[] = {
      {OpKind::Exp, TypeRule::Float},
      {OpKind::IsNaN, TypeRule::FloatPred},
      {OpKind::Neg, TypeRule::Numeric},
      {OpKind::Not, TypeRule::Integer}};
  for (ElementType type : allElementTypes())
    for (const auto &[kind, rule] : ops) {
      ASSERT_EQ(opInfo(kind).typeRule, rule);
      const TensorType t{type, {2}};
      const TensorType result{
          rule == TypeRule::FloatPred ? ElementType::I1 : type, {2}};
      EXPECT_EQ(followsTypeRule(type, rule),
                validate(oneOp({t}, kind, {}, result)).ok())
          << mnemonic(kind) << " on " << elementTypeName(type);
    }
  EXPECT_TRUE(followsTypeRule(ElementType::UI64, TypeRule::Integer));
  EXPECT_TRUE(followsTypeRule(ElementType::I16, TypeRule::Numeric));
  EXPECT_FALSE(followsTypeRule(ElementType::UI8, TypeRule::Float));
  EXPECT_FALSE(followsTypeRule(ElementType::F8E4M3FN, TypeRule::Float));
  EXPECT_FALSE(followsTypeRule(ElementType::F8E5M2, TypeRule::Numeric));
  EXPECT_TRUE(followsTypeRule(ElementType::F8E5M2, TypeRule::Any));
}

TEST(VerifierTest, ValidGraphsPass) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {4, 2, 3}});
  TensorId w = b.input({ElementType::F32, {3, 5}});
  TensorId y = b.matmul(x, w);
  TensorId empty = b.input({ElementType::F32, {0, 3}});
  b.output(b.reduce(ReduceKind::Sum, empty, {0}));
  b.output(b.reduce(ReduceKind::Max, y, {}));
  b.output(b.slice(x, {0, 2, 3}, {4, 0, 0}, {1, 1, 1}));
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_TRUE(validate(*graph).ok()) << validate(*graph).message();
}

} // namespace
