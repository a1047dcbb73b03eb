//===- HostAddressableRuntime.h - Host-addressed memory ---------*- C++ -*-===//
//
// The part of a device runtime that only backends with host-addressable
// memory have (the host and reference runtimes; not CUDA): a submitted batch
// executes in order on the calling thread, its copies and uploads as memcpy,
// its launches through the backend's `launchOnHost`, each kernel's error
// record checked after it.
//
// Never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_HOSTADDRESSABLERUNTIME_H
#define FUSE_RUNTIME_DEVICE_HOSTADDRESSABLERUNTIME_H

#include "runtime/device/DeviceRuntime.h"

namespace fuse::device {

class HostAddressableRuntime : public DeviceRuntime {
protected:
  using DeviceRuntime::DeviceRuntime;

  bool addressesHostMemory() const override { return true; }

  /// Executes the fence's batch in order on the calling thread, launching
  /// kernels through `launchOnHost`, and completes the fence.
  void runOnHost(detail::StreamObject &stream, detail::FenceObject &fence);
  /// Runs `kernel` of `executable` over `buffers` (the bindings' host
  /// addresses, in order) to completion.
  virtual DeviceStatus launchOnHost(const detail::ExecutableObject &executable,
                                    uint32_t kernel, const LaunchConfig &config,
                                    std::span<void *const> buffers) = 0;
  /// A memcpy from the buffer's host address.
  DeviceStatus copyToHost(detail::BufferObject &buffer, uint64_t offset,
                          std::span<std::byte> destination) override;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_HOSTADDRESSABLERUNTIME_H
