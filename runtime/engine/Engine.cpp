//===- Engine.cpp - The lazy tensor API -----------------------------------===//

#include "runtime/engine/Engine.h"

#include "runtime/cache/BundleKey.h"
#ifdef FUSE_HAVE_CUDA_RUNTIME
#include "runtime/device/CudaRuntime.h"
#endif
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"
#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Verifier.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace fuse::engine {

using TensorBytes = std::vector<std::byte>;
using Clock = std::chrono::steady_clock;

struct RecordingStream;

/// The value of a materialized tensor, shared by its handles and by every
/// block that binds it (alias handles: independent entries over one
/// allocation, so dropping one never frees it under another): host bytes
/// for an upload, and a device buffer for a block's result (and for an
/// upload once a block has used it). Immutable once its buffer is set.
struct Storage {
  std::uint64_t bytes = 0;
  std::optional<TensorBytes> host;

  device::Buffer deviceBuffer() const {
    std::lock_guard<std::mutex> lock(mutex);
    return buffer;
  }
  void setBufferIfNone(const device::Buffer &uploaded) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!buffer.valid())
      buffer = uploaded;
  }

  mutable std::mutex mutex;
  device::Buffer buffer;
};
using StoragePtr = std::shared_ptr<Storage>;

/// One tensor: recorded (pending in a stream's block) or materialized (data,
/// or the error that prevented it). Shared by the Tensor handles; the
/// session lives at least as long as its tensors.
struct TensorNode {
  TensorType type;
  std::shared_ptr<SessionState> session;
  /// The stream whose current block computes it; null once materialized.
  /// Cleared (release) after `data` or `error` is set.
  std::atomic<RecordingStream *> pending{nullptr};
  /// Its id in the pending block's graph (guarded by that stream's mutex).
  TensorId localId = kInvalidTensor;
  StoragePtr data;
  std::optional<std::string> error;
};

/// The recording of one thread for one session.
struct RecordingStream {
  explicit RecordingStream(SessionState &session) : session(session) {}

  SessionState &session;
  std::mutex mutex;
  Graph graph;
  /// Per graph input, in order: the buffer it binds (an alias of the
  /// materialized tensor's buffer).
  std::vector<StoragePtr> inputData;
  std::unordered_map<const Storage *, TensorId> inputIds;
  /// Every op result of the block; those still referenced at the sync are
  /// the outputs.
  std::vector<std::pair<TensorId, std::weak_ptr<TensorNode>>> results;
  std::optional<device::Stream> deviceStream;
  /// Read by counters() without the mutex (which a flush may hold while it
  /// calls the warning callback); written under it.
  std::atomic<std::uint64_t> opsRecorded{0};
  std::atomic<bool> hasDeviceStream{false};
  /// Whether the recording thread will retire it at its exit (guarded by
  /// the session's streamsMutex).
  bool registered = false;

  void resetBlock() {
    graph = Graph();
    inputData.clear();
    inputIds.clear();
    results.clear();
  }
};

namespace {

std::atomic<std::uint64_t> nextSessionId{1};
constexpr std::size_t kKeptKeys = 4096;

struct LoadedBundle {
  Bundle bundle;
  device::Executable executable;
};

/// Why findOrLoad failed: the compiler refused (fall back), or anything
/// else (fail).
struct LoadFailure {
  bool compileFailed = false;
  std::string message;
};

std::string describeGraph(const Graph &graph) {
  std::string text = "graph " + hashGraph(graph).toHex() + " (" +
                     std::to_string(graph.ops.size()) + " ops:";
  std::size_t shown = 0;
  for (const Op &op : graph.ops) {
    if (++shown > 8) {
      text += " ...";
      break;
    }
    text += " ";
    text += mnemonic(op.kind);
  }
  return text + ")";
}

/// Whether every op of `graph` is elementwise over operands of its result's
/// shape (unary, binary, compare, select, cast; constants): a kernel of
/// such a graph reads each operand at exactly the index it writes.
bool isSameShapeElementwise(const Graph &graph) {
  for (const Op &op : graph.ops) {
    switch (op.kind) {
#define FUSE_UNARY_OP(Name, mnemonic, TypeRule) case OpKind::Name:
#define FUSE_BINARY_OP(Name, mnemonic, TypeRule) case OpKind::Name:
#include "runtime/ir/Ops.def"
    case OpKind::Compare:
    case OpKind::Select:
    case OpKind::Cast:
    case OpKind::Constant:
      break;
    default:
      return false;
    }
    const std::vector<std::int64_t> &shape = graph.typeOf(op.result()).shape;
    for (TensorId operand : op.operands)
      if (graph.typeOf(operand).shape != shape)
        return false;
  }
  return true;
}

/// In place (free_handle's other half): per output, the input whose buffer
/// it may be written over, where
///   - the device is the host: host kernels carry no no-alias assumption
///     on their buffers (compiler/Host*.cpp marks none), while GPU kernels
///     mark every pointer noalias and read inputs through the non-coherent
///     cache, so they never write in place;
///   - the bundle's graph is same-shape elementwise, and the input and the
///     output are bound by one and the same Pointwise kernel and by no
///     other: that kernel reads each element of the input at exactly the
///     index it writes in the output, in the same iteration, before it
///     writes it, and no later kernel reads the input;
///   - the input has the output's type, is not an output itself, and
///     `exclusive[i]` (nothing but this block holds its storage: every
///     handle to it was dropped).
std::vector<std::optional<std::uint32_t>>
planInPlace(const Bundle &bundle, const std::vector<bool> &exclusive) {
  std::vector<std::optional<std::uint32_t>> inPlace(bundle.outputs.size());
  if (!bundle.aliases.empty() || !isSameShapeElementwise(bundle.graph))
    return inPlace;
  constexpr std::size_t kNone = ~std::size_t(0), kMany = kNone - 1;
  auto note = [&](std::size_t &slot, std::size_t kernel) {
    if (slot == kNone)
      slot = kernel;
    else if (slot != kernel)
      slot = kMany;
  };
  std::vector<std::size_t> inputKernel(bundle.inputs.size(), kNone);
  std::vector<std::size_t> outputKernel(bundle.outputs.size(), kNone);
  for (std::size_t k = 0; k < bundle.kernels.size(); ++k)
    for (const KernelBinding &binding : bundle.kernels[k].bindings) {
      if (binding.kind == BindingKind::GraphInput &&
          binding.index < inputKernel.size())
        note(inputKernel[binding.index], k);
      else if (binding.kind == BindingKind::GraphOutput &&
               binding.index < outputKernel.size())
        note(outputKernel[binding.index], k);
    }
  std::vector<bool> taken(bundle.inputs.size(), false);
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    TensorId output = bundle.outputs[o];
    std::size_t k = outputKernel[o];
    if (k == kNone || k == kMany ||
        bundle.kernels[k].schedule != ScheduleKind::Pointwise ||
        std::find(bundle.inputs.begin(), bundle.inputs.end(), output) !=
            bundle.inputs.end())
      continue;
    for (std::size_t i = 0; i < bundle.inputs.size(); ++i) {
      if (taken[i] || !exclusive[i] || inputKernel[i] != k ||
          !(bundle.graph.typeOf(bundle.inputs[i]) ==
            bundle.graph.typeOf(output)))
        continue;
      inPlace[o] = std::uint32_t(i);
      taken[i] = true;
      break;
    }
  }
  return inPlace;
}

} // namespace

