//===- BundleLaunch.h - A bundle's kernels bound and launched ---*- C++ -*-===//
//
// The one bind-buffers-and-launch path: each kernel of a bundle, in its
// launch order, encoded with its bindings (graph inputs, graph outputs,
// slices of one arena for intermediates) resolved to the caller's buffers,
// and a batch submitted and waited for. runBundle and PreparedBundle
// (RunBundle.h), the engine's runs (runtime/engine/BundleRun.cpp) and the
// benchmark's kernel timer (bench/KernelTimer.cpp) differ in how they get
// their buffers (uploaded once, resident, written in place, rotated between
// input sets), never in how a kernel binds them.
//
// Never depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_BUNDLELAUNCH_H
#define FUSE_RUNTIME_DEVICE_BUNDLELAUNCH_H

#include "runtime/device/DeviceRuntime.h"

#include <chrono>
#include <cstdint>
#include <span>

namespace fuse::device {

/// The buffers a bundle's kernels bind: one per graph input and one per
/// graph output, in the bundle's orders, and the arena its intermediates
/// are slices of (its memory plan; unused where the plan has none).
struct BundleBuffers {
  std::span<const Buffer> inputs;
  std::span<const Buffer> outputs;
  const Buffer &arena;
};

/// The launch of `bundle`'s kernel `k` with its bindings resolved to
/// `buffers`, each binding as long as its tensor (its arena slice).
DeviceResult<Command> encodeBundleLaunch(DeviceRuntime &runtime,
                                         const Bundle &bundle,
                                         const Executable &executable,
                                         const BundleBuffers &buffers,
                                         uint32_t k);

/// Which of a bundle's launches a run encodes: all of them, on the first
/// run of a binding of the inputs (or wherever the buffers are new each
/// run), or only those that run per run, once the bound part of the arena
/// holds what the per-binding kernels wrote (BundleKernel::perBinding).
enum class Launches : std::uint8_t { All, PerRun };

/// Whether kernel `k` of `bundle` is launched by a run of `which`; with
/// PerRun, also a per-binding kernel that `perBindingToo` lists (by kernel
/// index: one whose result depends on the dims, when the bound part comes
/// from a binding of other dims).
bool launches(const Bundle &bundle, uint32_t k, Launches which,
              std::span<const uint32_t> perBindingToo = {});

/// The launches of `bundle` that `which` (and `perBindingToo`) name, in its
/// launch order, added to `batch`.
DeviceStatus encodeBundleLaunches(DeviceRuntime &runtime, const Bundle &bundle,
                                  const Executable &executable,
                                  const BundleBuffers &buffers,
                                  CommandBatch &batch,
                                  Launches which = Launches::All,
                                  std::span<const uint32_t> perBindingToo = {});

/// Submits `batch` on `stream` (nothing when it is empty) and waits for its
/// fence: the error it failed with, if any.
DeviceStatus
submitAndWait(DeviceRuntime &runtime, Stream &stream, CommandBatch batch,
              std::chrono::nanoseconds timeout = std::chrono::minutes(10));

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_BUNDLELAUNCH_H
