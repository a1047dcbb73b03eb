//===- GraphCall.cpp - Recording a whole Graph as one call ----------------===//

#include "runtime/engine/Recording.h"

namespace fuse::engine {

std::vector<Tensor> call(Session &session, const Graph &graph,
                         std::span<const Tensor> inputs) {
  const std::shared_ptr<SessionState> &state = TensorAccess::state(session);
  auto failAll = [&](const std::string &message) {
    std::vector<Tensor> failed;
    for (const GraphOutput &output : graph.outputs)
      failed.push_back(
          failedTensor(state, graph.typeOf(output.tensor), message));
    return failed;
  };
  if (inputs.size() != graph.inputs.size())
    return failAll("call: the graph takes " +
                   std::to_string(graph.inputs.size()) + " inputs, given " +
                   std::to_string(inputs.size()));
  std::vector<Tensor> values(graph.tensors.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType &wanted = graph.typeOf(graph.inputs[i]);
    const std::string &name = graph.tensors[graph.inputs[i]].name;
    std::string what = "call: input " + std::to_string(i) +
                       (name.empty() ? "" : " ('" + name + "')");
    if (!inputs[i].valid())
      return failAll(what + " is an invalid tensor handle");
    if (inputs[i].type() != wanted)
      return failAll(what + " is a " + inputs[i].type().toString() +
                     ", the graph takes a " + wanted.toString());
    values[graph.inputs[i]] = inputs[i];
  }
  // Each handle is dropped after its last use, so that a block flushed
  // in the middle of the call (SessionOptions::maxBlockOps) makes outputs
  // of only the values used past that point.
  std::vector<std::size_t> lastUse(graph.tensors.size(), 0);
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    for (TensorId operand : graph.ops[i].operands)
      lastUse[operand] = i;
  std::vector<bool> isOutput(graph.tensors.size(), false);
  for (const GraphOutput &output : graph.outputs)
    isOutput[output.tensor] = true;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const Op &op = graph.ops[i];
    std::vector<Tensor> operands;
    operands.reserve(op.operands.size());
    for (TensorId operand : op.operands)
      operands.push_back(values[operand]);
    values[op.result()] = record(state, op.kind, operands, op.attributes,
                                 graph.typeOf(op.result()));
    for (TensorId operand : op.operands)
      if (lastUse[operand] == i && !isOutput[operand])
        values[operand] = Tensor();
  }
  std::vector<Tensor> outputs;
  for (const GraphOutput &output : graph.outputs)
    outputs.push_back(values[output.tensor]);
  return outputs;
}

} // namespace fuse::engine
