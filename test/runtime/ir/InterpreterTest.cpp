//===- InterpreterTest.cpp - Every op against hand-computed values --------===//
//
// Expected values are worked out by hand (or are well-known constants such
// as e, pi/4, tanh(1)), never produced by the code under test.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace fuse;
using namespace fuse::irtest;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Runs one op on `inputs` through a graph and returns its result (an empty
/// tensor, and a failure, where it does not evaluate).
HostTensorData run(OpKind kind, std::vector<HostTensorData> inputs,
                   AttrMap attributes = {},
                   std::optional<TensorType> resultType = {}) {
  Expected<HostTensorData> result = evaluateOp(
      kind, std::move(inputs), std::move(attributes), std::move(resultType));
  if (!result.ok()) {
    ADD_FAILURE() << result.message();
    return HostTensorData(TensorType{});
  }
  return result.take();
}

AttrMap flag(const char *name) { return {{name, Attribute::flag(true)}}; }

/// Elementwise comparison that treats NaN as equal to NaN and tells -0 from
/// +0 only through the values given.
void expectDoubles(const HostTensorData &actual,
                   const std::vector<double> &expected) {
  const std::vector<double> values = actual.toDoubles();
  ASSERT_EQ(values.size(), expected.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(values[i])) << "index " << i;
    else
      EXPECT_EQ(values[i], expected[i]) << "index " << i;
  }
}

void expectInts(const HostTensorData &actual,
                const std::vector<std::int64_t> &expected) {
  EXPECT_EQ(actual.toInts(), expected);
}

void expectNear(const HostTensorData &actual,
                const std::vector<double> &expected, double tolerance) {
  const std::vector<double> values = actual.toDoubles();
  ASSERT_EQ(values.size(), expected.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(values[i], expected[i], tolerance) << "index " << i;
}

// Unary float ops.

TEST(InterpreterTest, ExactUnaryFloatOps) {
  const HostTensorData x = f64({4}, {-2.5, -0.0, 4.0, kNaN});
  expectDoubles(run(OpKind::Neg, {x}), {2.5, 0.0, -4.0, kNaN});
  expectDoubles(run(OpKind::Abs, {x}), {2.5, 0.0, 4.0, kNaN});
  expectDoubles(run(OpKind::Floor, {x}), {-3.0, -0.0, 4.0, kNaN});
  expectDoubles(run(OpKind::Ceil, {x}), {-2.0, -0.0, 4.0, kNaN});
  expectDoubles(run(OpKind::Sign, {f64({5}, {-2.5, -0.0, 0.0, 7.0, kNaN})}),
                {-1.0, 0.0, 0.0, 1.0, kNaN});
  expectDoubles(run(OpKind::Sqrt, {f64({2}, {4.0, 2.25})}), {2.0, 1.5});
  expectDoubles(run(OpKind::Rsqrt, {f64({2}, {4.0, 0.25})}), {0.5, 2.0});
  expectDoubles(run(OpKind::Reciprocal, {f64({3}, {4.0, -0.5, 0.0})}),
                {0.25, -2.0, kInf});
}

TEST(InterpreterTest, RoundIsHalfToEven) {
  expectDoubles(run(OpKind::Round, {f32({10}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5,
                                               2.4, 2.6, -2.6, 3.0})}),
                {0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0, 3.0, -3.0, 3.0});
}

TEST(InterpreterTest, TranscendentalOps) {
  const double tolerance = 1e-15;
  expectNear(run(OpKind::Exp, {f64({2}, {0.0, 1.0})}), {1.0, 2.718281828459045},
             tolerance);
  expectNear(run(OpKind::Log, {f64({2}, {1.0, 2.718281828459045})}), {0.0, 1.0},
             tolerance);
  expectNear(run(OpKind::Tanh, {f64({2}, {0.0, 1.0})}),
             {0.0, 0.7615941559557649}, tolerance);
  expectNear(run(OpKind::Sigmoid, {f64({2}, {0.0, 2.0})}),
             {0.5, 0.8807970779778823}, tolerance);
  expectNear(run(OpKind::Erf, {f64({2}, {0.0, 1.0})}),
             {0.0, 0.8427007929497149}, tolerance);
  expectNear(run(OpKind::Sin, {f64({2}, {0.0, 1.5707963267948966})}),
             {0.0, 1.0}, tolerance);
  expectNear(run(OpKind::Cos, {f64({2}, {0.0, 3.141592653589793})}),
             {1.0, -1.0}, tolerance);
  expectNear(run(OpKind::Tan, {f64({2}, {0.0, 0.7853981633974483})}),
             {0.0, 1.0}, tolerance);
  expectNear(run(OpKind::Asin, {f64({2}, {0.0, 1.0})}),
             {0.0, 1.5707963267948966}, tolerance);
  expectNear(run(OpKind::Acos, {f64({2}, {1.0, 0.0})}),
             {0.0, 1.5707963267948966}, tolerance);
  expectNear(run(OpKind::Atan, {f64({2}, {0.0, 1.0})}),
             {0.0, 0.7853981633974483}, tolerance);
  // sinh(ln 2) = (2 - 1/2) / 2, cosh(ln 2) = (2 + 1/2) / 2.
  expectNear(run(OpKind::Sinh, {f64({2}, {0.0, 0.6931471805599453})}),
             {0.0, 0.75}, tolerance);
  expectNear(run(OpKind::Cosh, {f64({2}, {0.0, 0.6931471805599453})}),
             {1.0, 1.25}, tolerance);
  expectNear(run(OpKind::Asinh, {f64({2}, {0.0, 0.75})}),
             {0.0, 0.6931471805599453}, tolerance);
  expectNear(run(OpKind::Acosh, {f64({2}, {1.0, 1.25})}),
             {0.0, 0.6931471805599453}, tolerance);
  // atanh(1/3) = ln(2) / 2.
  expectNear(run(OpKind::Atanh, {f64({2}, {0.0, 1.0 / 3.0})}),
             {0.0, 0.34657359027997264}, tolerance);
  expectDoubles(run(OpKind::Log, {f64({2}, {0.0, -1.0})}), {-kInf, kNaN});
}

TEST(InterpreterTest, FloatPredicates) {
  const HostTensorData x = f32({4}, {1.0, kInf, -kInf, kNaN});
  const HostTensorData inf = run(OpKind::IsInf, {x});
  EXPECT_EQ(inf.type.elementType, ElementType::I1);
  expectInts(inf, {0, 1, 1, 0});
  expectInts(run(OpKind::IsNaN, {x}), {0, 0, 0, 1});
}

// Unary integer ops.

TEST(InterpreterTest, IntegerUnaryOpsWrap) {
  expectInts(run(OpKind::Neg, {i8({3}, {5, -128, 127})}), {-5, -128, -127});
  expectInts(run(OpKind::Abs, {i8({3}, {-5, -128, 7})}), {5, -128, 7});
  expectInts(run(OpKind::Sign, {i32({3}, {-9, 0, 12})}), {-1, 0, 1});
  expectInts(run(OpKind::Not, {i32({2}, {5, -1})}), {-6, 0});
  expectInts(run(OpKind::Not, {i1({2}, {0, 1})}), {1, 0});
}

// Binary ops.

