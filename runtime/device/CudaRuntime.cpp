//===- CudaRuntime.cpp - The GPU backend over the CUDA driver API ---------===//

#include "runtime/device/CudaRuntime.h"

#include "runtime/cache/Bundle.h"
#include "runtime/device/DeviceObjects.h"

#include <cuda.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <thread>

namespace fuse::device {
namespace cuda {

//===----------------------------------------------------------------------===//
// The driver library
//===----------------------------------------------------------------------===//

// The entry points the runtime uses: member, name for cuGetProcAddress,
// exported name for dlsym (the versioned symbol that cuda.h maps the name
// to). The versions asked for are those of CUDA 12.0, whose signatures are
// the ones written here.
#define FUSE_CUDA_ENTRY_POINTS(X)                                              \
  X(cuGetErrorName, "cuGetErrorName")                                          \
  X(cuGetErrorString, "cuGetErrorString")                                      \
  X(cuInit, "cuInit")                                                          \
  X(cuDeviceGet, "cuDeviceGet")                                                \
  X(cuDeviceGetName, "cuDeviceGetName")                                        \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")                              \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2")                                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                      \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")                 \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                        \
  X(cuMemAlloc, "cuMemAlloc_v2")                                               \
  X(cuMemFree, "cuMemFree_v2")                                                 \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                                 \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                                 \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                                           \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")                                 \
  X(cuMemsetD8Async, "cuMemsetD8Async")                                        \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx")                                  \
  X(cuModuleGetFunction, "cuModuleGetFunction")                                \
  X(cuModuleUnload, "cuModuleUnload")                                          \
  X(cuFuncSetAttribute, "cuFuncSetAttribute")                                  \
  X(cuLaunchKernel, "cuLaunchKernel")                                          \
  X(cuStreamCreate, "cuStreamCreate")                                          \
  X(cuStreamSynchronize, "cuStreamSynchronize")                                \
  X(cuStreamDestroy, "cuStreamDestroy_v2")                                     \
  X(cuEventCreate, "cuEventCreate")                                            \
  X(cuEventRecord, "cuEventRecord")                                            \
  X(cuEventQuery, "cuEventQuery")                                              \
  X(cuEventSynchronize, "cuEventSynchronize")                                  \
  X(cuEventElapsedTime, "cuEventElapsedTime")                                  \
  X(cuEventDestroy, "cuEventDestroy_v2")

struct Driver {
  std::string path;
  void *handle = nullptr;

  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute,
                                   CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t,
                              CUstream) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjit_option *, void **) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute,
                                 int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventQuery)(CUevent) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;

  /// "CUDA_ERROR_X (what the driver says)".
  std::string describe(CUresult result) const {
    const char *name = nullptr;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
      return "CUresult " + std::to_string(int(result));
    std::string text = name;
    const char *message = nullptr;
    if (cuGetErrorString(result, &message) == CUDA_SUCCESS && message)
      text += std::string(" (") + message + ")";
    return text;
  }
};

/// Failures that the device reports for work it ran: they end the work.
/// A driver shut down or a context destroyed runs nothing either.
bool isDeviceFailure(CUresult result) {
  switch (result) {
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return true;
  default:
    return false;
  }
}

/// An Error naming the call and the CUresult; out of memory and device
/// failures keep their own codes.
Error driverError(const Driver &driver, ErrorCode code, const std::string &call,
                  CUresult result) {
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    code = ErrorCode::OutOfMemory;
  else if (isDeviceFailure(result))
    code = ErrorCode::KernelFailed;
  return Error{code, call + " failed: " + driver.describe(result)};
}

DeviceResult<std::shared_ptr<const Driver>>
loadDriver(const std::string &path) {
  static std::mutex mutex;
  // Drivers stay loaded for the life of the process: unloading libcuda is
  // not something it supports.
  static std::map<std::string, std::shared_ptr<const Driver>> loaded;
  std::lock_guard lock(mutex);
  if (auto it = loaded.find(path); it != loaded.end())
    return it->second;

  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return Error{ErrorCode::Unsupported,
                 "no CUDA driver (" + path +
                     " not found): " + (reason ? reason : "dlopen failed")};
  }
  auto driver = std::make_shared<Driver>();
  driver->path = path;
  driver->handle = handle;

  using GetProcV2 = CUresult (*)(const char *, void **, int, cuuint64_t,
                                 CUdriverProcAddressQueryResult *);
  using GetProcV1 = CUresult (*)(const char *, void **, int, cuuint64_t);
  auto getProcV2 =
      reinterpret_cast<GetProcV2>(dlsym(handle, "cuGetProcAddress_v2"));
  auto getProcV1 =
      reinterpret_cast<GetProcV1>(dlsym(handle, "cuGetProcAddress"));
  constexpr int version = 12000;
  auto resolve = [&](const char *name, const char *exported) -> void * {
    void *function = nullptr;
    if (getProcV2) {
      CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
      if (getProcV2(name, &function, version, CU_GET_PROC_ADDRESS_DEFAULT,
                    &status) == CUDA_SUCCESS &&
          status == CU_GET_PROC_ADDRESS_SUCCESS && function)
        return function;
    } else if (getProcV1) {
      if (getProcV1(name, &function, version, CU_GET_PROC_ADDRESS_DEFAULT) ==
              CUDA_SUCCESS &&
          function)
        return function;
    }
    return dlsym(handle, exported);
  };
