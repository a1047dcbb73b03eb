//===- DeviceRuntime.h - The interface every device runtime has -*- C++ -*-===//
//
// One interface for the CUDA, host and reference runtimes, carrying their
// semantics in C++ types so that wrong states cannot be written down: memory
// comes only through a permit that a budget granted; a submission answers a
// fence or a *definitely not submitted* error, and only the latter lets a
// caller release the batch's resources; a fence answers pending, terminal (with
// a receipt) or indeterminate, and only terminal releases anything. Every
// object carries the identity of the runtime instance that made it, and handing
// it to another instance is an error.
//
// Handles are reference counted: a submitted batch keeps its buffers and
// executables alive until its fence is terminal, so dropping a handle early
// is always safe. Handles stay valid after their runtime is destroyed (they
// can only be released then).
//
// The runtime never links MLIR or LLVM, and this header never throws.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_DEVICERUNTIME_H
#define FUSE_RUNTIME_DEVICE_DEVICERUNTIME_H

#include "runtime/device/DeviceStatus.h"
#include "runtime/device/KernelAbi.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fuse {
struct Bundle;
struct BundleKernel;
} // namespace fuse

namespace fuse::device {

namespace detail {
struct Budget;
struct BufferObject;
struct ExecutableObject;
struct StreamObject;
struct FenceObject;
struct CommandObject;
} // namespace detail

class DeviceRuntime;

/// Says, to DeviceRuntime::rebind, that the bundle it is given was returned
/// by bindBundle (SymbolicBundle.h) in this process and not changed since:
/// bindBundle verified it (verifyBundle).
struct BoundAndVerified {};

enum class DeviceKind { Cuda, Host, Reference };

const char *deviceKindName(DeviceKind kind);

struct DeviceDescriptor {
  std::string name;
  DeviceKind kind;
  /// The bundle target this runtime executes natively, e.g. `sm_90` or
  /// `host-x86-64-v4`; the reference runtime executes every target.
  std::string target;
  uint64_t memoryBudgetBytes = 0;
  /// Threads (host) or multiprocessors (GPU) that run kernels.
  uint32_t computeUnits = 1;
};

struct MemoryUsage {
  uint64_t budgetBytes = 0;
  /// Bytes of live buffers, including those only a pending fence holds.
  uint64_t inUseBytes = 0;
  /// Bytes granted to permits and not yet allocated.
  uint64_t reservedBytes = 0;
  /// Bytes the allocator keeps for reuse; `memoryCleanup` returns them.
  uint64_t pooledBytes = 0;
  uint64_t liveBuffers = 0;
};

/// A grant of memory from the runtime's budget, obtained from `reserve`
/// (the resource transaction) and drawn on by `allocate`. Only a runtime
/// makes one; what is left unallocated returns to the budget when the permit
/// is destroyed.
class AllocationPermit {
public:
  AllocationPermit(AllocationPermit &&other) noexcept;
  AllocationPermit &operator=(AllocationPermit &&other) noexcept;
  AllocationPermit(const AllocationPermit &) = delete;
  AllocationPermit &operator=(const AllocationPermit &) = delete;
  ~AllocationPermit();

  uint64_t remainingBytes() const { return remaining; }
  uint64_t runtimeId() const { return owner; }

private:
  friend class DeviceRuntime;
  AllocationPermit(std::shared_ptr<detail::Budget> budget, uint64_t owner,
                   uint64_t bytes);
  void giveBack();

