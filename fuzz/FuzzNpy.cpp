//===- FuzzNpy.cpp - Fuzz target: the .npy reader of fuse-run -------------===//
//
// Any bytes end in an array or an error, never a crash, a hang or an
// allocation the bytes do not justify.
//
//===----------------------------------------------------------------------===//

#include "tools/fuse-run/Npy.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  fuse::Expected<fuse::npy::Array> array =
      fuse::npy::parse(std::span<const std::uint8_t>(data, size));
  (void)array.ok();
  return 0;
}
