//===- BundleLaunch.cpp - A bundle's kernels bound and launched -----------===//

#include "runtime/device/BundleLaunch.h"

#include "runtime/cache/Bundle.h"

#include <algorithm>
#include <vector>

namespace fuse::device {

DeviceResult<Command> encodeBundleLaunch(DeviceRuntime &runtime,
                                         const Bundle &bundle,
                                         const Executable &executable,
                                         const BundleBuffers &buffers,
                                         uint32_t k) {
  auto bytesOf = [&](TensorId tensor) {
    return uint64_t(bundle.graph.typeOf(tensor).byteSize());
  };
  const BundleKernel &kernel = bundle.kernels[k];
  std::vector<BufferBinding> bindings;
  for (const KernelBinding &binding : kernel.bindings) {
    switch (binding.kind) {
    case BindingKind::GraphInput:
      bindings.push_back({buffers.inputs[binding.index], 0,
                          bytesOf(bundle.inputs[binding.index])});
      break;
    case BindingKind::GraphOutput:
      bindings.push_back({buffers.outputs[binding.index], 0,
                          bytesOf(bundle.outputs[binding.index])});
      break;
    case BindingKind::Intermediate: {
      const ArenaSlice &slice = bundle.memoryPlan.intermediates[binding.index];
      bindings.push_back({buffers.arena, slice.offset, slice.bytes});
      break;
    }
    }
  }
  return runtime.encodeLaunch(executable, k, kernel.launch,
                              std::move(bindings));
}

bool launches(const Bundle &bundle, uint32_t k, Launches which,
              std::span<const uint32_t> perBindingToo) {
  return which == Launches::All || !bundle.kernels[k].perBinding ||
         std::find(perBindingToo.begin(), perBindingToo.end(), k) !=
             perBindingToo.end();
}

DeviceStatus encodeBundleLaunches(DeviceRuntime &runtime, const Bundle &bundle,
                                  const Executable &executable,
                                  const BundleBuffers &buffers,
                                  CommandBatch &batch, Launches which,
                                  std::span<const uint32_t> perBindingToo) {
  for (uint32_t k : bundle.launchOrder) {
    if (!launches(bundle, k, which, perBindingToo))
      continue;
    DeviceResult<Command> command =
        encodeBundleLaunch(runtime, bundle, executable, buffers, k);
    if (!command.ok())
      return command.error();
    batch.add(std::move(*command));
  }
  return DeviceStatus();
}

DeviceStatus submitAndWait(DeviceRuntime &runtime, Stream &stream,
                           CommandBatch batch,
                           std::chrono::nanoseconds timeout) {
  if (batch.empty())
    return DeviceStatus();
  SubmitResult submitted = runtime.submit(stream, std::move(batch));
  if (!submitted)
    return submitted.error();
  DeviceResult<TerminalReceipt> receipt =
      runtime.waitFence(submitted.fence(), timeout);
  if (!receipt.ok())
    return receipt.error();
  if (const auto *failed = std::get_if<FailedButQuiescent>(&*receipt))
    return failed->error;
  return DeviceStatus();
}

} // namespace fuse::device
