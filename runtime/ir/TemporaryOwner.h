//===- TemporaryOwner.h - Who may still write a temporary file --*- C++ -*-===//
//
// A process killed between creating a temporary file (or folder) and
// renaming or removing it leaves it behind, and nothing else would ever
// remove it. Its name ends with its owner's tag, "-PID@HOST", so that a
// later process can tell (as ccache does) whether the writer is gone: a pid
// of this host that no longer exists. A pid means nothing on another host
// sharing the folder (NFS), so such a file is only reclaimed by age.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_TEMPORARYOWNER_H
#define FUSE_RUNTIME_IR_TEMPORARYOWNER_H

#include <cstdint>
#include <string>
#include <string_view>

namespace fuse {

/// A writer holds a temporary file for seconds; one older than this was
/// left by a writer that died, whatever its tag says.
inline constexpr std::int64_t kStaleTemporarySeconds = 3600;

/// "PID@HOST" for this process (the host name reduced to [A-Za-z0-9._-]).
std::string temporaryOwnerTag();

/// Whether `name` ends with "-PID@HOST" naming this host and a pid that no
/// longer exists. False when it cannot tell (no tag, another host).
bool temporaryOwnerIsGone(std::string_view name);

/// Whether a temporary file `name`, last modified at `modifiedSeconds`
/// (since the epoch), will never be finished by its writer.
bool isStaleTemporary(std::string_view name, std::int64_t modifiedSeconds);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_TEMPORARYOWNER_H
