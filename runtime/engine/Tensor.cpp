//===- Tensor.cpp - The Tensor handle -------------------------------------===//

#include "runtime/engine/SessionState.h"

#include <cstring>

namespace fuse::engine {

const TensorType &Tensor::type() const {
  static const TensorType none;
  return node ? node->type : none;
}

Status Tensor::status() const {
  if (!node)
    return Status::error("an invalid tensor handle");
  if (node->pending.load(std::memory_order_acquire))
    return Status::success();
  if (node->error)
    return Status::error(*node->error);
  return Status::success();
}

bool Tensor::materialized() const {
  return node && !node->pending.load(std::memory_order_acquire);
}

Expected<HostTensorData> Tensor::read() const {
  if (!node)
    return Status::error("read of an invalid tensor handle");
  if (RecordingStream *owner = node->pending.load(std::memory_order_acquire))
    (void)node->session->flush(*owner);
  if (node->pending.load(std::memory_order_acquire))
    return Status::error("the tensor is still pending after a sync");
  if (node->error)
    return Status::error(*node->error);
  HostTensorData result(node->type);
  if (result.bytes.empty())
    return result;
  if (node->data->host) {
    std::memcpy(result.bytes.data(), node->data->host->data(),
                result.bytes.size());
    return result;
  }
  Expected<TensorBytes> bytes = node->session->readBack(*node->data);
  if (!bytes.ok())
    return bytes.status();
  std::memcpy(result.bytes.data(), bytes->data(), result.bytes.size());
  return result;
}

Expected<std::vector<double>> Tensor::readDoubles() const {
  Expected<HostTensorData> data = read();
  if (!data.ok())
    return data.status();
  return data->toDoubles();
}

} // namespace fuse::engine
