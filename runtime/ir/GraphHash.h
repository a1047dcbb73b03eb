//===- GraphHash.h - Canonical form and content hash of a Graph -*- C++ -*-===//
//
// Two recordings of one computation must find the same compiled kernels, so
// the cache key is a hash of the graph's canonical form:
//   - tensor ids renumbered in order of first definition (inputs in their
//     order, then op results in op order);
//   - optional flags set to false dropped (absent means false);
//   - full constants whose elements are all equal stored as splats;
//   - symbolic dims (Graph.h) renumbered in order of first use.
// The hash covers every op kind (by mnemonic, so it survives reordering of
// Ops.def), every attribute name and value, every shape and element type,
// the graph structure and the output list; a symbolic graph's dim symbols
// and expressions too (so it never hashes like a static graph; a static
// graph's hash does not change with them). It leaves out tensor and output
// names (informational) and the values bound to inputs: weights are inputs,
// so the same model with other weights reuses every kernel. Constants inside
// the graph are part of the computation and are hashed by value.
//
// The hash is the first 128 bits of SHA-256 over a versioned byte encoding:
// the same in every process and on every platform.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_GRAPHHASH_H
#define FUSE_RUNTIME_IR_GRAPHHASH_H

#include "runtime/ir/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fuse {

struct Hash128 {
  /// The digest's first 8 bytes, big-endian, then the next 8.
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  /// 32 lowercase hex digits, the digest's bytes in order.
  std::string toHex() const;
  static std::optional<Hash128> fromHex(std::string_view hex);

  auto operator<=>(const Hash128 &) const = default;
};

/// The canonical form of a valid graph (see validate()). Idempotent.
Graph canonicalize(const Graph &graph);

/// The hash of canonicalize(graph).
Hash128 hashGraph(const Graph &graph);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_GRAPHHASH_H
