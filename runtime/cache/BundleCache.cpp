//===- BundleCache.cpp - Compiled bundles in memory and on disk -----------===//

#include "runtime/cache/BundleCache.h"

#include "runtime/Version.h"
#include "runtime/cache/BundleFile.h"
#include "runtime/ir/TemporaryOwner.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fuse {

static constexpr std::string_view kEntrySuffix = ".fbundle";
static constexpr std::string_view kKernelSuffix = ".fkernel";
static constexpr std::string_view kTempPrefix = ".tmp-";
static constexpr std::string_view kMarkerName = ".fuse-cache";

static std::string errnoText() { return std::strerror(errno); }

static const std::string kRecompileGraph = "the graph will be recompiled";
static const std::string kRecompileKernel = "the kernel will be recompiled";

static std::string modeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", unsigned(mode & 07777));
  return text;
}

/// Why `info` (of `path`) must not be trusted, or success.
static Status checkOwnedAndPrivate(const std::string &path,
                                   const struct stat &info) {
  if (info.st_uid != geteuid())
    return Status::error(
        path + " is owned by uid " + std::to_string(info.st_uid) +
        ", not by the current user (uid " + std::to_string(geteuid()) + ")");
  if (info.st_mode & (S_IWGRP | S_IWOTH))
    return Status::error(path + " is writable by " +
                         ((info.st_mode & S_IWOTH) ? "others" : "its group") +
                         " (mode " + modeText(info.st_mode) +
                         "); the cache holds native code, so it must be "
                         "writable only by its owner (chmod go-w)");
  return Status::success();
}

Expected<std::string> BundleCache::defaultDirectory() {
  if (const char *dir = std::getenv("FUSE_CACHE_DIR"); dir && *dir)
    return std::string(dir);
  const char *home = std::getenv("HOME");
  if (!home || !*home) {
    const struct passwd *user = getpwuid(geteuid());
    home = user ? user->pw_dir : nullptr;
  }
  if (!home || !*home)
    return Status::error("no cache directory: neither FUSE_CACHE_DIR nor "
                         "HOME is set");
  return std::string(home) + "/.cache/fuse";
}

/// mkdir -p; every directory it creates is private.
static Status makeDirectories(const std::string &path) {
  for (std::size_t slash = path.find('/', 1);;
       slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return Status::error("cannot create the cache directory " + prefix +
                           ": " + errnoText());
    if (slash == std::string::npos)
      return Status::success();
  }
}

static bool isTemporaryName(std::string_view name) {
  return name.starts_with(kTempPrefix);
}

static bool isEntryName(std::string_view name) {
  return name.size() == 64 + kEntrySuffix.size() &&
         name.ends_with(kEntrySuffix) &&
         BundleKey::isKeyHex(name.substr(0, 64));
}

static bool isKernelName(std::string_view name) {
  return name.size() == 64 + kKernelSuffix.size() &&
         name.ends_with(kKernelSuffix) &&
         BundleKey::isKeyHex(name.substr(0, 64));
}

/// Removes the temporary files that no writer will rename (isStaleTemporary:
/// a killed store leaves them, and the size bound does not count them).
static void reclaimStaleTemporaries(const std::string &directory) {
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return;
  while (const struct dirent *item = ::readdir(dir)) {
    std::string_view name = item->d_name;
    if (!isTemporaryName(name))
      continue;
    struct stat info;
    if (::fstatat(::dirfd(dir), item->d_name, &info, AT_SYMLINK_NOFOLLOW) !=
            0 ||
        S_ISDIR(info.st_mode))
      continue;
    if (isStaleTemporary(name, std::int64_t(info.st_mtim.tv_sec)))
      ::unlinkat(::dirfd(dir), item->d_name, 0);
  }
  ::closedir(dir);
}

