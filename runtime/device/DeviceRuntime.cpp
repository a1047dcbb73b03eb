//===- DeviceRuntime.cpp - What every device runtime shares ---------------===//
//
// Identity checks, the budget, the stream state machine, command encoding
// and fences are the same for every backend; they live here so that each
// backend only provides memory, kernels and execution.
//
//===----------------------------------------------------------------------===//

#include "runtime/device/DeviceRuntime.h"

#include "runtime/Version.h"
#include "runtime/cache/Bundle.h"
#include "runtime/device/DeviceObjects.h"

#include <cstring>

namespace fuse::device {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::InvalidArgument:
    return "invalid argument";
  case ErrorCode::WrongRuntime:
    return "wrong runtime";
  case ErrorCode::OutOfBudget:
    return "out of budget";
  case ErrorCode::OutOfMemory:
    return "out of memory";
  case ErrorCode::StreamFailed:
    return "stream failed";
  case ErrorCode::Busy:
    return "busy";
  case ErrorCode::KernelLoadFailed:
    return "kernel load failed";
  case ErrorCode::KernelFailed:
    return "kernel failed";
  case ErrorCode::Timeout:
    return "timeout";
  case ErrorCode::Indeterminate:
    return "indeterminate";
  case ErrorCode::Incompatible:
    return "incompatible";
  case ErrorCode::Unsupported:
    return "unsupported";
  case ErrorCode::Injected:
    return "injected";
  }
  return "unknown";
}

const char *deviceKindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Cuda:
    return "cuda";
  case DeviceKind::Host:
    return "host";
  case DeviceKind::Reference:
    return "reference";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Budget and permits
//===----------------------------------------------------------------------===//

namespace detail {

bool Budget::tryReserve(uint64_t bytes) {
  std::lock_guard lock(mutex);
  if (bytes > limit || reserved + inUse > limit - bytes)
    return false;
  reserved += bytes;
  return true;
}

void Budget::unreserve(uint64_t bytes) {
  std::lock_guard lock(mutex);
  reserved -= bytes;
}

void Budget::commit(uint64_t bytes) {
  std::lock_guard lock(mutex);
  reserved -= bytes;
  inUse += bytes;
  ++liveBuffers;
}

void Budget::release(uint64_t bytes) {
  std::lock_guard lock(mutex);
  inUse -= bytes;
  --liveBuffers;
}

} // namespace detail

AllocationPermit::AllocationPermit(std::shared_ptr<detail::Budget> budget,
                                   uint64_t owner, uint64_t bytes)
    : budget(std::move(budget)), owner(owner), remaining(bytes) {}

AllocationPermit::AllocationPermit(AllocationPermit &&other) noexcept
    : budget(std::move(other.budget)), owner(other.owner),
      remaining(std::exchange(other.remaining, 0)) {}

AllocationPermit &
AllocationPermit::operator=(AllocationPermit &&other) noexcept {
  if (this != &other) {
    giveBack();
    budget = std::move(other.budget);
    owner = other.owner;
    remaining = std::exchange(other.remaining, 0);
  }
  return *this;
}

AllocationPermit::~AllocationPermit() { giveBack(); }

void AllocationPermit::giveBack() {
  if (budget && remaining)
    budget->unreserve(remaining);
  remaining = 0;
}

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

uint64_t Buffer::size() const { return object ? object->size : 0; }
uint64_t Buffer::runtimeId() const { return object ? object->runtimeId : 0; }

uint32_t Executable::kernelCount() const {
  return object ? static_cast<uint32_t>(object->bindingBytes.size()) : 0;
}
uint64_t Executable::runtimeId() const {
  return object ? object->runtimeId : 0;
}

uint64_t Stream::runtimeId() const { return object ? object->runtimeId : 0; }
uint64_t Fence::runtimeId() const { return object ? object->runtimeId : 0; }

CommandKind Command::kind() const {
  return static_cast<CommandKind>(object->op.index());
}
uint64_t Command::runtimeId() const { return object->runtimeId; }

