//===- GpuCompiler.h - The compiler for NVIDIA GPU targets ------*- C++ -*-===//
//
// fuse::Compiler for `sm_80` and `sm_90`: the one driver (KernelCompiler)
// with the GPU backend: one or two GPU kernels per `fuse.fusion`
// (GpuKernelEmitter) -> NVVM -> PTX through
// `gpu-module-to-binary` with the CUDA toolkit's libdevice linked -> a
// Bundle: one PTX payload per kernel, its entry, grid and block, bindings in
// parameter order, covered ops, the launch order and the arena plan of
// intermediates. Where `ptxas` is found it assembles every kernel too, which
// proves the PTX valid and yields the cubin and its register and spill
// report (in the dumps; the bundle keeps the portable PTX unless
// GpuCompilerConfig::cubinPayload asks for the cubin).
//
// A kernel it cannot generate is an error that names the op and the
// schedule kind, never a wrong bundle. Plain C++ header: MLIR stays inside.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_GPU_GPUCOMPILER_H
#define FUSE_COMPILER_GPU_GPUCOMPILER_H

#include "compiler/common/KernelCompiler.h"

#include <string>

namespace fuse {

struct GpuCompilerConfig {
  /// The CUDA toolkit (libdevice, ptxas). Empty: $CUDA_HOME, then
  /// /usr/local/cuda.
  std::string toolkitPath;
  /// Assemble every kernel with ptxas when it is found.
  bool runPtxas = true;
  /// Where ptxas ran, carry the cubin as each kernel's payload (no JIT at
  /// load, but tied to the exact architecture) instead of the PTX.
  bool cubinPayload = false;
};

class GpuBackend;

class GpuCompiler final : public KernelCompiler {
public:
  explicit GpuCompiler(GpuCompilerConfig config = {});

  /// The toolkit in use; empty when none was found (then PTX that needs
  /// libdevice is an error, and nothing is assembled).
  const std::string &toolkitPath() const;
  /// Whether ptxas assembles every kernel (found, and not turned off).
  bool assembles() const;

private:
  GpuBackend *gpu;
};

} // namespace fuse

#endif // FUSE_COMPILER_GPU_GPUCOMPILER_H
