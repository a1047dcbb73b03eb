//===- HostAddressableRuntime.cpp - Host-addressed memory -----------------===//

#include "runtime/device/HostAddressableRuntime.h"

#include "runtime/device/DeviceObjects.h"

#include <chrono>
#include <cstring>
#include <vector>

namespace fuse::device {

DeviceStatus
HostAddressableRuntime::copyToHost(detail::BufferObject &buffer,
                                   uint64_t offset,
                                   std::span<std::byte> destination) {
  if (!destination.empty())
    std::memcpy(destination.data(), buffer.hostData() + offset,
                destination.size());
  return DeviceStatus();
}

void HostAddressableRuntime::runOnHost(detail::StreamObject &stream,
                                       detail::FenceObject &fence) {
  std::optional<Error> failure;
  {
    std::lock_guard lock(fence.mutex);
    failure = fence.abandoned;
  }
  if (!failure) {
    std::lock_guard lock(stream.mutex);
    if (stream.failure)
      failure = Error{ErrorCode::StreamFailed,
                      "skipped: an earlier submission failed (" +
                          stream.failure->message + ")"};
  }
  if (!failure)
    failure = injectedFault(FaultPoint::Execute);
  if (failure) {
    completeSubmission(stream, fence, std::move(failure));
    return;
  }
  // Only the stream's own thread touches the commands until completion.
  for (const std::shared_ptr<const detail::CommandObject> &command :
       fence.commands) {
    if (const auto *copy = std::get_if<detail::CopyCommand>(&command->op)) {
      std::memcpy(copy->destination->hostData() +
                      copy->region.destinationOffset,
                  copy->source->hostData() + copy->region.sourceOffset,
                  copy->region.bytes);
    } else if (const auto *upload =
                   std::get_if<detail::UploadCommand>(&command->op)) {
      if (!upload->bytes.empty())
        std::memcpy(upload->destination->hostData() + upload->offset,
                    upload->bytes.data(), upload->bytes.size());
    } else if (const auto *zero =
                   std::get_if<detail::ZeroCommand>(&command->op)) {
      std::memset(zero->destination->hostData() + zero->offset, 0, zero->bytes);
    } else {
      const auto &launch = std::get<detail::LaunchCommand>(command->op);
      const detail::KernelChecks &checks =
          launch.executable->checks[launch.kernel];
      // The dims array and the error record (KernelAbi.h) sit before the
      // bindings.
      std::vector<int64_t> record(checks.words());
      std::vector<void *> pointers;
      pointers.reserve(launch.bindings.size() + 2);
      pointers.push_back(const_cast<int64_t *>(checks.dims.data()));
      pointers.push_back(record.data());
      for (const detail::BoundBuffer &bound : launch.bindings)
        pointers.push_back(bound.buffer->hostData() + bound.offset);
      auto start = std::chrono::steady_clock::now();
      DeviceStatus status =
          launchOnHost(*launch.executable, launch.kernel, launch.config,
                       std::span<void *const>(pointers).subspan(2));
      if (fence.timingMode == TimingMode::Kernel)
        fence.timing.launches.push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start));
      if (!status.ok()) {
        failure = status.error();
        break;
      }
      if (std::optional<Error> reported = checks.failure(record)) {
        failure = std::move(reported);
        break;
      }
    }
  }
  completeSubmission(stream, fence, std::move(failure));
}

} // namespace fuse::device
