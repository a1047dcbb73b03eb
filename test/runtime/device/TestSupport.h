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

/// out = a + b over f32[n]: one kernel.
Bundle addBundle(std::int64_t n);
/// out = a * b + c over f32[n]: two kernels and an intermediate in the arena.
Bundle mulAddBundle(std::int64_t n);

/// Uniform magnitudes in [0.5, 2) with random signs: never zero.
std::vector<float> randomFloats(std::uint64_t seed, std::size_t count);

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
