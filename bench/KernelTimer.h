//===- KernelTimer.h - Times a bundle's kernels alone -----------*- C++ -*-===//
//
// Allocates a bundle's buffers and uploads its inputs once, then times whole
// submissions of its kernels (launch order, one batch, waited for by its
// fence): what a model costs once its data is on the device, without the
// uploads and readbacks that runBundle adds to every run.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_BENCH_KERNELTIMER_H
#define FUSE_BENCH_KERNELTIMER_H

#include "runtime/cache/Bundle.h"
#include "runtime/device/DeviceRuntime.h"
#include "runtime/device/RunBundle.h"
#include "runtime/ir/Status.h"

#include <functional>
#include <string>
#include <vector>

namespace fuse::bench {

struct KernelTiming {
  double medianMs = 0, minMs = 0;
  /// Each launch's median time over the timed runs, in launch order (the
  /// runtime's Kernel timing mode): which kernel the time goes to. A
  /// per-binding kernel (BundleKernel::perBinding) is timed in each input
  /// set's first run, the one that binds it; the timed runs leave it out.
  std::vector<double> launchMedianMs;
  /// Each timed run's time, in the order they ran.
  std::vector<double> runMs;
  /// The outputs of the last run, in the bundle's output order.
  std::vector<device::TensorBytes> outputs;
};

struct KernelTimerOptions {
  /// Copies of the inputs at different addresses, used in turn, so that a
  /// cache (a GPU's L2) does not hold them from one run to the next.
  unsigned inputSets = 1;
  /// Time the launches on the device (TimingMode::Kernel: CUDA events on a
  /// GPU) instead of the host clock from submit to the fence.
  bool deviceTime = false;
  /// Warm-up and timed runs each continue past `warmup` and `runs` until
  /// this much time has passed (at most 100 times as many runs): a small
  /// kernel's first few hundred runs on a shared VM can take twice as long
  /// as the rest (CPU frequency, helper threads), and 20 runs of 0.1 ms are
  /// too few for a stable median.
  double minPhaseMs = 200;
  /// Called before each timed run, outside its time (fuse-bench's paired
  /// triad pass); its time does count toward minPhaseMs.
  std::function<void()> beforeTimedRun;
};

/// `runs` timed submissions after `warmup` untimed ones (more for small
/// kernels: minPhaseMs); inputs in the bundle's input order.
Expected<KernelTiming>
timeKernels(device::DeviceRuntime &runtime, const Bundle &bundle,
            const std::vector<device::TensorBytes> &inputs, unsigned warmup,
            unsigned runs, const KernelTimerOptions &options = {});

std::string describe(const device::Error &error);

} // namespace fuse::bench

#endif // FUSE_BENCH_KERNELTIMER_H
