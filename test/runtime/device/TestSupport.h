//===- TestSupport.h - Bundles and data for device runtime tests -*- C++
//-*-===//
//
// Shared by the device tests and the runtime-only demo, so it uses no test
// framework: bundles around the hand-written kernels of TestKernels.cpp
// (built into a shared object by the test build) and random data that is
// never zero, so that a kernel that writes nothing cannot pass.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_RUNTIME_DEVICE_TESTSUPPORT_H
#define FUSE_TEST_RUNTIME_DEVICE_TESTSUPPORT_H

#include "runtime/cache/Bundle.h"
#include "runtime/device/RunBundle.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace fuse::test {

/// The bytes of the test kernels' shared object.
std::vector<std::uint8_t> testKernelLibrary();

/// The best host target this CPU runs (host-x86-64-v3 or -v4).
std::string hostTarget();

/// A host kernel of the test library as a bundle kernel.
BundleKernel hostKernel(std::string entry, std::vector<KernelBinding> bindings,
                        std::vector<std::uint32_t> ops, std::int64_t iterations,
                        std::int64_t grain);

/// A bundle of `graph` for `target`, its inputs and outputs the graph's, no
/// kernels yet.
Bundle bundleOf(const Graph &graph, std::string target);

/// A target's kernel of a test entry (fuse_test_add_f32, fuse_test_mul_f32)
/// with its bindings and graph ops.
using TestKernelMaker = std::function<BundleKernel(
    std::string entry, std::vector<KernelBinding> bindings,
    std::vector<std::uint32_t> ops)>;

/// out = a + b over f32[n]: one kernel.
Bundle addBundleOf(std::string target, std::int64_t n,
                   const TestKernelMaker &kernel);
/// out = a * b + c over f32[n]: two kernels and an intermediate at `offset`
/// of the arena (past its start, so a wrong offset shows).
Bundle mulAddBundleOf(std::string target, std::int64_t n, std::uint64_t offset,
                      const TestKernelMaker &kernel);

/// addBundleOf and mulAddBundleOf of the host kernels.
Bundle addBundle(std::int64_t n);
Bundle mulAddBundle(std::int64_t n);

/// Uniform magnitudes in [0.5, 2) with random signs: never zero.
std::vector<float> randomFloats(std::uint64_t seed, std::size_t count);

/// Bytes of the given values, one each.
std::vector<std::byte> bytesOf(std::initializer_list<int> values);

template <typename T>
device::TensorBytes toBytes(const std::vector<T> &values) {
  device::TensorBytes bytes(values.size() * sizeof(T));
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> fromBytes(const device::TensorBytes &bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!bytes.empty())
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

} // namespace fuse::test

#endif // FUSE_TEST_RUNTIME_DEVICE_TESTSUPPORT_H