struct SessionState : std::enable_shared_from_this<SessionState> {
  std::uint64_t id = 0;
  SessionOptions options;
  std::string target;
  device::DeviceKind kind = device::DeviceKind::Host;
  std::unique_ptr<device::DeviceRuntime> runtime;

  std::mutex streamsMutex;
  std::map<std::thread::id, std::unique_ptr<RecordingStream>> streams;

  /// Guards loaded, counters (but opsRecorded) and keys; held across a
  /// lookup and compile so that one key compiles once.
  mutable std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const LoadedBundle>> loaded;
  EngineCounters counters;
  std::vector<std::string> keys;
  /// Which device was opened and why (DeviceChoice::Default's choice).
  std::string deviceNote;

  RecordingStream &currentStream();
  /// At the exit of the thread that records into `stream`: syncs it and
  /// lets its device stream go (the small recording state stays, since
  /// other threads may still name it).
  void retireStream(RecordingStream &stream) {
    std::lock_guard<std::mutex> lock(stream.mutex);
    (void)flushLocked(stream);
    stream.deviceStream.reset();
    stream.hasDeviceStream = false;
    stream.registered = false;
  }

  void warn(const std::string &message) {
    if (options.onWarning)
      options.onWarning(message);
    else
      std::cerr << "fuse engine: warning: " << message << "\n";
  }

  template <typename F> void count(F &&update) {
    std::lock_guard<std::mutex> lock(mutex);
    update(counters);
  }

  std::variant<std::shared_ptr<const LoadedBundle>, LoadFailure>
  findOrLoad(const Graph &canonical, const BundleKey &key,
             const std::string &keyHex);
  std::variant<std::shared_ptr<const LoadedBundle>, LoadFailure>
  findOrLoadLocked(const Graph &canonical, const BundleKey &key,
                   const std::string &keyHex, std::string &warning);
  Status ensureDeviceStream(RecordingStream &stream);
  /// The bytes of a storage that lives on the device only.
  Expected<TensorBytes> readBack(const Storage &storage);
  Expected<std::vector<StoragePtr>> run(RecordingStream &stream,
                                        const LoadedBundle &loaded,
                                        const std::vector<StoragePtr> &inputs);
  Expected<std::vector<StoragePtr>>
  execute(RecordingStream &stream, const Graph &graph,
          const std::vector<StoragePtr> &inputs);
  Expected<std::vector<StoragePtr>>
  executeUnfused(RecordingStream &stream, const Graph &graph,
                 const std::vector<StoragePtr> &inputs);
  /// Syncs `stream`: its mutex must be held.
  Status flushLocked(RecordingStream &stream);
  Status flush(RecordingStream &stream) {
    std::lock_guard<std::mutex> lock(stream.mutex);
    return flushLocked(stream);
  }
};

namespace {

/// The streams this thread records into, retired when it exits.
struct ThreadStreams {
  std::vector<std::pair<std::weak_ptr<SessionState>, RecordingStream *>>
      streams;
  ~ThreadStreams() {
    for (auto &[weak, stream] : streams)
      if (std::shared_ptr<SessionState> session = weak.lock())
        session->retireStream(*stream);
  }
};

} // namespace

RecordingStream &SessionState::currentStream() {
  thread_local std::uint64_t cachedSession = 0;
  thread_local RecordingStream *cachedStream = nullptr;
  if (cachedSession == id)
    return *cachedStream;
  thread_local ThreadStreams threadStreams;
  std::lock_guard<std::mutex> lock(streamsMutex);
  std::unique_ptr<RecordingStream> &slot = streams[std::this_thread::get_id()];
  if (!slot)
    slot = std::make_unique<RecordingStream>(*this);
  if (!slot->registered) {
    slot->registered = true;
    threadStreams.streams.emplace_back(weak_from_this(), slot.get());
  }
  cachedSession = id;
  cachedStream = slot.get();
  return *slot;
}

std::variant<std::shared_ptr<const LoadedBundle>, LoadFailure>
SessionState::findOrLoad(const Graph &canonical, const BundleKey &key,
                         const std::string &keyHex) {
  // Warnings go out after the lock is released: the callback may ask the
  // session for its counters.
  std::string warning;
  auto result = findOrLoadLocked(canonical, key, keyHex, warning);
  if (!warning.empty())
    warn(warning);
  return result;
}

