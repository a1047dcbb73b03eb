//===- Passes.td - Fuse passes -----------------------------*- tablegen -*-===//
//
// Every pass of Fuse, grouped under banner comments, alphabetical within a
// group; every pass argument starts with `fuse-`.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_TD
#define FUSE_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // FUSE_PASSES_TD
