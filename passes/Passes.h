//===- Passes.h - Fuse passes -----------------------------------*- C++ -*-===//
//
// Declarations and registration of every Fuse pass (passes/Passes.td) and of
// the fusion pipeline. Depends on the fuse dialect and MLIR only.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_PASSES_H
#define FUSE_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fuse {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Options of `fuse-fusion-pipeline`; the cost model constants default to
/// those of fuse-form-fusions.
struct FusionPipelineOptions
    : public PassPipelineOptions<FusionPipelineOptions> {
  Option<bool> explain{*this, "explain",
                       llvm::cl::desc("Emit one remark per fusion decision"),
                       llvm::cl::init(false)};
  Option<int64_t> launchCostBytes{
      *this, "launch-cost-bytes",
      llvm::cl::desc("What one kernel launch costs, in bytes of traffic"),
      llvm::cl::init(FuseFormFusionsOptions().launchCostBytes)};
  Option<int64_t> matmulTile{
      *this, "matmul-tile",
      llvm::cl::desc("Output tile edge of the matmul schedule"),
      llvm::cl::init(FuseFormFusionsOptions().matmulTile)};
  Option<unsigned> maxLiveValues{
      *this, "max-live-values",
      llvm::cl::desc("Most values a kernel may keep live at once"),
      llvm::cl::init(FuseFormFusionsOptions().maxLiveValues)};
  Option<unsigned> maxOperands{
      *this, "max-operands",
      llvm::cl::desc("Most inputs plus outputs of one kernel"),
      llvm::cl::init(FuseFormFusionsOptions().maxOperands)};
  Option<unsigned> maxOps{*this, "max-ops",
                          llvm::cl::desc("Most ops of one kernel"),
                          llvm::cl::init(FuseFormFusionsOptions().maxOps)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Whose schedules decide what one kernel holds: host or "
                     "gpu"),
      llvm::cl::init(FuseFormFusionsOptions().target)};
};

/// Canonicalize and CSE, then duplicate cheap producers, form fusion groups,
/// outline them into fuse.fusion kernels, and canonicalize and CSE again.
/// `pm` runs on a module.
void buildFusionPipeline(OpPassManager &pm,
                         const FusionPipelineOptions &options);

/// Registers every Fuse pass and pipeline with the global registry (for
/// fuse-opt).
void registerFusePasses();

/// The transpose that fuse-fold-matmul-transposes folds into a matmul's
/// transpose_b where `rhs` is the matmul's B inside one fusion: `rhs`
/// itself, or under a splat scale used only there, swapping its operand's
/// last two dims (and maybe others). Null where it folds none.
Operation *transposeFoldedIntoRhs(Value rhs);

} // namespace mlir::fuse

#endif // FUSE_PASSES_PASSES_H
