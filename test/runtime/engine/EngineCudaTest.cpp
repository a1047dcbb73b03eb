//===- EngineCudaTest.cpp - The engine on the CUDA runtime (fake driver) --===//
//
// A Session on DeviceChoice::Cuda, over the fake driver
// test/runtime/device/FakeCudaDriver.cpp (host memory, kernels recorded rather
// than run): the engine uploads, launches a PTX bundle from its compiler and
// reads back through CudaRuntime, one submission per block. Values are not
// checked, since the fake runs no kernel; the launch log is.
//
//===----------------------------------------------------------------------===//

#include "runtime/engine/Engine.h"

#include "test/runtime/device/CudaTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace fuse::engine {
namespace {

/// Answers the PTX add bundle of CudaTestSupport.h for `a + b` over f32[n].
class PtxAddCompiler final : public Compiler {
public:
  int calls = 0;
  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &) override {
    ++calls;
    if (graph.ops.size() != 1 || graph.ops[0].kind != OpKind::Add)
      return Status::error("the PTX test compiler makes add kernels only");
    Compilation compilation;
    compilation.bundle =
        test::cudaAddBundle(graph.typeOf(graph.inputs[0]).numElements());
    compilation.bundle.target = target.name;
    return compilation;
  }
};

TEST(EngineCudaTest, ABlockRunsThroughTheCudaRuntime) {
  ::setenv("FUSE_CUDA_DRIVER", FUSE_FAKE_CUDA_DRIVER_PATH, 1);
  const test::FakeDriver *fake = test::fakeDriver();
  ASSERT_NE(fake, nullptr);
  fake->reset();
  PtxAddCompiler compiler;
  SessionOptions options;
  options.device = DeviceChoice::Cuda;
  options.compiler = &compiler;
  Expected<Session> session = Session::open(options);
  ASSERT_TRUE(session.ok()) << session.message();
  EXPECT_EQ(session->deviceName(), "cuda");
  EXPECT_TRUE(session->target().starts_with("sm_")) << session->target();

  const std::int64_t n = 1000;
  TensorType type{ElementType::F32, {n}};
  Tensor a = session->upload(type, std::vector<double>(n, 1.5));
  Tensor b = session->upload(type, std::vector<double>(n, 2.5));
  Tensor sum = a + b;
  Expected<std::vector<double>> values = sum.readDoubles();
  ASSERT_TRUE(values.ok()) << values.message();
  EXPECT_EQ(values->size(), std::size_t(n));
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(fake->launchCount(), 1);
  FakeCudaLaunch launch;
  ASSERT_NE(fake->getLaunch(0, &launch), 0);
  EXPECT_STREQ(launch.name, "fuse_test_add_f32");
  EXPECT_EQ(launch.grid[0], unsigned((n + 127) / 128));
  EngineCounters counters = session->counters();
  EXPECT_EQ(counters.submissions, 1u);
  EXPECT_EQ(counters.kernelsLaunched, 1u);

  // The sum stays on the device and feeds the next block; a's upload is
  // reused.
  Tensor again = sum + a;
  ASSERT_TRUE(again.read().ok());
  EXPECT_EQ(fake->launchCount(), 2);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(session->counters().sessionHits, 1u);
}

TEST(EngineCudaTest, DefaultPicksCudaWhenADriverAndADeviceArePresent) {
  const char *previous = std::getenv("FUSE_CUDA_DRIVER");
  std::string saved = previous ? previous : "";
  ::setenv("FUSE_CUDA_DRIVER", FUSE_FAKE_CUDA_DRIVER_PATH, 1);
  PtxAddCompiler compiler;
  SessionOptions options;
  options.compiler = &compiler;
  std::vector<std::string> notes;
  options.onWarning = [&](const std::string &note) { notes.push_back(note); };
  Expected<Session> session = Session::open(options);
  ASSERT_TRUE(session.ok()) << session.message();
  EXPECT_EQ(session->deviceName(), "cuda");
  EXPECT_TRUE(session->target().starts_with("sm_")) << session->target();
  EXPECT_EQ(session->deviceNote(),
            "default device: cuda (" + session->target() + ")");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], session->deviceNote());

  // A host target asks for the host even with a driver present.
  options.target = "host-x86-64-v3";
  Expected<Session> host = Session::open(options);
  if (host.ok()) {
    EXPECT_EQ(host->deviceName(), "host");
    EXPECT_EQ(host->target(), "host-x86-64-v3");
  }
  options.target.clear();

  // The driver missing: the host.
  ::setenv("FUSE_CUDA_DRIVER", "/nonexistent/libcuda-for-engine-test.so", 1);
  notes.clear();
  Expected<Session> fallback = Session::open(options);
  if (previous)
    ::setenv("FUSE_CUDA_DRIVER", saved.c_str(), 1);
  else
    ::unsetenv("FUSE_CUDA_DRIVER");
  if (!fallback.ok())
    GTEST_SKIP() << fallback.message(); // no host ISA level
  EXPECT_EQ(fallback->deviceName(), "host");
  EXPECT_TRUE(fallback->target().starts_with("host-")) << fallback->target();
  EXPECT_NE(fallback->deviceNote().find("no CUDA device"), std::string::npos)
      << fallback->deviceNote();
  ASSERT_EQ(notes.size(), 1u);
}

} // namespace
} // namespace fuse::engine