  std::shared_ptr<detail::Budget> budget;
  uint64_t owner = 0;
  uint64_t remaining = 0;
};

/// Device memory. Copies share the allocation.
class Buffer {
public:
  Buffer() = default;
  bool valid() const { return object != nullptr; }
  uint64_t size() const;
  uint64_t runtimeId() const;

private:
  friend class DeviceRuntime;
  explicit Buffer(std::shared_ptr<detail::BufferObject> object)
      : object(std::move(object)) {}
  std::shared_ptr<detail::BufferObject> object;
};

/// The kernels of one bundle, loaded for one runtime (a module on the GPU, a
/// shared object on the host, the graph for the reference runtime). Stays
/// loaded while a handle or a pending submission refers to it.
class Executable {
public:
  Executable() = default;
  bool valid() const { return object != nullptr; }
  uint32_t kernelCount() const;
  uint64_t runtimeId() const;

private:
  friend class DeviceRuntime;
  explicit Executable(std::shared_ptr<detail::ExecutableObject> object)
      : object(std::move(object)) {}
  std::shared_ptr<detail::ExecutableObject> object;
};

/// An ordered queue of submissions. Move-only: one owner submits to it.
class Stream {
public:
  Stream() = default;
  Stream(Stream &&) = default;
  Stream &operator=(Stream &&) = default;
  bool valid() const { return object != nullptr; }
  uint64_t runtimeId() const;

private:
  friend class DeviceRuntime;
  explicit Stream(std::shared_ptr<detail::StreamObject> object)
      : object(std::move(object)) {}
  std::shared_ptr<detail::StreamObject> object;
};

struct StreamReady {};
/// A submission is being recorded into the stream's queue right now.
struct StreamRecording {};
struct StreamSubmitted {
  uint64_t pendingSubmissions = 0;
};
/// A submission failed; later submissions are refused until `resetStream`.
/// Other streams are unaffected.
struct StreamFailed {
  Error reason;
};
using StreamState =
    std::variant<StreamReady, StreamRecording, StreamSubmitted, StreamFailed>;

/// A byte range copied from one buffer to another.
struct CopyRegion {
  uint64_t sourceOffset = 0;
  uint64_t destinationOffset = 0;
  uint64_t bytes = 0;
};

/// A byte range of a buffer bound to a kernel argument.
struct BufferBinding {
  Buffer buffer;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// Binds a whole buffer.
BufferBinding bindWhole(const Buffer &buffer);

enum class CommandKind { Copy, Upload, Zero, Launch };

/// One encoded command; it holds the resources it uses.
class Command {
public:
  Command(Command &&) = default;
  Command &operator=(Command &&) = default;
  CommandKind kind() const;
  uint64_t runtimeId() const;

private:
  friend class DeviceRuntime;
  explicit Command(std::shared_ptr<const detail::CommandObject> object)
      : object(std::move(object)) {}
  std::shared_ptr<const detail::CommandObject> object;
};

/// Commands submitted together, executed in order, with one fence.
class CommandBatch {
public:
  CommandBatch() = default;
  CommandBatch(CommandBatch &&) = default;
  CommandBatch &operator=(CommandBatch &&) = default;
  void add(Command command) { commands.push_back(std::move(command)); }
  size_t size() const { return commands.size(); }
  bool empty() const { return commands.empty(); }

private:
  friend class DeviceRuntime;
  std::vector<Command> commands;
};

/// The submission ran to completion.
struct Succeeded {};
/// The submission failed, and the device is idle with respect to it: its
/// resources may now be released.
struct FailedButQuiescent {
  Error error;
};
using TerminalReceipt = std::variant<Succeeded, FailedButQuiescent>;

struct FencePending {};
struct FenceTerminal {
  TerminalReceipt receipt;
};
/// Completion cannot be proven; not terminal, so nothing may be released.
struct FenceIndeterminate {
  Error error;
};
using FenceQuery =
    std::variant<FencePending, FenceTerminal, FenceIndeterminate>;

/// The completion of one submission. Copies observe the same submission.
class Fence {
public:
  Fence() = default;
  bool valid() const { return object != nullptr; }
  uint64_t runtimeId() const;

private:
  friend class DeviceRuntime;
  explicit Fence(std::shared_ptr<detail::FenceObject> object)
      : object(std::move(object)) {}
  std::shared_ptr<detail::FenceObject> object;
};

/// The answer of `submit`: a fence, or proof that nothing was enqueued.
class [[nodiscard]] SubmitResult {
public:
  /// Nothing was enqueued: the batch comes back and may be released or
  /// submitted again.
  struct NotSubmitted {
    Error error;
    CommandBatch batch;
  };

