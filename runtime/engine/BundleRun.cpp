//===- BundleRun.cpp - Running a loaded bundle over a block's inputs ------===//
//
// SessionState::run: the buffers a run needs (uploads, outputs, in place,
// the arena), one command batch that fills them and launches the kernels,
// one fence, and the outputs it leaves on the device.
//
//===----------------------------------------------------------------------===//

#include "runtime/device/BundleLaunch.h"
#include "runtime/engine/InPlace.h"
#include "runtime/engine/SessionState.h"

#include <algorithm>

namespace fuse::engine {

namespace {

/// Zero-sized tensors still get a buffer, so every binding has one.
std::uint64_t allocationBytes(std::uint64_t bytes) {
  return std::max<std::uint64_t>(bytes, 1);
}

Status deviceError(const device::Error &error) {
  return Status::error(error.message);
}

/// One run of a loaded bundle over a block's inputs: the buffers it binds
/// and the batch that fills them and launches the kernels.
class BundleRun {
public:
  BundleRun(device::DeviceRuntime &runtime, const LoadedBundle &loaded,
            const std::vector<StoragePtr> &inputs)
      : runtime(runtime), loaded(loaded), bundle(loaded.bundle),
        inputs(inputs) {}

  /// Which inputs to upload and which outputs to write in place (only
  /// where `allowInPlace`); returns the bytes to reserve.
  std::uint64_t planBuffers(bool allowInPlace);
  /// Reserves `total` bytes, allocates every buffer and encodes the
  /// uploads, copies and launches.
  Status encode(std::uint64_t total);
  device::CommandBatch takeBatch() { return std::move(batch); }
  std::uint64_t inPlaceCount() const { return inPlaceOutputs; }
  /// Whether the bound part of an outgrown kept arena was copied.
  bool copiedOutgrown() const { return outgrownCopied; }
  std::uint64_t kernelCount() const { return launched; }
  /// After the batch ran: the uploads stay on the device for later blocks,
  /// the arena is kept for the next run where it holds a bound part, and
  /// the outputs become storages.
  std::vector<StoragePtr> finish();

private:
  std::uint64_t tensorBytes(TensorId tensor) const {
    return std::uint64_t(bundle.graph.typeOf(tensor).byteSize());
  }
  Status add(device::DeviceResult<device::Command> command);
  Status allocate(std::uint64_t bytes, device::Buffer &buffer);
  Status encodeUploads();
  Status encodeOutputs();
  /// The input that output `o` starts as a copy of: an input unchanged, or
  /// one the kernels write in place over.
  std::optional<std::uint32_t> copySource(std::size_t o) const;
  Status encodeLaunches();
  /// Takes the arena a finished run left (LoadedBundle::bound): the
  /// per-binding kernels are skipped when it was bound to these storages.
  void takeBoundArena();

