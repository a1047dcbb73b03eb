//===- Interpreter.cpp - Reference evaluation of a Graph ------------------===//

#include "runtime/ir/Interpreter.h"

#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/Verifier.h"
#include "runtime/ir/WindowShape.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <sys/mman.h>
#include <type_traits>
#include <unistd.h>

using namespace fuse;

HostTensorData::HostTensorData(TensorType type)
    : type(std::move(type)), bytes(std::size_t(this->type.byteSize()), 0) {}

/// Maps the pages of a new buffer of `size` bytes at `data` ahead of a
/// first write of all of it: one call where the write would fault once per
/// page (a model's weights, about a third less time touching new memory).
static void populateForWrite(std::uint8_t *data, std::size_t size) {
#ifdef MADV_POPULATE_WRITE
  constexpr std::size_t kMinBytes = 1 << 20;
  if (size < kMinBytes)
    return;
  const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin =
      (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
  const std::uintptr_t end =
      (reinterpret_cast<std::uintptr_t>(data) + size) / page * page;
  // Advice only: a kernel without it (before 5.14) answers EINVAL.
  if (end > begin)
    (void)::madvise(reinterpret_cast<void *>(begin), end - begin,
                    MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)size;
#endif
}

HostTensorData::HostTensorData(TensorType type,
                               std::span<const std::uint8_t> bytes)
    : type(std::move(type)) {
  this->bytes.reserve(bytes.size());
  populateForWrite(this->bytes.data(), bytes.size());
  this->bytes.assign(bytes.begin(), bytes.end());
  assert(std::int64_t(this->bytes.size()) == this->type.byteSize() &&
         "the bytes of another type");
}

HostTensorData HostTensorData::fromDoubles(TensorType type,
                                           std::span<const double> values) {
  HostTensorData data(std::move(type));
  for (std::size_t i = 0; i < values.size(); ++i)
    storeDouble(data.type.elementType, data.bytes.data(), std::int64_t(i),
                values[i]);
  return data;
}

HostTensorData HostTensorData::fromInts(TensorType type,
                                        std::span<const std::int64_t> values) {
  HostTensorData data(std::move(type));
  for (std::size_t i = 0; i < values.size(); ++i)
    storeInt(data.type.elementType, data.bytes.data(), std::int64_t(i),
             values[i]);
  return data;
}

std::vector<double> HostTensorData::toDoubles() const {
  std::vector<double> values(std::size_t(type.numElements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = loadDouble(type.elementType, bytes.data(), std::int64_t(i));
  return values;
}

std::vector<std::int64_t> HostTensorData::toInts() const {
  std::vector<std::int64_t> values(std::size_t(type.numElements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = loadInt(type.elementType, bytes.data(), std::int64_t(i));
  return values;
}

namespace {

using Shape = std::vector<std::int64_t>;

/// The product of some of a validated tensor's dims (CheckedInt's count): 0
/// when one is 0, whatever the others; else at most the tensor's element
/// count, which fits (validation bounds its bytes below 2^48). A raw product
/// overflowed on an empty [0, 2^40, 2^40].
std::int64_t dimsProduct(std::span<const std::int64_t> dims) {
  return checkedElementCount(dims).saturated();
}

/// Row-major strides of a shape (those of an empty tensor index nothing).
Shape stridesOf(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = dimsProduct(std::span(shape).subspan(i));
  return strides;
}

/// Calls fn(multiIndex, linearIndex) for every element in row-major order.
template <typename Fn> void forEachIndex(const Shape &shape, Fn fn) {
  const std::int64_t count = dimsProduct(shape);
  Shape index(shape.size(), 0);
  for (std::int64_t linear = 0; linear < count; ++linear) {
    fn(index, linear);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Sign-extends the low `bits` bits.
std::int64_t wrapSigned(std::uint64_t value, unsigned bits) {
  if (bits >= 64)
    return std::int64_t(value);
  const unsigned shift = 64 - bits;
  return std::int64_t(value << shift) >> shift;
}

double roundHalfToEven(double x) {
  const double below = std::floor(x);
  const double fraction = x - below;
  if (fraction < 0.5)
    return below;
  if (fraction > 0.5)
    return below + 1;
  return std::fmod(below, 2.0) == 0 ? below : below + 1;
}

double evalFloatUnary(OpKind kind, double x) {
  switch (kind) {
  case OpKind::Neg:
    return -x;
  case OpKind::Abs:
    return std::fabs(x);
  case OpKind::Exp:
    return std::exp(x);
  case OpKind::Log:
    return std::log(x);
  case OpKind::Sqrt:
    return std::sqrt(x);
  case OpKind::Rsqrt:
    return 1.0 / std::sqrt(x);
  case OpKind::Reciprocal:
    return 1.0 / x;
  case OpKind::Tanh:
    return std::tanh(x);
  case OpKind::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case OpKind::Erf:
    return std::erf(x);
  case OpKind::Sin:
    return std::sin(x);
  case OpKind::Cos:
    return std::cos(x);
  case OpKind::Tan:
    return std::tan(x);
  case OpKind::Asin:
    return std::asin(x);
  case OpKind::Acos:
    return std::acos(x);
  case OpKind::Atan:
    return std::atan(x);
  case OpKind::Sinh:
    return std::sinh(x);
  case OpKind::Cosh:
    return std::cosh(x);
  case OpKind::Asinh:
    return std::asinh(x);
  case OpKind::Acosh:
    return std::acosh(x);
  case OpKind::Atanh:
    return std::atanh(x);
  case OpKind::Floor:
    return std::floor(x);
  case OpKind::Ceil:
    return std::ceil(x);
  case OpKind::Round:
    return roundHalfToEven(x);
  case OpKind::Sign:
    return std::isnan(x) ? x : double((x > 0) - (x < 0));
  case OpKind::IsInf:
    return std::isinf(x);
  case OpKind::IsNaN:
    return std::isnan(x);
  default:
    return std::numeric_limits<double>::quiet_NaN();
  }
}

/// Integer unary ops on the loaded value (sign-extended, or zero-extended
/// for the ui types, which never read as negative); the store wraps.
std::int64_t evalIntUnary(OpKind kind, std::int64_t x, ElementType type) {
  const bool isUnsigned = isUnsignedInteger(type);
  switch (kind) {
  case OpKind::Neg:
    return std::int64_t(std::uint64_t(0) - std::uint64_t(x));
  case OpKind::Abs:
    if (isUnsigned)
      return x;
    return x < 0 ? std::int64_t(std::uint64_t(0) - std::uint64_t(x)) : x;
  case OpKind::Sign:
    if (isUnsigned)
      return x != 0;
    return (x > 0) - (x < 0);
  case OpKind::Not:
    return type == ElementType::I1 ? !x : ~x;
  default:
    return 0;
  }
}

double floorMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  if (r == 0)
    r = std::copysign(0.0, b);
  return r;
}

double evalFloatBinary(const Op &op, double a, double b) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  switch (op.kind) {
  case OpKind::Add:
    return a + b;
  case OpKind::Sub:
    return a - b;
  case OpKind::Mul:
    return a * b;
  case OpKind::Div:
    return a / b;
  case OpKind::Pow:
    return std::pow(a, b);
  case OpKind::Max:
    return std::isnan(a) || std::isnan(b) ? nan : std::max(a, b);
  case OpKind::Min:
    return std::isnan(a) || std::isnan(b) ? nan : std::min(a, b);
  case OpKind::Rem:
    return op.getFlag("fmod") ? std::fmod(a, b) : floorMod(a, b);
  default:
    return nan;
  }
}

/// base^exponent modulo 2^64, by squaring.
std::uint64_t wrappingPow(std::uint64_t base, std::uint64_t exponent) {
  std::uint64_t result = 1;
  for (; exponent; exponent >>= 1) {
    if (exponent & 1)
      result *= base;
    base *= base;
  }
  return result;
}

std::uint64_t intPow(std::int64_t base, std::int64_t exponent) {
  if (exponent < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return exponent % 2 == 0 ? 1 : std::uint64_t(-1);
    return 0;
  }
  return wrappingPow(std::uint64_t(base), std::uint64_t(exponent));
}

/// Integer binary ops. `a`, `b` are the loaded values (sign-extended, or
/// zero-extended for the ui types), `ua`, `ub` the zero-extended readings of
/// the same bits; the result wraps on store. On the ui types every op reads
/// unsigned, as div and rem do on the other types with `is_unsigned`.
std::int64_t evalIntBinary(const Op &op, ElementType type, std::int64_t a,
                           std::int64_t b, std::uint64_t ua, std::uint64_t ub) {
  const bool unsignedType = isUnsignedInteger(type);
  const bool isUnsigned = unsignedType || op.getFlag("is_unsigned");
  switch (op.kind) {
  case OpKind::Add:
    return std::int64_t(std::uint64_t(a) + std::uint64_t(b));
  case OpKind::Sub:
    return std::int64_t(std::uint64_t(a) - std::uint64_t(b));
  case OpKind::Mul:
    return std::int64_t(std::uint64_t(a) * std::uint64_t(b));
  case OpKind::Div:
    if (isUnsigned)
      return ub == 0 ? 0 : std::int64_t(ua / ub);
    if (b == 0)
      return 0;
    // INT_MIN / -1 overflows in C++; the wrapped negation is the answer.
    if (b == -1)
      return std::int64_t(std::uint64_t(0) - std::uint64_t(a));
    return a / b;
  case OpKind::Rem: {
    if (isUnsigned)
      return ub == 0 ? 0 : std::int64_t(ua % ub);
    if (b == 0 || b == -1)
      return 0;
    std::int64_t r = a % b;
    if (!op.getFlag("fmod") && r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  }
  case OpKind::Pow:
    if (unsignedType)
      return std::int64_t(wrappingPow(ua, ub));
    return std::int64_t(intPow(a, b));
  case OpKind::Max:
    if (unsignedType)
      return std::int64_t(std::max(ua, ub));
    return std::max(a, b);
  case OpKind::Min:
    if (unsignedType)
      return std::int64_t(std::min(ua, ub));
    return std::min(a, b);
  case OpKind::And:
    return a & b;
  case OpKind::Or:
    return a | b;
  case OpKind::Xor:
    return a ^ b;
  default:
    return 0;
  }
}

/// The unsigned predicates compare as their signed ones: the caller passes
/// the operands as unsigned values (a valid graph has no unsigned predicate
/// on floats).
template <typename T> bool evalCompare(ComparePredicate predicate, T a, T b) {
  switch (predicate) {
  case ComparePredicate::Eq:
    return a == b;
  case ComparePredicate::Ne:
    return a != b;
  case ComparePredicate::Lt:
  case ComparePredicate::Ult:
    return a < b;
  case ComparePredicate::Le:
  case ComparePredicate::Ule:
    return a <= b;
  case ComparePredicate::Gt:
  case ComparePredicate::Ugt:
    return a > b;
  case ComparePredicate::Ge:
  case ComparePredicate::Uge:
    return a >= b;
  }
  return false;
}

/// One op's buffers: operands and result.
struct OpBuffers {
  std::vector<HostTensor> operands;
  HostTensor result;
};

void copyElement(const HostTensor &to, std::int64_t toIndex,
                 const HostTensor &from, std::int64_t fromIndex) {
  const std::int64_t size = byteSize(to.type.elementType);
  std::memcpy(static_cast<char *>(to.data) + toIndex * size,
              static_cast<const char *>(from.data) + fromIndex * size,
              std::size_t(size));
}

void evalUnary(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const ElementType type = x.type.elementType;
  const std::int64_t count = out.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    if (isFloat(type))
      storeDouble(out.type.elementType, out.data, i,
                  evalFloatUnary(op.kind, loadDouble(type, x.data, i)));
    else
      storeInt(out.type.elementType, out.data, i,
               evalIntUnary(op.kind, loadInt(type, x.data, i), type));
  }
}

void evalBinary(const Op &op, const OpBuffers &buffers) {
  const HostTensor &a = buffers.operands[0], &b = buffers.operands[1],
                   &out = buffers.result;
  const ElementType type = a.type.elementType;
  const std::int64_t count = out.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    if (isFloat(type)) {
      storeDouble(type, out.data, i,
                  evalFloatBinary(op, loadDouble(type, a.data, i),
                                  loadDouble(type, b.data, i)));
      continue;
    }
    storeInt(type, out.data, i,
             evalIntBinary(
                 op, type, loadInt(type, a.data, i), loadInt(type, b.data, i),
                 loadUnsigned(type, a.data, i), loadUnsigned(type, b.data, i)));
  }
}

void evalCompareOp(const Op &op, const OpBuffers &buffers) {
  const HostTensor &a = buffers.operands[0], &b = buffers.operands[1],
                   &out = buffers.result;
  const ElementType type = a.type.elementType;
  const ComparePredicate predicate =
      *parseComparePredicate(op.findAttr("predicate")->getEnumName());
  // The ui types compare unsigned under every predicate.
  const bool unsignedPredicate =
      predicate >= ComparePredicate::Ult || isUnsignedInteger(type);
  const std::int64_t count = out.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    bool value;
    if (isFloat(type))
      value = evalCompare(predicate, loadDouble(type, a.data, i),
                          loadDouble(type, b.data, i));
    else if (unsignedPredicate)
      value = evalCompare(predicate, loadUnsigned(type, a.data, i),
                          loadUnsigned(type, b.data, i));
    else
      value = evalCompare(predicate, loadInt(type, a.data, i),
                          loadInt(type, b.data, i));
    storeInt(ElementType::I1, out.data, i, value);
  }
}

void evalSelect(const OpBuffers &buffers) {
  const HostTensor &cond = buffers.operands[0], &out = buffers.result;
  const std::int64_t count = out.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    const bool pick = loadInt(ElementType::I1, cond.data, i) != 0;
    copyElement(out, i, buffers.operands[pick ? 1 : 2], i);
  }
}

void evalCast(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const ElementType from = x.type.elementType, to = out.type.elementType;
  // A ui source always reads unsigned (zero-extends, converts to floats as
  // unsigned); `is_unsigned` asks the same of a signless one.
  const bool isUnsigned = op.getFlag("is_unsigned") || isUnsignedInteger(from);
  CastOptions options;
  options.saturate = op.getFlag("saturate");
  if (const Attribute *mode = op.findAttr("round_mode"))
    options.roundMode = *parseRoundMode(mode->getEnumName());
  const std::int64_t count = out.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    if (isFloat(from))
      storeDouble(to, out.data, i, loadDouble(from, x.data, i), options);
    else if (isUnsigned)
      storeUnsigned(to, out.data, i, loadUnsigned(from, x.data, i), options);
    else
      storeInt(to, out.data, i, loadInt(from, x.data, i), options);
  }
}

void evalConstant(const Op &op, const OpBuffers &buffers) {
  const DenseValue &value = op.findAttr("value")->getDense();
  const HostTensor &out = buffers.result;
  if (!value.splat) {
    if (!value.bytes.empty())
      std::memcpy(out.data, value.bytes.data(), value.bytes.size());
    return;
  }
  const HostTensor source{value.type(),
                          const_cast<std::uint8_t *>(value.bytes.data())};
  const std::int64_t count = out.type.numElements();
  for (std::int64_t i = 0; i < count; ++i)
    copyElement(out, i, source, 0);
}

/// Each element of `out` from the element of `x` at the sum of its index
/// times `strides` (one per dim of `out`; 0 where `x` is broadcast).
void copyStrided(const HostTensor &x, const HostTensor &out,
                 const Shape &strides) {
  forEachIndex(out.type.shape, [&](const Shape &index, std::int64_t linear) {
    std::int64_t from = 0;
    for (std::size_t d = 0; d < strides.size(); ++d)
      from += index[d] * strides[d];
    copyElement(out, linear, x, from);
  });
}

void evalBroadcast(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const auto &dims = op.findAttr("dims")->getI64Array();
  const Shape xStrides = stridesOf(x.type.shape);
  Shape strides(out.type.shape.size(), 0);
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (x.type.shape[i] != 1)
      strides[dims[i]] += xStrides[i];
  copyStrided(x, out, strides);
}

void evalTranspose(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const auto &permutation = op.findAttr("permutation")->getI64Array();
  const Shape xStrides = stridesOf(x.type.shape);
  Shape strides;
  for (std::int64_t axis : permutation)
    strides.push_back(xStrides[axis]);
  copyStrided(x, out, strides);
}

void evalSlice(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const auto &offsets = op.findAttr("offsets")->getI64Array();
  const auto &strides = op.findAttr("strides")->getI64Array();
  const Shape xStrides = stridesOf(x.type.shape);
  forEachIndex(out.type.shape, [&](const Shape &index, std::int64_t linear) {
    std::int64_t from = 0;
    for (std::size_t d = 0; d < index.size(); ++d)
      from += (offsets[d] + index[d] * strides[d]) * xStrides[d];
    copyElement(out, linear, x, from);
  });
}

void evalConcat(const Op &op, const OpBuffers &buffers) {
  const HostTensor &out = buffers.result;
  const std::size_t axis = std::size_t(op.findAttr("axis")->getI64());
  forEachIndex(out.type.shape, [&](const Shape &index, std::int64_t linear) {
    std::int64_t position = index[axis];
    for (const HostTensor &x : buffers.operands) {
      if (position >= x.type.shape[axis]) {
        position -= x.type.shape[axis];
        continue;
      }
      const Shape xStrides = stridesOf(x.type.shape);
      std::int64_t from = 0;
      for (std::size_t d = 0; d < index.size(); ++d)
        from += (d == axis ? position : index[d]) * xStrides[d];
      copyElement(out, linear, x, from);
      return;
    }
  });
}

/// The result's linear index for an operand index: reduced dims dropped
/// (keep_dims only adds dims of size 1, which do not change it).
template <typename Fn>
void forEachReduced(const Shape &shape, const std::vector<bool> &reduced,
                    Fn fn) {
  Shape keptShape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d])
      keptShape.push_back(shape[d]);
  const Shape keptStrides = stridesOf(keptShape);
  forEachIndex(shape, [&](const Shape &index, std::int64_t linear) {
    std::int64_t target = 0;
    for (std::size_t d = 0, k = 0; d < shape.size(); ++d)
      if (!reduced[d])
        target += index[d] * keptStrides[k++];
    fn(linear, target);
  });
}

