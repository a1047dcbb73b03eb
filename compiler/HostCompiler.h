//===- HostCompiler.h - The compiler for host targets -----------*- C++ -*-===//
//
// fuse::Compiler for `host-x86-64-v3` and `host-x86-64-v4`: Graph -> `fuse`
// dialect -> fusion (the `fuse-fusion-pipeline` of passes/ when it is
// registered; otherwise every op in a kernel of its own) -> one or two host
// kernels per `fuse.fusion` -> one shared object per bundle, with bindings,
// launch configurations, the launch order and the arena plan of
// intermediates. A kernel it cannot generate is an error that names the op
// and the schedule kind, never a wrong bundle.
//
// Plain C++ header: MLIR stays inside the implementation.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOSTCOMPILER_H
#define FUSE_COMPILER_HOSTCOMPILER_H

#include "runtime/Compiler.h"

#include <memory>
#include <string>
#include <string_view>

namespace fuse {

/// Intermediate forms of one compilation, for tools and lit tests.
struct HostCompileDumps {
  /// The function after fusion (fuse.fusion ops).
  std::string fused;
  /// The kernel functions in upstream dialects, before lowering.
  std::string kernels;
  /// The kernels in the LLVM dialect.
  std::string llvmDialect;
  /// The optimized LLVM IR.
  std::string llvmIR;
};

class HostCompiler final : public Compiler {
public:
  HostCompiler();
  ~HostCompiler() override;

  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options) override;
  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &options,
                                HostCompileDumps *dumps);

  /// A `.mlir` module with one function of fuse ops. `fuse.fusion` ops
  /// already in it are compiled as written (hand-written kernels); a
  /// function without any goes through fusion as in compile(). The bundle's
  /// graph is the function's Graph (GraphTranslation's funcToGraph).
  /// `sourceName` names the buffer in diagnostics (a file name).
  Expected<Compilation> compileSource(std::string_view source,
                                      const Target &target,
                                      const CompileOptions &options,
                                      HostCompileDumps *dumps = nullptr,
                                      std::string_view sourceName = "-");

  /// Whether passes/ registers `fuse-fusion-pipeline`; without it every op
  /// becomes its own kernel.
  static bool hasFusionPipeline();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace fuse

#endif // FUSE_COMPILER_HOSTCOMPILER_H
