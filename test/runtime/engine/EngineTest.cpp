//===- EngineTest.cpp - The lazy tensor API -------------------------------===//
//
// The engine on the reference runtime, with a fake compiler that makes
// reference bundles (makeReferenceBundle): composites against double
// formulas and the interpreter, keys, the cache across sessions, dropped
// handles, threads, compile failures and counters. Links FuseRuntime only.
//
//===----------------------------------------------------------------------===//

#include "runtime/engine/Engine.h"

#include "runtime/Version.h"
#include "runtime/ir/GraphHash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fuse::engine {
namespace {

/// Compiles any graph into a reference bundle; can be told to fail.
class FakeCompiler final : public Compiler {
public:
  /// Fail graphs with more than this many ops (a "fusion" failure).
  std::size_t failAboveOps = SIZE_MAX;
  /// Fail every graph that contains this op.
  std::optional<OpKind> failOnOp;
  /// Write the only output in place over input 0 when their sizes agree
  /// (right for the elementwise programs of the test that uses it).
  bool writeInPlace = false;

  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++calls;
    optionsSeen.push_back(options);
    if (graph.ops.size() > failAboveOps)
      return Status::error("fake: too many ops to fuse");
    for (const Op &op : graph.ops)
      if (failOnOp && op.kind == *failOnOp)
        return Status::error("fake: cannot compile " +
                             std::string(mnemonic(op.kind)));
    graphs.push_back(graph);
    Compilation compilation;
    compilation.bundle = makeReferenceBundle(graph);
    compilation.bundle.target = target.name;
    for (BundleKernel &kernel : compilation.bundle.kernels)
      kernel.target = target.name;
    if (writeInPlace && !graph.inputs.empty() && graph.outputs.size() == 1 &&
        graph.typeOf(graph.inputs[0]).byteSize() ==
            graph.typeOf(graph.outputs[0].tensor).byteSize())
      compilation.bundle.aliases.push_back({0, 0});
    return compilation;
  }

  std::mutex mutex;
  int calls = 0;
  std::vector<Graph> graphs;
  std::vector<CompileOptions> optionsSeen;
};

class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "fuse-engine-test-XXXXXX")
            .string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

std::unique_ptr<BundleCache> openCache(const std::string &directory) {
  BundleCacheOptions options;
  options.directory = directory;
  Expected<std::unique_ptr<BundleCache>> cache = BundleCache::open(options);
  EXPECT_TRUE(cache.ok()) << cache.message();
  return cache.take();
}

Session openReference(Compiler *compiler, BundleCache *cache = nullptr,
                      std::vector<std::string> *warnings = nullptr) {
  SessionOptions options;
  options.device = DeviceChoice::Reference;
  options.compiler = compiler;
  options.cache = cache;
  if (warnings)
    options.onWarning = [warnings](const std::string &message) {
      warnings->push_back(message);
    };
  Expected<Session> session = Session::open(std::move(options));
  EXPECT_TRUE(session.ok()) << session.message();
  return session.take();
}

/// Random values in +-[0.25, 2): never zero.
std::vector<double> randomValues(std::size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<double> magnitude(0.25, 2.0);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> values(count);
  for (double &value : values)
    value = float(negative(rng) ? -magnitude(rng) : magnitude(rng));
  return values;
}

std::mt19937 seededRng() {
  unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  return std::mt19937(seed);
}

std::vector<double> readOrFail(const Tensor &tensor) {
  Expected<std::vector<double>> values = tensor.readDoubles();
  EXPECT_TRUE(values.ok()) << values.message();
  return values.ok() ? *values : std::vector<double>{};
}

void expectNear(const std::vector<double> &actual,
                const std::vector<double> &expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i],
                tolerance * (1.0 + std::fabs(expected[i])))
        << "element " << i;
}

TensorType f32(std::vector<std::int64_t> shape) {
  return {ElementType::F32, std::move(shape)};
}

constexpr std::int64_t kRows = 5, kCols = 7;

/// Row-wise helper over a [kRows, kCols] matrix.
template <typename F>
std::vector<double> perRow(const std::vector<double> &x, F &&rowFunction) {
  std::vector<double> result(x.size());
  for (std::int64_t r = 0; r < kRows; ++r) {
    std::vector<double> row(x.begin() + r * kCols, x.begin() + (r + 1) * kCols);
    std::vector<double> out = rowFunction(row);
    std::copy(out.begin(), out.end(), result.begin() + r * kCols);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

class EngineCompositeTest : public ::testing::Test {
protected:
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> xs = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), xs);
};

