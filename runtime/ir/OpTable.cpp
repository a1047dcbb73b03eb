//===- OpTable.cpp - The op table of Ops.def as C++ -----------------------===//

#include "runtime/ir/OpTable.h"

#include <array>
#include <vector>

using namespace fuse;

namespace {

struct AttrEntry {
  OpKind op;
  AttrSpec spec;
};

constexpr AttrEntry kAttrEntries[] = {
#define FUSE_OP_ATTR(OpName, attrName, Kind, Required)                         \
  {OpKind::OpName, {#attrName, AttrKind::Kind, Required != 0}},
#include "runtime/ir/Ops.def"
};

struct OpRow {
  OpKind kind;
  std::string_view mnemonic;
  OpForm form;
  int numOperands;
  TypeRule typeRule;
};

constexpr OpRow kOpRows[] = {
#define FUSE_UNARY_OP(Name, mnemonic, Rule)                                    \
  {OpKind::Name, #mnemonic, OpForm::Unary, 1, TypeRule::Rule},
#include "runtime/ir/Ops.def"
#define FUSE_BINARY_OP(Name, mnemonic, Rule)                                   \
  {OpKind::Name, #mnemonic, OpForm::Binary, 2, TypeRule::Rule},
#include "runtime/ir/Ops.def"
#define FUSE_OP(Name, mnemonic, NumOperands, Rule)                             \
  {OpKind::Name, #mnemonic, OpForm::Structured, NumOperands, TypeRule::Rule},
#include "runtime/ir/Ops.def"
};

constexpr std::size_t kNumOps = std::size(kOpRows);

constexpr std::string_view kTypeRuleNames[] = {
#define FUSE_TYPE_RULE(Name) #Name,
#include "runtime/ir/Ops.def"
};

constexpr std::string_view kAttrKindNames[] = {
#define FUSE_ATTR_KIND(Name) #Name,
#include "runtime/ir/Ops.def"
};

constexpr std::string_view kPredicateNames[] = {
    "eq", "ne", "lt", "le", "gt", "ge", "ult", "ule", "ugt", "uge"};
constexpr std::string_view kReduceKindNames[] = {"sum", "prod", "max", "min",
                                                 "mean"};
/// In E8M0RoundMode order.
constexpr std::string_view kRoundModeNames[] = {"up", "down", "nearest"};
constexpr std::string_view kScatterReductionNames[] = {"none", "add", "mul",
                                                       "max", "min"};

/// Ops.def lists each op's attributes one after the other, so each op's
/// attributes are one contiguous run of kAttrEntries.
struct Table {
  std::array<OpInfo, kNumOps> infos;
  std::array<OpKind, kNumOps> kinds;

  Table() {
    for (std::size_t i = 0; i < kNumOps; ++i) {
      const OpRow &row = kOpRows[i];
      std::size_t first = std::size(kAttrEntries), count = 0;
      for (std::size_t a = 0; a < std::size(kAttrEntries); ++a) {
        if (kAttrEntries[a].op != row.kind)
          continue;
        if (count == 0)
          first = a;
        ++count;
      }
      attrSpecs[i].reserve(count);
      for (std::size_t a = first; a < first + count; ++a)
        attrSpecs[i].push_back(kAttrEntries[a].spec);
      infos[i] = OpInfo{row.kind,        row.mnemonic, row.form,
                        row.numOperands, row.typeRule, attrSpecs[i]};
      kinds[i] = row.kind;
    }
  }

  std::array<std::vector<AttrSpec>, kNumOps> attrSpecs;
};

const Table &table() {
  static const Table instance;
  return instance;
}

} // namespace

const OpInfo &fuse::opInfo(OpKind kind) {
  return table().infos[static_cast<std::size_t>(kind)];
}

std::string_view fuse::mnemonic(OpKind kind) { return opInfo(kind).mnemonic; }

std::optional<OpKind> fuse::parseOpKind(std::string_view mnemonic) {
  for (const OpRow &row : kOpRows)
    if (row.mnemonic == mnemonic)
      return row.kind;
  return std::nullopt;
}

std::span<const OpKind> fuse::allOpKinds() { return table().kinds; }

bool fuse::isBindTimeOp(OpKind kind) {
  return kind == OpKind::Iota || kind == OpKind::DimValue;
}

const AttrSpec *fuse::findAttrSpec(OpKind kind, std::string_view attrName) {
  for (const AttrSpec &spec : opInfo(kind).attributes)
    if (spec.name == attrName)
      return &spec;
  return nullptr;
}

std::string_view fuse::typeRuleName(TypeRule rule) {
  return kTypeRuleNames[static_cast<std::size_t>(rule)];
}

std::string_view fuse::attrKindName(AttrKind kind) {
  return kAttrKindNames[static_cast<std::size_t>(kind)];
}

std::string_view fuse::comparePredicateName(ComparePredicate predicate) {
  return kPredicateNames[static_cast<std::size_t>(predicate)];
}

std::optional<ComparePredicate>
fuse::parseComparePredicate(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kPredicateNames); ++i)
    if (kPredicateNames[i] == name)
      return static_cast<ComparePredicate>(i);
  return std::nullopt;
}

std::string_view fuse::reduceKindName(ReduceKind kind) {
  return kReduceKindNames[static_cast<std::size_t>(kind)];
}

std::optional<ReduceKind> fuse::parseReduceKind(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kReduceKindNames); ++i)
    if (kReduceKindNames[i] == name)
      return static_cast<ReduceKind>(i);
  return std::nullopt;
}

std::string_view fuse::roundModeName(E8M0RoundMode mode) {
  return kRoundModeNames[static_cast<std::size_t>(mode)];
}

std::optional<E8M0RoundMode> fuse::parseRoundMode(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kRoundModeNames); ++i)
    if (kRoundModeNames[i] == name)
      return static_cast<E8M0RoundMode>(i);
  return std::nullopt;
}

std::span<const std::string_view>
fuse::enumAttrValues(OpKind kind, std::string_view attrName) {
  if (kind == OpKind::Compare && attrName == "predicate")
    return kPredicateNames;
  if ((kind == OpKind::Reduce || kind == OpKind::Pool) && attrName == "kind")
    return kReduceKindNames;
  if (kind == OpKind::Cast && attrName == "round_mode")
    return kRoundModeNames;
  if (kind == OpKind::Scatter && attrName == "reduction")
    return kScatterReductionNames;
  return {};
}
