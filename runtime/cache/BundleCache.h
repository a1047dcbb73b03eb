//===- BundleCache.h - Compiled bundles in memory and on disk ---*- C++ -*-===//
//
// A graph seen before never compiles again: BundleCache keeps bundles in an
// in-memory LRU in front of a disk store shared by every process of the
// user ($FUSE_CACHE_DIR, default ~/.cache/fuse), one file per key
// (BundleFile.h), both bounded in bytes with least-recently-used eviction.
//
// Safety. Host code in a bundle is native code the runtime dlopens, so:
//   - the directory is created private (0700), and a directory or entry
//     owned by another user or writable by group or others is refused;
//   - the directory must be Fuse's: it holds the marker file `.fuse-cache`,
//     written when the cache adopts a new or empty folder (or one holding
//     only cache files, from before the marker); any other folder
//     (FUSE_CACHE_DIR=/, a home folder) is refused, so the cache never
//     writes into it nor removes from it;
//   - an entry is opened without blocking and must be a regular file (a
//     FIFO in its place is a damaged entry, not a hang);
//   - a bundle is returned only from an entry that passed every check
//     (header, checksums, key, version id, target, graph hash, structure);
//   - a damaged or foreign entry is reported once through the problem sink,
//     removed, and the lookup is a miss, so the caller recompiles: never a
//     crash, never a wrong bundle;
//   - entries are written to a temporary file in the same directory
//     (created 0600 and exclusively), fsync'd, then renamed: a reader sees a
//     whole entry or none, whatever other processes do or however they die.
//     A temporary file whose writer died (its pid, on this host, is gone;
//     or it is over an hour old) is reclaimed when a cache opens or stores.
//
// Thread-safe within a process; processes coordinate only through atomic
// renames. Never throws. Plain C++ only: the runtime never links MLIR or
// LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_BUNDLECACHE_H
#define FUSE_RUNTIME_CACHE_BUNDLECACHE_H

#include "runtime/cache/Bundle.h"
#include "runtime/cache/BundleFile.h"
#include "runtime/cache/BundleKey.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

struct stat;

namespace fuse {

struct BundleCacheOptions {
  /// Empty: defaultDirectory().
  std::string directory;
  std::uint64_t maxDiskBytes = std::uint64_t(2) << 30;
  std::uint64_t maxMemoryBytes = std::uint64_t(256) << 20;
  /// Receives one message per damaged or foreign entry, naming the file and
  /// the problem; null: printed to stderr.
  std::function<void(const std::string &)> onProblem;
};

struct BundleCacheStats {
  std::uint64_t memoryHits = 0;
  std::uint64_t diskHits = 0;
  std::uint64_t misses = 0;
  std::uint64_t stores = 0;
  /// Entries dropped to stay within a size bound, in memory or on disk.
  std::uint64_t evictions = 0;
  std::uint64_t corruptRemoved = 0;
  /// Kernel files read (verified) and written (loadKernel, storeKernel).
  std::uint64_t kernelHits = 0;
  std::uint64_t kernelStores = 0;
};

struct BundleCacheEntry {
  std::string keyHex;
  std::uint64_t bytes = 0;
  /// Last use, seconds since the epoch (the file's modification time).
  std::int64_t lastUsed = 0;
};

struct BundleCacheVerifyReport {
  std::size_t checked = 0;
  /// One message per entry that failed and was removed.
  std::vector<std::string> problems;
};

class BundleCache {
public:
  /// $FUSE_CACHE_DIR if set and not empty, else $HOME/.cache/fuse.
  static Expected<std::string> defaultDirectory();

  /// Creates the directory (0700) if needed and checks that it is safe:
  /// a directory, owned by the current user, not writable by group or
  /// others, and Fuse's (the `.fuse-cache` marker, or adopted: see above).
  /// The error names the path and what is wrong. Reclaims stale temporary
  /// files.
  static Expected<std::unique_ptr<BundleCache>>
  open(BundleCacheOptions options);

