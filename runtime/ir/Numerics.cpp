//===- Numerics.cpp - The numerics policy: tolerances and compare ---------===//

#include "runtime/ir/Numerics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

using namespace fuse;

NumericClass fuse::numericClass(const Op &op) {
  switch (op.kind) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Reciprocal:
  case OpKind::Sqrt:
  case OpKind::Rem:
    return NumericClass::Elementwise;
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Rsqrt:
  case OpKind::Tanh:
  case OpKind::Sigmoid:
  case OpKind::Erf:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Tan:
  case OpKind::Asin:
  case OpKind::Acos:
  case OpKind::Atan:
  case OpKind::Sinh:
  case OpKind::Cosh:
  case OpKind::Asinh:
  case OpKind::Acosh:
  case OpKind::Atanh:
  case OpKind::Pow:
    return NumericClass::Transcendental;
  case OpKind::Reduce: {
    const Attribute *kind = op.findAttr("kind");
    const bool selects =
        kind && (kind->getEnumName() == "max" || kind->getEnumName() == "min");
    return selects ? NumericClass::Exact : NumericClass::Reduction;
  }
  case OpKind::Pool: // max selects; mean sums its window and divides
    return op.findAttr("kind")->getEnumName() == "max"
               ? NumericClass::Exact
               : NumericClass::Reduction;
  case OpKind::Matmul:
  case OpKind::Conv:
    return NumericClass::Matmul;
  default:
    return NumericClass::Exact;
  }
}

double fuse::machineEpsilon(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return std::ldexp(1.0, -52);
  case ElementType::F32:
    return std::ldexp(1.0, -23);
  case ElementType::F16:
    return std::ldexp(1.0, -10);
  case ElementType::BF16:
    return std::ldexp(1.0, -7);
  case ElementType::F8E4M3FN:
  case ElementType::F8E4M3FNUZ:
    return std::ldexp(1.0, -3);
  case ElementType::F8E5M2:
  case ElementType::F8E5M2FNUZ:
    return std::ldexp(1.0, -2);
  case ElementType::F4E2M1FN:
    return std::ldexp(1.0, -1);
  case ElementType::F8E8M0FNU:
    return 1; // powers of two only
  default:
    return 0;
  }
}

namespace {

double smallestNormal(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return std::numeric_limits<double>::min();
  case ElementType::F16:
    return std::ldexp(1.0, -14);
  case ElementType::F8E4M3FN:
    return std::ldexp(1.0, -6);
  case ElementType::F8E4M3FNUZ:
    return std::ldexp(1.0, -7);
  case ElementType::F8E5M2:
    return std::ldexp(1.0, -14);
  case ElementType::F8E5M2FNUZ:
    return std::ldexp(1.0, -15);
  case ElementType::F4E2M1FN:
    return 1;
  case ElementType::F8E8M0FNU:
    return std::ldexp(1.0, -127);
  default: // f32, bf16
    return std::ldexp(1.0, -126);
  }
}

} // namespace

Tolerance fuse::tolerance(NumericClass numericClass, ElementType type,
                          std::int64_t length) {
  if (!isFloat(type))
    return {};
  const double eps = machineEpsilon(type);
  const double n = double(std::max<std::int64_t>(length, 1));
  switch (numericClass) {
  case NumericClass::Exact:
    return {};
  case NumericClass::Elementwise:
    return {2 * eps, smallestNormal(type)};
  case NumericClass::Transcendental:
    return {8 * eps, 8 * eps};
  case NumericClass::Reduction:
  case NumericClass::Matmul:
    return {2 * eps * (1 + std::sqrt(n)), eps * n};
  }
  return {};
}

Tolerance fuse::toleranceFor(const Graph &graph, const Op &op) {
  const ElementType type = graph.typeOf(op.result()).elementType;
  const NumericClass opClass = numericClass(op);
  std::int64_t length = 1;
  if (opClass == NumericClass::Reduction && op.kind == OpKind::Pool) {
    for (std::int64_t size : op.findAttr("window")->getI64Array())
      length *= size;
  } else if (opClass == NumericClass::Reduction) {
    const TensorType &operand = graph.typeOf(op.operands[0]);
    for (std::int64_t d : op.findAttr("dims")->getI64Array())
      length *= operand.shape[d];
  } else if (op.kind == OpKind::Conv) {
    // K of the implied matmul: a weight's elements per output channel.
    const TensorType &w = graph.typeOf(op.operands[1]);
    for (std::size_t d = 1; d < w.shape.size(); ++d)
      length *= w.shape[d];
  } else if (opClass == NumericClass::Matmul) {
    const TensorType &a = graph.typeOf(op.operands[0]);
    length = a.shape[a.shape.size() - (op.getFlag("transpose_a") ? 2 : 1)];
  }
  return tolerance(opClass, type, length);
}

