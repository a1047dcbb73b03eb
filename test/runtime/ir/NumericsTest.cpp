//===- NumericsTest.cpp - Tolerances and compare --------------------------===//

#include "runtime/ir/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace fuse;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(NumericsTest, MachineEpsilon) {
  EXPECT_EQ(machineEpsilon(ElementType::F64), 2.220446049250313e-16);
  EXPECT_EQ(machineEpsilon(ElementType::F32), 1.1920928955078125e-07);
  EXPECT_EQ(machineEpsilon(ElementType::F16), 0.0009765625);
  EXPECT_EQ(machineEpsilon(ElementType::BF16), 0.0078125);
  EXPECT_EQ(machineEpsilon(ElementType::I32), 0.0);
}

TEST(NumericsTest, TolerancePerClassAndType) {
  const double eps = 1.1920928955078125e-07;
  EXPECT_TRUE(tolerance(NumericClass::Exact, ElementType::F32).isExact());
  EXPECT_TRUE(tolerance(NumericClass::Matmul, ElementType::I32, 100).isExact());
  EXPECT_EQ(tolerance(NumericClass::Elementwise, ElementType::F32),
            (Tolerance{2 * eps, std::ldexp(1.0, -126)}));
  EXPECT_EQ(tolerance(NumericClass::Elementwise, ElementType::F16),
            (Tolerance{2 * 0.0009765625, std::ldexp(1.0, -14)}));
  EXPECT_EQ(tolerance(NumericClass::Transcendental, ElementType::BF16),
            (Tolerance{8 * 0.0078125, 8 * 0.0078125}));
  // n = 100: rtol 2 eps (1 + 10), atol 100 eps.
  EXPECT_EQ(tolerance(NumericClass::Reduction, ElementType::F32, 100),
            (Tolerance{22 * eps, 100 * eps}));
  EXPECT_EQ(tolerance(NumericClass::Matmul, ElementType::F32, 100),
            tolerance(NumericClass::Reduction, ElementType::F32, 100));
  EXPECT_LT(tolerance(NumericClass::Reduction, ElementType::F64, 100).rtol,
            tolerance(NumericClass::Reduction, ElementType::F32, 100).rtol);
}

TEST(NumericsTest, OpClasses) {
  EXPECT_EQ(numericClass({OpKind::Add, {}, {}, {}}), NumericClass::Elementwise);
  EXPECT_EQ(numericClass({OpKind::Exp, {}, {}, {}}),
            NumericClass::Transcendental);
  EXPECT_EQ(numericClass({OpKind::Floor, {}, {}, {}}), NumericClass::Exact);
  EXPECT_EQ(numericClass({OpKind::Transpose, {}, {}, {}}), NumericClass::Exact);
  EXPECT_EQ(numericClass({OpKind::Matmul, {}, {}, {}}), NumericClass::Matmul);
  EXPECT_EQ(
      numericClass(
          {OpKind::Reduce, {}, {}, {{"kind", Attribute::enumName("mean")}}}),
      NumericClass::Reduction);
  EXPECT_EQ(
      numericClass(
          {OpKind::Reduce, {}, {}, {{"kind", Attribute::enumName("max")}}}),
      NumericClass::Exact);
}

TEST(NumericsTest, ToleranceFromGraph) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {4, 64}});
  TensorId w = b.input({ElementType::F32, {16, 64}});
  TensorId y = b.matmul(x, w, false, true);
  TensorId s = b.reduce(ReduceKind::Sum, b.exp(y), {0, 1});
  b.output(s);
  Graph graph = b.finish().take();
  const double eps = machineEpsilon(ElementType::F32);
  // K = 64 (w transposed).
  EXPECT_EQ(toleranceFor(graph, graph.ops[0]),
            (Tolerance{2 * eps * 9, 64 * eps}));
  // 4 * 16 = 64 reduced elements.
  EXPECT_EQ(toleranceFor(graph, graph.ops[2]),
            (Tolerance{2 * eps * 9, 64 * eps}));
  EXPECT_EQ(toleranceForTensor(graph, s),
            toleranceFor(graph, graph.ops[0]) +
                tolerance(NumericClass::Transcendental, ElementType::F32) +
                toleranceFor(graph, graph.ops[2]));
  EXPECT_TRUE(toleranceForTensor(graph, x).isExact());
}

// An output's absolute tolerance is in units of its scale: its largest
// finite magnitude, at least 1 (an infinity or a NaN does not count); an
// exact output stays exact whatever its values.
TEST(NumericsTest, OutputToleranceScalesWithMagnitude) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2, 8}});
  TensorId w = b.input({ElementType::F32, {8, 3}});
  TensorId y = b.matmul(x, w, false, false);
  b.output(y);
  Graph graph = b.finish().take();
  const Tolerance base = toleranceForTensor(graph, y);
  auto withValues = [&](std::vector<double> values) {
    HostTensorData data =
        HostTensorData::fromDoubles(graph.typeOf(y), std::move(values));
    return toleranceForOutput(graph, y, data.view());
  };
  EXPECT_EQ(withValues({0.5, -0.25, 0.1, 0, 0.2, -0.9}), base);
  EXPECT_EQ(withValues({50, -0.25, 0.1, 0, -64, 3}),
            (Tolerance{base.rtol, base.atol * 64}));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(withValues({inf, -0.25, NAN, 0, -8, 3}),
            (Tolerance{base.rtol, base.atol * 8}));
  // The element near zero by cancellation that the scaled tolerance admits:
  // an error of 5e-5 against an expected 1e-3 in an output of scale 64.
  const std::vector<double> wantValues{50, -0.25, 1e-3, 0.5, -64, 3},
      gotValues{50, -0.25, 1.05e-3, 0.5, -64, 3};
  HostTensorData want =
      HostTensorData::fromDoubles(graph.typeOf(y), wantValues);
  HostTensorData got = HostTensorData::fromDoubles(graph.typeOf(y), gotValues);
  EXPECT_FALSE(compare(want.view(), got.view(), base).ok);
  EXPECT_TRUE(compare(want.view(), got.view(),
                      toleranceForOutput(graph, y, want.view()))
                  .ok);
  // An exact output: exact.
  EXPECT_TRUE(toleranceForOutput(graph, x, want.view()).isExact());
}