TEST(InterpreterTest, FloatArithmetic) {
  const HostTensorData a = f64({3}, {1.5, -2.0, 7.0});
  const HostTensorData b = f64({3}, {0.5, 4.0, -2.0});
  expectDoubles(run(OpKind::Add, {a, b}), {2.0, 2.0, 5.0});
  expectDoubles(run(OpKind::Sub, {a, b}), {1.0, -6.0, 9.0});
  expectDoubles(run(OpKind::Mul, {a, b}), {0.75, -8.0, -14.0});
  expectDoubles(run(OpKind::Div, {a, b}), {3.0, -0.5, -3.5});
  expectDoubles(run(OpKind::Pow,
                    {f64({3}, {2.0, 9.0, -2.0}), f64({3}, {10.0, 0.5, 3.0})}),
                {1024.0, 3.0, -8.0});
  expectDoubles(run(OpKind::Div, {f64({2}, {1.0, 0.0}), f64({2}, {0.0, 0.0})}),
                {kInf, kNaN});
}

TEST(InterpreterTest, MaxMinPropagateNaN) {
  const HostTensorData a = f32({3}, {1.0, kNaN, 3.0});
  const HostTensorData b = f32({3}, {2.0, 1.0, kNaN});
  expectDoubles(run(OpKind::Max, {a, b}), {2.0, kNaN, kNaN});
  expectDoubles(run(OpKind::Min, {a, b}), {1.0, kNaN, kNaN});
  expectInts(run(OpKind::Max, {i32({2}, {-3, 4}), i32({2}, {2, -9})}), {2, 4});
  expectInts(run(OpKind::Min, {i32({2}, {-3, 4}), i32({2}, {2, -9})}),
             {-3, -9});
}

TEST(InterpreterTest, FloatRemBothModes) {
  const HostTensorData a = f64({4}, {7.5, -7.5, 7.5, -7.5});
  const HostTensorData b = f64({4}, {2.0, 2.0, -2.0, -2.0});
  // Floor-mod: the sign of the divisor.
  expectDoubles(run(OpKind::Rem, {a, b}), {1.5, 0.5, -0.5, -1.5});
  // fmod: the sign of the dividend.
  expectDoubles(run(OpKind::Rem, {a, b}, flag("fmod")), {1.5, -1.5, 1.5, -1.5});
}

TEST(InterpreterTest, IntegerRemBothModes) {
  const HostTensorData a = i32({5}, {7, -7, 7, -7, 6});
  const HostTensorData b = i32({5}, {3, 3, -3, -3, 3});
  expectInts(run(OpKind::Rem, {a, b}), {1, 2, -2, -1, 0});
  expectInts(run(OpKind::Rem, {a, b}, flag("fmod")), {1, -1, 1, -1, 0});
  // By zero gives 0; INT_MIN % -1 is 0.
  expectInts(run(OpKind::Rem, {i8({2}, {5, -128}), i8({2}, {0, -1})}), {0, 0});
  // Unsigned: -1 as i8 is 255; 255 % 10 = 5, 250 % 7 = 5.
  expectInts(run(OpKind::Rem, {i8({2}, {-1, -6}), i8({2}, {10, 7})},
                 flag("is_unsigned")),
             {5, 5});
}

TEST(InterpreterTest, IntegerDivTruncatesTowardZero) {
  expectInts(
      run(OpKind::Div, {i32({4}, {7, -7, 7, -7}), i32({4}, {2, 2, -2, -2})}),
      {3, -3, -3, 3});
  // By zero gives 0; INT8_MIN / -1 wraps to INT8_MIN.
  expectInts(run(OpKind::Div, {i8({2}, {5, -128}), i8({2}, {0, -1})}),
             {0, -128});
  const std::int64_t min64 = std::numeric_limits<std::int64_t>::min();
  expectInts(run(OpKind::Div, {ints(ElementType::I64, {1}, {min64}),
                               ints(ElementType::I64, {1}, {-1})}),
             {min64});
  // Unsigned: 255 / 2 = 127 (stored as 127), 200 / 3 = 66.
  expectInts(run(OpKind::Div, {i8({3}, {-1, -56, 5}), i8({3}, {2, 3, 0})},
                 flag("is_unsigned")),
             {127, 66, 0});
}

TEST(InterpreterTest, IntegerArithmeticWraps) {
  expectInts(run(OpKind::Add, {i8({2}, {127, -128}), i8({2}, {1, -1})}),
             {-128, 127});
  expectInts(run(OpKind::Sub, {i8({1}, {-128}), i8({1}, {1})}), {127});
  expectInts(run(OpKind::Mul, {i32({2}, {65536, -3}), i32({2}, {65536, 5})}),
             {0, -15});
  const std::int64_t max64 = std::numeric_limits<std::int64_t>::max();
  expectInts(run(OpKind::Add, {ints(ElementType::I64, {1}, {max64}),
                               ints(ElementType::I64, {1}, {1})}),
             {std::numeric_limits<std::int64_t>::min()});
}

TEST(InterpreterTest, IntegerPow) {
  expectInts(run(OpKind::Pow, {i32({7}, {2, -3, 2, 1, -1, -1, 0}),
                               i32({7}, {10, 3, -1, -5, -3, -2, 0})}),
             {1024, -27, 0, 1, -1, 1, 1});
  // 2^7 = 128 wraps to -128 in i8; 3^5 = 243 wraps to -13.
  expectInts(run(OpKind::Pow, {i8({2}, {2, 3}), i8({2}, {7, 5})}), {-128, -13});
}

TEST(InterpreterTest, LogicalAndBitwise) {
  const HostTensorData a = i1({4}, {0, 0, 1, 1});
  const HostTensorData b = i1({4}, {0, 1, 0, 1});
  expectInts(run(OpKind::And, {a, b}), {0, 0, 0, 1});
  expectInts(run(OpKind::Or, {a, b}), {0, 1, 1, 1});
  expectInts(run(OpKind::Xor, {a, b}), {0, 1, 1, 0});
  const HostTensorData c = i32({2}, {12, -1});
  const HostTensorData d = i32({2}, {10, 6});
  expectInts(run(OpKind::And, {c, d}), {8, 6});
  expectInts(run(OpKind::Or, {c, d}), {14, -1});
  expectInts(run(OpKind::Xor, {c, d}), {6, -7});
}

// compare, select, cast.

AttrMap predicate(const char *name) {
  return {{"predicate", Attribute::enumName(name)}};
}

TEST(InterpreterTest, CompareIntegersSignedAndUnsigned) {
  const HostTensorData a = i32({3}, {-1, 2, 5});
  const HostTensorData b = i32({3}, {1, 2, 3});
  expectInts(run(OpKind::Compare, {a, b}, predicate("eq")), {0, 1, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ne")), {1, 0, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("lt")), {1, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("le")), {1, 1, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("gt")), {0, 0, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ge")), {0, 1, 1});
  // -1 reads as 2^32 - 1 unsigned.
  expectInts(run(OpKind::Compare, {a, b}, predicate("ult")), {0, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ule")), {0, 1, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ugt")), {1, 0, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("uge")), {1, 1, 1});
  // i1 compares as 0 < 1.
  expectInts(
      run(OpKind::Compare, {i1({2}, {0, 1}), i1({2}, {1, 0})}, predicate("lt")),
      {1, 0});
}

