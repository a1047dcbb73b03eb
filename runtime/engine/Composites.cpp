//===- Composites.cpp - Ops built from other ops --------------------------===//

#include "runtime/engine/Engine.h"

#include <cmath>

namespace fuse::engine {

namespace {

std::int64_t normalizeAxis(std::int64_t axis, std::int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// x (keep_dims reduced) broadcast back to `shape`, dims aligned.
Tensor expandTo(const Tensor &x, const std::vector<std::int64_t> &shape) {
  if (!x.valid())
    return x;
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(i);
  return broadcast(x, shape, std::move(dims));
}

} // namespace

Tensor softmax(const Tensor &x, std::int64_t axis) {
  std::int64_t dim = normalizeAxis(axis, x.rank());
  Tensor shifted =
      x - expandTo(reduce(ReduceKind::Max, x, {dim}, true), x.shape());
  Tensor e = exp(shifted);
  return e / expandTo(reduce(ReduceKind::Sum, e, {dim}, true), x.shape());
}

Tensor logSoftmax(const Tensor &x, std::int64_t axis) {
  std::int64_t dim = normalizeAxis(axis, x.rank());
  Tensor shifted =
      x - expandTo(reduce(ReduceKind::Max, x, {dim}, true), x.shape());
  Tensor sum = reduce(ReduceKind::Sum, exp(shifted), {dim}, true);
  return shifted - expandTo(log(sum), x.shape());
}

Tensor layerNorm(const Tensor &x, const Tensor &gamma, const Tensor &beta,
                 double epsilon) {
  std::int64_t dim = x.rank() - 1;
  Tensor centered =
      x - expandTo(reduce(ReduceKind::Mean, x, {dim}, true), x.shape());
  Tensor variance = reduce(ReduceKind::Mean, centered * centered, {dim}, true);
  Tensor inverse = rsqrt(variance + fullLike(variance, epsilon));
  Tensor y = centered * expandTo(inverse, x.shape());
  if (gamma.valid())
    y = y * broadcastTo(gamma, x.shape());
  if (beta.valid())
    y = y + broadcastTo(beta, x.shape());
  return y;
}

Tensor rmsNorm(const Tensor &x, const Tensor &gamma, double epsilon) {
  std::int64_t dim = x.rank() - 1;
  Tensor meanSquare = reduce(ReduceKind::Mean, x * x, {dim}, true);
  Tensor inverse = rsqrt(meanSquare + fullLike(meanSquare, epsilon));
  Tensor y = x * expandTo(inverse, x.shape());
  if (gamma.valid())
    y = y * broadcastTo(gamma, x.shape());
  return y;
}

Tensor gelu(const Tensor &x) {
  const double sqrtTwoOverPi = std::sqrt(2.0 / M_PI);
  Tensor cube = x * x * x;
  Tensor inner =
      fullLike(x, sqrtTwoOverPi) * (x + fullLike(x, 0.044715) * cube);
  return fullLike(x, 0.5) * x * (fullLike(x, 1.0) + tanh(inner));
}

Tensor linear(const Tensor &x, const Tensor &weight, const Tensor &bias) {
  Tensor y = matmul(x, weight, false, true);
  if (bias.valid())
    y = y + broadcastTo(bias, y.shape());
  return y;
}

} // namespace fuse::engine
