//===- Recording.cpp - Recording ops into a stream's block ----------------===//

#include "runtime/engine/Recording.h"

#include "runtime/ir/Verifier.h"

namespace fuse::engine {

Tensor failedTensor(std::shared_ptr<SessionState> session, TensorType type,
                    std::string message) {
  auto node = std::make_shared<TensorNode>();
  node->type = std::move(type);
  node->session = std::move(session);
  node->error = std::move(message);
  return TensorAccess::make(std::move(node));
}

namespace {

/// Graph::addOp, with a fast path for the common elementwise ops whose
/// operands have one type that the op's type rule accepts; everything else
/// (and every error) goes through addOp's checks.
Expected<TensorId> appendOp(Graph &graph, OpKind kind,
                            std::vector<TensorId> ids, AttrMap attributes,
                            std::optional<TensorType> resultType) {
  const OpInfo &info = opInfo(kind);
  if (info.form != OpForm::Structured && attributes.empty() && !resultType &&
      !ids.empty() && int(ids.size()) == info.numOperands) {
    const TensorType &first = graph.typeOf(ids[0]);
    bool sameTypes = true;
    for (std::size_t i = 1; i < ids.size(); ++i)
      sameTypes = sameTypes && graph.typeOf(ids[i]) == first;
    if (sameTypes && followsTypeRule(first.elementType, info.typeRule)) {
      TensorId result = TensorId(graph.tensors.size());
      TensorType type = first;
      if (info.typeRule == TypeRule::FloatPred)
        type.elementType = ElementType::I1;
      graph.tensors.push_back({std::move(type), {}});
      graph.ops.push_back({kind, std::move(ids), {result}, {}});
      return result;
    }
  }
  return graph.addOp(kind, std::move(ids), std::move(attributes),
                     std::move(resultType));
}

} // namespace

Tensor record(std::shared_ptr<SessionState> session, OpKind kind,
              std::span<const Tensor> operands, AttrMap attributes,
              std::optional<TensorType> resultType) {
  std::string opName(mnemonic(kind));
  for (const Tensor &operand : operands) {
    const auto &node = TensorAccess::node(operand);
    if (!node)
      continue;
    if (!session)
      session = node->session;
  }
  if (!session)
    return Tensor();
  TensorType errorType = resultType ? *resultType : TensorType{};
  for (const Tensor &operand : operands) {
    const auto &node = TensorAccess::node(operand);
    if (!node)
      return failedTensor(session, errorType,
                          opName + ": an operand is an invalid tensor handle");
    if (node->session != session)
      return failedTensor(session, errorType,
                          opName + ": an operand belongs to another session");
  }

  RecordingStream &stream = session->currentStream();
  // Operands recorded on another thread's stream are materialized first
  // (the streams synchronize on them), without holding our own lock.
  for (const Tensor &operand : operands) {
    RecordingStream *owner =
        TensorAccess::node(operand)->pending.load(std::memory_order_acquire);
    if (owner && owner != &stream) {
      (void)session->flush(*owner);
      session->count([](EngineCounters &c) { ++c.crossStreamSyncs; });
    }
  }

  std::lock_guard<std::mutex> lock(stream.mutex);
  std::vector<TensorId> ids;
  ids.reserve(operands.size());
  for (const Tensor &operand : operands) {
    const auto &node = TensorAccess::node(operand);
    RecordingStream *owner = node->pending.load(std::memory_order_acquire);
    if (owner == &stream) {
      ids.push_back(node->localId);
      continue;
    }
    if (node->error)
      return failedTensor(session, errorType, *node->error);
    // A materialized tensor: bound as an input through an alias of its
    // buffer, once per block.
    auto [slot, added] =
        stream.inputIds.try_emplace(node->data.get(), kInvalidTensor);
    if (added) {
      slot->second = stream.graph.addInput(node->type);
      stream.inputData.push_back(node->data);
    }
    ids.push_back(slot->second);
  }
  Expected<TensorId> result =
      appendOp(stream.graph, kind, std::move(ids), std::move(attributes),
               std::move(resultType));
  if (!result.ok())
    return failedTensor(session, errorType, result.message());
  auto node = std::make_shared<TensorNode>();
  node->type = stream.graph.typeOf(*result);
  node->session = session;
  node->localId = *result;
  node->pending.store(&stream, std::memory_order_relaxed);
  stream.results.emplace_back(*result, node);
  stream.opsRecorded.fetch_add(1, std::memory_order_relaxed);
  if (stream.graph.ops.size() >= session->options.maxBlockOps)
    (void)session->flushLocked(stream);
  return TensorAccess::make(std::move(node));
}

Tensor recordOp(OpKind kind, std::span<const Tensor> operands,
                AttrMap attributes, std::optional<TensorType> resultType) {
  return record(nullptr, kind, operands, std::move(attributes),
                std::move(resultType));
}

} // namespace fuse::engine
