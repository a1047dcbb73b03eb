//===- WindowShape.h - The output size of a window reduction ----*- C++ -*-===//
//
// One formula, shared by the Graph verifier and the `fuse.pool` verifier (the
// dialect includes this header and nothing else of the runtime).
//
// Header-only, plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_WINDOWSHAPE_H
#define FUSE_RUNTIME_IR_WINDOWSHAPE_H

#include <cstdint>

namespace fuse {

/// The output size of one spatial dim of a pool (Ops.def): (input + padBegin
/// + padEnd - ((window - 1) * dilation + 1)) / stride + 1, rounded down, or
/// with `ceilMode` up, less a last window that would start past the input and
/// the begin padding. -1 when the dilated window does not fit in the padded
/// input. Callers check window, stride, dilation >= 1 and pads >= 0 first;
/// sizes beyond 2^61 give -1 rather than overflow.
inline std::int64_t poolOutputSize(std::int64_t input, std::int64_t window,
                                   std::int64_t stride, std::int64_t dilation,
                                   std::int64_t padBegin, std::int64_t padEnd,
                                   bool ceilMode) {
  constexpr std::int64_t kLimit = std::int64_t(1) << 61;
  if (input > kLimit || window > kLimit || dilation > kLimit ||
      padBegin > kLimit || padEnd > kLimit ||
      (window > 1 && dilation > kLimit / (window - 1)))
    return -1;
  const std::int64_t span = (window - 1) * dilation + 1;
  const std::int64_t room = input + padBegin + padEnd - span;
  if (room < 0)
    return -1;
  std::int64_t size =
      (ceilMode ? room / stride + (room % stride != 0) : room / stride) + 1;
  if (ceilMode && (size - 1) * stride >= input + padBegin)
    --size;
  return size;
}

} // namespace fuse

#endif // FUSE_RUNTIME_IR_WINDOWSHAPE_H