TEST_F(EngineCompositeTest, Softmax) {
  std::vector<double> expected = perRow(xs, [](std::vector<double> row) {
    double m = *std::max_element(row.begin(), row.end()), sum = 0;
    for (double &v : row)
      sum += (v = std::exp(v - m));
    for (double &v : row)
      v /= sum;
    return row;
  });
  expectNear(readOrFail(softmax(x)), expected, 1e-6);
}

TEST_F(EngineCompositeTest, LogSoftmax) {
  std::vector<double> expected = perRow(xs, [](std::vector<double> row) {
    double m = *std::max_element(row.begin(), row.end()), sum = 0;
    for (double v : row)
      sum += std::exp(v - m);
    for (double &v : row)
      v = v - m - std::log(sum);
    return row;
  });
  expectNear(readOrFail(logSoftmax(x, 1)), expected, 1e-6);
}

TEST_F(EngineCompositeTest, SoftmaxOverTheFirstAxis) {
  std::vector<double> expected(xs.size());
  for (std::int64_t c = 0; c < kCols; ++c) {
    double m = -INFINITY, sum = 0;
    for (std::int64_t r = 0; r < kRows; ++r)
      m = std::max(m, xs[r * kCols + c]);
    for (std::int64_t r = 0; r < kRows; ++r)
      sum += std::exp(xs[r * kCols + c] - m);
    for (std::int64_t r = 0; r < kRows; ++r)
      expected[r * kCols + c] = std::exp(xs[r * kCols + c] - m) / sum;
  }
  expectNear(readOrFail(softmax(x, 0)), expected, 1e-6);
}

TEST_F(EngineCompositeTest, LayerNorm) {
  std::vector<double> gammas = randomValues(kCols, rng);
  std::vector<double> betas = randomValues(kCols, rng);
  Tensor gamma = session.upload(f32({kCols}), gammas);
  Tensor beta = session.upload(f32({kCols}), betas);
  const double eps = 1e-5;
  std::vector<double> expected = perRow(xs, [&](std::vector<double> row) {
    double mean = 0, var = 0;
    for (double v : row)
      mean += v / kCols;
    for (double v : row)
      var += (v - mean) * (v - mean) / kCols;
    for (std::int64_t i = 0; i < kCols; ++i)
      row[i] = (row[i] - mean) / std::sqrt(var + eps) * gammas[i] + betas[i];
    return row;
  });
  expectNear(readOrFail(layerNorm(x, gamma, beta, eps)), expected, 1e-5);
}

TEST_F(EngineCompositeTest, RmsNorm) {
  std::vector<double> gammas = randomValues(kCols, rng);
  Tensor gamma = session.upload(f32({kCols}), gammas);
  std::vector<double> expected = perRow(xs, [&](std::vector<double> row) {
    double meanSquare = 0;
    for (double v : row)
      meanSquare += v * v / kCols;
    for (std::int64_t i = 0; i < kCols; ++i)
      row[i] = row[i] / std::sqrt(meanSquare + 1e-6) * gammas[i];
    return row;
  });
  expectNear(readOrFail(rmsNorm(x, gamma)), expected, 1e-5);
}

TEST_F(EngineCompositeTest, Gelu) {
  std::vector<double> expected = xs;
  for (double &v : expected)
    v = 0.5 * v *
        (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  expectNear(readOrFail(gelu(x)), expected, 1e-6);
}

TEST_F(EngineCompositeTest, Linear) {
  const std::int64_t out = 3;
  std::vector<double> ws = randomValues(out * kCols, rng);
  std::vector<double> bs = randomValues(out, rng);
  Tensor weight = session.upload(f32({out, kCols}), ws);
  Tensor bias = session.upload(f32({out}), bs);
  std::vector<double> expected(kRows * out);
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t o = 0; o < out; ++o) {
      double sum = 0;
      for (std::int64_t k = 0; k < kCols; ++k)
        sum += xs[r * kCols + k] * ws[o * kCols + k];
      expected[r * out + o] = sum + bs[o];
    }
  Tensor y = linear(x, weight, bias);
  EXPECT_EQ(y.shape(), (std::vector<std::int64_t>{kRows, out}));
  expectNear(readOrFail(y), expected, 1e-5);
}

