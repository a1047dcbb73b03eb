//===- TestSupport.cpp - Bundles and data for device runtime tests --------===//

#include "TestSupport.h"

#include "runtime/Version.h"
#include "runtime/device/HostIsa.h"

#include <fstream>
#include <iterator>
#include <random>

namespace fuse::test {

std::vector<std::uint8_t> testKernelLibrary() {
  std::ifstream file(FUSE_TEST_KERNELS_PATH, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(file), {});
}

std::string hostTarget() {
  std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
  return level && *level == device::HostIsaLevel::X86_64_V4 ? "host-x86-64-v4"
                                                            : "host-x86-64-v3";
}

BundleKernel hostKernel(std::string entry, std::vector<KernelBinding> bindings,
                        std::vector<std::uint32_t> ops, std::int64_t iterations,
                        std::int64_t grain) {
  BundleKernel kernel;
  kernel.name = entry;
  kernel.target = hostTarget();
  kernel.payloadKind = PayloadKind::HostSharedObject;
  kernel.payload = testKernelLibrary();
  kernel.entry = std::move(entry);
  kernel.schedule = ScheduleKind::Pointwise;
  kernel.launch.iterations = iterations;
  kernel.launch.grain = grain;
  kernel.bindings = std::move(bindings);
  kernel.ops = std::move(ops);
  return kernel;
}

Bundle bundleOf(const Graph &graph, std::string target) {
  Bundle bundle;
  bundle.graph = graph;
  bundle.target = std::move(target);
  bundle.versionId = versionId();
  bundle.inputs = graph.inputs;
  for (const GraphOutput &output : graph.outputs)
    bundle.outputs.push_back(output.tensor);
  return bundle;
}

Bundle addBundleOf(std::string target, std::int64_t n,
                   const TestKernelMaker &kernel) {
  GraphBuilder builder;
  TensorType type{ElementType::F32, {n}};
  TensorId a = builder.input(type, "a");
  TensorId b = builder.input(type, "b");
  builder.output(builder.add(a, b), "out");
  Bundle bundle = bundleOf(*builder.finish(), std::move(target));
  bundle.kernels.push_back(kernel("fuse_test_add_f32",
                                  {{BindingKind::GraphInput, 0},
                                   {BindingKind::GraphInput, 1},
                                   {BindingKind::GraphOutput, 0}},
                                  {0}));
  bundle.launchOrder = {0};
  return bundle;
}

Bundle mulAddBundleOf(std::string target, std::int64_t n, std::uint64_t offset,
                      const TestKernelMaker &kernel) {
  GraphBuilder builder;
  TensorType type{ElementType::F32, {n}};
  TensorId a = builder.input(type, "a");
  TensorId b = builder.input(type, "b");
  TensorId c = builder.input(type, "c");
  TensorId product = builder.mul(a, b);
  builder.output(builder.add(product, c), "out");
  Bundle bundle = bundleOf(*builder.finish(), std::move(target));
  std::uint64_t bytes = std::uint64_t(n) * 4;
  bundle.memoryPlan.intermediates.push_back({product, offset, bytes});
  bundle.memoryPlan.peakBytes = offset + bytes;
  bundle.kernels.push_back(kernel("fuse_test_mul_f32",
                                  {{BindingKind::GraphInput, 0},
                                   {BindingKind::GraphInput, 1},
                                   {BindingKind::Intermediate, 0}},
                                  {0}));
  bundle.kernels.push_back(kernel("fuse_test_add_f32",
                                  {{BindingKind::Intermediate, 0},
                                   {BindingKind::GraphInput, 2},
                                   {BindingKind::GraphOutput, 0}},
                                  {1}));
  bundle.launchOrder = {0, 1};
  return bundle;
}

/// The host kernels over f32[n], 8 elements a grain.
static TestKernelMaker hostKernels(std::int64_t n) {
  return [n](std::string entry, std::vector<KernelBinding> bindings,
             std::vector<std::uint32_t> ops) {
    return hostKernel(std::move(entry), std::move(bindings), std::move(ops), n,
                      8);
  };
}

Bundle addBundle(std::int64_t n) {
  return addBundleOf(hostTarget(), n, hostKernels(n));
}

Bundle mulAddBundle(std::int64_t n) {
  return mulAddBundleOf(hostTarget(), n, 64, hostKernels(n));
}

std::vector<std::byte> bytesOf(std::initializer_list<int> values) {
  std::vector<std::byte> bytes;
  for (int value : values)
    bytes.push_back(std::byte(value));
  return bytes;
}

std::vector<float> randomFloats(std::uint64_t seed, std::size_t count) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> magnitude(0.5f, 2.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> values(count);
  for (float &value : values)
    value = negative(engine) ? -magnitude(engine) : magnitude(engine);
  return values;
}

} // namespace fuse::test