BufferBinding bindWhole(const Buffer &buffer) {
  return BufferBinding{buffer, 0, buffer.size()};
}

std::string ErrorReport::toString() const {
  return runtime + ": " + code + ": " + message +
         (retryable ? " (may succeed if retried)" : "");
}

//===----------------------------------------------------------------------===//
// DeviceRuntime
//===----------------------------------------------------------------------===//

static std::atomic<uint64_t> nextInstanceId{1};

DeviceRuntime::DeviceRuntime(DeviceDescriptor descriptor)
    : description(std::move(descriptor)), id(nextInstanceId++),
      budget(std::make_shared<detail::Budget>(description.memoryBudgetBytes)) {}

DeviceRuntime::~DeviceRuntime() = default;

Error DeviceRuntime::wrongRuntime(const char *what, uint64_t owner) const {
  if (owner == 0)
    return Error{ErrorCode::InvalidArgument,
                 std::string("empty ") + what + " handle"};
  return Error{ErrorCode::WrongRuntime,
               std::string(what) + " belongs to runtime instance #" +
                   std::to_string(owner) + ", not to " + description.name +
                   " instance #" + std::to_string(id)};
}

std::optional<Error> DeviceRuntime::injectedFault(FaultPoint point) const {
  std::shared_ptr<const FaultHook> hook;
  {
    std::lock_guard lock(hookMutex);
    hook = faultHook;
  }
  if (!hook || !*hook)
    return std::nullopt;
  return (*hook)(point);
}

void DeviceRuntime::setFaultHookForTesting(FaultHook hook) {
  std::lock_guard lock(hookMutex);
  faultHook = std::make_shared<const FaultHook>(std::move(hook));
}

DeviceResult<AllocationPermit> DeviceRuntime::reserve(uint64_t bytes) {
  if (!budget->tryReserve(bytes)) {
    MemoryUsage usage = memoryUsage();
    return Error{ErrorCode::OutOfBudget,
                 "cannot grant " + std::to_string(bytes) + " bytes: budget " +
                     std::to_string(usage.budgetBytes) + ", in use " +
                     std::to_string(usage.inUseBytes) + ", reserved " +
                     std::to_string(usage.reservedBytes)};
  }
  return AllocationPermit(budget, id, bytes);
}

DeviceResult<Buffer> DeviceRuntime::allocate(AllocationPermit &permit,
                                             uint64_t bytes) {
  if (permit.owner != id)
    return wrongRuntime("permit", permit.owner);
  if (bytes == 0)
    return Error{ErrorCode::InvalidArgument, "cannot allocate 0 bytes"};
  if (bytes > permit.remaining)
    return Error{ErrorCode::OutOfBudget,
                 "allocation of " + std::to_string(bytes) +
                     " bytes exceeds the permit's remaining " +
                     std::to_string(permit.remaining) + " bytes"};
  if (std::optional<Error> fault = injectedFault(FaultPoint::Allocate))
    return *fault;
  DeviceResult<std::shared_ptr<detail::BufferObject>> memory =
      allocateMemory(bytes);
  if (!memory.ok())
    return memory.error();
  // From here the buffer object owns the charge and releases it when it dies.
  budget->commit(bytes);
  permit.remaining -= bytes;
  return Buffer(std::move(*memory));
}

DeviceResult<Buffer>
DeviceRuntime::borrowHostMemory(std::shared_ptr<const void> owner,
                                std::span<const std::byte> bytes) {
  if (!addressesHostMemory())
    return Error{ErrorCode::Unsupported,
                 "this runtime cannot read host memory in place"};
  if (bytes.empty() || !owner)
    return Error{ErrorCode::InvalidArgument,
                 "borrowed host memory needs bytes and their owner"};
  return Buffer(std::make_shared<detail::BorrowedHostBuffer>(
      id, std::move(owner), bytes));
}