std::variant<std::shared_ptr<const LoadedBundle>, LoadFailure>
SessionState::findOrLoadLocked(const Graph &canonical, const BundleKey &key,
                               const std::string &keyHex,
                               std::string &warning) {
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = loaded.find(keyHex); found != loaded.end()) {
    ++counters.sessionHits;
    return found->second;
  }
  std::optional<Bundle> bundle;
  if (options.cache) {
    std::uint64_t diskHitsBefore = options.cache->stats().diskHits;
    bundle = options.cache->lookup(key);
    if (bundle) {
      if (options.cache->stats().diskHits != diskHitsBefore)
        ++counters.diskHits;
      else
        ++counters.memoryHits;
    }
  }
  if (!bundle) {
    ++counters.misses;
    if (!options.compiler)
      return LoadFailure{false, "no compiled bundle for " +
                                    describeGraph(canonical) + " on target " +
                                    target +
                                    " in the cache, and no compiler "
                                    "to make one"};
    Clock::time_point start = Clock::now();
    Expected<Compilation> compiled =
        options.compiler->compile(canonical, Target{target}, key.options);
    counters.compileTime += Clock::now() - start;
    if (!compiled.ok()) {
      ++counters.compileFailures;
      return LoadFailure{true, compiled.message()};
    }
    ++counters.compilations;
    bundle = std::move(compiled->bundle);
    if (options.cache)
      if (Status stored = options.cache->store(key, *bundle); !stored.ok())
        warning = "could not cache the bundle of " + describeGraph(canonical) +
                  ": " + stored.message();
  }
  device::DeviceResult<device::Executable> executable = runtime->load(*bundle);
  if (!executable.ok())
    return LoadFailure{false, "cannot load the bundle of " +
                                  describeGraph(canonical) + ": " +
                                  executable.error().message};
  auto entry = std::make_shared<LoadedBundle>(
      LoadedBundle{std::move(*bundle), std::move(*executable)});
  loaded.emplace(keyHex, entry);
  return std::shared_ptr<const LoadedBundle>(std::move(entry));
}

Status SessionState::ensureDeviceStream(RecordingStream &stream) {
  if (stream.deviceStream)
    return Status::success();
  device::DeviceResult<device::Stream> created = runtime->createStream();
  if (!created.ok())
    return Status::error("cannot create a device stream: " +
                         created.error().message);
  stream.deviceStream = std::move(*created);
  stream.hasDeviceStream = true;
  return Status::success();
}

Expected<TensorBytes> SessionState::readBack(const Storage &storage) {
  RecordingStream &stream = currentStream();
  std::lock_guard<std::mutex> lock(stream.mutex);
  if (Status status = ensureDeviceStream(stream); !status.ok())
    return status;
  device::DeviceResult<std::vector<std::byte>> bytes = runtime->readback(
      *stream.deviceStream, storage.deviceBuffer(), 0, storage.bytes);
  if (!bytes.ok())
    return Status::error("cannot read the tensor back: " +
                         bytes.error().message);
  return std::move(*bytes);
}

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
  auto tensorBytes = [&](TensorId tensor) {
    return std::uint64_t(bundle.graph.typeOf(tensor).byteSize());
  };
  // Zero-sized tensors still get a buffer, so every binding has one.
  auto allocationBytes = [](std::uint64_t bytes) {
    return std::max<std::uint64_t>(bytes, 1);
  };
  auto deviceError = [&](const device::Error &error) {
    return Status::error(error.message);
  };

  // Inputs already on the device are bound as they are; the others (uploads
  // seen for the first time) are uploaded in this batch.
  std::vector<device::Buffer> inputBuffers(inputs.size());
  std::vector<bool> uploading(inputs.size(), false);
  std::uint64_t total = bundle.memoryPlan.peakBytes;
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
  std::vector<std::optional<std::uint32_t>> aliasOf(bundle.outputs.size());
  for (const OutputAlias &alias : bundle.aliases)
    aliasOf[alias.output] = alias.input;
  // An input no handle refers to any more (this block holds the only
  // reference to its storage: nobody can reach it again) may have an
  // output written over it, where planInPlace finds that safe.
  std::vector<std::optional<std::uint32_t>> inPlace(bundle.outputs.size());
  if (kind == device::DeviceKind::Host) {
    std::vector<bool> exclusive(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      exclusive[i] = inputs[i].use_count() == 1;
    inPlace = planInPlace(bundle, exclusive);
  }
  std::uint64_t inPlaceCount = 0;
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o)
    if (!inPlace[o])
      total += allocationBytes(tensorBytes(bundle.outputs[o]));

  device::DeviceResult<device::AllocationPermit> permit =
      runtime->reserve(total);
  if (!permit.ok())
    return deviceError(permit.error());
  device::CommandBatch batch;
  auto add = [&](device::DeviceResult<device::Command> command) -> Status {
    if (!command.ok())
      return deviceError(command.error());
    batch.add(std::move(*command));
    return Status::success();
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!uploading[i])
      continue;
    device::DeviceResult<device::Buffer> buffer =
        runtime->allocate(*permit, allocationBytes(inputs[i]->bytes));
    if (!buffer.ok())
      return deviceError(buffer.error());
    inputBuffers[i] = std::move(*buffer);
    if (inputs[i]->bytes)
      if (Status status = add(runtime->encodeUpload(
              std::as_bytes(std::span(*inputs[i]->host)), inputBuffers[i], 0));
          !status.ok())
        return status;
  }
  std::vector<device::Buffer> boundInputs = inputBuffers;
  std::vector<device::Buffer> outputBuffers;
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    std::uint64_t bytes = tensorBytes(bundle.outputs[o]);
    if (inPlace[o]) {
      outputBuffers.push_back(inputBuffers[*inPlace[o]]);
      ++inPlaceCount;
      continue;
    }
    device::DeviceResult<device::Buffer> buffer =
        runtime->allocate(*permit, allocationBytes(bytes));
    if (!buffer.ok())
      return deviceError(buffer.error());
    outputBuffers.push_back(std::move(*buffer));
    // The source of an output that is an input unchanged, or that is
    // written in place over one.
    std::optional<std::uint32_t> source = aliasOf[o];
    if (!source) {
      auto input = std::find(bundle.inputs.begin(), bundle.inputs.end(),
                             bundle.outputs[o]);
      if (input != bundle.inputs.end())
        source = std::uint32_t(input - bundle.inputs.begin());
    }
    if (!source)
      continue;
    if (bytes)
      if (Status status =
              add(runtime->encodeCopy(inputBuffers[*source], outputBuffers[o],
                                      device::CopyRegion{0, 0, bytes}));
          !status.ok())
        return status;
    if (aliasOf[o])
      boundInputs[*source] = outputBuffers[o];
  }
  device::Buffer arena;
  if (bundle.memoryPlan.peakBytes) {
    device::DeviceResult<device::Buffer> buffer =
        runtime->allocate(*permit, bundle.memoryPlan.peakBytes);
    if (!buffer.ok())
      return deviceError(buffer.error());
    arena = std::move(*buffer);
  }
  for (std::uint32_t k : bundle.launchOrder) {
    const BundleKernel &kernel = bundle.kernels[k];
    std::vector<device::BufferBinding> bindings;
    for (const KernelBinding &binding : kernel.bindings) {
      switch (binding.kind) {
      case BindingKind::GraphInput:
        bindings.push_back({boundInputs[binding.index], 0,
                            tensorBytes(bundle.inputs[binding.index])});
        break;
      case BindingKind::GraphOutput:
        bindings.push_back({outputBuffers[binding.index], 0,
                            tensorBytes(bundle.outputs[binding.index])});
        break;
      case BindingKind::Intermediate: {
        const ArenaSlice &slice =
            bundle.memoryPlan.intermediates[binding.index];
        bindings.push_back({arena, slice.offset, slice.bytes});
        break;
      }
      }
    }
    if (Status status = add(runtime->encodeLaunch(
            loaded.executable, k, kernel.launch, std::move(bindings)));
        !status.ok())
      return status;
  }

  // One batch, one fence.
  Clock::time_point start = Clock::now();
  std::optional<device::Error> failure;
  if (!batch.empty()) {
    device::SubmitResult submitted =
        runtime->submit(*stream.deviceStream, std::move(batch));
    if (!submitted) {
      failure = submitted.error();
    } else {
      device::DeviceResult<device::TerminalReceipt> receipt =
          runtime->waitFence(submitted.fence(), std::chrono::minutes(10));
      if (!receipt.ok())
        failure = receipt.error();
      else if (const auto *failed =
                   std::get_if<device::FailedButQuiescent>(&*receipt))
        failure = failed->error;
    }
  }
  auto elapsed = Clock::now() - start;
  count([&](EngineCounters &c) {
    c.runTime += elapsed;
    ++c.submissions;
    c.kernelsLaunched += bundle.launchOrder.size();
    c.inPlaceOutputs += inPlaceCount;
  });
  if (failure) {
    // A failure never poisons the stream: reset it, or start a new one.
    if (std::holds_alternative<device::StreamFailed>(
            runtime->streamState(*stream.deviceStream)))
      if (!runtime->resetStream(*stream.deviceStream).ok()) {
        stream.deviceStream.reset();
        stream.hasDeviceStream = false;
      }
    return Status::error("running the bundle failed: " + failure->message);
  }
  // Uploads stay on the device for later blocks.
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (uploading[i])
      inputs[i]->setBufferIfNone(inputBuffers[i]);
  std::vector<StoragePtr> outputs;
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    auto storage = std::make_shared<Storage>();
    storage->bytes = tensorBytes(bundle.outputs[o]);
    storage->buffer = std::move(outputBuffers[o]);
    outputs.push_back(std::move(storage));
  }
  return outputs;
}

