//===- Engine.h - The lazy tensor API ---------------------------*- C++ -*-===//
//
// Sessions and tensors. Operations on tensors are recorded, not run, into the
// calling thread's stream of the session (one stream per session and
// thread). At a sync point (a read, an explicit flush, the block size cap)
// the recorded block becomes a Graph:
//   - inputs: tensors materialized earlier (uploads, results of earlier
//     blocks), each bound once however often it is used;
//   - outputs: recorded tensors that a live handle still refers to; a
//     tensor whose last handle was dropped before the sync is no output, and
//     ops that only fed such tensors are removed (free_handle);
// canonicalized, keyed (BundleKey: canonical graph, target, version id,
// compile options), looked up in the session's loaded executables, then in
// the BundleCache (memory, then disk), compiled on a miss through the
// injected Compiler, and submitted as one command batch with one fence
// (runBundle).
//
// When the compiler fails on a block, the block runs unfused: every op is
// compiled (and cached) on its own and run as its own kernel, with a warning,
// and the fallback is counted. Only if one op cannot be compiled alone do
// the block's tensors fail, with an error that names the op; the stream
// itself stays usable, and so does every tensor materialized before.
//
// Errors are values: an op with invalid operands (wrong shapes, another
// session's tensor) or a failed block gives tensors whose status() holds the
// first message, and every op on such a tensor gives the same failure.
// Nothing throws.
//
// Threads: a tensor recorded on one thread and used by an op on another is
// materialized first (the consuming stream flushes the producing stream and
// waits for it), then bound in the consuming stream's block through an alias
// handle: an independent entry over the same immutable buffer, so dropping
// one never frees it under the other. Reading a tensor from any thread
// flushes the stream that records it.
//
// Memory: a block's results stay on the device (device buffers shared by
// handles and aliases, freed with the last one) until a read copies them
// back; an upload keeps its host bytes and is uploaded once, in the batch of
// the first block that uses it. Each block waits for its fence before its
// tensors count as materialized, so a failure is known at the sync point.
// In place: on the host, an input of a block that no handle refers to any
// more (the block holds its last use) may have an output of its type
// written over its buffer instead of a fresh one, when the bundle is
// same-shape elementwise and one Pointwise kernel both reads that input
// and writes that output (each element read, then written, by the same
// iteration; host kernels assume no no-alias on their buffers). GPU
// kernels mark their pointers noalias and read inputs through the
// non-coherent cache, so cuda never writes in place. Counted:
// EngineCounters::inPlaceOutputs.
//
// Plain C++ only: the runtime never links MLIR or LLVM, and this library
// never includes a compiler header (the compiler is injected).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ENGINE_ENGINE_H
#define FUSE_RUNTIME_ENGINE_ENGINE_H

#include "runtime/Compiler.h"
#include "runtime/cache/BundleCache.h"
#include "runtime/cache/SymbolicBundle.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/Interpreter.h"
#include "runtime/ir/Status.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fuse::engine {

enum class DeviceChoice {
  /// The best device present: cuda when CudaRuntime::create succeeds (a
  /// driver, $FUSE_CUDA_DRIVER or libcuda.so.1, and a device), otherwise
  /// the host; a `host-*` SessionOptions::target asks for the host. The
  /// choice and its reason are Session::deviceNote(), also passed to
  /// SessionOptions::onWarning when one is set (never printed otherwise).
  /// On cuda the injected compiler must make PTX: inject a
  /// TargetDispatchCompiler (compiler/TargetCompiler.h) to serve either.
  Default,
  Host,
  /// The reference runtime: only when asked for.
  Reference,
  /// The CUDA driver's device 0 (libcuda.so.1, or $FUSE_CUDA_DRIVER); the
  /// target is the device's `sm_XY`, so the injected compiler must make
  /// PTX. Fails clearly without a driver, a device, or a build with CUDA
  /// support.
  Cuda,
};