/// One element `v` into the accumulator `a` of a reduction of `kind`
/// (`first`: `a` holds no element yet). Max and min take `v` where
/// `takes(a, v, isMax)`.
template <class T, class Takes>
void accumulate(ReduceKind kind, T &a, T v, bool first, Takes takes) {
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    a += v;
    break;
  case ReduceKind::Prod:
    a *= v;
    break;
  case ReduceKind::Max:
  case ReduceKind::Min:
    if (first || takes(a, v, kind == ReduceKind::Max))
      a = v;
    break;
  }
}

void evalReduce(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const ElementType type = x.type.elementType;
  const ReduceKind kind = *parseReduceKind(op.findAttr("kind")->getEnumName());
  std::vector<bool> reduced(x.type.shape.size(), false);
  Shape reducedDims;
  for (std::int64_t d : op.findAttr("dims")->getI64Array()) {
    reduced[d] = true;
    reducedDims.push_back(x.type.shape[d]);
  }
  const std::int64_t reducedCount = dimsProduct(reducedDims);
  const std::size_t count = std::size_t(out.type.numElements());
  std::vector<bool> seen(count, false);
  if (isFloat(type)) {
    const double init = kind == ReduceKind::Prod ? 1.0 : 0.0;
    std::vector<double> acc(count, init);
    forEachReduced(
        x.type.shape, reduced, [&](std::int64_t from, std::int64_t to) {
          // A NaN is taken, and then kept.
          accumulate(kind, acc[to], loadDouble(type, x.data, from), !seen[to],
                     [](double a, double v, bool isMax) {
                       return std::isnan(v) ||
                              (!std::isnan(a) && (isMax ? a < v : v < a));
                     });
          seen[to] = true;
        });
    for (std::size_t i = 0; i < count; ++i)
      storeDouble(type, out.data, std::int64_t(i),
                  kind == ReduceKind::Mean ? acc[i] / double(reducedCount)
                                           : acc[i]);
    return;
  }
  const unsigned bits = integerBitWidth(type);
  const bool isUnsigned = isUnsignedInteger(type);
  // Max and min order the values as their type reads them: a ui type's
  // zero-extended bits unsigned, the others' sign-extended bits signed.
  auto less = [&](std::uint64_t p, std::uint64_t q) {
    return isUnsigned ? p < q : std::int64_t(p) < std::int64_t(q);
  };
  std::vector<std::uint64_t> acc(count, kind == ReduceKind::Prod ? 1 : 0);
  forEachReduced(
      x.type.shape, reduced, [&](std::int64_t from, std::int64_t to) {
        accumulate(kind, acc[to], std::uint64_t(loadInt(type, x.data, from)),
                   !seen[to],
                   [&](std::uint64_t a, std::uint64_t v, bool isMax) {
                     return isMax ? less(a, v) : less(v, a);
                   });
        seen[to] = true;
      });
  for (std::size_t i = 0; i < count; ++i) {
    if (isUnsigned) {
      // The wrapped sum, zero-extended, divided unsigned.
      std::uint64_t value =
          bits >= 64 ? acc[i] : acc[i] & ((std::uint64_t(1) << bits) - 1);
      if (kind == ReduceKind::Mean)
        value = reducedCount == 0 ? 0 : value / std::uint64_t(reducedCount);
      storeUnsigned(type, out.data, std::int64_t(i), value);
      continue;
    }
    std::int64_t value = wrapSigned(acc[i], bits);
    if (kind == ReduceKind::Mean)
      value = reducedCount == 0 ? 0 : value / reducedCount;
    storeInt(type, out.data, std::int64_t(i), value);
  }
}

