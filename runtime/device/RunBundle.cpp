//===- RunBundle.cpp - Executes a bundle on a device runtime --------------===//

#include "runtime/device/RunBundle.h"

#include "runtime/cache/ArenaPlanner.h"
#include "runtime/cache/Bundle.h"
#include "runtime/cache/SymbolicBundle.h"
#include "runtime/device/BundleLaunch.h"
#include "runtime/ir/Interpreter.h"

#include <algorithm>
#include <type_traits>

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

DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          std::span<const TensorBytes> inputs,
          std::span<const std::vector<int64_t>> inputShapes,
          std::chrono::nanoseconds timeout) {
  if (!bundle.isSymbolic())
    return runBundle(runtime, bundle, inputs, timeout);
  Expected<DimBindings> dims = dimsFromInputShapes(bundle.graph, inputShapes);
  if (!dims.ok())
    return Error{ErrorCode::InvalidArgument, dims.message()};
  Expected<Bundle> bound = bindBundle(bundle, *dims);
  if (!bound.ok())
    return Error{ErrorCode::InvalidArgument, bound.message()};
  return runBundle(runtime, *bound, inputs, timeout);
}

static uint64_t tensorBytes(const Bundle &bundle, TensorId tensor) {
  return uint64_t(bundle.graph.typeOf(tensor).byteSize());
}

struct PreparedBundle::Buffers {
  std::vector<Buffer> inputs, outputs;
  Buffer arena;
  /// The input an output is written over in place, if any.
  std::vector<std::optional<uint32_t>> aliasOf;
  /// The earlier output of the same tensor (a graph that returns one value
  /// twice), whose buffer this output shares, if any.
  std::vector<std::optional<uint32_t>> sameAs;
  /// Per input: its buffer is the caller's memory, read in place (nothing to
  /// upload).
  std::vector<bool> borrowed;
  /// Per kernel: a per-binding kernel whose inputs were bound since it last
  /// ran (PreparedBundle::run launches it). Shared by copies of a
  /// PreparedBundle, as the buffers are.
  std::vector<bool> bindingStale;
};

