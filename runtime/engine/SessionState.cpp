//===- SessionState.cpp - Loading, running and syncing blocks -------------===//

#include "runtime/engine/SessionState.h"

#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Verifier.h"

#include <algorithm>

namespace fuse::engine {

namespace {

constexpr std::size_t kKeptKeys = 4096;

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

std::variant<Bundle, LoadFailure> SessionState::lookupOrCompileLocked(
    const Graph &canonical, const BundleKey &key, std::string &warning) {
  if (options.cache) {
    std::uint64_t diskHitsBefore = options.cache->stats().diskHits;
    if (std::optional<Bundle> bundle = options.cache->lookup(key)) {
      if (options.cache->stats().diskHits != diskHitsBefore)
        ++counters.diskHits;
      else
        ++counters.memoryHits;
      return std::move(*bundle);
    }
  }
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
  counters.kernelsCompiled += compiled->kernels.compiled;
  counters.kernelsReused += compiled->kernels.reused;
  counters.kernelsQuick += compiled->kernels.quick;
  if (options.cache)
    if (Status stored = options.cache->store(key, compiled->bundle);
        !stored.ok())
      warning = "could not cache the bundle of " + describeGraph(canonical) +
                ": " + stored.message();
  return std::move(compiled->bundle);
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
  std::variant<Bundle, LoadFailure> bundle =
      lookupOrCompileLocked(canonical, key, warning);
  if (auto *failure = std::get_if<LoadFailure>(&bundle))
    return std::move(*failure);
  device::DeviceResult<device::Executable> executable =
      runtime->load(std::get<Bundle>(bundle));
  if (!executable.ok())
    return LoadFailure{false, "cannot load the bundle of " +
                                  describeGraph(canonical) + ": " +
                                  executable.error().message};
  auto entry = std::make_shared<LoadedBundle>();
  entry->bundle = std::move(std::get<Bundle>(bundle));
  entry->arenaBytes = entry->bundle.memoryPlan.peakBytes;
  entry->executable = std::move(*executable);
  entry->hasPerBindingKernels =
      std::any_of(entry->bundle.kernels.begin(), entry->bundle.kernels.end(),
                  [](const BundleKernel &k) { return k.perBinding; });
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
SessionState::execute(RecordingStream &stream, const Graph &graph,
                      const std::vector<StoragePtr> &inputs) {
  Graph canonical = canonicalize(graph);
  BundleKey key = BundleKey::make(canonical, target, compileOptions());
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
    BundleKey key = BundleKey::make(canonical, target, compileOptions());
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

} // namespace fuse::engine
