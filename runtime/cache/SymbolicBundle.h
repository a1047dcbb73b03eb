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

/// The static bundle of `bundle` with its dims bound to `values`: the
/// graph's types bound (tensors and ops keep their numbers), each kernel's
/// iteration count evaluated and the arena planned for the bound sizes
/// (ArenaPlanner.h), the values and the axes they bound kept
/// (Bundle::boundDims) for verifyBundle. The bound graph is validated
/// (validate(), in place: no graph is rebuilt), as bindDims validates its
/// own; the kernels' payloads are shared, not copied (KernelPayload).
/// A static bundle is answered as it is (no values may be given).
Expected<Bundle> bindBundle(const Bundle &bundle, const DimBindings &values);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_SYMBOLICBUNDLE_H
