//===- BundleKey.h - The cache key of a compiled graph ----------*- C++ -*-===//
//
// What identifies a bundle in the cache: the hash of the canonical graph,
// the target, the project's version id and the compile options. A change to
// any of them is another key, so a bundle is never reused for a different
// computation, machine, compiler build or option set; two recordings of one
// computation with other tensor ids share a key, and so do two runs with
// other weights (weights are inputs, whose values no key contains).
//
// The key keeps its parts (the cache checks a loaded bundle against them)
// and names itself by a SHA-256 digest over a versioned encoding of them:
// the same in every process and on every platform.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_BUNDLEKEY_H
#define FUSE_RUNTIME_CACHE_BUNDLEKEY_H

#include "runtime/Compiler.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/GraphHash.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

struct BundleKey {
  using Digest = std::array<std::uint8_t, 32>;

  Hash128 graphHash;
  /// Target::name, or "reference".
  std::string target;
  /// fuse::versionId() of the build that looks up or stores.
  std::string versionId;
  CompileOptions options;

  /// The key of `graph` (hashed in canonical form) for this build.
  static BundleKey make(const Graph &graph, std::string target,
                        const CompileOptions &options);

  Digest digest() const;
  /// 64 lowercase hex digits of digest(): the name of the cache entry.
  std::string toHex() const;
  /// Whether `text` has the form toHex() produces.
  static bool isKeyHex(std::string_view text);

  /// A self-describing byte encoding of the parts, and its inverse, which
  /// fails on anything it did not produce. Bounded: target and version id
  /// are at most kMaxPartLength bytes each.
  std::vector<std::uint8_t> encode() const;
  static Expected<BundleKey> decode(std::span<const std::uint8_t> bytes);
  static constexpr std::size_t kMaxPartLength = 256;

  /// "graph 0123.. target sm_90 version ab12.. options O3 fusion=on
  /// explain=off": for messages and `fuse-cache list`.
  std::string describe() const;

  bool operator==(const BundleKey &) const = default;
};

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_BUNDLEKEY_H
