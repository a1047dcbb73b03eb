//===- ReferenceRuntime.h - Synchronous reference execution -----*- C++ -*-===//
//
// The runtime every other backend is compared with: memory is plain host
// memory, and a launch interprets the graph ops its kernel covers (from the
// bundle) with the reference interpreter, floats in f64 and integers exact,
// whatever the kernel's payload. Work runs inside `submit`, so fences are
// terminal when it returns. It must only ever be chosen explicitly: it is
// never selected implicitly and never a fallback for a failing backend,
// because its answers are the yardstick, not a product path.
//
// Never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_REFERENCERUNTIME_H
#define FUSE_RUNTIME_DEVICE_REFERENCERUNTIME_H

#include "runtime/device/HostAddressableRuntime.h"

namespace fuse::device {

/// Counters since the runtime was made.
struct ReferenceSnapshot {
  uint64_t allocations = 0;
  uint64_t allocatedBytes = 0;
  uint64_t submissions = 0;
  uint64_t commands = 0;
  uint64_t launches = 0;
  uint64_t opsExecuted = 0;
};

class ReferenceRuntime final : public HostAddressableRuntime {
public:
  struct Options {
    uint64_t memoryBudgetBytes = uint64_t(4) << 30;
  };

  ReferenceRuntime();
  explicit ReferenceRuntime(const Options &options);

  ReferenceSnapshot snapshot() const;

protected:
  DeviceResult<std::shared_ptr<detail::BufferObject>>
  allocateMemory(uint64_t bytes) override;
  DeviceResult<std::shared_ptr<detail::ExecutableObject>>
  loadExecutable(const Bundle &bundle) override;
  DeviceResult<std::shared_ptr<detail::StreamObject>> newStream() override;
  void enqueue(detail::StreamObject &stream,
               std::shared_ptr<detail::FenceObject> fence) override;
  DeviceStatus launchOnHost(const detail::ExecutableObject &executable,
                            uint32_t kernel, const LaunchConfig &config,
                            std::span<void *const> buffers) override;

private:
  mutable std::mutex counterMutex;
  ReferenceSnapshot counters;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_REFERENCERUNTIME_H
