//===- FakeCudaDriver.cpp - libcuda.so.1 on the host, for tests -----------===//
//
// The driver entry points CudaRuntime uses, on the host (see
// FakeCudaDriver.h): device memory is host memory whose addresses are the
// device pointers; each stream runs its work at once, or queues it while the
// test holds the streams; events complete when the work before them has run;
// kernels are checked (function, launch shape, pointer parameters inside
// live allocations) and logged, never run. It is as strict as the real
// driver where that catches runtime bugs: cuInit first, a current context
// for every call that needs one, copies inside live allocations.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaDriver.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

struct FakeContext {
  int unused = 0;
};

struct FakeEvent {
  unsigned flags = 0;
  bool recorded = false;
  bool complete = true;
  CUresult error = CUDA_SUCCESS;
  std::chrono::steady_clock::time_point time;
};

struct FakeStream {
  std::deque<std::function<void()>> queue;
  /// A device failure not yet reported.
  CUresult pendingError = CUDA_SUCCESS;
};

struct FakeFunction {
  std::string name;
  int paramCount = -1;
  /// Per parameter of a PTX `.entry`: whether it is a pointer (`.ptr`), as
  /// bindings and the error record are; the others are values (dims).
  std::vector<bool> pointers;
  unsigned maxDynamicSharedBytes = 48 * 1024;
};

struct FakeModule {
  bool ptx = false;
  std::string text;
  std::map<std::string, std::unique_ptr<FakeFunction>> functions;
};

struct Injection {
  int skip = 0;
  int times = 0;
  CUresult result = CUDA_SUCCESS;
};

struct State {
  std::mutex mutex;
  std::condition_variable changed;
  bool initialized = false;
  FakeContext context;
  int primaryRefs = 0;
  uint64_t totalMemory = uint64_t(1) << 30;
  std::map<CUdeviceptr, size_t> allocations;
  uint64_t allocatedBytes = 0;
  std::vector<FakeStream *> streams;
  FakeStream nullStream;
  std::set<FakeEvent *> events;
  std::set<FakeModule *> modules;
  bool held = false;
  std::map<std::string, Injection> injections;
  std::map<std::string, int> calls;
  std::map<std::string, CUresult> failingKernels;
  /// Kernels that write their error record (their last parameter) when
  /// they run: the two words of its first check.
  std::map<std::string, std::pair<int64_t, int64_t>> reportingKernels;
  std::vector<FakeCudaLaunch> launches;
};

State &state() {
  // Never destroyed: streams of other threads may still call in at exit.
  static State *instance = new State;
  return *instance;
}

thread_local FakeContext *current = nullptr;

/// Counts the call; answers an injected failure, if one is due.
CUresult enter(State &s, const char *name) {
  ++s.calls[name];
  auto it = s.injections.find(name);
  if (it == s.injections.end())
    return CUDA_SUCCESS;
  Injection &injection = it->second;
  if (injection.skip > 0) {
    --injection.skip;
    return CUDA_SUCCESS;
  }
  if (injection.times > 0) {
    --injection.times;
    return injection.result;
  }
  return CUDA_SUCCESS;
}

#define ENTER(name)                                                            \
  State &s = state();                                                          \
  std::unique_lock lock(s.mutex);                                              \
  if (CUresult injected = enter(s, name))                                      \
    return injected;                                                           \
  if (!s.initialized)                                                          \
    return CUDA_ERROR_NOT_INITIALIZED;

#define NEEDS_CONTEXT()                                                        \
  if (current != &s.context || s.primaryRefs == 0)                             \
    return CUDA_ERROR_INVALID_CONTEXT;

bool inside(const State &s, CUdeviceptr pointer, size_t bytes) {
  auto it = s.allocations.upper_bound(pointer);
  if (it == s.allocations.begin())
    return false;
  --it;
  return pointer >= it->first && bytes <= it->second &&
         pointer - it->first <= it->second - bytes;
}

FakeStream *streamOf(State &s, CUstream stream) {
  if (!stream)
    return &s.nullStream;
  auto *fake = reinterpret_cast<FakeStream *>(stream);
  for (FakeStream *live : s.streams)
    if (live == fake)
      return fake;
  return nullptr;
}

