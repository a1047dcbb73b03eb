//===- FuzzBundle.cpp - Fuzz target: the bundle cache's file reader -------===//
//
// A bundle file (header, key record, payload) is decoded as the cache does;
// its payload is then decoded again without the checksums, as a forger who
// recomputes them would have it read, and verified. Input that does not
// start with the bundle magic is taken as a payload alone. Any bytes end in
// a bundle or an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/Bundle.h"
#include "runtime/cache/BundleFile.h"
#include "runtime/cache/BundleSerialization.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  std::span<const std::uint8_t> payload = bytes;
  if (size >= fuse::kBundleHeaderSize &&
      std::memcmp(data, fuse::kBundleMagic, sizeof(fuse::kBundleMagic)) == 0) {
    fuse::Expected<fuse::BundleFileContents> file =
        fuse::decodeBundleFile(bytes);
    if (file.ok())
      (void)fuse::checkBundleMatchesKey(file->bundle, file->key);
    // The key record's length, little-endian at offset 12.
    std::uint64_t keyLength =
        std::uint64_t(data[12]) | std::uint64_t(data[13]) << 8 |
        std::uint64_t(data[14]) << 16 | std::uint64_t(data[15]) << 24;
    if (keyLength > size - fuse::kBundleHeaderSize)
      return 0;
    payload = bytes.subspan(fuse::kBundleHeaderSize + keyLength);
  }
  fuse::Expected<fuse::Bundle> bundle = fuse::deserializeBundle(payload);
  if (bundle.ok())
    (void)fuse::verifyBundle(*bundle);
  return 0;
}
