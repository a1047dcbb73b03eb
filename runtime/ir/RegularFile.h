//===- RegularFile.h - Reading a file named by a user -----------*- C++ -*-===//
//
// Every file a user names (a model, an input tensor, a cache entry) is read
// through RegularFile, which never trusts the name: a directory, a FIFO, a
// device (/dev/zero), a socket or a link to one of them is refused with an
// error that names the path, the open never blocks (O_NONBLOCK: a FIFO
// without a writer would wait forever), and every read is bounded, so that a
// file can neither hang the process nor exhaust its memory. It never throws.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_REGULARFILE_H
#define FUSE_RUNTIME_IR_REGULARFILE_H

#include "runtime/ir/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace fuse {

class RegularFile;

/// The bytes of a regular file mapped read-only, unmapped when destroyed.
/// Read in place, they are never copied into the process's own memory (a
/// model's weights, read once); every page is mapped up front (a file read
/// whole: 400 fewer page faults on a 26 MB model). A file cut shorter while
/// it is mapped makes a read past its new end fault (SIGBUS), so a mapping
/// is for a file read soon after it is opened, not kept.
class MappedFile {
public:
  /// The file's bytes up to its size when opened.
  static Expected<MappedFile> map(const RegularFile &file);

  MappedFile() = default;
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {address, length}; }

private:
  const char *address = nullptr;
  std::size_t length = 0;
};

class RegularFile {
public:
  /// Opens `path` for reading, following symbolic links, and requires a
  /// regular file.
  static Expected<RegularFile> open(const std::string &path);

  RegularFile(RegularFile &&other) noexcept;
  RegularFile &operator=(RegularFile &&other) noexcept;
  RegularFile(const RegularFile &) = delete;
  RegularFile &operator=(const RegularFile &) = delete;
  ~RegularFile();

  const std::string &path() const { return filePath; }
  /// The size when it was opened.
  std::uint64_t size() const { return fileSize; }

  /// Fills `bytes` from `offset`; a file shorter than that is an error.
  Status readAt(std::uint64_t offset, std::span<std::uint8_t> bytes) const;
  /// The whole file, read up to its end (a file in /proc reports size 0 but
  /// has contents), if that is at most `maxBytes` long.
  Expected<std::string> readAll(std::uint64_t maxBytes) const;

private:
  friend class MappedFile;
  RegularFile(std::string path, int fd, std::uint64_t size)
      : filePath(std::move(path)), fd(fd), fileSize(size) {}

  std::string filePath;
  int fd = -1;
  std::uint64_t fileSize = 0;
};

/// The whole of the regular file `path`, at most `maxBytes` long.
Expected<std::string> readRegularFile(const std::string &path,
                                      std::uint64_t maxBytes);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_REGULARFILE_H