/// Runs `op` now, or queues it while the streams are held. Runs under the
/// state's lock.
void submit(State &s, FakeStream *stream, std::function<void()> op) {
  if (s.held || !stream->queue.empty()) {
    stream->queue.push_back(std::move(op));
    return;
  }
  op();
  s.changed.notify_all();
}

void drain(State &s, FakeStream *stream) {
  while (!stream->queue.empty()) {
    std::function<void()> op = std::move(stream->queue.front());
    stream->queue.pop_front();
    op();
  }
}

const char *errorName(CUresult result) {
  switch (result) {
#define NAME(code)                                                             \
  case code:                                                                   \
    return #code;
    NAME(CUDA_SUCCESS)
    NAME(CUDA_ERROR_INVALID_VALUE)
    NAME(CUDA_ERROR_OUT_OF_MEMORY)
    NAME(CUDA_ERROR_NOT_INITIALIZED)
    NAME(CUDA_ERROR_DEINITIALIZED)
    NAME(CUDA_ERROR_STUB_LIBRARY)
    NAME(CUDA_ERROR_NO_DEVICE)
    NAME(CUDA_ERROR_INVALID_DEVICE)
    NAME(CUDA_ERROR_INVALID_IMAGE)
    NAME(CUDA_ERROR_INVALID_CONTEXT)
    NAME(CUDA_ERROR_NO_BINARY_FOR_GPU)
    NAME(CUDA_ERROR_ECC_UNCORRECTABLE)
    NAME(CUDA_ERROR_INVALID_PTX)
    NAME(CUDA_ERROR_INVALID_HANDLE)
    NAME(CUDA_ERROR_NOT_FOUND)
    NAME(CUDA_ERROR_NOT_READY)
    NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
    NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    NAME(CUDA_ERROR_LAUNCH_TIMEOUT)
    NAME(CUDA_ERROR_LAUNCH_FAILED)
    NAME(CUDA_ERROR_UNKNOWN)
#undef NAME
  default:
    return nullptr;
  }
}

const char *errorString(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return "no error";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "unspecified launch failure";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "an illegal memory access was encountered";
  case CUDA_ERROR_NOT_READY:
    return "device not ready";
  case CUDA_ERROR_INVALID_PTX:
    return "a PTX JIT compilation failed";
  case CUDA_ERROR_NOT_FOUND:
    return "named symbol not found";
  default:
    return errorName(result) ? "fake driver error" : nullptr;
  }
}

