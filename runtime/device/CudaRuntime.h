//===- CudaRuntime.h - The GPU backend over the CUDA driver API -*- C++ -*-===//
//
// Runs bundles compiled for NVIDIA GPUs through the CUDA driver API, which it
// loads at run time: dlopen of libcuda.so.1 (or a path from the options or
// the FUSE_CUDA_DRIVER environment variable, which is how tests load the fake
// driver, test/runtime/device/FakeCudaDriver.cpp) and cuGetProcAddress, falling
// back to dlsym. Only cuda.h is needed to build it; it never links libcuda, so
// programs that use the other runtimes start on machines without a driver, and
// `create` answers "no CUDA driver" there.
//
// - Memory: a pooled allocator sub-allocates buffers from large cuMemAlloc
//   blocks (never one cuMemAlloc per tensor); freed ranges are reused, and
//   memoryCleanup returns the blocks that hold no buffer.
// - Kernels: one module per distinct PTX text (JIT-compiled by the driver
//   with cuModuleLoadDataEx, its error log in the error) or cubin, cached
//   for the runtime's context; cuLaunchKernel with the bound device pointers
//   as the parameters, in binding order, then the error record and the
//   values of the kernel's dims (KernelAbi.h).
// - Streams: one CUDA stream each, with a thread that observes completion
//   (cuEventQuery on the event recorded after each submission; NOT_READY is
//   pending) and makes fences terminal in order. Kernel timing uses an event
//   pair around each launch.
// - Errors: every CUresult becomes an Error naming the call and the result
//   (cuGetErrorName, cuGetErrorString). A device failure reported by a
//   submission's event fails that submission and its stream with the
//   reason; other streams keep working (on a real GPU a fault that corrupts
//   the context fails every stream of it).
//
// Never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_CUDARUNTIME_H
#define FUSE_RUNTIME_DEVICE_CUDARUNTIME_H

#include "runtime/device/DeviceRuntime.h"

#include <memory>
#include <string>

namespace fuse::device {

namespace cuda {
struct Driver;
struct Context;
class Pool;
struct ModuleCache;
struct Streams;
} // namespace cuda

/// Counters of the pooled device allocator.
struct CudaPoolStats {
  /// Blocks taken with cuMemAlloc and not yet freed.
  uint64_t blocks = 0;
  uint64_t blockBytes = 0;
  /// Bytes of live sub-allocations (rounded to the pool's alignment).
  uint64_t allocatedBytes = 0;
  /// cuMemAlloc calls since the runtime was made.
  uint64_t driverAllocations = 0;
};

class CudaRuntime final : public DeviceRuntime {
public:
  /// The environment variable that names the driver library when the
  /// options do not.
  static constexpr const char *DriverPathVariable = "FUSE_CUDA_DRIVER";

  struct Options {
    /// Empty: $FUSE_CUDA_DRIVER if set, else libcuda.so.1 from the system.
    std::string driverPath;
    int device = 0;
    /// 0: 90% of the device's memory.
    uint64_t memoryBudgetBytes = 0;
    /// The size of the blocks the pool takes from the driver; larger
    /// buffers get a block of their own.
    uint64_t poolBlockBytes = uint64_t(64) << 20;
  };

  /// Loads the driver, initializes it and retains the device's primary
  /// context. Fails with Unsupported and "no CUDA driver (...)" when the
  /// driver library cannot be loaded, or names the failing call.
  static DeviceResult<std::unique_ptr<CudaRuntime>> create();
  static DeviceResult<std::unique_ptr<CudaRuntime>>
  create(const Options &options);

  /// Finishes the work already submitted. Handles may outlive the runtime,
  /// but only to be released.
  ~CudaRuntime() override;

  CudaPoolStats poolStats() const;
  /// The driver library that was loaded.
  const std::string &driverPath() const;

protected:
  DeviceResult<std::shared_ptr<detail::BufferObject>>
  allocateMemory(uint64_t bytes) override;
  DeviceResult<std::shared_ptr<detail::ExecutableObject>>
  loadExecutable(const Bundle &bundle) override;
  std::shared_ptr<detail::ExecutableObject>
  shareCode(const detail::ExecutableObject &loaded) const override;
  DeviceResult<std::shared_ptr<detail::StreamObject>> newStream() override;
  std::optional<Error> prepareSubmission(detail::StreamObject &stream) override;
  void enqueue(detail::StreamObject &stream,
               std::shared_ptr<detail::FenceObject> fence) override;
  DeviceStatus copyToHost(detail::BufferObject &buffer, uint64_t offset,
                          std::span<std::byte> destination) override;
  uint64_t pooledBytes() const override;
  void releasePooledMemory() override;

private:
  CudaRuntime(DeviceDescriptor descriptor,
              std::shared_ptr<cuda::Context> context, uint64_t poolBlockBytes);

  std::shared_ptr<cuda::Context> context;
  std::shared_ptr<cuda::Pool> pool;
  std::unique_ptr<cuda::ModuleCache> modules;
  std::unique_ptr<cuda::Streams> streams;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_CUDARUNTIME_H
