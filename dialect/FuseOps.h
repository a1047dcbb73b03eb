//===- FuseOps.h - The fuse dialect and its ops -----------------*- C++ -*-===//
//
// The public header of the `fuse` dialect. It depends on MLIR only; never
// include it from runtime/, which must not see MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSEOPS_H
#define FUSE_DIALECT_FUSEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/FuseEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/FuseAttrs.h.inc"

#include "dialect/FuseDialect.h.inc"

namespace mlir::fuse {
/// Whether every tensor operand and result of `op` has one shape and one
/// encoding (the symbolic dims): the Fuse_SameDims trait (FuseOps.td).
LogicalResult verifySameDims(Operation *op);

namespace FuseOpTrait {
template <typename ConcreteType>
class SameDims : public ::mlir::OpTrait::TraitBase<ConcreteType, SameDims> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifySameDims(op); }
};
} // namespace FuseOpTrait
} // namespace mlir::fuse

#define GET_OP_CLASSES
#include "dialect/FuseOps.h.inc"

namespace mlir::fuse {
/// Whether `type` is a ranked tensor whose dims are static (no encoding) or
/// named one by one by a #fuse.dims encoding (dialect/FuseDims.h) whose
/// entries are no constant and can be sizes (canBeSize).
bool isFuseShaped(Type type);
} // namespace mlir::fuse

#endif // FUSE_DIALECT_FUSEOPS_H
