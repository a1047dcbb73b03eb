//===- HorizontalFusion.cpp - Kernels that share an input, one launch ----===//
//
// Groups independent matmul fusions whose matmuls read one lhs value into
// one `fuse.fusion horizontal` (Passes.td has the contract). The host runs
// its members' work items in one parallel loop: a transformer layer's Q, K
// and V projections are one launch that reads the layer's input once.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSEHORIZONTALFUSION
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// The value outside `fusion` that its one matmul reads as lhs, through
/// reshapes and transposes inside it (a head split); none where the fusion
/// is not a matmul kernel that may join a horizontal fusion.
Value sharedLhs(FusionOp fusion) {
  if (fusion.getKind() != ScheduleKind::matmul)
    return Value();
  MatmulOp matmul;
  bool refused = false;
  fusion.getBody().walk([&](Operation *op) {
    if (isa<GatherOp, ScatterOp>(op))
      refused = true; // its run-time check reports through the kernel's record
    if (auto m = dyn_cast<MatmulOp>(op)) {
      refused |= bool(matmul);
      matmul = m;
    }
  });
  if (refused || !matmul)
    return Value();
  Value lhs = matmul.getLhs();
  while (Operation *def = lhs.getDefiningOp()) {
    if (!isa<ReshapeOp, TransposeOp>(def))
      return Value();
    lhs = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(lhs);
  return fusion.getInputs()[arg.getArgNumber()];
}

/// Whether every operand of `fusion` is available before `first`: a
/// function argument or a value computed before it. Then `fusion` reads
/// nothing `first` or a kernel after it computes, and may run with it.
bool readsOnlyBefore(FusionOp fusion, Operation *first) {
  return llvm::all_of(fusion.getInputs(), [&](Value input) {
    Operation *def = input.getDefiningOp();
    return !def || (def->getBlock() == first->getBlock() &&
                    def->isBeforeInBlock(first));
  });
}

/// Replaces `members` (in block order, all reading only values from before
/// the first) by one horizontal fusion at the first's place.
FusionOp formHorizontal(ArrayRef<FusionOp> members) {
  llvm::SetVector<Value> inputs;
  SmallVector<Type> resultTypes;
  SmallVector<Location> locs;
  for (FusionOp member : members) {
    inputs.insert(member.getInputs().begin(), member.getInputs().end());
    llvm::append_range(resultTypes, member.getResultTypes());
    locs.push_back(member.getLoc());
  }
  OpBuilder b(members.front());
  Location loc = b.getFusedLoc(locs);
  auto horizontal = FusionOp::create(
      b, loc, resultTypes, ScheduleKind::horizontal, inputs.getArrayRef());
  SmallVector<Location> argLocs(inputs.size(), loc);
  SmallVector<Type> argTypes;
  for (Value input : inputs)
    argTypes.push_back(input.getType());
  Block *body = b.createBlock(&horizontal.getBody(), {}, argTypes, argLocs);
  SmallVector<Value> yielded;
  unsigned next = 0;
  for (FusionOp member : members) {
    for (OpResult result : member->getResults())
      result.replaceAllUsesWith(horizontal.getResult(next++));
    member->moveBefore(body, body->end());
    for (OpOperand &operand : member->getOpOperands())
      operand.set(body->getArgument(
          unsigned(llvm::find(inputs, operand.get()) - inputs.begin())));
    llvm::append_range(yielded, member->getResults());
  }
  b.setInsertionPointToEnd(body);
  YieldOp::create(b, loc, yielded);
  return horizontal;
}

struct FuseHorizontalFusion
    : public mlir::fuse::impl::FuseHorizontalFusionBase<FuseHorizontalFusion> {
  using FuseHorizontalFusionBase::FuseHorizontalFusionBase;

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
    if (target != "host" && target != "gpu") {
      getOperation().emitError() << "fuse-horizontal-fusion: unknown target '"
                                 << target << "'; expected host or gpu";
      return signalPassFailure();
    }
    if (target == "gpu" || maxMembers < 2 || getOperation().isExternal())
      return;
    SmallVector<FusionOp> fusions(
        getOperation().getBody().front().getOps<FusionOp>());
    llvm::DenseSet<Operation *> taken;
    for (auto [i, first] : llvm::enumerate(fusions)) {
      Value lhs = taken.contains(first) ? Value() : sharedLhs(first);
      if (!lhs)
        continue;
      SmallVector<FusionOp> members{first};
      for (FusionOp next : ArrayRef(fusions).drop_front(i + 1)) {
        if (members.size() >= maxMembers)
          break;
        if (!taken.contains(next) && sharedLhs(next) == lhs &&
            readsOnlyBefore(next, first))
          members.push_back(next);
      }
      if (members.size() < 2)
        continue;
      for (FusionOp member : members)
        taken.insert(member);
      FusionOp horizontal = formHorizontal(members);
      ++numHorizontal;
      if (explain)
        horizontal.emitRemark()
            << "horizontal fusion of " << members.size()
            << " matmul kernels that read one input: one launch";
    }
  }
};

} // namespace