TEST(InterpreterTest, CompareFloatsIsOrderedExceptNe) {
  const HostTensorData a = f32({3}, {1.0, kNaN, 2.0});
  const HostTensorData b = f32({3}, {1.0, 1.0, kNaN});
  expectInts(run(OpKind::Compare, {a, b}, predicate("eq")), {1, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ne")), {0, 1, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("lt")), {0, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("le")), {1, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("gt")), {0, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ge")), {1, 0, 0});
}

TEST(InterpreterTest, Select) {
  expectDoubles(
      run(OpKind::Select, {i1({2, 2}, {1, 0, 0, 1}), f32({2, 2}, {1, 2, 3, 4}),
                           f32({2, 2}, {-1, -2, -3, -4})}),
      {1, -2, -3, 4});
}

TensorType castTo(ElementType type, Shape shape) {
  return {type, std::move(shape)};
}

TEST(InterpreterTest, CastFloatToInteger) {
  const HostTensorData x =
      f32({8}, {2.7, -2.7, 1e10, -1e10, kNaN, kInf, 0.5, -0.0});
  expectInts(run(OpKind::Cast, {x}, {}, castTo(ElementType::I32, {8})),
             {2, -2, 2147483647, -2147483648, 0, 2147483647, 0, 0});
  expectInts(run(OpKind::Cast, {x}, {}, castTo(ElementType::I8, {8})),
             {2, -2, 127, -128, 0, 127, 0, 0});
  // To i1: "not zero"; NaN is not zero.
  expectInts(run(OpKind::Cast, {x}, {}, castTo(ElementType::I1, {8})),
             {1, 1, 1, 1, 1, 1, 1, 0});
}

TEST(InterpreterTest, CastBetweenIntegers) {
  expectInts(run(OpKind::Cast, {i32({3}, {300, -1, 127})}, {},
                 castTo(ElementType::I8, {3})),
             {44, -1, 127});
  expectInts(
      run(OpKind::Cast, {i8({2}, {-1, 5})}, {}, castTo(ElementType::I32, {2})),
      {-1, 5});
  expectInts(run(OpKind::Cast, {i8({2}, {-1, 5})}, flag("is_unsigned"),
                 castTo(ElementType::I32, {2})),
             {255, 5});
  expectInts(
      run(OpKind::Cast, {i1({2}, {1, 0})}, {}, castTo(ElementType::I32, {2})),
      {1, 0});
  expectInts(run(OpKind::Cast, {i32({3}, {0, 2, -4})}, {},
                 castTo(ElementType::I1, {3})),
             {0, 1, 1});
}

TEST(InterpreterTest, CastToFloatRoundsToNearestEven) {
  // 2^24 + 1 and 2^24 + 3 are ties in f32: to 2^24 and 2^24 + 4.
  expectDoubles(run(OpKind::Cast, {i32({3}, {16777217, 16777219, -5})}, {},
                    castTo(ElementType::F32, {3})),
                {16777216.0, 16777220.0, -5.0});
  expectDoubles(run(OpKind::Cast, {i8({1}, {-1})}, flag("is_unsigned"),
                    castTo(ElementType::F32, {1})),
                {255.0});
  // f64 -> f16: 1 + 2^-11 ties down to 1, 1 + 3 * 2^-11 ties up.
  expectDoubles(run(OpKind::Cast,
                    {f64({3}, {1.0 + std::ldexp(1.0, -11),
                               1.0 + 3 * std::ldexp(1.0, -11), 70000.0})},
                    {}, castTo(ElementType::F16, {3})),
                {1.0, 1.0 + std::ldexp(1.0, -9), kInf});
  // f32 -> bf16: 1 + 2^-8 ties down, 1 + 3 * 2^-8 ties up.
  expectDoubles(run(OpKind::Cast,
                    {f32({2}, {1.0 + std::ldexp(1.0, -8),
                               1.0 + 3 * std::ldexp(1.0, -8)})},
                    {}, castTo(ElementType::BF16, {2})),
                {1.0, 1.0 + std::ldexp(1.0, -6)});
}

TEST(InterpreterTest, HalfPrecisionArithmeticRoundsOnce) {
  // 1 + 2^-11 is a tie in f16 and goes to the even 1; (1 + 2^-10) + 2^-11
  // goes to the even 1 + 2^-9.
  const HostTensorData a =
      floats(ElementType::F16, {2}, {1.0, 1.0 + std::ldexp(1.0, -10)});
  const HostTensorData b = floats(ElementType::F16, {2},
                                  {std::ldexp(1.0, -11), std::ldexp(1.0, -11)});
  expectDoubles(run(OpKind::Add, {a, b}), {1.0, 1.0 + std::ldexp(1.0, -9)});
  const HostTensorData c =
      floats(ElementType::BF16, {2}, {1.0, 1.0 + std::ldexp(1.0, -7)});
  const HostTensorData d = floats(ElementType::BF16, {2},
                                  {std::ldexp(1.0, -8), std::ldexp(1.0, -8)});
  expectDoubles(run(OpKind::Add, {c, d}), {1.0, 1.0 + std::ldexp(1.0, -6)});
  // 65504 + 16 = 65520 ties to infinity in f16.
  expectDoubles(run(OpKind::Add, {floats(ElementType::F16, {1}, {65504.0}),
                                  floats(ElementType::F16, {1}, {16.0})}),
                {kInf});
}

// constant and shape ops.

TEST(InterpreterTest, Constants) {
  Graph graph;
  const TensorType type{ElementType::I32, {2, 2}};
  const std::int64_t values[] = {1, -2, 3, -4};
  AttrMap full{{"value", Attribute::dense(DenseValue::fromInts(type, values))}};
  AttrMap splat{{"value", Attribute::dense(DenseValue::makeSplat(type, 9))}};
  TensorId a = *graph.addOp(OpKind::Constant, {}, full);
  TensorId b = *graph.addOp(OpKind::Constant, {}, splat);
  ASSERT_TRUE(graph.markOutput(a).ok());
  ASSERT_TRUE(graph.markOutput(b).ok());
  Expected<std::vector<HostTensorData>> outputs = evaluateGraph(graph, {});
  ASSERT_TRUE(outputs.ok()) << outputs.message();
  expectInts((*outputs)[0], {1, -2, 3, -4});
  expectInts((*outputs)[1], {9, 9, 9, 9});
}

AttrMap ints64(const char *name, std::vector<std::int64_t> values) {
  return {{name, Attribute::i64Array(std::move(values))}};
}

TEST(InterpreterTest, Broadcast) {
  expectDoubles(run(OpKind::Broadcast, {f32({3}, {1, 2, 3})},
                    ints64("dims", {1}), castTo(ElementType::F32, {2, 3})),
                {1, 2, 3, 1, 2, 3});
  expectDoubles(run(OpKind::Broadcast, {f32({2, 1}, {1, 2})},
                    ints64("dims", {0, 1}), castTo(ElementType::F32, {2, 3})),
                {1, 1, 1, 2, 2, 2});
  // [2] into dim 0 of [2, 2, 2]: the value follows dim 0 only.
  expectInts(run(OpKind::Broadcast, {i32({2}, {5, 6})}, ints64("dims", {0}),
                 castTo(ElementType::I32, {2, 2, 2})),
             {5, 5, 5, 5, 6, 6, 6, 6});
  expectDoubles(run(OpKind::Broadcast, {f32({}, {7})}, ints64("dims", {}),
                    castTo(ElementType::F32, {2, 2})),
                {7, 7, 7, 7});
}

