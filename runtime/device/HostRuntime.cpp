//===- HostRuntime.cpp - The product CPU backend --------------------------===//

#include "runtime/device/HostRuntime.h"

#include "runtime/cache/Bundle.h"
#include "runtime/device/DeviceObjects.h"
#include "runtime/device/HostAllocator.h"
#include "runtime/device/HostIsa.h"
#include "runtime/device/ThreadPool.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string_view>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace fuse::device {

namespace {

struct HostBuffer final : detail::BufferObject {
  HostBuffer(uint64_t runtimeId, uint64_t size,
             std::shared_ptr<detail::Budget> budget,
             std::shared_ptr<HostAllocator> allocator, std::byte *data)
      : BufferObject(runtimeId, size, std::move(budget)),
        allocator(std::move(allocator)), data(data) {}
  ~HostBuffer() override { allocator->free(data, size); }
  std::byte *hostData() override { return data; }

  std::shared_ptr<HostAllocator> allocator;
  std::byte *data;
};

/// One dlopen'ed shared object; dlclose when the last executable and the
/// last pending launch that use it are gone.
/// The memfd stays open while the library is loaded: glibc's dlopen
/// recognizes an already loaded object by its path, so a closed descriptor
/// whose number is reused for the next library would make that dlopen return
/// this library instead of the new one.
struct HostLibrary {
  HostLibrary(void *handle, int fd) : handle(handle), fd(fd) {}
  ~HostLibrary() {
    dlclose(handle);
    close(fd);
  }
  void *handle;
  int fd;
  /// The shared object's bytes, by which a later load finds it
  /// (HostRuntime::Libraries).
  KernelPayload bytes;
};

struct HostExecutable final : detail::ExecutableObject {
  using ExecutableObject::ExecutableObject;
  std::vector<std::shared_ptr<HostLibrary>> libraries;
  std::vector<FuseHostKernel> entries;
};

struct HostStream final
    : detail::StreamObject,
      detail::StreamQueue<std::shared_ptr<detail::FenceObject>> {
  using StreamObject::StreamObject;
  ~HostStream() override { stop(); }

  /// A batch of this stream runs (on its thread or on a waiting one): the
  /// next may not start before it ends.
  bool running = false;
};

/// A private file for the bytes of a shared object, so that dlopen can map
/// it: nothing on disk to clean up, nothing another process can replace.
DeviceResult<std::shared_ptr<HostLibrary>>
openLibrary(const std::vector<uint8_t> &bytes, const std::string &kernel) {
  int fd = memfd_create("fuse-host-kernels", MFD_CLOEXEC);
  if (fd < 0)
    return Error{ErrorCode::KernelLoadFailed,
                 "memfd_create failed: " + std::string(std::strerror(errno))};
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      Error error{ErrorCode::KernelLoadFailed,
                  "writing the shared object of kernel " + kernel +
                      " failed: " + std::strerror(errno)};
      close(fd);
      return error;
    }
    written += size_t(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string reason = dlerror();
    close(fd);
    return Error{ErrorCode::KernelLoadFailed,
                 "dlopen of the shared object of kernel " + kernel +
                     " failed: " + reason};
  }
  return std::make_shared<HostLibrary>(handle, fd);
}

uint64_t defaultBudget() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t(1) << 30;
  return uint64_t(pages) * uint64_t(pageSize) / 2;
}

DeviceDescriptor hostDescriptor(const HostRuntime::Options &options) {
  unsigned threads = options.threads
                         ? options.threads
                         : std::max(1u, std::thread::hardware_concurrency());
  std::optional<HostIsaLevel> level = bestHostIsaLevel();
  return DeviceDescriptor{
      "host", DeviceKind::Host, level ? hostTargetName(*level) : "host",
      options.memoryBudgetBytes ? options.memoryBudgetBytes : defaultBudget(),
      threads};
}

} // namespace

struct HostRuntime::Streams {
  std::mutex mutex;
  std::vector<std::weak_ptr<HostStream>> live;
};