namespace {

using Buffers = PreparedBundle::Buffers;
using InputViews = std::vector<std::span<const std::byte>>;

template <class Input> InputViews viewsOf(std::span<const Input> inputs) {
  InputViews views;
  for (const Input &input : inputs) {
    if constexpr (std::is_same_v<Input, SharedInput>)
      views.push_back(input.bytes);
    else
      views.push_back(input);
  }
  return views;
}

DeviceStatus checkInputs(const Bundle &bundle,
                         std::span<const std::span<const std::byte>> inputs) {
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
  // Gather indices that are inputs (token ids, through reshapes and casts)
  // are checked here, before anything runs: an index out of range fails the
  // run naming the op and the index.
  TensorBindings views;
  for (size_t i = 0; i < inputs.size(); ++i)
    views.emplace(bundle.inputs[i],
                  HostTensor{bundle.graph.typeOf(bundle.inputs[i]),
                             const_cast<std::byte *>(inputs[i].data())});
  if (Status indices = checkGatherIndexInputs(bundle.graph, views);
      !indices.ok())
    return Error{ErrorCode::InvalidArgument, indices.message()};
  return DeviceStatus();
}

/// Per input: a buffer over the caller's memory where `shared` gives the
/// input's owner, the runtime reads host memory and no kernel writes the
/// input in place; otherwise none (it gets a buffer of its own).
DeviceResult<std::vector<Buffer>>
borrowInputs(DeviceRuntime &runtime, const Bundle &bundle,
             std::span<const SharedInput> shared) {
  std::vector<Buffer> borrowed(bundle.inputs.size());
  for (size_t i = 0; i < shared.size() && i < borrowed.size(); ++i) {
    bool writtenInPlace =
        std::any_of(bundle.aliases.begin(), bundle.aliases.end(),
                    [&](const OutputAlias &alias) { return alias.input == i; });
    if (!shared[i].owner || shared[i].bytes.empty() || writtenInPlace)
      continue;
    DeviceResult<Buffer> buffer =
        runtime.borrowHostMemory(shared[i].owner, shared[i].bytes);
    if (!buffer.ok() && buffer.error().code == ErrorCode::Unsupported)
      return std::vector<Buffer>(bundle.inputs.size());
    if (!buffer.ok())
      return buffer.error();
    borrowed[i] = std::move(*buffer);
  }
  return borrowed;
}

/// The bundle's buffers: `borrowed` inputs (borrowInputs) as given, every
/// other input, output and the arena allocated, each input and output
/// `guardBytes` longer than its tensor (runBundleGuarded).
DeviceResult<std::shared_ptr<Buffers>>
allocateBuffers(DeviceRuntime &runtime, const Bundle &bundle,
                std::vector<Buffer> borrowed, uint64_t guardBytes = 0) {
  // Zero-sized tensors still get a buffer, so every binding has one.
  auto allocationBytes = [guardBytes](uint64_t bytes) {
    return std::max<uint64_t>(bytes + guardBytes, 1);
  };
  auto buffers = std::make_shared<Buffers>();
  buffers->bindingStale.assign(bundle.kernels.size(), true);
  buffers->aliasOf.resize(bundle.outputs.size());
  for (const OutputAlias &alias : bundle.aliases)
    buffers->aliasOf[alias.output] = alias.input;
  // An output listed twice is one buffer: whichever of its positions a
  // kernel binds, both read back what it wrote.
  buffers->sameAs.resize(bundle.outputs.size());
  for (size_t o = 0; o < bundle.outputs.size(); ++o)
    for (size_t p = 0; p < o && !buffers->sameAs[o]; ++p)
      if (bundle.outputs[p] == bundle.outputs[o])
        buffers->sameAs[o] = uint32_t(p);
  for (const Buffer &buffer : borrowed)
    buffers->borrowed.push_back(buffer.valid());
  uint64_t total = 0;
  for (size_t i = 0; i < bundle.inputs.size(); ++i)
    if (!buffers->borrowed[i])
      total += allocationBytes(tensorBytes(bundle, bundle.inputs[i]));
  for (size_t o = 0; o < bundle.outputs.size(); ++o)
    if (!buffers->aliasOf[o] && !buffers->sameAs[o])
      total += allocationBytes(tensorBytes(bundle, bundle.outputs[o]));
  if (bundle.memoryPlan.peakBytes)
    total += bundle.memoryPlan.peakBytes;

  DeviceResult<AllocationPermit> permit = runtime.reserve(total);
  if (!permit.ok())
    return permit.error();
  for (size_t i = 0; i < bundle.inputs.size(); ++i) {
    if (buffers->borrowed[i]) {
      buffers->inputs.push_back(std::move(borrowed[i]));
      continue;
    }
    DeviceResult<Buffer> buffer = runtime.allocate(
        *permit, allocationBytes(tensorBytes(bundle, bundle.inputs[i])));
    if (!buffer.ok())
      return buffer.error();
    buffers->inputs.push_back(std::move(*buffer));
  }
  for (size_t o = 0; o < bundle.outputs.size(); ++o) {
    if (buffers->sameAs[o]) {
      buffers->outputs.push_back(buffers->outputs[*buffers->sameAs[o]]);
      continue;
    }
    if (buffers->aliasOf[o]) {
      buffers->outputs.push_back(buffers->inputs[*buffers->aliasOf[o]]);
      continue;
    }
    DeviceResult<Buffer> buffer = runtime.allocate(
        *permit, allocationBytes(tensorBytes(bundle, bundle.outputs[o])));
    if (!buffer.ok())
      return buffer.error();
    buffers->outputs.push_back(std::move(*buffer));
  }
  if (bundle.memoryPlan.peakBytes) {
    DeviceResult<Buffer> buffer =
        runtime.allocate(*permit, bundle.memoryPlan.peakBytes);
    if (!buffer.ok())
      return buffer.error();
    buffers->arena = std::move(*buffer);
  }
  return buffers;
}

DeviceStatus add(CommandBatch &batch, DeviceResult<Command> command) {
  if (!command.ok())
    return command.error();
  batch.add(std::move(*command));
  return DeviceStatus();
}

DeviceStatus encodeUpload(DeviceRuntime &runtime, const Buffers &buffers,
                          uint32_t input, std::span<const std::byte> bytes,
                          CommandBatch &batch) {
  if (bytes.empty() || buffers.borrowed[input])
    return DeviceStatus();
  return add(batch, runtime.encodeUpload(bytes, buffers.inputs[input], 0));
}

/// The one way a run starts: `inputs` checked against the bundle, its
/// buffers allocated (those of the `shared` inputs it can read in place
/// borrowed) and every other input's upload encoded in `batch`.
DeviceResult<std::shared_ptr<Buffers>>
stageInputs(DeviceRuntime &runtime, const Bundle &bundle,
            std::span<const std::span<const std::byte>> inputs,
            std::span<const SharedInput> shared, CommandBatch &batch,
            uint64_t guardBytes = 0) {
  if (DeviceStatus status = checkInputs(bundle, inputs); !status.ok())
    return status.error();
  DeviceResult<std::vector<Buffer>> borrowed =
      borrowInputs(runtime, bundle, shared);
  if (!borrowed.ok())
    return borrowed.error();
  DeviceResult<std::shared_ptr<Buffers>> buffers =
      allocateBuffers(runtime, bundle, std::move(*borrowed), guardBytes);
  if (!buffers.ok())
    return buffers.error();
  for (uint32_t i = 0; i < inputs.size(); ++i)
    if (DeviceStatus status =
            encodeUpload(runtime, **buffers, i, inputs[i], batch);
        !status.ok())
      return status.error();
  return buffers;
}

/// The uploads of the inputs a run writes over in place (PreparedBundle's
/// aliased inputs), encoded again before each run.
DeviceStatus encodeAliasedUploads(
    DeviceRuntime &runtime, const Buffers &buffers,
    std::span<const std::pair<uint32_t, TensorBytes>> aliasedInputs,
    CommandBatch &batch) {
  for (const auto &[input, bytes] : aliasedInputs)
    if (DeviceStatus status =
            encodeUpload(runtime, buffers, input, bytes, batch);
        !status.ok())
      return status;
  return DeviceStatus();
}

/// Copies of inputs that are also outputs (not aliased) into the outputs.
DeviceStatus encodeOutputCopies(DeviceRuntime &runtime, const Bundle &bundle,
                                const Buffers &buffers, CommandBatch &batch) {
  for (size_t o = 0; o < bundle.outputs.size(); ++o) {
    auto input = std::find(bundle.inputs.begin(), bundle.inputs.end(),
                           bundle.outputs[o]);
    uint64_t bytes = tensorBytes(bundle, bundle.outputs[o]);
    if (input == bundle.inputs.end() || buffers.aliasOf[o] ||
        buffers.sameAs[o] || bytes == 0)
      continue;
    if (DeviceStatus status = add(
            batch,
            runtime.encodeCopy(buffers.inputs[input - bundle.inputs.begin()],
                               buffers.outputs[o], CopyRegion{0, 0, bytes}));
        !status.ok())
      return status;
  }
  return DeviceStatus();
}

/// The launch of kernel `k` with its bindings resolved to buffers.
DeviceStatus encodeLaunchOf(DeviceRuntime &runtime, const Bundle &bundle,
                            const Executable &executable,
                            const Buffers &buffers, uint32_t k,
                            CommandBatch &batch) {
  return add(batch, encodeBundleLaunch(
                        runtime, bundle, executable,
                        {buffers.inputs, buffers.outputs, buffers.arena}, k));
}

/// The copies of outputs that are inputs unchanged (no kernel writes them),
/// then every launch in the bundle's order.
DeviceStatus encodeKernels(DeviceRuntime &runtime, const Bundle &bundle,
                           const Executable &executable, const Buffers &buffers,
                           CommandBatch &batch) {
  if (DeviceStatus status = encodeOutputCopies(runtime, bundle, buffers, batch);
      !status.ok())
    return status;
  return encodeBundleLaunches(runtime, bundle, executable,
                              {buffers.inputs, buffers.outputs, buffers.arena},
                              batch);
}

DeviceResult<std::vector<TensorBytes>> readBack(DeviceRuntime &runtime,
                                                Stream &stream,
                                                const Bundle &bundle,
                                                const Buffers &buffers) {
  std::vector<TensorBytes> outputs(bundle.outputs.size());
  for (size_t o = 0; o < bundle.outputs.size(); ++o) {
    uint64_t bytes = tensorBytes(bundle, bundle.outputs[o]);
    if (!bytes)
      continue;
    DeviceResult<std::vector<std::byte>> data =
        runtime.readback(stream, buffers.outputs[o], 0, bytes);
    if (!data.ok())
      return data.error();
    outputs[o] = std::move(*data);
  }
  return outputs;
}

/// The inputs staged into fresh buffers and, given an executable, the
/// bundle's kernels after them (encodeKernels), as one batch submitted and
/// waited for.
DeviceResult<std::shared_ptr<Buffers>> stageAndSubmit(
    DeviceRuntime &runtime, const Bundle &bundle, const Executable *executable,
    Stream &stream, std::span<const std::span<const std::byte>> inputs,
    std::span<const SharedInput> shared, std::chrono::nanoseconds timeout) {
  CommandBatch batch;
  DeviceResult<std::shared_ptr<Buffers>> buffers =
      stageInputs(runtime, bundle, inputs, shared, batch);
  if (!buffers.ok())
    return buffers.error();
  if (executable)
    if (DeviceStatus status =
            encodeKernels(runtime, bundle, *executable, **buffers, batch);
        !status.ok())
      return status.error();
  if (DeviceStatus status =
          submitAndWait(runtime, stream, std::move(batch), timeout);
      !status.ok())
    return status.error();
  return buffers;
}

} // namespace

DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          const Executable &executable, Stream &stream,
          std::span<const TensorBytes> inputs,
          std::chrono::nanoseconds timeout) {
  InputViews views = viewsOf(inputs);
  DeviceResult<std::shared_ptr<Buffers>> buffers =
      stageAndSubmit(runtime, bundle, &executable, stream, views, {}, timeout);
  if (!buffers.ok())
    return buffers.error();
  return readBack(runtime, stream, bundle, **buffers);
}

/// PreparedBundle::prepare of `inputs`, reading the `shared` ones in place
/// where it can.
DeviceResult<PreparedBundle> PreparedBundle::prepareViews(
    DeviceRuntime &runtime, const Bundle &bundle, const Executable &executable,
    Stream &stream, std::span<const std::span<const std::byte>> inputs,
    std::span<const SharedInput> shared, std::chrono::nanoseconds timeout) {
  // The inputs only: run() encodes the kernels each time.
  DeviceResult<std::shared_ptr<Buffers>> buffers =
      stageAndSubmit(runtime, bundle, nullptr, stream, inputs, shared, timeout);
  if (!buffers.ok())
    return buffers.error();
  PreparedBundle prepared;
  prepared.runtime = &runtime;
  prepared.bundle = &bundle;
  prepared.executable = &executable;
  prepared.stream = &stream;
  prepared.buffers = std::move(*buffers);
  for (const OutputAlias &alias : bundle.aliases)
    prepared.aliasedInputs.emplace_back(
        alias.input,
        TensorBytes(inputs[alias.input].begin(), inputs[alias.input].end()));
  return prepared;
}

