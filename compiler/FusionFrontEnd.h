//===- FusionFrontEnd.h - What every target's compiler does first -*- C++
//-*-===//
//
// The steps HostCompiler and GpuCompiler share before code generation: the
// op-index marks that let kernels name the Graph ops they cover, fusion (the
// registered pipeline, or one fusion per op when fusion is off), and the
// collection of MLIR diagnostics into a Status and remarks. A compiler-side
// header: it includes MLIR, so the runtime never sees it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_FUSIONFRONTEND_H
#define FUSE_COMPILER_FUSIONFRONTEND_H

#include "dialect/FuseOps.h"
#include "runtime/ir/Status.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace fuse::frontend {

/// Marks each fuse op with its index in Graph::ops, so that kernels can name
/// the ops they cover and their results' tensors after fusion moved, cloned
/// and regrouped them.
inline constexpr llvm::StringLiteral kOpIndexAttr = "fuse.op_index";
inline constexpr llvm::StringLiteral kFusionPipeline = "fuse-fusion-pipeline";

void registerFusePassesOnce();

/// A fuse op of the op table (not fuse.fusion or fuse.yield).
bool isTensorOp(mlir::Operation *op);

/// Collects diagnostics as text, errors and remarks apart.
struct DiagnosticCollector {
  explicit DiagnosticCollector(mlir::MLIRContext &context);

  Status error(const std::string &what) const {
    return Status::error(what + (errors.empty() ? "" : ": " + errors));
  }

  std::string errors;
  std::vector<std::string> remarks;
  mlir::ScopedDiagnosticHandler handler;
};

/// Schedule kind of a fusion that holds one op alone.
mlir::fuse::ScheduleKind singleOpSchedule(mlir::Operation *op);

/// The fallback while passes/ has no fusion pipeline (or fusion is off):
/// every tensor op becomes a fuse.fusion of its own; splat constants are
/// cloned into their consumers, as fuse-outline-fusions does.
void wrapEachOpInItsOwnFusion(mlir::func::FuncOp func);

} // namespace fuse::frontend

#endif // FUSE_COMPILER_FUSIONFRONTEND_H
