//===- GatherInterpreterTest.cpp - The reference semantics of gather ------===//
//
// Cases worked out by hand (every axis, negative indices, i32 and i64
// indices, a scalar index, integer data), random cases against a direct
// transcription of ONNX's definition (numpy.take: the result coordinates
// split into the data's outer dims, the indices' dims and the data's inner
// dims, written independently of the interpreter's loops), out-of-range
// indices (an error naming the op and the index, nothing read) and the
// verifier's refusals.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestSupport.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <random>

using namespace fuse;
using namespace fuse::irtest;

namespace {

Expected<HostTensorData> run(HostTensorData data, HostTensorData indices,
                             std::int64_t axis) {
  GraphBuilder b;
  TensorId x = b.input(data.type, "data");
  TensorId k = b.input(indices.type, "indices");
  b.output(b.gather(x, k, axis));
  return evaluateBuilt(b, {data, indices});
}

TEST(GatherInterpreterTest, EmbeddingLookupAxis0) {
  // Rows 2, 0, 2 and 1 of a 3x2 table, indices [2, 2].
  HostTensorData table = f32({3, 2}, {10, 11, 20, 21, 30, 31});
  Expected<HostTensorData> y =
      run(table, ints(ElementType::I64, {2, 2}, {2, 0, 2, 1}), 0);
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->type, (TensorType{ElementType::F32, {2, 2, 2}}));
  EXPECT_EQ(y->toDoubles(),
            (std::vector<double>{30, 31, 10, 11, 30, 31, 20, 21}));
}

TEST(GatherInterpreterTest, NegativeIndicesWrap) {
  // -1 is the last row, -3 the first (ONNX: k + dim when k < 0).
  HostTensorData table = f32({3, 2}, {10, 11, 20, 21, 30, 31});
  Expected<HostTensorData> y =
      run(table, ints(ElementType::I32, {3}, {-1, -3, 1}), 0);
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{30, 31, 10, 11, 20, 21}));
}

TEST(GatherInterpreterTest, InnerAxisAndScalarIndex) {
  // x is 2x3x2; along axis 1 with indices [2, 0] the result is 2x2x2; a
  // scalar index removes the axis.
  HostTensorData x = f32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Expected<HostTensorData> y = run(x, ints(ElementType::I64, {2}, {2, 0}), 1);
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->type.shape, (Shape{2, 2, 2}));
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{4, 5, 0, 1, 10, 11, 6, 7}));
  Expected<HostTensorData> s = run(x, ints(ElementType::I32, {}, {-1}), 2);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->type.shape, (Shape{2, 3}));
  EXPECT_EQ(s->toDoubles(), (std::vector<double>{1, 3, 5, 7, 9, 11}));
}

TEST(GatherInterpreterTest, IntegerDataIsCopiedExactly) {
  // i64 values beyond double's 53 bits are copied bit for bit.
  const std::int64_t big = (std::int64_t(1) << 62) + 1;
  HostTensorData x = ints(ElementType::I64, {3}, {big, -big, 7});
  Expected<HostTensorData> y =
      run(x, ints(ElementType::I64, {4}, {1, 0, 0, 2}), 0);
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toInts(), (std::vector<std::int64_t>{-big, big, big, 7}));
}

TEST(GatherInterpreterTest, OutOfRangeIndexFailsNamingOpAndIndex) {
  HostTensorData table = f32({3, 2}, {10, 11, 20, 21, 30, 31});
  Expected<HostTensorData> high =
      run(table, ints(ElementType::I64, {3}, {0, 3, 1}), 0);
  ASSERT_FALSE(high.ok());
  EXPECT_EQ(high.message(),
            "op #0 (gather): index 3 (element 1 of the indices) is out of "
            "range for dim 0 of size 3 of tensor<3x2xf32> (valid: -3 to 2)");
  Expected<HostTensorData> low =
      run(table, ints(ElementType::I32, {2}, {-4, 0}), 0);
  ASSERT_FALSE(low.ok());
  EXPECT_NE(low.message().find("index -4 (element 0"), std::string::npos)
      << low.message();
  // Along an empty axis every index is out of range.
  Expected<HostTensorData> empty =
      run(f32({0, 2}, {}), ints(ElementType::I64, {1}, {0}), 0);
  EXPECT_FALSE(empty.ok());
  // No index: an empty result, nothing checked.
  Expected<HostTensorData> none =
      run(f32({0, 2}, {}), ints(ElementType::I64, {0}, {}), 0);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_EQ(none->type.shape, (Shape{0, 2}));
}

