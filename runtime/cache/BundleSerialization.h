//===- BundleSerialization.h - Bundle <-> bytes with cereal -----*- C++ -*-===//
//
// Turns a Bundle into cereal's compact binary form (the payload of a cache
// file) and back, and into indented JSON for people (`fuse-cache show`).
// Enums travel by name (op mnemonics, element type names), so a bundle never
// decodes into an enum value the runtime does not have.
//
// Decoding is defensive: every count read from the bytes is checked against
// the bytes left before anything is allocated, so a damaged payload is an
// error, never a huge allocation or a crash. cereal reports problems by
// throwing; this unit catches them and returns a Status, so no exception
// leaves it. It does not check what a bundle means (see BundleFile.h) and
// never touches files.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_BUNDLESERIALIZATION_H
#define FUSE_RUNTIME_CACHE_BUNDLESERIALIZATION_H

#include "runtime/cache/Bundle.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fuse {

/// cereal's binary archive of every field of `bundle`.
std::vector<std::uint8_t> serializeBundle(const Bundle &bundle);

/// The inverse of serializeBundle; fails, saying why, on bytes it did not
/// produce (including trailing bytes).
Expected<Bundle> deserializeBundle(std::span<const std::uint8_t> payload);

/// Every field as JSON; kernel payloads appear as their size and SHA-256,
/// and PTX also as its text.
std::string bundleToJson(const Bundle &bundle);

/// 64 lowercase hex digits of SHA-256(bytes).
std::string sha256Hex(std::span<const std::uint8_t> bytes);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_BUNDLESERIALIZATION_H