/// The shared objects this runtime has open, by their bytes: a bundle
/// loaded while an executable of the same code is alive (a symbolic bundle
/// bound to another length while the last binding's executable is held,
/// SymbolicBundle.h: the bound bundles keep the symbolic one's payloads)
/// takes the library already open, without writing it to a new memfd and
/// dlopening it again. Nothing is kept open for it: a library closes with
/// its last executable and launch, as before.
struct HostRuntime::Libraries {
  std::mutex mutex;
  std::unordered_multimap<size_t, std::weak_ptr<HostLibrary>> byHash;
  uint64_t opened = 0;

  DeviceResult<std::shared_ptr<HostLibrary>> open(const KernelPayload &bytes,
                                                  const std::string &kernel) {
    std::lock_guard lock(mutex);
    // A copy of the payload of a library open (a bundle bound again) is
    // found without reading its bytes.
    for (auto it = byHash.begin(); it != byHash.end(); ++it)
      if (std::shared_ptr<HostLibrary> library = it->second.lock())
        if (library->bytes.sameBytes(bytes))
          return library;
    size_t hash = std::hash<std::string_view>{}(std::string_view(
        reinterpret_cast<const char *>(bytes.data()), bytes.size()));
    auto [first, last] = byHash.equal_range(hash);
    for (auto it = first; it != last;) {
      std::shared_ptr<HostLibrary> library = it->second.lock();
      if (!library) {
        it = byHash.erase(it);
        continue;
      }
      if (library->bytes == bytes)
        return library;
      ++it;
    }
    DeviceResult<std::shared_ptr<HostLibrary>> loaded =
        openLibrary(bytes.bytes(), kernel);
    if (!loaded.ok())
      return loaded;
    ++opened;
    (*loaded)->bytes = bytes;
    byHash.emplace(hash, *loaded);
    return loaded;
  }
};

HostRuntime::HostRuntime() : HostRuntime(Options{}) {}

HostRuntime::HostRuntime(const Options &options)
    : HostAddressableRuntime(hostDescriptor(options)),
      allocator(std::make_shared<HostAllocator>()),
      pool(std::make_unique<ThreadPool>(descriptor().computeUnits - 1)),
      streams(std::make_unique<Streams>()),
      libraries(std::make_unique<Libraries>()) {}

uint64_t HostRuntime::librariesOpenedForTesting() const {
  std::lock_guard lock(libraries->mutex);
  return libraries->opened;
}

HostRuntime::~HostRuntime() {
  std::vector<std::shared_ptr<HostStream>> alive;
  {
    std::lock_guard lock(streams->mutex);
    for (std::weak_ptr<HostStream> &weak : streams->live)
      if (std::shared_ptr<HostStream> stream = weak.lock())
        alive.push_back(std::move(stream));
  }
  // Stream threads call back into this object; they must end first.
  for (const std::shared_ptr<HostStream> &stream : alive)
    stream->stop();
}

uint64_t HostRuntime::mappedBlocksForTesting() const {
  return allocator->mappedBlocks();
}

DeviceResult<std::shared_ptr<detail::BufferObject>>
HostRuntime::allocateMemory(uint64_t bytes) {
  std::byte *data = allocator->allocate(bytes);
  if (!data) {
    // Pooled blocks of other sizes may be what the system is missing.
    allocator->releaseAll();
    data = allocator->allocate(bytes);
  }
  if (!data)
    return Error{ErrorCode::OutOfMemory, "the system has no " +
                                             std::to_string(bytes) +
                                             " bytes to give"};
  return std::shared_ptr<detail::BufferObject>(std::make_shared<HostBuffer>(
      instanceId(), bytes, budgetState(), allocator, data));
}

std::shared_ptr<detail::ExecutableObject>
HostRuntime::shareCode(const detail::ExecutableObject &loaded) const {
  return std::make_shared<HostExecutable>(
      static_cast<const HostExecutable &>(loaded));
}

