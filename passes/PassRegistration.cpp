//===- PassRegistration.cpp - Anchor of the FusePasses library ------------===//
//
// The passes live one per file; this unit registers them all.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

void mlir::fuse::registerFusePasses() {}
