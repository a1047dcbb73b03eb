//===- Bundle.h - The compiled form of one graph ----------------*- C++ -*-===//
//
// What the compiler leaves for the runtime, and what the cache stores: the
// canonical graph, its kernels with their payloads (PTX, cubin, host shared
// object), launch configurations and argument bindings, the launch order,
// the memory plan of intermediates, aliasing, and the target and version
// that made it. A runtime executes a bundle without any compiler; the
// reference runtime executes it by interpreting the graph ops each kernel
// covers.
//
// Plain data: strings, vectors, integers and enums, so that serialization
// (cereal, with the cache) can walk it field by field. Never depends on MLIR
// or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_BUNDLE_H
#define FUSE_RUNTIME_CACHE_BUNDLE_H

#include "runtime/cache/KernelPayload.h"
#include "runtime/device/KernelAbi.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

/// A compilation target: `sm_80`, `sm_90` (PTX, cubin where ptxas ran) or
/// `host-x86-64-v3`, `host-x86-64-v4` (a host shared object).
struct Target {
  std::string name;

  bool isCuda() const { return name.starts_with("sm_"); }
  bool isHost() const { return name.starts_with("host-"); }
  /// Accepts the names above (any `sm_<digits>`); a clear error otherwise.
  static Expected<Target> parse(std::string_view name);
  bool operator==(const Target &) const = default;
};

enum class PayloadKind : std::uint8_t {
  /// The reference runtime interprets the covered ops; nothing to load.
  None,
  PtxText,
  Cubin,
  HostSharedObject,
};

enum class ScheduleKind : std::uint8_t {
  Pointwise,
  RowReduction,
  ColumnReduction,
  FullReduction,
  Matmul,
  /// One element per work item, each reducing its window (pooling).
  WindowReduction,
  /// Rows written or combined at run-time indices, each work item owning
  /// its columns.
  Scatter,
  /// Scores (a matmul), a row softmax or another row kernel over them and a
  /// second matmul, one block of query rows per work item: the score matrix
  /// is never stored.
  Attention,
  /// Several kernels in one launch (a fuse.fusion of kind horizontal): their
  /// iteration spaces laid end to end.
  Horizontal,
  /// Only the reference runtime can run it.
  ReferenceOnly,
};

std::string_view payloadKindName(PayloadKind kind);
std::string_view scheduleKindName(ScheduleKind kind);

enum class BindingKind : std::uint8_t { GraphInput, GraphOutput, Intermediate };

/// "input", "output" or "intermediate" (the names bundle files use).
std::string_view bindingKindName(BindingKind kind);

/// One kernel argument: a graph input or output by position, or an
/// intermediate by its index in MemoryPlan::intermediates.
struct KernelBinding {
  BindingKind kind = BindingKind::GraphInput;
  std::uint32_t index = 0;
  bool operator==(const KernelBinding &) const = default;
};

struct BundleKernel {
  /// For messages and profiles.
  std::string name;
  std::string target;
  PayloadKind payloadKind = PayloadKind::None;
  /// Shared by copies of the bundle (KernelPayload.h).
  KernelPayload payload;
  /// The symbol (host) or `.entry` (PTX) to launch.
  std::string entry;
  ScheduleKind schedule = ScheduleKind::ReferenceOnly;
  LaunchConfig launch;
  /// In the order the kernel takes its buffers.
  std::vector<KernelBinding> bindings;
  /// Indices into Graph::ops, in graph order: what the kernel computes.
  std::vector<std::uint32_t> ops;
  /// Indices into Graph::ops of the ops whose run-time checks the kernel
  /// reports (gathers and scatters: an index outside its axis), in the
  /// order of its
  /// error record (KernelAbi.h); empty: the kernel takes no error record.
  std::vector<std::uint32_t> checkedOps;
  /// Runs once per binding of the graph inputs, not on every run: it reads
  /// only graph inputs (a weight it packs) and writes only the bound part
  /// of the arena (MemoryPlan::boundBytes), which later runs read. A runtime
  /// that keeps its buffers between runs (PreparedBundle) skips it until an
  /// input is bound again; one that binds afresh each run launches it.
  bool perBinding = false;
  /// For a per-binding kernel: the graph inputs it reads, by position. It
  /// runs again when one of them is bound anew.
  std::vector<std::uint32_t> bindingInputs;
  /// For a per-binding kernel of a symbolic bundle: what it writes depends
  /// on the dims' values (an iota of the sequence, or what reads one), not
  /// on its inputs alone, so it runs again when the dims are bound to other
  /// values (a weight's packing does not).
  bool dimsDependent = false;
  /// In a symbolic bundle (Bundle::isSymbolic), a kernel whose iteration
  /// count depends on the dims: that count over the graph's dim symbols
  /// (KernelAbi.h, "Runtime dims"); launch.iterations is then 0 until
  /// bindBundle evaluates it. Empty for every kernel of a static bundle.
  std::optional<DimExpr> symbolicIterations;
  /// The dims a host kernel reads as values (an attention's key count), in
  /// the order of its dims array (KernelAbi.h, "Runtime dims"): symbols of
  /// the graph, each once. Empty: the kernel takes no dims array.
  std::vector<std::string> runtimeDims;
  /// In a bound bundle: the values of runtimeDims, which the runtime passes
  /// in the kernel's dims array (bindBundle sets them): those of
  /// Bundle::boundDims. Empty in a symbolic bundle.
  std::vector<std::int64_t> dimValues;
  bool operator==(const BundleKernel &) const = default;
};

