//===- FakeCudaDriver.h - The test-control API of the fake driver -*- C++
//-*-===//
//
// FakeCudaDriver.cpp builds a shared library named libcuda.so.1 that
// provides, on the host, the driver entry points CudaRuntime uses: memory in
// host RAM (device pointers are host addresses), copies done in stream
// order, kernels recorded rather than run. CudaRuntime loads it exactly as
// it loads the real driver (dlopen of a path, then cuGetProcAddress).
//
// Tests steer it through the extern "C" functions below, which they look up
// with dlsym in the same library: inject a failure at any entry point, hold
// the streams so that events stay pending until released, read the launch
// log and the call counts. The header only declares; nothing links the fake.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_RUNTIME_CUDA_FAKECUDADRIVER_H
#define FUSE_TEST_RUNTIME_CUDA_FAKECUDADRIVER_H

#include <cstdint>

extern "C" {

/// One recorded cuLaunchKernel.
struct FakeCudaLaunch {
  char name[128];
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedMemoryBytes;
  /// The parameters the kernel's PTX `.entry` declares (-1 for a cubin,
  /// whose parameters the fake cannot see); each read as 8 bytes.
  int paramCount;
  std::uint64_t params[16];
  /// Bit i: parameter i is a pointer (a binding or the error record: marked
  /// `.ptr` in the PTX, or any parameter of an entry that marks none); the
  /// others are values (a kernel's dims).
  unsigned pointerMask;
  /// Opaque stream handle, to tell streams apart.
  std::uint64_t stream;
};

/// Forgets every injected failure, hold and log, and the call counts.
/// Memory, streams and modules stay as they are.
void fakeCudaReset();

/// After `skip` more successful calls of `entry` (its base name, e.g.
/// "cuMemAlloc"), the next `times` calls return `result` and do nothing.
void fakeCudaInjectFailure(const char *entry, int skip, int times, int result);

/// Launches of kernel `name` (every launch until reset) fail on the device:
/// the next event recorded on the launching stream, or its next
/// synchronize, reports `result` once.
void fakeCudaFailKernel(const char *name, int result);

/// Launches of kernel `name` (until reset) write {flag, value} to the
/// address in their last pointer parameter when they run, as a kernel
/// reports a failed check in its error record (KernelAbi.h).
void fakeCudaReportFromKernel(const char *name, std::int64_t flag,
                              std::int64_t value);

/// hold != 0: work on every stream queues up and events stay pending;
/// hold == 0: the queued work runs, in each stream's order, and work runs
/// at once again.
void fakeCudaHoldStreams(int hold);
/// Operations queued while held and not yet run.
int fakeCudaQueuedOperations();
/// While held: runs the next `count` queued operations (each from the
/// first stream, in creation order, that has one); answers how many ran.
int fakeCudaRunQueued(int count);

int fakeCudaLaunchCount();
/// Copies launch `index` of the log; 0 if there is no such launch.
int fakeCudaGetLaunch(int index, FakeCudaLaunch *out);

/// Calls of an entry point (base name) since the last reset, including
/// failed ones.
int fakeCudaCallCount(const char *entry);

/// Device memory the fake holds (cuMemAlloc minus cuMemFree).
std::uint64_t fakeCudaLiveAllocationBytes();
int fakeCudaLiveAllocations();
int fakeCudaLiveStreams();
int fakeCudaLiveEvents();
int fakeCudaLiveModules();
/// Retains minus releases of the primary context.
int fakeCudaPrimaryContextRefs();

/// Whether a loaded, live module was PTX text that declares `.entry name`.
int fakeCudaHasPtxEntry(const char *name);
/// The total memory the fake device reports (default 1 GiB).
void fakeCudaSetTotalMemory(std::uint64_t bytes);
}

#endif // FUSE_TEST_RUNTIME_CUDA_FAKECUDADRIVER_H