namespace {

/// Per kernel: the error record's checks and the dims array of `bundle`.
void setBundleChecks(detail::ExecutableObject &object, const Bundle &bundle) {
  for (const BundleKernel &kernel : bundle.kernels) {
    detail::KernelChecks checks{kernel.name, {}, kernel.dimValues};
    for (uint32_t op : kernel.checkedOps)
      checks.gathers.push_back(gatherRange(bundle.graph, op));
    object.checks.push_back(std::move(checks));
  }
}

} // namespace

DeviceResult<Executable> DeviceRuntime::load(const Bundle &bundle) {
  // Checks every backend needs before it looks at a kernel.
  if (Status status = verifyBundle(bundle); !status.ok())
    return Error{ErrorCode::InvalidArgument, status.message()};
  // A symbolic bundle's buffers have no sizes until its dims are bound.
  if (bundle.isSymbolic())
    return Error{ErrorCode::InvalidArgument,
                 "the bundle has symbolic dims: bind them first (bindBundle, "
                 "or runBundle with the inputs' shapes)"};
  if (bundle.versionId != versionId())
    return Error{ErrorCode::Incompatible,
                 "the bundle was made by Fuse version " + bundle.versionId +
                     ", this runtime is " + versionId()};
  DeviceResult<std::shared_ptr<detail::ExecutableObject>> object =
      loadExecutable(bundle);
  if (!object.ok())
    return object.error();
  setBundleChecks(**object, bundle);
  for (const BundleKernel &kernel : bundle.kernels) {
    (*object)->payloads.push_back(kernel.payload);
    (*object)->entries.push_back(kernel.entry);
  }
  return Executable(std::move(*object));
}

DeviceResult<Executable> DeviceRuntime::rebind(const Executable &loaded,
                                               const Bundle &bound) {
  return rebindBundle(loaded, bound, /*verified=*/false);
}

DeviceResult<Executable> DeviceRuntime::rebind(const Executable &loaded,
                                               const Bundle &bound,
                                               BoundAndVerified) {
  return rebindBundle(loaded, bound, /*verified=*/true);
}

DeviceResult<Executable> DeviceRuntime::rebindBundle(const Executable &loaded,
                                                     const Bundle &bound,
                                                     bool verified) {
  if (!loaded.object || loaded.object->runtimeId != id)
    return wrongRuntime("executable", loaded.runtimeId());
  const detail::ExecutableObject &object = *loaded.object;
  bool sameCode = !bound.isSymbolic() && bound.versionId == versionId() &&
                  bound.kernels.size() == object.payloads.size();
  for (size_t k = 0; sameCode && k < bound.kernels.size(); ++k)
    sameCode = bound.kernels[k].payload.sameBytes(object.payloads[k]) &&
               bound.kernels[k].entry == object.entries[k];
  std::shared_ptr<detail::ExecutableObject> copy =
      sameCode ? shareCode(object) : nullptr;
  if (!copy)
    return load(bound);
  if (!verified)
    if (Status status = verifyBundle(bound); !status.ok())
      return Error{ErrorCode::InvalidArgument, status.message()};
  copy->bindingBytes.clear();
  for (const BundleKernel &kernel : bound.kernels)
    copy->bindingBytes.push_back(bindingBytes(bound, kernel));
  copy->checks.clear();
  setBundleChecks(*copy, bound);
  return Executable(std::move(copy));
}

DeviceResult<Stream> DeviceRuntime::createStream() {
  DeviceResult<std::shared_ptr<detail::StreamObject>> object = newStream();
  if (!object.ok())
    return object.error();
  return Stream(std::move(*object));
}

StreamState DeviceRuntime::streamState(const Stream &stream) const {
  if (!stream.object || stream.object->runtimeId != id)
    return StreamFailed{wrongRuntime("stream", stream.runtimeId())};
  detail::StreamObject &object = *stream.object;
  std::lock_guard lock(object.mutex);
  if (object.failure)
    return StreamFailed{*object.failure};
  if (object.recording)
    return StreamRecording{};
  if (object.pending)
    return StreamSubmitted{object.pending};
  return StreamReady{};
}