/// Where an intermediate lives in the one arena of a run.
struct ArenaSlice {
  TensorId tensor = kInvalidTensor;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  bool operator==(const ArenaSlice &) const = default;
};

/// An intermediate of a symbolic bundle, whose size may depend on the dims:
/// what the arena planner needs to place it once they are bound.
struct SymbolicSlice {
  TensorId tensor = kInvalidTensor;
  /// Its size in bytes over the graph's dim symbols (a constant where it
  /// does not depend on them).
  DimExpr bytes;
  /// Positions in the launch order of the first and last kernel using it,
  /// and whether per-binding kernels write it (ArenaPlanner.h).
  std::uint32_t firstUse = 0;
  std::uint32_t lastUse = 0;
  bool bound = false;
  bool operator==(const SymbolicSlice &) const = default;
};

struct MemoryPlan {
  /// In a symbolic bundle, one entry per entry of `symbolicSlices` with
  /// its tensor, offset and size 0 (peakBytes and boundBytes 0 too) until
  /// bindBundle plans the arena for the bound dims.
  std::vector<ArenaSlice> intermediates;
  /// Empty in a static bundle. In a symbolic one (issue 22), the
  /// intermediates' sizes as formulas over the dims, planned when a run
  /// binds them (bindBundle): the arena's peak is computed then.
  std::vector<SymbolicSlice> symbolicSlices;
  /// The arena's size: every slice ends at or before it.
  std::uint64_t peakBytes = 0;
  /// The arena's first `boundBytes`: the slices that per-binding kernels
  /// write (BundleKernel::perBinding), live from one binding of the inputs
  /// to the next, never shared with other slices. First, so that the
  /// bindings of a symbolic bundle place them at the same offsets.
  std::uint64_t boundBytes = 0;
  bool operator==(const MemoryPlan &) const = default;
};

/// Output `output` is written in place into the buffer of input `input`,
/// which must have the same byte size.
struct OutputAlias {
  std::uint32_t output = 0;
  std::uint32_t input = 0;
  bool operator==(const OutputAlias &) const = default;
};

/// A tensor's axis that was a symbolic dim before bindBundle bound it.
struct BoundAxis {
  TensorId tensor = kInvalidTensor;
  std::uint32_t axis = 0;
  /// Its dim's code in BoundDims::dims.
  std::int64_t dim = 0;
  bool operator==(const BoundAxis &) const = default;
};

/// What bindBundle bound a symbolic bundle's dims to: the symbolic graph's
/// dim table, the value of each of its symbols (in the table's order), and
/// every tensor axis that was symbolic with its dim. verifyBundle checks the
/// kernels' dims arrays (BundleKernel::dimValues) and the graph's shapes
/// against these values: a kernel's dims array must agree with the buffers
/// it reads.
struct BoundDims {
  DimTable dims;
  std::vector<std::int64_t> values;
  std::vector<BoundAxis> axes;

  bool empty() const { return dims.empty() && values.empty() && axes.empty(); }
  /// Each symbol of `dims` to its value; `values` one per symbol.
  DimBindings bindings() const;
  bool operator==(const BoundDims &) const = default;
};

struct Bundle {
  /// The canonical graph its kernels were compiled from.
  Graph graph;
  /// Where the compiler rewrote the graph it was asked for before making
  /// kernels (convolutions lowered to matmuls, issue 20), hashGraph() of the
  /// graph asked for, in hex: the one a cache key names. Empty when `graph`
  /// is the graph asked for.
  std::string sourceGraphHash;
  std::string target;
  /// fuse::versionId() of the compiler that made it.
  std::string versionId;
  std::vector<BundleKernel> kernels;
  /// Indices into `kernels`, in launch order.
  std::vector<std::uint32_t> launchOrder;
  MemoryPlan memoryPlan;
  std::vector<OutputAlias> aliases;
  /// The graph's inputs and outputs, in binding order.
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  /// In a bundle bound from a symbolic one (bindBundle): what its dims were
  /// bound to. Empty in any other bundle.
  BoundDims boundDims;
  /// Whether the graph has symbolic dims (issue 22): its kernels take the
  /// dims' values at run time, and a runtime binds them (bindBundle,
  /// SymbolicBundle.h) before it loads or runs the bundle.
  bool isSymbolic() const { return graph.isSymbolic(); }
  bool operator==(const Bundle &) const = default;
};

/// The tensor a kernel binding refers to.
TensorId boundTensor(const Bundle &bundle, const KernelBinding &binding);

/// Per binding of `kernel`: the byte size of the bound tensor.
std::vector<std::uint64_t> bindingBytes(const Bundle &bundle,
                                        const BundleKernel &kernel);

/// Structural checks a runtime makes before loading: indices in range,
/// slices inside the arena, inputs and outputs matching the graph, aliases
/// of equal size, a bound bundle's dims arrays and shapes the values its
/// dims were bound to (BoundDims). Says what is wrong.
Status verifyBundle(const Bundle &bundle);

/// A bundle of one reference-only kernel that covers every op of `graph`,
/// binding its inputs, then its outputs: any graph runs on the reference
/// runtime through it.
Bundle makeReferenceBundle(const Graph &graph);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_BUNDLE_H
