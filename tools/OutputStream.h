//===- OutputStream.h - A file a user names for one output ------*- C++ -*-===//
//
// A single output file named on the command line (fuse-run --dot, fuse-opt
// -o): a link is followed and a device such as /dev/null or /dev/stdout is
// written (the user named it), but the open never blocks: a FIFO that no
// process reads is an error naming the path, where a plain open waited for a
// reader forever (a FIFO with a reader, such as bash's >(dot -Tpng), is
// written). A directory is an error. A write that fails (/dev/full: no space)
// is an error naming the path when the stream is closed, where LLVM's stream
// aborted the process ("LLVM ERROR: IO failure on output stream").
// Header-only: the tools share no library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_OUTPUTSTREAM_H
#define FUSE_TOOLS_OUTPUTSTREAM_H

#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace fuse {

/// `path` opened for writing (created, truncated if a regular file), or null
/// with `error` saying why.
inline std::unique_ptr<llvm::raw_fd_ostream>
openUserOutput(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(),
                  O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) {
    error = "cannot write '" + path + "': " +
            (errno == ENXIO ? std::string("it is a FIFO that no process reads")
             : errno == EISDIR ? std::string("it is a directory")
                               : std::string(std::strerror(errno)));
    return nullptr;
  }
  struct stat info;
  if (::fstat(fd, &info) != 0 ||
      (S_ISREG(info.st_mode) && ::ftruncate(fd, 0) != 0)) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  // Blocking writes from here: a reader is there, or it is not a FIFO.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
}

/// Flushes `os` and says whether everything written reached `path`;
/// clears the stream's error, so that closing it does not abort.
inline bool finishUserOutput(llvm::raw_fd_ostream &os, const std::string &path,
                             std::string &error) {
  os.flush();
  if (!os.has_error())
    return true;
  error = "cannot write '" + path + "': " + os.error().message();
  os.clear_error();
  return false;
}

} // namespace fuse

#endif // FUSE_TOOLS_OUTPUTSTREAM_H
