//===- OpTable.h - The op table of Ops.def as C++ ---------------*- C++ -*-===//
//
// OpKind and everything else the runtime needs to know about an op without
// looking at a graph: its mnemonic, its form (elementwise unary, elementwise
// binary, structured), its operand count, its element-type rule and its
// attributes with their kinds and whether they are required. All of it is
// generated from Ops.def, so an op added there is known here at once.
//
// Also the value sets of the Enum attributes (compare predicates, reduction
// kinds, cast round modes), which Ops.def lists only in comments.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_OPTABLE_H
#define FUSE_RUNTIME_IR_OPTABLE_H

#include "runtime/ir/ElementType.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fuse {

/// Unary ops first, then binary ops, then structured ops, each group in
/// Ops.def order. The numeric values are not stable across versions of the
/// table; anything persistent (hashes, files) uses the mnemonic.
enum class OpKind : std::uint16_t {
#define FUSE_UNARY_OP(Name, mnemonic, TypeRule) Name,
#include "runtime/ir/Ops.def"
#define FUSE_BINARY_OP(Name, mnemonic, TypeRule) Name,
#include "runtime/ir/Ops.def"
#define FUSE_OP(Name, mnemonic, NumOperands, TypeRule) Name,
#include "runtime/ir/Ops.def"
};

enum class TypeRule : std::uint8_t {
#define FUSE_TYPE_RULE(Name) Name,
#include "runtime/ir/Ops.def"
};

/// The kinds an attribute value can have; Attribute's storage follows this
/// order.
enum class AttrKind : std::uint8_t {
#define FUSE_ATTR_KIND(Name) Name,
#include "runtime/ir/Ops.def"
};

enum class OpForm : std::uint8_t { Unary, Binary, Structured };

struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  bool required;
};

struct OpInfo {
  OpKind kind;
  std::string_view mnemonic;
  OpForm form;
  /// -1: variadic, at least one.
  int numOperands;
  TypeRule typeRule;
  /// In Ops.def order.
  std::span<const AttrSpec> attributes;
};

const OpInfo &opInfo(OpKind kind);
std::string_view mnemonic(OpKind kind);
std::optional<OpKind> parseOpKind(std::string_view mnemonic);
/// Every op kind, in enum order.
std::span<const OpKind> allOpKinds();
/// Null when the op has no attribute of that name.
const AttrSpec *findAttrSpec(OpKind kind, std::string_view attrName);

/// The ops of symbolic graphs that bindDims turns into constants (iota,
/// dim_value): the `fuse` dialect does not have them yet, so a graph that
/// still holds one cannot be compiled.
bool isBindTimeOp(OpKind kind);

std::string_view typeRuleName(TypeRule rule);
std::string_view attrKindName(AttrKind kind);

/// compare's `predicate`. The u* predicates read integers as unsigned and
/// are not allowed on floats.
enum class ComparePredicate : std::uint8_t {
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Ult,
  Ule,
  Ugt,
  Uge
};

/// reduce's `kind`.
enum class ReduceKind : std::uint8_t { Sum, Prod, Max, Min, Mean };

std::string_view comparePredicateName(ComparePredicate predicate);
std::optional<ComparePredicate> parseComparePredicate(std::string_view name);
std::string_view reduceKindName(ReduceKind kind);
std::optional<ReduceKind> parseReduceKind(std::string_view name);
/// cast's `round_mode`: "up", "down", "nearest".
std::string_view roundModeName(E8M0RoundMode mode);
std::optional<E8M0RoundMode> parseRoundMode(std::string_view name);

/// The allowed names of an Enum attribute; empty for any other attribute.
std::span<const std::string_view> enumAttrValues(OpKind kind,
                                                 std::string_view attrName);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_OPTABLE_H