TEST(GatherInterpreterTest, VerifierRefusals) {
  TensorType data{ElementType::F32, {4, 5}};
  TensorType i64{ElementType::I64, {2}};
  auto infer = [](TensorType x, TensorType k, std::int64_t axis) {
    TensorType types[] = {x, k};
    return inferResultType(OpKind::Gather, types,
                           {{"axis", Attribute::i64(axis)}}, std::nullopt);
  };
  EXPECT_EQ(infer(data, i64, 2).message(),
            "attribute 'axis' = 2 out of range [0, 2)");
  EXPECT_EQ(infer(data, i64, -1).message(),
            "attribute 'axis' = -1 out of range [0, 2)");
  EXPECT_EQ(infer(data, {ElementType::F32, {2}}, 0).message(),
            "the indices (operand 1) have element type f32, expected i32 or "
            "i64");
  EXPECT_EQ(infer(data, {ElementType::I8, {2}}, 0).message(),
            "the indices (operand 1) have element type i8, expected i32 or "
            "i64");
  EXPECT_FALSE(infer({ElementType::F32, {}}, i64, 0).ok());
  Expected<TensorType> ok = infer(data, {ElementType::I32, {2, 3}}, 1);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->shape, (Shape{4, 2, 3}));
}

/// ONNX's definition, transcribed: the result coordinate (o..., i..., n...)
/// splits into the data's leading `axis` coordinates, the indices'
/// coordinates and the data's trailing ones; it reads data at (o..., k,
/// n...) with k the wrapped index at (i...).
std::vector<double> transcription(const Shape &dataShape,
                                  const std::vector<double> &data,
                                  const Shape &indexShape,
                                  const std::vector<std::int64_t> &indices,
                                  std::int64_t axis) {
  Shape outShape(dataShape.begin(), dataShape.begin() + axis);
  outShape.insert(outShape.end(), indexShape.begin(), indexShape.end());
  outShape.insert(outShape.end(), dataShape.begin() + axis + 1,
                  dataShape.end());
  std::int64_t total = 1;
  for (std::int64_t d : outShape)
    total *= d;
  std::vector<double> out;
  for (std::int64_t linear = 0; linear < total; ++linear) {
    // The multi-index of `linear` in outShape.
    Shape coordinate(outShape.size());
    std::int64_t rest = linear;
    for (std::size_t d = outShape.size(); d-- > 0;) {
      coordinate[d] = rest % outShape[d];
      rest /= outShape[d];
    }
    std::int64_t indexPosition = 0;
    for (std::size_t d = 0; d < indexShape.size(); ++d)
      indexPosition =
          indexPosition * indexShape[d] + coordinate[std::size_t(axis) + d];
    std::int64_t k = indices[std::size_t(indexPosition)];
    if (k < 0)
      k += dataShape[std::size_t(axis)];
    Shape at(coordinate.begin(), coordinate.begin() + axis);
    at.push_back(k);
    at.insert(at.end(),
              coordinate.begin() + axis + std::int64_t(indexShape.size()),
              coordinate.end());
    std::int64_t position = 0;
    for (std::size_t d = 0; d < dataShape.size(); ++d)
      position = position * dataShape[d] + at[d];
    out.push_back(data[std::size_t(position)]);
  }
  return out;
}