/// Makes sure the directory is Fuse's before anything is written to it or
/// removed from it: it holds the marker, or it holds nothing but what the
/// cache writes (a new or empty folder, or a cache from before the marker)
/// and is marked now. Anything else (FUSE_CACHE_DIR=/, a home folder) is
/// refused, naming a file that is not the cache's.
static Status adoptDirectory(const std::string &directory) {
  std::string marker = directory + "/" + std::string(kMarkerName);
  struct stat info;
  if (::lstat(marker.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode))
      return Status::error("refusing the cache directory " + directory + ": " +
                           marker + " is not a regular file");
    return Status::success();
  }
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return Status::error("cannot read the cache directory " + directory + ": " +
                         errnoText());
  std::string foreign;
  while (const struct dirent *item = ::readdir(dir)) {
    std::string_view name = item->d_name;
    // The marker too: another process may have just adopted the folder.
    if (name == "." || name == ".." || name == kMarkerName ||
        isEntryName(name) || isKernelName(name) || isTemporaryName(name))
      continue;
    foreign = name;
    break;
  }
  ::closedir(dir);
  if (!foreign.empty())
    return Status::error(
        "refusing the cache directory " + directory + ": it holds '" + foreign +
        "', which is not a cache entry, and no " + std::string(kMarkerName) +
        " marker, so Fuse did not make it; give a new or empty directory "
        "(the cache writes native code there and removes files it takes "
        "for its own)");
  // The marker spares the next open this scan; failing to write it (a
  // read-only folder) leaves the cache usable.
  int fd = ::open(marker.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    static constexpr std::string_view kText =
        "This directory is a Fuse bundle cache (fuse-cache clear empties "
        "it).\n";
    [[maybe_unused]] ssize_t written = ::write(fd, kText.data(), kText.size());
    ::close(fd);
  }
  return Status::success();
}

Expected<std::unique_ptr<BundleCache>>
BundleCache::open(BundleCacheOptions options) {
  if (options.directory.empty()) {
    Expected<std::string> dir = defaultDirectory();
    if (!dir.ok())
      return dir.status();
    options.directory = dir.take();
  }
  while (options.directory.size() > 1 && options.directory.back() == '/')
    options.directory.pop_back();
  if (Status made = makeDirectories(options.directory); !made.ok())
    return made;
  struct stat info;
  if (stat(options.directory.c_str(), &info) != 0)
    return Status::error("cannot use the cache directory " + options.directory +
                         ": " + errnoText());
  if (!S_ISDIR(info.st_mode))
    return Status::error("the cache directory " + options.directory +
                         " is not a directory");
  if (Status safe = checkOwnedAndPrivate(options.directory, info); !safe.ok())
    return Status::error("refusing the cache directory: " + safe.message());
  if (Status ours = adoptDirectory(options.directory); !ours.ok())
    return ours;
  reclaimStaleTemporaries(options.directory);
  return std::unique_ptr<BundleCache>(new BundleCache(std::move(options)));
}

BundleCache::BundleCache(BundleCacheOptions options)
    : options(std::move(options)) {}

std::string BundleCache::pathFor(const std::string &keyHex) const {
  return options.directory + "/" + keyHex + std::string(kEntrySuffix);
}

void BundleCache::report(const std::string &message) {
  if (options.onProblem)
    options.onProblem(message);
  else
    std::fprintf(stderr, "fuse cache: %s\n", message.c_str());
}

BundleCacheStats BundleCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void BundleCache::rememberInMemory(const std::string &keyHex,
                                   std::shared_ptr<const Bundle> bundle,
                                   std::uint64_t bytes) {
  forgetInMemory(keyHex);
  if (bytes > options.maxMemoryBytes)
    return;
  recency.push_front({keyHex, std::move(bundle), bytes});
  byKey[keyHex] = recency.begin();
  memoryBytes += bytes;
  while (memoryBytes > options.maxMemoryBytes) {
    memoryBytes -= recency.back().bytes;
    byKey.erase(recency.back().keyHex);
    recency.pop_back();
    ++counters.evictions;
  }
}

void BundleCache::forgetInMemory(const std::string &keyHex) {
  auto found = byKey.find(keyHex);
  if (found == byKey.end())
    return;
  memoryBytes -= found->second->bytes;
  recency.erase(found->second);
  byKey.erase(found);
}

//===----------------------------------------------------------------------===//
// Disk
//===----------------------------------------------------------------------===//

namespace {
/// Closes a file descriptor on every path out.
struct FileDescriptor {
  int fd = -1;
  explicit FileDescriptor(int fd) : fd(fd) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};
} // namespace

static bool readAll(int fd, std::vector<std::uint8_t> &bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got =
        ::pread(fd, bytes.data() + done, bytes.size() - done, off_t(done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    done += std::size_t(got);
  }
  return true;
}

static bool writeAll(int fd, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    done += std::size_t(put);
  }
  return true;
}

Status BundleCache::discard(const std::string &path, const struct stat *judged,
                            const std::string &what,
                            const std::string &consequence) {
  // Remove only the file that was judged: another process may have renamed
  // a fresh entry into place meanwhile.
  struct stat now;
  bool same =
      !judged || (lstat(path.c_str(), &now) == 0 &&
                  now.st_ino == judged->st_ino && now.st_dev == judged->st_dev);
  std::string outcome = "removed it; " + consequence;
  if (same && ::unlink(path.c_str()) != 0 && errno != ENOENT)
    outcome = "could not remove it: " + errnoText();
  ++counters.corruptRemoved;
  std::string message = path + ": " + what + "; " + outcome;
  report(message);
  return Status::error(message);
}

