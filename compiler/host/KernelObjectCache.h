//===- KernelObjectCache.h - Machine code of kernels, by content -*- C++
//-*-===//
//
// The host compiler's memory of kernels it compiled before: each distinct
// kernel (a kernel function with the functions it calls) is keyed by the
// SHA-256 of its LLVM IR, with its symbols given names that do not depend on
// the bundle, plus the target and the optimization level. A later
// compilation by the same compiler (the next step of a decoder, whose past
// grew by one; a model at another size; a sibling model) takes the object
// code of every kernel it has seen and compiles only the others. The symbols
// of a cached kernel are named after its key, so that its object links into
// any bundle.
//
// Bounded in bytes, oldest stored first out; with a store (a BundleCache),
// kept on disk too, for other processes. Thread-safe. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOST_KERNELOBJECTCACHE_H
#define FUSE_COMPILER_HOST_KERNELOBJECTCACHE_H

#include "runtime/cache/BundleFile.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fuse {

class BundleCache;

class KernelObjectCache {
public:
  /// A kernel's object code and the names of its functions in it, in the
  /// order of the kernel's functions in the module it was compiled from.
  using Entry = KernelFile;
  using Object = std::shared_ptr<const Entry>;

  explicit KernelObjectCache(std::uint64_t maxBytes = std::uint64_t(256) << 20)
      : maxBytes(maxBytes) {}

  /// Also reads and writes the kernels in `store`'s directory (null: in
  /// memory only).
  void setStore(BundleCache *store);

  /// The object code stored under `key` (in memory, or else in the store),
  /// or null.
  Object lookup(const std::string &key);
  /// Keeps `entry` under `key` (a key already held keeps its entry), then
  /// forgets the oldest entries until the cache is within its bound.
  void store(const std::string &key, Entry entry);

  std::uint64_t bytes() const;
  std::size_t size() const;

private:
  void remember(const std::string &key, Object entry);

  std::uint64_t maxBytes;
  BundleCache *disk = nullptr;
  mutable std::mutex mutex;
  std::map<std::string, Object> objects;
  /// Keys in the order they were stored.
  std::deque<std::string> order;
  std::uint64_t held = 0;
};

} // namespace fuse

#endif // FUSE_COMPILER_HOST_KERNELOBJECTCACHE_H
