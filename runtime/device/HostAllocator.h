//===- HostAllocator.h - Pooled, page-aligned host memory -------*- C++ -*-===//
//
// The host runtime's memory. The first touch of a fresh page costs about
// 15 us per 4 KiB on our machines, far more than most kernels, so blocks are
// never returned to the system on free: they go to a free list of their size
// class and serve the next allocation of that class. Classes are four per
// doubling, so a reused block wastes at most a quarter of its size. Only
// `releaseAll` (memoryCleanup) gives memory back.
//
// A block of 2 MiB or more starts on a 2 MiB boundary and is advised to use
// transparent huge pages: a kernel streaming through 4 KiB pages takes a
// TLB miss every 4 KiB, which on a virtual machine is a nested page walk.
//
// It knows nothing of budgets: the DeviceRuntime charges those. Never
// depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_HOSTALLOCATOR_H
#define FUSE_RUNTIME_DEVICE_HOSTALLOCATOR_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace fuse::device {

class HostAllocator {
public:
  static constexpr uint64_t PageBytes = 4096;
  /// Blocks of at least this size start on its boundary and are advised
  /// to use transparent huge pages.
  static constexpr uint64_t HugePageBytes = uint64_t(2) << 20;

  HostAllocator() = default;
  HostAllocator(const HostAllocator &) = delete;
  HostAllocator &operator=(const HostAllocator &) = delete;
  ~HostAllocator();

  /// The size a request of `bytes` really takes.
  static uint64_t sizeClass(uint64_t bytes);

  /// Page-aligned, at least `bytes`; null when the system has no memory.
  std::byte *allocate(uint64_t bytes);
  /// `bytes` as given to `allocate`.
  void free(std::byte *block, uint64_t bytes);

  uint64_t pooledBytes() const;
  /// Blocks that came from the system and not back (in use or pooled).
  uint64_t mappedBlocks() const;
  void releaseAll();

private:
  mutable std::mutex mutex;
  std::map<uint64_t, std::vector<std::byte *>> freeLists;
  uint64_t pooled = 0;
  uint64_t mapped = 0;
};

/// `bytes` of zeroed host memory outside any pool, laid out as the host
/// runtime's own blocks are (one of HugePageBytes or more starts on a 2 MiB
/// boundary and is advised to use transparent huge pages), unmapped when its
/// last owner lets go; null for 0 bytes or when the system has no memory.
/// For inputs that a caller fills and the host runtime borrows in place
/// (DeviceRuntime::borrowHostMemory): a kernel reads borrowed memory at the
/// speed of its pages, and a large array from the C++ heap lies in 4 KiB
/// pages (fuse-run's column sums of 4096x4096 took 2.2-3.6 ms reading its
/// random input from the heap, 1.2-2.2 ms from the runtime's memory).
std::shared_ptr<std::byte> allocateHostBytes(uint64_t bytes);

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_HOSTALLOCATOR_H