  /// A verified bundle for `key`, or nullopt (absent, or damaged and now
  /// removed).
  std::optional<Bundle> lookup(const BundleKey &key);
  /// Refuses a bundle that does not match `key` (checkBundleMatchesKey) or
  /// is larger than the disk bound.
  Status store(const BundleKey &key, const Bundle &bundle);
  /// Removes the entry of `keyHex` from memory and disk; absent is no error.
  Status remove(const std::string &keyHex);
  /// The entries on disk, most recently used first.
  Expected<std::vector<BundleCacheEntry>> list();
  /// The kernel files on disk (storeKernel), most recently used first.
  Expected<std::vector<BundleCacheEntry>> listKernels();
  /// The verified bundle and key of an entry named by its hex key, or why
  /// there is none (a damaged entry is reported and removed).
  Expected<std::pair<BundleKey, Bundle>> load(const std::string &keyHex);
  /// Checks every entry on disk as lookup would, removing damaged ones.
  BundleCacheVerifyReport verify();
  /// Removes every entry and leftover temporary file; clears memory.
  Status clear();

  /// The machine code of single kernels, by content, for a compiler that
  /// compiles only the kernels it has not seen (HostCompiler): a file per
  /// key beside the bundles (`KEY.fkernel`), with the version id, the key
  /// and a checksum of the payload, written and checked with the same care
  /// as bundles, and counted in the same disk bound (BundleFile.h has its
  /// format). A damaged or foreign file is reported, removed and a miss.
  std::optional<KernelFile> loadKernel(const std::string &keyHex);
  Status storeKernel(const std::string &keyHex, const KernelFile &kernel);

  BundleCacheStats stats() const;
  const std::string &directory() const { return options.directory; }
  std::string pathFor(const std::string &keyHex) const;

private:
  explicit BundleCache(BundleCacheOptions options);

  struct MemoryEntry {
    std::string keyHex;
    std::shared_ptr<const Bundle> bundle;
    std::uint64_t bytes;
  };

  /// Reads and checks one file; `expected` is the key a lookup asked for.
  /// On failure reports, removes and returns the problem.
  Expected<std::pair<BundleKey, Bundle>> loadFromDisk(const std::string &keyHex,
                                                      const BundleKey *expected,
                                                      std::uint64_t &fileBytes,
                                                      bool &absent);
  void report(const std::string &message);
  void rememberInMemory(const std::string &keyHex,
                        std::shared_ptr<const Bundle> bundle,
                        std::uint64_t bytes);
  void forgetInMemory(const std::string &keyHex);
  /// Drops the oldest files (bundles and kernels) until the disk bound
  /// holds, never the file named `keep`.
  void evictOnDisk(const std::string &keep);
  /// Reads a cache file: opened without following a link or blocking on a
  /// FIFO, a regular file of this user's that others cannot write, within
  /// the disk bound. Any other file is discarded (`consequence`: what
  /// happens instead). `absent`: there is none; `info`: the file judged.
  Expected<std::vector<std::uint8_t>> readFile(const std::string &path,
                                               const std::string &consequence,
                                               bool &absent, struct stat &info);
  /// Reports the file at `path` with `what` is wrong with it and removes it,
  /// if it is still the file judged (`judged`; null: whatever is there).
  Status discard(const std::string &path, const struct stat *judged,
                 const std::string &what, const std::string &consequence);
  /// Writes `bytes` to a private temporary file, then renames it to `path`.
  Status writeFile(const std::string &keyHex, const std::string &path,
                   std::span<const std::uint8_t> bytes);
  std::string kernelPathFor(const std::string &keyHex) const;
  Expected<std::vector<BundleCacheEntry>> listFiles(bool kernels);

  BundleCacheOptions options;
  mutable std::mutex mutex;
  std::list<MemoryEntry> recency;
  std::unordered_map<std::string, std::list<MemoryEntry>::iterator> byKey;
  std::uint64_t memoryBytes = 0;
  BundleCacheStats counters;
};

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_BUNDLECACHE_H