/// A whole program equals the interpreter run on the graph the engine
/// compiled, bit for bit.
TEST_F(EngineCompositeTest, ProgramEqualsTheInterpreter) {
  std::vector<double> gammas = randomValues(kCols, rng);
  Tensor gamma = session.upload(f32({kCols}), gammas);
  Tensor y = gelu(rmsNorm(softmax(x) + x, gamma));
  std::vector<double> actual = readOrFail(y);
  ASSERT_EQ(compiler.graphs.size(), 1u);
  const Graph &graph = compiler.graphs.back();
  ASSERT_EQ(graph.inputs.size(), 2u);
  ASSERT_EQ(graph.outputs.size(), 1u);
  HostTensorData xData = HostTensorData::fromDoubles(f32({kRows, kCols}), xs);
  HostTensorData gammaData = HostTensorData::fromDoubles(f32({kCols}), gammas);
  // Inputs are bound in order of first use: x, then gamma.
  std::vector<HostTensor> inputs = {xData.view(), gammaData.view()};
  Expected<std::vector<HostTensorData>> expected = evaluateGraph(graph, inputs);
  ASSERT_TRUE(expected.ok()) << expected.message();
  EXPECT_EQ(actual, (*expected)[0].toDoubles());
}

//===----------------------------------------------------------------------===//
// Recording, keys, the cache
//===----------------------------------------------------------------------===//

/// softmax(x) * 2 + layerNorm(x), read.
std::vector<double> runProgram(Session &session,
                               const std::vector<double> &values) {
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor y = softmax(x) * fullLike(x, 2.0) + layerNorm(x);
  return readOrFail(y);
}

TEST(EngineTest, NothingRunsBeforeASyncPoint) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  Tensor x = session.upload(f32({kRows, kCols}), randomValues(35, rng));
  EXPECT_TRUE(x.materialized());
  Tensor y = exp(x) + x;
  EXPECT_FALSE(y.materialized());
  EXPECT_EQ(compiler.calls, 0);
  EXPECT_EQ(session.counters().opsRecorded, 2u);
  EXPECT_EQ(session.counters().blocks, 0u);
  EXPECT_TRUE(session.flush().ok());
  EXPECT_TRUE(y.materialized());
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(session.counters().blocks, 1u);
  EXPECT_EQ(session.counters().submissions, 1u);
  // A flush with nothing recorded does nothing.
  EXPECT_TRUE(session.flush().ok());
  EXPECT_EQ(session.counters().blocks, 1u);
}

TEST(EngineTest, TheSameProgramTwiceGivesTheSameKeys) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  std::vector<double> first = runProgram(session, values);
  std::vector<std::string> keys = session.keysForTesting();
  ASSERT_EQ(keys.size(), 1u);
  // Other tensors (other ids, other values): the same key, no compilation.
  Tensor unrelated = exp(session.upload(f32({3}), randomValues(3, rng)));
  (void)unrelated.read();
  std::vector<double> second = runProgram(session, values);
  keys = session.keysForTesting();
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], keys[2]);
  EXPECT_NE(keys[0], keys[1]);
  EXPECT_EQ(first, second);
  EXPECT_EQ(compiler.calls, 2);
  EXPECT_EQ(session.counters().sessionHits, 1u);

  // Another session makes the same keys.
  FakeCompiler otherCompiler;
  Session other = openReference(&otherCompiler);
  runProgram(other, randomValues(kRows * kCols, rng));
  EXPECT_EQ(other.keysForTesting().front(), keys[0]);
}