/// The index of the winning element along the axis; NaN wins over every
/// number, as in NumPy.
template <typename T>
std::int64_t argReduceLine(std::span<const T> line, bool isMax,
                           bool selectLast) {
  auto isNaN = [](T v) {
    if constexpr (std::is_floating_point_v<T>)
      return std::isnan(v);
    else
      return false;
  };
  std::int64_t best = 0;
  for (std::size_t k = 1; k < line.size(); ++k) {
    const T x = line[k], current = line[best];
    bool take;
    if (isNaN(current))
      take = selectLast && isNaN(x);
    else if (isNaN(x))
      take = true;
    else
      take =
          (isMax ? x > current : x < current) || (selectLast && x == current);
    if (take)
      best = std::int64_t(k);
  }
  return best;
}

void evalArgReduce(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const ElementType type = x.type.elementType;
  const std::size_t axis = std::size_t(op.findAttr("axis")->getI64());
  const bool isMax = op.kind == OpKind::ArgMax;
  const bool selectLast = op.getFlag("select_last_index");
  const std::span<const std::int64_t> xs(x.type.shape);
  const std::int64_t outer = dimsProduct(xs.first(axis)),
                     inner = dimsProduct(xs.subspan(axis + 1));
  const std::int64_t length = x.type.shape[axis];
  const bool isUnsigned = isUnsignedInteger(type);
  std::vector<double> floats(static_cast<std::size_t>(length));
  std::vector<std::int64_t> ints(static_cast<std::size_t>(length));
  std::vector<std::uint64_t> uints(static_cast<std::size_t>(length));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      for (std::int64_t k = 0; k < length; ++k) {
        const std::int64_t from = (o * length + k) * inner + i;
        if (isFloat(type))
          floats[k] = loadDouble(type, x.data, from);
        else if (isUnsigned)
          uints[k] = loadUnsigned(type, x.data, from);
        else
          ints[k] = loadInt(type, x.data, from);
      }
      const std::int64_t index =
          isFloat(type) ? argReduceLine<double>(floats, isMax, selectLast)
          : isUnsigned  ? argReduceLine<std::uint64_t>(uints, isMax, selectLast)
                        : argReduceLine<std::int64_t>(ints, isMax, selectLast);
      storeInt(ElementType::I64, out.data, o * inner + i, index);
    }
}

