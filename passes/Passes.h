//===- Passes.h - Fuse passes -----------------------------------*- C++ -*-===//
//
// Declarations and registration of every Fuse pass (passes/Passes.td).
// Depends on the fuse dialect and MLIR only.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_PASSES_H
#define FUSE_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::fuse {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Registers every Fuse pass with the global registry (for fuse-opt).
void registerFusePasses();

} // namespace mlir::fuse

#endif // FUSE_PASSES_PASSES_H