Expected<std::vector<StoragePtr>>
SessionState::execute(RecordingStream &stream, const Graph &graph,
                      const std::vector<StoragePtr> &inputs) {
  Graph canonical = canonicalize(graph);
  BundleKey key = BundleKey::make(canonical, target, options.compileOptions);
  std::string keyHex = key.toHex();
  count([&](EngineCounters &c) { ++c.blocks; });
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Bounded: a long-running session keeps only the most recent keys.
    if (keys.size() >= kKeptKeys)
      keys.erase(keys.begin(), keys.begin() + kKeptKeys / 2);
    keys.push_back(keyHex);
  }
  auto found = findOrLoad(canonical, key, keyHex);
  if (auto *failure = std::get_if<LoadFailure>(&found)) {
    if (!failure->compileFailed)
      return Status::error(failure->message);
    warn("compiling " + describeGraph(canonical) + " failed (" +
         failure->message + "); running it unfused, one kernel per op");
    count([&](EngineCounters &c) { ++c.fallbacks; });
    return executeUnfused(stream, graph, inputs);
  }
  return run(stream, *std::get<0>(found), inputs);
}

Expected<std::vector<StoragePtr>>
SessionState::executeUnfused(RecordingStream &stream, const Graph &graph,
                             const std::vector<StoragePtr> &inputs) {
  std::unordered_map<TensorId, StoragePtr> values;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    values[graph.inputs[i]] = inputs[i];
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const Op &op = graph.ops[index];
    Graph single;
    std::vector<StoragePtr> singleInputs;
    std::unordered_map<TensorId, TensorId> remap;
    Op copy = op;
    for (TensorId &operand : copy.operands) {
      auto [slot, added] = remap.try_emplace(operand, kInvalidTensor);
      if (added) {
        slot->second = single.addInput(graph.typeOf(operand));
        singleInputs.push_back(values.at(operand));
      }
      operand = slot->second;
    }
    TensorId result = TensorId(single.tensors.size());
    single.tensors.push_back({graph.typeOf(op.result()), {}});
    copy.results = {result};
    single.ops.push_back(std::move(copy));
    if (Status marked = single.markOutput(result); !marked.ok())
      return marked;
    Graph canonical = canonicalize(single);
    BundleKey key = BundleKey::make(canonical, target, options.compileOptions);
    auto found = findOrLoad(canonical, key, key.toHex());
    if (auto *failure = std::get_if<LoadFailure>(&found))
      return Status::error(
          "op " + std::to_string(index) + " (" +
          std::string(mnemonic(op.kind)) + " -> " +
          graph.typeOf(op.result()).toString() +
          ") cannot be compiled even alone: " + failure->message);
    Expected<std::vector<StoragePtr>> outputs =
        run(stream, *std::get<0>(found), singleInputs);
    if (!outputs.ok())
      return outputs.status();
    values[op.result()] = std::move((*outputs)[0]);
  }
  std::vector<StoragePtr> outputs;
  for (const GraphOutput &output : graph.outputs)
    outputs.push_back(values.at(output.tensor));
  return outputs;
}

/// The bytes of a constant's value (a splat expanded).
static StoragePtr constantStorage(const DenseValue &value,
                                  const TensorType &type) {
  auto storage = std::make_shared<Storage>();
  storage->bytes = std::uint64_t(type.byteSize());
  const auto *bytes = reinterpret_cast<const std::byte *>(value.bytes.data());
  if (!value.splat) {
    storage->host.emplace(bytes, bytes + value.bytes.size());
    return storage;
  }
  storage->host.emplace();
  storage->host->reserve(storage->bytes);
  for (std::int64_t i = 0; i < type.numElements(); ++i)
    storage->host->insert(storage->host->end(), bytes,
                          bytes + value.bytes.size());
  return storage;
}

