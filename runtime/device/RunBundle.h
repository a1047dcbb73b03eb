//===- RunBundle.h - Executes a bundle on a device runtime ------*- C++ -*-===//
//
// The one way to run a whole bundle: upload the inputs, launch the kernels in
// the bundle's order with their bindings resolved to buffers (graph inputs,
// graph outputs, slices of one arena for intermediates), submit one batch,
// wait for its fence and read the outputs back. Tests, tools and the
// engine's simple paths share it, so every backend is driven the same way;
// with the reference runtime and makeReferenceBundle, evaluating any graph
// is one call.
//
// Never depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_RUNBUNDLE_H
#define FUSE_RUNTIME_DEVICE_RUNBUNDLE_H

#include "runtime/device/DeviceRuntime.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace fuse {
struct MemoryPlan;
} // namespace fuse

namespace fuse::device {

using TensorBytes = std::vector<std::byte>;

/// An input that a PreparedBundle may read in place instead of copying it
/// (a model's weights): `owner` keeps `bytes` alive, and whoever holds them
/// keeps them unchanged, for as long as the PreparedBundle lives. Runtimes
/// that cannot read host memory (CUDA), and inputs the bundle writes in
/// place, get a copy.
struct SharedInput {
  std::shared_ptr<const void> owner;
  std::span<const std::byte> bytes;
};

/// Inputs in the bundle's input order, each the raw bytes of its tensor type;
/// answers the outputs in the bundle's output order. On a failure after
/// submission the fence keeps every resource of the run until it is
/// terminal.
DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          std::span<const TensorBytes> inputs,
          std::chrono::nanoseconds timeout = std::chrono::minutes(10));

/// The same for a bundle that may have symbolic dims (issue 22): its dims
/// are read from `inputShapes` (one per input, dimsFromInputShapes, whose
/// errors say which inputs disagree or which dim is no size), the bundle is
/// bound to them (bindBundle: no compilation) and run. A static bundle runs
/// as above. The executable and PreparedBundle paths below take a bound
/// (static) bundle: DeviceRuntime::load refuses a symbolic one.
DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          std::span<const TensorBytes> inputs,
          std::span<const std::vector<int64_t>> inputShapes,
          std::chrono::nanoseconds timeout = std::chrono::minutes(10));

/// The same with an executable already loaded from `bundle` and a stream,
/// for callers that run a bundle repeatedly.
DeviceResult<std::vector<TensorBytes>>
runBundle(DeviceRuntime &runtime, const Bundle &bundle,
          const Executable &executable, Stream &stream,
          std::span<const TensorBytes> inputs,
          std::chrono::nanoseconds timeout = std::chrono::minutes(10));

/// Bytes of a known pattern (a byte of its own per guard) that a guarded run
/// (runBundleGuarded) puts after every input and output buffer, and before
/// and after every intermediate.
inline constexpr uint64_t kGuardBytes = 256;
/// What a guarded run's arena holds where no kernel has written yet: all
/// ones, a NaN in every float type.
inline constexpr std::byte kUnwrittenByte{0xff};

/// A guard that a guarded run found changed: a kernel wrote outside the
/// buffers it was given.
struct GuardBreach {
  /// Where the guard lies: "after output 0 (f32[4x8])", "after intermediate
  /// %12 (f32[64]) and before intermediate %15 (f32[8])".
  std::string where;
  /// The first kernel after which it had changed, by name; empty when no
  /// kernel's own buffers border it (found after the last kernel).
  std::string kernel;
  /// How many of its bytes had changed.
  uint64_t changedBytes = 0;
};

struct GuardedRun {
  /// In the bundle's output order.
  std::vector<TensorBytes> outputs;
  std::vector<GuardBreach> breaches;
  /// How many guards were checked.
  size_t guards = 0;
};

/// `plan` laid out for a guarded run: every intermediate in bytes of its own
/// (no two share any, whenever they live), kGuardBytes before the first and
/// at least kGuardBytes between one and the next and after the last, each
/// aligned to kArenaAlignment; those of the bound part (boundBytes) first.
MemoryPlan guardedArena(const MemoryPlan &plan);