DeviceStatus DeviceRuntime::resetStream(Stream &stream) {
  if (!stream.object || stream.object->runtimeId != id)
    return wrongRuntime("stream", stream.runtimeId());
  detail::StreamObject &object = *stream.object;
  std::lock_guard lock(object.mutex);
  if (object.pending || object.recording)
    return Error{ErrorCode::Busy,
                 "cannot reset a stream with " +
                     std::to_string(object.pending) +
                     " submissions in flight; wait for them first"};
  object.failure.reset();
  return DeviceStatus();
}

static bool inBounds(uint64_t offset, uint64_t bytes, uint64_t size) {
  return offset <= size && bytes <= size - offset;
}

static Error outOfBounds(const char *what, uint64_t offset, uint64_t bytes,
                         uint64_t size) {
  return Error{ErrorCode::InvalidArgument,
               std::string(what) + " range [" + std::to_string(offset) + ", " +
                   std::to_string(offset) + " + " + std::to_string(bytes) +
                   ") exceeds the buffer's " + std::to_string(size) + " bytes"};
}

static Error readOnlyDestination(const char *what) {
  return Error{ErrorCode::InvalidArgument,
               std::string(what) +
                   " destination buffer is borrowed host memory, which is "
                   "read-only"};
}

DeviceResult<Command> DeviceRuntime::encodeCopy(const Buffer &source,
                                                const Buffer &destination,
                                                CopyRegion region) {
  if (source.runtimeId() != id)
    return wrongRuntime("copy source buffer", source.runtimeId());
  if (destination.runtimeId() != id)
    return wrongRuntime("copy destination buffer", destination.runtimeId());
  if (destination.object->readOnly())
    return readOnlyDestination("copy");
  if (!inBounds(region.sourceOffset, region.bytes, source.size()))
    return outOfBounds("copy source", region.sourceOffset, region.bytes,
                       source.size());
  if (!inBounds(region.destinationOffset, region.bytes, destination.size()))
    return outOfBounds("copy destination", region.destinationOffset,
                       region.bytes, destination.size());
  if (source.object == destination.object &&
      region.sourceOffset < region.destinationOffset + region.bytes &&
      region.destinationOffset < region.sourceOffset + region.bytes)
    return Error{ErrorCode::InvalidArgument,
                 "copy source and destination ranges overlap"};
  if (std::optional<Error> fault = injectedFault(FaultPoint::Encode))
    return *fault;
  return Command(
      std::make_shared<const detail::CommandObject>(detail::CommandObject{
          id, detail::CopyCommand{source.object, destination.object, region}}));
}

DeviceResult<Command>
DeviceRuntime::encodeUpload(std::span<const std::byte> source,
                            const Buffer &destination,
                            uint64_t destinationOffset) {
  if (destination.runtimeId() != id)
    return wrongRuntime("upload destination buffer", destination.runtimeId());
  if (destination.object->readOnly())
    return readOnlyDestination("upload");
  if (!inBounds(destinationOffset, source.size(), destination.size()))
    return outOfBounds("upload", destinationOffset, source.size(),
                       destination.size());
  if (std::optional<Error> fault = injectedFault(FaultPoint::Encode))
    return *fault;
  return Command(
      std::make_shared<const detail::CommandObject>(detail::CommandObject{
          id, detail::UploadCommand{
                  std::vector<std::byte>(source.begin(), source.end()),
                  destination.object, destinationOffset}}));
}

DeviceResult<Command> DeviceRuntime::encodeZero(const Buffer &destination,
                                                uint64_t destinationOffset,
                                                uint64_t bytes) {
  if (destination.runtimeId() != id)
    return wrongRuntime("zero destination buffer", destination.runtimeId());
  if (destination.object->readOnly())
    return readOnlyDestination("zero");
  if (!inBounds(destinationOffset, bytes, destination.size()))
    return outOfBounds("zero", destinationOffset, bytes, destination.size());
  if (std::optional<Error> fault = injectedFault(FaultPoint::Encode))
    return *fault;
  return Command(
      std::make_shared<const detail::CommandObject>(detail::CommandObject{
          id,
          detail::ZeroCommand{destination.object, destinationOffset, bytes}}));
}