TEST(GatherInterpreterTest, RandomCasesMatchTheTranscription) {
  std::mt19937_64 rng(21);
  auto draw = [&](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
  };
  for (int trial = 0; trial < 200; ++trial) {
    Shape dataShape(std::size_t(draw(1, 4)));
    for (std::int64_t &d : dataShape)
      d = draw(1, 4);
    Shape indexShape(std::size_t(draw(0, 3)));
    for (std::int64_t &d : indexShape)
      d = draw(1, 3);
    const std::int64_t axis = draw(0, std::int64_t(dataShape.size()) - 1);
    const std::int64_t dim = dataShape[std::size_t(axis)];
    std::int64_t dataCount = 1, indexCount = 1;
    for (std::int64_t d : dataShape)
      dataCount *= d;
    for (std::int64_t d : indexShape)
      indexCount *= d;
    std::vector<double> data(static_cast<std::size_t>(dataCount));
    for (double &v : data)
      v = double(draw(-1000, 1000)) / 8;
    std::vector<std::int64_t> indices(static_cast<std::size_t>(indexCount));
    for (std::int64_t &k : indices)
      k = draw(-dim, dim - 1);
    const ElementType indexType =
        trial % 2 ? ElementType::I32 : ElementType::I64;
    Expected<HostTensorData> y =
        run(f32(dataShape, data), ints(indexType, indexShape, indices), axis);
    ASSERT_TRUE(y.ok()) << y.message();
    EXPECT_EQ(y->toDoubles(),
              transcription(dataShape, data, indexShape, indices, axis))
        << "trial " << trial << ", axis " << axis;
  }
}

/// A graph of token ids (i32, an input) cast to i64, reshaped and gathered;
/// and indices computed from the ids by an add, which the input check does
/// not trace.
TEST(GatherInterpreterTest, InputIndicesAreCheckedThroughCastsAndReshapes) {
  GraphBuilder b;
  TensorId table = b.input({ElementType::F32, {5, 2}}, "table");
  TensorId ids = b.input({ElementType::I64, {2, 2}}, "ids");
  TensorId narrow = b.cast(ids, ElementType::I32);
  TensorId flat = b.reshape(narrow, {4});
  b.output(b.gather(table, flat, 0));
  TensorId shifted = b.binary(OpKind::Add, ids, ids);
  b.output(b.gather(table, shifted, 0));
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  HostTensorData tableData = f32({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto check = [&](std::vector<std::int64_t> values) {
    HostTensorData idData = ints(ElementType::I64, {2, 2}, values);
    return checkGatherIndexInputs(
        *graph, {{table, tableData.view()}, {ids, idData.view()}});
  };
  EXPECT_TRUE(check({0, 4, -5, -1}).ok());
  // 2^32 + 1 is 1 once cast to i32: in range, as the gather reads it.
  EXPECT_TRUE(check({0, (std::int64_t(1) << 32) + 1, 2, 3}).ok());
  Status bad = check({0, 1, 2, 5});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(),
            "op #2 (gather): index 5 (element 3 of the indices, from tensor 1 "
            "'ids') is out of range for dim 0 of size 5 of tensor<5x2xf32> "
            "(valid: -5 to 4)");
  // Computed indices (ids + ids = 8 here) are the evaluation's to check.
  EXPECT_TRUE(check({4, 0, 0, 0}).ok());
}

/// Indices that are a constant op (a splat, as the ONNX importer makes for
/// indices whose elements are all equal), directly and through a reshape:
/// nothing bound to check, and the trace stops at the constant (it once read
/// the constant's missing operand).
TEST(GatherInterpreterTest, ConstantIndicesAreNotTraced) {
  GraphBuilder b;
  TensorId table = b.input({ElementType::F32, {5, 2}}, "table");
  TensorId same = b.splat({ElementType::I64, {2, 3}}, 2);
  b.output(b.gather(table, same, 0));
  b.output(b.gather(table, b.reshape(same, {6}), 0));
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  HostTensorData tableData = f32({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(checkGatherIndexInputs(*graph, {{table, tableData.view()}}).ok());
  Expected<std::vector<HostTensorData>> y =
      evaluateGraph(*graph, std::vector<HostTensor>{tableData.view()});
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ((*y)[0].toDoubles(),
            std::vector<double>({4, 5, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5}));
}

} // namespace
