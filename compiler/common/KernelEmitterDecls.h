//===- KernelEmitterDecls.h - Names for emitter headers ---------*- C++ -*-===//
//
// The declarations that each target's kernel emitter header
// (HostKernelEmitter.h, GpuKernelEmitter.h) needs for its entry points: the
// kernel plan they return, FailureOr and StringRef, and the two MLIR ops
// they take, declared ahead so that those headers never include the
// dialect.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_COMMON_KERNELEMITTERDECLS_H
#define FUSE_COMPILER_COMMON_KERNELEMITTERDECLS_H

#include "compiler/common/KernelPlan.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class ModuleOp;
namespace fuse {
class FusionOp;
} // namespace fuse
} // namespace mlir

#endif // FUSE_COMPILER_COMMON_KERNELEMITTERDECLS_H
