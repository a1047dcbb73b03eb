//===- ScatterInterpreterTest.cpp - The reference semantics of scatter ----===//
//
// Cases worked out by hand: rows replaced (duplicate indices: the last in
// index order wins), negative indices, 2-D indices, each reduction with
// duplicates (every update applied in order, rounded to the element type
// each step), integer data exactly, NaN through max and min; out-of-range
// indices (an error naming the op and the index, before anything is
// written) and the verifier's refusals.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestSupport.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace fuse;
using namespace fuse::irtest;

namespace {

Expected<HostTensorData> run(HostTensorData data, HostTensorData indices,
                             HostTensorData updates,
                             std::string_view reduction = "none") {
  GraphBuilder b;
  TensorId x = b.input(data.type, "data");
  TensorId k = b.input(indices.type, "indices");
  TensorId u = b.input(updates.type, "updates");
  b.output(b.scatter(x, k, u, reduction));
  return evaluateBuilt(b, {data, indices, updates});
}

TEST(ScatterInterpreterTest, RowsReplacedTheLastDuplicateWins) {
  // Rows 2 and -3 (row 0) of a 3x2 table, then row 2 again.
  HostTensorData table = f32({3, 2}, {10, 11, 20, 21, 30, 31});
  Expected<HostTensorData> y =
      run(table, ints(ElementType::I64, {3}, {2, -3, 2}),
          f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->type, table.type);
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{3, 4, 20, 21, 5, 6}));
}

TEST(ScatterInterpreterTest, TwoDimensionalIndices) {
  // indices [2, 1] into a 4-element line: updates [2, 1].
  Expected<HostTensorData> y =
      run(f32({4}, {0, 0, 0, 0}), ints(ElementType::I32, {2, 1}, {3, 1}),
          f32({2, 1}, {7, 8}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{0, 8, 0, 7}));
}

TEST(ScatterInterpreterTest, ReductionsApplyEveryUpdateInOrder) {
  HostTensorData data = f32({3}, {1, 2, 3});
  HostTensorData indices = ints(ElementType::I64, {4}, {0, 0, 2, -1});
  HostTensorData updates = f32({4}, {5, -4, 0.5, 10});
  auto expect = [&](std::string_view reduction, std::vector<double> want) {
    Expected<HostTensorData> y = run(data, indices, updates, reduction);
    ASSERT_TRUE(y.ok()) << reduction << ": " << y.message();
    EXPECT_EQ(y->toDoubles(), want) << reduction;
  };
  expect("add", {2, 2, 13.5});
  expect("mul", {-20, 2, 15});
  expect("max", {5, 2, 10});
  expect("min", {-4, 2, 0.5});
}

TEST(ScatterInterpreterTest, IntegersExactlyAndNaNThroughMaxMin) {
  const std::int64_t big = (std::int64_t(1) << 62) + 1;
  Expected<HostTensorData> y = run(ints(ElementType::I64, {2}, {big, 1}),
                                   ints(ElementType::I64, {2}, {0, 1}),
                                   ints(ElementType::I64, {2}, {2, -5}), "add");
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toInts(), (std::vector<std::int64_t>{big + 2, -4}));
  Expected<HostTensorData> u =
      run(ints(ElementType::UI8, {1}, {200}), ints(ElementType::I64, {1}, {0}),
          ints(ElementType::UI8, {1}, {100}), "max");
  ASSERT_TRUE(u.ok()) << u.message();
  EXPECT_EQ(u->toInts(), (std::vector<std::int64_t>{200}));
  const double nan = std::nan("");
  Expected<HostTensorData> m =
      run(f32({2}, {nan, 1}), ints(ElementType::I64, {2}, {0, 1}),
          f32({2}, {3, nan}), "min");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_TRUE(std::isnan(m->toDoubles()[0]));
  EXPECT_TRUE(std::isnan(m->toDoubles()[1]));
}

TEST(ScatterInterpreterTest, AnIndexOutsideTheRowsIsAnError) {
  Expected<HostTensorData> y =
      run(f32({3, 2}, {0, 0, 0, 0, 0, 0}), ints(ElementType::I64, {2}, {1, 3}),
          f32({2, 2}, {1, 2, 3, 4}));
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.message(),
            "op #0 (scatter): index 3 (element 1 of the indices) is out of "
            "range for dim 0 of size 3 of tensor<3x2xf32> (valid: -3 to 2)");
  Expected<HostTensorData> z = run(
      f32({3}, {0, 0, 0}), ints(ElementType::I32, {1}, {-4}), f32({1}, {1}));
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.message().find("index -4 (element 0"), std::string::npos)
      << z.message();
}

TEST(ScatterInterpreterTest, TheVerifierRefuses) {
  auto refusal = [](TensorType data, TensorType indices, TensorType updates,
                    std::string_view reduction = "none") {
    GraphBuilder b;
    TensorId x = b.input(data, "data");
    TensorId k = b.input(indices, "indices");
    TensorId u = b.input(updates, "updates");
    b.output(b.scatter(x, k, u, reduction));
    Expected<Graph> graph = b.finish();
    return graph.ok() ? std::string() : graph.message();
  };
  EXPECT_NE(refusal({ElementType::F32, {4, 3}}, {ElementType::I64, {2}},
                    {ElementType::F32, {2, 4}})
                .find("the updates (operand 2) are tensor<2x4xf32>, expected "
                      "tensor<2x3xf32> (the indices' shape, then the data's "
                      "dims after the first)"),
            std::string::npos);
  EXPECT_NE(refusal({ElementType::F32, {4}}, {ElementType::F32, {2}},
                    {ElementType::F32, {2}})
                .find("the indices (operand 1) have element type f32, "
                      "expected i32 or i64"),
            std::string::npos);
  EXPECT_NE(refusal({ElementType::F32, {}}, {ElementType::I64, {1}},
                    {ElementType::F32, {1}})
                .find("the data (operand 0) is a scalar; scatter needs rank "
                      ">= 1"),
            std::string::npos);
  EXPECT_NE(refusal({ElementType::F32, {4}}, {ElementType::I64, {1}},
                    {ElementType::F32, {1}}, "sub")
                .find("attribute 'reduction' is \"sub\", expected one of "
                      "none, add, mul, max, min"),
            std::string::npos);
}

} // namespace
