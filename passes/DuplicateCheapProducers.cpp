//===- DuplicateCheapProducers.cpp - One copy per consumer ----------------===//
//
// Clones a broadcast, cast, reshape or transpose, or the logic of a boolean
// mask (and, or, xor, not, compare with an i1 result: the attention masks
// exporters build once and every layer reads), next to each of its
// consumers when the cost model says the copies move fewer bytes than one
// materialized result, so that fusion can put each copy into its consumer's
// kernel instead of writing the value to memory.
//
//===----------------------------------------------------------------------===//

#include "passes/FusionCostModel.h"
#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSEDUPLICATECHEAPPRODUCERS
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {
struct DuplicateCheapProducersPass
    : public fuse::impl::FuseDuplicateCheapProducersBase<
          DuplicateCheapProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
    func::FuncOp func = getOperation();
    std::optional<AsmState> names;
    if (explain)
      names.emplace(func);
    SmallVector<Operation *> candidates;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (isCheapProducer(&op) || isMaskLogic(&op))
          candidates.push_back(&op);
    // Consumers first: copies of a broadcast give its cast more consumers.
    for (Operation *op : llvm::reverse(candidates))
      duplicate(op, names ? &*names : nullptr);
  }

  static bool isMaskLogic(Operation *op) {
    return isa<AndOp, OrOp, XorOp, NotOp, CompareOp>(op) &&
           getElementTypeOrSelf(op->getResult(0).getType()).isInteger(1);
  }

  /// The bytes a kernel reads for `value`: a broadcast, reshape or
  /// transpose (fused as an index map) reads its operand.
  static int64_t bytesRead(Value value) {
    Operation *def = value.getDefiningOp();
    while (def && isa<BroadcastOp, ReshapeOp, TransposeOp>(def)) {
      value = def->getOperand(0);
      def = value.getDefiningOp();
    }
    return tensorBytes(value.getType());
  }

  void duplicate(Operation *op, AsmState *names) {
    Value result = op->getResult(0);
    SmallVector<Operation *> users;
    for (Operation *user : result.getUsers())
      if (!llvm::is_contained(users, user))
        users.push_back(user);
    SmallVector<Operation *> kernels;
    for (Operation *user : users)
      if (user->getBlock() == op->getBlock() && isFusible(user))
        kernels.push_back(user);
    llvm::sort(kernels, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    // A consumer that is no kernel (func.return) keeps the original.
    bool keepOriginal = kernels.size() < users.size();
    size_t copies = kernels.size() - (keepOriginal ? 0 : 1);
    if (users.size() < 2 || copies == 0)
      return;

    // Copies read the operand once per consumer; one materialized result
    // reads the operand once, writes the result once and is read per
    // consumer.
    int64_t consumers = users.size();
    int64_t operandBytes = 0;
    for (Value operand : op->getOperands())
      operandBytes +=
          isMaskLogic(op) ? bytesRead(operand) : tensorBytes(operand.getType());
    int64_t resultBytes = tensorBytes(result.getType());
    int64_t duplicated = consumers * operandBytes;
    int64_t materialized = operandBytes + resultBytes + consumers * resultBytes;
    std::string name;
    if (names) {
      llvm::raw_string_ostream os(name);
      result.printAsOperand(os, *names);
      os << " (" << op->getName().getStringRef() << ")";
    }
    if (duplicated > materialized) {
      ++numKept;
      if (names)
        op->emitRemark() << "kept " << name << " for its " << consumers
                         << " consumers: copies would move "
                         << formatBytes(duplicated) << ", one result "
                         << formatBytes(materialized);
      return;
    }
    ++numDuplicated;
    if (names)
      op->emitRemark() << "duplicated " << name << " into " << consumers
                       << " consumers: saves "
                       << formatBytes(materialized - duplicated)
                       << " of traffic";
    OpBuilder builder(op->getContext());
    for (Operation *user : ArrayRef(kernels).take_back(copies)) {
      builder.setInsertionPoint(user);
      Operation *copy = builder.clone(*op);
      user->replaceUsesOfWith(result, copy->getResult(0));
    }
  }
};
} // namespace
