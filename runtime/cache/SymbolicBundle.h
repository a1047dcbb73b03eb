//===- SymbolicBundle.h - Binding a symbolic bundle's dims ------*- C++ -*-===//
//
// A bundle compiled from a graph with symbolic dims (issue 22) serves every
// value of them: its kernels take the dims through their iteration counts
// (KernelAbi.h, "Runtime dims") and its memory plan gives the
// intermediates' sizes as formulas. Before a runtime loads or runs it, the
// dims are bound: read from the inputs' shapes (dimsFromInputShapes), then
// bindBundle makes the static bundle of those values (the graph's types,
// each kernel's iteration count and the arena planned for them), which
// every runtime runs as it runs any bundle. The kernels' payloads are
// shared, never compiled again.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_SYMBOLICBUNDLE_H
#define FUSE_RUNTIME_CACHE_SYMBOLICBUNDLE_H

#include "runtime/cache/Bundle.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace fuse {

/// The byte size of `type` over `graph`'s dims; an error past 2^63.
Expected<DimExpr> byteSizeExpr(const Graph &graph, const TensorType &type);

/// The values of `graph`'s dim symbols that the given shapes of its inputs
/// (in input order) say: a dim that is one symbol binds it; a static dim and
/// a dim that is an expression of bound symbols must equal their value. An
/// error names the input (by `names[i]` where given) and the dim, where the
/// ranks or a static dim differ, where two inputs disagree about a symbol,
/// where a dim is not a possible size (negative, or not the value of its
/// expression), or where a symbol is left without a value.
Expected<DimBindings>
dimsFromInputShapes(const Graph &graph,
                    std::span<const std::vector<std::int64_t>> shapes,
                    std::span<const std::string> names = {});

/// The values a symbolic dim is declared to take, both ends included
/// (issue 22: fuse-run's `--dim-range sequence=1..2048`): a binding outside
/// is refused, and a decoder's arena is sized for the largest
/// (engine::prepareSymbolic).
struct DimRange {
  std::int64_t lo = 0, hi = 0;
};
/// Declared ranges, by dim symbol.
using DimRanges = std::map<std::string, DimRange, std::less<>>;

/// "sequence=1..2048".
std::string dimRangeText(const std::string &name, const DimRange &range);

/// An error where a range of `ranges` names no dim symbol of `graph` (the
/// message lists its symbols), has a negative end, or has lo > hi.
Status checkDimRanges(const Graph &graph, const DimRanges &ranges);

/// An error naming the first dim of `values` outside its range in `ranges`
/// (its value and the range); dims without a range are not checked.
Status checkDimsInRanges(const DimBindings &values, const DimRanges &ranges);

/// The value of a kernel's runtime dim `name` (BundleKernel::runtimeDims):
/// a symbol of `dims`, or a sum of terms among its expressions named by its
/// text (DimExpr::toString), evaluated at `values`. An error where it is
/// neither, has no value, or is no size.
Expected<std::int64_t> runtimeDimValue(const DimTable &dims,
                                       const std::string &name,
                                       const DimBindings &values);

/// Per intermediate of symbolic `bundle` (MemoryPlan::symbolicSlices): a
/// slice of the arena's bound part that a binding of other dims keeps,
/// bound by a per-binding kernel that does not depend on the dims (a
/// weight's packing). bindBundle places these first; a binding that takes
/// over another's arena needs them where they lay (engine::callSymbolic).
std::vector<bool> slicesKeptAcrossDims(const Bundle &bundle);

/// What binding a symbolic bundle computes, worked out once per bundle
/// (issue 22): a decoder binds one bundle once per token. It holds the
/// bundle (shared), per op of its graph the dim codes its operand and
/// result types and its attributes mention, the tensors with symbolic dims,
/// what each kernel's runtime dims name, and the bound slices a binding of
/// other dims keeps. It also remembers the values of the dims (by code) at
/// the latest bindings whose bound graph validated: a binding validates
/// again only what can differ from all of them (below). Safe to share
/// between threads.
class BindingPlan {
public:
  explicit BindingPlan(std::shared_ptr<const Bundle> symbolic);
  BindingPlan(const BindingPlan &) = delete;
  BindingPlan &operator=(const BindingPlan &) = delete;