DeviceResult<PreparedBundle>
PreparedBundle::prepare(DeviceRuntime &runtime, const Bundle &bundle,
                        const Executable &executable, Stream &stream,
                        std::span<const TensorBytes> inputs,
                        std::chrono::nanoseconds timeout) {
  InputViews views = viewsOf(inputs);
  return prepareViews(runtime, bundle, executable, stream, views, {}, timeout);
}

DeviceResult<PreparedBundle>
PreparedBundle::prepare(DeviceRuntime &runtime, const Bundle &bundle,
                        const Executable &executable, Stream &stream,
                        std::span<const SharedInput> inputs,
                        std::chrono::nanoseconds timeout) {
  InputViews views = viewsOf(inputs);
  return prepareViews(runtime, bundle, executable, stream, views, inputs,
                      timeout);
}

DeviceStatus PreparedBundle::run(std::chrono::nanoseconds timeout) {
  CommandBatch batch;
  if (DeviceStatus status =
          encodeAliasedUploads(*runtime, *buffers, aliasedInputs, batch);
      !status.ok())
    return status;
  if (DeviceStatus status =
          encodeOutputCopies(*runtime, *bundle, *buffers, batch);
      !status.ok())
    return status;
  // A per-binding kernel runs on the first run after the inputs it reads
  // were bound; later runs read what it left in the arena's bound part.
  std::vector<uint32_t> binding;
  for (uint32_t k : bundle->launchOrder) {
    if (bundle->kernels[k].perBinding && !buffers->bindingStale[k])
      continue;
    if (bundle->kernels[k].perBinding)
      binding.push_back(k);
    if (DeviceStatus status =
            encodeLaunchOf(*runtime, *bundle, *executable, *buffers, k, batch);
        !status.ok())
      return status;
  }
  if (DeviceStatus status =
          submitAndWait(*runtime, *stream, std::move(batch), timeout);
      !status.ok())
    return status;
  for (uint32_t k : binding)
    buffers->bindingStale[k] = false;
  return DeviceStatus();
}

