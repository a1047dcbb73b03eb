//===- HostCompiler.h - The compiler for host targets -----------*- C++ -*-===//
//
// fuse::Compiler for `host-x86-64-v3` and `host-x86-64-v4`: the one driver
// (KernelCompiler) with the host backend, which emits one or two host
// kernels per `fuse.fusion` (HostKernelEmitter), lowers them to LLVM,
// optimizes them for the target's ISA and links them into one shared object
// per bundle, in process.
//
// Plain C++ header: MLIR stays inside the implementation.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOST_HOSTCOMPILER_H
#define FUSE_COMPILER_HOST_HOSTCOMPILER_H

#include "compiler/common/KernelCompiler.h"

namespace fuse {

class KernelObjectCache;

class HostCompiler final : public KernelCompiler {
public:
  HostCompiler();
  ~HostCompiler() override;

  void keepKernelsIn(BundleCache *cache) override;

private:
  explicit HostCompiler(std::unique_ptr<KernelObjectCache> kernels);

  std::unique_ptr<KernelObjectCache> kernelObjects;
};

} // namespace fuse

#endif // FUSE_COMPILER_HOST_HOSTCOMPILER_H