TEST(EngineTest, SetCompileOptionsAppliesToLaterBlocksAndTheirKeys) {
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::vector<double> first = runProgram(session, values);
  ASSERT_EQ(compiler.calls, 1);
  EXPECT_FALSE(compiler.optionsSeen.back().tieredKernels);
  // The same program again: a session hit under the same options.
  EXPECT_EQ(runProgram(session, values), first);
  EXPECT_EQ(compiler.calls, 1);

  CompileOptions tiered = session.compileOptions();
  EXPECT_FALSE(tiered.tieredKernels);
  tiered.tieredKernels = true;
  session.setCompileOptions(tiered);
  EXPECT_TRUE(session.compileOptions().tieredKernels);
  // Another key: compiled again, with the new options.
  EXPECT_EQ(runProgram(session, values), first);
  ASSERT_EQ(compiler.calls, 2);
  EXPECT_TRUE(compiler.optionsSeen.back().tieredKernels);
  std::vector<std::string> keys = session.keysForTesting();
  ASSERT_GE(keys.size(), 2u);
  EXPECT_NE(keys[keys.size() - 1], keys[keys.size() - 2]);
}

TEST(EngineTest, ASecondSessionOverTheSameCacheCompilesNothing) {
  TempDir directory;
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  std::vector<double> first;
  {
    FakeCompiler compiler;
    std::unique_ptr<BundleCache> cache = openCache(directory.path);
    Session session = openReference(&compiler, cache.get());
    first = runProgram(session, values);
    EXPECT_EQ(session.counters().compilations, 1u);
    EXPECT_EQ(session.counters().misses, 1u);
  }
  FakeCompiler compiler;
  std::unique_ptr<BundleCache> cache = openCache(directory.path);
  Session session = openReference(&compiler, cache.get());
  EXPECT_EQ(runProgram(session, values), first);
  EngineCounters counters = session.counters();
  EXPECT_EQ(counters.compilations, 0u);
  EXPECT_EQ(counters.misses, 0u);
  EXPECT_EQ(counters.diskHits, 1u);
  EXPECT_EQ(compiler.calls, 0);

  // A third session sharing the cache object hits its memory.
  Session third = openReference(&compiler, cache.get());
  runProgram(third, values);
  EXPECT_EQ(third.counters().memoryHits, 1u);
  EXPECT_EQ(compiler.calls, 0);
}

TEST(EngineTest, WithoutACompilerOnlyCachedBundlesRun) {
  TempDir directory;
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  {
    FakeCompiler compiler;
    std::unique_ptr<BundleCache> cache = openCache(directory.path);
    Session session = openReference(&compiler, cache.get());
    runProgram(session, values);
  }
  std::unique_ptr<BundleCache> cache = openCache(directory.path);
  Session session = openReference(nullptr, cache.get());
  EXPECT_EQ(runProgram(session, values).size(), values.size());
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor y = tanh(x);
  Expected<HostTensorData> missing = y.read();
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("no compiled bundle for graph"),
            std::string::npos)
      << missing.message();
  EXPECT_NE(missing.message().find("tanh"), std::string::npos);
  EXPECT_EQ(session.counters().failedBlocks, 1u);
  // The stream is not poisoned: the cached program still runs.
  EXPECT_EQ(runProgram(session, values).size(), values.size());
}

TEST(EngineTest, ADroppedHandleIsNoOutput) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  Tensor x = session.upload(f32({kRows, kCols}), randomValues(35, rng));
  Tensor a = exp(x);
  Tensor b = a * x;
  Tensor c = b + a;
  Tensor unused = tanh(x);
  a = Tensor();
  b = Tensor();
  unused = Tensor();
  EXPECT_EQ(c.useCount(), 1);
  ASSERT_TRUE(session.flush().ok());
  ASSERT_EQ(compiler.graphs.size(), 1u);
  const Graph &graph = compiler.graphs.back();
  // Only c is written; tanh, which fed nothing alive, is gone.
  EXPECT_EQ(graph.outputs.size(), 1u);
  EXPECT_EQ(graph.ops.size(), 3u);
  for (const Op &op : graph.ops)
    EXPECT_NE(op.kind, OpKind::Tanh);

  // A constant kept alive is materialized from its value, by no kernel.
  Tensor three = fullLike(c, 3.0);
  Tensor scaled = c * three;
  ASSERT_TRUE(session.flush().ok());
  EXPECT_EQ(compiler.graphs.back().outputs.size(), 1u);
  EXPECT_EQ(readOrFail(three), std::vector<double>(kRows * kCols, 3.0));

  // Kept handles are outputs.
  Tensor d = exp(c);
  Tensor e = d + c;
  ASSERT_TRUE(session.flush().ok());
  EXPECT_EQ(compiler.graphs.back().outputs.size(), 2u);
  EXPECT_TRUE(d.materialized());

  // A block whose every result was dropped computes nothing.
  (void)exp(e);
  ASSERT_TRUE(session.flush().ok());
  EXPECT_EQ(compiler.graphs.size(), 3u);
  EXPECT_EQ(session.counters().emptyBlocks, 1u);
}

