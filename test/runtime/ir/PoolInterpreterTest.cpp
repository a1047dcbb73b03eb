//===- PoolInterpreterTest.cpp - The reference semantics of fuse.pool -----===//
//
// Small cases worked out by hand, then random cases against a direct
// transcription of the ONNX definition (every window position visited from
// the padded coordinates, written independently of the interpreter's loop),
// and the verifier's refusals.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestSupport.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace fuse;
using namespace fuse::irtest;

namespace {

struct Pool {
  std::string kind = "max";
  std::vector<std::int64_t> window, strides, dilations, pads;
  bool ceilMode = false, countIncludePad = false;

  AttrMap attributes() const {
    AttrMap a;
    a.emplace("kind", Attribute::enumName(kind));
    a.emplace("window", Attribute::i64Array(window));
    a.emplace("strides", Attribute::i64Array(strides));
    a.emplace("dilations", Attribute::i64Array(dilations));
    a.emplace("pads", Attribute::i64Array(pads));
    if (ceilMode)
      a.emplace("ceil_mode", Attribute::flag(true));
    if (countIncludePad)
      a.emplace("count_include_pad", Attribute::flag(true));
    return a;
  }
};

Expected<HostTensorData> run(const Pool &pool, HostTensorData input) {
  return evaluateOp(OpKind::Pool, {std::move(input)}, pool.attributes());
}

TEST(PoolInterpreterTest, MaxWithPaddingHandComputed) {
  // x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], window 2x2, stride 2, one pad
  // before each dim: windows {1}, {2, 3}, {4, 7}, {5, 6, 8, 9}.
  Pool pool{"max", {2, 2}, {2, 2}, {1, 1}, {1, 1, 0, 0}};
  Expected<HostTensorData> y =
      run(pool, f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->type.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{1, 3, 7, 9}));
}

TEST(PoolInterpreterTest, MeanCountsThePaddingOnlyWhenAsked) {
  // 1-D [2, 4, 6], window 2, stride 2, pads 1 and 1: windows {pad, 2},
  // {4, 6}. Without count_include_pad 2 / 1 and 10 / 2; with it 2 / 2.
  Pool pool{"mean", {2}, {2}, {1}, {1, 1}};
  Expected<HostTensorData> y = run(pool, f32({1, 1, 3}, {2, 4, 6}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{2, 5}));
  pool.countIncludePad = true;
  y = run(pool, f32({1, 1, 3}, {2, 4, 6}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{1, 5}));
}

TEST(PoolInterpreterTest, CeilModeKeepsAPartialLastWindow) {
  // [1, 2, 3, 4, 5], window 2, stride 2: floor gives {1,2}, {3,4}; ceil adds
  // {5} (a window starting inside the input). The mean of {5} counts one
  // position even with count_include_pad: past the end padding is nothing.
  Pool pool{"mean", {2}, {2}, {1}, {0, 0}};
  pool.countIncludePad = true;
  Expected<HostTensorData> y = run(pool, f32({1, 1, 5}, {1, 2, 3, 4, 5}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{1.5, 3.5}));
  pool.ceilMode = true;
  y = run(pool, f32({1, 1, 5}, {1, 2, 3, 4, 5}));
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{1.5, 3.5, 5}));
}

TEST(PoolInterpreterTest, MaxPropagatesNaNAndDilationSkips) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Window 2 with dilation 2 over [1, 9, nan, 3, 4]: {1, nan}, {9, 3},
  // {nan, 4}.
  Pool pool{"max", {2}, {1}, {2}, {0, 0}};
  Expected<HostTensorData> y = run(pool, f32({1, 5}, {1, 9, nan, 3, 4}));
  ASSERT_TRUE(y.ok()) << y.message();
  std::vector<double> v = y->toDoubles();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 9);
  EXPECT_TRUE(std::isnan(v[2]));
}

TEST(PoolInterpreterTest, IntegerMaxIsExact) {
  Pool pool{"max", {3}, {3}, {1}, {1, 1}};
  const std::vector<std::int64_t> values{-128, -5, 127, -7};
  HostTensorData x =
      HostTensorData::fromInts({ElementType::I8, {1, 4}}, values);
  Expected<HostTensorData> y = run(pool, x);
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(y->toInts(), (std::vector<std::int64_t>{-5, 127}));
}

/// The ONNX definition, transcribed: pad the input with NaN-free markers,
/// visit every window position of the padded input and keep those inside.
std::vector<double> naivePool2d(const std::vector<double> &x, std::int64_t n,
                                std::int64_t h, std::int64_t w, const Pool &p,
                                std::int64_t oh, std::int64_t ow) {
  std::vector<double> y;
  const bool isMax = p.kind == "max";
  for (std::int64_t plane = 0; plane < n; ++plane)
    for (std::int64_t i = 0; i < oh; ++i)
      for (std::int64_t j = 0; j < ow; ++j) {
        double best = -INFINITY, sum = 0, count = 0;
        for (std::int64_t a = 0; a < p.window[0]; ++a)
          for (std::int64_t b = 0; b < p.window[1]; ++b) {
            const std::int64_t r = i * p.strides[0] + a * p.dilations[0];
            const std::int64_t c = j * p.strides[1] + b * p.dilations[1];
            // (r, c) in padded coordinates.
            const bool inPadded =
                r < h + p.pads[0] + p.pads[2] && c < w + p.pads[1] + p.pads[3];
            const bool inside = r >= p.pads[0] && r < h + p.pads[0] &&
                                c >= p.pads[1] && c < w + p.pads[1];
            if (p.countIncludePad ? inPadded : inside)
              count += 1;
            if (!inside)
              continue;
            const double v = x[(plane * h + r - p.pads[0]) * w + c - p.pads[1]];
            best = std::max(best, v);
            sum += v;
          }
        y.push_back(isMax ? best : sum / count);
      }
  return y;
}