TEST(InterpreterTest, ReshapeKeepsRowMajorOrder) {
  const HostTensorData y =
      run(OpKind::Reshape, {i32({2, 3}, {1, 2, 3, 4, 5, 6})}, {},
          castTo(ElementType::I32, {3, 2}));
  EXPECT_EQ(y.type.shape, (Shape{3, 2}));
  expectInts(y, {1, 2, 3, 4, 5, 6});
}

TEST(InterpreterTest, Transpose) {
  const HostTensorData y =
      run(OpKind::Transpose, {i32({2, 3}, {1, 2, 3, 4, 5, 6})},
          ints64("permutation", {1, 0}));
  EXPECT_EQ(y.type.shape, (Shape{3, 2}));
  expectInts(y, {1, 4, 2, 5, 3, 6});
  // x[a][b][c] = 4a + 2b + c, shape [2, 2, 2]; permutation [2, 0, 1]:
  // y[i][j][k] = x[j][k][i].
  expectInts(run(OpKind::Transpose, {i32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})},
                 ints64("permutation", {2, 0, 1})),
             {0, 2, 4, 6, 1, 3, 5, 7});
}

AttrMap sliceAttrs(std::vector<std::int64_t> offsets,
                   std::vector<std::int64_t> sizes,
                   std::vector<std::int64_t> strides) {
  return {{"offsets", Attribute::i64Array(std::move(offsets))},
          {"sizes", Attribute::i64Array(std::move(sizes))},
          {"strides", Attribute::i64Array(std::move(strides))}};
}

TEST(InterpreterTest, SliceWithStrides) {
  expectInts(run(OpKind::Slice, {i32({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})},
                 sliceAttrs({1}, {3}, {3})),
             {1, 4, 7});
  // Rows 0 and 2, columns 1 and 3 of a 3x4 matrix of 10 * row + column.
  expectInts(run(OpKind::Slice,
                 {i32({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23})},
                 sliceAttrs({0, 1}, {2, 2}, {2, 2})),
             {1, 3, 21, 23});
}

TEST(InterpreterTest, Concat) {
  const HostTensorData a = i32({2, 1}, {1, 2});
  const HostTensorData b = i32({2, 2}, {3, 4, 5, 6});
  expectInts(run(OpKind::Concat, {a, b, a}, {{"axis", Attribute::i64(1)}}),
             {1, 3, 4, 1, 2, 5, 6, 2});
  const HostTensorData c = run(OpKind::Concat, {b, i32({1, 2}, {7, 8})},
                               {{"axis", Attribute::i64(0)}});
  EXPECT_EQ(c.type.shape, (Shape{3, 2}));
  expectInts(c, {3, 4, 5, 6, 7, 8});
}

// Reductions.

AttrMap reduceAttrs(const char *kind, std::vector<std::int64_t> dims,
                    bool keepDims = false) {
  AttrMap attributes{{"kind", Attribute::enumName(kind)},
                     {"dims", Attribute::i64Array(std::move(dims))}};
  if (keepDims)
    attributes.emplace("keep_dims", Attribute::flag(true));
  return attributes;
}

TEST(InterpreterTest, ReduceKinds) {
  // [[1, 2, 3], [4, 5, 6]]
  const HostTensorData x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("sum", {1})), {6, 15});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("sum", {0})), {5, 7, 9});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("prod", {1})), {6, 120});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("max", {0})), {4, 5, 6});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("min", {1})), {1, 4});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("mean", {1})), {2, 5});
  const HostTensorData all =
      run(OpKind::Reduce, {x}, reduceAttrs("sum", {0, 1}));
  EXPECT_EQ(all.type.shape, Shape{});
  expectDoubles(all, {21});
  const HostTensorData identity =
      run(OpKind::Reduce, {x}, reduceAttrs("sum", {}));
  EXPECT_EQ(identity.type.shape, (Shape{2, 3}));
  expectDoubles(identity, {1, 2, 3, 4, 5, 6});
}

TEST(InterpreterTest, ReduceKeepDims) {
  // x[a][b][c] = 4a + 2b + c, shape [2, 2, 2]; sum over a and c.
  const HostTensorData y =
      run(OpKind::Reduce, {i32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})},
          reduceAttrs("sum", {0, 2}, true));
  EXPECT_EQ(y.type.shape, (Shape{1, 2, 1}));
  // b = 0: 0 + 1 + 4 + 5; b = 1: 2 + 3 + 6 + 7.
  expectInts(y, {10, 18});
}

TEST(InterpreterTest, ReduceNaNAndIntegers) {
  expectDoubles(run(OpKind::Reduce, {f32({2, 2}, {1, kNaN, kNaN, 2})},
                    reduceAttrs("max", {1})),
                {kNaN, kNaN});
  expectDoubles(
      run(OpKind::Reduce, {f32({3}, {3, kNaN, 1})}, reduceAttrs("min", {0})),
      {kNaN});
  // Integer mean truncates: -7 / 2 = -3; 7 / 2 = 3.
  expectInts(run(OpKind::Reduce, {i32({2, 2}, {-3, -4, 3, 4})},
                 reduceAttrs("mean", {1})),
             {-3, 3});
  // The sum wraps before the division: 100 + 100 = -56 in i8, / 2 = -28.
  expectInts(
      run(OpKind::Reduce, {i8({2}, {100, 100})}, reduceAttrs("mean", {0})),
      {-28});
  expectInts(
      run(OpKind::Reduce, {i8({2}, {100, 100})}, reduceAttrs("sum", {0})),
      {-56});
  expectInts(
      run(OpKind::Reduce, {i32({3}, {-5, 7, -9})}, reduceAttrs("max", {0})),
      {7});
}

TEST(InterpreterTest, ReduceOverZeroSizedDim) {
  const HostTensorData x = f32({0, 2}, {});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("sum", {0})), {0, 0});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("prod", {0})), {1, 1});
  expectDoubles(run(OpKind::Reduce, {x}, reduceAttrs("mean", {0})),
                {kNaN, kNaN});
  expectInts(run(OpKind::Reduce, {i32({0, 2}, {})}, reduceAttrs("mean", {0})),
             {0, 0});
  // Reducing the non-empty dim of an empty tensor gives an empty result.
  EXPECT_EQ(run(OpKind::Reduce, {x}, reduceAttrs("max", {1})).type.shape,
            Shape{0});
}

AttrMap argAttrs(std::int64_t axis, bool keepDims = false,
                 bool selectLast = false) {
  AttrMap attributes{{"axis", Attribute::i64(axis)}};
  if (keepDims)
    attributes.emplace("keep_dims", Attribute::flag(true));
  if (selectLast)
    attributes.emplace("select_last_index", Attribute::flag(true));
  return attributes;
}

