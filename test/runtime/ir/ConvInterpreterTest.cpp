//===- ConvInterpreterTest.cpp - conv's reference semantics ---------------===//
//
// The interpreter's conv against values worked out by hand, and against an
// independent formulation (zero-padded copy of the input, im2col, matmul) on
// random inputs; its shape checks against their messages.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace fuse;
using namespace fuse::irtest;

namespace {

struct ConvCase {
  Shape x, w;
  bool bias = false;
  Shape strides, dilations, pads;
  std::int64_t group = 1;
};

AttrMap convAttrs(const ConvCase &c) {
  return {{"strides", Attribute::i64Array(c.strides)},
          {"dilations", Attribute::i64Array(c.dilations)},
          {"pads", Attribute::i64Array(c.pads)},
          {"group", Attribute::i64(c.group)}};
}

/// Evaluates one conv; inputs in the order x, w, bias.
Expected<HostTensorData> runConv(const ConvCase &c,
                                 std::vector<HostTensorData> inputs) {
  return evaluateOp(OpKind::Conv, std::move(inputs), convAttrs(c));
}

void expectValues(const Expected<HostTensorData> &actual, const Shape &shape,
                  const std::vector<double> &expected) {
  ASSERT_TRUE(actual.ok()) << actual.message();
  EXPECT_EQ(actual->type.shape, shape);
  EXPECT_EQ(actual->toDoubles(), expected);
}

TEST(ConvInterpreterTest, HandComputed2D) {
  // x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], w = [[1, 0], [0, 1]]: each output
  // adds an element and its lower-right neighbour.
  const HostTensorData x = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const HostTensorData w = f32({1, 1, 2, 2}, {1, 0, 0, 1});
  ConvCase plain{{1, 1, 3, 3}, {1, 1, 2, 2}, false,
                 {1, 1},       {1, 1},       {0, 0, 0, 0}};
  expectValues(runConv(plain, {x, w}), {1, 1, 2, 2}, {6, 8, 12, 14});
  ConvCase biased = plain;
  biased.bias = true;
  expectValues(runConv(biased, {x, w, f32({1}, {0.5})}), {1, 1, 2, 2},
               {6.5, 8.5, 12.5, 14.5});
  // Padded by one on every side, stride 2: windows start at (-1, -1),
  // (-1, 1), (1, -1), (1, 1); the zero padding leaves x[0][0], x[0][2],
  // x[2][0] and 5 + 9.
  ConvCase strided{{1, 1, 3, 3}, {1, 1, 2, 2}, false,
                   {2, 2},       {1, 1},       {1, 1, 1, 1}};
  expectValues(runConv(strided, {x, w}), {1, 1, 2, 2}, {1, 3, 7, 14});
  // Uneven pads: one row on top only; rows start at -1 and 0.
  ConvCase uneven{{1, 1, 3, 3}, {1, 1, 2, 2}, false,
                  {1, 1},       {1, 1},       {1, 0, 0, 0}};
  expectValues(runConv(uneven, {x, w}), {1, 1, 3, 2}, {2, 3, 6, 8, 12, 14});
}

TEST(ConvInterpreterTest, HandComputed1DDilationAndGroups) {
  // w = [1, -1] dilated by 2: x[o] - x[o + 2].
  ConvCase dilated{{1, 1, 5}, {1, 1, 2}, false, {1}, {2}, {0, 0}};
  expectValues(runConv(dilated, {f32({1, 1, 5}, {1, 2, 4, 8, 16}),
                                 f32({1, 1, 2}, {1, -1})}),
               {1, 1, 3}, {-3, -6, -12});
  // Depthwise: channel 0 = [1, 2] times 2, channel 1 = [3, 4] times 10.
  ConvCase depthwise{{1, 2, 2}, {2, 1, 1}, true, {1}, {1}, {0, 0}, 2};
  expectValues(runConv(depthwise, {f32({1, 2, 2}, {1, 2, 3, 4}),
                                   f32({2, 1, 1}, {2, 10}), f32({2}, {1, -1})}),
               {1, 2, 2}, {3, 5, 29, 39});
  // Two groups of two channels, one filter each: filter 0 sums channels 0
  // and 1, filter 1 subtracts channel 3 from channel 2.
  ConvCase grouped{{1, 4, 1}, {2, 2, 1}, false, {1}, {1}, {0, 0}, 2};
  expectValues(runConv(grouped, {f32({1, 4, 1}, {1, 2, 3, 4}),
                                 f32({2, 2, 1}, {1, 1, 1, -1})}),
               {1, 2, 1}, {3, -1});
}

/// The independent formulation: pad into a zeroed copy, gather each
/// window into a column, multiply by the group's weight rows.
std::vector<double> naiveConv(const ConvCase &c, const std::vector<double> &x,
                              const std::vector<double> &w,
                              const std::vector<double> &bias, Shape &out) {
  const bool oneD = c.x.size() == 3;
  const std::int64_t n = c.x[0], ch = c.x[1], ih = c.x[2],
                     iw = oneD ? 1 : c.x[3];
  const std::int64_t m = c.w[0], kh = c.w[2], kw = oneD ? 1 : c.w[3];
  const std::int64_t sh = c.strides[0], sw = oneD ? 1 : c.strides[1];
  const std::int64_t dh = c.dilations[0], dw = oneD ? 1 : c.dilations[1];
  const std::int64_t top = c.pads[0], left = oneD ? 0 : c.pads[1];
  const std::int64_t bottom = oneD ? c.pads[1] : c.pads[2],
                     right = oneD ? 0 : c.pads[3];
  const std::int64_t ph = ih + top + bottom, pw = iw + left + right;
  std::vector<double> padded(std::size_t(n * ch * ph * pw), 0.0);
  for (std::int64_t i = 0; i < n * ch; ++i)
    for (std::int64_t r = 0; r < ih; ++r)
      for (std::int64_t q = 0; q < iw; ++q)
        padded[std::size_t((i * ph + r + top) * pw + q + left)] =
            x[std::size_t((i * ih + r) * iw + q)];
  const std::int64_t oh = (ph - dh * (kh - 1) - 1) / sh + 1;
  const std::int64_t ow = (pw - dw * (kw - 1) - 1) / sw + 1;
  out = oneD ? Shape{n, m, oh} : Shape{n, m, oh, ow};
  const std::int64_t cg = ch / c.group, mg = m / c.group;
  const std::int64_t rows = cg * kh * kw;
  std::vector<double> result(std::size_t(n * m * oh * ow));
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t g = 0; g < c.group; ++g) {
      // columns[rows][oh * ow] of this image and group.
      std::vector<double> columns(std::size_t(rows * oh * ow));
      for (std::int64_t cc = 0; cc < cg; ++cc)
        for (std::int64_t i = 0; i < kh; ++i)
          for (std::int64_t j = 0; j < kw; ++j)
            for (std::int64_t y = 0; y < oh; ++y)
              for (std::int64_t z = 0; z < ow; ++z)
                columns[std::size_t(((cc * kh + i) * kw + j) * oh * ow +
                                    y * ow + z)] =
                    padded[std::size_t(
                        ((b * ch + g * cg + cc) * ph + y * sh + i * dh) * pw +
                        z * sw + j * dw)];
      for (std::int64_t f = g * mg; f < (g + 1) * mg; ++f)
        for (std::int64_t p = 0; p < oh * ow; ++p) {
          double sum = 0;
          for (std::int64_t r = 0; r < rows; ++r)
            sum += w[std::size_t(f * rows + r)] *
                   columns[std::size_t(r * oh * ow + p)];
          result[std::size_t((b * m + f) * oh * ow + p)] =
              sum + (bias.empty() ? 0.0 : bias[std::size_t(f)]);
        }
    }
  return result;
}

