//===- WindowShape.h - The output size of a window reduction ----*- C++ -*-===//
//
// One formula, shared by the Graph verifier and the `fuse.pool` verifier (the
// dialect includes this header and nothing else of the runtime).
//
// Header-only, plain C++; its arithmetic is CheckedInt's.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_WINDOWSHAPE_H
#define FUSE_RUNTIME_IR_WINDOWSHAPE_H

#include "runtime/ir/CheckedInt.h"

#include <cstdint>

namespace fuse {

/// The output size of one spatial dim of a pool (Ops.def): (input + padBegin
/// + padEnd - ((window - 1) * dilation + 1)) / stride + 1, rounded down, or
/// with `ceilMode` up, less a last window that would start past the input and
/// the begin padding. -1 when the dilated window does not fit in the padded
/// input, or when any step passes 2^63 (counted with CheckedInt, so no size
/// is computed from a wrapped one). Callers check window, stride,
/// dilation >= 1 and pads >= 0 first.
inline std::int64_t poolOutputSize(std::int64_t input, std::int64_t window,
                                   std::int64_t stride, std::int64_t dilation,
                                   std::int64_t padBegin, std::int64_t padEnd,
                                   bool ceilMode) {
  const CheckedInt span = (CheckedInt(window) - 1) * dilation + 1;
  const std::optional<std::int64_t> room =
      (CheckedInt(input) + padBegin + padEnd - span).get();
  if (!room || *room < 0)
    return -1;
  CheckedInt size = CheckedInt(*room) / stride +
                    ((ceilMode && *room % stride != 0) ? 1 : 0) + 1;
  // The last window starts at (size - 1) * stride; with ceil_mode it may
  // start past the input and the begin padding, and is dropped.
  if (ceilMode && ((size - 1) * stride).saturated() >=
                      (CheckedInt(input) + padBegin).saturated())
    size -= 1;
  return size.get().value_or(-1);
}

} // namespace fuse

#endif // FUSE_RUNTIME_IR_WINDOWSHAPE_H
