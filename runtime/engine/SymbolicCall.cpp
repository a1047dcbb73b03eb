//===- SymbolicCall.cpp - A graph with symbolic dims, compiled once -------===//
//
// callSymbolic (issue 22): the graph's bundle is compiled once with its dims
// symbolic (the kernels read them from their dims arrays), then each call
// binds it to its inputs' shapes (bindBundle: the kernels' code is shared,
// the arena planned for the call's sizes) and runs it over the inputs'
// storages, as a block is run. A decoder's step calls it with the past
// length one longer each time and compiles nothing.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/SymbolicBundle.h"
#include "runtime/engine/Recording.h"
#include "runtime/ir/GraphHash.h"

namespace fuse::engine {

namespace {

/// Bindings of symbolic bundles kept loaded per session (a decoder's prompt
/// and its latest steps).
constexpr std::size_t kKeptBindings = 4;

std::string dimsKey(const DimBindings &dims) {
  std::string text;
  for (const auto &[name, value] : dims)
    text += name + "=" + std::to_string(value) + ";";
  return text;
}

Tensor materialized(const std::shared_ptr<SessionState> &state, TensorType type,
                    StoragePtr data) {
  auto node = std::make_shared<TensorNode>();
  node->type = std::move(type);
  node->session = state;
  node->data = std::move(data);
  return TensorAccess::make(std::move(node));
}

/// A binding that follows another of the same bundle (a decoder's next
/// step) takes the arena the other's last run kept, where the slices of the
/// per-binding kernels that depend on their inputs alone (packed weights)
/// lie as they lay: its run skips those kernels when the same weights are
/// bound (BundleRun::takeBoundArena) and runs those that depend on the dims
/// again. Its arena is given room to grow, so that the steps after it fit
/// in it too.
void adoptBoundArena(const BindingPlan &binding, const LoadedBundle &previous,
                     LoadedBundle &next) {
  const Bundle &symbolic = binding.bundle();
  const MemoryPlan &plan = next.bundle.memoryPlan;
  // A quarter more, in whole pages.
  constexpr std::uint64_t kPage = 4096;
  std::uint64_t room = plan.peakBytes + plan.peakBytes / 4;
  next.arenaBytes = (room + kPage - 1) / kPage * kPage;
  if (!next.hasPerBindingKernels)
    return;
  // What the kernels that are not run again write (a weight's packing, in
  // its fusion's scratch: the bound part) must lie where it lay, at the
  // same size: the bound slices of fixed size come first, and a scratch
  // whose size depends on the dims (a matmul's rows) is refused where it
  // changed. (They read only graph inputs: the run's slices they bind
  // with their fusion are not theirs.)
  const std::vector<ArenaSlice> &slices = plan.intermediates;
  const std::vector<ArenaSlice> &before =
      previous.bundle.memoryPlan.intermediates;
  if (before.size() != slices.size() ||
      symbolic.memoryPlan.symbolicSlices.size() != slices.size())
    return;
  const std::vector<bool> &kept = binding.keptAcrossDims;
  for (std::size_t i = 0; i < slices.size(); ++i)
    if (kept[i] && slices[i] != before[i])
      return;
  for (std::uint32_t k = 0; k < symbolic.kernels.size(); ++k)
    if (symbolic.kernels[k].dimsDependent)
      next.dimsDependent.push_back(k);
  std::lock_guard<std::mutex> lock(previous.boundMutex);
  next.bound.swap(previous.bound);
  if (next.bound)
    next.bound->otherDims = true;
}

} // namespace

std::variant<std::shared_ptr<const BindingPlan>, LoadFailure>
SessionState::findOrCompileSymbolic(const Graph &canonical,
                                    const BundleKey &key,
                                    const std::string &keyHex) {
  std::string warning;
  std::variant<std::shared_ptr<const BindingPlan>, LoadFailure> result =
      [&]() -> std::variant<std::shared_ptr<const BindingPlan>, LoadFailure> {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = symbolicBundles.find(keyHex);
        found != symbolicBundles.end()) {
      ++counters.sessionHits;
      return found->second;
    }
    std::variant<Bundle, LoadFailure> bundle =
        lookupOrCompileLocked(canonical, key, warning);
    if (auto *failure = std::get_if<LoadFailure>(&bundle))
      return std::move(*failure);
    if (!std::get<Bundle>(bundle).isSymbolic())
      return LoadFailure{false, "the bundle of " + describeGraph(canonical) +
                                    " has no symbolic dims"};
    auto shared = std::make_shared<const BindingPlan>(
        std::make_shared<const Bundle>(std::move(std::get<Bundle>(bundle))));
    symbolicBundles.emplace(keyHex, shared);
    return shared;
  }();
  if (!warning.empty())
    warn(warning);
  return result;
}