TEST(ConvInterpreterTest, MatchesIm2colOnRandomInputs) {
  std::random_device seed;
  const unsigned seedValue = seed();
  std::mt19937 rng(seedValue);
  std::uniform_real_distribution<double> value(0.1, 1.0);
  std::bernoulli_distribution negative(0.5);
  auto randomValues = [&](std::int64_t count) {
    std::vector<double> values(static_cast<std::size_t>(count));
    for (double &v : values)
      v = negative(rng) ? -value(rng) : value(rng);
    return values;
  };
  const ConvCase cases[] = {
      {{2, 3, 7, 6}, {4, 3, 3, 3}, true, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 4, 9, 8}, {6, 2, 3, 2}, false, {2, 3}, {2, 1}, {0, 1, 2, 0}, 2},
      {{1, 6, 8, 8}, {6, 1, 3, 3}, true, {2, 2}, {1, 1}, {1, 1, 0, 0}, 6},
      {{2, 4, 17}, {8, 4, 5}, true, {3}, {2}, {2, 3}},
      {{1, 3, 10}, {3, 1, 4}, false, {1}, {1}, {0, 3}, 3},
  };
  for (ElementType type : {ElementType::F32, ElementType::F16}) {
    for (const ConvCase &c : cases) {
      SCOPED_TRACE((::testing::Message()
                    << "seed " << seedValue << ", " << elementTypeName(type)
                    << ", x " << TensorType{type, c.x}.toString()));
      // Inputs rounded to the element type first, so that both sides read
      // the same values.
      auto make = [&](const Shape &shape) {
        return HostTensorData::fromDoubles(
            {type, shape}, randomValues(TensorType{type, shape}.numElements()));
      };
      std::vector<HostTensorData> inputs{make(c.x), make(c.w)};
      if (c.bias)
        inputs.push_back(make({c.w[0]}));
      Shape shape;
      const std::vector<double> expected = naiveConv(
          c, inputs[0].toDoubles(), inputs[1].toDoubles(),
          c.bias ? inputs[2].toDoubles() : std::vector<double>{}, shape);
      Expected<HostTensorData> actual = runConv(c, inputs);
      ASSERT_TRUE(actual.ok()) << actual.message();
      ASSERT_EQ(actual->type.shape, shape);
      const std::vector<double> values = actual->toDoubles();
      // Both sum in f64 and round once: at most one rounding step of the
      // element type apart (the summation orders differ). Below the normal
      // range the step is the smallest subnormal (f16: 2^-24, so a sum near
      // -1.35e-5 may round to values 3e-8 apart).
      const bool half = type == ElementType::F16;
      const double eps = half ? 0x1p-10 : 0x1p-23;
      const double subnormalStep = half ? 0x1p-24 : 0x1p-149;
      for (std::size_t i = 0; i < values.size(); ++i)
        EXPECT_NEAR(values[i], expected[i],
                    std::max(eps * std::abs(expected[i]), subnormalStep) +
                        1e-12)
            << "element " << i;
    }
  }
}

