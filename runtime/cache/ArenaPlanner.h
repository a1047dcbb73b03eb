//===- ArenaPlanner.h - Offsets of intermediates in one arena ---*- C++ -*-===//
//
// Places the buffers that live between kernels (intermediate tensors,
// reduction partials) in one arena: a buffer occupies its bytes from the
// first kernel that uses it to the last, and its bytes are reused by buffers
// that start after it ends. First fit in order of first use, aligned for
// vector loads. Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_ARENAPLANNER_H
#define FUSE_RUNTIME_CACHE_ARENAPLANNER_H

#include "runtime/cache/Bundle.h"

#include <cstdint>
#include <span>

namespace fuse {

struct ArenaRequest {
  TensorId tensor = kInvalidTensor;
  std::uint64_t bytes = 0;
  /// Positions in the launch order of the first and last kernel using it.
  std::uint32_t firstUse = 0;
  std::uint32_t lastUse = 0;
  /// Written by per-binding kernels (BundleKernel::perBinding): it lives
  /// from one binding of the inputs to the next, in the arena's bound part.
  bool bound = false;
  /// Of a bound request: its place among the bound requests, lowest
  /// first (request order within one). A symbolic bundle's binding puts
  /// first what is kept from one binding of its dims to the next (a
  /// weight's packing) and of fixed size, so that those offsets stay the
  /// same at every binding (SymbolicBundle.cpp).
  std::uint8_t boundOrder = 0;
};

inline constexpr std::uint64_t kArenaAlignment = 64;

/// One slice per request, in request order; slices whose live ranges
/// overlap never overlap in bytes. Bound requests come first, end to end in
/// the order of their boundOrder, then of the requests, in the arena's
/// bound part (MemoryPlan::boundBytes); the others follow.
MemoryPlan planArena(std::span<const ArenaRequest> requests);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_ARENAPLANNER_H
