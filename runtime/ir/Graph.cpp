//===- Graph.cpp - The Graph IR: tensors, ops, attributes -----------------===//

#include "runtime/ir/Graph.h"

#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/Verifier.h"

#include <cassert>
#include <cstring>
#include <sstream>

using namespace fuse;

// Counted with checked arithmetic: INT64_MAX when the count or the bytes
// overflow, never a small wrapped number (a type validate() accepts holds at
// most 2^48 bytes).
bool TensorType::isStatic() const {
  for (std::int64_t dim : shape)
    if (dim < 0)
      return false;
  return true;
}

std::int64_t TensorType::numElements() const {
  assert(isStatic() && "the element count of a symbolic type: bind its dims");
  return checkedElementCount(shape).saturated();
}

std::int64_t TensorType::byteSize() const {
  assert(isStatic() && "the byte size of a symbolic type: bind its dims");
  return (checkedElementCount(shape) * fuse::byteSize(elementType)).saturated();
}

std::string TensorType::toString() const {
  std::string text = "tensor<";
  for (std::int64_t dim : shape)
    text += std::to_string(dim) + "x";
  text += elementTypeName(elementType);
  return text + ">";
}

std::string Graph::typeString(const TensorType &type) const {
  std::string text = "tensor<";
  for (std::int64_t dim : type.shape)
    text += (dim < 0 ? "?{" + dims.dimString(dim) + "}" : std::to_string(dim)) +
            "x";
  text += elementTypeName(type.elementType);
  return text + ">";
}

DenseValue DenseValue::makeSplat(TensorType type, double value) {
  DenseValue dense{type.elementType, std::move(type.shape), {}, true};
  dense.bytes.resize(fuse::byteSize(dense.elementType));
  storeDouble(dense.elementType, dense.bytes.data(), 0, value);
  return dense;
}

DenseValue DenseValue::fromDoubles(TensorType type,
                                   std::span<const double> values) {
  assert(std::int64_t(values.size()) == type.numElements());
  DenseValue dense{type.elementType, std::move(type.shape), {}, false};
  dense.bytes.resize(values.size() * fuse::byteSize(dense.elementType));
  for (std::size_t i = 0; i < values.size(); ++i)
    storeDouble(dense.elementType, dense.bytes.data(), std::int64_t(i),
                values[i]);
  return dense;
}

DenseValue DenseValue::fromInts(TensorType type,
                                std::span<const std::int64_t> values) {
  assert(std::int64_t(values.size()) == type.numElements());
  DenseValue dense{type.elementType, std::move(type.shape), {}, false};
  dense.bytes.resize(values.size() * fuse::byteSize(dense.elementType));
  for (std::size_t i = 0; i < values.size(); ++i)
    storeInt(dense.elementType, dense.bytes.data(), std::int64_t(i), values[i]);
  return dense;
}

std::string Attribute::toString() const {
  std::ostringstream stream;
  switch (kind()) {
  case AttrKind::I64:
    stream << getI64();
    break;
  case AttrKind::I64Array: {
    stream << "[";
    const auto &values = getI64Array();
    for (std::size_t i = 0; i < values.size(); ++i)
      stream << (i ? ", " : "") << values[i];
    stream << "]";
    break;
  }
  case AttrKind::F64:
    stream.precision(17);
    stream << getF64();
    break;
  case AttrKind::Bool:
    stream << (getFlag() ? "true" : "false");
    break;
  case AttrKind::Enum:
    stream << '"' << getEnumName() << '"';
    break;
  case AttrKind::Type:
    stream << elementTypeName(getElementType());
    break;
  case AttrKind::Dense: {
    const DenseValue &dense = getDense();
    stream << "dense<" << (dense.splat ? "splat " : "")
           << dense.type().toString() << ", " << dense.bytes.size()
           << " bytes>";
    break;
  }
  }
  return stream.str();
}

const Attribute *Op::findAttr(std::string_view name) const {
  auto it = attributes.find(name);
  return it == attributes.end() ? nullptr : &it->second;
}

bool Op::getFlag(std::string_view name) const {
  const Attribute *attribute = findAttr(name);
  return attribute && attribute->kind() == AttrKind::Bool &&
         attribute->getFlag();
}