TEST(ConvInterpreterTest, ShapeErrors) {
  auto message = [](const ConvCase &c, ElementType wType = ElementType::F32) {
    Graph graph;
    std::vector<TensorId> operands{graph.addInput({ElementType::F32, c.x}),
                                   graph.addInput({wType, c.w})};
    if (c.bias)
      operands.push_back(graph.addInput({ElementType::F32, {5}}));
    Expected<TensorId> result =
        graph.addOp(OpKind::Conv, operands, convAttrs(c));
    if (result.ok())
      return std::string("ok");
    // Graph::addOp names the op first.
    const std::string prefix = "op #0 (conv): ";
    EXPECT_EQ(result.message().rfind(prefix, 0), 0u) << result.message();
    return result.message().substr(prefix.size());
  };
  EXPECT_EQ(message({{1, 2, 3, 4, 5},
                     {1, 2, 1, 1, 1},
                     false,
                     {1, 1, 1},
                     {1, 1, 1},
                     {0, 0, 0, 0, 0, 0}}),
            "the input has type tensor<1x2x3x4x5xf32>, expected rank 3 or 4 "
            "([N, C, spatial...] with 1 or 2 spatial dims)");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, false, {1}, {1}, {0, 0}},
                    ElementType::F16),
            "operand 1 has element type f16, expected f32 (that of the "
            "input)");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, false, {1, 1}, {1}, {0, 0}}),
            "attribute 'strides' = [1, 1] has 2 entries, expected 1 (one per "
            "spatial dim)");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, false, {1}, {1}, {0}}),
            "attribute 'pads' = [0] has 1 entries, expected 2 (a begin and an "
            "end pad per spatial dim)");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, false, {0}, {1}, {0, 0}}),
            "attribute 'strides' = [0] must hold values >= 1");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, false, {1}, {1}, {-1, 0}}),
            "attribute 'pads' = [-1, 0] must hold values >= 0");
  EXPECT_EQ(message({{1, 2, 8}, {4, 1, 3}, false, {1}, {1}, {0, 0}, 3}),
            "attribute 'group' = 3 must be >= 1 and divide the 2 input "
            "channels and the 4 output channels");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, false, {1}, {1}, {0, 0}, 2}),
            "the weight has type tensor<4x2x3xf32>, expected 1 channels per "
            "group in dim 1 (2 input channels in 2 groups)");
  EXPECT_EQ(message({{1, 2, 8}, {4, 2, 3}, true, {1}, {1}, {0, 0}}),
            "the bias has type tensor<5xf32>, expected shape [4] (one per "
            "output channel)");
  EXPECT_EQ(message({{1, 2, 4}, {4, 2, 3}, false, {1}, {2}, {0, 0}}),
            "spatial dim 0: the padded input (4) is smaller than the dilated "
            "kernel (5)");
  EXPECT_EQ(message({{1, 2, 4}, {4, 2, 3}, false, {1}, {2}, {1, 0}}), "ok");
}

