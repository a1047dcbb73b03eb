//===- PrivateFolder.cpp - A private folder for a tool's files ------------===//

#include "compiler/common/PrivateFolder.h"

#include "runtime/ir/TemporaryOwner.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace fuse {

namespace {

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

/// Removes the folders named `prefix`* of this user that a killed compile
/// left in `tempDir` (isStaleTemporary: the pid in the name is gone, or an
/// hour old).
void reclaimStaleFolders(const std::string &tempDir, llvm::StringRef prefix) {
  DIR *dir = ::opendir(tempDir.c_str());
  if (!dir)
    return;
  while (const struct dirent *item = ::readdir(dir)) {
    llvm::StringRef name = item->d_name;
    struct stat info;
    if (!name.starts_with(prefix) ||
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

} // namespace

Expected<PrivateFolder> PrivateFolder::create(std::string_view prefix,
                                              std::string_view purpose) {
  llvm::SmallString<128> tempDir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, tempDir);
  std::string base = tempDir.str().str();
  {
    // Once per prefix and process: the first folder reclaims those of
    // killed compiles.
    static std::mutex mutex;
    static std::set<std::string> reclaimed;
    std::lock_guard lock(mutex);
    if (reclaimed.insert(base + "/" + std::string(prefix)).second)
      reclaimStaleFolders(base, llvm::StringRef(prefix.data(), prefix.size()));
  }
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string path = base + "/" + std::string(prefix) +
                       llvm::utohexstr(random(), /*LowerCase=*/true) + "-" +
                       temporaryOwnerTag();
    if (::mkdir(path.c_str(), 0700) == 0)
      return PrivateFolder(path);
    if (errno != EEXIST)
      return Status::error("cannot create a folder for " +
                           std::string(purpose) + " in " + base + ": " +
                           std::strerror(errno));
  }
  return Status::error("cannot create a folder for " + std::string(purpose) +
                       " in " + base + ": every name tried exists");
}

PrivateFolder::PrivateFolder(PrivateFolder &&other)
    : path(std::move(other.path)) {
  other.path.clear();
}

PrivateFolder::~PrivateFolder() {
  if (!path.empty())
    removeFolder(path);
}

std::string PrivateFolder::file(std::string_view name) const {
  return path + "/" + std::string(name);
}

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

Expected<ToolFiles>
prepareToolFiles(std::string_view prefix, std::string_view purpose,
                 std::string_view inputName,
                 std::span<const std::uint8_t> input,
                 std::initializer_list<std::string_view> outputNames) {
  Expected<PrivateFolder> folder = PrivateFolder::create(prefix, purpose);
  if (!folder.ok())
    return folder.status();
  ToolFiles files{folder.take(), {}, {}};
  files.input = files.folder.file(inputName);
  for (std::string_view name : outputNames)
    files.outputs.push_back(files.folder.file(name));
  if (Status written = writePrivateFile(files.input, input); !written.ok())
    return written;
  return files;
}

} // namespace fuse