Status SessionState::flushLocked(RecordingStream &stream) {
  if (stream.graph.ops.empty()) {
    stream.resetBlock();
    return Status::success();
  }
  // Take the block: whatever happens below, the stream starts afresh.
  Graph block = std::move(stream.graph);
  std::vector<StoragePtr> blockInputs = std::move(stream.inputData);
  auto results = std::move(stream.results);
  stream.resetBlock();

  // Outputs: results still referenced by a handle (free_handle: a dropped
  // one is no output, and the ops feeding only it go).
  // A constant still referenced is materialized from its value on the host,
  // not written by a kernel (`f(x * fullLike(x, 2))` keeps the constant's
  // temporary handle alive across the sync).
  std::vector<std::shared_ptr<TensorNode>> outputNodes;
  std::vector<bool> live(block.tensors.size(), false);
  std::vector<const Op *> producer(block.tensors.size(), nullptr);
  for (const Op &op : block.ops)
    producer[op.result()] = &op;
  for (auto &[id, weak] : results) {
    std::shared_ptr<TensorNode> node = weak.lock();
    if (!node)
      continue;
    if (producer[id]->kind == OpKind::Constant) {
      node->data = constantStorage(producer[id]->findAttr("value")->getDense(),
                                   node->type);
      node->pending.store(nullptr, std::memory_order_release);
      continue;
    }
    outputNodes.push_back(std::move(node));
    live[id] = true;
  }
  if (outputNodes.empty()) {
    count([](EngineCounters &c) { ++c.emptyBlocks; });
    return Status::success();
  }
  std::vector<bool> liveOps(block.ops.size(), false);
  for (std::size_t i = block.ops.size(); i-- > 0;) {
    const Op &op = block.ops[i];
    if (!live[op.result()])
      continue;
    liveOps[i] = true;
    for (TensorId operand : op.operands)
      live[operand] = true;
  }
  Graph pruned;
  std::vector<TensorId> remap(block.tensors.size(), kInvalidTensor);
  std::vector<StoragePtr> prunedInputs;
  for (std::size_t i = 0; i < block.inputs.size(); ++i) {
    TensorId input = block.inputs[i];
    if (!live[input])
      continue;
    remap[input] = pruned.addInput(block.typeOf(input));
    prunedInputs.push_back(std::move(blockInputs[i]));
  }
  for (std::size_t i = 0; i < block.ops.size(); ++i) {
    if (!liveOps[i])
      continue;
    Op op = std::move(block.ops[i]);
    for (TensorId &operand : op.operands)
      operand = remap[operand];
    TensorId result = TensorId(pruned.tensors.size());
    pruned.tensors.push_back({block.typeOf(op.result()), {}});
    remap[op.result()] = result;
    op.results = {result};
    pruned.ops.push_back(std::move(op));
  }
  for (const auto &node : outputNodes)
    pruned.outputs.push_back({remap[node->localId], {}});

  Expected<std::vector<StoragePtr>> outputs =
      execute(stream, pruned, prunedInputs);
  if (!outputs.ok()) {
    count([](EngineCounters &c) { ++c.failedBlocks; });
    for (const auto &node : outputNodes) {
      node->error = outputs.message();
      node->pending.store(nullptr, std::memory_order_release);
    }
    return outputs.status();
  }
  for (std::size_t i = 0; i < outputNodes.size(); ++i) {
    outputNodes[i]->data = std::move((*outputs)[i]);
    outputNodes[i]->pending.store(nullptr, std::memory_order_release);
  }
  return Status::success();
}

struct TensorAccess {
  static const std::shared_ptr<TensorNode> &node(const Tensor &tensor) {
    return tensor.node;
  }
  static Tensor make(std::shared_ptr<TensorNode> node) {
    return Tensor(std::move(node));
  }
  static const std::shared_ptr<SessionState> &state(const Session &session) {
    return session.state;
  }
  static Session makeSession(std::shared_ptr<SessionState> state) {
    return Session(std::move(state));
  }
};

