//===- RepresentativeDims.h - Sizes of symbolic dims for fusion -*- C++ -*-===//
//
// Fusion on symbolic dims (issue 22, step B). The cost model and schedule
// legality count elements in int64; on a `?` dim (#fuse.dims) they count at a
// representative size per symbol instead. Each symbol's representative is a
// distinct prime near its hint (128 unless the function declares
// `fuse.dim_hints = {sequence = 512 : i64}`) that divides no static dim nor
// coefficient of the function's types. So for dims that are monomials
// (c*batch*sequence, what elementwise ops, matmuls, reductions, reshapes and
// transposes of a BERT layer carry), two element counts are equal at the
// representatives exactly when they are equal as polynomials (unique
// factorization): legality's equality tests stay exact, and its cost
// decisions see sizes about as large as the hint. A dim that is a sum
// (past_sequence + sequence: a decoder's keys) counts as a symbol of its
// own, with a prime of its own: two counts are then equal at the
// representatives exactly when they are equal as products of symbols and
// sums, which may call equal polynomials unequal (batch*(p+s) and
// batch*p + batch*s), never unequal ones equal, so legality stays
// conservative. Ops whose counts pass 2^63 are not fused
// (unrepresentableDim). Decisions that
// need a true value (the keys an attention kernel holds, a fusion's recorded
// schedule) refuse symbolic dims where they are made.
//
// A pass installs the table of its function (RepresentativeDimsScope) for
// the calling thread; the size queries read it. Static types never need it
// and count exactly as getShape does.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_REPRESENTATIVEDIMS_H
#define FUSE_PASSES_REPRESENTATIVEDIMS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace mlir::fuse {

/// The default representative size of a symbol (a sequence length).
inline constexpr int64_t kDefaultDimHint = 128;
/// The function attribute that declares a symbol's size hint.
inline constexpr llvm::StringLiteral kDimHintsAttr = "fuse.dim_hints";

/// Installs, for the calling thread while it lives, the representative sizes
/// of the symbols of `root`'s types (and its functions' fuse.dim_hints).
class RepresentativeDimsScope {
public:
  explicit RepresentativeDimsScope(Operation *root);
  ~RepresentativeDimsScope();
  RepresentativeDimsScope(const RepresentativeDimsScope &) = delete;
  RepresentativeDimsScope &operator=(const RepresentativeDimsScope &) = delete;

  /// Symbol -> representative size.
  const std::map<std::string, int64_t, std::less<>> &sizes() const {
    return table;
  }

private:
  std::map<std::string, int64_t, std::less<>> table;
  const RepresentativeDimsScope *previous;
};

/// Dim `index` of a ranked tensor type: its static size, or its polynomial
/// at the representatives (0 where the count is unrepresentable).
int64_t dimSize(Type type, unsigned index);
/// Every dim of `type` as dimSize counts it.
SmallVector<int64_t> shapeOf(Type type);
/// The product of shapeOf(type).
int64_t numElementsOf(Type type);
/// Bytes of a shaped type at the representatives (0 for others).
int64_t bytesOf(Type type);
/// Whether `type` is a static tensor that holds more than 2^48 bytes (the
/// runtime's verifier refuses it too), its bytes counted without wrapping.
bool tooLargeForKernels(Type type);
/// `type` with its dims permuted (dim i of the result is dim
/// permutation[i] of `type`), symbolic dims keeping their names.
RankedTensorType permutedType(RankedTensorType type,
                              ArrayRef<int64_t> permutation);
/// Empty when fusion can count `op`'s types at the representatives;
/// otherwise why not, naming the dim ("dim 1 (sequence+1) of tensor<...> is
/// a sum of terms").
std::string unrepresentableDim(Operation *op);

} // namespace mlir::fuse

#endif // FUSE_PASSES_REPRESENTATIVEDIMS_H