TensorId Graph::addInput(TensorType type, std::string name) {
  const TensorId id = TensorId(tensors.size());
  tensors.push_back({std::move(type), std::move(name)});
  inputs.push_back(id);
  return id;
}

Expected<TensorId> Graph::addOp(OpKind kind, std::vector<TensorId> operands,
                                AttrMap attributes,
                                std::optional<TensorType> resultType) {
  const std::size_t index = ops.size();
  if (static_cast<std::size_t>(kind) >= allOpKinds().size())
    return Status::error("op #" + std::to_string(index) + ": unknown op kind " +
                         std::to_string(static_cast<int>(kind)));
  const std::string prefix = "op #" + std::to_string(index) + " (" +
                             std::string(mnemonic(kind)) + "): ";
  std::vector<TensorType> operandTypes;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (!isValidId(operands[i]))
      return Status::error(prefix + "operand " + std::to_string(i) +
                           " refers to no tensor: tensor " +
                           std::to_string(operands[i]) + " (the graph has " +
                           std::to_string(tensors.size()) + ")");
    operandTypes.push_back(typeOf(operands[i]));
  }
  Expected<TensorType> inferred =
      inferResultType(kind, operandTypes, attributes, resultType, &dims);
  if (!inferred.ok())
    return Status::error(prefix + inferred.message());
  const TensorId result = TensorId(tensors.size());
  tensors.push_back({inferred.take(), {}});
  ops.push_back({kind, std::move(operands), {result}, std::move(attributes)});
  return result;
}

Status Graph::markOutput(TensorId tensor, std::string name) {
  if (!isValidId(tensor))
    return Status::error("output #" + std::to_string(outputs.size()) +
                         " refers to no tensor: tensor " +
                         std::to_string(tensor) + " (the graph has " +
                         std::to_string(tensors.size()) + ")");
  outputs.push_back({tensor, std::move(name)});
  return Status::success();
}

bool Graph::isInput(TensorId id) const {
  for (TensorId input : inputs)
    if (input == id)
      return true;
  return false;
}

TensorId GraphBuilder::input(TensorType type, std::string name) {
  if (!firstError.ok())
    return kInvalidTensor;
  return built.addInput(std::move(type), std::move(name));
}

TensorId GraphBuilder::op(OpKind kind, std::vector<TensorId> operands,
                          AttrMap attributes,
                          std::optional<TensorType> resultType) {
  if (!firstError.ok())
    return kInvalidTensor;
  Expected<TensorId> result =
      built.addOp(kind, std::move(operands), std::move(attributes), resultType);
  if (!result.ok()) {
    firstError = result.status();
    return kInvalidTensor;
  }
  return *result;
}

std::int64_t GraphBuilder::dim(const DimExpr &expr) {
  Expected<std::int64_t> code = built.dims.intern(expr);
  if (!code.ok()) {
    if (firstError.ok())
      firstError = code.status();
    return 0;
  }
  return *code;
}

TensorId GraphBuilder::iota(TensorType type, std::int64_t axis) {
  return op(OpKind::Iota, {}, {{"axis", Attribute::i64(axis)}},
            std::move(type));
}

TensorId GraphBuilder::dimValue(TensorType type, std::int64_t dim) {
  return op(OpKind::DimValue, {}, {{"dim", Attribute::i64(dim)}},
            std::move(type));
}

void GraphBuilder::output(TensorId tensor, std::string name) {
  if (!firstError.ok())
    return;
  if (Status status = built.markOutput(tensor, std::move(name)); !status.ok())
    firstError = status;
}

namespace {

/// Flags set to false are left out: absent means false, and leaving them out
/// keeps one spelling per graph.
void setFlag(AttrMap &attributes, std::string_view name, bool value) {
  if (value)
    attributes.emplace(std::string(name), Attribute::flag(true));
}

} // namespace

TensorId GraphBuilder::div(TensorId a, TensorId b, bool isUnsigned) {
  AttrMap attributes;
  setFlag(attributes, "is_unsigned", isUnsigned);
  return op(OpKind::Div, {a, b}, std::move(attributes));
}

TensorId GraphBuilder::rem(TensorId a, TensorId b, bool fmod, bool isUnsigned) {
  AttrMap attributes;
  setFlag(attributes, "fmod", fmod);
  setFlag(attributes, "is_unsigned", isUnsigned);
  return op(OpKind::Rem, {a, b}, std::move(attributes));
}

