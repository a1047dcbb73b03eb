//===- KernelCompiler.h - The one compiler driver ---------------*- C++ -*-===//
//
// fuse::Compiler for every target, parameterized by a TargetBackend:
// Graph (or a `.mlir` module) -> `fuse` dialect -> fusion (the
// `fuse-fusion-pipeline` of passes/; every op in a kernel of its own when
// fusion is off) -> the backend's kernels for each `fuse.fusion`, bound to
// the graph's buffers and the arena -> the backend's payload (a shared
// object on the host, PTX or cubins on a GPU) -> a Bundle with bindings,
// launch configurations, the launch order and the arena plan of
// intermediates. A kernel the backend cannot generate is an error that
// names the op and the schedule kind, never a wrong bundle.
//
// HostCompiler and GpuCompiler are this driver with their backend. Plain C++
// header: MLIR stays inside the implementation.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_COMMON_KERNELCOMPILER_H
#define FUSE_COMPILER_COMMON_KERNELCOMPILER_H

#include "runtime/Compiler.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

class TargetBackend;

/// What an assembler made of one kernel (GPU: `ptxas`).
struct KernelArtifacts {
  std::string entry;
  std::string ptx;
  /// Empty when ptxas was not found.
  std::vector<std::uint8_t> cubin;
  /// ptxas -v: registers, spill stores and loads, shared memory.
  std::string ptxasLog;
};

/// Intermediate forms of one compilation, for tools and lit tests. What a
/// target does not make stays empty.
struct CompileDumps {
  /// The function after fusion (fuse.fusion ops).
  std::string fused;
  /// The kernels in upstream dialects, before lowering.
  std::string kernels;
  /// The kernels lowered: the LLVM dialect (host), NVVM and LLVM (GPU).
  std::string lowered;
  /// The optimized LLVM IR (host).
  std::string llvmIR;
  /// Per kernel, in the bundle's kernel order (GPU).
  std::vector<KernelArtifacts> artifacts;
};

class KernelCompiler : public Compiler {
public:
  explicit KernelCompiler(std::unique_ptr<TargetBackend> backend);
  ~KernelCompiler() override;

  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options) override;
  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options,
                                CompileDumps *dumps);

  /// A `.mlir` module with one function of fuse ops. `fuse.fusion` ops
  /// already in it are compiled as written (hand-written kernels); a
  /// function without any goes through fusion as in compile(). The bundle's
  /// graph is the function's Graph (GraphTranslation's moduleToGraph).
  /// `sourceName` names the buffer in diagnostics (a file name).
  Expected<Compilation> compileSource(std::string_view source,
                                      const Target &target,
                                      const CompileOptions &options,
                                      CompileDumps *dumps = nullptr,
                                      std::string_view sourceName = "-");

protected:
  TargetBackend &backend();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace fuse

#endif // FUSE_COMPILER_COMMON_KERNELCOMPILER_H