  SubmitResult(Fence fence) : storage(std::move(fence)) {}
  SubmitResult(NotSubmitted rejected) : storage(std::move(rejected)) {}

  bool submitted() const { return storage.index() == 0; }
  explicit operator bool() const { return submitted(); }
  Fence &fence() { return std::get<0>(storage); }
  NotSubmitted &notSubmitted() { return std::get<1>(storage); }
  /// The error of a rejected submission.
  const Error &error() const { return std::get<1>(storage).error; }

private:
  std::variant<Fence, NotSubmitted> storage;
};

enum class TimingMode {
  Off,
  /// Host clock from submit to the fence turning terminal.
  Completion,
  /// Completion, plus the device time of every launch.
  Kernel,
};

struct SubmissionTiming {
  TimingMode mode = TimingMode::Off;
  std::chrono::nanoseconds submitToComplete{0};
  /// Per launch, in batch order (kernel mode only).
  std::vector<std::chrono::nanoseconds> launches;
};

struct ErrorReport {
  std::string runtime;
  std::string code;
  std::string message;
  /// Whether trying again may succeed (a timeout, a full budget).
  bool retryable = false;
  std::string toString() const;
};

/// Points where a test hook may inject a failure.
enum class FaultPoint {
  Allocate,
  Encode,
  /// In `submit`, before anything reaches the stream: not submitted.
  SubmitBeforeEnqueue,
  /// In `submit`, after the batch reached the stream: possibly submitted.
  SubmitAfterEnqueue,
  /// When a stream starts executing a submission; a hook may also block
  /// here to hold a stream busy.
  Execute,
  /// In `waitFence` and `queryFence`: completion cannot be proven.
  Wait,
};

/// Returns an error to inject at a point, or nothing.
using FaultHook = std::function<std::optional<Error>(FaultPoint)>;

class DeviceRuntime {
public:
  /// The shortest wait that lets the waiting thread run the batch itself:
  /// one that waits for the result, not a poll with a deadline.
  static constexpr std::chrono::seconds kRunWhileWaiting{60};

  DeviceRuntime(const DeviceRuntime &) = delete;
  DeviceRuntime &operator=(const DeviceRuntime &) = delete;
  virtual ~DeviceRuntime();

  const DeviceDescriptor &descriptor() const { return description; }
  /// Unique among the runtime instances of this process.
  uint64_t instanceId() const { return id; }

  /// The resource transaction: grants `bytes` of the budget, or fails with
  /// OutOfBudget and grants nothing.
  DeviceResult<AllocationPermit> reserve(uint64_t bytes);
  /// Allocates `bytes` drawn from the permit.
  DeviceResult<Buffer> allocate(AllocationPermit &permit, uint64_t bytes);
  /// A buffer over host memory that this runtime reads in place instead of
  /// copying it into memory of its own (a model's weights, held by whoever
  /// imported them): `owner` keeps `bytes` alive while the buffer, or a
  /// command or fence that uses it, lives, and the caller keeps them
  /// unchanged. Not charged to the budget. It is read-only: an upload, copy
  /// or zero into it is refused, and it may only be bound where a kernel
  /// reads (never to an input that a kernel writes in place). Unsupported
  /// where the device cannot address host memory (CUDA); InvalidArgument
  /// for no bytes.
  DeviceResult<Buffer> borrowHostMemory(std::shared_ptr<const void> owner,
                                        std::span<const std::byte> bytes);

