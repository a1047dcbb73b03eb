// ONNX Einsum equations, parsed (EinsumEquation.h): explicit and implicit
// results, spaces, ellipses aligned from the right, diagonals kept as
// repeated labels, and what is refused.

#include "compiler/onnx/EinsumEquation.h"

#include <gtest/gtest.h>

namespace fuse {
namespace {

constexpr EinsumLabel L(char c) {
  return c >= 'a' ? EinsumLabel(c - 'a') : EinsumLabel(26 + (c - 'A'));
}
constexpr EinsumLabel E(int k) { return kEllipsisLabel + k; }

using Labels = std::vector<EinsumLabel>;

EinsumEquation parse(std::string_view equation, std::vector<int64_t> ranks) {
  Expected<EinsumEquation> parsed = parseEinsumEquation(equation, ranks);
  EXPECT_TRUE(parsed.ok()) << equation << ": " << parsed.message();
  return parsed.ok() ? *parsed : EinsumEquation();
}

std::string errorOf(std::string_view equation, std::vector<int64_t> ranks) {
  Expected<EinsumEquation> parsed = parseEinsumEquation(equation, ranks);
  return parsed.ok() ? "" : parsed.message();
}

TEST(EinsumEquation, ExplicitResultWithSpaces) {
  EinsumEquation e = parse("bij, bjk -> bik", {3, 3});
  EXPECT_EQ(e.operands[0], (Labels{L('b'), L('i'), L('j')}));
  EXPECT_EQ(e.operands[1], (Labels{L('b'), L('j'), L('k')}));
  EXPECT_EQ(e.result, (Labels{L('b'), L('i'), L('k')}));
  EXPECT_EQ(parse("Ab->bA", {2}).result, (Labels{L('b'), L('A')}));
  EXPECT_EQ(parse("->", {0}).result, Labels{});
}

TEST(EinsumEquation, ImplicitResultIsTheLettersUsedOnceInOrder) {
  EXPECT_EQ(parse("i,i", {1, 1}).result, Labels{});
  EXPECT_EQ(parse("ij,jk", {2, 2}).result, (Labels{L('i'), L('k')}));
  EXPECT_EQ(parse("ba", {2}).result, (Labels{L('a'), L('b')}));
  EXPECT_EQ(parse("...ij,...jk", {3, 4}).result,
            (Labels{E(1), E(0), L('i'), L('k')}));
}

TEST(EinsumEquation, EllipsesAlignFromTheRight) {
  EinsumEquation e = parse("...ij,...jk->...ik", {3, 4});
  EXPECT_EQ(e.operands[0], (Labels{E(0), L('i'), L('j')}));
  EXPECT_EQ(e.operands[1], (Labels{E(1), E(0), L('j'), L('k')}));
  EXPECT_EQ(e.result, (Labels{E(1), E(0), L('i'), L('k')}));
  EinsumEquation diagonal = parse("...ii ->...i", {3});
  EXPECT_EQ(diagonal.operands[0], (Labels{E(0), L('i'), L('i')}));
  EXPECT_EQ(diagonal.result, (Labels{E(0), L('i')}));
  EXPECT_EQ(parse("i...->i", {1}).operands[0], (Labels{L('i')}));
}

TEST(EinsumEquation, RefusalsSayWhatIsWrong) {
  EXPECT_EQ(errorOf("ij,jk->ik", {2}),
            "the equation 'ij,jk->ik' has 2 input term(s) for 1 input(s)");
  EXPECT_EQ(errorOf("ij->i->", {2}),
            "the equation 'ij->i->' has more than one '->'");
  EXPECT_EQ(errorOf("ijk->i", {2}),
            "input term 0 'ijk' names 3 dim(s) but input 0 has rank 2");
  EXPECT_EQ(errorOf("...ijk->i", {2}),
            "input term 0 '...ijk' names 3 dim(s) but input 0 has rank 2");
  EXPECT_EQ(errorOf("i_j->i", {2}), "input term 0 'i_j' holds '_': a term is "
                                    "letters and at most one '...'");
  EXPECT_EQ(errorOf("ij->ii", {2}), "the result term 'ii' names 'i' twice");
  EXPECT_EQ(errorOf("ij->ik", {2}),
            "the result term 'ik' names 'k', which no input has");
  EXPECT_EQ(errorOf("ij->...i", {2}),
            "the result term '...i' has an ellipsis that no input term has");
  EXPECT_EQ(errorOf("i..j...->i", {3}).empty(), false);
}

TEST(EinsumEquation, LabelNames) {
  EXPECT_EQ(einsumLabelName(L('q')), "q");
  EXPECT_EQ(einsumLabelName(L('Q')), "Q");
  EXPECT_EQ(einsumLabelName(E(2)), "...#2");
}

} // namespace
} // namespace fuse
