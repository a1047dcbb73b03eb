//===- EngineTargetCompilerTest.cpp - TargetDispatchCompiler in a Session -===//
//
// The engine on the host with TargetDispatchCompiler injected: host targets
// go to HostCompiler (values checked against std::exp), other targets are
// errors that name them, and the GPU compiler is never made for a host
// session.
//
//===----------------------------------------------------------------------===//

#include "compiler/TargetCompiler.h"

#include "compiler/host/HostCompiler.h"
#include "runtime/engine/Engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