struct SessionOptions {
  DeviceChoice device = DeviceChoice::Default;
  /// Compiles blocks missing from the cache; not owned; null: only cached
  /// bundles run, and a missing one is an error that names the graph.
  Compiler *compiler = nullptr;
  /// Not owned; null: nothing persists beyond the session.
  BundleCache *cache = nullptr;
  CompileOptions compileOptions;
  /// The compilation target; empty: the device's own (the best host ISA
  /// level, or "reference").
  std::string target;
  /// A block is flushed when it reaches this many ops.
  std::size_t maxBlockOps = 512;
  /// Receives warnings (compile failures that fell back); null: stderr.
  std::function<void(const std::string &)> onWarning;
};

/// Counters since the session was opened, over every thread.
struct EngineCounters {
  std::uint64_t opsRecorded = 0;
  /// Blocks flushed with at least one output.
  std::uint64_t blocks = 0;
  /// Blocks flushed with nothing left to compute.
  std::uint64_t emptyBlocks = 0;
  /// Lookups answered by the session's loaded executables.
  std::uint64_t sessionHits = 0;
  /// Lookups answered by the BundleCache's memory, or its disk store.
  std::uint64_t memoryHits = 0;
  std::uint64_t diskHits = 0;
  std::uint64_t misses = 0;
  /// Successful compilations (fused blocks and single ops of a fallback).
  std::uint64_t compilations = 0;
  std::uint64_t compileFailures = 0;
  /// Over the compilations: kernels compiled to machine code, and kernels
  /// whose code came from the compiler's earlier compilations
  /// (Compilation::kernels).
  std::uint64_t kernelsCompiled = 0;
  std::uint64_t kernelsReused = 0;
  /// Of kernelsCompiled, those given the quick pipeline
  /// (CompileOptions::tieredKernels).
  std::uint64_t kernelsQuick = 0;
  /// Blocks that ran unfused because their compilation failed.
  std::uint64_t fallbacks = 0;
  /// Blocks whose tensors failed (a failed run, or an op that cannot be
  /// compiled even alone, or a missing bundle without a compiler).
  std::uint64_t failedBlocks = 0;
  /// Kernels launched and submissions (one per fused block).
  std::uint64_t kernelsLaunched = 0;
  std::uint64_t submissions = 0;
  /// Operands recorded on another thread's stream, materialized and
  /// aliased.
  std::uint64_t crossStreamSyncs = 0;
  /// Outputs written in place over an input buffer that no handle referred
  /// to any more (host device, same-shape elementwise kernels only).
  std::uint64_t inPlaceOutputs = 0;
  /// Runs of a symbolic graph's binding whose kept arena was too small: a
  /// larger one was allocated and the kept bound part (packed weights)
  /// copied into it (a declared --dim-range sizes the first for the
  /// largest dims, so that a decoder's steps copy none).
  std::uint64_t arenasOutgrown = 0;
  /// Device streams held now: one per thread that ran a block, let go when
  /// the thread exits (its pending block synced first).
  std::uint64_t deviceStreams = 0;
  std::chrono::nanoseconds compileTime{0};
  std::chrono::nanoseconds runTime{0};
};

class Session;
struct TensorNode;
struct SessionState;

/// A reference-counted handle to a tensor of a session. Copies share the
/// tensor; the last handle dropped frees it (or, while it is only recorded,
/// removes it from the block's outputs; or, when the block that uses it
/// last runs on the host and its kernel is same-shape elementwise, lets
/// that kernel write an output of the same type in place over its buffer:
/// EngineCounters::inPlaceOutputs). A default-constructed Tensor is
/// invalid.
class Tensor {
public:
  Tensor() = default;

  bool valid() const { return node != nullptr; }
  const TensorType &type() const;
  const std::vector<std::int64_t> &shape() const { return type().shape; }
  std::int64_t rank() const { return type().rank(); }
  ElementType elementType() const { return type().elementType; }

  /// Success, or why this tensor has no value (a recording error, a failed
  /// block). Does not sync.
  Status status() const;
  /// Whether its value is computed (or failed); false while recorded.
  bool materialized() const;

  /// Syncs the stream that records it and answers its value.
  Expected<HostTensorData> read() const;
  /// read(), every element converted to double.
  Expected<std::vector<double>> readDoubles() const;

