//===- ArenaFormula.h - A symbolic plan's arena as formulas ------*- C++
//-*-===//
//
// A symbolic bundle's arena is planned when a run binds its dims
// (bindBundle, planArena). Before that, its MemoryPlan::symbolicSlices give
// each intermediate's size as a DimExpr with its live range; this says what
// the planned arena will hold as formulas over the dims (issue 22):
//
//  - the bound part (the slices per-binding kernels write, end to end, each
//    aligned up to kArenaAlignment): a DimExpr, exact where every slice's
//    non-constant coefficients are multiples of the alignment (its size
//    modulo the alignment is then its constant's), else an upper bound that
//    adds kArenaAlignment - 1 for each slice that is not;
//  - the per-run part's live set: at each launch position, the sum of the
//    sizes of the other slices live there. The per-run part of any plan
//    (planned peak minus the bound part) holds every live set, so the
//    largest sum is a lower bound of it; first fit may leave gaps above it.
//    DimExpr has no max: the sums are kept as a list, and a sum another
//    sum dominates (their difference has no negative coefficient, so it is
//    at least as large at every binding of sizes >= 0) is dropped.
//
// Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_ARENAFORMULA_H
#define FUSE_RUNTIME_CACHE_ARENAFORMULA_H

#include "runtime/cache/Bundle.h"
#include "runtime/ir/DimExpr.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fuse {

struct ArenaFormula {
  /// The arena's bound part (MemoryPlan::boundBytes once planned).
  DimExpr boundBytes;
  /// Whether `boundBytes` is its value at every binding; else an upper
  /// bound (a slice whose size modulo the alignment varies with the dims).
  bool boundExact = true;
  /// The live-set sums of the per-run slices, none dominated by another
  /// (one zero where there are no per-run slices), in order of their first
  /// launch position. Their maximum is a lower bound of the planned
  /// arena's per-run part (MemoryPlan::peakBytes - boundBytes).
  std::vector<DimExpr> liveSums;

  /// "7347840" or "12288*sequence+64", prefixed "at most " where not exact.
  std::string boundString() const;
  /// "max(a, b, ...)", or the one sum where there is one.
  std::string perRunString() const;
  /// The bound part's formula at `bindings`.
  Expected<std::int64_t> evaluateBound(const DimBindings &bindings) const;
  /// The largest live-set sum at `bindings`.
  Expected<std::int64_t> evaluatePerRun(const DimBindings &bindings) const;
};

/// The formulas of `plan`'s symbolic slices (a symbolic bundle's plan,
/// before bindBundle). Fails only where a sum's coefficient passes 2^63.
Expected<ArenaFormula> arenaFormula(const MemoryPlan &plan);

/// One line describing a symbolic plan's arena: "bound part B B + per run
/// max(...) B", with " (planned P B: bound part Q B, per run R B at
/// sequence=64)" where `bound` is the plan bindBundle made of it at
/// `bindings` (null: not bound yet).
std::string describeArenaFormula(const ArenaFormula &formula,
                                 const MemoryPlan *bound,
                                 const DimBindings &bindings);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_ARENAFORMULA_H
