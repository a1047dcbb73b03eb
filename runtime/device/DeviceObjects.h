//===- DeviceObjects.h - What device runtime handles point to ---*- C++ -*-===//
//
// The shared state behind Buffer, Executable, Stream, Fence and Command, for
// the runtimes that implement DeviceRuntime; users of the interface never
// include it. Backends extend BufferObject, ExecutableObject and StreamObject
// with their own resources.
//
// The runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_DEVICEOBJECTS_H
#define FUSE_RUNTIME_DEVICE_DEVICEOBJECTS_H

#include "runtime/cache/KernelPayload.h"
#include "runtime/device/DeviceRuntime.h"
#include "runtime/ir/Interpreter.h"

#include <condition_variable>
#include <deque>
#include <thread>

namespace fuse::device::detail {

/// The memory budget of one runtime, shared with its permits and buffers so
/// that they may outlive it.
struct Budget {
  explicit Budget(uint64_t limit) : limit(limit) {}

  bool tryReserve(uint64_t bytes);
  void unreserve(uint64_t bytes);
  /// Turns reserved bytes into bytes of a live buffer.
  void commit(uint64_t bytes);
  void release(uint64_t bytes);

  mutable std::mutex mutex;
  const uint64_t limit;
  uint64_t reserved = 0;
  uint64_t inUse = 0;
  uint64_t liveBuffers = 0;
};

struct BufferObject {
  BufferObject(uint64_t runtimeId, uint64_t size,
               std::shared_ptr<Budget> budget)
      : runtimeId(runtimeId), size(size), budget(std::move(budget)) {}
  virtual ~BufferObject() {
    if (budget)
      budget->release(size);
  }
  /// The address the host uses for the buffer, or null for device memory.
  virtual std::byte *hostData() { return nullptr; }
  /// Memory the runtime borrowed (DeviceRuntime::borrowHostMemory): nothing
  /// may write it.
  virtual bool readOnly() const { return false; }

  const uint64_t runtimeId;
  const uint64_t size;
  /// Null for borrowed memory, which is not charged to the budget.
  const std::shared_ptr<Budget> budget;
};

/// Host memory a runtime reads in place (DeviceRuntime::borrowHostMemory):
/// `owner` keeps it alive for as long as the buffer, or a command or fence
/// that holds the buffer, lives.
struct BorrowedHostBuffer final : BufferObject {
  BorrowedHostBuffer(uint64_t runtimeId, std::shared_ptr<const void> owner,
                     std::span<const std::byte> bytes)
      : BufferObject(runtimeId, bytes.size(), nullptr), owner(std::move(owner)),
        data(bytes.data()) {}
  // Launches take every binding as a mutable address; readOnly() keeps
  // the runtime's own writes away, and callers bind it to inputs that no
  // kernel writes.
  std::byte *hostData() override { return const_cast<std::byte *>(data); }
  bool readOnly() const override { return true; }

  const std::shared_ptr<const void> owner;
  const std::byte *const data;
};

/// The checks one kernel reports in its error record (KernelAbi.h), in
/// record order, with what a message needs of each.
struct KernelChecks {
  std::string kernel;
  std::vector<GatherRange> gathers;
  /// The values of the kernel's dims (BundleKernel::dimValues), passed at
  /// `buffers[-2]` to a host kernel and as parameters after the error
  /// record to a GPU kernel (KernelAbi.h, "Runtime dims"); empty: none.
  std::vector<int64_t> dims;

  /// The words of the record.
  size_t words() const { return gathers.size() * kErrorRecordWordsPerCheck; }
  /// The error that `record` (words() words, after the launch) reports, if
  /// any: "kernel fuse_k0_pointwise: op #2 (gather): index 9 is out of range
  /// for dim 0 of size 4 of tensor<4x8xf32> (valid: -4 to 3)".
  std::optional<Error> failure(std::span<const int64_t> record) const;
};

struct ExecutableObject {
  explicit ExecutableObject(uint64_t runtimeId) : runtimeId(runtimeId) {}
  virtual ~ExecutableObject() = default;

  const uint64_t runtimeId;
  /// Per kernel, per binding: the bytes the kernel may touch, which a
  /// bound range must cover.
  std::vector<std::vector<uint64_t>> bindingBytes;
  /// Per kernel: what its error record reports (empty: it takes none).
  std::vector<KernelChecks> checks;
  /// Per kernel: the payload and entry it was loaded from, by which
  /// DeviceRuntime::rebind knows a binding of the same code.
  std::vector<KernelPayload> payloads;
  std::vector<std::string> entries;
};

struct CopyCommand {
  std::shared_ptr<BufferObject> source;
  std::shared_ptr<BufferObject> destination;
  CopyRegion region;
};
struct UploadCommand {
  std::vector<std::byte> bytes;
  std::shared_ptr<BufferObject> destination;
  uint64_t offset;
};
struct ZeroCommand {
  std::shared_ptr<BufferObject> destination;
  uint64_t offset;
  uint64_t bytes;
};
struct BoundBuffer {
  std::shared_ptr<BufferObject> buffer;
  uint64_t offset;
  uint64_t bytes;
};
struct LaunchCommand {
  std::shared_ptr<const ExecutableObject> executable;
  uint32_t kernel;
  LaunchConfig config;
  std::vector<BoundBuffer> bindings;
};

struct CommandObject {
  uint64_t runtimeId;
  std::variant<CopyCommand, UploadCommand, ZeroCommand, LaunchCommand> op;
};

struct StreamObject {
  explicit StreamObject(uint64_t runtimeId) : runtimeId(runtimeId) {}
  virtual ~StreamObject() = default;

  const uint64_t runtimeId;
  mutable std::mutex mutex;
  std::condition_variable idle;
  uint64_t pending = 0;
  bool recording = false;
  std::optional<Error> failure;
};

/// The batches submitted to a stream and the thread that finishes them in
/// order: the host and CUDA runtimes give each stream one. The stream's
/// destructor calls stop() before its own state goes, since the thread uses
/// it.
template <class Item> struct StreamQueue {
  void push(Item item) {
    {
      std::lock_guard lock(queueMutex);
      queue.push_back(std::move(item));
    }
    wake.notify_one();
  }

  /// Finishes the queued work, then ends the thread.
  void stop() {
    {
      std::lock_guard lock(queueMutex);
      stopping = true;
    }
    wake.notify_all();
    if (worker.joinable())
      worker.join();
  }

  std::mutex queueMutex;
  std::condition_variable wake;
  std::deque<Item> queue;
  bool stopping = false;
  std::thread worker;
};

struct FenceObject {
  explicit FenceObject(uint64_t runtimeId) : runtimeId(runtimeId) {}

  const uint64_t runtimeId;
  mutable std::mutex mutex;
  std::condition_variable terminal;
  std::optional<TerminalReceipt> receipt;
  /// Held until the fence is terminal.
  std::vector<std::shared_ptr<const CommandObject>> commands;
  /// Set when a failure hit the submission after it was enqueued; the stream
  /// then completes it without running it.
  std::optional<Error> abandoned;
  /// The stream it was submitted on: a thread that waits for the fence may
  /// run its batch there (DeviceRuntime::runWaitedFence).
  std::weak_ptr<StreamObject> stream;

  TimingMode timingMode = TimingMode::Off;
  std::chrono::steady_clock::time_point submitTime;
  SubmissionTiming timing;
};

} // namespace fuse::device::detail

#endif // FUSE_RUNTIME_DEVICE_DEVICEOBJECTS_H
