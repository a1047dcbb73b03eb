//===- ArenaFormulaTest.cpp - A symbolic plan's arena as formulas ---------===//

#include "runtime/cache/ArenaFormula.h"
#include "runtime/cache/ArenaPlanner.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace fuse;

namespace {

DimExpr expr(std::vector<DimExpr::Term> terms) {
  Expected<DimExpr> made = DimExpr::fromTerms(terms);
  EXPECT_TRUE(made.ok()) << made.message();
  return made.ok() ? *made : DimExpr();
}

/// s = sequence: bytes c*s^degree.
DimExpr seq(std::int64_t c, int degree = 1, std::int64_t constant = 0) {
  return expr(
      {{std::vector<std::string>(degree, "sequence"), c}, {{}, constant}});
}

/// The plan's requests at `bindings`, as bindBundle makes them.
std::vector<ArenaRequest> requestsAt(const MemoryPlan &plan,
                                     const DimBindings &bindings) {
  std::vector<ArenaRequest> requests;
  for (const SymbolicSlice &slice : plan.symbolicSlices) {
    Expected<std::int64_t> bytes = slice.bytes.evaluate(bindings);
    EXPECT_TRUE(bytes.ok());
    requests.push_back({slice.tensor, std::uint64_t(*bytes), slice.firstUse,
                        slice.lastUse, slice.bound, !slice.bytes.isConstant()});
  }
  return requests;
}

/// The largest sum of per-run request sizes live at one position, by a loop
/// over every position.
std::uint64_t liveSetMax(const std::vector<ArenaRequest> &requests) {
  std::uint32_t last = 0;
  for (const ArenaRequest &request : requests)
    last = std::max(last, request.lastUse);
  std::uint64_t best = 0;
  for (std::uint32_t p = 0; p <= last; ++p) {
    std::uint64_t live = 0;
    for (const ArenaRequest &request : requests)
      if (!request.bound && request.firstUse <= p && p <= request.lastUse)
        live += request.bytes;
    best = std::max(best, live);
  }
  return best;
}

/// Bound slices of 100 B and 64*s B; per-run slices C [0,1] 12*s, D [1,2]
/// 4*s^2, E [2,3] 1000, F [3,3] 8*s (disjoint from C). The live sum at 0
/// (C alone) is dominated by the one at 1 (C and D).
MemoryPlan handPlan() {
  MemoryPlan plan;
  plan.symbolicSlices = {
      {0, DimExpr::constant(100), 0, 3, /*bound=*/true},
      {1, seq(12), 0, 1},
      {2, seq(64), 0, 0, /*bound=*/true},
      {3, seq(4, 2), 1, 2},
      {4, DimExpr::constant(1000), 2, 3},
      {5, seq(8), 3, 3},
  };
  return plan;
}

} // namespace

TEST(ArenaFormula, GivesTheBoundPartAndTheLiveSetSums) {
  MemoryPlan plan = handPlan();
  Expected<ArenaFormula> formula = arenaFormula(plan);
  ASSERT_TRUE(formula.ok()) << formula.message();
  EXPECT_TRUE(formula->boundExact);
  EXPECT_EQ(formula->boundString(), "sequence*64+128");
  // 12*s (position 0) is dropped: 4*s^2+12*s (position 1) dominates it.
  // 8*s+1000 (position 3) stays: 4*s^2+1000 exceeds it only from s = 2.
  ASSERT_EQ(formula->liveSums.size(), 3u);
  EXPECT_EQ(formula->liveSums[0], DimExpr::add(seq(4, 2), seq(12)).take());
  EXPECT_EQ(formula->liveSums[1], seq(4, 2, 1000));
  EXPECT_EQ(formula->liveSums[2], seq(8, 1, 1000));
  EXPECT_EQ(formula->perRunString(),
            "max(" + formula->liveSums[0].toString() + ", " +
                formula->liveSums[1].toString() + ", " +
                formula->liveSums[2].toString() + ")");

  for (std::int64_t s : {0, 1, 2, 3, 7, 64, 1000}) {
    DimBindings bindings{{"sequence", s}};
    std::vector<ArenaRequest> requests = requestsAt(plan, bindings);
    MemoryPlan planned = planArena(requests);
    Expected<std::int64_t> bound = formula->evaluateBound(bindings);
    Expected<std::int64_t> perRun = formula->evaluatePerRun(bindings);
    ASSERT_TRUE(bound.ok() && perRun.ok());
    EXPECT_EQ(std::uint64_t(*bound), planned.boundBytes) << "s=" << s;
    EXPECT_EQ(std::uint64_t(*perRun), liveSetMax(requests)) << "s=" << s;
    EXPECT_GE(planned.peakBytes - planned.boundBytes, std::uint64_t(*perRun))
        << "s=" << s;
    std::string line = describeArenaFormula(*formula, &planned, bindings);
    EXPECT_NE(line.find("(planned " + std::to_string(planned.peakBytes) +
                        " B at sequence=" + std::to_string(s) + ":"),
              std::string::npos)
        << line;
  }
}

TEST(ArenaFormula, BoundsTheAlignmentOfASizeItCannotExpress) {
  // 12*s+4 B aligned up is not a polynomial: the formula adds 63, an upper
  // bound. 64*s+4 B aligns to 64*s+64 exactly.
  MemoryPlan plan;
  plan.symbolicSlices = {{0, seq(12, 1, 4), 0, 0, /*bound=*/true},
                         {1, seq(64, 1, 4), 0, 0, /*bound=*/true}};
  Expected<ArenaFormula> formula = arenaFormula(plan);
  ASSERT_TRUE(formula.ok()) << formula.message();
  EXPECT_FALSE(formula->boundExact);
  EXPECT_EQ(formula->boundBytes, seq(76, 1, 4 + 63 + 64));
  EXPECT_EQ(formula->boundString(),
            "at most " + formula->boundBytes.toString());
  // No per-run slice: the per-run part is 0.
  EXPECT_EQ(formula->perRunString(), "0");
  for (std::int64_t s : {0, 1, 5, 16, 333}) {
    DimBindings bindings{{"sequence", s}};
    MemoryPlan planned = planArena(requestsAt(plan, bindings));
    std::uint64_t bound = std::uint64_t(*formula->evaluateBound(bindings));
    EXPECT_GE(bound, planned.boundBytes) << "s=" << s;
    EXPECT_LT(bound - planned.boundBytes, kArenaAlignment) << "s=" << s;
  }
}

TEST(ArenaFormula, KeepsOneOfEqualSums) {
  // Two disjoint live sets of the same size: one sum.
  MemoryPlan plan;
  plan.symbolicSlices = {{0, seq(8), 0, 0}, {1, seq(8), 1, 1}};
  Expected<ArenaFormula> formula = arenaFormula(plan);
  ASSERT_TRUE(formula.ok()) << formula.message();
  ASSERT_EQ(formula->liveSums.size(), 1u);
  EXPECT_EQ(formula->perRunString(), seq(8).toString());
  EXPECT_EQ(formula->boundString(), "0");
}
