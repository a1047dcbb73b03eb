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
#include <random>
#include <vector>

namespace fuse::engine {
namespace {

TEST(EngineTargetCompilerTest, HostTargetsGoToTheHostCompiler) {
  TargetDispatchCompiler compiler;
  SessionOptions options;
  options.device = DeviceChoice::Host;
  options.compiler = &compiler;
  std::vector<std::string> warnings;
  options.onWarning = [&](const std::string &w) { warnings.push_back(w); };
  Expected<Session> session = Session::open(options);
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
  SessionOptions options;
  options.device = DeviceChoice::Host;
  options.compiler = &compiler;
  Expected<Session> session = Session::open(options);
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
  SessionOptions options;
  options.device = DeviceChoice::Host;
  options.compiler = &compiler;
  Expected<Session> session = Session::open(options);
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