DeviceStatus PreparedBundle::setInput(uint32_t input,
                                      std::span<const std::byte> bytes,
                                      std::chrono::nanoseconds timeout) {
  if (input >= bundle->inputs.size())
    return Error{ErrorCode::InvalidArgument,
                 "input " + std::to_string(input) +
                     " does not exist; the bundle takes " +
                     std::to_string(bundle->inputs.size())};
  TensorId tensor = bundle->inputs[input];
  if (bytes.size() != tensorBytes(*bundle, tensor))
    return Error{ErrorCode::InvalidArgument,
                 "input " + std::to_string(input) + " has " +
                     std::to_string(bytes.size()) + " bytes, its type " +
                     bundle->graph.typeOf(tensor).toString() + " needs " +
                     std::to_string(tensorBytes(*bundle, tensor))};
  TensorBindings view;
  view.emplace(tensor, HostTensor{bundle->graph.typeOf(tensor),
                                  const_cast<std::byte *>(bytes.data())});
  if (Status indices = checkGatherIndexInputs(bundle->graph, view);
      !indices.ok())
    return Error{ErrorCode::InvalidArgument, indices.message()};
  // The caller's memory read in place is never written: the new value gets
  // a buffer of its own, which replaces it only once the upload is done.
  Buffer target = buffers->inputs[input];
  if (buffers->borrowed[input]) {
    uint64_t allocation = std::max<uint64_t>(bytes.size(), 1);
    DeviceResult<AllocationPermit> permit = runtime->reserve(allocation);
    if (!permit.ok())
      return permit.error();
    DeviceResult<Buffer> buffer = runtime->allocate(*permit, allocation);
    if (!buffer.ok())
      return buffer.error();
    target = std::move(*buffer);
  }
  // From here on the input's old value may be partly overwritten: whatever
  // was derived from it is computed again.
  for (uint32_t k = 0; k < bundle->kernels.size(); ++k)
    if (std::find(bundle->kernels[k].bindingInputs.begin(),
                  bundle->kernels[k].bindingInputs.end(),
                  input) != bundle->kernels[k].bindingInputs.end())
      buffers->bindingStale[k] = true;
  if (!bytes.empty()) {
    CommandBatch batch;
    DeviceResult<Command> upload = runtime->encodeUpload(bytes, target, 0);
    if (!upload.ok())
      return upload.error();
    batch.add(std::move(*upload));
    if (DeviceStatus status =
            submitAndWait(*runtime, *stream, std::move(batch), timeout);
        !status.ok())
      return status;
  }
  buffers->inputs[input] = std::move(target);
  buffers->borrowed[input] = false;
  for (auto &[aliased, copy] : aliasedInputs)
    if (aliased == input)
      copy.assign(bytes.begin(), bytes.end());
  return DeviceStatus();
}

