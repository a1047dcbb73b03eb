//===- FusionFrontEnd.cpp - What every target's compiler does first -------===//

#include "compiler/FusionFrontEnd.h"

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"

#include <mutex>

namespace fd = mlir::fuse;

namespace fuse::frontend {

void registerFusePassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { fd::registerFusePasses(); });
}

bool isTensorOp(mlir::Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() ==
             fd::FuseDialect::getDialectNamespace() &&
         !mlir::isa<fd::FusionOp, fd::YieldOp>(op);
}

DiagnosticCollector::DiagnosticCollector(mlir::MLIRContext &context)
    : handler(&context, [this](mlir::Diagnostic &d) {
        std::string text;
        llvm::raw_string_ostream os(text);
        mlir::Location loc = d.getLocation();
        if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
          os << file.getFilename().getValue() << ":" << file.getLine() << ":"
             << file.getColumn();
        else
          os << loc;
        os << ": " << d.str();
        for (const mlir::Diagnostic &note : d.getNotes())
          if (!llvm::StringRef(note.str()).starts_with("see current operation"))
            os << "\n  note: " << note.str();
        if (d.getSeverity() == mlir::DiagnosticSeverity::Remark)
          remarks.push_back(text);
        else if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
          errors += (errors.empty() ? "" : "\n") + text;
        return mlir::success();
      }) {}

fd::ScheduleKind singleOpSchedule(mlir::Operation *op) {
  if (auto reduce = mlir::dyn_cast<fd::ReduceOp>(op)) {
    auto type =
        mlir::cast<mlir::RankedTensorType>(reduce.getOperand().getType());
    llvm::ArrayRef<int64_t> dims = reduce.getDims();
    if (int64_t(dims.size()) == type.getRank())
      return fd::ScheduleKind::full_reduction;
    bool trailing = !dims.empty() && dims.back() == type.getRank() - 1 &&
                    dims.front() == type.getRank() - int64_t(dims.size());
    return trailing ? fd::ScheduleKind::row_reduction
                    : fd::ScheduleKind::column_reduction;
  }
  if (mlir::isa<fd::ArgMaxOp, fd::ArgMinOp>(op))
    return fd::ScheduleKind::row_reduction;
  if (mlir::isa<fd::MatmulOp>(op))
    return fd::ScheduleKind::matmul;
  return fd::ScheduleKind::pointwise;
}

void wrapEachOpInItsOwnFusion(mlir::func::FuncOp func) {
  mlir::OpBuilder b(func.getContext());
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : func.getBody().front())
    if (isTensorOp(&op))
      ops.push_back(&op);
  for (mlir::Operation *op : ops) {
    auto constant = mlir::dyn_cast<fd::ConstantOp>(op);
    bool onlyFeedsFuseOps = llvm::all_of(
        op->getUsers(), [](mlir::Operation *u) { return isTensorOp(u); });
    if (constant && onlyFeedsFuseOps && !op->use_empty())
      continue;
    llvm::SmallVector<mlir::Value> inputs;
    llvm::SmallVector<mlir::Operation *> clonedConstants;
    for (mlir::Value operand : op->getOperands()) {
      mlir::Operation *def = operand.getDefiningOp();
      if (def && mlir::isa<fd::ConstantOp>(def))
        clonedConstants.push_back(def);
      else if (!llvm::is_contained(inputs, operand))
        inputs.push_back(operand);
    }
    b.setInsertionPoint(op);
    auto fusion = fd::FusionOp::create(b, op->getLoc(), op->getResultTypes(),
                                       singleOpSchedule(op), inputs);
    mlir::Block *block = b.createBlock(&fusion.getBody());
    mlir::IRMapping mapping;
    for (mlir::Value input : inputs)
      mapping.map(input, block->addArgument(input.getType(), op->getLoc()));
    for (mlir::Operation *def : clonedConstants)
      if (!mapping.contains(def->getResult(0)))
        b.clone(*def, mapping);
    mlir::Operation *inner = b.clone(*op, mapping);
    fd::YieldOp::create(b, op->getLoc(), inner->getResults());
    op->replaceAllUsesWith(fusion.getResults());
    op->erase();
  }
  for (mlir::Operation &op : llvm::make_early_inc_range(func.getBody().front()))
    if (mlir::isa<fd::ConstantOp>(op) && op.use_empty())
      op.erase();
}

} // namespace fuse::frontend