//===----------------------------------------------------------------------===//
// im2col: the column matrix fuse-lower-convolutions makes
//===----------------------------------------------------------------------===//

/// Evaluates `x` -> im2col -> a matmul with `w` as [M, C * K] -> the conv's
/// output shape: the lowering of a group-1 convolution.
Expected<HostTensorData> runIm2colMatmul(const ConvCase &c,
                                         std::vector<HostTensorData> inputs,
                                         const Shape &out) {
  GraphBuilder b;
  TensorId x = b.input(inputs[0].type), w = b.input(inputs[1].type);
  Shape kernel(c.w.begin() + 2, c.w.end());
  std::int64_t offsets = 1, positions = 1;
  for (std::int64_t k : kernel)
    offsets *= k;
  for (std::size_t d = 2; d < out.size(); ++d)
    positions *= out[d];
  TensorId columns = b.im2col(x, {kernel, c.strides, c.dilations, c.pads});
  TensorId product =
      b.matmul(b.reshape(w, {c.w[0], c.x[1] * offsets}),
               b.reshape(columns, {c.x[0], c.x[1] * offsets, positions}));
  b.output(b.reshape(product, out));
  return evaluateBuilt(b, std::move(inputs));
}

TEST(Im2colInterpreterTest, HandComputed) {
  // [1, 2, 3] with a window of 2 and one zero before: offset 0 reads
  // positions -1, 0, 1 (the first in the padding), offset 1 reads 0, 1, 2.
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {1, 1, 3}});
  b.output(b.im2col(x, {{2}, {1}, {1}, {1, 0}}));
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  HostTensorData input = f32({1, 1, 3}, {1, 2, 3});
  std::vector<HostTensor> views{input.view()};
  Expected<std::vector<HostTensorData>> out = evaluateGraph(*graph, views);
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->front().type.shape, (Shape{1, 1, 2, 3}));
  EXPECT_EQ(out->front().toDoubles(), (std::vector<double>{0, 1, 2, 1, 2, 3}));
}

TEST(Im2colInterpreterTest, MatmulOfColumnsIsTheConvolution) {
  std::random_device seed;
  const unsigned seedValue = seed();
  std::mt19937 rng(seedValue);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const ConvCase cases[] = {
      {{2, 3, 7, 6}, {4, 3, 3, 3}, false, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 4, 9, 8}, {6, 4, 3, 2}, false, {2, 3}, {2, 1}, {0, 1, 2, 0}},
      {{2, 4, 17}, {8, 4, 5}, false, {3}, {2}, {2, 3}},
      {{1, 2, 6, 5}, {3, 2, 1, 1}, false, {2, 1}, {1, 1}, {1, 0, 0, 2}},
  };
  for (const ConvCase &c : cases) {
    SCOPED_TRACE((::testing::Message()
                  << "seed " << seedValue << ", x "
                  << TensorType{ElementType::F32, c.x}.toString()));
    auto make = [&](const Shape &shape) {
      std::vector<double> values(
          std::size_t(TensorType{ElementType::F32, shape}.numElements()));
      for (double &v : values)
        v = value(rng);
      return f32(shape, values);
    };
    std::vector<HostTensorData> inputs{make(c.x), make(c.w)};
    Shape shape;
    const std::vector<double> expected =
        naiveConv(c, inputs[0].toDoubles(), inputs[1].toDoubles(), {}, shape);
    Expected<HostTensorData> actual = runIm2colMatmul(c, inputs, shape);
    ASSERT_TRUE(actual.ok()) << actual.message();
    ASSERT_EQ(actual->type.shape, shape);
    const std::vector<double> values = actual->toDoubles();
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_NEAR(values[i], expected[i], 1e-5 * (1 + std::abs(expected[i])))
          << "element " << i;
  }
}

TEST(Im2colInterpreterTest, ShapeErrors) {
  Graph graph;
  TensorId x = graph.addInput({ElementType::F32, {1, 2, 4}});
  Expected<TensorId> result =
      graph.addOp(OpKind::Im2col, {x},
                  {{"window", Attribute::i64Array({6})},
                   {"strides", Attribute::i64Array({1})},
                   {"dilations", Attribute::i64Array({1})},
                   {"pads", Attribute::i64Array({0, 1})}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.message(),
            "op #0 (im2col): window dim 0: the window of 6 with dilation 1 "
            "does not fit in the padded input of 5 (dim 2 of "
            "tensor<1x2x4xf32>)");
}

} // namespace
