//===- InterpreterTestSupport.h - Interpreter test helpers ------*- C++ -*-===//
//
// Tensors from literal values, one op evaluated through a graph, and a
// built graph evaluated: what every interpreter test (InterpreterTest,
// ConvInterpreterTest, GatherInterpreterTest, ScatterInterpreterTest,
// PoolInterpreterTest) builds its cases from.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_RUNTIME_IR_INTERPRETERTESTSUPPORT_H
#define FUSE_TEST_RUNTIME_IR_INTERPRETERTESTSUPPORT_H

#include "runtime/ir/Interpreter.h"

#include <optional>
#include <vector>

namespace fuse::irtest {

using Shape = std::vector<std::int64_t>;

inline HostTensorData floats(ElementType type, Shape shape,
                             std::vector<double> values) {
  return HostTensorData::fromDoubles({type, std::move(shape)}, values);
}
inline HostTensorData f64(Shape shape, std::vector<double> values) {
  return floats(ElementType::F64, std::move(shape), std::move(values));
}
inline HostTensorData f32(Shape shape, std::vector<double> values) {
  return floats(ElementType::F32, std::move(shape), std::move(values));
}
inline HostTensorData ints(ElementType type, Shape shape,
                           std::vector<std::int64_t> values) {
  return HostTensorData::fromInts({type, std::move(shape)}, values);
}
inline HostTensorData i32(Shape shape, std::vector<std::int64_t> values) {
  return ints(ElementType::I32, std::move(shape), std::move(values));
}
inline HostTensorData i8(Shape shape, std::vector<std::int64_t> values) {
  return ints(ElementType::I8, std::move(shape), std::move(values));
}
inline HostTensorData i1(Shape shape, std::vector<std::int64_t> values) {
  return ints(ElementType::I1, std::move(shape), std::move(values));
}

/// Evaluates one op of `kind` on `inputs` (its operands, in order) through a
/// graph and answers its result.
inline Expected<HostTensorData>
evaluateOp(OpKind kind, std::vector<HostTensorData> inputs,
           AttrMap attributes = {}, std::optional<TensorType> resultType = {}) {
  Graph graph;
  std::vector<TensorId> operands;
  std::vector<HostTensor> views;
  for (HostTensorData &input : inputs) {
    operands.push_back(graph.addInput(input.type));
    views.push_back(input.view());
  }
  Expected<TensorId> result =
      graph.addOp(kind, operands, std::move(attributes), resultType);
  if (!result.ok())
    return result.status();
  if (Status status = graph.markOutput(*result); !status.ok())
    return status;
  Expected<std::vector<HostTensorData>> outputs = evaluateGraph(graph, views);
  if (!outputs.ok())
    return outputs.status();
  return std::move(outputs->front());
}

/// Finishes `b` and evaluates its graph on `inputs` (its inputs, in order):
/// its first output.
inline Expected<HostTensorData>
evaluateBuilt(GraphBuilder &b, std::vector<HostTensorData> inputs) {
  Expected<Graph> graph = b.finish();
  if (!graph.ok())
    return graph.status();
  std::vector<HostTensor> views;
  for (HostTensorData &input : inputs)
    views.push_back(input.view());
  Expected<std::vector<HostTensorData>> outputs = evaluateGraph(*graph, views);
  if (!outputs.ok())
    return outputs.status();
  return std::move(outputs->front());
}

} // namespace fuse::irtest

#endif // FUSE_TEST_RUNTIME_IR_INTERPRETERTESTSUPPORT_H