TEST(EngineTest, TheSizeCapFlushes) {
  FakeCompiler compiler;
  SessionOptions options;
  options.device = DeviceChoice::Reference;
  options.compiler = &compiler;
  options.maxBlockOps = 4;
  Session session = Session::open(options).take();
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(6, rng);
  Tensor x = session.upload(f32({6}), values);
  Tensor y = x;
  for (int i = 0; i < 12; ++i)
    y = y + x;
  std::vector<double> result = readOrFail(y);
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_FLOAT_EQ(result[i], float(values[i] * 13));
  EngineCounters counters = session.counters();
  EXPECT_EQ(counters.opsRecorded, 12u);
  EXPECT_EQ(counters.blocks, 3u);
  // The last two blocks (y + x four times) are one key; the first binds x
  // once for both operands of its first add.
  EXPECT_EQ(counters.compilations, 2u);
}

TEST(EngineTest, RecordingErrorsAreValues) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  Tensor a = session.upload(f32({2, 3}), std::vector<double>(6, 1.5));
  Tensor b = session.upload(f32({3, 2}), std::vector<double>(6, 2.5));
  Tensor bad = a + b;
  EXPECT_FALSE(bad.status().ok());
  Tensor worse = exp(bad);
  EXPECT_FALSE(worse.read().ok());
  EXPECT_EQ(worse.status().message(), bad.status().message());
  Tensor wrongUpload = session.upload(f32({4}), std::vector<double>(3, 1.0));
  EXPECT_FALSE(wrongUpload.status().ok());
  EXPECT_FALSE(Tensor().read().ok());

  FakeCompiler otherCompiler;
  Session other = openReference(&otherCompiler);
  Tensor foreign = other.upload(f32({2, 3}), std::vector<double>(6, 1.0));
  EXPECT_NE((a + foreign).status().message().find("another session"),
            std::string::npos);
  // Good work still runs.
  EXPECT_EQ(readOrFail(a * a), std::vector<double>(6, 2.25));
}

//===----------------------------------------------------------------------===//
// call: a whole Graph recorded as one
//===----------------------------------------------------------------------===//

/// y = exp(x) * c + x, z = reduce sum of y over the last dim: two outputs,
/// a constant, and an intermediate used twice.
Graph callableGraph() {
  GraphBuilder builder;
  TensorId x = builder.input(f32({kRows, kCols}), "x");
  TensorId c =
      builder.constant(DenseValue::makeSplat(f32({kRows, kCols}), 0.75));
  TensorId y = builder.add(builder.mul(builder.exp(x), c), x);
  builder.output(y, "y");
  builder.output(builder.op(OpKind::Reduce, {y},
                            {{"kind", Attribute::enumName("sum")},
                             {"dims", Attribute::i64Array({1})}}),
                 "z");
  Expected<Graph> graph = builder.finish();
  EXPECT_TRUE(graph.ok()) << graph.message();
  return graph.ok() ? graph.take() : Graph();
}

TEST(EngineTest, ACalledGraphIsOneBlockThatEqualsTheInterpreter) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  Graph graph = callableGraph();
  for (int round = 0; round < 2; ++round) {
    std::vector<double> xs = randomValues(kRows * kCols, rng);
    Tensor x = session.upload(f32({kRows, kCols}), xs);
    std::vector<Tensor> outputs = call(session, graph, std::span(&x, 1));
    ASSERT_EQ(outputs.size(), 2u);
    std::vector<double> y = readOrFail(outputs[0]), z = readOrFail(outputs[1]);
    HostTensorData xData = HostTensorData::fromDoubles(f32({kRows, kCols}), xs);
    std::vector<HostTensor> inputs = {xData.view()};
    Expected<std::vector<HostTensorData>> expected =
        evaluateGraph(graph, inputs);
    ASSERT_TRUE(expected.ok()) << expected.message();
    EXPECT_EQ(y, (*expected)[0].toDoubles());
    EXPECT_EQ(z, (*expected)[1].toDoubles());
  }
  // Both rounds are one block each, of one key: compiled once, and the
  // block's outputs are the graph's two (no intermediate kept alive).
  EngineCounters counters = session.counters();
  EXPECT_EQ(counters.blocks, 2u);
  EXPECT_EQ(counters.compilations, 1u);
  ASSERT_EQ(compiler.graphs.size(), 1u);
  EXPECT_EQ(compiler.graphs[0].outputs.size(), 2u);
}

