//===- RuntimeCalls.h - Runtime calls expected to succeed -------*- C++ -*-===//
//
// The calls a device runtime test makes on the way to what it checks, each
// expected to succeed (a failure is a test failure with the runtime's
// message, and an empty result instead of a crash): the test fixtures of the
// shared suite (DeviceRuntimeTest.cpp) and of the CUDA runtime derive from it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_RUNTIME_DEVICE_RUNTIMECALLS_H
#define FUSE_TEST_RUNTIME_DEVICE_RUNTIMECALLS_H

#include "runtime/device/DeviceRuntime.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace fuse::test {

struct RuntimeCalls {
  /// A buffer of `bytes` from a permit of its own.
  static device::Buffer allocate(device::DeviceRuntime &runtime,
                                 uint64_t bytes) {
    device::DeviceResult<device::AllocationPermit> permit =
        runtime.reserve(bytes);
    EXPECT_TRUE(permit.ok()) << permit.error().message;
    if (!permit.ok())
      return device::Buffer();
    device::DeviceResult<device::Buffer> buffer =
        runtime.allocate(*permit, bytes);
    EXPECT_TRUE(buffer.ok()) << buffer.error().message;
    return buffer.ok() ? *buffer : device::Buffer();
  }

  static device::Command
  command(device::DeviceResult<device::Command> encoded) {
    EXPECT_TRUE(encoded.ok()) << encoded.error().message;
    return std::move(*encoded);
  }

  /// The whole buffer, read back on `stream`.
  static std::vector<std::byte> read(device::DeviceRuntime &runtime,
                                     device::Stream &stream,
                                     const device::Buffer &buffer) {
    device::DeviceResult<std::vector<std::byte>> bytes =
        runtime.readback(stream, buffer, 0, buffer.size());
    EXPECT_TRUE(bytes.ok()) << bytes.error().message;
    return bytes.ok() ? *bytes : std::vector<std::byte>{};
  }
};

} // namespace fuse::test

#endif // FUSE_TEST_RUNTIME_DEVICE_RUNTIMECALLS_H
