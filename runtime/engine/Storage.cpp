//===- Storage.cpp - A materialized tensor's value ------------------------===//

#include "runtime/engine/Storage.h"

namespace fuse::engine {

StoragePtr constantStorage(const DenseValue &value, const TensorType &type) {
  auto storage = std::make_shared<Storage>();
  storage->bytes = std::uint64_t(type.byteSize());
  const auto *bytes = reinterpret_cast<const std::byte *>(value.bytes.data());
  if (!value.splat) {
    storage->host.emplace(bytes, bytes + value.bytes.size());
    return storage;
  }
  storage->host.emplace();
  storage->host->reserve(storage->bytes);
  for (std::int64_t i = 0; i < type.numElements(); ++i)
    storage->host->insert(storage->host->end(), bytes,
                          bytes + value.bytes.size());
  return storage;
}

} // namespace fuse::engine