TEST(EngineTest, ACallWithWrongInputsFailsEveryOutput) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  Graph graph = callableGraph();
  Tensor wrong = session.upload(f32({kCols, kRows}),
                                std::vector<double>(kRows * kCols, 1.0));
  std::vector<Tensor> outputs = call(session, graph, std::span(&wrong, 1));
  ASSERT_EQ(outputs.size(), 2u);
  for (const Tensor &output : outputs)
    EXPECT_EQ(output.status().message(),
              "call: input 0 ('x') is a tensor<7x5xf32>, the graph takes a "
              "tensor<5x7xf32>");
  std::vector<Tensor> none = call(session, graph, {});
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0].status().message(),
            "call: the graph takes 1 inputs, given 0");
  EXPECT_EQ(compiler.calls, 0);
}

TEST(EngineTest, AnInPlaceOutputNeverOverwritesItsInputTensor) {
  FakeCompiler compiler;
  compiler.writeInPlace = true;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor first = exp(x); // x is uploaded here, then bound on the device
  ASSERT_TRUE(session.flush().ok());
  Tensor second = x * x; // output 0 is written over x's buffer
  std::vector<double> squares = readOrFail(second);
  ASSERT_EQ(compiler.graphs.size(), 2u);
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_FLOAT_EQ(squares[i], float(values[i] * values[i]));
  // x is unchanged, on the host and on the device (a third block reads it).
  EXPECT_EQ(readOrFail(x), values);
  EXPECT_EQ(readOrFail(x + fullLike(x, 0.0)), values);
  std::vector<double> exps = readOrFail(first);
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_FLOAT_EQ(exps[i], float(std::exp(values[i])));
}

TEST(EngineTest, ResultsFeedLaterBlocks) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor y = x;
  for (int block = 0; block < 5; ++block) {
    y = softmax(y) + x;
    ASSERT_TRUE(session.flush().ok());
  }
  std::vector<double> expected = values;
  for (int block = 0; block < 5; ++block) {
    std::vector<double> s = perRow(expected, [](std::vector<double> row) {
      double m = *std::max_element(row.begin(), row.end()), sum = 0;
      for (double &v : row)
        sum += (v = std::exp(v - m));
      for (double &v : row)
        v /= sum;
      return row;
    });
    for (std::size_t i = 0; i < s.size(); ++i)
      expected[i] = s[i] + values[i];
  }
  expectNear(readOrFail(y), expected, 1e-5);
  // Blocks 2..5 have one key (softmax of a computed tensor plus x).
  EXPECT_EQ(session.counters().compilations, 2u);
}

//===----------------------------------------------------------------------===//
// Compile failures
//===----------------------------------------------------------------------===//

TEST(EngineTest, AFailedCompileRunsUnfused) {
  FakeCompiler compiler;
  compiler.failAboveOps = 1;
  std::vector<std::string> warnings;
  Session session = openReference(&compiler, nullptr, &warnings);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  std::vector<double> unfused = runProgram(session, values);
  EngineCounters counters = session.counters();
  EXPECT_EQ(counters.fallbacks, 1u);
  EXPECT_EQ(counters.compileFailures, 1u);
  EXPECT_GT(counters.kernelsLaunched, 5u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("running it unfused"), std::string::npos);

  FakeCompiler working;
  Session fused = openReference(&working);
  EXPECT_EQ(runProgram(fused, values), unfused);
  EXPECT_EQ(fused.counters().fallbacks, 0u);
}

