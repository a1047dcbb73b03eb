//===- InPlace.h - Outputs written over their inputs ------------*- C++ -*-===//
//
// Private to runtime/engine: which outputs of a bundle may be written over
// the buffer of one of its inputs (free_handle's other half).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ENGINE_INPLACE_H
#define FUSE_RUNTIME_ENGINE_INPLACE_H

#include "runtime/cache/Bundle.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fuse::engine {

/// In place (free_handle's other half): per output, the input whose buffer
/// it may be written over, where
///   - the device is the host: host kernels carry no no-alias assumption
///     on their buffers (compiler/Host*.cpp marks none), while GPU kernels
///     mark every pointer noalias and read inputs through the non-coherent
///     cache, so they never write in place;
///   - the bundle's graph is same-shape elementwise, and the input and the
///     output are bound by one and the same Pointwise kernel and by no
///     other: that kernel reads each element of the input at exactly the
///     index it writes in the output, in the same iteration, before it
///     writes it, and no later kernel reads the input;
///   - the input has the output's type, is not an output itself, and
///     `exclusive[i]` (nothing but this block holds its storage: every
///     handle to it was dropped).
std::vector<std::optional<std::uint32_t>>
planInPlace(const Bundle &bundle, const std::vector<bool> &exclusive);

} // namespace fuse::engine

#endif // FUSE_RUNTIME_ENGINE_INPLACE_H