void evalMatmul(const Op &op, const OpBuffers &buffers) {
  const HostTensor &a = buffers.operands[0], &b = buffers.operands[1],
                   &out = buffers.result;
  const ElementType type = a.type.elementType;
  const bool ta = op.getFlag("transpose_a"), tb = op.getFlag("transpose_b");
  const Shape &as = a.type.shape, &bs = b.type.shape, &os = out.type.shape;
  const std::int64_t m = os[os.size() - 2], n = os[os.size() - 1];
  const std::int64_t k = as[as.size() - (ta ? 2 : 1)];
  const std::int64_t batches = dimsProduct(std::span(os).first(os.size() - 2));
  const bool sharedA = as.size() == 2, sharedB = bs.size() == 2;
  for (std::int64_t batch = 0; batch < batches; ++batch) {
    const std::int64_t aBase = sharedA ? 0 : batch * m * k;
    const std::int64_t bBase = sharedB ? 0 : batch * k * n;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double floatSum = 0;
        std::uint64_t intSum = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          const std::int64_t ai = aBase + (ta ? p * m + i : i * k + p);
          const std::int64_t bi = bBase + (tb ? j * k + p : p * n + j);
          if (isFloat(type))
            floatSum +=
                loadDouble(type, a.data, ai) * loadDouble(type, b.data, bi);
          else
            intSum += std::uint64_t(loadInt(type, a.data, ai)) *
                      std::uint64_t(loadInt(type, b.data, bi));
        }
        const std::int64_t to = (batch * m + i) * n + j;
        if (isFloat(type))
          storeDouble(type, out.data, to, floatSum);
        else
          storeInt(type, out.data, to, std::int64_t(intSum));
      }
  }
}