namespace {

Tensor failedTensor(std::shared_ptr<SessionState> session, TensorType type,
                    std::string message) {
  auto node = std::make_shared<TensorNode>();
  node->type = std::move(type);
  node->session = std::move(session);
  node->error = std::move(message);
  return TensorAccess::make(std::move(node));
}

/// Graph::addOp, with a fast path for the common elementwise ops whose
/// operands have one type that the op's type rule accepts; everything else
/// (and every error) goes through addOp's checks.
Expected<TensorId> appendOp(Graph &graph, OpKind kind,
                            std::vector<TensorId> ids, AttrMap attributes,
                            std::optional<TensorType> resultType) {
  const OpInfo &info = opInfo(kind);
  if (info.form != OpForm::Structured && attributes.empty() && !resultType &&
      !ids.empty() && int(ids.size()) == info.numOperands) {
    const TensorType &first = graph.typeOf(ids[0]);
    bool sameTypes = true;
    for (std::size_t i = 1; i < ids.size(); ++i)
      sameTypes = sameTypes && graph.typeOf(ids[i]) == first;
    if (sameTypes && followsTypeRule(first.elementType, info.typeRule)) {
      TensorId result = TensorId(graph.tensors.size());
      TensorType type = first;
      if (info.typeRule == TypeRule::FloatPred)
        type.elementType = ElementType::I1;
      graph.tensors.push_back({std::move(type), {}});
      graph.ops.push_back({kind, std::move(ids), {result}, {}});
      return result;
    }
  }
  return graph.addOp(kind, std::move(ids), std::move(attributes),
                     std::move(resultType));
}

Tensor record(std::shared_ptr<SessionState> session, OpKind kind,
              std::span<const Tensor> operands, AttrMap attributes,
              std::optional<TensorType> resultType) {
  std::string opName(mnemonic(kind));
  for (const Tensor &operand : operands) {
    const auto &node = TensorAccess::node(operand);
    if (!node)
      continue;
    if (!session)
      session = node->session;
  }
  if (!session)
    return Tensor();
  TensorType errorType = resultType ? *resultType : TensorType{};
  for (const Tensor &operand : operands) {
    const auto &node = TensorAccess::node(operand);
    if (!node)
      return failedTensor(session, errorType,
                          opName + ": an operand is an invalid tensor handle");
    if (node->session != session)
      return failedTensor(session, errorType,
                          opName + ": an operand belongs to another session");
  }

  RecordingStream &stream = session->currentStream();
  // Operands recorded on another thread's stream are materialized first
  // (the streams synchronize on them), without holding our own lock.
  for (const Tensor &operand : operands) {
    RecordingStream *owner =
        TensorAccess::node(operand)->pending.load(std::memory_order_acquire);
    if (owner && owner != &stream) {
      (void)session->flush(*owner);
      session->count([](EngineCounters &c) { ++c.crossStreamSyncs; });
    }
  }

  std::lock_guard<std::mutex> lock(stream.mutex);
  std::vector<TensorId> ids;
  ids.reserve(operands.size());
  for (const Tensor &operand : operands) {
    const auto &node = TensorAccess::node(operand);
    RecordingStream *owner = node->pending.load(std::memory_order_acquire);
    if (owner == &stream) {
      ids.push_back(node->localId);
      continue;
    }
    if (node->error)
      return failedTensor(session, errorType, *node->error);
    // A materialized tensor: bound as an input through an alias of its
    // buffer, once per block.
    auto [slot, added] =
        stream.inputIds.try_emplace(node->data.get(), kInvalidTensor);
    if (added) {
      slot->second = stream.graph.addInput(node->type);
      stream.inputData.push_back(node->data);
    }
    ids.push_back(slot->second);
  }
  Expected<TensorId> result =
      appendOp(stream.graph, kind, std::move(ids), std::move(attributes),
               std::move(resultType));
  if (!result.ok())
    return failedTensor(session, errorType, result.message());
  auto node = std::make_shared<TensorNode>();
  node->type = stream.graph.typeOf(*result);
  node->session = session;
  node->localId = *result;
  node->pending.store(&stream, std::memory_order_relaxed);
  stream.results.emplace_back(*result, node);
  stream.opsRecorded.fetch_add(1, std::memory_order_relaxed);
  if (stream.graph.ops.size() >= session->options.maxBlockOps)
    (void)session->flushLocked(stream);
  return TensorAccess::make(std::move(node));
}

Tensor recordOp(OpKind kind, std::span<const Tensor> operands,
                AttrMap attributes = {},
                std::optional<TensorType> resultType = {}) {
  return record(nullptr, kind, operands, std::move(attributes),
                std::move(resultType));
}

void setFlag(AttrMap &attributes, const char *name, bool value) {
  if (value)
    attributes.emplace(name, Attribute::flag(true));
}

std::int64_t normalizeAxis(std::int64_t axis, std::int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// x (keep_dims reduced) broadcast back to `shape`, dims aligned.
Tensor expandTo(const Tensor &x, const std::vector<std::int64_t> &shape) {
  if (!x.valid())
    return x;
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(i);
  return broadcast(x, shape, std::move(dims));
}

} // namespace

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

const TensorType &Tensor::type() const {
  static const TensorType none;
  return node ? node->type : none;
}

Status Tensor::status() const {
  if (!node)
    return Status::error("an invalid tensor handle");
  if (node->pending.load(std::memory_order_acquire))
    return Status::success();
  if (node->error)
    return Status::error(*node->error);
  return Status::success();
}

bool Tensor::materialized() const {
  return node && !node->pending.load(std::memory_order_acquire);
}

Expected<HostTensorData> Tensor::read() const {
  if (!node)
    return Status::error("read of an invalid tensor handle");
  if (RecordingStream *owner = node->pending.load(std::memory_order_acquire))
    (void)node->session->flush(*owner);
  if (node->pending.load(std::memory_order_acquire))
    return Status::error("the tensor is still pending after a sync");
  if (node->error)
    return Status::error(*node->error);
  HostTensorData result(node->type);
  if (result.bytes.empty())
    return result;
  if (node->data->host) {
    std::memcpy(result.bytes.data(), node->data->host->data(),
                result.bytes.size());
    return result;
  }
  Expected<TensorBytes> bytes = node->session->readBack(*node->data);
  if (!bytes.ok())
    return bytes.status();
  std::memcpy(result.bytes.data(), bytes->data(), result.bytes.size());
  return result;
}

Expected<std::vector<double>> Tensor::readDoubles() const {
  Expected<HostTensorData> data = read();
  if (!data.ok())
    return data.status();
  return data->toDoubles();
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

Expected<Session> Session::open(SessionOptions options) {
  auto state = std::make_shared<SessionState>();
  state->id = nextSessionId++;
  DeviceChoice choice = options.device;
  if (choice == DeviceChoice::Default) {
    // cuda when a driver and a device are present, otherwise host; an
    // explicit target of one kind decides for it.
    if (options.target.starts_with("host-")) {
      choice = DeviceChoice::Host;
      state->deviceNote = "default device: host (the target " + options.target +
                          " asks for it)";
    } else {
#ifdef FUSE_HAVE_CUDA_RUNTIME
      device::DeviceResult<std::unique_ptr<device::CudaRuntime>> cuda =
          device::CudaRuntime::create();
      if (cuda.ok()) {
        state->kind = device::DeviceKind::Cuda;
        state->target = (*cuda)->descriptor().target;
        state->runtime = std::move(*cuda);
        state->deviceNote = "default device: cuda (" + state->target + ")";
      } else {
        choice = DeviceChoice::Host;
        state->deviceNote =
            "default device: host (no CUDA device: " + cuda.error().message +
            ")";
      }
#else
      choice = DeviceChoice::Host;
      state->deviceNote = "default device: host (this build of Fuse has no "
                          "CUDA runtime)";
#endif
    }
  }
  switch (choice) {
  case DeviceChoice::Default:
    break; // chosen above: cuda
  case DeviceChoice::Host: {
    std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
    if (!level)
      return Status::error("no host device: this CPU supports no x86-64 ISA "
                           "level that host bundles are built for");
    state->kind = device::DeviceKind::Host;
    state->target = device::hostTargetName(*level);
    state->runtime = std::make_unique<device::HostRuntime>();
    break;
  }
  case DeviceChoice::Cuda: {
#ifdef FUSE_HAVE_CUDA_RUNTIME
    device::DeviceResult<std::unique_ptr<device::CudaRuntime>> cuda =
        device::CudaRuntime::create();
    if (!cuda.ok())
      return Status::error("no CUDA device: " + cuda.error().message);
    state->kind = device::DeviceKind::Cuda;
    state->target = (*cuda)->descriptor().target;
    state->runtime = std::move(*cuda);
    break;
#else
    return Status::error("no CUDA device: this build of Fuse has no CUDA "
                         "runtime (cuda.h was not found at configure time)");
#endif
  }
  case DeviceChoice::Reference:
    state->kind = device::DeviceKind::Reference;
    state->target = "reference";
    state->runtime = std::make_unique<device::ReferenceRuntime>();
    break;
  }
  if (state->deviceNote.empty())
    state->deviceNote = std::string("device: ") +
                        device::deviceKindName(state->kind) + " (as asked)";
  if (options.device == DeviceChoice::Default && options.onWarning)
    options.onWarning(state->deviceNote);
  if (!options.target.empty())
    state->target = options.target;
  if (options.maxBlockOps == 0)
    options.maxBlockOps = 1;
  state->options = std::move(options);
  return TensorAccess::makeSession(std::move(state));
}

Tensor Session::upload(const TensorType &type,
                       std::span<const std::byte> bytes) {
  if (std::int64_t(bytes.size()) != type.byteSize())
    return failedTensor(state, type,
                        "upload of " + std::to_string(bytes.size()) +
                            " bytes to a " + type.toString() + " of " +
                            std::to_string(type.byteSize()) + " bytes");
  auto node = std::make_shared<TensorNode>();
  node->type = type;
  node->session = state;
  auto storage = std::make_shared<Storage>();
  storage->bytes = bytes.size();
  storage->host.emplace(bytes.begin(), bytes.end());
  node->data = std::move(storage);
  return TensorAccess::make(std::move(node));
}

Tensor Session::upload(const HostTensorData &data) {
  return upload(data.type, std::as_bytes(std::span(data.bytes)));
}

Tensor Session::upload(const TensorType &type, std::span<const double> values) {
  if (std::int64_t(values.size()) != type.numElements())
    return failedTensor(state, type,
                        "upload of " + std::to_string(values.size()) +
                            " values to a " + type.toString());
  return upload(HostTensorData::fromDoubles(type, values));
}

Status Session::flush() { return state->flush(state->currentStream()); }

Status Session::flushAll() {
  std::vector<RecordingStream *> streams;
  {
    std::lock_guard<std::mutex> lock(state->streamsMutex);
    for (auto &[thread, stream] : state->streams)
      streams.push_back(stream.get());
  }
  Status first = Status::success();
  for (RecordingStream *stream : streams)
    if (Status status = state->flush(*stream); !status.ok() && first.ok())
      first = status;
  return first;
}

EngineCounters Session::counters() const {
  EngineCounters result;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    result = state->counters;
  }
  std::lock_guard<std::mutex> lock(state->streamsMutex);
  for (auto &[thread, stream] : state->streams) {
    result.opsRecorded += stream->opsRecorded.load(std::memory_order_relaxed);
    result.deviceStreams += stream->hasDeviceStream.load();
  }
  return result;
}

const std::string &Session::target() const { return state->target; }

std::string Session::deviceName() const {
  return device::deviceKindName(state->kind);
}

const std::string &Session::deviceNote() const { return state->deviceNote; }

std::vector<std::string> Session::keysForTesting() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->keys;
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

Tensor apply(OpKind kind, std::span<const Tensor> operands, AttrMap attributes,
             std::optional<TensorType> resultType) {
  return recordOp(kind, operands, std::move(attributes), std::move(resultType));
}

Tensor unary(OpKind kind, const Tensor &x) {
  return recordOp(kind, std::span(&x, 1));
}

Tensor binary(OpKind kind, const Tensor &a, const Tensor &b) {
  const Tensor operands[] = {a, b};
  return recordOp(kind, operands);
}

Tensor neg(const Tensor &x) { return unary(OpKind::Neg, x); }
Tensor abs(const Tensor &x) { return unary(OpKind::Abs, x); }
Tensor exp(const Tensor &x) { return unary(OpKind::Exp, x); }
Tensor log(const Tensor &x) { return unary(OpKind::Log, x); }
Tensor sqrt(const Tensor &x) { return unary(OpKind::Sqrt, x); }
Tensor rsqrt(const Tensor &x) { return unary(OpKind::Rsqrt, x); }
Tensor reciprocal(const Tensor &x) { return unary(OpKind::Reciprocal, x); }
Tensor tanh(const Tensor &x) { return unary(OpKind::Tanh, x); }
Tensor sigmoid(const Tensor &x) { return unary(OpKind::Sigmoid, x); }
Tensor erf(const Tensor &x) { return unary(OpKind::Erf, x); }

Tensor add(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Add, a, b);
}
Tensor sub(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Sub, a, b);
}
Tensor mul(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Mul, a, b);
}
Tensor div(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Div, a, b);
}
Tensor max(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Max, a, b);
}
Tensor min(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Min, a, b);
}
Tensor pow(const Tensor &a, const Tensor &b) {
  return binary(OpKind::Pow, a, b);
}
Tensor operator+(const Tensor &a, const Tensor &b) { return add(a, b); }
Tensor operator-(const Tensor &a, const Tensor &b) { return sub(a, b); }
Tensor operator*(const Tensor &a, const Tensor &b) { return mul(a, b); }
Tensor operator/(const Tensor &a, const Tensor &b) { return div(a, b); }
Tensor operator-(const Tensor &x) { return neg(x); }

