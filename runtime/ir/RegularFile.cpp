//===- RegularFile.cpp - Reading a file named by a user -------------------===//

#include "runtime/ir/RegularFile.h"

#include "runtime/ir/Allocation.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace fuse {

static std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

Expected<RegularFile> RegularFile::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return Status::error("cannot read '" + path + "': " + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    Status error =
        Status::error("cannot read '" + path + "': " + std::strerror(errno));
    ::close(fd);
    return error;
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    std::string kind = kindOf(info.st_mode);
    return Status::error("cannot read '" + path + "': it is " + kind +
                         ", not a regular file");
  }
  // Reads of a regular file never block; clear the flag all the same so
  // that no read can return EAGAIN.
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return RegularFile(path, fd, std::uint64_t(info.st_size));
}

RegularFile::RegularFile(RegularFile &&other) noexcept
    : filePath(std::move(other.filePath)), fd(std::exchange(other.fd, -1)),
      fileSize(other.fileSize) {}

RegularFile &RegularFile::operator=(RegularFile &&other) noexcept {
  if (this != &other) {
    if (fd >= 0)
      ::close(fd);
    filePath = std::move(other.filePath);
    fd = std::exchange(other.fd, -1);
    fileSize = other.fileSize;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd >= 0)
    ::close(fd);
}

/// Bytes read at `offset` into `bytes` until it is full or the file ends;
/// -1 on an error (errno set).
static std::int64_t readUpTo(int fd, std::uint64_t offset,
                             std::span<std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::pread(fd, bytes.data() + done, bytes.size() - done,
                          off_t(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -1;
    if (got == 0)
      break;
    done += std::size_t(got);
  }
  return std::int64_t(done);
}

Status RegularFile::readAt(std::uint64_t offset,
                           std::span<std::uint8_t> bytes) const {
  std::int64_t got = readUpTo(fd, offset, bytes);
  if (got < 0)
    return Status::error("cannot read '" + filePath +
                         "': " + std::strerror(errno));
  if (std::uint64_t(got) != bytes.size())
    return Status::error("'" + filePath + "' ends at byte " +
                         std::to_string(offset + std::uint64_t(got)) +
                         "; expected " + std::to_string(bytes.size()) +
                         " bytes from byte " + std::to_string(offset));
  return Status::success();
}

Expected<std::string> RegularFile::readAll(std::uint64_t maxBytes) const {
  auto tooLarge = [&] {
    return Status::error("'" + filePath + "' is larger than " +
                         std::to_string(maxBytes) +
                         " bytes, the most accepted");
  };
  if (fileSize > maxBytes)
    return tooLarge();
  if (Status room =
          checkAllocatable(fileSize + 1, "reading '" + filePath + "'");
      !room.ok())
    return room;
  std::string contents;
  try {
    // The size when opened, then a little more to see the end (or growth).
    std::uint64_t capacity = fileSize + 1;
    while (true) {
      std::size_t have = contents.size();
      contents.resize(std::size_t(capacity));
      std::int64_t got =
          readUpTo(fd, have,
                   std::span<std::uint8_t>(
                       reinterpret_cast<std::uint8_t *>(contents.data()) + have,
                       contents.size() - have));
      if (got < 0)
        return Status::error("cannot read '" + filePath +
                             "': " + std::strerror(errno));
      contents.resize(have + std::size_t(got));
      if (contents.size() < capacity)
        return contents;
      if (contents.size() > maxBytes)
        return tooLarge();
      capacity = std::min<std::uint64_t>(capacity * 2 + 4096, maxBytes + 1);
    }
  } catch (const std::bad_alloc &) {
    return Status::error("cannot allocate " + std::to_string(fileSize) +
                         " bytes to read '" + filePath + "'");
  }
}

Expected<MappedFile> MappedFile::map(const RegularFile &file) {
  MappedFile mapped;
  if (file.size() == 0)
    return mapped;
  if (file.size() > std::uint64_t(SIZE_MAX))
    return Status::error("cannot map '" + file.path() + "': it is " +
                         std::to_string(file.size()) + " bytes long");
  void *address = ::mmap(nullptr, std::size_t(file.size()), PROT_READ,
                         MAP_PRIVATE | MAP_POPULATE, file.fd, 0);
  if (address == MAP_FAILED)
    return Status::error("cannot map '" + file.path() +
                         "': " + std::strerror(errno));
  mapped.address = static_cast<const char *>(address);
  mapped.length = std::size_t(file.size());
  return mapped;
}

MappedFile::MappedFile(MappedFile &&other) noexcept
    : address(std::exchange(other.address, nullptr)),
      length(std::exchange(other.length, 0)) {}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this != &other) {
    if (address)
      ::munmap(const_cast<char *>(address), length);
    address = std::exchange(other.address, nullptr);
    length = std::exchange(other.length, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (address)
    ::munmap(const_cast<char *>(address), length);
}

Expected<std::string> readRegularFile(const std::string &path,
                                      std::uint64_t maxBytes) {
  Expected<RegularFile> file = RegularFile::open(path);
  if (!file.ok())
    return file.status();
  return file->readAll(maxBytes);
}

} // namespace fuse
