//===- FuseDims.h - Symbolic dims in the fuse dialect ------------*- C++
//-*-===//
//
// A `?` of a fuse tensor type is named by the type's #fuse.dims encoding: one
// polynomial over dim symbols (runtime/ir/DimExpr.h) per `?`, never a
// constant; a static type has no encoding. Types with equal dims are equal
// types. Kept apart from FuseOps.h: it brings the runtime's `::fuse`
// namespace, which code that says `fuse::` under `using namespace mlir`
// must not see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSEDIMS_H
#define FUSE_DIALECT_FUSEDIMS_H

#include "dialect/FuseOps.h"
#include "runtime/ir/DimExpr.h"

#include <string>

namespace mlir::fuse {

/// Symbolic dims (issue 22): a `?` of a fuse tensor type is named by the
/// type's #fuse.dims encoding, one polynomial per `?`, never a constant. A
/// static type has no encoding.

/// The canonical #fuse.dims of `exprs`.
DimsAttr dimsAttrOf(MLIRContext *context, ArrayRef<::fuse::DimExpr> exprs);
/// Entry `index` of `dims`.
::fuse::DimExpr dimsEntry(DimsAttr dims, unsigned index);
/// Whether `expr` can be a size: a constant >= 0, or a polynomial with a
/// positive coefficient. One whose every coefficient is negative
/// (`-sequence - 1`) is below zero for every size of its symbols but 0, so
/// no type and no dim_value names it.
bool canBeSize(const ::fuse::DimExpr &expr);
/// Whether `type` is a ranked tensor with a static shape.
bool isStaticTensor(Type type);
/// Dim `index` of a fuse-shaped type: a constant for a static dim.
::fuse::DimExpr dimExpr(RankedTensorType type, unsigned index);
/// Every dim of a fuse-shaped type.
SmallVector<::fuse::DimExpr> shapeExprs(RankedTensorType type);
/// The fuse tensor type of `shape` (constants static, the others `?` named
/// by the encoding).
RankedTensorType tensorTypeOf(ArrayRef<::fuse::DimExpr> shape,
                              Type elementType);
/// "sequence" for a symbolic dim, "64" for a static one.
std::string dimString(RankedTensorType type, unsigned index);
/// The first symbolic dim of `op`'s operand and result types, as "dim 1
/// (sequence) of tensor<...>", or an empty string when every type is
/// static: for the messages of code that needs static dims.
std::string firstSymbolicDim(Operation *op);

} // namespace mlir::fuse

#endif // FUSE_DIALECT_FUSEDIMS_H
