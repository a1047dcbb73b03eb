//===- Verifier.h - Result-type inference and graph validation --*- C++ -*-===//
//
// The rules of Graph.h's op semantics, checked: one function infers an op's
// result type from its operand types and attributes (or says why the op is
// malformed), and validate() applies it to every op of a graph along with
// the structural rules (ids defined once and before use, outputs defined).
// The builder calls the same inference, so the builder and validate() never
// disagree.
//
// Messages say what is wrong and what was expected; validate() prefixes them
// with the op's index and mnemonic: "op #3 (add): ...".
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_VERIFIER_H
#define FUSE_RUNTIME_IR_VERIFIER_H

#include "runtime/ir/Graph.h"

#include <optional>
#include <span>

namespace fuse {

/// The result type of op `kind` applied to operands of `operandTypes` with
/// `attributes`. `declaredResult` is the result type the caller has (the
/// result tensor's type in a graph): required for cast, broadcast, reshape,
/// iota and dim_value, checked against the inferred type for every other
/// op. `dims` is the graph's table of symbolic dims (Graph.h): without it a
/// negative dim is an error; with it, a dim the op computes (concat's sum)
/// is interned there.
Expected<TensorType>
inferResultType(OpKind kind, std::span<const TensorType> operandTypes,
                const AttrMap &attributes,
                const std::optional<TensorType> &declaredResult,
                DimTable *dims = nullptr);

/// Whether an operand of element type `type` follows `rule` (Ops.def's
/// element-type rules). The engine's fast path for elementwise ops asks the
/// same function, so it never accepts what validate() rejects.
bool followsTypeRule(ElementType type, TypeRule rule);

/// Success when `type` has no negative dimension (but the codes of `dims`,
/// where given) and holds at most 2^48 bytes (counted with checked
/// arithmetic, so no count wraps; its static dims only, when symbolic);
/// else "`what` has a negative dimension: ..." or "`what` is too large:
/// ...".
Status checkTensorType(const TensorType &type, std::string_view what,
                       const DimTable *dims = nullptr);

/// Success when the graph follows every rule of Graph.h (symbolic dims
/// included: its table is well formed and every code refers to it);
/// otherwise the first violation found, in graph order (the table, inputs,
/// then ops, then outputs).
Status validate(const Graph &graph);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_VERIFIER_H
