//===- RunBundle.cpp - Executes a bundle on a device runtime --------------===//

#include "runtime/device/RunBundle.h"

#include "runtime/cache/Bundle.h"

#include <algorithm>

namespace fuse::device {

DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          std::span<const TensorBytes> inputs,
          std::chrono::nanoseconds timeout) {
  DeviceResult<Executable> executable = runtime.load(bundle);
  if (!executable.ok())
    return executable.error();
  DeviceResult<Stream> stream = runtime.createStream();
  if (!stream.ok())
    return stream.error();
  return runBundle(runtime, bundle, *executable, *stream, inputs, timeout);
}

static uint64_t tensorBytes(const Bundle &bundle, TensorId tensor) {
  return uint64_t(bundle.graph.typeOf(tensor).byteSize());
}

DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          const Executable &executable, Stream &stream,
          std::span<const TensorBytes> inputs,
          std::chrono::nanoseconds timeout) {
  if (inputs.size() != bundle.inputs.size())
    return Error{ErrorCode::InvalidArgument,
                 "the bundle takes " + std::to_string(bundle.inputs.size()) +
                     " inputs, got " + std::to_string(inputs.size())};
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].size() != tensorBytes(bundle, bundle.inputs[i]))
      return Error{ErrorCode::InvalidArgument,
                   "input " + std::to_string(i) + " has " +
                       std::to_string(inputs[i].size()) + " bytes, its type " +
                       bundle.graph.typeOf(bundle.inputs[i]).toString() +
                       " needs " +
                       std::to_string(tensorBytes(bundle, bundle.inputs[i]))};

  // Zero-sized tensors still get a buffer, so every binding has one.
  auto allocationBytes = [](uint64_t bytes) {
    return std::max<uint64_t>(bytes, 1);
  };
  std::vector<std::optional<uint32_t>> aliasOf(bundle.outputs.size());
  for (const OutputAlias &alias : bundle.aliases)
    aliasOf[alias.output] = alias.input;
  uint64_t total = 0;
  for (TensorId input : bundle.inputs)
    total += allocationBytes(tensorBytes(bundle, input));
  for (size_t o = 0; o < bundle.outputs.size(); ++o)
    if (!aliasOf[o])
      total += allocationBytes(tensorBytes(bundle, bundle.outputs[o]));
  if (bundle.memoryPlan.peakBytes)
    total += bundle.memoryPlan.peakBytes;

  DeviceResult<AllocationPermit> permit = runtime.reserve(total);
  if (!permit.ok())
    return permit.error();
  std::vector<Buffer> inputBuffers, outputBuffers;
  for (TensorId input : bundle.inputs) {
    DeviceResult<Buffer> buffer =
        runtime.allocate(*permit, allocationBytes(tensorBytes(bundle, input)));
    if (!buffer.ok())
      return buffer.error();
    inputBuffers.push_back(std::move(*buffer));
  }
  for (size_t o = 0; o < bundle.outputs.size(); ++o) {
    if (aliasOf[o]) {
      outputBuffers.push_back(inputBuffers[*aliasOf[o]]);
      continue;
    }
    DeviceResult<Buffer> buffer = runtime.allocate(
        *permit, allocationBytes(tensorBytes(bundle, bundle.outputs[o])));
    if (!buffer.ok())
      return buffer.error();
    outputBuffers.push_back(std::move(*buffer));
  }
  Buffer arena;
  if (bundle.memoryPlan.peakBytes) {
    DeviceResult<Buffer> buffer =
        runtime.allocate(*permit, bundle.memoryPlan.peakBytes);
    if (!buffer.ok())
      return buffer.error();
    arena = std::move(*buffer);
  }

  CommandBatch batch;
  auto add = [&](DeviceResult<Command> command) -> DeviceStatus {
    if (!command.ok())
      return command.error();
    batch.add(std::move(*command));
    return DeviceStatus();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty())
      if (DeviceStatus status =
              add(runtime.encodeUpload(inputs[i], inputBuffers[i], 0));
          !status.ok())
        return status.error();
  // An output that is an input unchanged is produced by no kernel.
  for (size_t o = 0; o < bundle.outputs.size(); ++o) {
    auto input = std::find(bundle.inputs.begin(), bundle.inputs.end(),
                           bundle.outputs[o]);
    uint64_t bytes = tensorBytes(bundle, bundle.outputs[o]);
    if (input == bundle.inputs.end() || aliasOf[o] || bytes == 0)
      continue;
    if (DeviceStatus status =
            add(runtime.encodeCopy(inputBuffers[input - bundle.inputs.begin()],
                                   outputBuffers[o], CopyRegion{0, 0, bytes}));
        !status.ok())
      return status.error();
  }
  for (uint32_t k : bundle.launchOrder) {
    const BundleKernel &kernel = bundle.kernels[k];
    std::vector<BufferBinding> bindings;
    for (const KernelBinding &binding : kernel.bindings) {
      switch (binding.kind) {
      case BindingKind::GraphInput:
        bindings.push_back({inputBuffers[binding.index], 0,
                            tensorBytes(bundle, bundle.inputs[binding.index])});
        break;
      case BindingKind::GraphOutput:
        bindings.push_back(
            {outputBuffers[binding.index], 0,
             tensorBytes(bundle, bundle.outputs[binding.index])});
        break;
      case BindingKind::Intermediate: {
        const ArenaSlice &slice =
            bundle.memoryPlan.intermediates[binding.index];
        bindings.push_back({arena, slice.offset, slice.bytes});
        break;
      }
      }
    }
    if (DeviceStatus status = add(runtime.encodeLaunch(
            executable, k, kernel.launch, std::move(bindings)));
        !status.ok())
      return status.error();
  }

  std::vector<TensorBytes> outputs(bundle.outputs.size());
  if (!batch.empty()) {
    SubmitResult submitted = runtime.submit(stream, std::move(batch));
    if (!submitted)
      return submitted.error();
    DeviceResult<TerminalReceipt> receipt =
        runtime.waitFence(submitted.fence(), timeout);
    if (!receipt.ok())
      return receipt.error();
    if (const auto *failed = std::get_if<FailedButQuiescent>(&*receipt))
      return failed->error;
  }
  for (size_t o = 0; o < bundle.outputs.size(); ++o) {
    uint64_t bytes = tensorBytes(bundle, bundle.outputs[o]);
    if (!bytes)
      continue;
    DeviceResult<std::vector<std::byte>> data =
        runtime.readback(stream, outputBuffers[o], 0, bytes);
    if (!data.ok())
      return data.error();
    outputs[o] = std::move(*data);
  }
  return outputs;
}

} // namespace fuse::device