TEST(EngineTest, AWarningCallbackMayAskForTheCounters) {
  FakeCompiler compiler;
  compiler.failAboveOps = 1;
  Session *self = nullptr;
  std::uint64_t fallbacksSeen = 99;
  SessionOptions options;
  options.device = DeviceChoice::Reference;
  options.compiler = &compiler;
  options.onWarning = [&](const std::string &) {
    fallbacksSeen = self->counters().fallbacks;
  };
  Session session = Session::open(options).take();
  self = &session;
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  EXPECT_EQ(runProgram(session, values).size(), values.size());
  EXPECT_EQ(fallbacksSeen, 0u);
  EXPECT_EQ(session.counters().fallbacks, 1u);
}

TEST(EngineTest, AnOpThatCannotCompileFailsItsBlockOnly) {
  FakeCompiler compiler;
  compiler.failOnOp = OpKind::Tanh;
  std::vector<std::string> warnings;
  Session session = openReference(&compiler, nullptr, &warnings);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor y = tanh(x) + x;
  Expected<HostTensorData> failed = y.read();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("tanh"), std::string::npos)
      << failed.message();
  EXPECT_NE(failed.message().find("cannot be compiled even alone"),
            std::string::npos);
  EXPECT_EQ(session.counters().failedBlocks, 1u);
  // Ops on the failed tensor fail the same way; the stream goes on.
  EXPECT_FALSE((y * x).read().ok());
  std::vector<double> expected = values;
  for (double &v : expected)
    v = double(float(std::exp(v))) + v;
  expectNear(readOrFail(exp(x) + x), expected, 1e-6);
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

TEST(EngineTest, ATensorSharedWithAnotherThread) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor shared = exp(x); // recorded on this thread, not synced
  std::vector<double> fromThread;
  std::thread consumer([&] {
    Tensor y = shared + x; // syncs this thread's stream on `shared`
    fromThread = readOrFail(y);
  });
  consumer.join();
  EXPECT_TRUE(shared.materialized());
  EXPECT_GE(session.counters().crossStreamSyncs, 1u);
  std::vector<double> expected = values;
  for (double &v : expected)
    v = double(float(std::exp(v))) + v;
  expectNear(fromThread, expected, 1e-6);
  // The producer still holds its handle and reads the same buffer.
  std::vector<double> exps = readOrFail(shared);
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_FLOAT_EQ(exps[i], float(std::exp(values[i])));
}

TEST(EngineTest, ThreadsRecordConcurrently) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), values);
  Tensor pendingHere = x * x; // consumed by every thread
  const int threads = 8, rounds = 20;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (int round = 0; round < rounds; ++round) {
        Tensor y = pendingHere + fullLike(x, double(t));
        Tensor z = softmax(y);
        std::vector<double> out = readOrFail(z);
        double rowSum = 0;
        for (std::int64_t c = 0; c < kCols; ++c)
          rowSum += out[c];
        if (std::fabs(rowSum - 1.0) > 1e-5)
          ++mismatches;
      }
    });
  // Meanwhile this thread keeps recording and reading.
  for (int round = 0; round < rounds; ++round)
    EXPECT_EQ(readOrFail(x + x).size(), values.size());
  for (std::thread &worker : workers)
    worker.join();
  EXPECT_EQ(mismatches.load(), 0);
  // Every thread's program differs only in its constant: few keys compiled.
  EXPECT_LE(session.counters().compilations, std::uint64_t(threads + 3));
}

TEST(EngineTest, AnExitingThreadSyncsAndLetsItsDeviceStreamGo) {
  FakeCompiler compiler;
  Session session = openReference(&compiler);
  std::mt19937 rng = seededRng();
  std::vector<double> values = randomValues(kRows * kCols, rng);
  Tensor x = session.upload(f32({kRows, kCols}), values);
  ASSERT_EQ(readOrFail(x + x).size(), values.size());
  EXPECT_EQ(session.counters().deviceStreams, 1u);
  Tensor leftPending;
  for (int t = 0; t < 6; ++t)
    std::thread([&] {
      ASSERT_EQ(readOrFail(exp(x)).size(), values.size());
      leftPending = x * x; // recorded, never synced by this thread
    }).join();
  EXPECT_EQ(session.counters().deviceStreams, 1u);
  EXPECT_TRUE(leftPending.materialized());
  std::vector<double> squares = readOrFail(leftPending);
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_FLOAT_EQ(squares[i], float(values[i] * values[i]));
}

//===----------------------------------------------------------------------===//
// Devices and overhead
//===----------------------------------------------------------------------===//