  const Bundle &bundle() const { return *symbolic; }
  const std::shared_ptr<const Bundle> &sharedBundle() const { return symbolic; }

  /// Per op of the graph, the dim codes it mentions (sorted, once each).
  std::vector<std::vector<std::int64_t>> opDims;
  /// The tensors whose types have symbolic dims.
  std::vector<TensorId> symbolicTensors;
  /// Per kernel, per runtime dim: the index of the symbol it names, or
  /// -1 - i for dim-table entry i (a sum named by its text), or kNoDim.
  static constexpr std::int64_t kNoDim =
      std::numeric_limits<std::int64_t>::min();
  std::vector<std::vector<std::int64_t>> runtimeDimRefs;
  /// slicesKeptAcrossDims(bundle()).
  std::vector<bool> keptAcrossDims;
  /// The ops whose attributes hold a symbolic dim (a slice's sizes, a splat
  /// constant's shape, dim_value's dim): the only attributes a binding
  /// changes.
  std::vector<std::uint32_t> attributeDimOps;
  /// Per op of the graph: whether its symbolic types satisfy its type rule
  /// and the rule only compares dims for equality or moves them
  /// (elementwise, compare, select, cast, broadcast, transpose, matmul; no
  /// dim in its attributes). Equal dim codes bind to equal values, so its bound
  /// types satisfy the rule at every binding, and validateBound does not infer
  /// it again (a decoder's step, its past length new at every step, inferred
  /// every op that mentions it).
  std::vector<bool> validAtEveryBinding;

  /// Per earlier binding whose bound graph validated (the latest few), the
  /// value of each dim code (by -1 - code; kNoDim where a code was not
  /// evaluated).
  std::vector<std::vector<std::int64_t>> validatedBindings() const;
  /// Records a binding whose bound graph validated: call it only with the
  /// values of a graph bound from bundle() (bindBundle does).
  void addValidated(std::vector<std::int64_t> values) const;

private:
  std::shared_ptr<const Bundle> symbolic;
  mutable std::mutex mutex;
  /// See validatedBindings().
  mutable std::vector<std::vector<std::int64_t>> validated;
};

/// The static bundle of `bundle` with its dims bound to `values`: the
/// graph's types bound (tensors and ops keep their numbers), each kernel's
/// iteration count evaluated and the arena planned for the bound sizes
/// (ArenaPlanner.h), the values and the axes they bound kept
/// (Bundle::boundDims) for verifyBundle. The bound graph is validated
/// (validate(), in place: no graph is rebuilt), as bindDims validates its
/// own; the kernels' payloads are shared, not copied (KernelPayload).
/// A static bundle is answered as it is (no values may be given).
Expected<Bundle> bindBundle(const Bundle &bundle, const DimBindings &values);

/// bindBundle of `plan`'s bundle, the same bundle or the same error, with
/// the work that does not depend on the values done once in the plan: the
/// bound graph's structure and the ops whose dims had the same values at a
/// binding that validated are not validated again (an op's bound operand,
/// result and attributes are a function of the values of the codes it
/// mentions), the other ops are inferred at their bound types; where any
/// check fails, the whole graph is validated for the message.
Expected<Bundle> bindBundle(const BindingPlan &plan, const DimBindings &values);

/// bindBundle(plan, values) made in `bound` instead of a copy of the
/// symbolic bundle (a decoder's step reuses the binding it drops): `bound`
/// must be a binding of `plan`'s bundle that bindBundle(plan, ...) or this
/// function made, unchanged since, so that only what the values decide is
/// written again (the symbolic tensors' shapes, the attributes of
/// attributeDimOps, the kernels' dims arrays and iteration counts, the bound
/// dims' values and the memory plan); the rest (names, ops, kernels'
/// payloads) is already the symbolic bundle's. It is validated and verified
/// as bindBundle's is, with the same messages. A bundle of another shape
/// (tensor, op or kernel counts, bound axes, dim table) is refused. After a
/// failure `bound` is no binding: drop it.
Status rebindBundle(const BindingPlan &plan, const DimBindings &values,
                    Bundle &bound);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_SYMBOLICBUNDLE_H