/// Graph.h's formula, one output element at a time; a second spatial dim
/// of size 1 stands in for the missing one of a 1-D convolution.
void evalConv(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &w = buffers.operands[1],
                   &out = buffers.result;
  const ElementType type = x.type.elementType;
  const bool hasBias = buffers.operands.size() == 3;
  const std::size_t spatial = x.type.shape.size() - 2;
  const auto &strideList = op.findAttr("strides")->getI64Array();
  const auto &dilationList = op.findAttr("dilations")->getI64Array();
  const auto &padList = op.findAttr("pads")->getI64Array();
  const std::int64_t group = op.findAttr("group")->getI64();
  auto dim2 = [&](const Shape &shape, std::size_t d) {
    return d < spatial ? shape[2 + d] : std::int64_t(1);
  };
  auto attr2 = [&](const std::vector<std::int64_t> &list, std::size_t d,
                   std::int64_t missing) {
    return d < spatial ? list[d] : missing;
  };
  const Shape &xs = x.type.shape, &ws = w.type.shape, &os = out.type.shape;
  const std::int64_t batch = xs[0], channels = xs[1], filters = ws[0];
  const std::int64_t perGroup = channels / group,
                     filtersPerGroup = filters / group;
  const std::int64_t ih = dim2(xs, 0), iw = dim2(xs, 1);
  const std::int64_t kh = dim2(ws, 0), kw = dim2(ws, 1);
  const std::int64_t oh = dim2(os, 0), ow = dim2(os, 1);
  const std::int64_t sh = attr2(strideList, 0, 1), sw = attr2(strideList, 1, 1);
  const std::int64_t dh = attr2(dilationList, 0, 1),
                     dw = attr2(dilationList, 1, 1);
  const std::int64_t ph = attr2(padList, 0, 0),
                     pw = spatial > 1 ? padList[1] : 0;
  for (std::int64_t n = 0; n < batch; ++n)
    for (std::int64_t m = 0; m < filters; ++m) {
      const std::int64_t g = m / filtersPerGroup;
      const double bias =
          hasBias ? loadDouble(type, buffers.operands[2].data, m) : 0.0;
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t z = 0; z < ow; ++z) {
          double sum = 0;
          for (std::int64_t c = 0; c < perGroup; ++c)
            for (std::int64_t i = 0; i < kh; ++i) {
              const std::int64_t row = y * sh + i * dh - ph;
              if (row < 0 || row >= ih)
                continue;
              for (std::int64_t j = 0; j < kw; ++j) {
                const std::int64_t col = z * sw + j * dw - pw;
                if (col < 0 || col >= iw)
                  continue;
                const std::int64_t xi =
                    ((n * channels + g * perGroup + c) * ih + row) * iw + col;
                const std::int64_t wi = ((m * perGroup + c) * kh + i) * kw + j;
                sum +=
                    loadDouble(type, x.data, xi) * loadDouble(type, w.data, wi);
              }
            }
          storeDouble(type, out.data, ((n * filters + m) * oh + y) * ow + z,
                      sum + bias);
        }
    }
}

/// The column matrix (Ops.def's im2col): element (l, k, p) copies the
/// operand's element at p * stride - begin + k * dilation per window dim, or
/// is zero in the padding.
void evalIm2col(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const auto &window = op.findAttr("window")->getI64Array();
  const auto &strides = op.findAttr("strides")->getI64Array();
  const auto &dilations = op.findAttr("dilations")->getI64Array();
  const auto &pads = op.findAttr("pads")->getI64Array();
  const std::size_t n = window.size(), first = x.type.shape.size() - n;
  const Shape xStrides = stridesOf(x.type.shape);
  Shape outSizes(n);
  for (std::size_t d = 0; d < n; ++d)
    outSizes[d] =
        poolOutputSize(x.type.shape[first + d], window[d], strides[d],
                       dilations[d], pads[d], pads[n + d], /*ceilMode=*/false);
  const std::int64_t size = byteSize(out.type.elementType);
  forEachIndex(out.type.shape, [&](const Shape &index, std::int64_t linear) {
    // index = [leading..., k, p]: decode the window offset and the position.
    std::int64_t from = 0;
    for (std::size_t d = 0; d < first; ++d)
      from += index[d] * xStrides[d];
    std::int64_t k = index[first], p = index[first + 1];
    bool inside = true;
    for (std::size_t d = n; d-- > 0;) {
      const std::int64_t offset = k % window[d], position = p % outSizes[d];
      k /= window[d];
      p /= outSizes[d];
      const std::int64_t at =
          position * strides[d] - pads[d] + offset * dilations[d];
      inside = inside && at >= 0 && at < x.type.shape[first + d];
      from += at * xStrides[first + d];
    }
    if (inside)
      copyElement(out, linear, x, from);
    else
      std::memset(static_cast<char *>(out.data) + linear * size, 0,
                  std::size_t(size));
  });
}