Tensor compare(ComparePredicate predicate, const Tensor &a, const Tensor &b) {
  AttrMap attributes;
  attributes.emplace("predicate", Attribute::enumName(std::string(
                                      comparePredicateName(predicate))));
  const Tensor operands[] = {a, b};
  return recordOp(OpKind::Compare, operands, std::move(attributes));
}

Tensor select(const Tensor &cond, const Tensor &a, const Tensor &b) {
  const Tensor operands[] = {cond, a, b};
  return recordOp(OpKind::Select, operands);
}

Tensor cast(const Tensor &x, ElementType to, bool isUnsigned) {
  AttrMap attributes;
  setFlag(attributes, "is_unsigned", isUnsigned);
  return recordOp(OpKind::Cast, std::span(&x, 1), std::move(attributes),
                  TensorType{to, x.shape()});
}

Tensor constant(Session &session, DenseValue value) {
  TensorType type = value.type();
  AttrMap attributes;
  attributes.emplace("value", Attribute::dense(std::move(value)));
  return record(TensorAccess::state(session), OpKind::Constant, {},
                std::move(attributes), std::move(type));
}

Tensor fullLike(const Tensor &x, double value) {
  const auto &node = TensorAccess::node(x);
  if (!node)
    return x;
  AttrMap attributes;
  attributes.emplace("value",
                     Attribute::dense(DenseValue::makeSplat(x.type(), value)));
  return record(node->session, OpKind::Constant, {}, std::move(attributes),
                x.type());
}

