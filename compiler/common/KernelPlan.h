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
};

/// The kernels of one fusion, in launch order, and the scratch bytes they
/// share (reduction partials; 0 when none).
struct FusionKernels {
  std::vector<KernelPlan> kernels;
  std::uint64_t scratchBytes = 0;
};

} // namespace fuse

#endif // FUSE_COMPILER_COMMON_KERNELPLAN_H