TensorId GraphBuilder::compare(ComparePredicate predicate, TensorId a,
                               TensorId b) {
  AttrMap attributes;
  attributes.emplace("predicate", Attribute::enumName(std::string(
                                      comparePredicateName(predicate))));
  return op(OpKind::Compare, {a, b}, std::move(attributes));
}

TensorId GraphBuilder::select(TensorId cond, TensorId a, TensorId b) {
  return op(OpKind::Select, {cond, a, b});
}

TensorId GraphBuilder::cast(TensorId x, ElementType to, bool isUnsigned,
                            const CastOptions &options) {
  if (!firstError.ok() || !built.isValidId(x))
    return op(OpKind::Cast, {x});
  AttrMap attributes;
  setFlag(attributes, "is_unsigned", isUnsigned);
  setFlag(attributes, "saturate", options.saturate);
  if (options.roundMode != E8M0RoundMode::Up)
    attributes.emplace("round_mode", Attribute::enumName(std::string(
                                         roundModeName(options.roundMode))));
  return op(OpKind::Cast, {x}, std::move(attributes),
            TensorType{to, built.typeOf(x).shape});
}

TensorId GraphBuilder::constant(DenseValue value) {
  AttrMap attributes;
  attributes.emplace("value", Attribute::dense(std::move(value)));
  return op(OpKind::Constant, {}, std::move(attributes));
}

TensorId GraphBuilder::splat(TensorType type, double value) {
  return constant(DenseValue::makeSplat(std::move(type), value));
}

TensorId GraphBuilder::broadcast(TensorId x, std::vector<std::int64_t> shape,
                                 std::vector<std::int64_t> dims) {
  if (!firstError.ok() || !built.isValidId(x))
    return op(OpKind::Broadcast, {x});
  AttrMap attributes;
  attributes.emplace("dims", Attribute::i64Array(std::move(dims)));
  return op(OpKind::Broadcast, {x}, std::move(attributes),
            TensorType{built.typeOf(x).elementType, std::move(shape)});
}

TensorId GraphBuilder::broadcastTo(TensorId x,
                                   std::vector<std::int64_t> shape) {
  if (!firstError.ok() || !built.isValidId(x))
    return op(OpKind::Broadcast, {x});
  std::vector<std::int64_t> dims;
  const std::int64_t rank = built.typeOf(x).rank();
  for (std::int64_t i = 0; i < rank; ++i)
    dims.push_back(std::int64_t(shape.size()) - rank + i);
  return broadcast(x, std::move(shape), std::move(dims));
}

TensorId GraphBuilder::reshape(TensorId x, std::vector<std::int64_t> shape) {
  if (!firstError.ok() || !built.isValidId(x))
    return op(OpKind::Reshape, {x});
  return op(OpKind::Reshape, {x}, {},
            TensorType{built.typeOf(x).elementType, std::move(shape)});
}

TensorId GraphBuilder::transpose(TensorId x,
                                 std::vector<std::int64_t> permutation) {
  AttrMap attributes;
  attributes.emplace("permutation",
                     Attribute::i64Array(std::move(permutation)));
  return op(OpKind::Transpose, {x}, std::move(attributes));
}

AttrMap fuse::sliceAttributes(std::vector<std::int64_t> offsets,
                              std::vector<std::int64_t> sizes,
                              std::vector<std::int64_t> strides) {
  AttrMap attributes;
  attributes.emplace("offsets", Attribute::i64Array(std::move(offsets)));
  attributes.emplace("sizes", Attribute::i64Array(std::move(sizes)));
  attributes.emplace("strides", Attribute::i64Array(std::move(strides)));
  return attributes;
}

TensorId GraphBuilder::slice(TensorId x, std::vector<std::int64_t> offsets,
                             std::vector<std::int64_t> sizes,
                             std::vector<std::int64_t> strides) {
  return op(OpKind::Slice, {x},
            sliceAttributes(std::move(offsets), std::move(sizes),
                            std::move(strides)));
}

TensorId GraphBuilder::concat(std::vector<TensorId> xs, std::int64_t axis) {
  AttrMap attributes;
  attributes.emplace("axis", Attribute::i64(axis));
  return op(OpKind::Concat, std::move(xs), std::move(attributes));
}

