//===- FoldEmptyTensors.cpp - Ops with empty results become constants -----===//
//
// A static tensor with a dim of 0 holds no element: an op whose results are
// all such tensors computes nothing, and each result becomes a splat
// constant of its type (a splat of no element, which every schedule takes
// as a pointwise kernel of no iteration). What fed only it is dead, and
// canonicalization drops it: no kernel iterates over an empty domain.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSEFOLDEMPTYTENSORS
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// Whether `type` is a static tensor with a dim of 0.
bool isEmptyTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         llvm::is_contained(tensor.getShape(), 0);
}

struct FoldEmptyTensorsPass
    : public fuse::impl::FuseFoldEmptyTensorsBase<FoldEmptyTensorsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> empty;
    getOperation().walk([&](Operation *op) {
      if (isa<FuseDialect>(op->getDialect()) && !isa<ConstantOp>(op) &&
          op->getNumRegions() == 0 && op->getNumResults() != 0 &&
          llvm::all_of(op->getResultTypes(), isEmptyTensor))
        empty.push_back(op);
    });
    for (Operation *op : empty) {
      OpBuilder b(op);
      for (Value result : op->getResults()) {
        auto type = cast<RankedTensorType>(result.getType());
        auto zero = cast<TypedAttr>(b.getZeroAttr(type.getElementType()));
        auto constant = ConstantOp::create(b, op->getLoc(), type,
                                           DenseElementsAttr::get(type, zero));
        // The op's tag (fuse.op_index) names the constant in a plan.
        constant->setDiscardableAttrs(op->getDiscardableAttrDictionary());
        result.replaceAllUsesWith(constant.getResult());
      }
      op->erase();
      ++numFolded;
    }
  }
};

} // namespace
