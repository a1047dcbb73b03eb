//===- EngineTargetCompilerTest.cpp - TargetDispatchCompiler in a Session -===//
//
// The engine on the host with TargetDispatchCompiler injected: host targets
// go to HostCompiler (values checked against std::exp), other targets are
// errors that name them, the GPU compiler is never made for a host
// session, and a kept weight is packed once.
//
//===----------------------------------------------------------------------===//

#include "compiler/TargetCompiler.h"

#include "compiler/host/HostCompiler.h"
#include "runtime/engine/Engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace fuse::engine {
namespace {

/// A host session whose blocks `compiler` compiles; its warnings go to
/// `onWarning` where one is given.
Expected<Session>
openHostSession(TargetDispatchCompiler &compiler,
                std::function<void(const std::string &)> onWarning = nullptr) {
  SessionOptions options;
  options.device = DeviceChoice::Host;
  options.compiler = &compiler;
  options.onWarning = std::move(onWarning);
  return Session::open(options);
}

TEST(EngineTargetCompilerTest, HostTargetsGoToTheHostCompiler) {
  TargetDispatchCompiler compiler;
  std::vector<std::string> warnings;
  Expected<Session> session = openHostSession(
      compiler, [&](const std::string &w) { warnings.push_back(w); });
  if (!session.ok())
    GTEST_SKIP() << session.message();

  const std::int64_t n = 37;
  std::vector<double> values(n);
  for (std::int64_t i = 0; i < n; ++i)
    values[i] = -1.0 + 0.05 * double(i);
  Tensor x = session->upload(TensorType{ElementType::F32, {n}}, values);
  Tensor z = exp(x) + fullLike(x, 1.0);
  Expected<std::vector<double>> result = z.readDoubles();
  ASSERT_TRUE(result.ok()) << result.message();
  ASSERT_EQ(result->size(), std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i)
    EXPECT_NEAR((*result)[i], std::exp(float(values[i])) + 1.0,
                1e-5 * (std::exp(values[i]) + 1.0))
        << i;
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(session->counters().fallbacks, 0u);
  EXPECT_NE(compiler.hostCompiler(), nullptr);
  EXPECT_EQ(compiler.gpuCompiler(), nullptr);
}

/// free_handle's other half: a block whose input no handle refers to any
/// more writes its same-typed output in place over the input's buffer (host
/// kernels, same-shape elementwise); an input still referenced never is.
TEST(EngineTargetCompilerTest, DroppedInputsAreWrittenInPlace) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();

  // Several scheduling grains of the pointwise kernel, and a scalar tail.
  const std::int64_t n = 10003;
  TensorType type{ElementType::F32, {n}};
  std::vector<double> values(n);
  for (std::int64_t i = 0; i < n; ++i)
    values[i] = -2.0 + 4.0 * double(i) / double(n);
  auto expectNear = [&](const Tensor &t, auto reference) {
    Expected<std::vector<double>> got = t.readDoubles();
    ASSERT_TRUE(got.ok()) << got.message();
    ASSERT_EQ(got->size(), std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
      double want = reference(double(float(values[i])));
      ASSERT_NEAR((*got)[i], want, 1e-5 * std::max(1.0, std::abs(want))) << i;
    }
  };
  auto inPlace = [&] { return session->counters().inPlaceOutputs; };

  // y = exp(x) with x dropped before the sync: y takes x's buffer.
  Tensor x = session->upload(type, values);
  Tensor y = exp(x);
  x = Tensor();
  expectNear(y, [](double v) { return std::exp(v); });
  EXPECT_EQ(inPlace(), 1u);

  // z = y + 1 with y still referenced: a fresh buffer, y unchanged.
  Tensor z = y + fullLike(y, 1.0);
  expectNear(z, [](double v) { return std::exp(v) + 1.0; });
  EXPECT_EQ(inPlace(), 1u);
  expectNear(y, [](double v) { return std::exp(v); });

  // y dropped, then w = y * 2 (recorded before the drop): in place.
  Tensor w = y * fullLike(y, 2.0);
  y = Tensor();
  expectNear(w, [](double v) { return 2.0 * std::exp(v); });
  EXPECT_EQ(inPlace(), 2u);
  expectNear(z, [](double v) { return std::exp(v) + 1.0; });

  // A second handle keeps the input alive: never in place.
  Tensor zCopy = z;
  Tensor negated = -z;
  z = Tensor();
  expectNear(negated, [](double v) { return -(std::exp(v) + 1.0); });
  EXPECT_EQ(inPlace(), 2u);
  expectNear(zCopy, [](double v) { return std::exp(v) + 1.0; });

  // Not elementwise (a reduction): never in place, even when dropped.
  Tensor total = reduce(ReduceKind::Sum, reshape(w, {n, 1}), {1});
  w = Tensor();
  expectNear(total, [](double v) { return 2.0 * std::exp(v); });
  EXPECT_EQ(inPlace(), 2u);
}