#define FUSE_RESOLVE(member, exported)                                         \
  if (void *function = resolve(#member, exported))                             \
    driver->member = reinterpret_cast<decltype(driver->member)>(function);     \
  else                                                                         \
    return Error{ErrorCode::Unsupported,                                       \
                 "the CUDA driver " + path + " has no entry point " #member};
  FUSE_CUDA_ENTRY_POINTS(FUSE_RESOLVE)
#undef FUSE_RESOLVE
  loaded[path] = driver;
  return std::shared_ptr<const Driver>(std::move(driver));
}

//===----------------------------------------------------------------------===//
// Context, memory pool, modules
//===----------------------------------------------------------------------===//

/// The device's primary context, retained for as long as anything of the
/// runtime (buffers, modules, streams) lives.
struct Context {
  Context(std::shared_ptr<const Driver> driver, CUdevice device,
          CUcontext context)
      : driver(std::move(driver)), device(device), context(context) {}
  ~Context() { driver->cuDevicePrimaryCtxRelease(device); }

  /// The driver's current context is per thread: every thread that calls
  /// it sets it first.
  std::optional<Error> makeCurrent() const {
    if (CUresult result = driver->cuCtxSetCurrent(context))
      return driverError(*driver, ErrorCode::Unsupported, "cuCtxSetCurrent",
                         result);
    return std::nullopt;
  }
  Error error(ErrorCode code, const std::string &call, CUresult result) const {
    return driverError(*driver, code, call, result);
  }

  const std::shared_ptr<const Driver> driver;
  const CUdevice device;
  const CUcontext context;
};

/// Sub-allocates buffers from large cuMemAlloc blocks: first fit in each
/// block's free ranges, which coalesce when freed. Blocks go back to the
/// driver only in `releaseFreeBlocks` (memoryCleanup) or with the pool.
class Pool {
public:
  static constexpr uint64_t Alignment = 256;

  Pool(std::shared_ptr<Context> context, uint64_t blockBytes)
      : context(std::move(context)),
        blockBytes(std::max<uint64_t>(blockBytes, Alignment)) {}
  ~Pool() {
    // Buffers keep the pool alive, so every block is free now.
    context->makeCurrent();
    for (auto &[base, block] : blocks)
      context->driver->cuMemFree(base);
  }

  DeviceResult<CUdeviceptr> allocate(uint64_t bytes) {
    uint64_t size = roundUp(bytes);
    std::lock_guard lock(mutex);
    for (auto &[base, block] : blocks)
      for (auto it = block.free.begin(); it != block.free.end(); ++it)
        if (it->second >= size) {
          uint64_t offset = it->first, length = it->second;
          block.free.erase(it);
          if (length > size)
            block.free.emplace(offset + size, length - size);
          block.used += size;
          allocated += size;
          return base + offset;
        }
    uint64_t length = std::max(blockBytes, size);
    if (std::optional<Error> error = context->makeCurrent())
      return *error;
    CUdeviceptr base = 0;
    CUresult result = context->driver->cuMemAlloc(&base, length);
    ++driverAllocations;
    if (result == CUDA_ERROR_OUT_OF_MEMORY && releaseFreeBlocksLocked()) {
      // Free blocks of the pool may be what the device is missing.
      result = context->driver->cuMemAlloc(&base, length);
      ++driverAllocations;
    }
    if (result)
      return context->error(
          ErrorCode::OutOfMemory,
          "cuMemAlloc of " + std::to_string(length) + " bytes", result);
    Block &block = blocks[base];
    block.size = length;
    block.used = size;
    if (length > size)
      block.free.emplace(size, length - size);
    allocated += size;
    return base;
  }

  void free(CUdeviceptr address, uint64_t bytes) {
    uint64_t size = roundUp(bytes);
    std::lock_guard lock(mutex);
    auto owner = std::prev(blocks.upper_bound(address));
    Block &block = owner->second;
    uint64_t offset = address - owner->first;
    auto next = block.free.emplace(offset, size).first;
    // Coalesce with the neighbours.
    if (auto after = std::next(next);
        after != block.free.end() && offset + size == after->first) {
      next->second += after->second;
      block.free.erase(after);
    }
    if (next != block.free.begin()) {
      auto before = std::prev(next);
      if (before->first + before->second == next->first) {
        before->second += next->second;
        block.free.erase(next);
      }
    }
    block.used -= size;
    allocated -= size;
  }

  uint64_t freeBlockBytes() const {
    std::lock_guard lock(mutex);
    uint64_t bytes = 0;
    for (const auto &[base, block] : blocks)
      if (block.used == 0)
        bytes += block.size;
    return bytes;
  }

  void releaseFreeBlocks() {
    std::lock_guard lock(mutex);
    releaseFreeBlocksLocked();
  }

  CudaPoolStats stats() const {
    std::lock_guard lock(mutex);
    CudaPoolStats stats;
    stats.blocks = blocks.size();
    for (const auto &[base, block] : blocks)
      stats.blockBytes += block.size;
    stats.allocatedBytes = allocated;
    stats.driverAllocations = driverAllocations;
    return stats;
  }

private:
  struct Block {
    uint64_t size = 0;
    uint64_t used = 0;
    /// Offset -> length of the free ranges.
    std::map<uint64_t, uint64_t> free;
  };

  static uint64_t roundUp(uint64_t bytes) {
    return (bytes + Alignment - 1) / Alignment * Alignment;
  }

  bool releaseFreeBlocksLocked() {
    if (context->makeCurrent())
      return false;
    bool released = false;
    for (auto it = blocks.begin(); it != blocks.end();) {
      if (it->second.used == 0) {
        context->driver->cuMemFree(it->first);
        it = blocks.erase(it);
        released = true;
      } else {
        ++it;
      }
    }
    return released;
  }

  const std::shared_ptr<Context> context;
  const uint64_t blockBytes;
  mutable std::mutex mutex;
  std::map<CUdeviceptr, Block> blocks;
  uint64_t allocated = 0;
  uint64_t driverAllocations = 0;
};

struct Module {
  Module(std::shared_ptr<Context> context, CUmodule module)
      : context(std::move(context)), module(module) {}
  ~Module() {
    context->makeCurrent();
    context->driver->cuModuleUnload(module);
  }
  const std::shared_ptr<Context> context;
  const CUmodule module;
};

/// One module per distinct payload, while an executable uses it.
struct ModuleCache {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<Module>> modules;
};

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

struct Submission {
  std::shared_ptr<detail::FenceObject> fence;
  /// Recorded after the batch's work; null if it was not recorded.
  CUevent done = nullptr;
  bool recorded = false;
  /// Whether any work reached the CUDA stream.
  bool issued = false;
  /// Known before completion: skipped, injected, or an enqueue failure.
  std::optional<Error> failure;
  /// Kernel timing: an event pair around each launch.
  std::vector<std::pair<CUevent, CUevent>> launches;
  /// The error records of the batch's launches (KernelAbi.h): one block of
  /// `recordWords` words from `recordPool`, zeroed before the first launch
  /// and read once the batch is over.
  std::shared_ptr<Pool> recordPool;
  CUdeviceptr records = 0;
  uint64_t recordWords = 0;
  /// Per launch that takes a record: its kernel's checks (the fence's
  /// commands hold their executable until it is terminal) and the record's
  /// first word in the block.
  std::vector<std::pair<const detail::KernelChecks *, uint64_t>> checked;
};

using CompleteFn = void (*)(detail::StreamObject &, detail::FenceObject &,
                            std::optional<Error>);

struct Stream final : detail::StreamObject, detail::StreamQueue<Submission> {
  Stream(uint64_t runtimeId, std::shared_ptr<Context> context, CUstream stream,
         CompleteFn complete)
      : StreamObject(runtimeId), context(std::move(context)), stream(stream),
        complete(complete) {}
  ~Stream() override {
    stop();
    context->makeCurrent();
    const Driver &driver = *context->driver;
    if (prepared)
      driver.cuEventDestroy(*prepared);
    for (CUevent event : freeEvents)
      driver.cuEventDestroy(event);
    for (CUevent event : freeTimedEvents)
      driver.cuEventDestroy(event);
    driver.cuStreamDestroy(stream);
  }

  void start() {
    worker = std::thread([this] { run(); });
  }

  /// An event from the stream's pool, or a new one.
  DeviceResult<CUevent> takeEvent(bool timed) {
    {
      std::lock_guard lock(eventMutex);
      std::vector<CUevent> &pool = timed ? freeTimedEvents : freeEvents;
      if (!pool.empty()) {
        CUevent event = pool.back();
        pool.pop_back();
        return event;
      }
    }
    if (std::optional<Error> error = context->makeCurrent())
      return *error;
    CUevent event = nullptr;
    if (CUresult result = context->driver->cuEventCreate(
            &event, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING))
      return context->error(ErrorCode::Unsupported, "cuEventCreate", result);
    return event;
  }

  void giveEvent(CUevent event, bool timed) {
    std::lock_guard lock(eventMutex);
    (timed ? freeTimedEvents : freeEvents).push_back(event);
  }

  void run() {
    std::optional<Error> current = context->makeCurrent();
    std::unique_lock lock(queueMutex);
    while (true) {
      wake.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      Submission submission = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      if (current)
        current = context->makeCurrent();
      finish(submission);
      lock.lock();
    }
  }

  /// Waits until the submission's work is over on the device, then makes
  /// its fence terminal. Without proof that the work is over, it keeps
  /// trying: the fence stays pending and holds its resources.
  void finish(Submission &submission) {
    const Driver &driver = *context->driver;
    std::optional<Error> failure = std::move(submission.failure);
    if (submission.issued) {
      std::optional<Error> device = waitQuiescent(submission);
      if (device && !failure)
        failure = std::move(device);
    }
    if (submission.recordWords) {
      if (!failure)
        failure = readRecords(submission);
      submission.recordPool->free(submission.records,
                                  submission.recordWords * sizeof(int64_t));
    }
    detail::FenceObject &fence = *submission.fence;
    if (!failure) {
      std::lock_guard lock(fence.mutex);
      failure = fence.abandoned;
    }
    if (!failure) {
      std::lock_guard lock(mutex);
      if (this->failure)
        failure = Error{ErrorCode::StreamFailed,
                        "an earlier submission on the stream failed (" +
                            this->failure->message +
                            "); this one's results cannot be trusted"};
    }
    if (!failure && fence.timingMode == TimingMode::Kernel) {
      std::vector<std::chrono::nanoseconds> times;
      for (auto [start, end] : submission.launches) {
        float milliseconds = 0;
        if (driver.cuEventElapsedTime(&milliseconds, start, end) ==
            CUDA_SUCCESS)
          times.push_back(std::chrono::nanoseconds(
              int64_t(double(milliseconds) * 1e6 + 0.5)));
      }
      std::lock_guard lock(fence.mutex);
      fence.timing.launches = std::move(times);
    }
    if (submission.done)
      giveEvent(submission.done, false);
    for (auto [start, end] : submission.launches) {
      giveEvent(start, true);
      giveEvent(end, true);
    }
    complete(*this, fence, std::move(failure));
  }

  /// The first failed check of the batch's error records, read once its
  /// work is over (a synchronous copy on the null stream, which waits for
  /// none of our non-blocking streams).
  std::optional<Error> readRecords(const Submission &submission) {
    std::vector<int64_t> words(submission.recordWords);
    if (CUresult result = context->driver->cuMemcpyDtoH(
            words.data(), submission.records, words.size() * sizeof(int64_t)))
      return context->error(ErrorCode::KernelFailed,
                            "cuMemcpyDtoH of the kernels' error records",
                            result);
    for (auto [checks, first] : submission.checked)
      if (std::optional<Error> reported = checks->failure(
              std::span<const int64_t>(words).subspan(first, checks->words())))
        return reported;
    return std::nullopt;
  }

  std::optional<Error> waitQuiescent(const Submission &submission) {
    const Driver &driver = *context->driver;
    auto backoff = std::chrono::microseconds(0);
    auto sleep = [&] {
      if (backoff.count() == 0)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(backoff);
      backoff = std::min<std::chrono::microseconds>(
          std::max<std::chrono::microseconds>(backoff * 2,
                                              std::chrono::microseconds(5)),
          std::chrono::microseconds(1000));
    };
    if (submission.recorded) {
      while (true) {
        CUresult result = driver.cuEventQuery(submission.done);
        if (result == CUDA_SUCCESS)
          return std::nullopt;
        if (result == CUDA_ERROR_NOT_READY) {
          sleep();
          continue;
        }
        if (isDeviceFailure(result))
          return context->error(ErrorCode::KernelFailed,
                                "the submission on the device (cuEventQuery)",
                                result);
        // The event cannot tell; the stream can.
        break;
      }
    }
    while (true) {
      CUresult result = driver.cuStreamSynchronize(stream);
      if (result == CUDA_SUCCESS)
        return std::nullopt;
      if (isDeviceFailure(result))
        return context->error(ErrorCode::KernelFailed,
                              "the submission on the device "
                              "(cuStreamSynchronize)",
                              result);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  const std::shared_ptr<Context> context;
  const CUstream stream;
  const CompleteFn complete;
  /// The completion event of the submission being made: set by
  /// prepareSubmission, taken by enqueue (one owner submits).
  std::optional<CUevent> prepared;

  std::mutex eventMutex;
  std::vector<CUevent> freeEvents;
  std::vector<CUevent> freeTimedEvents;
};

struct Streams {
  std::mutex mutex;
  std::vector<std::weak_ptr<Stream>> live;
  /// For readback: copies to the host, ordered by `transferMutex`.
  CUstream transfer = nullptr;
  std::mutex transferMutex;
};

} // namespace cuda

namespace {

struct CudaBuffer final : detail::BufferObject {
  CudaBuffer(uint64_t runtimeId, uint64_t size,
             std::shared_ptr<detail::Budget> budget,
             std::shared_ptr<cuda::Pool> pool, CUdeviceptr address)
      : BufferObject(runtimeId, size, std::move(budget)), pool(std::move(pool)),
        address(address) {}
  ~CudaBuffer() override { pool->free(address, size); }

  const std::shared_ptr<cuda::Pool> pool;
  const CUdeviceptr address;
};

struct CudaExecutable final : detail::ExecutableObject {
  using ExecutableObject::ExecutableObject;
  std::vector<std::shared_ptr<cuda::Module>> modules;
  std::vector<CUfunction> functions;
  std::vector<std::string> names;
};

CUdeviceptr addressOf(const detail::BufferObject &buffer, uint64_t offset) {
  return static_cast<const CudaBuffer &>(buffer).address + offset;
}

/// The compute capability of `sm_<digits>` as major * 10 + minor.
std::optional<int> smVersion(const std::string &target) {
  if (!target.starts_with("sm_") || target.size() < 5)
    return std::nullopt;
  int value = 0;
  for (size_t i = 3; i < target.size(); ++i) {
    if (target[i] < '0' || target[i] > '9')
      return i >= 5 ? std::optional<int>(value) : std::nullopt;
    value = value * 10 + (target[i] - '0');
  }
  return value;
}

/// Launches `launch` on `stream` for `submission`: its bindings, then its
/// error record (the next `nextRecord` words of the submission's block),
/// then its dims' values, as the parameters; with `timed`, between an event
/// pair (a timing event that fails to record costs the timing, not the work).
CUresult launchKernel(cuda::Stream &stream, cuda::Submission &submission,
                      const detail::LaunchCommand &launch, bool timed,
                      uint64_t &nextRecord) {
  const cuda::Driver &driver = *stream.context->driver;
  CUstream cu = stream.stream;
  const auto &executable =
      static_cast<const CudaExecutable &>(*launch.executable);
  std::vector<CUdeviceptr> pointers;
  pointers.reserve(launch.bindings.size() + 1);
  for (const detail::BoundBuffer &bound : launch.bindings)
    pointers.push_back(addressOf(*bound.buffer, bound.offset));
  // The error record after the bindings (KernelAbi.h).
  const detail::KernelChecks &checks = executable.checks[launch.kernel];
  if (checks.words()) {
    pointers.push_back(submission.records + nextRecord * sizeof(int64_t));
    submission.checked.emplace_back(&checks, nextRecord);
    nextRecord += checks.words();
  }
  std::vector<void *> params;
  for (CUdeviceptr &pointer : pointers)
    params.push_back(&pointer);
  // Then the dims of the bound bundle by value (KernelAbi.h, "Runtime
  // dims"): the executable holds them while the launch is enqueued
  // (cuLaunchKernel copies the parameters).
  for (const int64_t &dim : checks.dims)
    params.push_back(const_cast<int64_t *>(&dim));
  std::optional<std::pair<CUevent, CUevent>> timing;
  if (timed) {
    DeviceResult<CUevent> start = stream.takeEvent(true);
    DeviceResult<CUevent> end = stream.takeEvent(true);
    if (start.ok() && end.ok())
      timing.emplace(*start, *end);
    else if (start.ok())
      stream.giveEvent(*start, true);
    else if (end.ok())
      stream.giveEvent(*end, true);
  }
  if (timing && driver.cuEventRecord(timing->first, cu) != CUDA_SUCCESS) {
    stream.giveEvent(timing->first, true);
    stream.giveEvent(timing->second, true);
    timing.reset();
  }
  const LaunchConfig &config = launch.config;
  CUresult result = driver.cuLaunchKernel(
      executable.functions[launch.kernel], config.gridX, config.gridY,
      config.gridZ, config.blockX, config.blockY, config.blockZ,
      config.sharedMemoryBytes, cu, params.empty() ? nullptr : params.data(),
      nullptr);
  if (timing) {
    submission.issued = true;
    if (result == CUDA_SUCCESS &&
        driver.cuEventRecord(timing->second, cu) == CUDA_SUCCESS) {
      submission.launches.push_back(*timing);
    } else {
      stream.giveEvent(timing->first, true);
      stream.giveEvent(timing->second, true);
    }
  }
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// CudaRuntime
//===----------------------------------------------------------------------===//

DeviceResult<std::unique_ptr<CudaRuntime>> CudaRuntime::create() {
  return create(Options{});
}

DeviceResult<std::unique_ptr<CudaRuntime>>
CudaRuntime::create(const Options &options) {
  std::string path = options.driverPath;
  if (path.empty()) {
    const char *variable = std::getenv(DriverPathVariable);
    path = variable && *variable ? variable : "libcuda.so.1";
  }
  DeviceResult<std::shared_ptr<const cuda::Driver>> loaded =
      cuda::loadDriver(path);
  if (!loaded.ok())
    return loaded.error();
  std::shared_ptr<const cuda::Driver> driver = std::move(*loaded);
  auto fail = [&](const std::string &call, CUresult result) {
    return cuda::driverError(*driver, ErrorCode::Unsupported,
                             call + " (CUDA driver " + path + ")", result);
  };
  if (CUresult result = driver->cuInit(0))
    return fail("cuInit", result);
  CUdevice device = 0;
  if (CUresult result = driver->cuDeviceGet(&device, options.device))
    return fail("cuDeviceGet of device " + std::to_string(options.device),
                result);
  char name[256] = {};
  if (CUresult result = driver->cuDeviceGetName(name, sizeof(name), device))
    return fail("cuDeviceGetName", result);
  int major = 0, minor = 0, multiprocessors = 0;
  if (CUresult result = driver->cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    return fail("cuDeviceGetAttribute", result);
  if (CUresult result = driver->cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return fail("cuDeviceGetAttribute", result);
  if (CUresult result = driver->cuDeviceGetAttribute(
          &multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))
    return fail("cuDeviceGetAttribute", result);
  size_t totalMemory = 0;
  if (CUresult result = driver->cuDeviceTotalMem(&totalMemory, device))
    return fail("cuDeviceTotalMem", result);
  CUcontext primary = nullptr;
  if (CUresult result = driver->cuDevicePrimaryCtxRetain(&primary, device))
    return fail("cuDevicePrimaryCtxRetain", result);
  auto context = std::make_shared<cuda::Context>(driver, device, primary);
  if (std::optional<Error> error = context->makeCurrent())
    return *error;
  CUstream transfer = nullptr;
  if (CUresult result =
          driver->cuStreamCreate(&transfer, CU_STREAM_NON_BLOCKING))
    return fail("cuStreamCreate", result);

  DeviceDescriptor descriptor{std::string("cuda ") + name, DeviceKind::Cuda,
                              "sm_" + std::to_string(major * 10 + minor),
                              options.memoryBudgetBytes
                                  ? options.memoryBudgetBytes
                                  : uint64_t(totalMemory) / 10 * 9,
                              uint32_t(std::max(multiprocessors, 1))};
  std::unique_ptr<CudaRuntime> runtime(
      new CudaRuntime(std::move(descriptor), context, options.poolBlockBytes));
  runtime->streams->transfer = transfer;
  return runtime;
}

CudaRuntime::CudaRuntime(DeviceDescriptor descriptor,
                         std::shared_ptr<cuda::Context> context,
                         uint64_t poolBlockBytes)
    : DeviceRuntime(std::move(descriptor)), context(context),
      pool(std::make_shared<cuda::Pool>(context, poolBlockBytes)),
      modules(std::make_unique<cuda::ModuleCache>()),
      streams(std::make_unique<cuda::Streams>()) {}

CudaRuntime::~CudaRuntime() {
  std::vector<std::shared_ptr<cuda::Stream>> alive;
  {
    std::lock_guard lock(streams->mutex);
    for (std::weak_ptr<cuda::Stream> &weak : streams->live)
      if (std::shared_ptr<cuda::Stream> stream = weak.lock())
        alive.push_back(std::move(stream));
  }
  for (const std::shared_ptr<cuda::Stream> &stream : alive)
    stream->stop();
  context->makeCurrent();
  context->driver->cuStreamDestroy(streams->transfer);
}

CudaPoolStats CudaRuntime::poolStats() const { return pool->stats(); }

const std::string &CudaRuntime::driverPath() const {
  return context->driver->path;
}

DeviceResult<std::shared_ptr<detail::BufferObject>>
CudaRuntime::allocateMemory(uint64_t bytes) {
  DeviceResult<CUdeviceptr> address = pool->allocate(bytes);
  if (!address.ok())
    return address.error();
  return std::shared_ptr<detail::BufferObject>(std::make_shared<CudaBuffer>(
      instanceId(), bytes, budgetState(), pool, *address));
}

std::shared_ptr<detail::ExecutableObject>
CudaRuntime::shareCode(const detail::ExecutableObject &loaded) const {
  return std::make_shared<CudaExecutable>(
      static_cast<const CudaExecutable &>(loaded));
}

DeviceResult<std::shared_ptr<detail::ExecutableObject>>
CudaRuntime::loadExecutable(const Bundle &bundle) {
  // DeviceRuntime::load checked the bundle and its version.
  int device = *smVersion(descriptor().target);
  auto executable = std::make_shared<CudaExecutable>(instanceId());
  for (const BundleKernel &kernel : bundle.kernels) {
    bool ptx = kernel.payloadKind == PayloadKind::PtxText;
    if (!ptx && kernel.payloadKind != PayloadKind::Cubin)
      return unsupportedPayload(kernel, "CUDA", "PTX or cubin");
    std::optional<int> target = smVersion(kernel.target);
    if (!target)
      return foreignTarget(kernel, "a GPU (sm_XY)");
    // PTX compiles for any newer device; a cubin runs on its own major
    // version only.
    if (*target > device || (!ptx && *target / 10 != device / 10))
      return Error{ErrorCode::Incompatible,
                   "kernel " + kernel.name + " is " +
                       (ptx ? "PTX" : "a cubin") + " for " + kernel.target +
                       ", which this device (" + descriptor().target +
                       ") cannot run"};
    if (kernel.payload.empty())
      return Error{ErrorCode::KernelLoadFailed,
                   "kernel " + kernel.name + " has an empty payload"};

    std::string key(1, ptx ? 'p' : 'c');
    key.append(kernel.payload.begin(), kernel.payload.end());
    std::shared_ptr<cuda::Module> module;
    {
      std::lock_guard lock(modules->mutex);
      auto it = modules->modules.find(key);
      if (it != modules->modules.end())
        module = it->second.lock();
    }
    if (!module) {
      if (std::optional<Error> error = context->makeCurrent())
        return *error;
      std::string image(kernel.payload.begin(), kernel.payload.end());
      if (ptx)
        image.push_back('\0');
      std::string log(8192, '\0');
      CUjit_option jitOptions[] = {CU_JIT_ERROR_LOG_BUFFER,
                                   CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *jitValues[] = {log.data(),
                           reinterpret_cast<void *>(uintptr_t(log.size()))};
      CUmodule loaded = nullptr;
      if (CUresult result = context->driver->cuModuleLoadDataEx(
              &loaded, image.data(), 2, jitOptions, jitValues)) {
        Error error = context->error(
            ErrorCode::KernelLoadFailed,
            "cuModuleLoadDataEx of kernel " + kernel.name, result);
        log.resize(std::strlen(log.c_str()));
        if (!log.empty())
          error.message += "; JIT log: " + log;
        return error;
      }
      module = std::make_shared<cuda::Module>(context, loaded);
      std::lock_guard lock(modules->mutex);
      std::erase_if(modules->modules,
                    [](const auto &entry) { return entry.second.expired(); });
      modules->modules[key] = module;
    }
    CUfunction function = nullptr;
    if (CUresult result = context->driver->cuModuleGetFunction(
            &function, module->module, kernel.entry.c_str()))
      return context->error(ErrorCode::KernelLoadFailed,
                            "cuModuleGetFunction of entry '" + kernel.entry +
                                "' of kernel " + kernel.name,
                            result);
    // Dynamic shared memory beyond the default 48 KiB must be asked for.
    if (kernel.launch.sharedMemoryBytes > 48 * 1024)
      if (CUresult result = context->driver->cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              int(kernel.launch.sharedMemoryBytes)))
        return context->error(
            ErrorCode::KernelLoadFailed,
            "cuFuncSetAttribute of " +
                std::to_string(kernel.launch.sharedMemoryBytes) +
                " bytes of dynamic shared memory for "
                "kernel " +
                kernel.name,
            result);
    if (std::find(executable->modules.begin(), executable->modules.end(),
                  module) == executable->modules.end())
      executable->modules.push_back(module);
    executable->functions.push_back(function);
    executable->names.push_back(kernel.name);
    executable->bindingBytes.push_back(bindingBytes(bundle, kernel));
  }
  return std::shared_ptr<detail::ExecutableObject>(std::move(executable));
}

DeviceResult<std::shared_ptr<detail::StreamObject>> CudaRuntime::newStream() {
  if (std::optional<Error> error = context->makeCurrent())
    return *error;
  CUstream handle = nullptr;
  if (CUresult result =
          context->driver->cuStreamCreate(&handle, CU_STREAM_NON_BLOCKING))
    return context->error(ErrorCode::Unsupported, "cuStreamCreate", result);
  auto stream = std::make_shared<cuda::Stream>(
      instanceId(), context, handle, &CudaRuntime::completeSubmission);
  stream->start();
  std::lock_guard lock(streams->mutex);
  std::erase_if(streams->live, [](const std::weak_ptr<cuda::Stream> &weak) {
    return weak.expired();
  });
  streams->live.push_back(stream);
  return std::shared_ptr<detail::StreamObject>(std::move(stream));
}

std::optional<Error>
CudaRuntime::prepareSubmission(detail::StreamObject &object) {
  auto &stream = static_cast<cuda::Stream &>(object);
  if (stream.prepared)
    return std::nullopt;
  DeviceResult<CUevent> event = stream.takeEvent(false);
  if (!event.ok())
    return event.error();
  stream.prepared = *event;
  return std::nullopt;
}

void CudaRuntime::enqueue(detail::StreamObject &object,
                          std::shared_ptr<detail::FenceObject> fence) {
  auto &stream = static_cast<cuda::Stream &>(object);
  const cuda::Driver &driver = *context->driver;
  cuda::Submission submission;
  submission.fence = fence;
  submission.done = stream.prepared.value_or(nullptr);
  stream.prepared.reset();
  submission.failure = injectedFault(FaultPoint::Execute);
  if (!submission.failure)
    submission.failure = context->makeCurrent();
  if (submission.failure) {
    stream.push(std::move(submission));
    return;
  }
  CUstream cu = stream.stream;
  // One block for the error records of every launch that takes one.
  for (const std::shared_ptr<const detail::CommandObject> &command :
       fence->commands)
    if (const auto *launch = std::get_if<detail::LaunchCommand>(&command->op))
      submission.recordWords +=
          launch->executable->checks[launch->kernel].words();
  if (submission.recordWords) {
    uint64_t bytes = submission.recordWords * sizeof(int64_t);
    DeviceResult<CUdeviceptr> block = pool->allocate(bytes);
    if (!block.ok()) {
      submission.recordWords = 0;
      submission.failure = block.error();
      stream.push(std::move(submission));
      return;
    }
    submission.recordPool = pool;
    submission.records = *block;
    if (CUresult result = driver.cuMemsetD8Async(*block, 0, bytes, cu)) {
      submission.failure =
          context->error(ErrorCode::KernelFailed, "cuMemsetD8Async", result);
      stream.push(std::move(submission));
      return;
    }
    submission.issued = true;
  }
  uint64_t nextRecord = 0;
  // Only this call touches the commands until the fence is terminal.
  for (const std::shared_ptr<const detail::CommandObject> &command :
       fence->commands) {
    CUresult result = CUDA_SUCCESS;
    const char *call = "";
    if (const auto *copy = std::get_if<detail::CopyCommand>(&command->op)) {
      call = "cuMemcpyDtoDAsync";
      result = driver.cuMemcpyDtoDAsync(
          addressOf(*copy->destination, copy->region.destinationOffset),
          addressOf(*copy->source, copy->region.sourceOffset),
          copy->region.bytes, cu);
    } else if (const auto *upload =
                   std::get_if<detail::UploadCommand>(&command->op)) {
      call = "cuMemcpyHtoDAsync";
      if (!upload->bytes.empty())
        result = driver.cuMemcpyHtoDAsync(
            addressOf(*upload->destination, upload->offset),
            upload->bytes.data(), upload->bytes.size(), cu);
    } else if (const auto *zero =
                   std::get_if<detail::ZeroCommand>(&command->op)) {
      call = "cuMemsetD8Async";
      if (zero->bytes)
        result = driver.cuMemsetD8Async(
            addressOf(*zero->destination, zero->offset), 0, zero->bytes, cu);
    } else {
      const auto &launch = std::get<detail::LaunchCommand>(command->op);
      result =
          launchKernel(stream, submission, launch,
                       fence->timingMode == TimingMode::Kernel, nextRecord);
      if (result != CUDA_SUCCESS) {
        const auto &executable =
            static_cast<const CudaExecutable &>(*launch.executable);
        submission.failure = context->error(ErrorCode::KernelFailed,
                                            "cuLaunchKernel of kernel " +
                                                executable.names[launch.kernel],
                                            result);
        break;
      }
      submission.issued = true;
      continue;
    }
    if (result != CUDA_SUCCESS) {
      submission.failure =
          context->error(ErrorCode::KernelFailed, call, result);
      break;
    }
    submission.issued = true;
  }
  if (!submission.failure && submission.done) {
    if (CUresult result = driver.cuEventRecord(submission.done, cu))
      submission.failure =
          context->error(ErrorCode::KernelFailed, "cuEventRecord", result);
    else
      submission.recorded = true;
  }
  stream.push(std::move(submission));
}

DeviceStatus CudaRuntime::copyToHost(detail::BufferObject &buffer,
                                     uint64_t offset,
                                     std::span<std::byte> destination) {
  if (destination.empty())
    return DeviceStatus();
  if (std::optional<Error> error = context->makeCurrent())
    return *error;
  const cuda::Driver &driver = *context->driver;
  std::lock_guard lock(streams->transferMutex);
  if (CUresult result = driver.cuMemcpyDtoHAsync(
          destination.data(), addressOf(buffer, offset), destination.size(),
          streams->transfer))
    return context->error(ErrorCode::KernelFailed, "cuMemcpyDtoHAsync", result);
  if (CUresult result = driver.cuStreamSynchronize(streams->transfer))
    return context->error(ErrorCode::KernelFailed,
                          "cuStreamSynchronize after cuMemcpyDtoHAsync",
                          result);
  return DeviceStatus();
}

uint64_t CudaRuntime::pooledBytes() const { return pool->freeBlockBytes(); }

void CudaRuntime::releasePooledMemory() { pool->releaseFreeBlocks(); }

} // namespace fuse::device
