//===- Sha256.h - SHA-256 for content hashes --------------------*- C++ -*-===//
//
// A small streaming SHA-256 (FIPS 180-4). The graph hash and the cache keys
// built on it must be the same in every process and on every platform and
// must not collide in practice, which std::hash promises neither of. Speed
// does not matter here: graphs are small and hashed once per recording.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_SHA256_H
#define FUSE_RUNTIME_IR_SHA256_H

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace fuse {

class Sha256 {
public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view text);
  /// Ends the message; the hasher must not be updated afterwards.
  Digest finish();

  static Digest hash(std::string_view text);

private:
  void compressBlock(const std::uint8_t *block);

  std::array<std::uint32_t, 8> state;
  std::array<std::uint8_t, 64> buffer;
  std::size_t buffered = 0;
  std::uint64_t totalBytes = 0;
};

} // namespace fuse

#endif // FUSE_RUNTIME_IR_SHA256_H