bool isIdentifier(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/// The `.entry` kernels of a PTX text and, per `.param` each takes,
/// whether it is a pointer: marked `.ptr` (as the NVVM backend marks a
/// kernel's global pointers), or any parameter of an entry that marks none.
std::map<std::string, std::vector<bool>> ptxEntries(const std::string &text) {
  std::map<std::string, std::vector<bool>> entries;
  size_t at = 0;
  while ((at = text.find(".entry", at)) != std::string::npos) {
    at += 6;
    size_t begin = at;
    while (begin < text.size() && (text[begin] == ' ' || text[begin] == '\t'))
      ++begin;
    size_t end = begin;
    while (end < text.size() && isIdentifier(text[end]))
      ++end;
    if (end == begin)
      continue;
    std::string name = text.substr(begin, end - begin);
    std::vector<bool> params;
    size_t open = text.find_first_not_of(" \t\r\n", end);
    if (open != std::string::npos && text[open] == '(') {
      size_t close = text.find(')', open);
      std::string list = text.substr(open, close - open);
      for (size_t p = 0; (p = list.find(".param", p)) != std::string::npos;
           p += 6) {
        size_t next = list.find(".param", p + 6);
        params.push_back(list.substr(p, next - p).find(".ptr") !=
                         std::string::npos);
      }
    }
    // PTX that marks no pointer (hand-written, or nvcc's) passes only
    // pointers, as the kernel ABI's bindings are.
    if (std::find(params.begin(), params.end(), true) == params.end())
      params.assign(params.size(), true);
    entries[name] = params;
    at = end;
  }
  return entries;
}

void writeLog(unsigned count, CUjit_option *options, void **values,
              const std::string &message) {
  char *buffer = nullptr;
  size_t size = 0;
  for (unsigned i = 0; i < count; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      buffer = static_cast<char *>(values[i]);
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      size = reinterpret_cast<uintptr_t>(values[i]);
  }
  if (buffer && size) {
    std::strncpy(buffer, message.c_str(), size - 1);
    buffer[size - 1] = '\0';
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Driver entry points (cuda.h maps the names to the exported, versioned
// symbols, e.g. cuMemAlloc to cuMemAlloc_v2)
//===----------------------------------------------------------------------===//

extern "C" {

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  {
    State &s = state();
    std::lock_guard lock(s.mutex);
    if (CUresult injected = enter(s, "cuGetErrorName"))
      return injected;
  }
  *pStr = errorName(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  {
    State &s = state();
    std::lock_guard lock(s.mutex);
    if (CUresult injected = enter(s, "cuGetErrorString"))
      return injected;
  }
  *pStr = errorString(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuInit(unsigned int flags) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult injected = enter(s, "cuInit"))
    return injected;
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  s.initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  ENTER("cuDeviceGetCount");
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  ENTER("cuDeviceGet");
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  ENTER("cuDeviceGetName");
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::strncpy(name, "Fake CUDA Device", size_t(len));
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice device) {
  ENTER("cuDeviceGetAttribute");
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device) {
  ENTER("cuDeviceTotalMem");
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = s.totalMemory;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  ENTER("cuDevicePrimaryCtxRetain");
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  ++s.primaryRefs;
  *context = reinterpret_cast<CUcontext>(&s.context);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  ENTER("cuDevicePrimaryCtxRelease");
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (s.primaryRefs == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --s.primaryRefs;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  ENTER("cuCtxSetCurrent");
  auto *fake = reinterpret_cast<FakeContext *>(context);
  if (fake && (fake != &s.context || s.primaryRefs == 0))
    return CUDA_ERROR_INVALID_CONTEXT;
  current = fake;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  ENTER("cuMemAlloc");
  NEEDS_CONTEXT();
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes > s.totalMemory - s.allocatedBytes)
    return CUDA_ERROR_OUT_OF_MEMORY;
  size_t rounded = (bytes + 255) / 256 * 256;
  void *memory = std::aligned_alloc(256, rounded);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  // Fresh device memory is not zero: show what reads it before a write.
  std::memset(memory, 0xCD, rounded);
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  s.allocations[*pointer] = bytes;
  s.allocatedBytes += bytes;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr pointer) {
  ENTER("cuMemFree");
  NEEDS_CONTEXT();
  auto it = s.allocations.find(pointer);
  if (it == s.allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  s.allocatedBytes -= it->second;
  s.allocations.erase(it);
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr destination, const void *source,
                           size_t bytes, CUstream stream) {
  ENTER("cuMemcpyHtoDAsync");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!inside(s, destination, bytes) || !source)
    return CUDA_ERROR_INVALID_VALUE;
  submit(s, fake, [destination, source, bytes] {
    std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  });
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void *destination, CUdeviceptr source, size_t bytes,
                           CUstream stream) {
  ENTER("cuMemcpyDtoHAsync");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!inside(s, source, bytes) || !destination)
    return CUDA_ERROR_INVALID_VALUE;
  submit(s, fake, [destination, source, bytes] {
    std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  });
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *destination, CUdeviceptr source, size_t bytes) {
  ENTER("cuMemcpyDtoH");
  NEEDS_CONTEXT();
  if (!inside(s, source, bytes) || !destination)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr destination, CUdeviceptr source,
                           size_t bytes, CUstream stream) {
  ENTER("cuMemcpyDtoDAsync");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!inside(s, destination, bytes) || !inside(s, source, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  submit(s, fake, [destination, source, bytes] {
    std::memmove(reinterpret_cast<void *>(destination),
                 reinterpret_cast<const void *>(source), bytes);
  });
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value,
                         size_t bytes, CUstream stream) {
  ENTER("cuMemsetD8Async");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!inside(s, destination, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  submit(s, fake, [destination, value, bytes] {
    std::memset(reinterpret_cast<void *>(destination), value, bytes);
  });
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int numOptions, CUjit_option *options,
                            void **optionValues) {
  ENTER("cuModuleLoadDataEx");
  NEEDS_CONTEXT();
  if (!image)
    return CUDA_ERROR_INVALID_VALUE;
  auto fake = std::make_unique<FakeModule>();
  const char *bytes = static_cast<const char *>(image);
  std::map<std::string, std::vector<bool>> entries;
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    // A cubin: an ELF64 image whose section headers end it. Its kernels are
    // the names in its string tables, found when asked for; their
    // parameters are unknown.
    uint64_t sectionHeaders = 0;
    uint16_t entrySize = 0, sections = 0;
    if (bytes[4] != 2)
      return CUDA_ERROR_INVALID_IMAGE;
    std::memcpy(&sectionHeaders, bytes + 0x28, 8);
    std::memcpy(&entrySize, bytes + 0x3A, 2);
    std::memcpy(&sections, bytes + 0x3C, 2);
    uint64_t size = sectionHeaders + uint64_t(entrySize) * sections;
    if (size < 64 || size > (uint64_t(256) << 20))
      return CUDA_ERROR_INVALID_IMAGE;
    fake->text.assign(bytes, size);
    *module = reinterpret_cast<CUmodule>(fake.get());
    s.modules.insert(fake.release());
    return CUDA_SUCCESS;
  } else {
    fake->ptx = true;
    fake->text = bytes;
    if (fake->text.find(".version") == std::string::npos ||
        fake->text.find(".target") == std::string::npos) {
      writeLog(numOptions, options, optionValues,
               "ptxas fatal   : PTX text lacks a .version or .target "
               "directive");
      return CUDA_ERROR_INVALID_PTX;
    }
    long depth = 0;
    for (char c : fake->text)
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (depth != 0) {
      writeLog(numOptions, options, optionValues,
               "ptxas fatal   : unbalanced braces in the PTX text");
      return CUDA_ERROR_INVALID_PTX;
    }
    entries = ptxEntries(fake->text);
  }
  if (entries.empty()) {
    writeLog(numOptions, options, optionValues,
             "ptxas fatal   : the module declares no .entry");
    return CUDA_ERROR_INVALID_PTX;
  }
  for (auto &[name, params] : entries) {
    auto function = std::make_unique<FakeFunction>();
    function->name = name;
    function->paramCount = int(params.size());
    function->pointers = params;
    fake->functions[name] = std::move(function);
  }
  *module = reinterpret_cast<CUmodule>(fake.get());
  s.modules.insert(fake.release());
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  ENTER("cuModuleGetFunction");
  NEEDS_CONTEXT();
  auto *fake = reinterpret_cast<FakeModule *>(module);
  if (!s.modules.count(fake))
    return CUDA_ERROR_INVALID_HANDLE;
  auto it = fake->functions.find(name);
  if (it == fake->functions.end() && !fake->ptx &&
      fake->text.find('\0' + std::string(name) + '\0') != std::string::npos) {
    auto function = std::make_unique<FakeFunction>();
    function->name = name;
    it = fake->functions.emplace(name, std::move(function)).first;
  }
  if (it == fake->functions.end())
    return CUDA_ERROR_NOT_FOUND;
  *function = reinterpret_cast<CUfunction>(it->second.get());
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  ENTER("cuModuleUnload");
  NEEDS_CONTEXT();
  auto *fake = reinterpret_cast<FakeModule *>(module);
  if (!s.modules.erase(fake))
    return CUDA_ERROR_INVALID_HANDLE;
  delete fake;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                            int value) {
  ENTER("cuFuncSetAttribute");
  NEEDS_CONTEXT();
  auto *kernel = reinterpret_cast<FakeFunction *>(function);
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
      value < 0 || value > 227 * 1024)
    return CUDA_ERROR_INVALID_VALUE;
  for (FakeModule *module : s.modules)
    for (auto &[name, candidate] : module->functions)
      if (candidate.get() == kernel) {
        kernel->maxDynamicSharedBytes = unsigned(value);
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLaunchKernel(CUfunction function, unsigned int gridDimX,
                        unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                        CUstream stream, void **kernelParams, void **extra) {
  ENTER("cuLaunchKernel");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake)
    return CUDA_ERROR_INVALID_HANDLE;
  auto *kernel = reinterpret_cast<FakeFunction *>(function);
  bool known = false;
  for (FakeModule *module : s.modules)
    for (auto &[name, candidate] : module->functions)
      known |= candidate.get() == kernel;
  if (!known)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY ||
      !blockDimZ || uint64_t(blockDimX) * blockDimY * blockDimZ > 1024 ||
      blockDimZ > 64 || gridDimY > 65535 || gridDimZ > 65535 || extra)
    return CUDA_ERROR_INVALID_VALUE;
  if (sharedMemBytes > kernel->maxDynamicSharedBytes)
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  if (kernel->paramCount > 0 && !kernelParams)
    return CUDA_ERROR_INVALID_VALUE;

  FakeCudaLaunch launch{};
  std::strncpy(launch.name, kernel->name.c_str(), sizeof(launch.name) - 1);
  launch.grid[0] = gridDimX;
  launch.grid[1] = gridDimY;
  launch.grid[2] = gridDimZ;
  launch.block[0] = blockDimX;
  launch.block[1] = blockDimY;
  launch.block[2] = blockDimZ;
  launch.sharedMemoryBytes = sharedMemBytes;
  launch.paramCount = kernel->paramCount;
  launch.stream = reinterpret_cast<uint64_t>(fake);
  // The last pointer parameter (the error record of a kernel that takes
  // one); -1 where none is.
  int lastPointer = -1;
  for (int i = 0; i < kernel->paramCount && i < 16; ++i) {
    std::memcpy(&launch.params[i], kernelParams[i], sizeof(uint64_t));
    bool pointer = kernel->pointers[size_t(i)];
    launch.pointerMask |= pointer ? 1u << i : 0u;
    if (pointer)
      lastPointer = i;
  }
  s.launches.push_back(launch);

  std::string name = kernel->name;
  submit(s, fake, [&s, fake, launch, name, lastPointer] {
    // Every pointer parameter is a device pointer (the kernel ABI; the
    // dims after them are values): a kernel that ran would fault on one
    // outside live memory.
    for (int i = 0; i < launch.paramCount && i < 16; ++i)
      if ((launch.pointerMask >> i & 1) && !inside(s, launch.params[i], 1) &&
          !fake->pendingError)
        fake->pendingError = CUDA_ERROR_ILLEGAL_ADDRESS;
    auto failing = s.failingKernels.find(name);
    if (failing != s.failingKernels.end() && !fake->pendingError)
      fake->pendingError = failing->second;
    auto reporting = s.reportingKernels.find(name);
    if (reporting != s.reportingKernels.end() && lastPointer >= 0 &&
        !fake->pendingError) {
      int64_t words[2] = {reporting->second.first, reporting->second.second};
      std::memcpy(reinterpret_cast<void *>(launch.params[lastPointer]), words,
                  sizeof(words));
    }
  });
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  ENTER("cuStreamCreate");
  NEEDS_CONTEXT();
  if (flags & ~unsigned(CU_STREAM_NON_BLOCKING))
    return CUDA_ERROR_INVALID_VALUE;
  auto *fake = new FakeStream;
  s.streams.push_back(fake);
  *stream = reinterpret_cast<CUstream>(fake);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  ENTER("cuStreamSynchronize");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake)
    return CUDA_ERROR_INVALID_HANDLE;
  s.changed.wait(lock, [&] { return fake->queue.empty(); });
  return std::exchange(fake->pendingError, CUDA_SUCCESS);
}

CUresult cuStreamDestroy(CUstream stream) {
  ENTER("cuStreamDestroy");
  NEEDS_CONTEXT();
  FakeStream *fake = streamOf(s, stream);
  if (!fake || fake == &s.nullStream)
    return CUDA_ERROR_INVALID_HANDLE;
  // The work already queued still completes, as on the device.
  drain(s, fake);
  std::erase(s.streams, fake);
  delete fake;
  s.changed.notify_all();
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  ENTER("cuEventCreate");
  NEEDS_CONTEXT();
  auto *fake = new FakeEvent;
  fake->flags = flags;
  s.events.insert(fake);
  *event = reinterpret_cast<CUevent>(fake);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  ENTER("cuEventRecord");
  NEEDS_CONTEXT();
  auto *fake = reinterpret_cast<FakeEvent *>(event);
  FakeStream *onStream = streamOf(s, stream);
  if (!s.events.count(fake) || !onStream)
    return CUDA_ERROR_INVALID_HANDLE;
  fake->recorded = true;
  fake->complete = false;
  fake->error = CUDA_SUCCESS;
  submit(s, onStream, [&s, fake, onStream] {
    if (!s.events.count(fake))
      return;
    fake->complete = true;
    fake->time = std::chrono::steady_clock::now();
    fake->error = std::exchange(onStream->pendingError, CUDA_SUCCESS);
  });
  return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent event) {
  ENTER("cuEventQuery");
  auto *fake = reinterpret_cast<FakeEvent *>(event);
  if (!s.events.count(fake))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!fake->complete)
    return CUDA_ERROR_NOT_READY;
  return fake->error;
}

CUresult cuEventSynchronize(CUevent event) {
  ENTER("cuEventSynchronize");
  auto *fake = reinterpret_cast<FakeEvent *>(event);
  if (!s.events.count(fake))
    return CUDA_ERROR_INVALID_HANDLE;
  s.changed.wait(lock, [&] { return !s.events.count(fake) || fake->complete; });
  return s.events.count(fake) ? fake->error : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end) {
  ENTER("cuEventElapsedTime");
  auto *first = reinterpret_cast<FakeEvent *>(start);
  auto *second = reinterpret_cast<FakeEvent *>(end);
  if (!s.events.count(first) || !s.events.count(second) ||
      (first->flags & CU_EVENT_DISABLE_TIMING) ||
      (second->flags & CU_EVENT_DISABLE_TIMING) || !first->recorded ||
      !second->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!first->complete || !second->complete)
    return CUDA_ERROR_NOT_READY;
  *milliseconds =
      std::chrono::duration<float, std::milli>(second->time - first->time)
          .count();
  return CUDA_SUCCESS;
}

// The name cuda.h maps to cuEventElapsedTime_v2; drivers before 12.8 export
// only this one, which dlsym finds.
CUresult cuEventElapsedTimeV1(float *milliseconds, CUevent start,
                              CUevent end) __asm__("cuEventElapsedTime");
CUresult cuEventElapsedTimeV1(float *milliseconds, CUevent start, CUevent end) {
  return cuEventElapsedTime(milliseconds, start, end);
}

CUresult cuEventDestroy(CUevent event) {
  ENTER("cuEventDestroy");
  auto *fake = reinterpret_cast<FakeEvent *>(event);
  if (!s.events.erase(fake))
    return CUDA_ERROR_INVALID_HANDLE;
  delete fake;
  s.changed.notify_all();
  return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus) {
  (void)cudaVersion;
  (void)flags;
  {
    State &s = state();
    std::lock_guard lock(s.mutex);
    if (CUresult injected = enter(s, "cuGetProcAddress"))
      return injected;
  }
  // Base names, as CudaRuntime asks for them.
#define ENTRY(name)                                                            \
  { #name, reinterpret_cast < void *>(&name) }
  static const std::map<std::string, void *> table = {
      ENTRY(cuGetErrorName),
      ENTRY(cuGetErrorString),
      ENTRY(cuInit),
      ENTRY(cuDriverGetVersion),
      ENTRY(cuDeviceGetCount),
      ENTRY(cuDeviceGet),
      ENTRY(cuDeviceGetName),
      ENTRY(cuDeviceGetAttribute),
      ENTRY(cuDeviceTotalMem),
      ENTRY(cuDevicePrimaryCtxRetain),
      ENTRY(cuDevicePrimaryCtxRelease),
      ENTRY(cuCtxSetCurrent),
      ENTRY(cuMemAlloc),
      ENTRY(cuMemFree),
      ENTRY(cuMemcpyHtoDAsync),
      ENTRY(cuMemcpyDtoHAsync),
      ENTRY(cuMemcpyDtoH),
      ENTRY(cuMemcpyDtoDAsync),
      ENTRY(cuMemsetD8Async),
      ENTRY(cuModuleLoadDataEx),
      ENTRY(cuModuleLoadData),
      ENTRY(cuModuleGetFunction),
      ENTRY(cuModuleUnload),
      ENTRY(cuFuncSetAttribute),
      ENTRY(cuLaunchKernel),
      ENTRY(cuStreamCreate),
      ENTRY(cuStreamSynchronize),
      ENTRY(cuStreamDestroy),
      ENTRY(cuEventCreate),
      ENTRY(cuEventRecord),
      ENTRY(cuEventQuery),
      ENTRY(cuEventSynchronize),
      ENTRY(cuEventElapsedTime),
      ENTRY(cuEventDestroy),
  };
#undef ENTRY
  auto it = table.find(symbol);
  if (it == table.end()) {
    *pfn = nullptr;
    if (symbolStatus)
      *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = it->second;
  if (symbolStatus)
    *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Test control
//===----------------------------------------------------------------------===//

void fakeCudaReset() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.injections.clear();
  s.calls.clear();
  s.failingKernels.clear();
  s.reportingKernels.clear();
  s.launches.clear();
  s.held = false;
  for (FakeStream *stream : s.streams)
    drain(s, stream);
  drain(s, &s.nullStream);
  s.changed.notify_all();
}

void fakeCudaInjectFailure(const char *entry, int skip, int times, int result) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.injections[entry] = Injection{skip, times, CUresult(result)};
}

void fakeCudaReportFromKernel(const char *name, int64_t flag, int64_t value) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.reportingKernels[name] = {flag, value};
}

void fakeCudaFailKernel(const char *name, int result) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.failingKernels[name] = CUresult(result);
}

void fakeCudaHoldStreams(int hold) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.held = hold != 0;
  if (!s.held) {
    for (FakeStream *stream : s.streams)
      drain(s, stream);
    drain(s, &s.nullStream);
  }
  s.changed.notify_all();
}