/// Sets FUSE_CUDA_DRIVER for the scope, restoring it after.
class ScopedCudaDriver {
public:
  explicit ScopedCudaDriver(const char *path) {
    const char *previous = std::getenv("FUSE_CUDA_DRIVER");
    hadPrevious = previous != nullptr;
    if (previous)
      saved = previous;
    ::setenv("FUSE_CUDA_DRIVER", path, 1);
  }
  ~ScopedCudaDriver() {
    if (hadPrevious)
      ::setenv("FUSE_CUDA_DRIVER", saved.c_str(), 1);
    else
      ::unsetenv("FUSE_CUDA_DRIVER");
  }

private:
  bool hadPrevious = false;
  std::string saved;
};

TEST(EngineTest, DevicesAreChosenAsAsked) {
  FakeCompiler compiler;
  Session reference = openReference(&compiler);
  EXPECT_EQ(reference.deviceName(), "reference");
  EXPECT_EQ(reference.target(), "reference");
  // Without a CUDA driver, Default is the host.
  ScopedCudaDriver noDriver("/nonexistent/libcuda-for-engine-test.so");
  SessionOptions options;
  options.compiler = &compiler;
  std::vector<std::string> notes;
  options.onWarning = [&](const std::string &note) { notes.push_back(note); };
  Expected<Session> host = Session::open(options);
  if (!host.ok())
    GTEST_SKIP() << host.message();
  EXPECT_EQ(host->deviceName(), "host");
  EXPECT_TRUE(host->target().starts_with("host-x86-64-v"));
  EXPECT_TRUE(host->deviceNote().starts_with("default device: host"))
      << host->deviceNote();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], host->deviceNote());
  // Asked for explicitly: no note passed on.
  options.device = DeviceChoice::Host;
  notes.clear();
  Expected<Session> asked = Session::open(options);
  ASSERT_TRUE(asked.ok()) << asked.message();
  EXPECT_EQ(asked->deviceName(), "host");
  EXPECT_TRUE(notes.empty());
}

TEST(EngineTest, ACudaSessionWithoutADriverSaysSo) {
  const char *previous = std::getenv("FUSE_CUDA_DRIVER");
  std::string saved = previous ? previous : "";
  ::setenv("FUSE_CUDA_DRIVER", "/nonexistent/libcuda-for-engine-test.so", 1);
  SessionOptions options;
  options.device = DeviceChoice::Cuda;
  Expected<Session> session = Session::open(options);
  if (previous)
    ::setenv("FUSE_CUDA_DRIVER", saved.c_str(), 1);
  else
    ::unsetenv("FUSE_CUDA_DRIVER");
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.message().find("no CUDA device"), std::string::npos)
      << session.message();
}

/// Recording cost per op in steady state: blocks of 256 binary ops on a
/// 16x16 tensor, timed while recording only (the flushes are not timed).
/// Printed, not asserted: timing belongs in benchmarks.
TEST(EngineTest, RecordingOverheadPerOp) {
  FakeCompiler compiler;
  SessionOptions options;
  options.device = DeviceChoice::Reference;
  options.compiler = &compiler;
  Session session = Session::open(options).take();
  Tensor x = session.upload(f32({16, 16}), std::vector<double>(256, 0.5));
  const int opsPerBlock = 256, blocks = 40;
  std::vector<Tensor> kept;
  kept.reserve(opsPerBlock);
  std::vector<double> perOp;
  for (int block = 0; block < blocks; ++block) {
    Tensor y = x;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < opsPerBlock; ++i) {
      y = y + x;
      kept.push_back(y);
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    perOp.push_back(std::chrono::duration<double, std::nano>(elapsed).count() /
                    opsPerBlock);
    kept.clear();
    // Only the last result is an output.
    ASSERT_TRUE(session.flush().ok());
  }
  std::sort(perOp.begin(), perOp.end());
  std::printf("recording overhead: median %.0f ns per op, best %.0f ns "
              "(blocks of %d binary ops on a 16x16 f32 tensor)\n",
              perOp[perOp.size() / 2], perOp.front(), opsPerBlock);
  EXPECT_EQ(session.counters().opsRecorded,
            std::uint64_t(opsPerBlock) * blocks);
  EXPECT_EQ(compiler.calls, 1);
}

} // namespace
} // namespace fuse::engine