  /// Loads a bundle's kernels for this runtime.
  DeviceResult<Executable> load(const Bundle &bundle);
  /// The executable of `bound` made from `loaded` without loading code
  /// again: `bound` and the bundle `loaded` was loaded from are bindings of
  /// one symbolic bundle (bindBundle), whose kernels share their payloads,
  /// so only what depends on the sizes (the bytes each binding may touch,
  /// the dims arrays, the checks) is made anew. Where a kernel's payload or
  /// entry is not the one `loaded` holds, or the backend keeps more than
  /// code per bundle (the reference runtime), it loads `bound` as load does.
  DeviceResult<Executable> rebind(const Executable &loaded,
                                  const Bundle &bound);
  /// rebind of a bundle that bindBundle returned (or rebindBundle made) in
  /// this process, unchanged since: they ran verifyBundle on it, so rebind
  /// does not run it
  /// again (a decoder binds once per token). A bundle read from a file or
  /// built otherwise goes through the rebind above.
  DeviceResult<Executable> rebind(const Executable &loaded, const Bundle &bound,
                                  BoundAndVerified);

  DeviceResult<Stream> createStream();
  StreamState streamState(const Stream &stream) const;
  /// Makes a failed stream ready again; refused while work is in flight.
  DeviceStatus resetStream(Stream &stream);

  DeviceResult<Command> encodeCopy(const Buffer &source,
                                   const Buffer &destination,
                                   CopyRegion region);
  /// The bytes are copied into the command.
  DeviceResult<Command> encodeUpload(std::span<const std::byte> source,
                                     const Buffer &destination,
                                     uint64_t destinationOffset);
  DeviceResult<Command> encodeZero(const Buffer &destination,
                                   uint64_t destinationOffset, uint64_t bytes);
  /// Launches kernel `kernel` of `executable`; `bindings` in the kernel's
  /// binding order.
  DeviceResult<Command> encodeLaunch(const Executable &executable,
                                     uint32_t kernel,
                                     const LaunchConfig &config,
                                     std::vector<BufferBinding> bindings);

  /// Submits a non-empty batch; commands run in order, after every earlier
  /// submission to the stream.
  SubmitResult submit(Stream &stream, CommandBatch batch);
  /// Never blocks.
  FenceQuery queryFence(const Fence &fence) const;
  /// Blocks until the fence is terminal or `timeout` passes (Timeout error);
  /// an Indeterminate error also releases nothing. A wait of at least
  /// kRunWhileWaiting may run the batch on the calling thread (when its
  /// stream has not started it; see runWaitedFence) and then lasts as long
  /// as the batch.
  DeviceResult<TerminalReceipt> waitFence(const Fence &fence,
                                          std::chrono::nanoseconds timeout);
  /// Waits for every submission of the stream; fails with the stream's
  /// failure, if any.
  DeviceStatus synchronize(Stream &stream);
  /// After every earlier submission of the stream.
  DeviceResult<std::vector<std::byte>> readback(Stream &stream,
                                                const Buffer &source,
                                                uint64_t offset,
                                                uint64_t bytes);

  ErrorReport describeError(const Error &error) const;

  MemoryUsage memoryUsage() const;
  /// Returns pooled memory to the system.
  void memoryCleanup();

  /// Applies to later submissions.
  void setTimingMode(TimingMode mode);
  TimingMode timingMode() const;
  /// The timing of a terminal fence submitted with timing on.
  DeviceResult<SubmissionTiming> submissionTiming(const Fence &fence) const;

  /// Test hook: consulted at every FaultPoint. It may be replaced at any
  /// time; a call already inside the old hook finishes with it.
  void setFaultHookForTesting(FaultHook hook);

protected:
  DeviceRuntime(DeviceDescriptor descriptor);

  /// rebind; `verified`: the caller vouches that verifyBundle passed.
  DeviceResult<Executable> rebindBundle(const Executable &loaded,
                                        const Bundle &bound, bool verified);