Expected<std::vector<std::uint8_t>>
BundleCache::readFile(const std::string &path, const std::string &consequence,
                      bool &absent, struct stat &info) {
  absent = false;
  // O_NONBLOCK: a FIFO in the entry's place must not block the open (it is
  // refused as not a regular file below).
  FileDescriptor file(
      ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (file.fd < 0 && errno == ENOENT) {
    absent = true;
    return Status::error("no entry " + path);
  }
  auto problem = [&](const std::string &what) -> Status {
    return discard(path, file.fd < 0 ? nullptr : &info, what, consequence);
  };
  if (file.fd < 0)
    return problem(errno == ELOOP ? "the entry is a symbolic link"
                                  : "cannot open the entry: " + errnoText());
  if (fstat(file.fd, &info) != 0)
    return problem("cannot stat the entry: " + errnoText());
  if (!S_ISREG(info.st_mode))
    return problem("the entry is not a regular file");
  if (int flags = ::fcntl(file.fd, F_GETFL); flags >= 0)
    ::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
  if (Status safe = checkOwnedAndPrivate(path, info); !safe.ok())
    return problem("refusing the entry: " + safe.message());
  if (std::uint64_t(info.st_size) > options.maxDiskBytes)
    return problem("the entry is larger than the cache's bound of " +
                   std::to_string(options.maxDiskBytes) + " bytes");
  std::vector<std::uint8_t> bytes(std::size_t(info.st_size));
  if (!readAll(file.fd, bytes))
    return problem("cannot read the entry: " + errnoText());
  // The modification time is the disk LRU's clock.
  ::futimens(file.fd, nullptr);
  return bytes;
}

Expected<std::pair<BundleKey, Bundle>>
BundleCache::loadFromDisk(const std::string &keyHex, const BundleKey *expected,
                          std::uint64_t &fileBytes, bool &absent) {
  std::string path = pathFor(keyHex);
  struct stat info {};
  Expected<std::vector<std::uint8_t>> read =
      readFile(path, kRecompileGraph, absent, info);
  if (!read.ok())
    return absent ? Status::error("no entry for key " + keyHex + " in " +
                                  options.directory)
                  : read.status();
  const std::vector<std::uint8_t> &bytes = *read;
  fileBytes = bytes.size();
  auto problem = [&](const std::string &what) {
    return discard(path, &info, what, kRecompileGraph);
  };

  Expected<BundleFileContents> contents = decodeBundleFile(bytes);
  if (!contents.ok())
    return problem(contents.message());
  const BundleKey &stored = contents->key;
  std::string wantVersion = expected ? expected->versionId : versionId();
  if (stored.versionId != wantVersion)
    return problem("the entry was made by another version of Fuse (version "
                   "id " +
                   stored.versionId + "; this build is " + wantVersion + ")");
  if (expected && stored.target != expected->target)
    return problem("the entry is for target '" + stored.target +
                   "'; the lookup is for '" + expected->target + "'");
  if (stored.toHex() != keyHex)
    return problem("the entry holds key " + stored.toHex() +
                   " but is stored under key " + keyHex);
  if (Status matches = checkBundleMatchesKey(contents->bundle, stored);
      !matches.ok())
    return problem(matches.message());
  return std::make_pair(std::move(contents->key), std::move(contents->bundle));
}

std::optional<Bundle> BundleCache::lookup(const BundleKey &key) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string keyHex = key.toHex();
  if (auto found = byKey.find(keyHex); found != byKey.end()) {
    recency.splice(recency.begin(), recency, found->second);
    ++counters.memoryHits;
    return *found->second->bundle;
  }
  std::uint64_t bytes = 0;
  bool absent = false;
  auto loaded = loadFromDisk(keyHex, &key, bytes, absent);
  if (!loaded.ok()) {
    ++counters.misses;
    return std::nullopt;
  }
  ++counters.diskHits;
  // One the memory would not keep is handed over, not copied (a one-shot
  // program sets maxMemoryBytes to 0).
  if (bytes > options.maxMemoryBytes)
    return std::move(loaded->second);
  auto bundle = std::make_shared<const Bundle>(std::move(loaded->second));
  rememberInMemory(keyHex, bundle, bytes);
  return *bundle;
}

