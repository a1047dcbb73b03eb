//===- TargetCompiler.h - One compiler for every target ---------*- C++ -*-===//
//
// fuse::Compiler that hands each compilation to the compiler of its target:
// `host-*` targets to HostCompiler, `sm_*` targets to GpuCompiler. Each is
// made on its first use. Tools and examples inject it into a Session whose
// device is DeviceChoice::Default, which may be cuda or the host depending
// on the machine. Any other target (`reference`) is an error that names it.
//
// Plain C++ header: MLIR stays inside the implementation.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_TARGETCOMPILER_H
#define FUSE_COMPILER_TARGETCOMPILER_H

#include "compiler/gpu/GpuCompiler.h"
#include "runtime/Compiler.h"

#include <memory>
#include <mutex>

namespace fuse {

class HostCompiler;

class TargetDispatchCompiler final : public Compiler {
public:
  explicit TargetDispatchCompiler(GpuCompilerConfig gpuConfig = {});
  ~TargetDispatchCompiler() override;

  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options) override;

  /// The compilers made so far (null until first used), for tools.
  HostCompiler *hostCompiler() const { return host.get(); }
  GpuCompiler *gpuCompiler() const { return gpu.get(); }

private:
  GpuCompilerConfig gpuConfig;
  std::mutex mutex;
  std::unique_ptr<HostCompiler> host;
  std::unique_ptr<GpuCompiler> gpu;
};

} // namespace fuse

#endif // FUSE_COMPILER_TARGETCOMPILER_H