/// A weight the session keeps (the same storage) is packed once: runs of
/// the same bundle over it skip its pack kernel, and a new weight, or the
/// old one again after it, is packed anew. Values against a reference in
/// double on random inputs, relative tolerance 1e-4 of the row's scale.
TEST(EngineTargetCompilerTest, AKeptWeightIsPackedOnce) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();

  const std::int64_t m = 24, k = 64, n = 96;
  std::mt19937 random(20261205);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto values = [&](std::int64_t count) {
    std::vector<double> v(count);
    for (double &x : v)
      x = double(float(uniform(random)));
    return v;
  };
  TensorType xType{ElementType::F32, {m, k}}, wType{ElementType::F32, {k, n}};
  std::vector<double> w1 = values(k * n), w2 = values(k * n);
  Tensor weight1 = session->upload(wType, w1);
  Tensor weight2 = session->upload(wType, w2);

  // One run of x @ w; returns the kernels it launched.
  auto run = [&](const Tensor &weight, const std::vector<double> &w) {
    std::vector<double> x = values(m * k);
    std::uint64_t before = session->counters().kernelsLaunched;
    Tensor product = matmul(session->upload(xType, x), weight);
    Expected<std::vector<double>> got = product.readDoubles();
    EXPECT_TRUE(got.ok()) << got.message();
    if (!got.ok() || got->size() != std::size_t(m * n))
      return std::uint64_t(0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double want = 0, scale = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          want += x[i * k + p] * w[p * n + j];
          scale += std::abs(x[i * k + p] * w[p * n + j]);
        }
        EXPECT_NEAR((*got)[i * n + j], want, 1e-4 * scale) << i << "," << j;
      }
    return session->counters().kernelsLaunched - before;
  };

  std::uint64_t first = run(weight1, w1);
  ASSERT_GE(first, 2u) << "expected a pack kernel and a matmul";
  EXPECT_EQ(run(weight1, w1), first - 1);
  EXPECT_EQ(run(weight1, w1), first - 1);
  EXPECT_EQ(run(weight2, w2), first);
  EXPECT_EQ(run(weight2, w2), first - 1);
  EXPECT_EQ(run(weight1, w1), first);
  // A weight dropped and a new one uploaded (perhaps at the same address):
  // never taken for the old one.
  weight1 = Tensor();
  std::vector<double> w3 = values(k * n);
  Tensor weight3 = session->upload(wType, w3);
  EXPECT_EQ(run(weight3, w3), first);
  EXPECT_EQ(session->counters().fallbacks, 0u);
}

/// A decoder step's attention for callSymbolic: a cache of `past` rows per
/// head grown by `sequence` new ones (concat), and each new row's
/// softmax-weighted sum over all past + sequence rows; `heads` 0 drops the
/// heads dim.
Expected<Graph> cacheStep(std::int64_t heads) {
  GraphBuilder b;
  const std::int64_t past = b.symbol("past"), sequence = b.symbol("sequence");
  const std::int64_t keys = b.dim(
      *DimExpr::add(DimExpr::symbol("past"), DimExpr::symbol("sequence")));
  auto shape = [&](std::int64_t rows, std::int64_t last) {
    return heads ? std::vector<std::int64_t>{heads, rows, last}
                 : std::vector<std::int64_t>{rows, last};
  };
  const std::int64_t axis = heads ? 1 : 0, rowAxis = heads ? 2 : 1;
  TensorId cache = b.input({ElementType::F32, shape(past, 8)}, "cache");
  TensorId fresh = b.input({ElementType::F32, shape(sequence, 8)}, "new");
  TensorId grown = b.concat({cache, fresh}, axis);
  TensorId scores = b.matmul(fresh, grown, false, true);
  TensorId top = b.reduce(ReduceKind::Max, scores, {rowAxis}, true);
  TensorId e = b.exp(b.sub(scores, b.broadcastTo(top, shape(sequence, keys))));
  TensorId total = b.reduce(ReduceKind::Sum, e, {rowAxis}, true);
  TensorId weights = b.div(e, b.broadcastTo(total, shape(sequence, keys)));
  b.output(grown, "present");
  b.output(b.matmul(weights, grown), "mixed");
  return b.finish();
}

