//===- EinsumEquation.h - ONNX Einsum equations, parsed ---------*- C++ -*-===//
//
// The parsed form of an ONNX Einsum equation ("bij,bjk->bik", "...ii->...i",
// "i,i"): one label per dimension of each operand and of the result, with
// an ellipsis expanded to labels of its own (aligned from the right across
// operands, as NumPy broadcasts) and an implicit result (no "->") made as
// ONNX says: the ellipsis dims, then the letters that appear exactly once,
// in alphabetical order. Labels of the operands that the result leaves out
// (ellipsis dims included) are summed. The importer lowers the parsed equation
// to transposes, reshapes, diagonals, matmuls, multiplies and sums.
//
// Plain C++: no protobuf, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_ONNX_EINSUMEQUATION_H
#define FUSE_COMPILER_ONNX_EINSUMEQUATION_H

#include "runtime/ir/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

/// Labels 0-51 are the letters a-z, A-Z; kEllipsisLabel + k is the k-th
/// ellipsis dim counted from the right.
using EinsumLabel = int;
inline constexpr EinsumLabel kEllipsisLabel = 52;

struct EinsumEquation {
  /// Per operand, its dims' labels (a label may repeat: a diagonal).
  std::vector<std::vector<EinsumLabel>> operands;
  /// The result's dims' labels, each once.
  std::vector<EinsumLabel> result;
};

/// Parses `equation` for operands of `ranks`. Spaces are ignored. Errors
/// say what is wrong ("operand 1 has rank 3 but its term 'jk' names 2
/// dims").
Expected<EinsumEquation> parseEinsumEquation(std::string_view equation,
                                             std::span<const int64_t> ranks);

/// The label as the equation writes it: a letter, or "...#k".
std::string einsumLabelName(EinsumLabel label);

} // namespace fuse

#endif // FUSE_COMPILER_ONNX_EINSUMEQUATION_H
