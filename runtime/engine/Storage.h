//===- Storage.h - A materialized tensor's value ----------------*- C++ -*-===//
//
// Private to runtime/engine: the bytes (host) or buffer (device) behind a
// materialized tensor, shared by its handles and the blocks that bind it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ENGINE_STORAGE_H
#define FUSE_RUNTIME_ENGINE_STORAGE_H

#include "runtime/device/DeviceRuntime.h"
#include "runtime/ir/Graph.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace fuse::engine {

using TensorBytes = std::vector<std::byte>;

/// The value of a materialized tensor, shared by its handles and by every
/// block that binds it (alias handles: independent entries over one
/// allocation, so dropping one never frees it under another): host bytes
/// for an upload, and a device buffer for a block's result (and for an
/// upload once a block has used it). Immutable once its buffer is set.
struct Storage {
  std::uint64_t bytes = 0;
  std::optional<TensorBytes> host;

  device::Buffer deviceBuffer() const {
    std::lock_guard<std::mutex> lock(mutex);
    return buffer;
  }
  void setBufferIfNone(const device::Buffer &uploaded) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!buffer.valid())
      buffer = uploaded;
  }

  mutable std::mutex mutex;
  device::Buffer buffer;
};
using StoragePtr = std::shared_ptr<Storage>;

/// The bytes of a constant's value (a splat expanded).
StoragePtr constantStorage(const DenseValue &value, const TensorType &type);

} // namespace fuse::engine

#endif // FUSE_RUNTIME_ENGINE_STORAGE_H