/// callSymbolic (issue 22): one compile serves every length of a decoder
/// step's attention; each call's outputs are checked against a loop here.
TEST(EngineTargetCompilerTest, ASymbolicGraphCompilesOnceForEveryLength) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();
  const std::int64_t heads = 2, width = 8;
  Expected<Graph> graph = cacheStep(heads);
  ASSERT_TRUE(graph.ok()) << graph.message();

  std::mt19937 rng(22);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto values = [&](std::int64_t count) {
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double &x : v)
      x = uniform(rng);
    return v;
  };
  for (auto [p, s] : {std::pair<std::int64_t, std::int64_t>{0, 5},
                      {5, 1},
                      {6, 1},
                      {31, 1},
                      {7, 3}}) {
    SCOPED_TRACE("past " + std::to_string(p) + ", sequence " +
                 std::to_string(s));
    std::vector<double> c = values(heads * p * width),
                        n = values(heads * s * width);
    std::vector<Tensor> inputs{
        session->upload(TensorType{ElementType::F32, {heads, p, width}}, c),
        session->upload(TensorType{ElementType::F32, {heads, s, width}}, n)};
    bool refused = true;
    Expected<std::vector<Tensor>> outputs =
        callSymbolic(*session, *graph, inputs, &refused);
    ASSERT_TRUE(outputs.ok()) << outputs.message();
    EXPECT_FALSE(refused);
    ASSERT_EQ(outputs->size(), 2u);
    EXPECT_EQ((*outputs)[0].type(),
              (TensorType{ElementType::F32, {heads, p + s, width}}));
    Expected<std::vector<double>> present = (*outputs)[0].readDoubles();
    Expected<std::vector<double>> mixed = (*outputs)[1].readDoubles();
    ASSERT_TRUE(present.ok() && mixed.ok());
    for (std::int64_t h = 0; h < heads; ++h) {
      // Head h's rows: its cache, then its new rows.
      std::vector<double> rows(c.begin() + h * p * width,
                               c.begin() + (h + 1) * p * width);
      rows.insert(rows.end(), n.begin() + h * s * width,
                  n.begin() + (h + 1) * s * width);
      for (std::size_t k = 0; k < rows.size(); ++k)
        EXPECT_EQ(float((*present)[h * (p + s) * width + k]), float(rows[k]))
            << h << ", " << k;
      for (std::int64_t i = 0; i < s; ++i) {
        const double *q = &n[(h * s + i) * width];
        std::vector<double> e(static_cast<std::size_t>(p + s));
        double top = -INFINITY, sum = 0;
        for (std::int64_t j = 0; j < p + s; ++j) {
          double dot = 0;
          for (std::int64_t d = 0; d < width; ++d)
            dot += q[d] * rows[j * width + d];
          e[j] = dot;
          top = std::max(top, dot);
        }
        for (double &x : e)
          sum += (x = std::exp(x - top));
        for (std::int64_t d = 0; d < width; ++d) {
          double want = 0;
          for (std::int64_t j = 0; j < p + s; ++j)
            want += e[j] / sum * rows[j * width + d];
          EXPECT_NEAR((*mixed)[(h * s + i) * width + d], want, 1e-5)
              << h << ", " << i << ", " << d;
        }
      }
    }
  }
  EXPECT_EQ(session->counters().compilations, 1u);
  EXPECT_EQ(session->counters().fallbacks, 0u);

  // Inputs that do not fit the graph are errors that name the input.
  Tensor flat = session->upload(TensorType{ElementType::F32, {8}},
                                std::vector<double>(8, 1.0));
  std::vector<Tensor> wrongRank{flat, flat};
  Expected<std::vector<Tensor>> wrong =
      callSymbolic(*session, *graph, wrongRank);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("('cache') is a tensor<8xf32>"),
            std::string::npos)
      << wrong.message();
  std::vector<Tensor> one{flat};
  Expected<std::vector<Tensor>> count = callSymbolic(*session, *graph, one);
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.message().find("takes 2 inputs, given 1"), std::string::npos)
      << count.message();
}

/// Without a heads dim the scores matmul's keys are a symbolic N, which no
/// kernel takes at run time yet: the call says it was refused, so that the
/// caller can bind the dims instead.
TEST(EngineTargetCompilerTest, ARefusedSymbolicGraphSaysSo) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();
  Expected<Graph> graph = cacheStep(0);
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<Tensor> inputs{
      session->upload(TensorType{ElementType::F32, {3, 8}},
                      std::vector<double>(24, 0.5)),
      session->upload(TensorType{ElementType::F32, {1, 8}},
                      std::vector<double>(8, 0.25))};
  bool refused = false;
  Expected<std::vector<Tensor>> outputs =
      callSymbolic(*session, *graph, inputs, &refused);
  ASSERT_FALSE(outputs.ok());
  EXPECT_TRUE(refused);
  EXPECT_NE(outputs.message().find("needs a static value of dims"),
            std::string::npos)
      << outputs.message();
}

TEST(EngineTargetCompilerTest, OtherTargetsAreErrorsThatNameThem) {
  TargetDispatchCompiler compiler;
  Graph graph;
  Expected<Compilation> compilation =
      compiler.compile(graph, Target{"reference"}, CompileOptions{});
  ASSERT_FALSE(compilation.ok());
  EXPECT_NE(compilation.message().find("'reference'"), std::string::npos)
      << compilation.message();
  EXPECT_EQ(compiler.hostCompiler(), nullptr);
  EXPECT_EQ(compiler.gpuCompiler(), nullptr);
}

} // namespace
} // namespace fuse::engine