  /// Backend memory of `bytes`; the budget was already charged.
  virtual DeviceResult<std::shared_ptr<detail::BufferObject>>
  allocateMemory(uint64_t bytes) = 0;
  /// Whether kernels and commands address buffers through hostData(), so
  /// that borrowHostMemory can hand them host memory.
  virtual bool addressesHostMemory() const { return false; }
  /// The bundle already passed verifyBundle and matches this version id.
  virtual DeviceResult<std::shared_ptr<detail::ExecutableObject>>
  loadExecutable(const Bundle &bundle) = 0;
  /// A copy of `loaded` that shares its code (libraries, modules), for
  /// rebind; null where the backend cannot share it (the default).
  virtual std::shared_ptr<detail::ExecutableObject>
  shareCode(const detail::ExecutableObject &loaded) const {
    (void)loaded;
    return nullptr;
  }
  virtual DeviceResult<std::shared_ptr<detail::StreamObject>> newStream() = 0;
  /// Hands a submission to the stream; it cannot fail, because from here on
  /// the work is possibly submitted. The backend completes the fence with
  /// `completeSubmission` (synchronously or later).
  virtual void enqueue(detail::StreamObject &stream,
                       std::shared_ptr<detail::FenceObject> fence) = 0;
  /// Called by `submit` just before `enqueue`, when nothing has reached the
  /// stream yet: an error makes the submission definitely not submitted (the
  /// batch comes back). A backend acquires here what `enqueue` needs and
  /// must not fail to get (CUDA: the completion event). Default: nothing.
  virtual std::optional<Error> prepareSubmission(detail::StreamObject &stream) {
    (void)stream;
    return std::nullopt;
  }
  /// Called by `waitFence` before it blocks, when the caller waits at least
  /// kRunWhileWaiting: the backend may run the fence's batch on the waiting
  /// thread, if its stream has not started it and nothing is ahead of it
  /// (the host runtime does: a run then costs no thread hand-off, where a
  /// stream thread woken for it and a waiter woken after it cost about 70 us
  /// per run on a 2-core VM). The wait then lasts as long as the batch.
  /// Default: nothing.
  virtual void
  runWaitedFence(detail::StreamObject &stream,
                 const std::shared_ptr<detail::FenceObject> &fence) {
    (void)stream;
    (void)fence;
  }
  /// Copies from backend memory; the stream is synchronized.
  virtual DeviceStatus copyToHost(detail::BufferObject &buffer, uint64_t offset,
                                  std::span<std::byte> destination) = 0;
  /// Memory the backend's pool holds beyond the live buffers, and its
  /// release. Default: a backend without a pool (0; nothing).
  virtual uint64_t pooledBytes() const { return 0; }
  virtual void releasePooledMemory() {}

  std::optional<Error> injectedFault(FaultPoint point) const;
  const std::shared_ptr<detail::Budget> &budgetState() const { return budget; }

  /// Makes the fence terminal, releases its batch, updates the stream.
  static void completeSubmission(detail::StreamObject &stream,
                                 detail::FenceObject &fence,
                                 std::optional<Error> failure);

  /// loadExecutable's refusals of a kernel: its payload is not one this
  /// runtime runs (`runs`: "PTX or cubin"), or its target is not
  /// `expected` ("a GPU (sm_XY)").
  static Error unsupportedPayload(const BundleKernel &kernel,
                                  std::string_view runtime,
                                  std::string_view runs);
  static Error foreignTarget(const BundleKernel &kernel,
                             std::string_view expected);

private:
  Error wrongRuntime(const char *what, uint64_t owner) const;

  DeviceDescriptor description;
  uint64_t id;
  std::shared_ptr<detail::Budget> budget;
  mutable std::mutex hookMutex;
  std::shared_ptr<const FaultHook> faultHook;
  std::atomic<TimingMode> timing{TimingMode::Off};
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_DEVICERUNTIME_H
