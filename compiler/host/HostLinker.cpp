//===- HostLinker.cpp - Object file -> shared object, in process ----------===//

#include "compiler/host/HostLinker.h"

#include "runtime/ir/TemporaryOwner.h"

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace fuse {

namespace {

constexpr llvm::StringLiteral kFolderPrefix = "fuse-link-";

/// Removes `path`, a folder of link files (no subfolders), and what it holds.
void removeFolder(const std::string &path) {
  if (DIR *dir = ::opendir(path.c_str())) {
    while (const struct dirent *item = ::readdir(dir)) {
      llvm::StringRef name = item->d_name;
      if (name != "." && name != "..")
        ::unlinkat(::dirfd(dir), item->d_name, 0);
    }
    ::closedir(dir);
  }
  ::rmdir(path.c_str());
}

/// Removes the link folders of this user that a killed compile left in
/// `tempDir` (isStaleTemporary: the pid in the name is gone, or an hour old).
void reclaimStaleFolders(const std::string &tempDir) {
  DIR *dir = ::opendir(tempDir.c_str());
  if (!dir)
    return;
  while (const struct dirent *item = ::readdir(dir)) {
    llvm::StringRef name = item->d_name;
    struct stat info;
    if (!name.starts_with(kFolderPrefix) ||
        ::fstatat(::dirfd(dir), item->d_name, &info, AT_SYMLINK_NOFOLLOW) !=
            0 ||
        !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid())
      continue;
    if (isStaleTemporary(std::string_view(name.data(), name.size()),
                         std::int64_t(info.st_mtim.tv_sec)))
      removeFolder(tempDir + "/" + name.str());
  }
  ::closedir(dir);
}

/// A private folder (0700) for one link's files, removed with them when it
/// goes out of scope: no other user can read the object code or the shared
/// object lld writes (its `.so.tmp*` file included), and the name ends with
/// the owner's tag so that the next compile reclaims the folder of one that
/// was killed.
class LinkFolder {
public:
  static Expected<LinkFolder> create() {
    llvm::SmallString<128> tempDir;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, tempDir);
    std::string base = tempDir.str().str();
    static std::once_flag reclaimed;
    std::call_once(reclaimed, [&] { reclaimStaleFolders(base); });
    std::random_device random;
    for (int attempt = 0; attempt < 16; ++attempt) {
      std::string path = base + "/" + kFolderPrefix.str() +
                         llvm::utohexstr(random(), /*LowerCase=*/true) + "-" +
                         temporaryOwnerTag();
      if (::mkdir(path.c_str(), 0700) == 0)
        return LinkFolder(path);
      if (errno != EEXIST)
        return Status::error("cannot create a folder for linking in " + base +
                             ": " + std::strerror(errno));
    }
    return Status::error("cannot create a folder for linking in " + base +
                         ": every name tried exists");
  }
  LinkFolder(LinkFolder &&other) : path(std::move(other.path)) {
    other.path.clear();
  }
  LinkFolder(const LinkFolder &) = delete;
  LinkFolder &operator=(const LinkFolder &) = delete;
  ~LinkFolder() {
    if (!path.empty())
      removeFolder(path);
  }

  std::string file(llvm::StringRef name) const {
    return path + "/" + name.str();
  }

private:
  explicit LinkFolder(std::string path) : path(std::move(path)) {}
  std::string path;
};

/// Writes `bytes` to a new file at `path`, readable by its owner only.
Status writePrivateFile(const std::string &path,
                        std::span<const std::uint8_t> bytes) {
  int fd = ::open(path.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return Status::error("cannot create " + path + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      Status error =
          Status::error("cannot write " + path + ": " + std::strerror(errno));
      ::close(fd);
      return error;
    }
    done += std::size_t(put);
  }
  if (::close(fd) != 0)
    return Status::error("cannot write " + path + ": " + std::strerror(errno));
  return Status::success();
}

} // namespace

Expected<std::vector<std::uint8_t>>
linkHostSharedObject(std::span<const std::uint8_t> object) {
  Expected<LinkFolder> folder = LinkFolder::create();
  if (!folder.ok())
    return folder.status();
  std::string objectPath = folder->file("kernels.o");
  std::string sharedPath = folder->file("kernels.so");
  if (Status written = writePrivateFile(objectPath, object); !written.ok())
    return written;

  static std::mutex lldMutex;
  std::lock_guard lock(lldMutex);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  std::string output;
  llvm::raw_string_ostream outputStream(output);
  const char *args[] = {"ld.lld",
                        "-shared",
                        "--hash-style=gnu",
                        "-z",
                        "noexecstack",
                        "-z",
                        "now",
                        "-o",
                        sharedPath.c_str(),
                        objectPath.c_str()};
  // The ELF driver itself, never exiting the process; its context is
  // destroyed after each link so that the next one starts clean.
  bool linked = lld::elf::link(args, outputStream, errorStream,
                               /*exitEarly=*/false, /*disableOutput=*/false);
  lld::CommonLinkerContext::destroy();
  if (!linked)
    return Status::error("linking the host kernels with lld failed: " + errors);

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> shared =
      llvm::MemoryBuffer::getFile(sharedPath);
  if (!shared)
    return Status::error("cannot read the linked shared object: " +
                         shared.getError().message());
  const auto *begin =
      reinterpret_cast<const std::uint8_t *>((*shared)->getBufferStart());
  return std::vector<std::uint8_t>(begin, begin + (*shared)->getBufferSize());
}

} // namespace fuse
