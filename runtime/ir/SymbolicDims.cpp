//===- SymbolicDims.cpp - Binding a symbolic Graph's dims -----------------===//
//
// bindDims (Graph.h, "Symbolic dims"): a symbolic graph made static for
// given values of its dims.
//
//===----------------------------------------------------------------------===//

#include "runtime/ir/Graph.h"

#include "runtime/ir/CheckedInt.h"

#include <algorithm>

using namespace fuse;

void fuse::forEachAttributeDim(
    OpKind kind, AttrMap &attributes,
    const std::function<void(std::int64_t &)> &visit) {
  for (auto &[name, attribute] : attributes) {
    if (kind == OpKind::Slice && name == "sizes" &&
        attribute.kind() == AttrKind::I64Array) {
      std::vector<std::int64_t> sizes = attribute.getI64Array();
      for (std::int64_t &size : sizes)
        visit(size);
      attribute = Attribute::i64Array(std::move(sizes));
    } else if (kind == OpKind::Constant &&
               attribute.kind() == AttrKind::Dense) {
      DenseValue value = attribute.getDense();
      for (std::int64_t &dim : value.shape)
        visit(dim);
      attribute = Attribute::dense(std::move(value));
    } else if (kind == OpKind::DimValue && name == "dim" &&
               attribute.kind() == AttrKind::I64) {
      std::int64_t dim = attribute.getI64();
      visit(dim);
      attribute = Attribute::i64(dim);
    }
  }
}

namespace {

/// The values of the table's entries (index i: code -1 - i).
Expected<std::vector<std::int64_t>> evaluateTable(const DimTable &table,
                                                  const DimBindings &values) {
  for (const std::string &name : table.symbols) {
    auto it = values.find(name);
    if (it == values.end())
      return Status::error("dim '" + name + "' has no value");
    if (it->second < 0)
      return Status::error("dim '" + name + "' is bound to " +
                           std::to_string(it->second) +
                           ", expected a size >= 0");
  }
  for (const auto &[name, value] : values)
    if (std::find(table.symbols.begin(), table.symbols.end(), name) ==
        table.symbols.end())
      return Status::error("a value is given for dim '" + name +
                           "', which the graph does not have");
  std::vector<std::int64_t> bound;
  for (const DimExpr &expr : table.exprs) {
    Expected<std::int64_t> value = expr.evaluate(values);
    if (!value.ok())
      return value.status();
    if (*value < 0)
      return Status::error("dim " + expr.toString() + " is " +
                           std::to_string(*value) + ", expected a size >= 0");
    bound.push_back(*value);
  }
  return bound;
}

/// An iota's values as a constant of its (bound) type.
Expected<DenseValue> iotaConstant(const TensorType &type, std::int64_t axis) {
  // Bound at most as large as any tensor the builder accepts; counted here
  // before the values are made.
  constexpr std::int64_t kMaxIotaElements = std::int64_t(1) << 28;
  const std::optional<std::int64_t> count =
      checkedElementCount(type.shape).get();
  if (!count || *count > kMaxIotaElements)
    return Status::error("iota of " + type.toString() +
                         " has too many elements to be a constant");
  std::int64_t inner = 1;
  for (std::size_t d = std::size_t(axis) + 1; d < type.shape.size(); ++d)
    inner *= type.shape[d];
  const std::int64_t extent = type.shape[std::size_t(axis)];
  std::vector<std::int64_t> values(static_cast<std::size_t>(*count));
  for (std::int64_t i = 0; i < *count; ++i)
    values[std::size_t(i)] = (i / inner) % extent;
  if (isFloat(type.elementType)) {
    std::vector<double> doubles(values.begin(), values.end());
    return DenseValue::fromDoubles(type, doubles);
  }
  return DenseValue::fromInts(type, values);
}

} // namespace

Expected<Graph> fuse::bindDims(const Graph &graph, const DimBindings &values) {
  if (!graph.isSymbolic()) {
    if (!values.empty())
      return Status::error("binding " + dimBindingsText(values) +
                           ": the graph has no symbolic dims");
    return graph;
  }
  const std::string prefix = "binding " + dimBindingsText(values) + ": ";
  Expected<std::vector<std::int64_t>> table = evaluateTable(graph.dims, values);
  if (!table.ok())
    return Status::error(prefix + table.message());
  auto bind = [&](std::int64_t &dim) {
    if (dim < 0 && graph.dims.isValidDim(dim))
      dim = (*table)[std::size_t(-1 - dim)];
  };
  auto bindType = [&](TensorType type) {
    for (std::int64_t &dim : type.shape)
      bind(dim);
    return type;
  };

  GraphBuilder builder;
  std::vector<TensorId> newId(graph.tensors.size(), kInvalidTensor);
  for (TensorId input : graph.inputs)
    newId[input] =
        builder.input(bindType(graph.typeOf(input)), graph.tensors[input].name);
  for (const Op &op : graph.ops) {
    AttrMap attributes = op.attributes;
    forEachAttributeDim(op.kind, attributes, bind);
    const TensorType resultType = bindType(graph.typeOf(op.result()));
    std::vector<TensorId> operands;
    for (TensorId operand : op.operands)
      operands.push_back(graph.isValidId(operand) ? newId[operand]
                                                  : kInvalidTensor);
    TensorId result;
    if (op.kind == OpKind::Iota) {
      Expected<DenseValue> value =
          iotaConstant(resultType, attributes.at("axis").getI64());
      if (!value.ok())
        return Status::error(prefix + value.message());
      result = builder.constant(value.take());
    } else if (op.kind == OpKind::DimValue) {
      // Exactly, as an integer (a double would round past 2^53).
      const std::int64_t value = attributes.at("dim").getI64();
      const TensorType scalar{resultType.elementType, {}};
      DenseValue splat =
          isFloat(scalar.elementType)
              ? DenseValue::fromDoubles(scalar,
                                        std::vector<double>{double(value)})
              : DenseValue::fromInts(scalar, std::vector<std::int64_t>{value});
      splat.shape = resultType.shape;
      splat.splat = true;
      result = builder.constant(std::move(splat));
    } else {
      result = builder.op(op.kind, std::move(operands), std::move(attributes),
                          resultType);
    }
    if (!builder.status().ok())
      return Status::error(prefix + builder.status().message());
    newId[op.result()] = result;
  }
  for (const GraphOutput &output : graph.outputs)
    builder.output(graph.isValidId(output.tensor) ? newId[output.tensor]
                                                  : kInvalidTensor,
                   output.name);
  Expected<Graph> bound = builder.finish();
  if (!bound.ok())
    return Status::error(prefix + bound.message());
  for (std::size_t id = 0; id < graph.tensors.size(); ++id)
    if (newId[id] != kInvalidTensor)
      bound->tensors[std::size_t(newId[id])].name = graph.tensors[id].name;
  return bound;
}
