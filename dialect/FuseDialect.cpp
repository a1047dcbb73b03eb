//===- FuseDialect.cpp - The fuse dialect ---------------------------------===//

#include "dialect/FuseOps.h"

using namespace mlir;
using namespace mlir::fuse;

#include "dialect/FuseDialect.cpp.inc"
#include "dialect/FuseEnums.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/FuseOps.cpp.inc"
      >();
}

Operation *FuseDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