/// A window reduction (Ops.def's pool): per output element, the window's
/// positions inside the input are combined; max copies the winner's bits
/// (NaN wins, the first of equals; an empty window gives the type's lowest
/// value), mean divides the f64 sum by the positions counted.
void evalPool(const Op &op, const OpBuffers &buffers) {
  const HostTensor &x = buffers.operands[0], &out = buffers.result;
  const ElementType type = x.type.elementType;
  const bool isMax =
      *parseReduceKind(op.findAttr("kind")->getEnumName()) == ReduceKind::Max;
  const auto &window = op.findAttr("window")->getI64Array();
  const auto &strides = op.findAttr("strides")->getI64Array();
  const auto &dilations = op.findAttr("dilations")->getI64Array();
  const auto &pads = op.findAttr("pads")->getI64Array();
  const Attribute *includePad = op.findAttr("count_include_pad");
  const bool countPad = includePad && includePad->getFlag();
  const std::size_t n = window.size(), rank = x.type.shape.size();
  const std::size_t first = rank - n;
  const Shape xStrides = stridesOf(x.type.shape);
  const bool isUnsigned = isUnsignedInteger(type);
  forEachIndex(out.type.shape, [&](const Shape &index, std::int64_t linear) {
    std::int64_t base = 0;
    for (std::size_t d = 0; d < first; ++d)
      base += index[d] * xStrides[d];
    std::int64_t best = -1, counted = 0;
    double sum = 0;
    forEachIndex(Shape(window.begin(), window.end()), [&](const Shape &offset,
                                                          std::int64_t) {
      std::int64_t from = base;
      bool inside = true, inPadded = true;
      for (std::size_t d = 0; d < n; ++d) {
        const std::int64_t size = x.type.shape[first + d];
        const std::int64_t at =
            index[first + d] * strides[d] - pads[d] + offset[d] * dilations[d];
        inside = inside && at >= 0 && at < size;
        inPadded = inPadded && at >= -pads[d] && at < size + pads[n + d];
        from += at * xStrides[first + d];
      }
      if (countPad ? inPadded : inside)
        ++counted;
      if (!inside)
        return;
      if (!isMax) {
        sum += loadDouble(type, x.data, from);
        return;
      }
      if (best < 0) {
        best = from;
      } else if (isFloat(type)) {
        const double v = loadDouble(type, x.data, from),
                     b = loadDouble(type, x.data, best);
        if (!std::isnan(b) && (std::isnan(v) || v > b))
          best = from;
      } else {
        const std::uint64_t v = loadInt(type, x.data, from),
                            b = loadInt(type, x.data, best);
        if (isUnsigned ? v > b : std::int64_t(v) > std::int64_t(b))
          best = from;
      }
    });
    if (!isMax)
      storeDouble(type, out.data, linear, sum / double(counted));
    else if (best >= 0)
      copyElement(out, linear, x, best);
    else if (isFloat(type))
      storeDouble(type, out.data, linear,
                  -std::numeric_limits<double>::infinity());
    else if (isUnsigned)
      storeUnsigned(type, out.data, linear, 0);
    else
      storeInt(type, out.data, linear,
               -(std::int64_t(1) << (integerBitWidth(type) - 1)));
  });
}

/// The first of a gather's indices outside [-dim, dim) (dim: the data's
/// size along the axis), as an error naming the op, the index and its
/// position; the indices are read before anything is written.
Status checkGatherIndices(const Graph &graph, std::size_t index,
                          const OpBuffers &buffers) {
  const Op &op = graph.ops[index];
  const HostTensor &data = buffers.operands[0], &indices = buffers.operands[1];
  const std::int64_t axis = op.findAttr("axis")->getI64();
  const std::int64_t dim = data.type.shape[std::size_t(axis)];
  const std::int64_t count = indices.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t k = loadInt(indices.type.elementType, indices.data, i);
    if (k < -dim || k >= dim)
      return Status::error(gatherIndexError(gatherRange(graph, index), k, i));
  }
  return Status::success();
}

/// A gather (Graph.h) whose indices checkGatherIndices accepted: each
/// result element copies the data element its index selects.
void evalGather(const Op &op, const OpBuffers &buffers) {
  const HostTensor &data = buffers.operands[0], &indices = buffers.operands[1];
  const HostTensor &out = buffers.result;
  const std::size_t axis = std::size_t(op.findAttr("axis")->getI64());
  const std::int64_t dim = data.type.shape[axis];
  const std::span<const std::int64_t> ds(data.type.shape);
  const std::int64_t inner = dimsProduct(ds.subspan(axis + 1)),
                     outer = dimsProduct(ds.first(axis));
  const std::int64_t count = indices.type.numElements();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t k =
          std::int64_t(loadInt(indices.type.elementType, indices.data, i));
      if (k < 0)
        k += dim;
      for (std::int64_t n = 0; n < inner; ++n)
        copyElement(out, (o * count + i) * inner + n, data,
                    (o * dim + k) * inner + n);
    }
}

/// The first of a scatter's indices outside [-N, N) (N: the data's first
/// dim), as an error naming the op, the index and its position; checked
/// before anything is written.
Status checkScatterIndices(const Graph &graph, std::size_t index,
                           const OpBuffers &buffers) {
  const HostTensor &data = buffers.operands[0], &indices = buffers.operands[1];
  const std::int64_t rows = data.type.shape[0];
  for (std::int64_t i = 0; i < indices.type.numElements(); ++i) {
    const std::int64_t k = loadInt(indices.type.elementType, indices.data, i);
    if (k < -rows || k >= rows)
      return Status::error(gatherIndexError(gatherRange(graph, index), k, i));
  }
  return Status::success();
}

/// A scatter (Ops.def) whose indices checkScatterIndices accepted: the
/// data, then each update combined into its row in index order, each step
/// rounded to the element type (floats in f64, integers exactly).
void evalScatter(const Op &op, const OpBuffers &buffers) {
  const HostTensor &data = buffers.operands[0], &indices = buffers.operands[1],
                   &updates = buffers.operands[2], &out = buffers.result;
  const Attribute *attr = op.findAttr("reduction");
  const std::string reduction = attr ? attr->getEnumName() : "none";
  const ElementType type = data.type.elementType;
  const std::int64_t rows = data.type.shape[0];
  const std::int64_t inner = rows ? data.type.numElements() / rows : 0;
  if (out.data != data.data && data.type.byteSize() > 0)
    std::memcpy(out.data, data.data, std::size_t(data.type.byteSize()));
  for (std::int64_t q = 0; q < indices.type.numElements(); ++q) {
    std::int64_t k = loadInt(indices.type.elementType, indices.data, q);
    if (k < 0)
      k += rows;
    for (std::int64_t j = 0; j < inner; ++j) {
      const std::int64_t to = k * inner + j, from = q * inner + j;
      if (reduction == "none") {
        copyElement(out, to, updates, from);
      } else if (isFloat(type)) {
        const double a = loadDouble(type, out.data, to),
                     b = loadDouble(type, updates.data, from);
        // max and min propagate NaN, as NumPy's maximum and minimum do.
        double c = std::numeric_limits<double>::quiet_NaN();
        if (reduction == "add")
          c = a + b;
        else if (reduction == "mul")
          c = a * b;
        else if (!std::isnan(a) && !std::isnan(b))
          c = reduction == "max" ? std::max(a, b) : std::min(a, b);
        storeDouble(type, out.data, to, c);
      } else if (isUnsignedInteger(type)) {
        const std::uint64_t a = loadUnsigned(type, out.data, to),
                            b = loadUnsigned(type, updates.data, from);
        const std::uint64_t c = reduction == "add"   ? a + b
                                : reduction == "mul" ? a * b
                                : reduction == "max" ? std::max(a, b)
                                                     : std::min(a, b);
        storeInt(type, out.data, to, std::int64_t(c));
      } else {
        const std::int64_t a = loadInt(type, out.data, to),
                           b = loadInt(type, updates.data, from);
        const std::int64_t c =
            reduction == "add"
                ? std::int64_t(std::uint64_t(a) + std::uint64_t(b))
            : reduction == "mul"
                ? std::int64_t(std::uint64_t(a) * std::uint64_t(b))
            : reduction == "max" ? std::max(a, b)
                                 : std::min(a, b);
        storeInt(type, out.data, to, c);
      }
    }
  }
}