TEST(InterpreterTest, ArgMaxArgMinTies) {
  const HostTensorData x = f32({2, 4}, {1, 5, 5, 0, 2, 2, -1, -1});
  const HostTensorData first = run(OpKind::ArgMax, {x}, argAttrs(1));
  EXPECT_EQ(first.type, (TensorType{ElementType::I64, {2}}));
  expectInts(first, {1, 0});
  expectInts(run(OpKind::ArgMax, {x}, argAttrs(1, false, true)), {2, 1});
  expectInts(run(OpKind::ArgMin, {x}, argAttrs(1)), {3, 2});
  expectInts(run(OpKind::ArgMin, {x}, argAttrs(1, false, true)), {3, 3});
  const HostTensorData columns = run(OpKind::ArgMax, {x}, argAttrs(0, true));
  EXPECT_EQ(columns.type.shape, (Shape{1, 4}));
  expectInts(columns, {1, 0, 0, 0});
  expectInts(run(OpKind::ArgMin, {i32({3}, {4, -2, -2})}, argAttrs(0)), {1});
}

TEST(InterpreterTest, ArgMaxNaNWins) {
  const HostTensorData x = f32({5}, {1, kNaN, 9, kNaN, 0});
  expectInts(run(OpKind::ArgMax, {x}, argAttrs(0)), {1});
  expectInts(run(OpKind::ArgMin, {x}, argAttrs(0)), {1});
  expectInts(run(OpKind::ArgMax, {x}, argAttrs(0, false, true)), {3});
}

// Matmul.

AttrMap matmulAttrs(bool transposeA, bool transposeB) {
  AttrMap attributes;
  if (transposeA)
    attributes.emplace("transpose_a", Attribute::flag(true));
  if (transposeB)
    attributes.emplace("transpose_b", Attribute::flag(true));
  return attributes;
}

TEST(InterpreterTest, MatmulWithTransposes) {
  // A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]]:
  // A B = [[58, 64], [139, 154]].
  const HostTensorData a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const HostTensorData b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  const HostTensorData at = f32({3, 2}, {1, 4, 2, 5, 3, 6});
  const HostTensorData bt = f32({2, 3}, {7, 9, 11, 8, 10, 12});
  const std::vector<double> expected = {58, 64, 139, 154};
  expectDoubles(run(OpKind::Matmul, {a, b}), expected);
  expectDoubles(run(OpKind::Matmul, {at, b}, matmulAttrs(true, false)),
                expected);
  expectDoubles(run(OpKind::Matmul, {a, bt}, matmulAttrs(false, true)),
                expected);
  expectDoubles(run(OpKind::Matmul, {at, bt}, matmulAttrs(true, true)),
                expected);
}

TEST(InterpreterTest, MatmulBatchedAgainstSharedWeight) {
  // Batch 0: identity; batch 1: [[0, 1], [1, 0]] (swaps the weight's rows).
  const HostTensorData a = i32({2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
  const HostTensorData w = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  const HostTensorData y = run(OpKind::Matmul, {a, w});
  EXPECT_EQ(y.type.shape, (Shape{2, 2, 3}));
  expectInts(y, {1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3});
  // The rank-2 operand on the left: [[1, 1]] times each batch's matrix.
  const HostTensorData ones = i32({1, 2}, {1, 1});
  expectInts(run(OpKind::Matmul, {ones, a}), {1, 1, 1, 1});
}

TEST(InterpreterTest, MatmulBatchedBothAndIntegerWrap) {
  const HostTensorData a = f64({2, 1, 2}, {1, 2, 3, 4});
  const HostTensorData b = f64({2, 2, 1}, {5, 6, 7, 8});
  // Batch 0: 1*5 + 2*6 = 17; batch 1: 3*7 + 4*8 = 53.
  expectDoubles(run(OpKind::Matmul, {a, b}), {17, 53});
  // 100 * 2 + 100 * 1 = 300 wraps to 44 in i8.
  expectInts(run(OpKind::Matmul, {i8({1, 2}, {100, 100}), i8({2, 1}, {2, 1})}),
             {44});
}

// Rank 0, zero-sized tensors, partial evaluation and errors.

TEST(InterpreterTest, RankZeroAndZeroSized) {
  const HostTensorData scalar =
      run(OpKind::Add, {f32({}, {1.5}), f32({}, {2})});
  EXPECT_EQ(scalar.type.shape, Shape{});
  expectDoubles(scalar, {3.5});
  const HostTensorData empty = run(OpKind::Exp, {f32({0, 3}, {})});
  EXPECT_EQ(empty.type.shape, (Shape{0, 3}));
  EXPECT_TRUE(empty.bytes.empty());
  expectInts(run(OpKind::Concat, {i32({0}, {}), i32({2}, {1, 2})},
                 {{"axis", Attribute::i64(0)}}),
             {1, 2});
}

TEST(InterpreterTest, EvaluateOpsWithTemporariesAndBoundBuffers) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2}});
  TensorId doubled = b.add(x, x);
  TensorId negated = b.neg(doubled);
  TensorId squared = b.mul(negated, negated);
  b.output(squared);
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  HostTensorData input = f32({2}, {1, -3});
  HostTensorData result(graph->typeOf(squared));
  // Ops 1 and 2 only, with op 0's result bound by the caller.
  HostTensorData given = f32({2}, {5, 6});
  const std::size_t ops[] = {1, 2};
  ASSERT_TRUE(evaluateOps(*graph, ops,
                          {{doubled, given.view()}, {squared, result.view()}})
                  .ok());
  expectDoubles(result, {25, 36});
  // Every op: `negated` lives in a temporary.
  ASSERT_TRUE(
      evaluate(*graph, {{x, input.view()}, {squared, result.view()}}).ok());
  expectDoubles(result, {4, 36});
}

TEST(InterpreterTest, InPlaceResultOverOperand) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::I32, {2, 2}});
  TensorId t = b.transpose(x, {1, 0});
  b.output(t);
  Graph graph = b.finish().take();
  HostTensorData buffer = i32({2, 2}, {1, 2, 3, 4});
  ASSERT_TRUE(evaluate(graph, {{x, buffer.view()}, {t, buffer.view()}}).ok());
  expectInts(buffer, {1, 3, 2, 4});
}

