//===- TargetCompiler.cpp - One compiler for every target -----------------===//

#include "compiler/TargetCompiler.h"

#include "compiler/host/HostCompiler.h"

namespace fuse {

TargetDispatchCompiler::TargetDispatchCompiler(GpuCompilerConfig gpuConfig)
    : gpuConfig(std::move(gpuConfig)) {}

TargetDispatchCompiler::~TargetDispatchCompiler() = default;

Expected<Compilation>
TargetDispatchCompiler::compile(const Graph &graph, const Target &target,
                                const CompileOptions &options) {
  Compiler *compiler = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (target.isHost()) {
      if (!host)
        host = std::make_unique<HostCompiler>();
      compiler = host.get();
    } else if (target.isCuda()) {
      if (!gpu)
        gpu = std::make_unique<GpuCompiler>(gpuConfig);
      compiler = gpu.get();
    }
  }
  if (!compiler)
    return Status::error("no compiler for target '" + target.name +
                         "': TargetDispatchCompiler compiles host-* targets "
                         "(HostCompiler) and sm_* targets (GpuCompiler)");
  return compiler->compile(graph, target, options);
}

} // namespace fuse