/// iota: each element is its coordinate along `axis`.
void evalIota(const Op &op, const OpBuffers &buffers) {
  const HostTensor &out = buffers.result;
  const std::size_t axis = std::size_t(op.findAttr("axis")->getI64());
  const ElementType type = out.type.elementType;
  forEachIndex(out.type.shape, [&](const Shape &index, std::int64_t linear) {
    if (isFloat(type))
      storeDouble(type, out.data, linear, double(index[axis]));
    else
      storeInt(type, out.data, linear, index[axis]);
  });
}

/// dim_value of a static graph: every element is the (static) dim.
void evalDimValue(const Op &op, const OpBuffers &buffers) {
  const HostTensor &out = buffers.result;
  const std::int64_t value = op.findAttr("dim")->getI64();
  const ElementType type = out.type.elementType;
  for (std::int64_t i = 0; i < out.type.numElements(); ++i) {
    if (isFloat(type))
      storeDouble(type, out.data, i, double(value));
    else
      storeInt(type, out.data, i, value);
  }
}

void evalOp(const Op &op, const OpBuffers &buffers) {
  // An op's one effect is its result (index checks run before, aside): an
  // empty one has nothing to write. A matmul of [2^62, 0, 4] by [4, 5]
  // counted 2^62 empty batches, for ever.
  if (buffers.result.type.numElements() == 0)
    return;
  switch (opInfo(op.kind).form) {
  case OpForm::Unary:
    return evalUnary(op, buffers);
  case OpForm::Binary:
    return evalBinary(op, buffers);
  case OpForm::Structured:
    break;
  }
  switch (op.kind) {
  case OpKind::Compare:
    return evalCompareOp(op, buffers);
  case OpKind::Select:
    return evalSelect(buffers);
  case OpKind::Cast:
    return evalCast(op, buffers);
  case OpKind::Constant:
    return evalConstant(op, buffers);
  case OpKind::Broadcast:
    return evalBroadcast(op, buffers);
  case OpKind::Reshape:
    if (buffers.result.type.byteSize() > 0)
      std::memcpy(buffers.result.data, buffers.operands[0].data,
                  std::size_t(buffers.result.type.byteSize()));
    return;
  case OpKind::Transpose:
    return evalTranspose(op, buffers);
  case OpKind::Slice:
    return evalSlice(op, buffers);
  case OpKind::Concat:
    return evalConcat(op, buffers);
  case OpKind::Reduce:
    return evalReduce(op, buffers);
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    return evalArgReduce(op, buffers);
  case OpKind::Pool:
    return evalPool(op, buffers);
  case OpKind::Im2col:
    return evalIm2col(op, buffers);
  case OpKind::Matmul:
    return evalMatmul(op, buffers);
  case OpKind::Conv:
    return evalConv(op, buffers);
  case OpKind::Gather:
    return evalGather(op, buffers);
  case OpKind::Scatter:
    return evalScatter(op, buffers);
  case OpKind::Iota:
    return evalIota(op, buffers);
  case OpKind::DimValue:
    return evalDimValue(op, buffers);
  default:
    return;
  }
}

bool overlaps(const HostTensor &a, const HostTensor &b) {
  const auto *aBegin = static_cast<const char *>(a.data);
  const auto *bBegin = static_cast<const char *>(b.data);
  const std::int64_t aSize = a.type.byteSize(), bSize = b.type.byteSize();
  return aSize > 0 && bSize > 0 && std::less<>()(aBegin, bBegin + bSize) &&
         std::less<>()(bBegin, aBegin + aSize);
}

std::string opPrefix(const Graph &graph, std::size_t index) {
  return "op #" + std::to_string(index) + " (" +
         std::string(mnemonic(graph.ops[index].kind)) + "): ";
}

} // namespace

namespace {

/// The interpreter runs static graphs: a symbolic one is bound first.
Status refuseSymbolic(const Graph &graph) {
  if (!graph.isSymbolic())
    return Status::success();
  std::string names;
  for (const std::string &name : graph.dims.symbols)
    names += (names.empty() ? "" : ", ") + name;
  return Status::error("the graph has symbolic dims (" + names +
                       "): bind them first (bindDims)");
}

} // namespace

Status fuse::evaluateOps(const Graph &graph,
                         std::span<const std::size_t> opIndices,
                         const TensorBindings &buffers) {
  if (Status status = refuseSymbolic(graph); !status.ok())
    return status;
  if (Status status = validate(graph); !status.ok())
    return status;
  for (const auto &[id, tensor] : buffers) {
    if (!graph.isValidId(id))
      return Status::error("buffer bound to tensor " + std::to_string(id) +
                           ", which the graph does not have");
    if (tensor.type != graph.typeOf(id))
      return Status::error("buffer bound to tensor " + std::to_string(id) +
                           " has type " + tensor.type.toString() +
                           ", expected " + graph.typeOf(id).toString());
    if (!tensor.data && tensor.type.byteSize() > 0)
      return Status::error("buffer bound to tensor " + std::to_string(id) +
                           " has no data");
  }
  for (std::size_t index : opIndices)
    if (index >= graph.ops.size())
      return Status::error("op index " + std::to_string(index) +
                           " out of range: the graph has " +
                           std::to_string(graph.ops.size()) + " ops");

  std::map<TensorId, HostTensor> values(buffers.begin(), buffers.end());
  std::vector<std::unique_ptr<HostTensorData>> temporaries;
  for (std::size_t index : opIndices) {
    const Op &op = graph.ops[index];
    OpBuffers opBuffers;
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      auto it = values.find(op.operands[i]);
      if (it == values.end())
        return Status::error(
            opPrefix(graph, index) + "operand " + std::to_string(i) +
            " (tensor " + std::to_string(op.operands[i]) +
            ") has no value: bind a buffer to it or evaluate the op that "
            "defines it earlier in the same call");
      opBuffers.operands.push_back(it->second);
    }
    const TensorId result = op.result();
    auto it = values.find(result);
    if (it == values.end()) {
      temporaries.push_back(
          std::make_unique<HostTensorData>(graph.typeOf(result)));
      it = values.emplace(result, temporaries.back()->view()).first;
    }
    opBuffers.result = it->second;
    if (op.kind == OpKind::Gather)
      if (Status status = checkGatherIndices(graph, index, opBuffers);
          !status.ok())
        return status;
    if (op.kind == OpKind::Scatter)
      if (Status status = checkScatterIndices(graph, index, opBuffers);
          !status.ok())
        return status;
    // A result bound over one of its operands (an in-place write) is
    // computed aside first: only elementwise ops could safely overwrite
    // what they still have to read.
    const bool aliases =
        std::any_of(opBuffers.operands.begin(), opBuffers.operands.end(),
                    [&](const HostTensor &operand) {
                      return overlaps(operand, opBuffers.result);
                    });
    if (!aliases) {
      evalOp(op, opBuffers);
      continue;
    }
    HostTensorData aside(opBuffers.result.type);
    const HostTensor target = opBuffers.result;
    opBuffers.result = aside.view();
    evalOp(op, opBuffers);
    std::memcpy(target.data, aside.bytes.data(), aside.bytes.size());
  }
  return Status::success();
}

