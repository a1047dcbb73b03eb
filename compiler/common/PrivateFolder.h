//===- PrivateFolder.h - A private folder for a tool's files ----*- C++ -*-===//
//
// The files a compile hands to a linker or an assembler (lld's object and
// shared object, ptxas' PTX, cubin and log) live in a folder of their own
// under $TMPDIR, readable by its owner only (0700), removed with what it
// holds on every path out. Its name is PREFIX RANDOM-PID@HOST, so that the
// first folder a process makes with a prefix reclaims those a killed compile
// left (runtime/ir/TemporaryOwner.h: a pid of this host that is gone, or an
// hour old); a young folder of another host stays.
//
// Plain C++ interface.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_COMMON_PRIVATEFOLDER_H
#define FUSE_COMPILER_COMMON_PRIVATEFOLDER_H

#include "runtime/ir/Status.h"

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

class PrivateFolder {
public:
  /// A new folder `prefix`RANDOM-PID@HOST under $TMPDIR; errors say what it
  /// was for (`purpose`: "linking").
  static Expected<PrivateFolder> create(std::string_view prefix,
                                        std::string_view purpose);
  PrivateFolder(PrivateFolder &&other);
  PrivateFolder(const PrivateFolder &) = delete;
  PrivateFolder &operator=(const PrivateFolder &) = delete;
  ~PrivateFolder();

  /// The path of `name` inside the folder.
  std::string file(std::string_view name) const;

private:
  explicit PrivateFolder(std::string path) : path(std::move(path)) {}
  std::string path;
};

/// Writes `bytes` to a new file at `path`, readable by its owner only; an
/// existing file or a link there is an error.
Status writePrivateFile(const std::string &path,
                        std::span<const std::uint8_t> bytes);

/// The files of one run of a tool (the linker, ptxas) in a PrivateFolder of
/// their own: its input, already written there, and the paths of the files
/// it will write.
struct ToolFiles {
  PrivateFolder folder;
  std::string input;
  std::vector<std::string> outputs;
};

/// A new folder as PrivateFolder::create makes it, holding `input` as the
/// private file `inputName`, with the paths of `outputNames` in it.
Expected<ToolFiles>
prepareToolFiles(std::string_view prefix, std::string_view purpose,
                 std::string_view inputName,
                 std::span<const std::uint8_t> input,
                 std::initializer_list<std::string_view> outputNames);

} // namespace fuse

#endif // FUSE_COMPILER_COMMON_PRIVATEFOLDER_H