TensorId GraphBuilder::reduce(ReduceKind kind, TensorId x,
                              std::vector<std::int64_t> dims, bool keepDims) {
  AttrMap attributes;
  attributes.emplace("kind",
                     Attribute::enumName(std::string(reduceKindName(kind))));
  attributes.emplace("dims", Attribute::i64Array(std::move(dims)));
  setFlag(attributes, "keep_dims", keepDims);
  return op(OpKind::Reduce, {x}, std::move(attributes));
}

TensorId GraphBuilder::pool(ReduceKind kind, TensorId x, PoolWindow window) {
  AttrMap attributes;
  attributes.emplace("kind",
                     Attribute::enumName(std::string(reduceKindName(kind))));
  attributes.emplace("window", Attribute::i64Array(std::move(window.window)));
  attributes.emplace("strides", Attribute::i64Array(std::move(window.strides)));
  attributes.emplace("dilations",
                     Attribute::i64Array(std::move(window.dilations)));
  attributes.emplace("pads", Attribute::i64Array(std::move(window.pads)));
  setFlag(attributes, "ceil_mode", window.ceilMode);
  setFlag(attributes, "count_include_pad", window.countIncludePad);
  return op(OpKind::Pool, {x}, std::move(attributes));
}

TensorId GraphBuilder::im2col(TensorId x, PoolWindow window) {
  AttrMap attributes;
  attributes.emplace("window", Attribute::i64Array(std::move(window.window)));
  attributes.emplace("strides", Attribute::i64Array(std::move(window.strides)));
  attributes.emplace("dilations",
                     Attribute::i64Array(std::move(window.dilations)));
  attributes.emplace("pads", Attribute::i64Array(std::move(window.pads)));
  return op(OpKind::Im2col, {x}, std::move(attributes));
}

namespace {

AttrMap argReduceAttributes(std::int64_t axis, bool keepDims,
                            bool selectLastIndex) {
  AttrMap attributes;
  attributes.emplace("axis", Attribute::i64(axis));
  setFlag(attributes, "keep_dims", keepDims);
  setFlag(attributes, "select_last_index", selectLastIndex);
  return attributes;
}

} // namespace

TensorId GraphBuilder::argmax(TensorId x, std::int64_t axis, bool keepDims,
                              bool selectLastIndex) {
  return op(OpKind::ArgMax, {x},
            argReduceAttributes(axis, keepDims, selectLastIndex));
}

TensorId GraphBuilder::argmin(TensorId x, std::int64_t axis, bool keepDims,
                              bool selectLastIndex) {
  return op(OpKind::ArgMin, {x},
            argReduceAttributes(axis, keepDims, selectLastIndex));
}

TensorId GraphBuilder::matmul(TensorId a, TensorId b, bool transposeA,
                              bool transposeB) {
  AttrMap attributes;
  setFlag(attributes, "transpose_a", transposeA);
  setFlag(attributes, "transpose_b", transposeB);
  return op(OpKind::Matmul, {a, b}, std::move(attributes));
}

TensorId GraphBuilder::gather(TensorId data, TensorId indices,
                              std::int64_t axis) {
  return op(OpKind::Gather, {data, indices}, {{"axis", Attribute::i64(axis)}});
}

TensorId GraphBuilder::scatter(TensorId data, TensorId indices,
                               TensorId updates, std::string_view reduction) {
  AttrMap attributes;
  if (reduction != "none")
    attributes.emplace("reduction",
                       Attribute::enumName(std::string(reduction)));
  return op(OpKind::Scatter, {data, indices, updates}, std::move(attributes));
}

TensorId GraphBuilder::conv(TensorId x, TensorId w, TensorId bias,
                            std::vector<std::int64_t> strides,
                            std::vector<std::int64_t> dilations,
                            std::vector<std::int64_t> pads,
                            std::int64_t group) {
  AttrMap attributes{{"strides", Attribute::i64Array(std::move(strides))},
                     {"dilations", Attribute::i64Array(std::move(dilations))},
                     {"pads", Attribute::i64Array(std::move(pads))},
                     {"group", Attribute::i64(group)}};
  std::vector<TensorId> operands{x, w};
  if (bias != kInvalidTensor)
    operands.push_back(bias);
  return op(OpKind::Conv, std::move(operands), std::move(attributes));
}

Expected<Graph> GraphBuilder::finish() {
  if (!firstError.ok())
    return firstError;
  return built;
}