Expected<std::shared_ptr<const LoadedBundle>>
SessionState::loadBound(const BindingPlan &plan, const DimBindings &dims,
                        const std::string &boundKey,
                        std::uint64_t minArenaBytes) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto &[key, loaded] : boundBundles)
      if (key == boundKey)
        return std::shared_ptr<const LoadedBundle>(loaded);
  }
  // Another binding of the bundle shares its code: only the sizes change.
  // The oldest kept binding, where the session is to drop it and nothing
  // else holds it, gives its bundle to this one: only what the dims decide
  // is written again (rebindBundle), the symbolic bundle is not copied.
  std::shared_ptr<const LoadedBundle> sibling;
  std::shared_ptr<LoadedBundle> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::string_view symbolicKey(boundKey.data(), boundKey.find(':') + 1);
    if (boundBundles.size() >= kKeptBindings &&
        boundBundles.front().first.starts_with(symbolicKey) &&
        boundBundles.front().second.use_count() == 1) {
      dropped = std::move(boundBundles.front().second);
      boundBundles.erase(boundBundles.begin());
    }
    for (const auto &[key, loaded] : boundBundles)
      if (key.starts_with(symbolicKey))
        sibling = loaded;
  }
  Bundle bound;
  bool rebound = false;
  if (dropped) {
    bound = std::move(dropped->bundle);
    dropped.reset();
    // Where it fails, bindBundle says why (or binds it afresh).
    rebound = rebindBundle(plan, dims, bound).ok();
  }
  if (!rebound) {
    Expected<Bundle> fresh = bindBundle(plan, dims);
    if (!fresh.ok())
      return fresh.status();
    bound = fresh.take();
  }
  device::DeviceResult<device::Executable> executable =
      sibling ? runtime->rebind(sibling->executable, bound,
                                device::BoundAndVerified{})
              : runtime->load(bound);
  if (!executable.ok())
    return Status::error("cannot load the bound bundle: " +
                         executable.error().message);
  auto entry = std::make_shared<LoadedBundle>();
  entry->bundle = std::move(bound);
  entry->executable = std::move(*executable);
  entry->hasPerBindingKernels =
      std::any_of(entry->bundle.kernels.begin(), entry->bundle.kernels.end(),
                  [](const BundleKernel &k) { return k.perBinding; });
  entry->arenaBytes = entry->bundle.memoryPlan.peakBytes;
  if (sibling)
    adoptBoundArena(plan, *sibling, *entry);
  if (entry->hasPerBindingKernels)
    entry->arenaBytes = std::max(entry->arenaBytes, minArenaBytes);
  std::lock_guard<std::mutex> lock(mutex);
  if (boundBundles.size() >= kKeptBindings)
    boundBundles.erase(boundBundles.begin());
  boundBundles.emplace_back(boundKey, entry);
  return std::shared_ptr<const LoadedBundle>(std::move(entry));
}

struct SymbolicGraph::Prepared {
  std::weak_ptr<SessionState> session;
  Graph graph;
  Graph canonical;
  BundleKey key;
  std::string keyHex;
  DimRanges ranges;
  /// declaredArenaBytes' value (worked out at the first call).
  mutable std::once_flag arenaOnce;
  mutable std::uint64_t declaredArena = 0;
};

namespace {

/// The arena of `plan`'s bundle bound to the declared largest values of
/// the dims (`ranges`) (the others at `dims`, the first call's), worked out
/// once: 0 where no range is declared, the bundle has no per-binding
/// kernels (no arena is kept across bindings), or that binding fails. An
/// arena that size is a hint only: a binding whose plan needs more (first
/// fit need not grow with the dims) gets a larger one, as without it.
std::uint64_t declaredArenaBytes(const DimRanges &ranges, std::once_flag &once,
                                 std::uint64_t &bytes, const BindingPlan &plan,
                                 const DimBindings &dims) {
  std::call_once(once, [&] {
    const std::vector<BundleKernel> &kernels = plan.bundle().kernels;
    if (ranges.empty() ||
        std::none_of(kernels.begin(), kernels.end(),
                     [](const BundleKernel &k) { return k.perBinding; }))
      return;
    DimBindings largest = dims;
    for (const auto &[name, range] : ranges)
      largest[name] = range.hi;
    if (Expected<Bundle> bound = bindBundle(plan, largest); bound.ok())
      bytes = bound->memoryPlan.peakBytes;
  });
  return bytes;
}

} // namespace

const Graph &SymbolicGraph::graph() const {
  static const Graph none;
  return prepared ? prepared->graph : none;
}

Expected<SymbolicGraph> prepareSymbolic(Session &session, const Graph &graph,
                                        DimRanges ranges) {
  if (Status valid = checkDimRanges(graph, ranges); !valid.ok())
    return Status::error("prepareSymbolic: " + valid.message());
  const std::shared_ptr<SessionState> &state = TensorAccess::state(session);
  auto prepared = std::make_shared<SymbolicGraph::Prepared>();
  prepared->session = state;
  prepared->graph = graph;
  prepared->ranges = std::move(ranges);
  prepared->canonical = canonicalize(graph);
  prepared->key = BundleKey::make(prepared->canonical, state->target,
                                  state->compileOptions());
  prepared->keyHex = prepared->key.toHex();
  SymbolicGraph result;
  result.prepared = std::move(prepared);
  return result;
}

