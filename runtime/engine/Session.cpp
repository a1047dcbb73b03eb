//===- Session.cpp - The Session handle -----------------------------------===//

#include "runtime/engine/Recording.h"

#ifdef FUSE_HAVE_CUDA_RUNTIME
#include "runtime/device/CudaRuntime.h"
#endif
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"

namespace fuse::engine {

namespace {

std::atomic<std::uint64_t> nextSessionId{1};

} // namespace

Expected<Session> Session::open(SessionOptions options) {
  auto state = std::make_shared<SessionState>();
  state->id = nextSessionId++;
  DeviceChoice choice = options.device;
  if (choice == DeviceChoice::Default) {
    // cuda when a driver and a device are present, otherwise host; an
    // explicit target of one kind decides for it.
    if (options.target.starts_with("host-")) {
      choice = DeviceChoice::Host;
      state->deviceNote = "default device: host (the target " + options.target +
                          " asks for it)";
    } else {
#ifdef FUSE_HAVE_CUDA_RUNTIME
      device::DeviceResult<std::unique_ptr<device::CudaRuntime>> cuda =
          device::CudaRuntime::create();
      if (cuda.ok()) {
        state->kind = device::DeviceKind::Cuda;
        state->target = (*cuda)->descriptor().target;
        state->runtime = std::move(*cuda);
        state->deviceNote = "default device: cuda (" + state->target + ")";
      } else {
        choice = DeviceChoice::Host;
        state->deviceNote =
            "default device: host (no CUDA device: " + cuda.error().message +
            ")";
      }
#else
      choice = DeviceChoice::Host;
      state->deviceNote = "default device: host (this build of Fuse has no "
                          "CUDA runtime)";
#endif
    }
  }
  switch (choice) {
  case DeviceChoice::Default:
    break; // chosen above: cuda
  case DeviceChoice::Host: {
    std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
    if (!level)
      return Status::error("no host device: this CPU supports no x86-64 ISA "
                           "level that host bundles are built for");
    state->kind = device::DeviceKind::Host;
    state->target = device::hostTargetName(*level);
    state->runtime = std::make_unique<device::HostRuntime>();
    break;
  }
  case DeviceChoice::Cuda: {
#ifdef FUSE_HAVE_CUDA_RUNTIME
    device::DeviceResult<std::unique_ptr<device::CudaRuntime>> cuda =
        device::CudaRuntime::create();
    if (!cuda.ok())
      return Status::error("no CUDA device: " + cuda.error().message);
    state->kind = device::DeviceKind::Cuda;
    state->target = (*cuda)->descriptor().target;
    state->runtime = std::move(*cuda);
    break;
#else
    return Status::error("no CUDA device: this build of Fuse has no CUDA "
                         "runtime (cuda.h was not found at configure time)");
#endif
  }
  case DeviceChoice::Reference:
    state->kind = device::DeviceKind::Reference;
    state->target = "reference";
    state->runtime = std::make_unique<device::ReferenceRuntime>();
    break;
  }
  if (state->deviceNote.empty())
    state->deviceNote = std::string("device: ") +
                        device::deviceKindName(state->kind) + " (as asked)";
  if (options.device == DeviceChoice::Default && options.onWarning)
    options.onWarning(state->deviceNote);
  if (!options.target.empty())
    state->target = options.target;
  if (options.maxBlockOps == 0)
    options.maxBlockOps = 1;
  state->options = std::move(options);
  return TensorAccess::makeSession(std::move(state));
}

Tensor Session::upload(const TensorType &type,
                       std::span<const std::byte> bytes) {
  if (std::int64_t(bytes.size()) != type.byteSize())
    return failedTensor(state, type,
                        "upload of " + std::to_string(bytes.size()) +
                            " bytes to a " + type.toString() + " of " +
                            std::to_string(type.byteSize()) + " bytes");
  auto node = std::make_shared<TensorNode>();
  node->type = type;
  node->session = state;
  auto storage = std::make_shared<Storage>();
  storage->bytes = bytes.size();
  storage->host.emplace(bytes.begin(), bytes.end());
  node->data = std::move(storage);
  return TensorAccess::make(std::move(node));
}

Tensor Session::upload(const HostTensorData &data) {
  return upload(data.type, std::as_bytes(std::span(data.bytes)));
}

Tensor Session::upload(const TensorType &type, std::span<const double> values) {
  if (std::int64_t(values.size()) != type.numElements())
    return failedTensor(state, type,
                        "upload of " + std::to_string(values.size()) +
                            " values to a " + type.toString());
  return upload(HostTensorData::fromDoubles(type, values));
}

Status Session::flush() { return state->flush(state->currentStream()); }

Status Session::flushAll() {
  std::vector<RecordingStream *> streams;
  {
    std::lock_guard<std::mutex> lock(state->streamsMutex);
    for (auto &[thread, stream] : state->streams)
      streams.push_back(stream.get());
  }
  Status first = Status::success();
  for (RecordingStream *stream : streams)
    if (Status status = state->flush(*stream); !status.ok() && first.ok())
      first = status;
  return first;
}

void Session::setCompileOptions(const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->options.compileOptions = options;
}

CompileOptions Session::compileOptions() const {
  return state->compileOptions();
}

EngineCounters Session::counters() const {
  EngineCounters result;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    result = state->counters;
  }
  std::lock_guard<std::mutex> lock(state->streamsMutex);
  for (auto &[thread, stream] : state->streams) {
    result.opsRecorded += stream->opsRecorded.load(std::memory_order_relaxed);
    result.deviceStreams += stream->hasDeviceStream.load();
  }
  return result;
}

const std::string &Session::target() const { return state->target; }

std::string Session::deviceName() const {
  return device::deviceKindName(state->kind);
}

const std::string &Session::deviceNote() const { return state->deviceNote; }

std::vector<std::string> Session::keysForTesting() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->keys;
}

} // namespace fuse::engine