// Empty tensors whose other dims multiply past 2^63 (issue 19): a matmul of
// [2^62, 0, 4] by [4, 5] counted 2^62 empty batches (for ever), and the
// strides and counts of [0, 2^40, 2^40] and [3, 2^40, 2^40, 0] overflowed.
// Each op gives its empty or zero result at once.
TEST(InterpreterTest, EmptyTensorsWithHugeDims) {
  constexpr std::int64_t k40 = std::int64_t(1) << 40;
  GraphBuilder b;
  TensorId a = b.input({ElementType::F32, {std::int64_t(1) << 62, 0, 4}});
  TensorId w = b.input({ElementType::F32, {4, 5}});
  TensorId wide = b.input({ElementType::F32, {0, k40, k40}});
  TensorId deep = b.input({ElementType::F32, {3, k40, k40, 0}});
  b.output(b.matmul(a, w));
  b.output(b.reduce(ReduceKind::Sum, deep, {1, 2, 3}));
  b.output(b.transpose(wide, {2, 1, 0}));
  b.output(b.concat({wide, wide}, 1));
  Graph graph = b.finish().take();
  HostTensorData empty(TensorType{ElementType::F32, {0}});
  HostTensorData weights = f32({4, 5}, std::vector<double>(20, 1.0));
  auto view = [&](TensorId id) {
    HostTensor tensor = empty.view();
    tensor.type = graph.typeOf(id);
    return tensor;
  };
  const std::vector<HostTensor> inputs = {view(a), weights.view(), view(wide),
                                          view(deep)};
  Expected<std::vector<HostTensorData>> outputs = evaluateGraph(graph, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.message();
  ASSERT_EQ(outputs->size(), 4u);
  expectDoubles((*outputs)[1], {0, 0, 0});
  EXPECT_EQ((*outputs)[3].type.shape,
            (std::vector<std::int64_t>{0, 2 * k40, k40}));
}

TEST(InterpreterTest, EvaluateOpsErrors) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2}});
  TensorId y = b.exp(x);
  b.output(y);
  Graph graph = b.finish().take();
  HostTensorData input = f32({2}, {1, 2});
  HostTensorData wrong = f32({3}, {1, 2, 3});
  const std::size_t first[] = {0};
  const std::size_t outOfRange[] = {4};
  EXPECT_EQ(evaluateOps(graph, first, {}).message(),
            "op #0 (exp): operand 0 (tensor 0) has no value: bind a buffer to "
            "it or evaluate the op that defines it earlier in the same call");
  EXPECT_EQ(evaluateOps(graph, outOfRange, {{x, input.view()}}).message(),
            "op index 4 out of range: the graph has 1 ops");
  EXPECT_EQ(evaluateOps(graph, first, {{x, wrong.view()}}).message(),
            "buffer bound to tensor 0 has type tensor<3xf32>, expected "
            "tensor<2xf32>");
  EXPECT_EQ(evaluateOps(graph, first, {{9, input.view()}}).message(),
            "buffer bound to tensor 9, which the graph does not have");
  EXPECT_EQ(evaluateGraph(graph, {}).message(), "expected 1 inputs, got 0");
}

TEST(InterpreterTest, EveryOpKindIsCovered) {
  // Each op kind must be reachable by the tests above: this guards the
  // list against an op added to Ops.def without a reference test (pool:
  // PoolInterpreterTest.cpp, gather: GatherInterpreterTest.cpp, scatter:
  // ScatterInterpreterTest.cpp, im2col: ConvInterpreterTest.cpp, iota and
  // dim_value: SymbolicDimsTest.cpp).
  EXPECT_EQ(allOpKinds().size(), 59u)
      << "a new op needs its interpreter test in this file";
}

// i16 and the ui types: signedness lives in the element type.

/// Values of a ui (or any integer) type from their unsigned readings.
HostTensorData uints(ElementType type, Shape shape,
                     std::vector<std::uint64_t> values) {
  HostTensorData data({type, std::move(shape)});
  for (std::size_t i = 0; i < values.size(); ++i)
    storeUnsigned(type, data.bytes.data(), std::int64_t(i), values[i]);
  return data;
}
HostTensorData ui8(Shape shape, std::vector<std::uint64_t> values) {
  return uints(ElementType::UI8, std::move(shape), std::move(values));
}
HostTensorData i16(Shape shape, std::vector<std::int64_t> values) {
  return ints(ElementType::I16, std::move(shape), std::move(values));
}

void expectUnsigned(const HostTensorData &actual,
                    const std::vector<std::uint64_t> &expected) {
  std::vector<std::uint64_t> values;
  for (std::int64_t i = 0; i < actual.type.numElements(); ++i)
    values.push_back(
        loadUnsigned(actual.type.elementType, actual.bytes.data(), i));
  EXPECT_EQ(values, expected);
}

constexpr std::uint64_t kTwo63 = std::uint64_t(1) << 63;
constexpr std::uint64_t kUI64Max = ~std::uint64_t(0);

