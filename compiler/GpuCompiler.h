//===- GpuCompiler.h - The compiler for NVIDIA GPU targets ------*- C++ -*-===//
//
// fuse::Compiler for `sm_80` and `sm_90`: Graph -> `fuse` dialect -> fusion
// (the `fuse-fusion-pipeline` of passes/ when it is registered; otherwise
// every op in a kernel of its own) -> one or two GPU kernels per
// `fuse.fusion` (GpuKernelEmitter) -> NVVM -> PTX through
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

#ifndef FUSE_COMPILER_GPUCOMPILER_H
#define FUSE_COMPILER_GPUCOMPILER_H

#include "runtime/Compiler.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

/// What `ptxas` made of one kernel.
struct GpuKernelArtifacts {
  std::string entry;
  std::string ptx;
  /// Empty when ptxas was not found.
  std::vector<std::uint8_t> cubin;
  /// ptxas -v: registers, spill stores and loads, shared memory.
  std::string ptxasLog;
};

/// Intermediate forms of one compilation, for tools and lit tests.
struct GpuCompileDumps {
  /// The function after fusion (fuse.fusion ops).
  std::string fused;
  /// The gpu.modules in upstream dialects, before lowering.
  std::string kernels;
  /// The gpu.modules in the NVVM and LLVM dialects.
  std::string nvvm;
  /// Per kernel, in the bundle's kernel order.
  std::vector<GpuKernelArtifacts> artifacts;
};

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

class GpuCompiler final : public Compiler {
public:
  explicit GpuCompiler(GpuCompilerConfig config = {});
  ~GpuCompiler() override;

  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options) override;
  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options,
                                GpuCompileDumps *dumps);

  /// A `.mlir` module with one function of fuse ops. `fuse.fusion` ops
  /// already in it are compiled as written (hand-written kernels); a
  /// function without any goes through fusion as in compile().
  /// `sourceName` names the buffer in diagnostics (a file name).
  Expected<Compilation> compileSource(std::string_view source,
                                      const Target &target,
                                      const CompileOptions &options,
                                      GpuCompileDumps *dumps = nullptr,
                                      std::string_view sourceName = "-");

  /// The toolkit in use; empty when none was found (then PTX that needs
  /// libdevice is an error, and nothing is assembled).
  const std::string &toolkitPath() const;
  /// Whether ptxas assembles every kernel (found, and not turned off).
  bool assembles() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace fuse

#endif // FUSE_COMPILER_GPUCOMPILER_H
