//===- ArenaFormula.cpp - A symbolic plan's arena as formulas -------------===//

#include "runtime/cache/ArenaFormula.h"

#include "runtime/cache/ArenaPlanner.h"

#include <algorithm>
#include <set>

namespace fuse {

namespace {

constexpr std::int64_t kAlignment = std::int64_t(kArenaAlignment);

/// `bytes` aligned up to kArenaAlignment, and whether that is exact (else
/// an upper bound): exact for a constant, and where every other coefficient
/// is a multiple of the alignment (the remainder is then the constant's).
Expected<std::pair<DimExpr, bool>> alignedUp(const DimExpr &bytes) {
  std::int64_t constant = 0;
  bool exact = true;
  for (const DimExpr::Term &term : bytes.terms()) {
    if (term.symbols.empty())
      constant = term.coefficient;
    else if (term.coefficient % kAlignment != 0)
      exact = false;
  }
  std::int64_t pad = exact
                         ? ((-constant) % kAlignment + kAlignment) % kAlignment
                         : kAlignment - 1;
  Expected<DimExpr> sum = DimExpr::add(bytes, DimExpr::constant(pad));
  if (!sum.ok())
    return sum.status();
  return std::make_pair(sum.take(), exact);
}

/// Whether `a` <= `b` at every binding of the symbols to sizes >= 0, as
/// far as the coefficients tell: b - a has none negative.
bool dominatedBy(const DimExpr &a, const DimExpr &b) {
  Expected<DimExpr> difference = DimExpr::sub(b, a);
  return difference.ok() && difference->isNonNegative();
}

/// The sums of `sums` that no other dominates; of equal ones, the first.
std::vector<DimExpr> undominated(const std::vector<DimExpr> &sums) {
  std::vector<DimExpr> kept;
  for (std::size_t i = 0; i < sums.size(); ++i) {
    bool dropped = false;
    for (std::size_t j = 0; j < sums.size() && !dropped; ++j) {
      if (i == j || !dominatedBy(sums[i], sums[j]))
        continue;
      // Equal sums dominate each other: keep the first of them.
      dropped = !(sums[i] == sums[j]) || j < i;
    }
    if (!dropped)
      kept.push_back(sums[i]);
  }
  return kept;
}

Expected<std::int64_t> maxOf(const std::vector<DimExpr> &sums,
                             const DimBindings &bindings) {
  std::int64_t best = 0;
  for (const DimExpr &sum : sums) {
    Expected<std::int64_t> value = sum.evaluate(bindings);
    if (!value.ok())
      return value;
    best = std::max(best, *value);
  }
  return best;
}

} // namespace

Expected<ArenaFormula> arenaFormula(const MemoryPlan &plan) {
  ArenaFormula formula;
  // The live set changes only where a slice starts, and the set live at a
  // position is contained in the one at the last start at or before it:
  // the starts suffice.
  std::set<std::uint32_t> starts;
  for (const SymbolicSlice &slice : plan.symbolicSlices) {
    if (slice.bound) {
      Expected<std::pair<DimExpr, bool>> aligned = alignedUp(slice.bytes);
      if (!aligned.ok())
        return aligned.status();
      Expected<DimExpr> sum = DimExpr::add(formula.boundBytes, aligned->first);
      if (!sum.ok())
        return sum.status();
      formula.boundBytes = sum.take();
      formula.boundExact = formula.boundExact && aligned->second;
    } else {
      starts.insert(slice.firstUse);
    }
  }
  std::vector<DimExpr> sums;
  for (std::uint32_t position : starts) {
    DimExpr sum;
    for (const SymbolicSlice &slice : plan.symbolicSlices) {
      if (slice.bound || slice.firstUse > position || slice.lastUse < position)
        continue;
      Expected<DimExpr> next = DimExpr::add(sum, slice.bytes);
      if (!next.ok())
        return next.status();
      sum = next.take();
    }
    sums.push_back(sum);
  }
  formula.liveSums = undominated(sums);
  if (formula.liveSums.empty())
    formula.liveSums.push_back(DimExpr());
  return formula;
}

std::string ArenaFormula::boundString() const {
  return (boundExact ? "" : "at most ") + boundBytes.toString();
}

std::string ArenaFormula::perRunString() const {
  if (liveSums.size() == 1)
    return liveSums.front().toString();
  std::string text = "max(";
  for (std::size_t i = 0; i < liveSums.size(); ++i)
    text += (i ? ", " : "") + liveSums[i].toString();
  return text + ")";
}

Expected<std::int64_t>
ArenaFormula::evaluateBound(const DimBindings &bindings) const {
  return boundBytes.evaluate(bindings);
}

Expected<std::int64_t>
ArenaFormula::evaluatePerRun(const DimBindings &bindings) const {
  return maxOf(liveSums, bindings);
}

std::string describeArenaFormula(const ArenaFormula &formula,
                                 const MemoryPlan *bound,
                                 const DimBindings &bindings) {
  std::string text = "bound part " + formula.boundString() +
                     " B + per run at least " + formula.perRunString() + " B";
  if (!bound)
    return text;
  text += " (planned " + std::to_string(bound->peakBytes) + " B at " +
          dimBindingsText(bindings) + ": bound part " +
          std::to_string(bound->boundBytes) + " B, per run " +
          std::to_string(bound->peakBytes - bound->boundBytes) + " B";
  if (Expected<std::int64_t> live = formula.evaluatePerRun(bindings); live.ok())
    text += ", live set " + std::to_string(*live) + " B";
  return text + ")";
}

} // namespace fuse
