//===- HostLinker.h - Object file -> shared object, in process --*- C++ -*-===//
//
// Links a host kernel object into the shared object that the host runtime
// loads with dlopen, with lld's ELF driver as a library (no subprocess: 3 ms
// against 40-80 ms for a compiler driver). lld keeps global state, so calls
// are serialized. lld re-parses LLVM's command-line options when it links,
// which resets every llvm::cl option of the process: a tool must read its
// own options before the first compile.
//
// lld reads and writes files: they live in a private folder (0700) under
// $TMPDIR, named for the process that made it, removed on every path out;
// one that a killed compile left is reclaimed by the next compile.
//
// Plain C++ interface: no LLVM types cross it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOSTLINKER_H
#define FUSE_COMPILER_HOSTLINKER_H

#include "runtime/ir/Status.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fuse {

/// The bytes of a shared object linked from ELF relocatable objects (at
/// least one).
Expected<std::vector<std::uint8_t>>
linkHostSharedObject(std::span<const std::vector<std::uint8_t>> objects);

} // namespace fuse

#endif // FUSE_COMPILER_HOSTLINKER_H