DeviceResult<Command>
DeviceRuntime::encodeLaunch(const Executable &executable, uint32_t kernel,
                            const LaunchConfig &config,
                            std::vector<BufferBinding> bindings) {
  if (executable.runtimeId() != id)
    return wrongRuntime("executable", executable.runtimeId());
  const detail::ExecutableObject &object = *executable.object;
  if (kernel >= object.bindingBytes.size())
    return Error{ErrorCode::InvalidArgument,
                 "kernel " + std::to_string(kernel) +
                     " does not exist; the executable has " +
                     std::to_string(object.bindingBytes.size())};
  const std::vector<uint64_t> &expected = object.bindingBytes[kernel];
  if (bindings.size() != expected.size())
    return Error{ErrorCode::InvalidArgument,
                 "kernel " + std::to_string(kernel) + " binds " +
                     std::to_string(expected.size()) + " buffers, got " +
                     std::to_string(bindings.size())};
  if (config.iterations < 0 || config.grain < 1)
    return Error{ErrorCode::InvalidArgument,
                 "launch needs iterations >= 0 and grain >= 1"};
  detail::LaunchCommand launch{executable.object, kernel, config, {}};
  for (size_t i = 0; i < bindings.size(); ++i) {
    BufferBinding &binding = bindings[i];
    if (binding.buffer.runtimeId() != id)
      return wrongRuntime("bound buffer", binding.buffer.runtimeId());
    if (!inBounds(binding.offset, binding.bytes, binding.buffer.size()))
      return outOfBounds("binding", binding.offset, binding.bytes,
                         binding.buffer.size());
    if (binding.bytes < expected[i])
      return Error{ErrorCode::InvalidArgument,
                   "binding " + std::to_string(i) + " of kernel " +
                       std::to_string(kernel) + " covers " +
                       std::to_string(binding.bytes) +
                       " bytes, the kernel "
                       "uses " +
                       std::to_string(expected[i])};
    launch.bindings.push_back(detail::BoundBuffer{
        std::move(binding.buffer.object), binding.offset, binding.bytes});
  }
  if (std::optional<Error> fault = injectedFault(FaultPoint::Encode))
    return *fault;
  return Command(std::make_shared<const detail::CommandObject>(
      detail::CommandObject{id, std::move(launch)}));
}

SubmitResult DeviceRuntime::submit(Stream &stream, CommandBatch batch) {
  using NotSubmitted = SubmitResult::NotSubmitted;
  if (!stream.object || stream.object->runtimeId != id)
    return NotSubmitted{wrongRuntime("stream", stream.runtimeId()),
                        std::move(batch)};
  if (batch.empty())
    return NotSubmitted{
        Error{ErrorCode::InvalidArgument, "cannot submit an empty batch"},
        std::move(batch)};
  for (const Command &command : batch.commands)
    if (command.runtimeId() != id)
      return NotSubmitted{wrongRuntime("command", command.runtimeId()),
                          std::move(batch)};
  detail::StreamObject &object = *stream.object;
  {
    std::lock_guard lock(object.mutex);
    if (object.failure)
      return NotSubmitted{
          Error{ErrorCode::StreamFailed, "the stream failed earlier (" +
                                             object.failure->message +
                                             "); reset it before submitting"},
          std::move(batch)};
    object.recording = true;
  }
  if (std::optional<Error> fault =
          injectedFault(FaultPoint::SubmitBeforeEnqueue)) {
    std::lock_guard lock(object.mutex);
    object.recording = false;
    return NotSubmitted{std::move(*fault), std::move(batch)};
  }
  if (std::optional<Error> failure = prepareSubmission(object)) {
    std::lock_guard lock(object.mutex);
    object.recording = false;
    return NotSubmitted{std::move(*failure), std::move(batch)};
  }

  auto fence = std::make_shared<detail::FenceObject>(id);
  fence->timingMode = timing.load();
  fence->timing.mode = fence->timingMode;
  fence->stream = stream.object;
  fence->submitTime = std::chrono::steady_clock::now();
  for (Command &command : batch.commands)
    fence->commands.push_back(std::move(command.object));
  {
    std::lock_guard lock(object.mutex);
    ++object.pending;
    object.recording = false;
  }
  enqueue(object, fence);
  if (std::optional<Error> fault =
          injectedFault(FaultPoint::SubmitAfterEnqueue)) {
    // The work may already run: it cannot be withdrawn, only abandoned if
    // it has not started, and its fence still decides when it is released.
    {
      std::lock_guard lock(fence->mutex);
      fence->abandoned = *fault;
    }
    std::lock_guard lock(object.mutex);
    if (!object.failure)
      object.failure = std::move(*fault);
  }
  return Fence(std::move(fence));
}

