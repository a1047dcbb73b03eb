//===- KernelPlan.h - What a backend made of one fusion ---------*- C++ -*-===//
//
// The kernels a TargetBackend emits for one scheduled `fuse.fusion`, as the
// driver needs them to fill the bundle: each kernel's entry, schedule,
// launch configuration and what each of its buffer arguments refers to.
// Shared by every target. Plain C++ header.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_COMMON_KERNELPLAN_H
#define FUSE_COMPILER_COMMON_KERNELPLAN_H

#include "runtime/cache/Bundle.h"

#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fuse {

/// What one buffer argument of a generated kernel refers to.
struct KernelOperand {
  enum class Kind : std::uint8_t { FusionInput, FusionResult, Scratch };
  Kind kind = Kind::FusionInput;
  /// The fusion's input or result number; 0 for Scratch.
  unsigned index = 0;
};

struct KernelPlan {
  /// The symbol of the kernel function (the PTX `.entry` on a GPU).
  std::string entry;
  /// The `gpu.module` that holds the kernel; empty on the host, whose
  /// kernels share one module.
  std::string module;
  ScheduleKind schedule = ScheduleKind::Pointwise;
  /// Host: iterations and grain. GPU: grid, block and dynamic shared memory
  /// (shared memory a kernel declares itself is static, not counted).
  LaunchConfig launch;
  /// In the order the kernel takes its buffers.
  std::vector<KernelOperand> operands;
  /// Host: the kernel functions in the module that this one calls (a
  /// horizontal launch's members), deduplicated before it.
  std::vector<std::string> callees;
  /// It reads only fusion inputs that the driver marked bound
  /// (kBoundInputsAttr) and writes only the scratch: it runs once per
  /// binding of the graph's inputs (BundleKernel::perBinding), and the
  /// fusion's scratch lives in the arena's bound part.
  bool perBinding = false;
  /// For a per-binding kernel: the fusion inputs it reads (it runs again
  /// when one of them is bound anew, not when another input is).
  std::vector<unsigned> bindingReads;
  /// Appended to the target's name in BundleKernel::target: the ISA the
  /// kernel needs beyond the target's level (`+avx512bf16` for a bf16
  /// matmul, device::kAvx512Bf16Suffix), which the runtime checks.
  std::string targetSuffix;
  /// Of a fusion with symbolic dims: its iteration count over the dims
  /// (BundleKernel::symbolicIterations); launch.iterations then holds the
  /// count at the representative values it was emitted at.
  std::optional<DimExpr> symbolicIterations;
  /// Of a fusion emitted for runtime dims: the dims the kernel reads as
  /// values from its dims array (BundleKernel::runtimeDims), in its order;
  /// empty: it takes none.
  std::vector<std::string> runtimeDims;
};

/// The attribute the driver sets on each top-level `fuse.fusion` before its
/// kernels are emitted: a DenseBoolArrayAttr, per fusion input, whether it
/// is a graph input, whose buffer stays unchanged between the runs of one
/// binding (isBoundFusionInput, RegionEmitter.h, reads it). It is part of
/// the fusion's text, so identical fusions with other bindings never share
/// kernels.
inline constexpr const char *kBoundInputsAttr = "fuse.bound_inputs";

/// The attribute the driver sets on each `fuse.fusion` with a `fuse.matmul`
/// in its body (horizontal members too) when CompileOptions::matmulPrecision
/// is bf16: a StringAttr "bf16". Part of the fusion's text, so f32 and bf16
/// fusions never share kernels.
inline constexpr const char *kMatmulPrecisionAttr = "fuse.matmul_precision";
/// Set beside kMatmulPrecisionAttr bf16 when CompileOptions::amxTiles: the
/// host's bf16 matmul kernels use AMX tiles.
inline constexpr const char *kMatmulAmxAttr = "fuse.matmul_amx";

/// The attribute the driver sets on the copies of a fusion with symbolic
/// dims that it emits at representative values of the dims (KernelCompiler,
/// "Symbolic fusions"): a DictionaryAttr of each dim's representative value
/// by its name (in name order: the order of a kernel's dims array). Index
/// maps then merge adjacent dims that are contiguous in the operand, and
/// read a size that is a product of dims from the kernel's dims array
/// (AffineIndexMap.h, runtimeSize); the attention emitter reads its rows
/// and keys there. Static fusions never carry it, so their kernels stay as
/// they were.
inline constexpr const char *kRuntimeDimsAttr = "fuse.runtime_dims";

/// Bytes per slot of a reduction's scratch partials (f32 and f64
/// accumulators alike).
inline constexpr std::uint64_t kScratchSlotBytes = 8;

/// The kernels of one fusion, in launch order, and the scratch bytes they
/// share (reduction partials; 0 when none).
struct FusionKernels {
  std::vector<KernelPlan> kernels;
  std::uint64_t scratchBytes = 0;
};

/// The plan of kernel `entry` (in `module`, empty on the host) of
/// `schedule`, whose buffers are the fusion's `numInputs` inputs, then its
/// results `results` in that order, then the scratch buffer when `scratch`.
/// The target fills in the launch.
inline KernelPlan kernelPlan(std::string entry, std::string module,
                             ScheduleKind schedule, unsigned numInputs,
                             std::span<const unsigned> results,
                             bool scratch = false) {
  KernelPlan plan;
  plan.entry = std::move(entry);
  plan.module = std::move(module);
  plan.schedule = schedule;
  for (unsigned i = 0; i < numInputs; ++i)
    plan.operands.push_back({KernelOperand::Kind::FusionInput, i});
  for (unsigned r : results)
    plan.operands.push_back({KernelOperand::Kind::FusionResult, r});
  if (scratch)
    plan.operands.push_back({KernelOperand::Kind::Scratch, 0});
  return plan;
}

/// As above, for a kernel that writes all `numResults` results.
inline KernelPlan kernelPlan(std::string entry, std::string module,
                             ScheduleKind schedule, unsigned numInputs,
                             unsigned numResults) {
  std::vector<unsigned> results(numResults);
  std::iota(results.begin(), results.end(), 0u);
  return kernelPlan(std::move(entry), std::move(module), schedule, numInputs,
                    results);
}

/// The scratch of `partials` slots for each of `reductions` reductions.
inline std::uint64_t partialsScratchBytes(std::int64_t partials,
                                          std::size_t reductions) {
  return std::uint64_t(partials) * reductions * kScratchSlotBytes;
}

/// A fusion that is one kernel.
inline FusionKernels singleKernel(KernelPlan plan) {
  FusionKernels kernels;
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

} // namespace fuse

#endif // FUSE_COMPILER_COMMON_KERNELPLAN_H
