//===- FusionPipeline.cpp - The fusion passes in order --------------------===//
//
// The one place that orders the fusion passes. Canonicalize and CSE run
// before and after the structural steps, never between duplication and
// grouping: CSE would merge the duplicated producers again.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::fuse::buildFusionPipeline(OpPassManager &pm,
                                     const FusionPipelineOptions &options) {
  // Before canonicalization, which then drops what fed an empty value.
  pm.addNestedPass<func::FuncOp>(createFuseFoldEmptyTensors());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  // Until a schedule runs convolutions, they become matmuls first.
  FuseLowerConvolutionsOptions convolutions;
  convolutions.target = options.target;
  funcPm.addPass(createFuseLowerConvolutions(convolutions));
  funcPm.addPass(createFuseLowerMatvecs());
  FuseDuplicateCheapProducersOptions duplicate;
  duplicate.explain = options.explain;
  funcPm.addPass(createFuseDuplicateCheapProducers(duplicate));
  FuseFormFusionsOptions form;
  form.explain = options.explain;
  form.launchCostBytes = options.launchCostBytes;
  form.matmulTile = options.matmulTile;
  form.maxLiveValues = options.maxLiveValues;
  form.maxOperands = options.maxOperands;
  form.maxOps = options.maxOps;
  form.target = options.target;
  funcPm.addPass(createFuseFormFusions(form));
  FuseOutlineFusionsOptions outline;
  outline.target = options.target;
  funcPm.addPass(createFuseOutlineFusions(outline));
  // Inside the kernels, where the values it makes are never stored.
  funcPm.addPass(createFuseFoldMatmulTransposes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Again, now that CSE has made copies of one value one value: a fusion
  // yields it once (FusionOp::canonicalize).
  pm.addPass(createCanonicalizerPass());
  // Last: the kernels it groups are final.
  FuseHorizontalFusionOptions horizontal;
  horizontal.explain = options.explain;
  horizontal.target = options.target;
  pm.addNestedPass<func::FuncOp>(createFuseHorizontalFusion(horizontal));
}