FenceQuery DeviceRuntime::queryFence(const Fence &fence) const {
  if (!fence.object || fence.object->runtimeId != id)
    return FenceIndeterminate{wrongRuntime("fence", fence.runtimeId())};
  if (std::optional<Error> fault = injectedFault(FaultPoint::Wait))
    return FenceIndeterminate{std::move(*fault)};
  std::lock_guard lock(fence.object->mutex);
  if (fence.object->receipt)
    return FenceTerminal{*fence.object->receipt};
  return FencePending{};
}

DeviceResult<TerminalReceipt>
DeviceRuntime::waitFence(const Fence &fence, std::chrono::nanoseconds timeout) {
  if (!fence.object || fence.object->runtimeId != id)
    return wrongRuntime("fence", fence.runtimeId());
  if (std::optional<Error> fault = injectedFault(FaultPoint::Wait))
    return Error{ErrorCode::Indeterminate,
                 "completion could not be proven: " + fault->message};
  detail::FenceObject &object = *fence.object;
  if (timeout >= kRunWhileWaiting)
    if (std::shared_ptr<detail::StreamObject> stream = object.stream.lock())
      runWaitedFence(*stream, fence.object);
  std::unique_lock lock(object.mutex);
  if (!object.terminal.wait_for(lock, timeout,
                                [&] { return object.receipt.has_value(); }))
    return Error{ErrorCode::Timeout, "the fence is still pending after " +
                                         std::to_string(timeout.count()) +
                                         " ns"};
  return *object.receipt;
}

DeviceStatus DeviceRuntime::synchronize(Stream &stream) {
  if (!stream.object || stream.object->runtimeId != id)
    return wrongRuntime("stream", stream.runtimeId());
  detail::StreamObject &object = *stream.object;
  std::unique_lock lock(object.mutex);
  object.idle.wait(lock, [&] { return object.pending == 0; });
  if (object.failure)
    return Error{ErrorCode::StreamFailed,
                 "the stream failed: " + object.failure->message};
  return DeviceStatus();
}

DeviceResult<std::vector<std::byte>>
DeviceRuntime::readback(Stream &stream, const Buffer &source, uint64_t offset,
                        uint64_t bytes) {
  if (source.runtimeId() != id)
    return wrongRuntime("readback buffer", source.runtimeId());
  if (!inBounds(offset, bytes, source.size()))
    return outOfBounds("readback", offset, bytes, source.size());
  if (DeviceStatus status = synchronize(stream); !status.ok())
    return status.error();
  std::vector<std::byte> out(bytes);
  if (DeviceStatus status = copyToHost(*source.object, offset, out);
      !status.ok())
    return status.error();
  return out;
}

ErrorReport DeviceRuntime::describeError(const Error &error) const {
  bool retryable = error.code == ErrorCode::Timeout ||
                   error.code == ErrorCode::OutOfBudget ||
                   error.code == ErrorCode::Busy;
  return ErrorReport{description.name + " #" + std::to_string(id),
                     errorCodeName(error.code), error.message, retryable};
}