Expected<std::vector<Tensor>> callSymbolic(Session &session, const Graph &graph,
                                           std::span<const Tensor> inputs,
                                           bool *refused) {
  Expected<SymbolicGraph> prepared = prepareSymbolic(session, graph);
  if (!prepared.ok())
    return prepared.status();
  return callSymbolic(session, *prepared, inputs, refused);
}

Expected<std::vector<Tensor>> callSymbolic(Session &session,
                                           const SymbolicGraph &prepared,
                                           std::span<const Tensor> inputs,
                                           bool *refused) {
  const std::shared_ptr<SessionState> &state = TensorAccess::state(session);
  if (refused)
    *refused = false;
  if (!prepared.prepared)
    return Status::error("callSymbolic: the symbolic graph was not prepared "
                         "(prepareSymbolic)");
  if (prepared.prepared->session.lock() != state)
    return Status::error("callSymbolic: the symbolic graph was prepared for "
                         "another session");
  const Graph &graph = prepared.prepared->graph;
  if (inputs.size() != graph.inputs.size())
    return Status::error("callSymbolic: the graph takes " +
                         std::to_string(graph.inputs.size()) +
                         " inputs, given " + std::to_string(inputs.size()));
  // Every input computed: blocks pending in any stream are run first.
  std::vector<std::vector<std::int64_t>> shapes;
  shapes.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::shared_ptr<TensorNode> &node = TensorAccess::node(inputs[i]);
    // Made only for a message: a decoder's step passes hundreds of inputs.
    auto what = [&] {
      const std::string &name = graph.tensors[graph.inputs[i]].name;
      return "callSymbolic: input " + std::to_string(i) +
             (name.empty() ? "" : " ('" + name + "')");
    };
    if (!node)
      return Status::error(what() + " is an invalid tensor handle");
    if (node->session != state)
      return Status::error(what() + " belongs to another session");
    if (RecordingStream *owner = node->pending.load(std::memory_order_acquire))
      (void)state->flush(*owner);
    if (node->error)
      return Status::error(what() + " failed: " + *node->error);
    if (!node->data)
      return Status::error(what() + " is still pending after a sync");
    const TensorType &wanted = graph.typeOf(graph.inputs[i]);
    if (node->type.elementType != wanted.elementType ||
        node->type.rank() != wanted.rank())
      return Status::error(what() + " is a " + node->type.toString() +
                           ", the graph takes a " + wanted.toString());
    shapes.push_back(node->type.shape);
  }
  // The inputs' names, for dimsFromInputShapes' message alone.
  auto inputNames = [&] {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::string &name = graph.tensors[graph.inputs[i]].name;
      names.push_back(name.empty() ? "input " + std::to_string(i) : name);
    }
    return names;
  };
  Expected<DimBindings> dims = dimsFromInputShapes(graph, shapes);
  if (!dims.ok())
    dims = dimsFromInputShapes(graph, shapes, inputNames());
  if (!dims.ok())
    return Status::error("callSymbolic: " + dims.message());
  if (Status inRange = checkDimsInRanges(*dims, prepared.prepared->ranges);
      !inRange.ok())
    return Status::error("callSymbolic: " + inRange.message());

  const Graph &canonical = prepared.prepared->canonical;
  const BundleKey &key = prepared.prepared->key;
  const std::string &keyHex = prepared.prepared->keyHex;
  state->count([](EngineCounters &c) { ++c.blocks; });
  auto found = state->findOrCompileSymbolic(canonical, key, keyHex);
  if (auto *failure = std::get_if<LoadFailure>(&found)) {
    if (refused)
      *refused = failure->compileFailed;
    return Status::error(failure->message);
  }
  const std::shared_ptr<const BindingPlan> &symbolic = std::get<0>(found);
  Expected<std::shared_ptr<const LoadedBundle>> loaded = state->loadBound(
      *symbolic, *dims, keyHex + ":" + dimsKey(*dims),
      declaredArenaBytes(prepared.prepared->ranges,
                         prepared.prepared->arenaOnce,
                         prepared.prepared->declaredArena, *symbolic, *dims));
  if (!loaded.ok())
    return loaded.status();

  std::vector<StoragePtr> storages;
  for (const Tensor &input : inputs)
    storages.push_back(TensorAccess::node(input)->data);
  RecordingStream &stream = state->currentStream();
  Expected<std::vector<StoragePtr>> outputs = [&] {
    std::lock_guard<std::mutex> lock(stream.mutex);
    // The blocks recorded so far run before this call.
    if (Status flushed = state->flushLocked(stream); !flushed.ok())
      return Expected<std::vector<StoragePtr>>(flushed);
    return state->run(stream, **loaded, storages);
  }();
  if (!outputs.ok()) {
    state->count([](EngineCounters &c) { ++c.failedBlocks; });
    return outputs.status();
  }
  const Bundle &bound = (*loaded)->bundle;
  std::vector<Tensor> results;
  for (std::size_t o = 0; o < outputs->size(); ++o)
    results.push_back(materialized(state, bound.graph.typeOf(bound.outputs[o]),
                                   std::move((*outputs)[o])));
  return results;
}

} // namespace fuse::engine
