//===- ReferenceRuntime.cpp - Synchronous reference execution -------------===//

#include "runtime/device/ReferenceRuntime.h"

#include "runtime/cache/Bundle.h"
#include "runtime/device/DeviceObjects.h"
#include "runtime/ir/Interpreter.h"

#include <cstring>
#include <new>

namespace fuse::device {

namespace {

/// Aligned like the host runtime's memory, so that a kernel or interpreter
/// reading any element type reads aligned data on both.
constexpr std::align_val_t BufferAlignment{64};

struct ReferenceBuffer final : detail::BufferObject {
  ReferenceBuffer(uint64_t runtimeId, uint64_t size,
                  std::shared_ptr<detail::Budget> budget, std::byte *data)
      : BufferObject(runtimeId, size, std::move(budget)), data(data) {}
  ~ReferenceBuffer() override { ::operator delete[](data, BufferAlignment); }
  std::byte *hostData() override { return data; }
  std::byte *data;
};

struct ReferenceKernel {
  std::vector<std::size_t> ops;
  std::vector<TensorId> bindingTensors;
};

struct ReferenceExecutable final : detail::ExecutableObject {
  using ExecutableObject::ExecutableObject;
  Graph graph;
  std::vector<ReferenceKernel> kernels;
};

} // namespace

ReferenceRuntime::ReferenceRuntime() : ReferenceRuntime(Options{}) {}

ReferenceRuntime::ReferenceRuntime(const Options &options)
    : HostAddressableRuntime(
          DeviceDescriptor{"reference", DeviceKind::Reference, "reference",
                           options.memoryBudgetBytes, 1}) {}

ReferenceSnapshot ReferenceRuntime::snapshot() const {
  std::lock_guard lock(counterMutex);
  return counters;
}

DeviceResult<std::shared_ptr<detail::BufferObject>>
ReferenceRuntime::allocateMemory(uint64_t bytes) {
  auto *data = static_cast<std::byte *>(
      ::operator new[](bytes, BufferAlignment, std::nothrow));
  if (!data)
    return Error{ErrorCode::OutOfMemory, "the system has no " +
                                             std::to_string(bytes) +
                                             " bytes to give"};
  // Fresh memory is deterministic here: a kernel that reads what nobody
  // wrote reads zeros on every run.
  std::memset(data, 0, bytes);
  {
    std::lock_guard lock(counterMutex);
    ++counters.allocations;
    counters.allocatedBytes += bytes;
  }
  return std::shared_ptr<detail::BufferObject>(
      std::make_shared<ReferenceBuffer>(instanceId(), bytes, budgetState(),
                                        data));
}

DeviceResult<std::shared_ptr<detail::ExecutableObject>>
ReferenceRuntime::loadExecutable(const Bundle &bundle) {
  auto executable = std::make_shared<ReferenceExecutable>(instanceId());
  executable->graph = bundle.graph;
  for (const BundleKernel &kernel : bundle.kernels) {
    ReferenceKernel loaded;
    loaded.ops.assign(kernel.ops.begin(), kernel.ops.end());
    for (const KernelBinding &binding : kernel.bindings)
      loaded.bindingTensors.push_back(boundTensor(bundle, binding));
    executable->kernels.push_back(std::move(loaded));
    executable->bindingBytes.push_back(bindingBytes(bundle, kernel));
  }
  return std::shared_ptr<detail::ExecutableObject>(std::move(executable));
}

DeviceResult<std::shared_ptr<detail::StreamObject>>
ReferenceRuntime::newStream() {
  return std::make_shared<detail::StreamObject>(instanceId());
}

void ReferenceRuntime::enqueue(detail::StreamObject &stream,
                               std::shared_ptr<detail::FenceObject> fence) {
  {
    std::lock_guard lock(counterMutex);
    ++counters.submissions;
    counters.commands += fence->commands.size();
  }
  runOnHost(stream, *fence);
}

DeviceStatus
ReferenceRuntime::launchOnHost(const detail::ExecutableObject &object,
                               uint32_t kernel, const LaunchConfig &,
                               std::span<void *const> buffers) {
  const auto &executable = static_cast<const ReferenceExecutable &>(object);
  const ReferenceKernel &loaded = executable.kernels[kernel];
  TensorBindings bindings;
  for (size_t i = 0; i < buffers.size(); ++i) {
    TensorId tensor = loaded.bindingTensors[i];
    bindings[tensor] = HostTensor{executable.graph.typeOf(tensor), buffers[i]};
  }
  if (Status status = evaluateOps(executable.graph, loaded.ops, bindings);
      !status.ok())
    return Error{ErrorCode::KernelFailed,
                 "reference evaluation failed: " + status.message()};
  std::lock_guard lock(counterMutex);
  ++counters.launches;
  counters.opsExecuted += loaded.ops.size();
  return DeviceStatus();
}

} // namespace fuse::device