  /// Number of handles (copies of this Tensor) alive, for tests.
  long useCount() const { return node.use_count(); }

private:
  friend struct TensorAccess;
  explicit Tensor(std::shared_ptr<TensorNode> node) : node(std::move(node)) {}
  std::shared_ptr<TensorNode> node;
};

class Session {
public:
  /// Fails when the device is not present (no supported host ISA level).
  static Expected<Session> open(SessionOptions options = {});

  /// Copies the data into a materialized tensor.
  Tensor upload(const TensorType &type, std::span<const std::byte> bytes);
  Tensor upload(const HostTensorData &data);
  /// Converted as DenseValue::fromDoubles converts.
  Tensor upload(const TensorType &type, std::span<const double> values);

  /// Syncs the calling thread's stream.
  Status flush();
  /// Syncs every thread's stream of this session.
  Status flushAll();
  /// The options of the compilations of blocks flushed from now on (work
  /// recorded before and not yet flushed included: flush() first to keep
  /// the old options for it). They are part of the bundle key.
  void setCompileOptions(const CompileOptions &options);
  CompileOptions compileOptions() const;

  EngineCounters counters() const;
  /// The target blocks are compiled for.
  const std::string &target() const;
  /// "host", "reference" or "cuda".
  std::string deviceName() const;
  /// One line: the device opened and why, e.g. "default device: host (no
  /// CUDA device: ...)" or "default device: cuda (sm_90)".
  const std::string &deviceNote() const;
  /// Hex keys of the blocks flushed, in order (for tests and tools); the
  /// most recent few thousand.
  std::vector<std::string> keysForTesting() const;

private:
  friend struct TensorAccess;
  explicit Session(std::shared_ptr<SessionState> state)
      : state(std::move(state)) {}
  std::shared_ptr<SessionState> state;
};

//===----------------------------------------------------------------------===//
// Operations: each records one op (or a few, for composites) into the
// calling thread's stream and answers its result.
//===----------------------------------------------------------------------===//

/// Any op of the table; `resultType` as for Graph::addOp.
Tensor apply(OpKind kind, std::span<const Tensor> operands,
             AttrMap attributes = {},
             std::optional<TensorType> resultType = {});

Tensor unary(OpKind kind, const Tensor &x);
Tensor binary(OpKind kind, const Tensor &a, const Tensor &b);

Tensor neg(const Tensor &x);
Tensor abs(const Tensor &x);
Tensor exp(const Tensor &x);
Tensor log(const Tensor &x);
Tensor sqrt(const Tensor &x);
Tensor rsqrt(const Tensor &x);
Tensor reciprocal(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor sigmoid(const Tensor &x);
Tensor erf(const Tensor &x);

Tensor add(const Tensor &a, const Tensor &b);
Tensor sub(const Tensor &a, const Tensor &b);
Tensor mul(const Tensor &a, const Tensor &b);
Tensor div(const Tensor &a, const Tensor &b);
Tensor max(const Tensor &a, const Tensor &b);
Tensor min(const Tensor &a, const Tensor &b);
Tensor pow(const Tensor &a, const Tensor &b);
Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &x);

Tensor compare(ComparePredicate predicate, const Tensor &a, const Tensor &b);
Tensor select(const Tensor &cond, const Tensor &a, const Tensor &b);
Tensor cast(const Tensor &x, ElementType to, bool isUnsigned = false);
/// A recorded constant in the calling thread's stream of `session`.
Tensor constant(Session &session, DenseValue value);
/// `value` of x's type and shape (a splat constant).
Tensor fullLike(const Tensor &x, double value);
Tensor broadcast(const Tensor &x, std::vector<std::int64_t> shape,
                 std::vector<std::int64_t> dims);
/// NumPy-style: x's dims align with the trailing dims of `shape`.
Tensor broadcastTo(const Tensor &x, std::vector<std::int64_t> shape);
Tensor reshape(const Tensor &x, std::vector<std::int64_t> shape);
Tensor transpose(const Tensor &x, std::vector<std::int64_t> permutation);
Tensor slice(const Tensor &x, std::vector<std::int64_t> offsets,
             std::vector<std::int64_t> sizes,
             std::vector<std::int64_t> strides);