int fakeCudaQueuedOperations() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  size_t queued = s.nullStream.queue.size();
  for (FakeStream *stream : s.streams)
    queued += stream->queue.size();
  return int(queued);
}

int fakeCudaRunQueued(int count) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  int ran = 0;
  while (ran < count) {
    FakeStream *next = s.nullStream.queue.empty() ? nullptr : &s.nullStream;
    for (FakeStream *stream : s.streams)
      if (!next && !stream->queue.empty())
        next = stream;
    if (!next)
      break;
    std::function<void()> op = std::move(next->queue.front());
    next->queue.pop_front();
    op();
    ++ran;
  }
  s.changed.notify_all();
  return ran;
}

int fakeCudaLaunchCount() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return int(s.launches.size());
}

int fakeCudaGetLaunch(int index, FakeCudaLaunch *out) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (index < 0 || size_t(index) >= s.launches.size())
    return 0;
  *out = s.launches[size_t(index)];
  return 1;
}

int fakeCudaCallCount(const char *entry) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.calls.find(entry);
  return it == s.calls.end() ? 0 : it->second;
}

uint64_t fakeCudaLiveAllocationBytes() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return s.allocatedBytes;
}

int fakeCudaLiveAllocations() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return int(s.allocations.size());
}

int fakeCudaLiveStreams() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return int(s.streams.size());
}

int fakeCudaLiveEvents() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return int(s.events.size());
}

int fakeCudaLiveModules() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return int(s.modules.size());
}

int fakeCudaPrimaryContextRefs() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return s.primaryRefs;
}

int fakeCudaHasPtxEntry(const char *name) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  for (FakeModule *module : s.modules)
    if (module->ptx && module->functions.count(name))
      return 1;
  return 0;
}

void fakeCudaSetTotalMemory(uint64_t bytes) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.totalMemory = bytes;
}

} // extern "C"
