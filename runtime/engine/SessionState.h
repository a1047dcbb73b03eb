//===- SessionState.h - What a Session and its tensors hold -----*- C++ -*-===//
//
// Private to runtime/engine: the state behind the Session and Tensor
// handles of Engine.h (tensor nodes, per-thread recording streams, loaded
// bundles), shared by the files of this folder.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ENGINE_SESSIONSTATE_H
#define FUSE_RUNTIME_ENGINE_SESSIONSTATE_H

#include "runtime/engine/Engine.h"
#include "runtime/engine/Storage.h"

#include "runtime/cache/BundleKey.h"
#include "runtime/cache/SymbolicBundle.h"
#include "runtime/device/DeviceRuntime.h"

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>

namespace fuse::engine {

using Clock = std::chrono::steady_clock;

struct RecordingStream;

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

/// A run's arena kept for the next run of the same bundle (only for a
/// bundle with per-binding kernels, BundleKernel::perBinding): its bound
/// part holds what those kernels wrote from `inputs` (weights packed), so a
/// later run over the same storages skips them.
struct BoundArena {
  device::Buffer arena;
  /// By graph input position; set where a per-binding kernel reads it. A
  /// storage is immutable once bound, so the same storage means the same
  /// bytes; one that died (written in place, or dropped) never matches.
  std::vector<std::weak_ptr<Storage>> inputs;
  /// Kept by a binding of other dims (adoptBoundArena): what the
  /// per-binding kernels of LoadedBundle::dimsDependent wrote is stale.
  bool otherDims = false;
};

struct LoadedBundle {
  Bundle bundle;
  device::Executable executable;
  /// The bytes of a run's arena: the memory plan's peak, or more for a
  /// binding of a symbolic bundle, so that the next binding (a decoder's
  /// step, one key longer) may take the arena with what the per-binding
  /// kernels wrote in it.
  std::uint64_t arenaBytes = 0;
  /// Whether any kernel runs once per binding of the inputs.
  bool hasPerBindingKernels = false;
  /// A binding of a symbolic bundle: its per-binding kernels whose results
  /// depend on the dims (BundleKernel::dimsDependent), which run again when
  /// the arena comes from a binding of other dims.
  std::vector<std::uint32_t> dimsDependent;
  /// The arena of the last run that finished; a run takes it (so two
  /// concurrent runs never share one) and gives it back when it succeeds.
  mutable std::mutex boundMutex;
  mutable std::optional<BoundArena> bound;
};

/// Why findOrLoad failed: the compiler refused (fall back), or anything
/// else (fail).
struct LoadFailure {
  bool compileFailed = false;
  std::string message;
};

/// `graph`, named for messages: its hash and its first ops.
std::string describeGraph(const Graph &graph);

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

  /// options.compileOptions, which Session::setCompileOptions may change.
  CompileOptions compileOptions() const {
    std::lock_guard<std::mutex> lock(mutex);
    return options.compileOptions;
  }

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

  /// Graphs with symbolic dims called whole (callSymbolic, issue 22): each
  /// bundle compiled or read once by key, and its bindings most recently
  /// loaded (at most kKeptBindings), by key and dims. Guarded by `mutex`.
  /// A symbolic bundle is kept with its binding plan (BindingPlan).
  std::map<std::string, std::shared_ptr<const BindingPlan>> symbolicBundles;
  std::vector<std::pair<std::string, std::shared_ptr<LoadedBundle>>>
      boundBundles;
  /// `canonical`'s bundle from the cache or the compiler (stored in the
  /// cache; a failure to store it is put in `warning`), counted; `mutex`
  /// must be held. A compile's failure has compileFailed set.
  std::variant<Bundle, LoadFailure>
  lookupOrCompileLocked(const Graph &canonical, const BundleKey &key,
                        std::string &warning);
  /// The symbolic bundle of `canonical` and its binding plan: from the
  /// session, the cache or the compiler (a compile's failure has
  /// compileFailed set).
  std::variant<std::shared_ptr<const BindingPlan>, LoadFailure>
  findOrCompileSymbolic(const Graph &canonical, const BundleKey &key,
                        const std::string &keyHex);
  /// `plan`'s bundle bound to `dims` and loaded (kept by `boundKey`, the
  /// symbolic bundle's key, ':' and the dims): the code of another kept
  /// binding of it is shared (DeviceRuntime::rebind), not loaded again.
  /// `minArenaBytes`: where it has per-binding kernels, its arena is at
  /// least that large (the peak at the declared largest dims).
  Expected<std::shared_ptr<const LoadedBundle>>
  loadBound(const BindingPlan &plan, const DimBindings &dims,
            const std::string &boundKey, std::uint64_t minArenaBytes = 0);
  /// Syncs `stream`: its mutex must be held.
  Status flushLocked(RecordingStream &stream);
  Status flush(RecordingStream &stream) {
    std::lock_guard<std::mutex> lock(stream.mutex);
    return flushLocked(stream);
  }
};

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

} // namespace fuse::engine

#endif // FUSE_RUNTIME_ENGINE_SESSIONSTATE_H