Tensor concat(std::span<const Tensor> xs, std::int64_t axis);
Tensor reduce(ReduceKind kind, const Tensor &x, std::vector<std::int64_t> dims,
              bool keepDims = false);
Tensor argmax(const Tensor &x, std::int64_t axis, bool keepDims = false);
Tensor argmin(const Tensor &x, std::int64_t axis, bool keepDims = false);
Tensor matmul(const Tensor &a, const Tensor &b, bool transposeA = false,
              bool transposeB = false);

// Composites. `axis` may be negative (from the end).
Tensor softmax(const Tensor &x, std::int64_t axis = -1);
Tensor logSoftmax(const Tensor &x, std::int64_t axis = -1);
/// Over the last dim; gamma and beta (of the last dim's size) optional.
Tensor layerNorm(const Tensor &x, const Tensor &gamma = {},
                 const Tensor &beta = {}, double epsilon = 1e-5);
Tensor rmsNorm(const Tensor &x, const Tensor &gamma = {},
               double epsilon = 1e-6);
/// The tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Tensor gelu(const Tensor &x);
/// x [..., in] times weight [out, in] transposed, plus bias [out] if given.
Tensor linear(const Tensor &x, const Tensor &weight, const Tensor &bias = {});

/// Records every op of `graph` (ops, constants and all, in its order) over
/// `inputs`, one per graph input and of its type, and answers its outputs
/// in order: a model imported once, run like any other recorded ops (its
/// block keyed, cached and compiled as one). Each intermediate handle is
/// dropped after its last use. A wrong count or type of inputs fails every
/// output with a message naming the input.
std::vector<Tensor> call(Session &session, const Graph &graph,
                         std::span<const Tensor> inputs);

/// A call of a graph with symbolic dims (issue 22): compiled once for every
/// value of its dims (its bundle cached under the symbolic graph), bound to
/// the inputs' shapes (dimsFromInputShapes) and run at once, after the
/// blocks recorded so far. Every later call with other values of the dims
/// compiles nothing. An error where the inputs do not fit the graph, where
/// a run fails, or where the compiler cannot keep the dims symbolic (then
/// `refused`, where given, is set: the caller may bind the dims and call()
/// instead).
Expected<std::vector<Tensor>> callSymbolic(Session &session, const Graph &graph,
                                           std::span<const Tensor> inputs,
                                           bool *refused = nullptr);

/// A graph with symbolic dims made ready for callSymbolic once, for one
/// session: canonicalized and keyed (its graph hashed), so that each call
/// (a decoder's step) only binds the dims and runs. Copies share it.
class SymbolicGraph {
public:
  SymbolicGraph() = default;
  bool valid() const { return prepared != nullptr; }
  /// The graph as given.
  const Graph &graph() const;

private:
  friend Expected<SymbolicGraph>
  prepareSymbolic(Session &session, const Graph &graph, DimRanges ranges);
  friend Expected<std::vector<Tensor>>
  callSymbolic(Session &session, const SymbolicGraph &graph,
               std::span<const Tensor> inputs, bool *refused);
  struct Prepared;
  std::shared_ptr<const Prepared> prepared;
};

/// `graph` prepared for callSymbolic in `session`. `ranges`: the values its
/// dims are declared to take (checkDimRanges: an error where one names no
/// dim of the graph or is no range); a call binding a dim outside its range
/// is refused before anything runs, and where the bundle keeps an arena
/// across bindings (per-binding kernels: a decoder's packed weights), the
/// first binding sizes it for the declared largest values, so that a
/// binding of larger dims (the next step) takes it as it is rather than
/// copying it into a larger one.
Expected<SymbolicGraph> prepareSymbolic(Session &session, const Graph &graph,
                                        DimRanges ranges = {});
/// callSymbolic of a prepared graph; an error where it was prepared for
/// another session.
Expected<std::vector<Tensor>> callSymbolic(Session &session,
                                           const SymbolicGraph &graph,
                                           std::span<const Tensor> inputs,
                                           bool *refused = nullptr);

} // namespace fuse::engine

#endif // FUSE_RUNTIME_ENGINE_ENGINE_H