DeviceResult<std::shared_ptr<detail::ExecutableObject>>
HostRuntime::loadExecutable(const Bundle &bundle) {
  auto executable = std::make_shared<HostExecutable>(instanceId());
  std::vector<const KernelPayload *> payloads;
  for (const BundleKernel &kernel : bundle.kernels) {
    if (kernel.payloadKind != PayloadKind::HostSharedObject)
      return unsupportedPayload(kernel, "host", "host shared objects");
    std::optional<HostKernelIsa> level = parseHostKernelTarget(kernel.target);
    if (!level)
      return foreignTarget(kernel, "a host ISA level");
    if (!hostSupports(*level))
      return Error{ErrorCode::Incompatible,
                   "kernel " + kernel.name + " needs " + kernel.target +
                       ", which this CPU (" + descriptor().target +
                       ") cannot run"};
    // Kernels of one bundle usually share one shared object: load it once.
    size_t library = 0;
    while (library < payloads.size() && *payloads[library] != kernel.payload)
      ++library;
    if (library == payloads.size()) {
      DeviceResult<std::shared_ptr<HostLibrary>> opened =
          libraries->open(kernel.payload, kernel.name);
      if (!opened.ok())
        return opened.error();
      payloads.push_back(&kernel.payload);
      executable->libraries.push_back(std::move(*opened));
    }
    void *symbol =
        dlsym(executable->libraries[library]->handle, kernel.entry.c_str());
    if (!symbol)
      return Error{ErrorCode::KernelLoadFailed,
                   "kernel " + kernel.name +
                       ": the shared object has no "
                       "symbol '" +
                       kernel.entry + "'"};
    executable->entries.push_back(reinterpret_cast<FuseHostKernel>(symbol));
    executable->bindingBytes.push_back(bindingBytes(bundle, kernel));
  }
  return std::shared_ptr<detail::ExecutableObject>(std::move(executable));
}

DeviceResult<std::shared_ptr<detail::StreamObject>> HostRuntime::newStream() {
  auto stream = std::make_shared<HostStream>(instanceId());
  HostStream *raw = stream.get();
  stream->worker = std::thread([this, raw] {
    std::unique_lock lock(raw->queueMutex);
    while (true) {
      raw->wake.wait(lock, [&] {
        return !raw->running && (raw->stopping || !raw->queue.empty());
      });
      if (raw->queue.empty())
        return;
      std::shared_ptr<detail::FenceObject> fence =
          std::move(raw->queue.front());
      raw->queue.pop_front();
      raw->running = true;
      lock.unlock();
      runOnHost(*raw, *fence);
      lock.lock();
      raw->running = false;
    }
  });
  std::lock_guard lock(streams->mutex);
  std::erase_if(streams->live, [](const std::weak_ptr<HostStream> &weak) {
    return weak.expired();
  });
  streams->live.push_back(stream);
  return std::shared_ptr<detail::StreamObject>(std::move(stream));
}

void HostRuntime::enqueue(detail::StreamObject &stream,
                          std::shared_ptr<detail::FenceObject> fence) {
  static_cast<HostStream &>(stream).push(std::move(fence));
}

void HostRuntime::runWaitedFence(
    detail::StreamObject &stream,
    const std::shared_ptr<detail::FenceObject> &fence) {
  auto &host = static_cast<HostStream &>(stream);
  {
    std::lock_guard lock(host.queueMutex);
    if (host.running || host.queue.empty() || host.queue.front() != fence)
      return;
    host.queue.pop_front();
    host.running = true;
  }
  runOnHost(host, *fence);
  {
    std::lock_guard lock(host.queueMutex);
    host.running = false;
  }
  // The stream thread may have been woken for this batch and gone back to
  // sleep while it ran; the next one is its.
  host.wake.notify_one();
}

uint64_t HostRuntime::pooledBytes() const { return allocator->pooledBytes(); }

void HostRuntime::releasePooledMemory() { allocator->releaseAll(); }

DeviceStatus HostRuntime::launchOnHost(const detail::ExecutableObject &object,
                                       uint32_t kernel,
                                       const LaunchConfig &config,
                                       std::span<void *const> buffers) {
  FuseHostKernel entry =
      static_cast<const HostExecutable &>(object).entries[kernel];
  void **pointers = const_cast<void **>(buffers.data());
  pool->parallelFor(
      0, config.iterations, config.grain,
      [&](int64_t begin, int64_t end) { entry(pointers, begin, end); },
      config.chunksPerWorker);
  return DeviceStatus();
}

} // namespace fuse::device