DeviceResult<std::vector<std::chrono::nanoseconds>>
PreparedBundle::profileKernels(unsigned runs,
                               std::chrono::nanoseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const std::vector<uint32_t> &order = bundle->launchOrder;
  std::vector<std::vector<std::chrono::nanoseconds>> times(order.size());
  for (unsigned r = 0; r < runs; ++r) {
    CommandBatch first;
    if (DeviceStatus status =
            encodeAliasedUploads(*runtime, *buffers, aliasedInputs, first);
        !status.ok())
      return status.error();
    if (DeviceStatus status =
            encodeOutputCopies(*runtime, *bundle, *buffers, first);
        !status.ok())
      return status.error();
    if (DeviceStatus status =
            submitAndWait(*runtime, *stream, std::move(first), timeout);
        !status.ok())
      return status.error();
    for (size_t i = 0; i < order.size(); ++i) {
      CommandBatch batch;
      if (DeviceStatus status = encodeLaunchOf(*runtime, *bundle, *executable,
                                               *buffers, order[i], batch);
          !status.ok())
        return status.error();
      Clock::time_point start = Clock::now();
      if (DeviceStatus status =
              submitAndWait(*runtime, *stream, std::move(batch), timeout);
          !status.ok())
        return status.error();
      times[i].push_back(Clock::now() - start);
    }
  }
  std::vector<std::chrono::nanoseconds> medians;
  for (std::vector<std::chrono::nanoseconds> &kernel : times) {
    if (kernel.empty()) {
      medians.push_back(std::chrono::nanoseconds(0));
      continue;
    }
    std::sort(kernel.begin(), kernel.end());
    medians.push_back(kernel[kernel.size() / 2]);
  }
  return medians;
}

DeviceResult<std::vector<TensorBytes>> PreparedBundle::readOutputs() {
  return readBack(*runtime, *stream, *bundle, *buffers);
}