namespace {

/// Calls `fn` once on each op that `tensor` depends on (its producer, its
/// operands' producers, ...), the producer first; ops reached twice are
/// visited once.
template <typename Fn>
void forEachOpOnPath(const Graph &graph, TensorId tensor, Fn &&fn) {
  std::vector<std::int64_t> producer(graph.tensors.size(), -1);
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    for (TensorId result : graph.ops[i].results)
      producer[result] = std::int64_t(i);
  std::vector<bool> visited(graph.ops.size(), false);
  std::vector<TensorId> pending{tensor};
  while (!pending.empty()) {
    const std::int64_t index = producer[pending.back()];
    pending.pop_back();
    if (index < 0 || visited[index])
      continue;
    visited[index] = true;
    const Op &op = graph.ops[index];
    fn(op);
    pending.insert(pending.end(), op.operands.begin(), op.operands.end());
  }
}

} // namespace

Tolerance fuse::toleranceForTensor(const Graph &graph, TensorId tensor) {
  Tolerance total;
  forEachOpOnPath(graph, tensor, [&](const Op &op) {
    total = total + toleranceFor(graph, op);
    if (op.kind != OpKind::Cast)
      return;
    // A narrowing float cast of an inexact value: one ulp of the result.
    const ElementType to = graph.typeOf(op.result()).elementType;
    const ElementType from = graph.typeOf(op.operands[0]).elementType;
    const double eps = machineEpsilon(to);
    if (isFloat(to) && isFloat(from) && eps > machineEpsilon(from) &&
        !toleranceForTensor(graph, op.operands[0]).isExact())
      total = total + Tolerance{eps, eps * smallestNormal(to)};
  });
  return total;
}

std::int64_t fuse::weightMatmulsOnPath(const Graph &graph, TensorId tensor) {
  std::int64_t count = 0;
  forEachOpOnPath(graph, tensor, [&](const Op &op) {
    if (op.kind == OpKind::Matmul && op.operands.size() > 1 &&
        std::find(graph.inputs.begin(), graph.inputs.end(), op.operands[1]) !=
            graph.inputs.end())
      ++count;
  });
  return count;
}

Tolerance fuse::toleranceForOutput(const Graph &graph, TensorId tensor,
                                   const HostTensor &expected,
                                   bool bf16Matmuls) {
  Tolerance tolerance = toleranceForTensor(graph, tensor);
  if (bf16Matmuls) {
    double extra =
        kBf16MatmulTolerance * double(weightMatmulsOnPath(graph, tensor));
    tolerance = tolerance + Tolerance{extra, extra};
  }
  if (tolerance.isExact() || !isFloat(expected.type.elementType))
    return tolerance;
  double scale = 1;
  const std::int64_t count = expected.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    const double value =
        std::fabs(loadDouble(expected.type.elementType, expected.data, i));
    if (std::isfinite(value))
      scale = std::max(scale, value);
  }
  tolerance.atol *= scale;
  return tolerance;
}

Comparison fuse::compare(const void *expected, const void *actual,
                         ElementType type, std::int64_t count,
                         Tolerance tolerance) {
  Comparison result;
  for (std::int64_t i = 0; i < count; ++i) {
    double e, a;
    bool pass;
    if (isFloat(type)) {
      e = loadDouble(type, expected, i);
      a = loadDouble(type, actual, i);
      if (std::isnan(e) || std::isnan(a)) {
        pass = std::isnan(e) && std::isnan(a);
      } else if (std::isinf(e) || std::isinf(a)) {
        pass = e == a;
      } else {
        const double absError = std::fabs(a - e);
        result.maxAbsError = std::max(result.maxAbsError, absError);
        if (e != 0)
          result.maxRelError =
              std::max(result.maxRelError, absError / std::fabs(e));
        pass = absError <= tolerance.atol + tolerance.rtol * std::fabs(e);
      }
    } else {
      const std::int64_t ei = loadInt(type, expected, i);
      const std::int64_t ai = loadInt(type, actual, i);
      // Reported as the type reads them (a ui64 above 2^63 as itself).
      e = loadDouble(type, expected, i);
      a = loadDouble(type, actual, i);
      const double absError = std::fabs(a - e);
      result.maxAbsError = std::max(result.maxAbsError, absError);
      if (ei != 0)
        result.maxRelError =
            std::max(result.maxRelError, absError / std::fabs(e));
      pass = ei == ai;
    }
    if (pass)
      continue;
    if (result.ok) {
      result.firstMismatch = i;
      result.expectedAtFirstMismatch = e;
      result.actualAtFirstMismatch = a;
    }
    result.ok = false;
    ++result.mismatches;
  }
  if (!result.ok) {
    std::ostringstream message;
    message.precision(17);
    message << result.mismatches << " of " << count << " "
            << elementTypeName(type) << " elements differ; first at index "
            << result.firstMismatch << ": expected "
            << result.expectedAtFirstMismatch << ", got "
            << result.actualAtFirstMismatch << " (rtol " << tolerance.rtol
            << ", atol " << tolerance.atol << "; max abs error "
            << result.maxAbsError << ", max rel error " << result.maxRelError
            << ")";
    result.message = message.str();
  }
  return result;
}

Comparison fuse::compare(const HostTensor &expected, const HostTensor &actual,
                         Tolerance tolerance) {
  if (expected.type != actual.type) {
    Comparison result;
    result.ok = false;
    result.message = "type mismatch: expected " + expected.type.toString() +
                     ", got " + actual.type.toString();
    return result;
  }
  return compare(expected.data, actual.data, expected.type.elementType,
                 expected.type.numElements(), tolerance);
}