TEST(PoolInterpreterTest, RandomCasesMatchTheDefinition) {
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> value(-4, 4);
  std::uniform_int_distribution<std::int64_t> small(1, 3), size(3, 11),
      pad(0, 2), coin(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    Pool p;
    p.kind = coin(rng) ? "max" : "mean";
    p.window = {small(rng), small(rng)};
    p.strides = {small(rng), small(rng)};
    p.dilations = {small(rng), small(rng)};
    p.pads = {pad(rng), pad(rng), pad(rng), pad(rng)};
    p.ceilMode = coin(rng);
    p.countIncludePad = coin(rng);
    const std::int64_t h = size(rng), w = size(rng);
    std::vector<double> x(std::size_t(2 * h * w));
    for (double &v : x)
      v = value(rng);
    Expected<HostTensorData> y = run(
        p, HostTensorData::fromDoubles({ElementType::F64, {1, 2, h, w}}, x));
    // Some draws do not fit (the dilated window is wider than the padded
    // input); those must be refused, and only those.
    const std::int64_t spanH = (p.window[0] - 1) * p.dilations[0] + 1;
    const std::int64_t spanW = (p.window[1] - 1) * p.dilations[1] + 1;
    const bool fits = h + p.pads[0] + p.pads[2] >= spanH &&
                      w + p.pads[1] + p.pads[3] >= spanW;
    ASSERT_EQ(y.ok(), fits) << "trial " << trial;
    if (!fits)
      continue;
    // Output sizes from the definition: floor or ceil, and with ceil the
    // last window must start inside the input or the begin padding.
    auto outSize = [&](std::int64_t in, std::int64_t span, std::int64_t s,
                       std::int64_t begin, std::int64_t end) {
      const double exact = double(in + begin + end - span) / double(s);
      std::int64_t o =
          std::int64_t(p.ceilMode ? std::ceil(exact) : std::floor(exact)) + 1;
      if (p.ceilMode && (o - 1) * s >= in + begin)
        --o;
      return o;
    };
    const std::int64_t oh =
        outSize(h, spanH, p.strides[0], p.pads[0], p.pads[2]);
    const std::int64_t ow =
        outSize(w, spanW, p.strides[1], p.pads[1], p.pads[3]);
    ASSERT_EQ(y->type.shape, (Shape{1, 2, oh, ow})) << "trial " << trial;
    const std::vector<double> expected = naivePool2d(x, 2, h, w, p, oh, ow);
    const std::vector<double> actual = y->toDoubles();
    for (std::size_t k = 0; k < expected.size(); ++k) {
      if (std::isinf(expected[k])) { // a max over an empty window
        EXPECT_EQ(actual[k], expected[k]) << "trial " << trial << " at " << k;
        continue;
      }
      if (std::isnan(expected[k])) {
        EXPECT_TRUE(std::isnan(actual[k])) << "trial " << trial << " at " << k;
        continue;
      }
      EXPECT_NEAR(actual[k], expected[k], 1e-12)
          << "trial " << trial << " at " << k;
    }
  }
}

TEST(PoolInterpreterTest, VerifierRefusals) {
  auto message = [](const Pool &p, Shape shape, ElementType type) {
    Graph graph;
    TensorId x = graph.addInput({type, std::move(shape)});
    Expected<TensorId> r = graph.addOp(OpKind::Pool, {x}, p.attributes());
    return r.ok() ? std::string("accepted") : r.message();
  };
  EXPECT_NE(message({"sum", {2}, {1}, {1}, {0, 0}}, {1, 4}, ElementType::F32)
                .find("pool kind 'sum' is not one of max, mean"),
            std::string::npos);
  EXPECT_NE(message({"mean", {2}, {1}, {1}, {0, 0}}, {1, 4}, ElementType::I32)
                .find("a mean pool needs a float operand, got i32"),
            std::string::npos);
  EXPECT_NE(message({"max", {2}, {0}, {1}, {0, 0}}, {1, 4}, ElementType::F32)
                .find("must be >= 1"),
            std::string::npos);
  EXPECT_NE(message({"max", {2}, {1}, {1}, {0}}, {1, 4}, ElementType::F32)
                .find("must have 1, 1 and 2 entries"),
            std::string::npos);
  EXPECT_NE(message({"max", {5}, {1}, {2}, {0, 0}}, {1, 4}, ElementType::F32)
                .find("does not fit in the padded input of 4"),
            std::string::npos);
  EXPECT_NE(
      message({"max", {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}},
              {4, 4}, ElementType::F32)
          .find("expected 1 to 2"),
      std::string::npos);
}

} // namespace