Tensor broadcast(const Tensor &x, std::vector<std::int64_t> shape,
                 std::vector<std::int64_t> dims) {
  AttrMap attributes;
  attributes.emplace("dims", Attribute::i64Array(std::move(dims)));
  return recordOp(OpKind::Broadcast, std::span(&x, 1), std::move(attributes),
                  TensorType{x.elementType(), std::move(shape)});
}

Tensor broadcastTo(const Tensor &x, std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(std::int64_t(shape.size()) - x.rank() + i);
  return broadcast(x, std::move(shape), std::move(dims));
}

Tensor reshape(const Tensor &x, std::vector<std::int64_t> shape) {
  return recordOp(OpKind::Reshape, std::span(&x, 1), {},
                  TensorType{x.elementType(), std::move(shape)});
}

Tensor transpose(const Tensor &x, std::vector<std::int64_t> permutation) {
  AttrMap attributes;
  attributes.emplace("permutation",
                     Attribute::i64Array(std::move(permutation)));
  return recordOp(OpKind::Transpose, std::span(&x, 1), std::move(attributes));
}

Tensor slice(const Tensor &x, std::vector<std::int64_t> offsets,
             std::vector<std::int64_t> sizes,
             std::vector<std::int64_t> strides) {
  AttrMap attributes;
  attributes.emplace("offsets", Attribute::i64Array(std::move(offsets)));
  attributes.emplace("sizes", Attribute::i64Array(std::move(sizes)));
  attributes.emplace("strides", Attribute::i64Array(std::move(strides)));
  return recordOp(OpKind::Slice, std::span(&x, 1), std::move(attributes));
}

Tensor concat(std::span<const Tensor> xs, std::int64_t axis) {
  AttrMap attributes;
  attributes.emplace("axis", Attribute::i64(axis));
  return recordOp(OpKind::Concat, xs, std::move(attributes));
}

Tensor reduce(ReduceKind kind, const Tensor &x, std::vector<std::int64_t> dims,
              bool keepDims) {
  AttrMap attributes;
  attributes.emplace("kind",
                     Attribute::enumName(std::string(reduceKindName(kind))));
  attributes.emplace("dims", Attribute::i64Array(std::move(dims)));
  setFlag(attributes, "keep_dims", keepDims);
  return recordOp(OpKind::Reduce, std::span(&x, 1), std::move(attributes));
}

static Tensor argReduce(OpKind kind, const Tensor &x, std::int64_t axis,
                        bool keepDims) {
  AttrMap attributes;
  attributes.emplace("axis", Attribute::i64(axis));
  setFlag(attributes, "keep_dims", keepDims);
  return recordOp(kind, std::span(&x, 1), std::move(attributes));
}

Tensor argmax(const Tensor &x, std::int64_t axis, bool keepDims) {
  return argReduce(OpKind::ArgMax, x, axis, keepDims);
}

Tensor argmin(const Tensor &x, std::int64_t axis, bool keepDims) {
  return argReduce(OpKind::ArgMin, x, axis, keepDims);
}

Tensor matmul(const Tensor &a, const Tensor &b, bool transposeA,
              bool transposeB) {
  AttrMap attributes;
  setFlag(attributes, "transpose_a", transposeA);
  setFlag(attributes, "transpose_b", transposeB);
  const Tensor operands[] = {a, b};
  return recordOp(OpKind::Matmul, operands, std::move(attributes));
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

Tensor softmax(const Tensor &x, std::int64_t axis) {
  std::int64_t dim = normalizeAxis(axis, x.rank());
  Tensor shifted =
      x - expandTo(reduce(ReduceKind::Max, x, {dim}, true), x.shape());
  Tensor e = exp(shifted);
  return e / expandTo(reduce(ReduceKind::Sum, e, {dim}, true), x.shape());
}

Tensor logSoftmax(const Tensor &x, std::int64_t axis) {
  std::int64_t dim = normalizeAxis(axis, x.rank());
  Tensor shifted =
      x - expandTo(reduce(ReduceKind::Max, x, {dim}, true), x.shape());
  Tensor sum = reduce(ReduceKind::Sum, exp(shifted), {dim}, true);
  return shifted - expandTo(log(sum), x.shape());
}

Tensor layerNorm(const Tensor &x, const Tensor &gamma, const Tensor &beta,
                 double epsilon) {
  std::int64_t dim = x.rank() - 1;
  Tensor centered =
      x - expandTo(reduce(ReduceKind::Mean, x, {dim}, true), x.shape());
  Tensor variance = reduce(ReduceKind::Mean, centered * centered, {dim}, true);
  Tensor inverse = rsqrt(variance + fullLike(variance, epsilon));
  Tensor y = centered * expandTo(inverse, x.shape());
  if (gamma.valid())
    y = y * broadcastTo(gamma, x.shape());
  if (beta.valid())
    y = y + broadcastTo(beta, x.shape());
  return y;
}

Tensor rmsNorm(const Tensor &x, const Tensor &gamma, double epsilon) {
  std::int64_t dim = x.rank() - 1;
  Tensor meanSquare = reduce(ReduceKind::Mean, x * x, {dim}, true);
  Tensor inverse = rsqrt(meanSquare + fullLike(meanSquare, epsilon));
  Tensor y = x * expandTo(inverse, x.shape());
  if (gamma.valid())
    y = y * broadcastTo(gamma, x.shape());
  return y;
}

Tensor gelu(const Tensor &x) {
  const double sqrtTwoOverPi = std::sqrt(2.0 / M_PI);
  Tensor cube = x * x * x;
  Tensor inner =
      fullLike(x, sqrtTwoOverPi) * (x + fullLike(x, 0.044715) * cube);
  return fullLike(x, 0.5) * x * (fullLike(x, 1.0) + tanh(inner));
}

Tensor linear(const Tensor &x, const Tensor &weight, const Tensor &bias) {
  Tensor y = matmul(x, weight, false, true);
  if (bias.valid())
    y = y + broadcastTo(bias, y.shape());
  return y;
}

} // namespace fuse::engine
