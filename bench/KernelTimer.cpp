//===- KernelTimer.cpp - Times a bundle's kernels alone -------------------===//

#include "bench/KernelTimer.h"

#include "bench/BenchSupport.h"

#include "runtime/device/BundleLaunch.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace fuse::bench {

using Clock = std::chrono::steady_clock;

std::string describe(const device::Error &error) {
  return std::string(device::errorCodeName(error.code)) + ": " + error.message;
}

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

} // namespace

Expected<KernelTiming>
timeKernels(device::DeviceRuntime &runtime, const Bundle &bundle,
            const std::vector<device::TensorBytes> &inputs, unsigned warmup,
            unsigned runs, const KernelTimerOptions &options) {
  unsigned sets = std::max(1u, options.inputSets);
  auto fail = [](const std::string &what, const device::Error &error) {
    return Status::error(what + ": " + describe(error));
  };
  auto bytesOf = [&](TensorId tensor) {
    return std::max<std::uint64_t>(bundle.graph.typeOf(tensor).byteSize(), 1);
  };
  std::vector<std::optional<std::uint32_t>> aliasOf(bundle.outputs.size());
  for (const OutputAlias &alias : bundle.aliases)
    aliasOf[alias.output] = alias.input;
  // Each set has an arena of its own: what the per-binding kernels derive
  // from a set's weights (their packing) is that set's, as the weights are.
  std::uint64_t total = sets * bundle.memoryPlan.peakBytes;
  for (TensorId input : bundle.inputs)
    total += sets * bytesOf(input);
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o)
    if (!aliasOf[o])
      total += bytesOf(bundle.outputs[o]);
  device::DeviceResult<device::AllocationPermit> permit =
      runtime.reserve(total);
  if (!permit.ok())
    return fail("reserve", permit.error());
  auto allocate = [&](std::uint64_t bytes) {
    return runtime.allocate(*permit, bytes);
  };
  // Every set holds the same values at other addresses: rotating through
  // them keeps a cache from holding the inputs between runs.
  std::vector<std::vector<device::Buffer>> inputSets(sets);
  for (std::vector<device::Buffer> &set : inputSets)
    for (TensorId input : bundle.inputs) {
      auto buffer = allocate(bytesOf(input));
      if (!buffer.ok())
        return fail("allocate", buffer.error());
      set.push_back(*buffer);
    }
  std::vector<device::Buffer> outputBuffers;
  const std::vector<device::Buffer> &firstSet = inputSets.front();
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    if (aliasOf[o]) {
      outputBuffers.push_back(firstSet[*aliasOf[o]]);
      continue;
    }
    auto buffer = allocate(bytesOf(bundle.outputs[o]));
    if (!buffer.ok())
      return fail("allocate", buffer.error());
    outputBuffers.push_back(*buffer);
  }
  std::vector<device::Buffer> arenas(sets);
  if (bundle.memoryPlan.peakBytes)
    for (device::Buffer &arena : arenas) {
      auto buffer = allocate(bundle.memoryPlan.peakBytes);
      if (!buffer.ok())
        return fail("allocate", buffer.error());
      arena = *buffer;
    }
  device::DeviceResult<device::Executable> executable = runtime.load(bundle);
  if (!executable.ok())
    return fail("load", executable.error());
  device::DeviceResult<device::Stream> stream = runtime.createStream();
  if (!stream.ok())
    return fail("stream", stream.error());

  // The batch's time: the sum of its launches on the device, or the host
  // clock from submit to the fence. Timed batches run in the Kernel timing
  // mode either way, for the time of each launch.
  // Per launch position in the launch order, its times; `launched` maps a
  // batch's launches to those positions.
  std::vector<std::vector<double>> launchMs(bundle.launchOrder.size());
  std::vector<std::size_t> launched;
  auto submitAndWait = [&](device::CommandBatch batch,
                           bool timed) -> Expected<double> {
    if (batch.empty())
      return 0.0;
    Clock::time_point start = Clock::now();
    device::SubmitResult submitted = runtime.submit(*stream, std::move(batch));
    if (!submitted)
      return fail("submit", submitted.error());
    auto receipt =
        runtime.waitFence(submitted.fence(), std::chrono::minutes(10));
    double hostMs = msSince(start);
    if (!receipt.ok())
      return fail("wait", receipt.error());
    if (const auto *failed = std::get_if<device::FailedButQuiescent>(&*receipt))
      return fail("run", failed->error);
    if (!timed)
      return hostMs;
    auto timing = runtime.submissionTiming(submitted.fence());
    if (!timing.ok())
      return fail("timing", timing.error());
    double sum = 0;
    for (std::size_t i = 0; i < timing->launches.size(); ++i) {
      double ms = std::chrono::duration<double, std::milli>(timing->launches[i])
                      .count();
      if (i < launched.size())
        launchMs[launched[i]].push_back(ms);
      sum += ms;
    }
    return options.deviceTime ? sum : hostMs;
  };

  device::CommandBatch upload;
  for (const std::vector<device::Buffer> &set : inputSets)
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].empty())
        continue;
      auto command = runtime.encodeUpload(inputs[i], set[i], 0);
      if (!command.ok())
        return fail("upload", command.error());
      upload.add(std::move(*command));
    }
  if (Expected<double> uploaded = submitAndWait(std::move(upload), false);
      !uploaded.ok())
    return uploaded.status();
  runtime.setTimingMode(device::TimingMode::Kernel);

  auto kernelBatch =
      [&](unsigned set,
          device::Launches which) -> Expected<device::CommandBatch> {
    const std::vector<device::Buffer> &inputBuffers = inputSets[set];
    device::CommandBatch batch;
    // An output that is an input unchanged is produced by no kernel.
    for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
      auto input = std::find(bundle.inputs.begin(), bundle.inputs.end(),
                             bundle.outputs[o]);
      if (input == bundle.inputs.end() || aliasOf[o])
        continue;
      auto command = runtime.encodeCopy(
          inputBuffers[input - bundle.inputs.begin()], outputBuffers[o],
          device::CopyRegion{0, 0, bytesOf(bundle.outputs[o])});
      if (!command.ok())
        return fail("copy", command.error());
      batch.add(std::move(*command));
    }
    if (device::DeviceStatus status = device::encodeBundleLaunches(
            runtime, bundle, *executable,
            {inputBuffers, outputBuffers, arenas[set]}, batch, which);
        !status.ok())
      return fail("launch", status.error());
    launched.clear();
    for (std::size_t i = 0; i < bundle.launchOrder.size(); ++i)
      if (device::launches(bundle, bundle.launchOrder[i], which))
        launched.push_back(i);
    return batch;
  };

  // Each set's binding first: every launch, the per-binding kernels' times
  // (a weight's packing) kept, as the runs that follow never launch them.
  for (unsigned set = 0; set < sets; ++set) {
    Expected<device::CommandBatch> batch =
        kernelBatch(set, device::Launches::All);
    if (!batch.ok())
      return batch.status();
    if (Expected<double> ms = submitAndWait(batch.take(), true); !ms.ok())
      return ms.status();
  }
  for (std::size_t i = 0; i < launchMs.size(); ++i)
    if (!bundle.kernels[bundle.launchOrder[i]].perBinding)
      launchMs[i].clear();

  // Each phase runs its count, then on until minPhaseMs has passed.
  std::vector<double> times;
  unsigned r = 0;
  for (bool timed : {false, true}) {
    unsigned count = timed ? std::max(runs, 1u) : warmup;
    Clock::time_point start = Clock::now();
    for (unsigned i = 0;
         i < count || (i < 100 * count && msSince(start) < options.minPhaseMs);
         ++i, ++r) {
      // Encoding is outside the timed region: it only records the bindings.
      Expected<device::CommandBatch> batch =
          kernelBatch(r % sets, device::Launches::PerRun);
      if (!batch.ok())
        return batch.status();
      if (timed && options.beforeTimedRun)
        options.beforeTimedRun();
      Expected<double> ms = submitAndWait(batch.take(), true);
      if (!ms.ok())
        return ms.status();
      if (timed)
        times.push_back(*ms);
    }
    if (!timed)
      for (std::size_t i = 0; i < launchMs.size(); ++i)
        if (!bundle.kernels[bundle.launchOrder[i]].perBinding)
          launchMs[i].clear();
  }
  runtime.setTimingMode(device::TimingMode::Off);
  KernelTiming timing;
  timing.minMs = *std::min_element(times.begin(), times.end());
  timing.medianMs = median(times);
  timing.runMs = times;
  for (std::vector<double> &launch : launchMs)
    timing.launchMedianMs.push_back(launch.empty() ? 0.0 : median(launch));
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    auto data =
        runtime.readback(*stream, outputBuffers[o], 0,
                         bundle.graph.typeOf(bundle.outputs[o]).byteSize());
    if (!data.ok())
      return fail("readback", data.error());
    timing.outputs.push_back(std::move(*data));
  }
  return timing;
}

} // namespace fuse::bench
