//===- HostRuntime.h - The product CPU backend ------------------*- C++ -*-===//
//
// Runs bundles compiled for the host: each kernel comes from the bundle's
// shared object, loaded with dlopen from a private in-memory file and closed
// only when no executable handle and no pending submission uses it (a
// bundle loaded meanwhile with the same code, such as a symbolic bundle
// bound to other dims, shares it). Each
// stream is an ordered queue served by its own thread, so `submit` returns
// before the work is done and fences are real completion objects; launches
// are split into grain-aligned chunks on a shared thread pool. Memory comes
// from a pooled, page-aligned allocator that reuses blocks, because fresh
// pages cost more to touch than most kernels take.
//
// Never links MLIR or LLVM: kernels arrive compiled.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_HOSTRUNTIME_H
#define FUSE_RUNTIME_DEVICE_HOSTRUNTIME_H

#include "runtime/device/HostAddressableRuntime.h"

namespace fuse::device {

class HostAllocator;
class ThreadPool;

class HostRuntime final : public HostAddressableRuntime {
public:
  struct Options {
    /// 0: half of the machine's physical memory.
    uint64_t memoryBudgetBytes = 0;
    /// Threads that run kernels, the stream threads included; 0: one per
    /// hardware thread.
    unsigned threads = 0;
  };

  HostRuntime();
  explicit HostRuntime(const Options &options);
  /// Finishes the work already submitted. Handles may outlive the runtime,
  /// but only to be released.
  ~HostRuntime() override;

  /// Blocks the allocator took from the system and still holds.
  uint64_t mappedBlocksForTesting() const;
  /// Shared objects dlopened so far (a bundle's library loaded again is
  /// found open: HostRuntime.cpp, Libraries).
  uint64_t librariesOpenedForTesting() const;

protected:
  DeviceResult<std::shared_ptr<detail::BufferObject>>
  allocateMemory(uint64_t bytes) override;
  DeviceResult<std::shared_ptr<detail::ExecutableObject>>
  loadExecutable(const Bundle &bundle) override;
  std::shared_ptr<detail::ExecutableObject>
  shareCode(const detail::ExecutableObject &loaded) const override;
  DeviceResult<std::shared_ptr<detail::StreamObject>> newStream() override;
  void enqueue(detail::StreamObject &stream,
               std::shared_ptr<detail::FenceObject> fence) override;
  void
  runWaitedFence(detail::StreamObject &stream,
                 const std::shared_ptr<detail::FenceObject> &fence) override;
  uint64_t pooledBytes() const override;
  void releasePooledMemory() override;
  DeviceStatus launchOnHost(const detail::ExecutableObject &executable,
                            uint32_t kernel, const LaunchConfig &config,
                            std::span<void *const> buffers) override;

private:
  struct Streams;

  std::shared_ptr<HostAllocator> allocator;
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<Streams> streams;
  struct Libraries;
  std::unique_ptr<Libraries> libraries;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_HOSTRUNTIME_H