Status fuse::checkGatherIndexInputs(const Graph &graph,
                                    const TensorBindings &inputs) {
  std::map<TensorId, const Op *> definer;
  for (const Op &op : graph.ops)
    definer[op.result()] = &op;
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const Op &op = graph.ops[index];
    if (op.kind != OpKind::Gather)
      continue;
    // Back to a bound tensor through reshapes (the same elements in the
    // same order) and integer casts (applied below, last first).
    std::vector<const Op *> casts;
    TensorId source = op.operands[1];
    bool traced = true;
    while (traced && !inputs.count(source) && definer.count(source)) {
      const Op *def = definer[source];
      // A constant: nothing bound to check (the importer checked it).
      if (def->operands.empty()) {
        traced = false;
        break;
      }
      if (def->kind == OpKind::Cast &&
          isInteger(graph.typeOf(def->operands[0]).elementType) &&
          graph.typeOf(def->operands[0]).elementType != ElementType::I1)
        casts.push_back(def);
      else if (def->kind != OpKind::Reshape)
        traced = false;
      source = def->operands[0];
    }
    auto bound = inputs.find(source);
    if (!traced || bound == inputs.end())
      continue;
    const HostTensor &values = bound->second;
    const TensorType &data = graph.typeOf(op.operands[0]);
    const std::int64_t axis = op.findAttr("axis")->getI64();
    const std::int64_t dim = data.shape[std::size_t(axis)];
    const std::string &name = graph.tensors[source].name;
    const std::string from = ", from tensor " + std::to_string(source) +
                             (name.empty() ? std::string() : " '" + name + "'");
    for (std::int64_t i = 0; i < values.type.numElements(); ++i) {
      std::int64_t k = loadInt(values.type.elementType, values.data, i);
      for (auto cast = casts.rbegin(); cast != casts.rend(); ++cast) {
        const ElementType fromType =
            graph.typeOf((*cast)->operands[0]).elementType;
        const ElementType toType = graph.typeOf((*cast)->result()).elementType;
        const unsigned fromBits = integerBitWidth(fromType);
        if ((isUnsignedInteger(fromType) || (*cast)->getFlag("is_unsigned")) &&
            fromBits < 64)
          k &= (std::int64_t(1) << fromBits) - 1;
        const unsigned toBits = integerBitWidth(toType);
        if (toBits < 64) {
          const std::uint64_t mask = (std::uint64_t(1) << toBits) - 1;
          std::uint64_t bits = std::uint64_t(k) & mask;
          if (!isUnsignedInteger(toType) && (bits >> (toBits - 1)) != 0)
            bits |= ~mask;
          k = std::int64_t(bits);
        }
      }
      if (k < -dim || k >= dim)
        return Status::error(
            gatherIndexError(gatherRange(graph, index), k, i, from));
    }
  }
  return Status::success();
}

GatherRange fuse::gatherRange(const Graph &graph, std::size_t op) {
  const Op &gather = graph.ops[op];
  const TensorType &data = graph.typeOf(gather.operands[0]);
  GatherRange range;
  range.op = "op #" + std::to_string(op) + " (" +
             std::string(mnemonic(gather.kind)) + ")";
  // A scatter indexes the first dim.
  const Attribute *axis = gather.findAttr("axis");
  range.axis = axis ? axis->getI64() : 0;
  range.dim = data.shape[std::size_t(range.axis)];
  range.data = data.toString();
  return range;
}

std::string fuse::gatherIndexError(const GatherRange &range, std::int64_t index,
                                   std::optional<std::int64_t> element,
                                   const std::string &from) {
  std::string where;
  if (element)
    where = " (element " + std::to_string(*element) + " of the indices" + from +
            ")";
  return range.op + ": index " + std::to_string(index) + where +
         " is out of range for dim " + std::to_string(range.axis) +
         " of size " + std::to_string(range.dim) + " of " + range.data +
         " (valid: " + std::to_string(-range.dim) + " to " +
         std::to_string(range.dim - 1) + ")";
}

Status fuse::evaluate(const Graph &graph, const TensorBindings &buffers) {
  std::vector<std::size_t> all(graph.ops.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return evaluateOps(graph, all, buffers);
}

Expected<std::vector<HostTensorData>>
fuse::evaluateGraph(const Graph &graph, std::span<const HostTensor> inputs) {
  if (Status status = refuseSymbolic(graph); !status.ok())
    return status;
  if (inputs.size() != graph.inputs.size())
    return Status::error("expected " + std::to_string(graph.inputs.size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  TensorBindings bindings;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    bindings.emplace(graph.inputs[i], inputs[i]);
  // Outputs get their own buffers; an output listed twice, or an output that
  // is an input, is copied from the one evaluated buffer afterwards.
  std::vector<HostTensorData> results;
  results.reserve(graph.outputs.size());
  for (const GraphOutput &output : graph.outputs) {
    if (!graph.isValidId(output.tensor))
      return validate(graph);
    results.emplace_back(graph.typeOf(output.tensor));
    bindings.emplace(output.tensor, results.back().view());
  }
  if (Status status = evaluate(graph, bindings); !status.ok())
    return status;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const HostTensor &source = bindings.at(graph.outputs[i].tensor);
    if (source.data != results[i].bytes.data() && !results[i].bytes.empty())
      std::memcpy(results[i].bytes.data(), source.data,
                  results[i].bytes.size());
  }
  return results;
}
