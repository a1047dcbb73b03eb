// The harness of the host code generation tests: graphs compiled by
// HostCompiler, run by the HostRuntime through runBundle on fresh random
// inputs (never zeros, the seed printed on failure), compared with the
// reference interpreter under the numerics policy.

#ifndef FUSE_TEST_COMPILER_HOST_HOSTCODEGENTEST_H
#define FUSE_TEST_COMPILER_HOST_HOSTCODEGENTEST_H

#include "compiler/host/HostCompiler.h"
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/RunBundle.h"
#include "runtime/ir/Interpreter.h"
#include "runtime/ir/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace fuse {

using device::TensorBytes;

inline Target hostTarget() {
  std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
  if (!level || *level == device::HostIsaLevel::X86_64_V2)
    return Target{"host-x86-64-v3"};
  return Target{device::hostTargetName(*level)};
}

/// The bytes of `v`'s elements, as a graph input or output holds them.
template <typename T> std::vector<std::byte> bytesOf(const std::vector<T> &v) {
  std::vector<std::byte> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

struct Domain {
  double lo = -2, hi = 2;
};

class HostCodegen : public ::testing::Test {
protected:
  HostCodegen() : seed(std::random_device{}()), rng(seed) {}

  HostTensorData randomTensor(const TensorType &type, Domain domain) {
    std::uniform_real_distribution<double> dist(domain.lo, domain.hi);
    std::vector<double> values(size_t(type.numElements()));
    for (double &v : values) {
      do
        v = dist(rng);
      while (std::abs(v) < 1e-3);
    }
    return HostTensorData::fromDoubles(type, values);
  }

  /// The kernels of the last graph `check` compiled, in bundle order: their
  /// names and the symbols they launch.
  std::vector<std::string> checkedKernels;
  std::vector<std::string> checkedEntries;
  /// What the last compilation of `check` compiled and reused.
  KernelReuse checkedReuse;

  /// Compiles `graph`, runs it on the host and on the reference, compares
  /// every output. `domains` per input (default [-2, 2]).
  void check(const Graph &graph, std::vector<Domain> domains = {},
             CompileOptions options = {}) {
    SCOPED_TRACE("random seed " + std::to_string(seed));
    Expected<Compilation> compiled = compiler.compile(graph, target, options);
    ASSERT_TRUE(compiled.ok()) << compiled.message();
    checkedKernels.clear();
    checkedEntries.clear();
    for (const BundleKernel &kernel : compiled->bundle.kernels) {
      checkedKernels.push_back(kernel.name);
      checkedEntries.push_back(kernel.entry);
    }
    checkedReuse = compiled->kernels;
    std::vector<HostTensorData> inputs;
    std::vector<HostTensor> views;
    std::vector<TensorBytes> bytes;
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      Domain domain = i < domains.size() ? domains[i] : Domain{};
      inputs.push_back(randomTensor(graph.typeOf(graph.inputs[i]), domain));
    }
    for (HostTensorData &input : inputs) {
      views.push_back(input.view());
      const auto *p = reinterpret_cast<const std::byte *>(input.bytes.data());
      bytes.emplace_back(p, p + input.bytes.size());
    }
    Expected<std::vector<HostTensorData>> expected =
        evaluateGraph(graph, views);
    ASSERT_TRUE(expected.ok()) << expected.message();
    device::DeviceResult<std::vector<TensorBytes>> actual =
        device::runBundle(runtime, compiled->bundle, bytes);
    ASSERT_TRUE(actual.ok()) << actual.error().message;
    ASSERT_EQ(actual->size(), graph.outputs.size());
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
      TensorId tensor = graph.outputs[k].tensor;
      HostTensorData &want = (*expected)[k];
      ASSERT_EQ((*actual)[k].size(), want.bytes.size()) << "output " << k;
      HostTensor got{want.type, (*actual)[k].data()};
      Comparison c = compare(want.view(), got,
                             toleranceForOutput(graph, tensor, want.view()));
      EXPECT_TRUE(c.ok) << "output " << k << " " << want.type.toString() << ": "
                        << c.message;
    }
  }

  /// Compiles `graph` and runs it with `inputs` (bytes, in graph input
  /// order) on the host runtime (`host`) and the reference interpreter
  /// (`reference`). Callers check HasFatalFailure() after it.
  void runOnHostAndReference(const Graph &graph,
                             const std::vector<std::vector<std::byte>> &inputs,
                             std::vector<TensorBytes> &host,
                             std::vector<TensorBytes> &reference) {
    Expected<Compilation> compiled =
        compiler.compile(graph, target, CompileOptions{});
    ASSERT_TRUE(compiled.ok()) << compiled.message();
    device::DeviceResult<std::vector<TensorBytes>> actual =
        device::runBundle(runtime, compiled->bundle, inputs);
    ASSERT_TRUE(actual.ok()) << actual.error().message;
    ASSERT_EQ(actual->size(), graph.outputs.size());
    host = std::move(*actual);

    std::vector<HostTensor> views;
    for (size_t i = 0; i < inputs.size(); ++i)
      views.push_back({graph.typeOf(graph.inputs[i]),
                       const_cast<std::byte *>(inputs[i].data())});
    Expected<std::vector<HostTensorData>> evaluated =
        evaluateGraph(graph, views);
    ASSERT_TRUE(evaluated.ok()) << evaluated.message();
    reference.clear();
    for (const HostTensorData &data : *evaluated) {
      const auto *p = reinterpret_cast<const std::byte *>(data.bytes.data());
      reference.emplace_back(p, p + data.bytes.size());
    }
  }

  unsigned seed;
  std::mt19937_64 rng;
  /// `g`'s graph compiled for the host into `bundle`, which must be one
  /// kernel (call under ASSERT_NO_FATAL_FAILURE).
  void compileOneKernel(GraphBuilder &g, Bundle &bundle) {
    Expected<Graph> graph = g.finish();
    ASSERT_TRUE(graph.ok()) << graph.message();
    Expected<Compilation> compiled = compiler.compile(*graph, target, {});
    ASSERT_TRUE(compiled.ok()) << compiled.message();
    ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
    bundle = std::move(compiled->bundle);
  }

  Target target = hostTarget();
  HostCompiler compiler;
  device::HostRuntime runtime;
};

} // namespace fuse

#endif // FUSE_TEST_COMPILER_HOST_HOSTCODEGENTEST_H