MemoryPlan guardedArena(const MemoryPlan &plan) {
  auto alignUp = [](uint64_t x) {
    return (x + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  };
  MemoryPlan guarded = plan;
  guarded.symbolicSlices.clear();
  if (plan.intermediates.empty()) {
    guarded.peakBytes = guarded.boundBytes = 0;
    return guarded;
  }
  auto bound = [&](const ArenaSlice &slice) {
    return slice.offset < plan.boundBytes;
  };
  uint64_t cursor = kGuardBytes;
  auto place = [&](bool inBoundPart) {
    for (size_t i = 0; i < plan.intermediates.size(); ++i) {
      if (bound(plan.intermediates[i]) != inBoundPart)
        continue;
      guarded.intermediates[i].offset = cursor;
      cursor = alignUp(cursor + plan.intermediates[i].bytes) + kGuardBytes;
    }
  };
  place(true);
  guarded.boundBytes = plan.boundBytes ? cursor : 0;
  place(false);
  guarded.peakBytes = cursor;
  return guarded;
}

namespace {

/// One guard of a guarded run: `bytes` at `offset` of a buffer, each
/// `fill`.
struct Guard {
  const Buffer *buffer = nullptr;
  uint64_t offset = 0, bytes = 0;
  std::string where;
  std::byte fill{};
  bool breached = false;
};

/// Guard `g`'s byte: one of 126 values, none kUnwrittenByte, that
/// neighbouring guards do not share, so that a kernel that copies bytes
/// from past one buffer's end to past another's changes the second guard.
/// As f32 each is a negative number near -1e-38 or a NaN.
std::byte guardFill(size_t g) { return std::byte(0x81 + g % 126); }

std::string describeTensor(const Bundle &bundle, const char *kind,
                           uint64_t index, TensorId tensor) {
  return std::string(kind) + " " + std::to_string(index) + " (%" +
         std::to_string(tensor) + ", " +
         bundle.graph.typeOf(tensor).toString() + ")";
}

/// The guards of `buffers` laid out by allocateBuffers with kGuardBytes
/// and guardedArena, and per intermediate the guards before and after it
/// (indices into the result's first).
std::pair<std::vector<Guard>, std::vector<std::pair<size_t, size_t>>>
guardsOf(const Bundle &bundle, const Buffers &buffers) {
  std::vector<Guard> guards;
  for (size_t i = 0; i < bundle.inputs.size(); ++i)
    guards.push_back(
        {&buffers.inputs[i], tensorBytes(bundle, bundle.inputs[i]), kGuardBytes,
         "after " + describeTensor(bundle, "input", i, bundle.inputs[i])});
  for (size_t o = 0; o < bundle.outputs.size(); ++o)
    if (!buffers.aliasOf[o] && !buffers.sameAs[o])
      guards.push_back(
          {&buffers.outputs[o], tensorBytes(bundle, bundle.outputs[o]),
           kGuardBytes,
           "after " + describeTensor(bundle, "output", o, bundle.outputs[o])});
  const std::vector<ArenaSlice> &slices = bundle.memoryPlan.intermediates;
  std::vector<size_t> byOffset(slices.size());
  for (size_t i = 0; i < slices.size(); ++i)
    byOffset[i] = i;
  std::sort(byOffset.begin(), byOffset.end(), [&](size_t a, size_t b) {
    return slices[a].offset < slices[b].offset;
  });
  // The guard before each slice in offset order is the one after the slice
  // before it.
  std::vector<std::pair<size_t, size_t>> around(slices.size());
  uint64_t end = 0;
  std::string after;
  for (size_t i : byOffset) {
    std::string name =
        describeTensor(bundle, "intermediate", i, slices[i].tensor);
    guards.push_back(
        {&buffers.arena, end, slices[i].offset - end,
         after.empty() ? "before " + name : after + " and before " + name});
    around[i].first = guards.size() - 1;
    end = slices[i].offset + slices[i].bytes;
    after = "after " + name;
  }
  for (size_t n = 0; n + 1 < byOffset.size(); ++n)
    around[byOffset[n]].second = around[byOffset[n + 1]].first;
  if (!slices.empty()) {
    guards.push_back(
        {&buffers.arena, end, bundle.memoryPlan.peakBytes - end, after});
    around[byOffset.back()].second = guards.size() - 1;
  }
  for (size_t g = 0; g < guards.size(); ++g)
    guards[g].fill = guardFill(g);
  return {std::move(guards), std::move(around)};
}

/// Reads `guard` back; marks it breached, and answers how many of its
/// bytes changed, when any did.
DeviceResult<uint64_t> readGuard(DeviceRuntime &runtime, Stream &stream,
                                 Guard &guard) {
  if (guard.breached || guard.bytes == 0)
    return uint64_t(0);
  DeviceResult<std::vector<std::byte>> bytes =
      runtime.readback(stream, *guard.buffer, guard.offset, guard.bytes);
  if (!bytes.ok())
    return bytes.error();
  uint64_t changed =
      uint64_t(std::count_if(bytes->begin(), bytes->end(),
                             [&](std::byte b) { return b != guard.fill; }));
  guard.breached = changed != 0;
  return changed;
}

/// The uploads that fill the arena with kUnwrittenByte, then each guard
/// with its byte.
DeviceStatus encodeGuardFills(DeviceRuntime &runtime, const Buffers &buffers,
                              uint64_t arenaBytes,
                              std::span<const Guard> guards,
                              CommandBatch &batch) {
  if (arenaBytes)
    if (DeviceStatus status =
            add(batch, runtime.encodeUpload(
                           std::vector<std::byte>(arenaBytes, kUnwrittenByte),
                           buffers.arena, 0));
        !status.ok())
      return status;
  for (const Guard &guard : guards)
    if (guard.bytes)
      if (DeviceStatus status =
              add(batch, runtime.encodeUpload(
                             std::vector<std::byte>(guard.bytes, guard.fill),
                             *guard.buffer, guard.offset));
          !status.ok())
        return status;
  return DeviceStatus();
}

} // namespace

DeviceResult<GuardedRun>
runBundleGuarded(DeviceRuntime &runtime, const Bundle &bundle,
                 const Executable &executable, Stream &stream,
                 std::span<const std::span<const std::byte>> inputs,
                 std::chrono::nanoseconds timeout) {
  Bundle guarded = bundle;
  guarded.memoryPlan = guardedArena(bundle.memoryPlan);
  CommandBatch batch;
  DeviceResult<std::shared_ptr<Buffers>> staged =
      stageInputs(runtime, guarded, inputs, {}, batch, kGuardBytes);
  if (!staged.ok())
    return staged.error();
  const Buffers &buffers = **staged;
  auto [guards, around] = guardsOf(guarded, buffers);
  if (DeviceStatus status = encodeGuardFills(
          runtime, buffers, guarded.memoryPlan.peakBytes, guards, batch);
      !status.ok())
    return status.error();
  if (DeviceStatus status =
          encodeOutputCopies(runtime, guarded, buffers, batch);
      !status.ok())
    return status.error();
  if (DeviceStatus status =
          submitAndWait(runtime, stream, std::move(batch), timeout);
      !status.ok())
    return status.error();

  GuardedRun run;
  run.guards = guards.size();
  auto check = [&](Guard &guard, const std::string &kernel) -> DeviceStatus {
    DeviceResult<uint64_t> changed = readGuard(runtime, stream, guard);
    if (!changed.ok())
      return changed.error();
    if (*changed)
      run.breaches.push_back({guard.where, kernel, *changed});
    return DeviceStatus();
  };
  for (uint32_t k : guarded.launchOrder) {
    CommandBatch launch;
    if (DeviceStatus status =
            encodeLaunchOf(runtime, guarded, executable, buffers, k, launch);
        !status.ok())
      return status.error();
    if (DeviceStatus status =
            submitAndWait(runtime, stream, std::move(launch), timeout);
        !status.ok())
      return status.error();
    const BundleKernel &kernel = guarded.kernels[k];
    for (const KernelBinding &binding : kernel.bindings) {
      std::vector<size_t> next;
      if (binding.kind == BindingKind::Intermediate)
        next = {around[binding.index].first, around[binding.index].second};
      else
        for (size_t g = 0; g < guards.size(); ++g)
          if (guards[g].buffer == (binding.kind == BindingKind::GraphInput
                                       ? &buffers.inputs[binding.index]
                                       : &buffers.outputs[binding.index]))
            next.push_back(g);
      for (size_t g : next)
        if (DeviceStatus status = check(guards[g], kernel.name); !status.ok())
          return status.error();
    }
  }
  for (Guard &guard : guards)
    if (DeviceStatus status = check(guard, ""); !status.ok())
      return status.error();
  DeviceResult<std::vector<TensorBytes>> outputs =
      readBack(runtime, stream, guarded, buffers);
  if (!outputs.ok())
    return outputs.error();
  run.outputs = std::move(*outputs);
  return run;
}

} // namespace fuse::device