  device::DeviceRuntime &runtime;
  const LoadedBundle &loaded;
  const Bundle &bundle;
  const std::vector<StoragePtr> &inputs;
  std::optional<device::AllocationPermit> permit;
  device::CommandBatch batch;
  std::vector<device::Buffer> inputBuffers;
  std::vector<bool> uploading;
  std::vector<std::optional<std::uint32_t>> aliasOf;
  std::vector<std::optional<std::uint32_t>> inPlace;
  std::vector<device::Buffer> boundInputs;
  std::vector<device::Buffer> outputBuffers;
  device::Buffer arena;
  bool arenaKept = false;
  bool outgrownCopied = false;
  /// A kept arena too small for this binding whose bound part is valid: it
  /// is copied into the new arena before the launches.
  device::Buffer outgrown;
  device::Launches which = device::Launches::All;
  std::span<const std::uint32_t> perBindingToo;
  std::uint64_t launched = 0;
  std::uint64_t inPlaceOutputs = 0;
};

void BundleRun::takeBoundArena() {
  std::optional<BoundArena> kept;
  {
    std::lock_guard<std::mutex> lock(loaded.boundMutex);
    kept.swap(loaded.bound);
  }
  if (!kept)
    return;
  bool sameInputs = true;
  for (const BundleKernel &kernel : bundle.kernels)
    for (std::uint32_t i : kernel.bindingInputs)
      sameInputs = sameInputs && kept->inputs[i].lock() == inputs[i];
  // One kept by another binding of the same code may be too small: a new
  // arena is allocated, and its bound part copied there where it holds
  // what these inputs give.
  if (kept->arena.size() >= bundle.memoryPlan.peakBytes) {
    arena = std::move(kept->arena);
    arenaKept = true;
  } else if (sameInputs) {
    outgrown = std::move(kept->arena);
  }
  if (!sameInputs)
    return;
  which = device::Launches::PerRun;
  // Kept by a binding of other dims: what depends on them is stale.
  if (kept->otherDims)
    perBindingToo = loaded.dimsDependent;
}

std::uint64_t BundleRun::planBuffers(bool allowInPlace) {
  // Inputs already on the device are bound as they are; the others (uploads
  // seen for the first time) are uploaded in this batch.
  inputBuffers.resize(inputs.size());
  uploading.assign(inputs.size(), false);
  if (loaded.hasPerBindingKernels)
    takeBoundArena();
  std::uint64_t total = arenaKept ? 0 : loaded.arenaBytes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    inputBuffers[i] = inputs[i]->deviceBuffer();
    if (!inputBuffers[i].valid()) {
      uploading[i] = true;
      total += allocationBytes(inputs[i]->bytes);
    }
  }
  // Every output gets a fresh buffer; an output the kernels write in place
  // over an input gets a copy of that input, so the input tensor (which
  // other handles may share) is never overwritten.
  aliasOf.assign(bundle.outputs.size(), std::nullopt);
  for (const OutputAlias &alias : bundle.aliases)
    aliasOf[alias.output] = alias.input;
  // An input no handle refers to any more (this block holds the only
  // reference to its storage: nobody can reach it again) may have an
  // output written over it, where planInPlace finds that safe.
  inPlace.assign(bundle.outputs.size(), std::nullopt);
  if (allowInPlace) {
    std::vector<bool> exclusive(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      exclusive[i] = inputs[i].use_count() == 1;
    inPlace = planInPlace(bundle, exclusive);
  }
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o)
    if (!inPlace[o])
      total += allocationBytes(tensorBytes(bundle.outputs[o]));
  return total;
}

Status BundleRun::add(device::DeviceResult<device::Command> command) {
  if (!command.ok())
    return deviceError(command.error());
  batch.add(std::move(*command));
  return Status::success();
}

Status BundleRun::allocate(std::uint64_t bytes, device::Buffer &buffer) {
  device::DeviceResult<device::Buffer> allocated =
      runtime.allocate(*permit, bytes);
  if (!allocated.ok())
    return deviceError(allocated.error());
  buffer = std::move(*allocated);
  return Status::success();
}

Status BundleRun::encode(std::uint64_t total) {
  device::DeviceResult<device::AllocationPermit> reserved =
      runtime.reserve(total);
  if (!reserved.ok())
    return deviceError(reserved.error());
  permit.emplace(std::move(*reserved));
  if (Status status = encodeUploads(); !status.ok())
    return status;
  boundInputs = inputBuffers;
  if (Status status = encodeOutputs(); !status.ok())
    return status;
  if (loaded.arenaBytes && !arenaKept)
    if (Status status = allocate(loaded.arenaBytes, arena); !status.ok())
      return status;
  if (outgrown.valid() && bundle.memoryPlan.boundBytes) {
    if (Status status = add(runtime.encodeCopy(
            outgrown, arena,
            device::CopyRegion{
                0, 0,
                std::min(outgrown.size(), bundle.memoryPlan.boundBytes)}));
        !status.ok())
      return status;
    outgrownCopied = true;
  }
  return encodeLaunches();
}

Status BundleRun::encodeUploads() {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!uploading[i])
      continue;
    if (Status status =
            allocate(allocationBytes(inputs[i]->bytes), inputBuffers[i]);
        !status.ok())
      return status;
    if (inputs[i]->bytes)
      if (Status status = add(runtime.encodeUpload(
              std::as_bytes(std::span(*inputs[i]->host)), inputBuffers[i], 0));
          !status.ok())
        return status;
  }
  return Status::success();
}

std::optional<std::uint32_t> BundleRun::copySource(std::size_t o) const {
  if (aliasOf[o])
    return aliasOf[o];
  auto input =
      std::find(bundle.inputs.begin(), bundle.inputs.end(), bundle.outputs[o]);
  if (input != bundle.inputs.end())
    return std::uint32_t(input - bundle.inputs.begin());
  return std::nullopt;
}