TEST(InterpreterTest, CompareUnsignedTypesUnderEveryPredicate) {
  const HostTensorData a = ui8({3}, {200, 100, 7});
  const HostTensorData b = ui8({3}, {100, 200, 7});
  expectInts(run(OpKind::Compare, {a, b}, predicate("gt")), {1, 0, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ge")), {1, 0, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("lt")), {0, 1, 0});
  expectInts(run(OpKind::Compare, {a, b}, predicate("le")), {0, 1, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("eq")), {0, 0, 1});
  expectInts(run(OpKind::Compare, {a, b}, predicate("ugt")), {1, 0, 0});
  // The same bits as i8 compare signed: 200 is -56.
  expectInts(run(OpKind::Compare, {i8({1}, {200 - 256}), i8({1}, {100})},
                 predicate("gt")),
             {0});
  const HostTensorData big = uints(ElementType::UI64, {2}, {kTwo63 + 5, 1});
  const HostTensorData small = uints(ElementType::UI64, {2}, {1, kTwo63});
  expectInts(run(OpKind::Compare, {big, small}, predicate("gt")), {1, 0});
  expectInts(run(OpKind::Compare, {big, small}, predicate("lt")), {0, 1});
  expectInts(run(OpKind::Compare,
                 {uints(ElementType::UI32, {1}, {3000000000u}),
                  uints(ElementType::UI32, {1}, {5})},
                 predicate("ge")),
             {1});
  expectInts(run(OpKind::Compare,
                 {uints(ElementType::UI16, {1}, {40000}),
                  uints(ElementType::UI16, {1}, {40001})},
                 predicate("lt")),
             {1});
  expectInts(run(OpKind::Compare, {i16({2}, {-30000, 5}), i16({2}, {2, 5})},
                 predicate("lt")),
             {1, 0});
}

TEST(InterpreterTest, MaxMinReadUnsignedTypesUnsigned) {
  const HostTensorData a = ui8({3}, {200, 1, 255});
  const HostTensorData b = ui8({3}, {100, 2, 0});
  expectUnsigned(run(OpKind::Max, {a, b}), {200, 2, 255});
  expectUnsigned(run(OpKind::Min, {a, b}), {100, 1, 0});
  const HostTensorData c = uints(ElementType::UI64, {2}, {kUI64Max, 3});
  const HostTensorData d = uints(ElementType::UI64, {2}, {1, kTwo63});
  expectUnsigned(run(OpKind::Max, {c, d}), {kUI64Max, kTwo63});
  expectUnsigned(run(OpKind::Min, {c, d}), {1, 3});
  expectUnsigned(run(OpKind::Max, {uints(ElementType::UI16, {1}, {40000}),
                                   uints(ElementType::UI16, {1}, {3})}),
                 {40000});
  expectInts(run(OpKind::Max, {i16({2}, {-5, 300}), i16({2}, {3, -300})}),
             {3, 300});
}

TEST(InterpreterTest, DivRemReadUnsignedTypesUnsigned) {
  const HostTensorData a =
      uints(ElementType::UI32, {3}, {4000000000u, 3000000001u, 9});
  const HostTensorData b = uints(ElementType::UI32, {3}, {3, 2, 0});
  expectUnsigned(run(OpKind::Div, {a, b}), {1333333333, 1500000000, 0});
  expectUnsigned(run(OpKind::Rem, {a, b}), {1, 1, 0});
  expectUnsigned(run(OpKind::Rem, {a, b}, flag("fmod")), {1, 1, 0});
  // The flag changes nothing on a ui type.
  expectUnsigned(run(OpKind::Div, {a, b}, flag("is_unsigned")),
                 {1333333333, 1500000000, 0});
  const HostTensorData c = uints(ElementType::UI64, {2}, {kUI64Max, kTwo63});
  const HostTensorData d = uints(ElementType::UI64, {2}, {2, 10});
  expectUnsigned(run(OpKind::Div, {c, d}), {kTwo63 - 1, 922337203685477580});
  expectUnsigned(run(OpKind::Rem, {c, d}), {1, 8});
  expectUnsigned(run(OpKind::Rem, {ui8({2}, {250, 7}), ui8({2}, {7, 250})}),
                 {5, 7});
  // i16 is signed: truncating division, floor-mod with the divisor's sign.
  expectInts(run(OpKind::Div, {i16({2}, {-7, 32767}), i16({2}, {2, -1})}),
             {-3, -32767});
  expectInts(run(OpKind::Rem, {i16({2}, {-7, 7}), i16({2}, {2, -3})}), {1, -2});
}

TEST(InterpreterTest, UnsignedAndI16ArithmeticWraps) {
  expectUnsigned(run(OpKind::Neg, {ui8({3}, {1, 0, 200})}), {255, 0, 56});
  expectUnsigned(run(OpKind::Sub, {ui8({2}, {3, 9}), ui8({2}, {5, 4})}),
                 {254, 5});
  expectUnsigned(run(OpKind::Add, {ui8({2}, {200, 1}), ui8({2}, {100, 2})}),
                 {44, 3});
  expectUnsigned(run(OpKind::Mul, {ui8({1}, {16}), ui8({1}, {17})}), {16});
  expectUnsigned(run(OpKind::Add, {uints(ElementType::UI64, {1}, {kUI64Max}),
                                   uints(ElementType::UI64, {1}, {2})}),
                 {1});
  expectUnsigned(run(OpKind::Sub, {uints(ElementType::UI32, {1}, {0}),
                                   uints(ElementType::UI32, {1}, {1})}),
                 {4294967295u});
  expectInts(run(OpKind::Add, {i16({1}, {32767}), i16({1}, {1})}), {-32768});
  expectInts(run(OpKind::Mul, {i16({1}, {300}), i16({1}, {300})}), {24464});
  expectInts(run(OpKind::Neg, {i16({2}, {-32768, 12})}), {-32768, -12});
}

TEST(InterpreterTest, AbsAndSignOfUnsignedTypes) {
  const HostTensorData x = ui8({3}, {200, 0, 1});
  expectUnsigned(run(OpKind::Abs, {x}), {200, 0, 1});
  expectUnsigned(run(OpKind::Sign, {x}), {1, 0, 1});
  const HostTensorData big = uints(ElementType::UI64, {1}, {kTwo63 + 1});
  expectUnsigned(run(OpKind::Abs, {big}), {kTwo63 + 1});
  expectUnsigned(run(OpKind::Sign, {big}), {1});
  expectInts(run(OpKind::Abs, {i16({2}, {-7, -32768})}), {7, -32768});
  expectInts(run(OpKind::Sign, {i16({3}, {-7, 0, 9})}), {-1, 0, 1});
}

TEST(InterpreterTest, PowOfUnsignedTypes) {
  expectUnsigned(run(OpKind::Pow, {ui8({2}, {3, 2}), ui8({2}, {5, 9})}),
                 {243, 0});
  // An exponent of 2^63 + 1 is not negative: 3^(2^63 + 1) mod 2^64 = 3.
  expectUnsigned(
      run(OpKind::Pow, {uints(ElementType::UI64, {1}, {3}),
                        uints(ElementType::UI64, {1}, {kTwo63 + 1})}),
      {3});
  expectInts(run(OpKind::Pow, {i16({2}, {-2, 2}), i16({2}, {3, -1})}), {-8, 0});
}

TEST(InterpreterTest, CastFromAndToUnsignedTypes) {
  const HostTensorData x = ui8({2}, {255, 128});
  expectInts(run(OpKind::Cast, {x}, {}, castTo(ElementType::I32, {2})),
             {255, 128});
  expectDoubles(run(OpKind::Cast, {x}, {}, castTo(ElementType::F32, {2})),
                {255, 128});
  expectInts(run(OpKind::Cast, {x}, {}, castTo(ElementType::I8, {2})),
             {-1, -128});
  expectDoubles(run(OpKind::Cast, {uints(ElementType::UI64, {1}, {kUI64Max})},
                    {}, castTo(ElementType::F64, {1})),
                {18446744073709551615.0});
  expectInts(run(OpKind::Cast, {uints(ElementType::UI32, {1}, {4294967295u})},
                 {}, castTo(ElementType::I64, {1})),
             {4294967295});
  expectInts(run(OpKind::Cast, {uints(ElementType::UI16, {1}, {65535})}, {},
                 castTo(ElementType::I16, {1})),
             {-1});
  // Integers into a ui type wrap; floats saturate to 0 .. 2^n - 1.
  expectUnsigned(run(OpKind::Cast, {i32({3}, {-1, 256, 300})}, {},
                     castTo(ElementType::UI8, {3})),
                 {255, 0, 44});
  expectUnsigned(run(OpKind::Cast, {f32({4}, {-3.5, 300.7, 254.9, kNaN})}, {},
                     castTo(ElementType::UI8, {4})),
                 {0, 255, 254, 0});
  expectInts(run(OpKind::Cast, {f32({2}, {1e6, -1e6})}, {},
                 castTo(ElementType::I16, {2})),
             {32767, -32768});
}

TEST(InterpreterTest, ReduceUnsignedTypes) {
  const HostTensorData x = ui8({2, 3}, {200, 100, 50, 1, 2, 3});
  expectUnsigned(run(OpKind::Reduce, {x}, reduceAttrs("max", {1})), {200, 3});
  expectUnsigned(run(OpKind::Reduce, {x}, reduceAttrs("min", {1})), {50, 1});
  // 350 wraps to 94.
  expectUnsigned(run(OpKind::Reduce, {x}, reduceAttrs("sum", {1})), {94, 6});
  // The wrapped sum 240 divided unsigned (as i8 it would read -16).
  expectUnsigned(
      run(OpKind::Reduce, {ui8({2}, {200, 40})}, reduceAttrs("mean", {0})),
      {120});
  const HostTensorData big = uints(ElementType::UI64, {3}, {5, kTwo63 + 1, 7});
  expectUnsigned(run(OpKind::Reduce, {big}, reduceAttrs("max", {0})),
                 {kTwo63 + 1});
  expectUnsigned(run(OpKind::Reduce, {big}, reduceAttrs("min", {0})), {5});
  expectInts(run(OpKind::Reduce, {i16({3}, {30000, 30000, -1})},
                 reduceAttrs("sum", {0})),
             {59999 - 65536});
}

TEST(InterpreterTest, ArgMaxArgMinOfUnsignedTypes) {
  const HostTensorData x = ui8({3}, {100, 200, 50});
  expectInts(run(OpKind::ArgMax, {x}, argAttrs(0)), {1});
  expectInts(run(OpKind::ArgMin, {x}, argAttrs(0)), {2});
  const HostTensorData big = uints(ElementType::UI64, {3}, {1, kTwo63, 7});
  expectInts(run(OpKind::ArgMax, {big}, argAttrs(0)), {1});
  expectInts(run(OpKind::ArgMin, {big}, argAttrs(0)), {0});
}

TEST(InterpreterTest, MatmulOfUnsignedTypesWraps) {
  // 200 * 2 + 100 * 3 = 700, modulo 256.
  expectUnsigned(
      run(OpKind::Matmul, {ui8({1, 2}, {200, 100}), ui8({2, 1}, {2, 3})}),
      {188});
}

TEST(InterpreterTest, SelectAndShapeOpsCopyUnsignedBits) {
  const HostTensorData a = uints(ElementType::UI64, {2}, {kUI64Max, 1});
  const HostTensorData b = uints(ElementType::UI64, {2}, {2, kTwo63});
  expectUnsigned(run(OpKind::Select, {i1({2}, {1, 0}), a, b}),
                 {kUI64Max, kTwo63});
  expectUnsigned(run(OpKind::Concat, {a, b}, {{"axis", Attribute::i64(0)}}),
                 {kUI64Max, 1, 2, kTwo63});
}

// The f8/f4 and narrow integer types (ElementType.h gives the rules; the
// expected values are worked out by hand from the formats).
TEST(InterpreterTest, CastToF8OverflowsOrSaturates) {
  const HostTensorData x = f32({6}, {1e6, -kInf, kNaN, 0.3, 464, 465});
  const TensorType to = castTo(ElementType::F8E4M3FN, {6});
  // 0.3 lies between 0.28125 and 0.3125 (steps of 2^-5): 0.3125 is nearer.
  expectDoubles(run(OpKind::Cast, {x}, {}, to),
                {kNaN, kNaN, kNaN, 0.3125, 448, kNaN});
  expectDoubles(run(OpKind::Cast, {x}, flag("saturate"), to),
                {448, -448, kNaN, 0.3125, 448, 448});
  expectDoubles(run(OpKind::Cast, {x}, {}, castTo(ElementType::F8E5M2, {6})),
                {kInf, -kInf, kNaN, 0.3125, 448, 448});
  expectDoubles(run(OpKind::Cast, {x}, flag("saturate"),
                    castTo(ElementType::F8E5M2FNUZ, {6})),
                {57344, -57344, kNaN, 0.3125, 448, 448});
  // f4E2M1FN always saturates; 0.3 rounds to 0.5.
  expectDoubles(run(OpKind::Cast, {x}, {}, castTo(ElementType::F4E2M1FN, {6})),
                {6, -6, -0.0, 0.5, 6, 6});
}

TEST(InterpreterTest, CastToE8M0RoundModes) {
  const HostTensorData x = f32({4}, {1.1, 3.0, 0.124, -8});
  const TensorType to = castTo(ElementType::F8E8M0FNU, {4});
  auto mode = [](const char *name) {
    return AttrMap{{"round_mode", Attribute::enumName(name)}};
  };
  expectDoubles(run(OpKind::Cast, {x}, {}, to), {2, 4, 0.125, 8});
  expectDoubles(run(OpKind::Cast, {x}, mode("up"), to), {2, 4, 0.125, 8});
  expectDoubles(run(OpKind::Cast, {x}, mode("down"), to), {1, 2, 0.0625, 8});
  expectDoubles(run(OpKind::Cast, {x}, mode("nearest"), to), {1, 4, 0.125, 8});
  // 1.5 * 2^127 rounds up past the largest value unless saturating.
  const HostTensorData big = f32({1}, {std::ldexp(1.5, 127)});
  expectDoubles(
      run(OpKind::Cast, {big}, {}, castTo(ElementType::F8E8M0FNU, {1})),
      {kNaN});
  expectDoubles(run(OpKind::Cast, {big}, flag("saturate"),
                    castTo(ElementType::F8E8M0FNU, {1})),
                {std::ldexp(1.0, 127)});
}

TEST(InterpreterTest, CastFromF8AndNarrowIntegers) {
  HostTensorData f8(TensorType{ElementType::F8E4M3FNUZ, {3}});
  f8.bytes = {0x40, 0x80, 0xFF}; // 1, NaN, -240
  expectDoubles(run(OpKind::Cast, {f8}, {}, castTo(ElementType::F32, {3})),
                {1, kNaN, -240});
  expectInts(run(OpKind::Cast, {f8}, {}, castTo(ElementType::I32, {3})),
             {1, 0, -240});
  // Between f8 types: exact where the value exists, else rounded.
  expectDoubles(run(OpKind::Cast, {f8}, {}, castTo(ElementType::F8E4M3FN, {3})),
                {1, kNaN, -240});
  const HostTensorData i4 = ints(ElementType::I4, {3}, {-8, 7, -1});
  expectInts(run(OpKind::Cast, {i4}, {}, castTo(ElementType::I8, {3})),
             {-8, 7, -1});
  expectInts(run(OpKind::Cast, {i4}, flag("is_unsigned"),
                 castTo(ElementType::I8, {3})),
             {8, 7, 15});
  expectDoubles(run(OpKind::Cast, {ints(ElementType::UI2, {2}, {3, 2})}, {},
                    castTo(ElementType::F16, {2})),
                {3, 2});
  // Float to i4 wraps (ONNX's reference), integers to i4 too.
  expectInts(run(OpKind::Cast, {f32({4}, {-9, 8, 15, kNaN})}, {},
                 castTo(ElementType::I4, {4})),
             {7, -8, -1, 0});
  expectInts(run(OpKind::Cast, {i32({3}, {16, -17, 5})}, {},
                 castTo(ElementType::UI4, {3})),
             {0, 15, 5});
  // Integers to f8: rounded, saturating on request.
  expectDoubles(run(OpKind::Cast, {i32({2}, {1000, 17})}, flag("saturate"),
                    castTo(ElementType::F8E4M3FN, {2})),
                {448, 16});
}

TEST(InterpreterTest, NarrowIntegerArithmeticWraps) {
  const HostTensorData a = ints(ElementType::I4, {4}, {7, -8, -8, 3});
  const HostTensorData b = ints(ElementType::I4, {4}, {1, -1, 2, -2});
  expectInts(run(OpKind::Add, {a, b}), {-8, 7, -6, 1});
  expectInts(run(OpKind::Mul, {a, b}), {7, -8, 0, -6});
  expectInts(run(OpKind::Neg, {a}), {-7, -8, -8, -3});
  expectInts(run(OpKind::Abs, {a}), {7, -8, -8, 3});
  // -8 / -1 wraps to -8; unsigned, the bits 1000 / 1111 are 8 / 15 = 0.
  expectInts(run(OpKind::Div, {a, b}), {7, -8, -4, -1});
  expectInts(run(OpKind::Div, {a, b}, flag("is_unsigned")), {7, 0, 4, 0});
  const HostTensorData u = ints(ElementType::UI2, {3}, {3, 2, 0});
  const HostTensorData v = ints(ElementType::UI2, {3}, {3, 3, 1});
  expectInts(run(OpKind::Mul, {u, v}), {1, 2, 0});
  expectInts(run(OpKind::Sub, {u, v}), {0, 3, 3});
  expectInts(run(OpKind::Not, {u}), {0, 1, 3});
  expectInts(run(OpKind::Max, {u, v}), {3, 3, 1});
  expectInts(run(OpKind::Reduce, {u}, reduceAttrs("sum", {0})), {1});
  expectInts(
      run(OpKind::Compare,
          {ints(ElementType::UI4, {1}, {15}), ints(ElementType::UI4, {1}, {1})},
          predicate("gt")),
      {1});
}

} // namespace
