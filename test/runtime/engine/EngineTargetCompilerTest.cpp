//===- EngineTargetCompilerTest.cpp - TargetDispatchCompiler in a Session -===//
//
// The engine on the host with TargetDispatchCompiler injected: host targets
// go to HostCompiler (values checked against std::exp), other targets are
// errors that name them, and the GPU compiler is never made for a host
// session.
//
//===----------------------------------------------------------------------===//

#include "compiler/TargetCompiler.h"

#include "compiler/HostCompiler.h"
#include "runtime/engine/Engine.h"

#include <gtest/gtest.h>

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