Status BundleRun::encodeOutputs() {
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    std::uint64_t bytes = tensorBytes(bundle.outputs[o]);
    if (inPlace[o]) {
      outputBuffers.push_back(inputBuffers[*inPlace[o]]);
      ++inPlaceOutputs;
      continue;
    }
    outputBuffers.emplace_back();
    if (Status status = allocate(allocationBytes(bytes), outputBuffers[o]);
        !status.ok())
      return status;
    std::optional<std::uint32_t> source = copySource(o);
    if (!source)
      continue;
    if (bytes)
      if (Status status =
              add(runtime.encodeCopy(inputBuffers[*source], outputBuffers[o],
                                     device::CopyRegion{0, 0, bytes}));
          !status.ok())
        return status;
    if (aliasOf[o])
      boundInputs[*source] = outputBuffers[o];
  }
  return Status::success();
}

Status BundleRun::encodeLaunches() {
  if (device::DeviceStatus status = device::encodeBundleLaunches(
          runtime, bundle, loaded.executable,
          {boundInputs, outputBuffers, arena}, batch, which, perBindingToo);
      !status.ok())
    return deviceError(status.error());
  for (std::uint32_t k : bundle.launchOrder)
    launched += device::launches(bundle, k, which, perBindingToo);
  return Status::success();
}

std::vector<StoragePtr> BundleRun::finish() {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (uploading[i])
      inputs[i]->setBufferIfNone(inputBuffers[i]);
  if (loaded.hasPerBindingKernels && arena.valid()) {
    BoundArena kept{std::move(arena), {}};
    kept.inputs.assign(inputs.begin(), inputs.end());
    std::lock_guard<std::mutex> lock(loaded.boundMutex);
    loaded.bound = std::move(kept);
  }
  std::vector<StoragePtr> outputs;
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    auto storage = std::make_shared<Storage>();
    storage->bytes = tensorBytes(bundle.outputs[o]);
    storage->buffer = std::move(outputBuffers[o]);
    outputs.push_back(std::move(storage));
  }
  return outputs;
}

/// After a failed run: a failure never poisons the stream, so reset it, or
/// let it go (the next run starts a new one).
void recoverStream(device::DeviceRuntime &runtime, RecordingStream &stream) {
  if (std::holds_alternative<device::StreamFailed>(
          runtime.streamState(*stream.deviceStream)))
    if (!runtime.resetStream(*stream.deviceStream).ok()) {
      stream.deviceStream.reset();
      stream.hasDeviceStream = false;
    }
}

} // namespace

Expected<std::vector<StoragePtr>>
SessionState::run(RecordingStream &stream, const LoadedBundle &loaded,
                  const std::vector<StoragePtr> &inputs) {
  if (Status status = ensureDeviceStream(stream); !status.ok())
    return status;
  const Bundle &bundle = loaded.bundle;
  if (inputs.size() != bundle.inputs.size())
    return Status::error(
        "the bundle takes " + std::to_string(bundle.inputs.size()) +
        " inputs, the block has " + std::to_string(inputs.size()));
  BundleRun bundleRun(*runtime, loaded, inputs);
  std::uint64_t total = bundleRun.planBuffers(kind == device::DeviceKind::Host);
  if (Status status = bundleRun.encode(total); !status.ok())
    return status;

  // One batch, one fence.
  Clock::time_point start = Clock::now();
  device::DeviceStatus ran = device::submitAndWait(
      *runtime, *stream.deviceStream, bundleRun.takeBatch());
  auto elapsed = Clock::now() - start;
  count([&](EngineCounters &c) {
    c.runTime += elapsed;
    ++c.submissions;
    c.kernelsLaunched += bundleRun.kernelCount();
    c.inPlaceOutputs += bundleRun.inPlaceCount();
    c.arenasOutgrown += bundleRun.copiedOutgrown() ? 1 : 0;
  });
  if (!ran.ok()) {
    recoverStream(*runtime, stream);
    return Status::error("running the bundle failed: " + ran.error().message);
  }
  return bundleRun.finish();
}

} // namespace fuse::engine
