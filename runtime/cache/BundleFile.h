//===- BundleFile.h - The on-disk form of one cache entry -------*- C++ -*-===//
//
// One cache file holds one bundle behind a fixed header that is written and
// checked by hand before cereal reads a byte:
//
//   offset size
//        0    8  magic "FUSEBNDL"
//        8    4  format version (little-endian, kBundleFormatVersion)
//       12    4  key record length K (at most kMaxKeyRecordLength)
//       16    8  payload length P
//       24   32  SHA-256 of the key record (BundleKey::digest(): the name)
//       56   32  SHA-256 of the payload
//       88    8  first 8 bytes of SHA-256 over bytes [0, 88) and the key
//                record: damage anywhere in the header is caught
//       96    K  key record (BundleKey::encode())
//     96+K    P  payload (serializeBundle())
//
// The file must be exactly 96 + K + P bytes, so a damaged length is caught
// by the file's size and never becomes an allocation. Decoding says what is
// wrong in words a person can act on. checkBundleMatchesKey then checks that
// the bundle is what its key names: the runtime dlopens host code from
// bundles, so nothing from a file is used before both pass.
//
// No file I/O here (BundleCache does it). Plain C++ only: the runtime never
// links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_BUNDLEFILE_H
#define FUSE_RUNTIME_CACHE_BUNDLEFILE_H

#include "runtime/cache/Bundle.h"
#include "runtime/cache/BundleKey.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fuse {

inline constexpr char kBundleMagic[8] = {'F', 'U', 'S', 'E',
                                         'B', 'N', 'D', 'L'};
/// 2: each distinct kernel payload stored once. 3: symbolic dims (the
/// graph's dim table, kernels' iteration counts and arena slices as dim
/// expressions, issue 22); a file of version 2 is refused as any other
/// version is, and the cache compiles it again. 4: kernels' dims arrays
/// (runtimeDims, dimValues). 5: a bound bundle's dims (Bundle::boundDims).
/// 6: the arena's bound part first (MemoryPlan::boundBytes). 7: a launch's
/// chunks per worker (LaunchConfig::chunksPerWorker).
inline constexpr std::uint32_t kBundleFormatVersion = 7;
inline constexpr std::size_t kBundleHeaderSize = 96;
inline constexpr std::uint32_t kMaxKeyRecordLength = 4096;

/// The whole file for `bundle` under `key`.
std::vector<std::uint8_t> encodeBundleFile(const BundleKey &key,
                                           const Bundle &bundle);

struct BundleFileContents {
  BundleKey key;
  Bundle bundle;
};

/// Checks the header, lengths and checksums, then decodes the key record
/// and the payload. Fails on anything encodeBundleFile did not write.
Expected<BundleFileContents>
decodeBundleFile(std::span<const std::uint8_t> bytes);

/// Whether `bundle` is what `key` names: made by key.versionId for
/// key.target, from a valid graph whose hash is key.graphHash, and
/// structurally sound (verifyBundle).
Status checkBundleMatchesKey(const Bundle &bundle, const BundleKey &key);

/// The machine code of one kernel that a compiler keeps beside the bundles
/// (BundleCache::storeKernel): its object code and the names of its
/// functions in it.
struct KernelFile {
  std::vector<std::uint8_t> object;
  std::vector<std::string> symbols;
  bool operator==(const KernelFile &) const = default;
};

inline constexpr char kKernelMagic[8] = {'F', 'U', 'S', 'E',
                                         'K', 'R', 'N', '1'};

/// A kernel file: kKernelMagic, the version id (u32 length, bytes), the key
/// (64 hex digits), the payload's length (u64) and SHA-256, the payload (the
/// symbol count (u32), each symbol (u32 length, bytes), then the object).
/// Integers are little-endian.
std::vector<std::uint8_t> encodeKernelFile(const std::string &keyHex,
                                           const std::string &versionId,
                                           const KernelFile &kernel);

/// The kernel in `bytes`, or what is wrong with them: not a kernel file,
/// truncated, made by another version than `versionId`, stored under
/// another key than `keyHex`, or damaged (checksum).
Expected<KernelFile> decodeKernelFile(std::span<const std::uint8_t> bytes,
                                      const std::string &keyHex,
                                      const std::string &versionId);

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_BUNDLEFILE_H