MemoryUsage DeviceRuntime::memoryUsage() const {
  MemoryUsage usage;
  {
    std::lock_guard lock(budget->mutex);
    usage.budgetBytes = budget->limit;
    usage.inUseBytes = budget->inUse;
    usage.reservedBytes = budget->reserved;
    usage.liveBuffers = budget->liveBuffers;
  }
  usage.pooledBytes = pooledBytes();
  return usage;
}

void DeviceRuntime::memoryCleanup() { releasePooledMemory(); }

void DeviceRuntime::setTimingMode(TimingMode mode) { timing = mode; }
TimingMode DeviceRuntime::timingMode() const { return timing; }

DeviceResult<SubmissionTiming>
DeviceRuntime::submissionTiming(const Fence &fence) const {
  if (!fence.object || fence.object->runtimeId != id)
    return wrongRuntime("fence", fence.runtimeId());
  std::lock_guard lock(fence.object->mutex);
  if (!fence.object->receipt)
    return Error{ErrorCode::InvalidArgument,
                 "timing is known only once the fence is terminal"};
  if (fence.object->timingMode == TimingMode::Off)
    return Error{ErrorCode::InvalidArgument,
                 "the submission ran with timing off"};
  return fence.object->timing;
}

//===----------------------------------------------------------------------===//
// Completion, shared by every backend
//===----------------------------------------------------------------------===//

Error DeviceRuntime::unsupportedPayload(const BundleKernel &kernel,
                                        std::string_view runtime,
                                        std::string_view runs) {
  return Error{ErrorCode::Unsupported,
               "kernel " + kernel.name + " is " +
                   std::string(payloadKindName(kernel.payloadKind)) + "; the " +
                   std::string(runtime) + " runtime runs " + std::string(runs)};
}

Error DeviceRuntime::foreignTarget(const BundleKernel &kernel,
                                   std::string_view expected) {
  return Error{ErrorCode::Incompatible, "kernel " + kernel.name + " targets '" +
                                            kernel.target + "', not " +
                                            std::string(expected)};
}

void DeviceRuntime::completeSubmission(detail::StreamObject &stream,
                                       detail::FenceObject &fence,
                                       std::optional<Error> failure) {
  std::vector<std::shared_ptr<const detail::CommandObject>> released;
  {
    std::lock_guard lock(fence.mutex);
    if (fence.timingMode != TimingMode::Off)
      fence.timing.submitToComplete =
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::steady_clock::now() - fence.submitTime);
    released.swap(fence.commands);
  }
  // Release the batch's resources before anyone can observe the terminal
  // fence (the receipt is set only after), so that a waiter already sees
  // them free: the budget, and kernel libraries unloaded.
  released.clear();
  // The stream is marked failed before the fence turns terminal, so that a
  // waiter who sees a failed receipt also sees the failed stream.
  if (failure) {
    std::lock_guard lock(stream.mutex);
    if (!stream.failure)
      stream.failure = failure;
  }
  {
    std::lock_guard lock(fence.mutex);
    if (failure)
      fence.receipt = FailedButQuiescent{*failure};
    else
      fence.receipt = Succeeded{};
  }
  {
    std::lock_guard lock(stream.mutex);
    --stream.pending;
  }
  stream.idle.notify_all();
  fence.terminal.notify_all();
}

std::optional<Error>
detail::KernelChecks::failure(std::span<const int64_t> record) const {
  for (size_t c = 0; c < gathers.size(); ++c)
    if (record[c * kErrorRecordWordsPerCheck])
      return Error{
          ErrorCode::KernelFailed,
          "kernel " + kernel + ": " +
              gatherIndexError(gathers[c],
                               record[c * kErrorRecordWordsPerCheck + 1],
                               std::nullopt)};
  return std::nullopt;
}

} // namespace fuse::device
