//===- TargetBackend.h - What one target adds to the driver -----*- C++ -*-===//
//
// The interface between KernelCompiler (the one driver: import, fusion,
// buffer assignment, the memory plan, the bundle) and a target: the
// dialects it needs, the kernels of one scheduled fusion, and the lowering
// of all kernels to the bundle's payload. compiler/host and compiler/gpu
// each implement it; neither knows the other. A compiler-side header: it
// includes MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_COMMON_TARGETBACKEND_H
#define FUSE_COMPILER_COMMON_TARGETBACKEND_H

#include "compiler/common/FusionFrontEnd.h"
#include "compiler/common/KernelCompiler.h"
#include "compiler/common/KernelPlan.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace fuse {

class TargetBackend {
public:
  virtual ~TargetBackend() = default;

  /// "host" or "GPU", in messages.
  virtual std::string_view name() const = 0;
  /// Whose schedules decide what fusion puts in one kernel: fuse-form-fusions'
  /// `target`, "host" or "gpu".
  virtual std::string_view scheduleTarget() const = 0;
  /// Whether this backend compiles for `target`.
  virtual bool compiles(const Target &target) const = 0;
  /// Registers and loads the dialects its kernels and lowering use.
  virtual void initialize(mlir::MLIRContext &context) = 0;
  /// Readies the empty module that will receive every kernel.
  virtual void prepareKernelModule(mlir::ModuleOp kernelModule) const {}
  virtual PayloadKind payloadKind() const = 0;
  /// Whether it honours `options` for `target`; says why not. By default
  /// only f32 matmuls (CompileOptions::matmulPrecision).
  virtual Status checkOptions(const Target &target,
                              const CompileOptions &options) const {
    if (options.matmulPrecision == MatmulPrecision::F32)
      return Status::success();
    return Status::error(
        "--matmul-precision=" +
        std::string(matmulPrecisionName(options.matmulPrecision)) +
        " is not supported for target '" + target.name + "': the " +
        std::string(name()) + " compiler computes matmuls in f32 only");
  }

  /// Whether a fusion of `kind` may take symbolic dims at run time (issue
  /// 22): emitted at representative values of its dims (KernelCompiler.cpp,
  /// "Symbolic fusions") rather than refused at once. A fusion it may take
  /// is still refused where its code depends on a dim's value.
  virtual bool takesRuntimeDims(mlir::fuse::ScheduleKind kind) const {
    return true;
  }
  /// The kernels that take the dims at run time, as a refusal of a symbolic
  /// fusion words them.
  virtual std::string_view runtimeDimsKernels() const {
    return "pointwise, gather and row-reduction kernels, matmuls whose rows "
           "(M) alone are symbolic, and attention over a runtime length";
  }

  /// Appends the kernels of `fusion` to `kernelModule`, their names
  /// starting with `prefix`. Fails with an error at the offending op.
  virtual mlir::FailureOr<FusionKernels>
  emitKernels(mlir::fuse::FusionOp fusion, mlir::ModuleOp kernelModule,
              llvm::StringRef prefix, const Target &target) = 0;

  /// Lowers `kernelModule` (not empty) to the target's payload and stores
  /// it in the bundle's kernels; `moduleOf[k]` is the plan's `module` of
  /// bundle kernel k. Appends the phases it timed and, when `dumps` is set,
  /// the forms it made; counts in `reuse` the kernels it compiled and those
  /// it took from earlier compilations.
  virtual Status
  package(mlir::ModuleOp kernelModule, const std::vector<std::string> &moduleOf,
          const Target &target, const CompileOptions &options, Bundle &bundle,
          std::vector<PhaseTiming> &phases, KernelReuse &reuse,
          frontend::DiagnosticCollector &diagnostics, CompileDumps *dumps) = 0;
};

} // namespace fuse

#endif // FUSE_COMPILER_COMMON_TARGETBACKEND_H