/// Runs static `bundle` once so that what a kernel does outside its buffers
/// shows: the arena laid out by guardedArena, each input and output buffer
/// kGuardBytes longer than its tensor, the guards holding their patterns and
/// the rest of the arena kUnwrittenByte before the first kernel. A write past a
/// buffer's end (or before an intermediate's start) changes a guard; a read
/// of an intermediate before any kernel wrote it reads NaNs, which reach the
/// outputs. Each kernel is a batch of its own, after which the guards next
/// to its buffers are read back, so that a breach names the kernel;
/// every guard is read back after the last. `executable` is loaded from
/// `bundle` (the layout changes no kernel).
DeviceResult<GuardedRun>
runBundleGuarded(DeviceRuntime &runtime, const Bundle &bundle,
                 const Executable &executable, Stream &stream,
                 std::span<const std::span<const std::byte>> inputs,
                 std::chrono::nanoseconds timeout = std::chrono::minutes(10));

/// A bundle whose buffers are allocated and whose inputs are uploaded once,
/// so that it can be run repeatedly with its data resident on the device:
/// what a benchmark times, and what a caller that reruns a model wants.
/// Inputs the bundle writes in place (its aliases) are uploaded again before
/// each run, so every run computes the same thing.
class PreparedBundle {
public:
  /// `runtime`, `bundle`, `executable` and `stream` must outlive the result.
  static DeviceResult<PreparedBundle>
  prepare(DeviceRuntime &runtime, const Bundle &bundle,
          const Executable &executable, Stream &stream,
          std::span<const TensorBytes> inputs,
          std::chrono::nanoseconds timeout = std::chrono::minutes(10));
  /// The same with inputs read in place where the runtime can
  /// (DeviceRuntime::borrowHostMemory): no copy, no buffer of its own.
  static DeviceResult<PreparedBundle>
  prepare(DeviceRuntime &runtime, const Bundle &bundle,
          const Executable &executable, Stream &stream,
          std::span<const SharedInput> inputs,
          std::chrono::nanoseconds timeout = std::chrono::minutes(10));

  /// Launches the kernels in order as one batch and waits for its fence.
  /// The per-binding kernels (a weight's packing, BundleKernel::perBinding)
  /// run on the first run after prepare or setInput; later runs reuse what
  /// they wrote.
  DeviceStatus run(std::chrono::nanoseconds timeout = std::chrono::minutes(10));

  /// Binds new bytes to input `input` (a run's new activations, or other
  /// weights) for the runs that follow, checked as prepare checks them.
  /// The per-binding kernels that read it run again on the next run, so
  /// nothing derived from the old value is ever read; those that read only
  /// other inputs (the packing of weights, when the activations change) do
  /// not. An input that was read in place gets a buffer of its own; the
  /// caller's memory is never written. On an error the binding is as it was,
  /// unless the upload itself failed (then the input's value is undefined
  /// until it is bound again).
  DeviceStatus
  setInput(uint32_t input, std::span<const std::byte> bytes,
           std::chrono::nanoseconds timeout = std::chrono::minutes(10));

  /// Runs the bundle `runs` times with each kernel a batch of its own
  /// (submitted, then its fence waited for) and answers each launch's median
  /// time from submit to fence, in the bundle's launch order: where a run's
  /// time goes, each kernel's share including one submission's overhead.
  /// The per-binding kernels are timed too (running them again changes
  /// nothing); a run does not launch them.
  DeviceResult<std::vector<std::chrono::nanoseconds>>
  profileKernels(unsigned runs,
                 std::chrono::nanoseconds timeout = std::chrono::minutes(10));

  /// The outputs of the last run, in the bundle's output order.
  DeviceResult<std::vector<TensorBytes>> readOutputs();

  struct Buffers;

private:
  PreparedBundle() = default;
  static DeviceResult<PreparedBundle>
  prepareViews(DeviceRuntime &runtime, const Bundle &bundle,
               const Executable &executable, Stream &stream,
               std::span<const std::span<const std::byte>> inputs,
               std::span<const SharedInput> shared,
               std::chrono::nanoseconds timeout);
  DeviceRuntime *runtime = nullptr;
  const Bundle *bundle = nullptr;
  const Executable *executable = nullptr;
  Stream *stream = nullptr;
  std::shared_ptr<Buffers> buffers;
  /// Host copies of the inputs that a run overwrites (aliases).
  std::vector<std::pair<uint32_t, TensorBytes>> aliasedInputs;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_RUNBUNDLE_H
