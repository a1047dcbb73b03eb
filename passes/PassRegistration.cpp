//===- PassRegistration.cpp - Registration of the Fuse passes -------------===//
//
// The passes live one per file; this unit registers them all, and the fusion
// pipeline.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

namespace mlir::fuse::detail {
// The generated registration is also named registerFusePasses: keep it apart
// from the public one, which adds the pipeline.
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace mlir::fuse::detail

void mlir::fuse::registerFusePasses() {
  detail::registerFusePasses();
  PassPipelineRegistration<FusionPipelineOptions>(
      "fuse-fusion-pipeline",
      "Fuse tensor ops into fuse.fusion kernels (fuse-fold-empty-tensors, "
      "canonicalize, cse, "
      "fuse-lower-convolutions, fuse-lower-matvecs, "
      "fuse-duplicate-cheap-producers, fuse-form-fusions, "
      "fuse-outline-fusions, canonicalize, cse)",
      buildFusionPipeline);
}