Expected<std::pair<BundleKey, Bundle>>
BundleCache::load(const std::string &keyHex) {
  if (!BundleKey::isKeyHex(keyHex))
    return Status::error("'" + keyHex +
                         "' is not a cache key (64 lowercase hex digits)");
  std::lock_guard<std::mutex> lock(mutex);
  std::uint64_t bytes = 0;
  bool absent = false;
  return loadFromDisk(keyHex, nullptr, bytes, absent);
}

Status BundleCache::writeFile(const std::string &keyHex,
                              const std::string &path,
                              std::span<const std::uint8_t> bytes) {
  static std::atomic<std::uint64_t> sequence{0};
  std::string temp =
      options.directory + "/" + std::string(kTempPrefix) + keyHex + "-" +
      std::to_string(sequence++) + "-" +
      std::to_string(
          std::chrono::steady_clock::now().time_since_epoch().count()) +
      "-" + temporaryOwnerTag();
  {
    FileDescriptor file(
        ::open(temp.c_str(),
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (file.fd < 0)
      return Status::error("cannot create " + temp + ": " + errnoText());
    if (!writeAll(file.fd, bytes) || ::fsync(file.fd) != 0) {
      Status error = Status::error("cannot write " + temp + ": " + errnoText());
      ::unlink(temp.c_str());
      return error;
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    Status error = Status::error("cannot rename " + temp + " to " + path +
                                 ": " + errnoText());
    ::unlink(temp.c_str());
    return error;
  }
  // Make the rename itself durable.
  if (FileDescriptor dir(::open(options.directory.c_str(),
                                O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      dir.fd >= 0)
    ::fsync(dir.fd);
  return Status::success();
}

Status BundleCache::store(const BundleKey &key, const Bundle &bundle) {
  if (Status matches = checkBundleMatchesKey(bundle, key); !matches.ok())
    return Status::error("refusing to cache a bundle under a key that does "
                         "not name it: " +
                         matches.message());
  std::vector<std::uint8_t> bytes = encodeBundleFile(key, bundle);
  if (bytes.size() > options.maxDiskBytes)
    return Status::error("the bundle takes " + std::to_string(bytes.size()) +
                         " bytes, more than the cache's bound of " +
                         std::to_string(options.maxDiskBytes));

  std::string keyHex = key.toHex();
  if (Status written = writeFile(keyHex, pathFor(keyHex), bytes); !written.ok())
    return written;

  std::lock_guard<std::mutex> lock(mutex);
  ++counters.stores;
  rememberInMemory(keyHex, std::make_shared<const Bundle>(bundle),
                   bytes.size());
  evictOnDisk(keyHex + std::string(kEntrySuffix));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

std::string BundleCache::kernelPathFor(const std::string &keyHex) const {
  return options.directory + "/" + keyHex + std::string(kKernelSuffix);
}

std::optional<KernelFile> BundleCache::loadKernel(const std::string &keyHex) {
  if (!BundleKey::isKeyHex(keyHex))
    return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex);
  std::string path = kernelPathFor(keyHex);
  struct stat info {};
  bool absent = false;
  Expected<std::vector<std::uint8_t>> read =
      readFile(path, kRecompileKernel, absent, info);
  if (!read.ok())
    return std::nullopt;
  Expected<KernelFile> kernel = decodeKernelFile(*read, keyHex, versionId());
  if (!kernel.ok()) {
    // Reported by discard; the kernel is compiled again (a miss).
    (void)discard(path, &info, kernel.message(), kRecompileKernel);
    return std::nullopt;
  }
  ++counters.kernelHits;
  return kernel.take();
}

Status BundleCache::storeKernel(const std::string &keyHex,
                                const KernelFile &kernel) {
  if (!BundleKey::isKeyHex(keyHex))
    return Status::error("'" + keyHex +
                         "' is not a kernel key (64 lowercase hex digits)");
  std::vector<std::uint8_t> bytes =
      encodeKernelFile(keyHex, versionId(), kernel);
  if (bytes.size() > options.maxDiskBytes)
    return Status::error("the kernel takes " + std::to_string(bytes.size()) +
                         " bytes, more than the cache's bound of " +
                         std::to_string(options.maxDiskBytes));
  if (Status written = writeFile(keyHex, kernelPathFor(keyHex), bytes);
      !written.ok())
    return written;
  std::lock_guard<std::mutex> lock(mutex);
  ++counters.kernelStores;
  evictOnDisk(keyHex + std::string(kKernelSuffix));
  return Status::success();
}

namespace {
struct DiskEntry {
  std::string name;
  std::uint64_t bytes;
  struct timespec modified;
};
} // namespace

/// What scan() lists.
enum class Files { Bundles, Kernels, Stored, Temporaries };

/// The directory's bundle entries, kernel files, both, or temporary files.
static Expected<std::vector<DiskEntry>> scan(const std::string &directory,
                                             Files files) {
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return Status::error("cannot read the cache directory " + directory + ": " +
                         errnoText());
  std::vector<DiskEntry> entries;
  while (const struct dirent *item = ::readdir(dir)) {
    std::string_view name = item->d_name;
    bool wanted = files == Files::Temporaries ? isTemporaryName(name)
                  : files == Files::Bundles   ? isEntryName(name)
                  : files == Files::Kernels
                      ? isKernelName(name)
                      : isEntryName(name) || isKernelName(name);
    if (!wanted)
      continue;
    struct stat info;
    if (::fstatat(::dirfd(dir), item->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    entries.push_back(
        {std::string(name), std::uint64_t(info.st_size), info.st_mtim});
  }
  ::closedir(dir);
  return entries;
}

static bool olderThan(const DiskEntry &a, const DiskEntry &b) {
  if (a.modified.tv_sec != b.modified.tv_sec)
    return a.modified.tv_sec < b.modified.tv_sec;
  return a.modified.tv_nsec < b.modified.tv_nsec;
}

void BundleCache::evictOnDisk(const std::string &keep) {
  reclaimStaleTemporaries(options.directory);
  Expected<std::vector<DiskEntry>> entries =
      scan(options.directory, Files::Stored);
  if (!entries.ok())
    return;
  std::uint64_t total = 0;
  for (const DiskEntry &entry : *entries)
    total += entry.bytes;
  std::sort(entries->begin(), entries->end(), olderThan);
  for (const DiskEntry &entry : *entries) {
    if (total <= options.maxDiskBytes)
      break;
    std::string keyHex = entry.name.substr(0, 64);
    if (entry.name == keep)
      continue;
    if (::unlink((options.directory + "/" + entry.name).c_str()) == 0) {
      ++counters.evictions;
      forgetInMemory(keyHex);
    }
    total -= entry.bytes;
  }
}

Expected<std::vector<BundleCacheEntry>> BundleCache::list() {
  return listFiles(/*kernels=*/false);
}

Expected<std::vector<BundleCacheEntry>> BundleCache::listKernels() {
  return listFiles(/*kernels=*/true);
}

Expected<std::vector<BundleCacheEntry>> BundleCache::listFiles(bool kernels) {
  Expected<std::vector<DiskEntry>> entries =
      scan(options.directory, kernels ? Files::Kernels : Files::Bundles);
  if (!entries.ok())
    return entries.status();
  std::sort(
      entries->begin(), entries->end(),
      [](const DiskEntry &a, const DiskEntry &b) { return olderThan(b, a); });
  std::vector<BundleCacheEntry> result;
  for (const DiskEntry &entry : *entries)
    result.push_back({entry.name.substr(0, 64), entry.bytes,
                      std::int64_t(entry.modified.tv_sec)});
  return result;
}

Status BundleCache::remove(const std::string &keyHex) {
  if (!BundleKey::isKeyHex(keyHex))
    return Status::error("'" + keyHex +
                         "' is not a cache key (64 lowercase hex digits)");
  std::lock_guard<std::mutex> lock(mutex);
  forgetInMemory(keyHex);
  std::string path = pathFor(keyHex);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return Status::error("cannot remove " + path + ": " + errnoText());
  return Status::success();
}

BundleCacheVerifyReport BundleCache::verify() {
  BundleCacheVerifyReport result;
  Expected<std::vector<BundleCacheEntry>> entries = list();
  if (!entries.ok()) {
    result.problems.push_back(entries.message());
    return result;
  }
  std::lock_guard<std::mutex> lock(mutex);
  for (const BundleCacheEntry &entry : *entries) {
    std::uint64_t bytes = 0;
    bool absent = false;
    auto loaded = loadFromDisk(entry.keyHex, nullptr, bytes, absent);
    if (absent)
      continue;
    ++result.checked;
    if (!loaded.ok()) {
      forgetInMemory(entry.keyHex);
      result.problems.push_back(loaded.message());
    }
  }
  return result;
}

Status BundleCache::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  recency.clear();
  byKey.clear();
  memoryBytes = 0;
  for (Files files : {Files::Stored, Files::Temporaries}) {
    Expected<std::vector<DiskEntry>> entries = scan(options.directory, files);
    if (!entries.ok())
      return entries.status();
    for (const DiskEntry &entry : *entries) {
      std::string path = options.directory + "/" + entry.name;
      if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        return Status::error("cannot remove " + path + ": " + errnoText());
    }
  }
  return Status::success();
}

} // namespace fuse
