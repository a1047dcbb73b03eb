//===- OutlineFusions.cpp - Build one fuse.fusion per fusion group --------===//
//
// Moves the ops of each `fuse.group` into a `fuse.fusion` isolated from above.
// The schedule kind, inputs and outputs come from FusionCostModel's plan of
// the group, so that they agree with what fuse-form-fusions decided.
//
//===----------------------------------------------------------------------===//

#include "passes/FusionCostModel.h"
#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSEOUTLINEFUSIONS
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

static constexpr StringLiteral kGroupAttr = "fuse.group";

/// Replaces `ops` (in block order) by one fuse.fusion after the last of them.
static LogicalResult outlineGroup(ArrayRef<Operation *> ops,
                                  const CostModel &model) {
  std::string why;
  FailureOr<KernelPlan> plan = planKernel(ops, model, why);
  // An op alone that no schedule of the target runs (a GPU column reduction
  // over interleaved dims) is outlined as the host would run it: code
  // generation names what prevents it.
  if (failed(plan) && ops.size() == 1) {
    why.clear();
    plan = planKernel(ops, CostModel(), why);
  }
  if (failed(plan))
    return ops.front()->emitError()
           << "fusion group is not one kernel: " << why;

  Operation *last = ops.back();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  SmallVector<Location> locs;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
  Location loc = builder.getFusedLoc(locs);
  SmallVector<Type> resultTypes;
  for (Value output : plan->outputs)
    resultTypes.push_back(output.getType());
  auto fusion =
      FusionOp::create(builder, loc, resultTypes, plan->kind, plan->inputs);

  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value input : plan->inputs) {
    argTypes.push_back(input.getType());
    argLocs.push_back(input.getLoc());
  }
  Block *body = builder.createBlock(&fusion.getBody(), {}, argTypes, argLocs);
  IRMapping mapping;
  mapping.map(plan->inputs, body->getArguments());
  for (Operation *op : ops) {
    // Constants are not inputs: each kernel gets its own copy.
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!mapping.contains(operand) && def &&
          def->hasTrait<OpTrait::ConstantLike>())
        mapping.map(operand, builder.clone(*def)->getResult(0));
    }
    Operation *clone = builder.clone(*op, mapping);
    clone->removeAttr(kGroupAttr);
  }
  SmallVector<Value> yielded;
  for (Value output : plan->outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(builder, loc, yielded);

  for (auto [output, result] : llvm::zip(plan->outputs, fusion.getResults()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return success();
}

static LogicalResult outlineBlock(Block &block, const CostModel &model) {
  // Group ids in order of first appearance; an op without one is alone.
  llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
  int64_t alone = -1;
  for (Operation &op : block) {
    if (!isFusible(&op))
      continue;
    auto id = op.getAttrOfType<IntegerAttr>(kGroupAttr);
    groups[id ? id.getInt() : alone--].push_back(&op);
  }
  for (auto &[id, ops] : groups)
    if (failed(outlineGroup(ops, model)))
      return failure();

  // A constant still used outside a kernel (returned as is) becomes a kernel
  // too; the others were cloned into their kernels.
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (!isa<ConstantOp>(op))
      continue;
    if (op.use_empty())
      op.erase();
    else if (failed(outlineGroup({&op}, model)))
      return failure();
  }

  if (!sortTopologically(&block))
    return block.getParentOp()->emitError()
           << "fusion groups depend on each other in a cycle";
  return success();
}

namespace {
struct OutlineFusionsPass
    : public fuse::impl::FuseOutlineFusionsBase<OutlineFusionsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (target != "host" && target != "gpu") {
      emitError(UnknownLoc::get(context))
          << "fuse-outline-fusions: unknown target '" << target
          << "'; expected host or gpu";
      return failure();
    }
    return success();
  }

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
    // Limits were fuse-form-fusions' to apply; the schedules are the
    // target's.
    CostModel model;
    if (target == "gpu")
      model.target = ScheduleTarget::gpu();
    for (Block &block : getOperation().getBody())
      if (failed(outlineBlock(block, model)))
        return signalPassFailure();
  }
};
} // namespace