// A narrowing float cast adds one ulp of its result when what it casts is
// inexact (a matmul's f32 error can carry the value across an f16 rounding
// boundary); of an exact value (an input) it stays exact, and a widening
// cast adds nothing.
TEST(NumericsTest, NarrowingCastOfAnInexactValueAddsOneUlp) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {4, 8}});
  TensorId w = b.input({ElementType::F32, {8, 3}});
  TensorId y = b.matmul(x, w);
  TensorId narrow = b.cast(y, ElementType::F16);
  TensorId direct = b.cast(x, ElementType::F16);
  TensorId wide = b.cast(y, ElementType::F64);
  TensorId f8 = b.cast(y, ElementType::F8E4M3FN);
  b.output(narrow);
  b.output(direct);
  b.output(wide);
  b.output(f8);
  Graph graph = b.finish().take();
  const Tolerance matmul = toleranceFor(graph, graph.ops[0]);
  const double h = machineEpsilon(ElementType::F16);
  EXPECT_EQ(toleranceForTensor(graph, narrow),
            matmul + (Tolerance{h, h * std::ldexp(1.0, -14)}));
  EXPECT_TRUE(toleranceForTensor(graph, direct).isExact());
  EXPECT_EQ(toleranceForTensor(graph, wide), matmul);
  EXPECT_EQ(toleranceForTensor(graph, f8),
            matmul + (Tolerance{0.125, 0.125 * std::ldexp(1.0, -6)}));
  EXPECT_EQ(machineEpsilon(ElementType::F8E5M2), 0.25);
}

TEST(NumericsTest, CompareFloats) {
  const TensorType type{ElementType::F64, {5}};
  HostTensorData expected = HostTensorData::fromDoubles(
      type, std::vector<double>{1.0, kNaN, kInf, 0.0, 100.0});
  HostTensorData close = HostTensorData::fromDoubles(
      type, std::vector<double>{1.0 + 1e-9, kNaN, kInf, 1e-12, 100.0});
  const Tolerance tolerance{1e-8, 1e-10};
  Comparison pass = compare(expected.view(), close.view(), tolerance);
  EXPECT_TRUE(pass.ok) << pass.message;
  EXPECT_EQ(pass.firstMismatch, -1);
  EXPECT_NEAR(pass.maxAbsError, 1e-9, 1e-15);
  EXPECT_NEAR(pass.maxRelError, 1e-9, 1e-15);
  EXPECT_TRUE(pass.message.empty());

  HostTensorData far = HostTensorData::fromDoubles(
      type, std::vector<double>{1.0, 2.0, -kInf, 0.0, 101.0});
  Comparison fail = compare(expected.view(), far.view(), tolerance);
  EXPECT_FALSE(fail.ok);
  EXPECT_EQ(fail.mismatches, 3);
  EXPECT_EQ(fail.firstMismatch, 1);
  EXPECT_TRUE(std::isnan(fail.expectedAtFirstMismatch));
  EXPECT_EQ(fail.actualAtFirstMismatch, 2.0);
  EXPECT_EQ(fail.maxAbsError, 1.0);
  EXPECT_EQ(fail.maxRelError, 0.01);
  EXPECT_EQ(
      fail.message.rfind("3 of 5 f64 elements differ; first at index 1", 0), 0u)
      << fail.message;
}

TEST(NumericsTest, CompareIntegersIsExact) {
  const TensorType type{ElementType::I32, {3}};
  HostTensorData expected =
      HostTensorData::fromInts(type, std::vector<std::int64_t>{1, 2, 3});
  HostTensorData actual =
      HostTensorData::fromInts(type, std::vector<std::int64_t>{1, 2, 4});
  Comparison result = compare(expected.view(), actual.view(), {1.0, 1.0});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.firstMismatch, 2);
  EXPECT_TRUE(compare(expected.view(), expected.view(), {}).ok);
}

TEST(NumericsTest, CompareTypeMismatch) {
  HostTensorData a = HostTensorData::fromDoubles({ElementType::F32, {2}},
                                                 std::vector<double>{1, 2});
  HostTensorData b = HostTensorData::fromDoubles({ElementType::F16, {2}},
                                                 std::vector<double>{1, 2});
  Comparison result = compare(a.view(), b.view(), {});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.message,
            "type mismatch: expected tensor<2xf32>, got tensor<2xf16>");
}

TEST(NumericsTest, OneUlpOfF16PassesElementwiseTolerance) {
  // A back end that rounds f16 twice can be one ulp off.
  const TensorType type{ElementType::F16, {1}};
  HostTensorData expected =
      HostTensorData::fromDoubles(type, std::vector<double>{1.0});
  HostTensorData oneUlp = HostTensorData::fromDoubles(
      type, std::vector<double>{1.0 + std::ldexp(1.0, -10)});
  HostTensorData threeUlp = HostTensorData::fromDoubles(
      type, std::vector<double>{1.0 + 3 * std::ldexp(1.0, -10)});
  const Tolerance tolerance =
      fuse::tolerance(NumericClass::Elementwise, ElementType::F16);
  EXPECT_TRUE(compare(expected.view(), oneUlp.view(), tolerance).ok);
  EXPECT_FALSE(compare(expected.view(), threeUlp.view(), tolerance).ok);
}

} // namespace
