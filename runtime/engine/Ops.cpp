//===- Ops.cpp - The op API -----------------------------------------------===//

#include "runtime/engine/Recording.h"

namespace fuse::engine {

namespace {

void setFlag(AttrMap &attributes, const char *name, bool value) {
  if (value)
    attributes.emplace(name, Attribute::flag(true));
}

} // namespace

Tensor apply(OpKind kind, std::span<const Tensor> operands, AttrMap attributes,
             std::optional<TensorType> resultType) {
  return recordOp(kind, operands, std::move(attributes), std::move(resultType));
}

Tensor unary(OpKind kind, const Tensor &x) {
  return recordOp(kind, std::span(&x, 1));
}

Tensor binary(OpKind kind, const Tensor &a, const Tensor &b) {
  const Tensor operands[] = {a, b};
  return recordOp(kind, operands);
}

Tensor neg(const Tensor &x) { return unary(OpKind::Neg, x); }
Tensor abs(const Tensor &x) { return unary(OpKind::Abs, x); }
Tensor exp(const Tensor &x) { return unary(OpKind::Exp, x); }
Tensor log(const Tensor &x) { return unary(OpKind::Log, x); }
Tensor sqrt(const Tensor &x) { return unary(OpKind::Sqrt, x); }
Tensor rsqrt(const Tensor &x) { return unary(OpKind::Rsqrt, x); }
Tensor reciprocal(const Tensor &x) { return unary(OpKind::Reciprocal, x); }
Tensor tanh(const Tensor &x) { return unary(OpKind::Tanh, x); }
Tensor sigmoid(const Tensor &x) { return unary(OpKind::Sigmoid, x); }
Tensor erf(const Tensor &x) { return unary(OpKind::Erf, x); }

// The binary ops of the API, one line each.
#define FUSE_API_BINARY(name, Kind)                                            \
  Tensor name(const Tensor &a, const Tensor &b) {                              \
    return binary(OpKind::Kind, a, b);                                         \
  }
FUSE_API_BINARY(add, Add)
FUSE_API_BINARY(sub, Sub)
FUSE_API_BINARY(mul, Mul)
FUSE_API_BINARY(div, Div)
FUSE_API_BINARY(max, Max)
FUSE_API_BINARY(min, Min)
FUSE_API_BINARY(pow, Pow)
#undef FUSE_API_BINARY

Tensor operator+(const Tensor &a, const Tensor &b) { return add(a, b); }
Tensor operator-(const Tensor &a, const Tensor &b) { return sub(a, b); }
Tensor operator*(const Tensor &a, const Tensor &b) { return mul(a, b); }
Tensor operator/(const Tensor &a, const Tensor &b) { return div(a, b); }
Tensor operator-(const Tensor &x) { return neg(x); }

Tensor compare(ComparePredicate predicate, const Tensor &a, const Tensor &b) {
  AttrMap attributes;
  attributes.emplace("predicate", Attribute::enumName(std::string(
                                      comparePredicateName(predicate))));
  const Tensor operands[] = {a, b};
  return recordOp(OpKind::Compare, operands, std::move(attributes));
}

Tensor select(const Tensor &cond, const Tensor &a, const Tensor &b) {
  const Tensor operands[] = {cond, a, b};
  return recordOp(OpKind::Select, operands);
}

Tensor cast(const Tensor &x, ElementType to, bool isUnsigned) {
  AttrMap attributes;
  setFlag(attributes, "is_unsigned", isUnsigned);
  return recordOp(OpKind::Cast, std::span(&x, 1), std::move(attributes),
                  TensorType{to, x.shape()});
}

Tensor constant(Session &session, DenseValue value) {
  TensorType type = value.type();
  AttrMap attributes;
  attributes.emplace("value", Attribute::dense(std::move(value)));
  return record(TensorAccess::state(session), OpKind::Constant, {},
                std::move(attributes), std::move(type));
}

Tensor fullLike(const Tensor &x, double value) {
  const auto &node = TensorAccess::node(x);
  if (!node)
    return x;
  AttrMap attributes;
  attributes.emplace("value",
                     Attribute::dense(DenseValue::makeSplat(x.type(), value)));
  return record(node->session, OpKind::Constant, {}, std::move(attributes),
                x.type());
}

Tensor broadcast(const Tensor &x, std::vector<std::int64_t> shape,
                 std::vector<std::int64_t> dims) {
  AttrMap attributes;
  attributes.emplace("dims", Attribute::i64Array(std::move(dims)));
  return recordOp(OpKind::Broadcast, std::span(&x, 1), std::move(attributes),
                  TensorType{x.elementType(), std::move(shape)});
}

Tensor broadcastTo(const Tensor &x, std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(std::int64_t(shape.size()) - x.rank() + i);
  return broadcast(x, std::move(shape), std::move(dims));
}

Tensor reshape(const Tensor &x, std::vector<std::int64_t> shape) {
  return recordOp(OpKind::Reshape, std::span(&x, 1), {},
                  TensorType{x.elementType(), std::move(shape)});
}

Tensor transpose(const Tensor &x, std::vector<std::int64_t> permutation) {
  AttrMap attributes;
  attributes.emplace("permutation",
                     Attribute::i64Array(std::move(permutation)));
  return recordOp(OpKind::Transpose, std::span(&x, 1), std::move(attributes));
}

Tensor slice(const Tensor &x, std::vector<std::int64_t> offsets,
             std::vector<std::int64_t> sizes,
             std::vector<std::int64_t> strides) {
  return recordOp(OpKind::Slice, std::span(&x, 1),
                  sliceAttributes(std::move(offsets), std::move(sizes),
                                  std::move(strides)));
}

Tensor concat(std::span<const Tensor> xs, std::int64_t axis) {
  AttrMap attributes;
  attributes.emplace("axis", Attribute::i64(axis));
  return recordOp(OpKind::Concat, xs, std::move(attributes));
}

Tensor reduce(ReduceKind kind, const Tensor &x, std::vector<std::int64_t> dims,
              bool keepDims) {
  AttrMap attributes;
  attributes.emplace("kind",
                     Attribute::enumName(std::string(reduceKindName(kind))));
  attributes.emplace("dims", Attribute::i64Array(std::move(dims)));
  setFlag(attributes, "keep_dims", keepDims);
  return recordOp(OpKind::Reduce, std::span(&x, 1), std::move(attributes));
}

static Tensor argReduce(OpKind kind, const Tensor &x, std::int64_t axis,
                        bool keepDims) {
  AttrMap attributes;
  attributes.emplace("axis", Attribute::i64(axis));
  setFlag(attributes, "keep_dims", keepDims);
  return recordOp(kind, std::span(&x, 1), std::move(attributes));
}

Tensor argmax(const Tensor &x, std::int64_t axis, bool keepDims) {
  return argReduce(OpKind::ArgMax, x, axis, keepDims);
}

Tensor argmin(const Tensor &x, std::int64_t axis, bool keepDims) {
  return argReduce(OpKind::ArgMin, x, axis, keepDims);
}

Tensor matmul(const Tensor &a, const Tensor &b, bool transposeA,
              bool transposeB) {
  AttrMap attributes;
  setFlag(attributes, "transpose_a", transposeA);
  setFlag(attributes, "transpose_b", transposeB);
  const Tensor operands[] = {a, b};
  return recordOp(OpKind::Matmul, operands, std::move(attributes));
}

} // namespace fuse::engine
