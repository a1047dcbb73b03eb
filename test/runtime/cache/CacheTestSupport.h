//===- CacheTestSupport.h - Shared fixtures of the cache tests --*- C++ -*-===//
//
// Small valid graphs and bundles, a private temporary cache directory, and
// file helpers for damaging entries. Test-only; links only the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_RUNTIME_CACHE_CACHETESTSUPPORT_H
#define FUSE_TEST_RUNTIME_CACHE_CACHETESTSUPPORT_H

#include "runtime/cache/Bundle.h"
#include "runtime/cache/BundleCache.h"
#include "runtime/cache/BundleKey.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fuse::test {

inline constexpr const char *kHostTarget = "host-x86-64-v3";

/// A valid graph: ((a + b) * c) over [rows, 3] f32; `rows` tells graphs
/// apart.
Graph makeGraph(std::int64_t rows = 2);

/// A bundle of `graph` for `target` made by this build, with one host
/// kernel whose payload is `payloadBytes` bytes derived from `seed`.
Bundle makeBundle(const Graph &graph, const std::string &target = kHostTarget,
                  std::size_t payloadBytes = 64, unsigned seed = 1);

BundleKey makeKey(const Graph &graph, const std::string &target = kHostTarget,
                  const CompileOptions &options = {});

/// A fresh private directory, removed with everything in it at the end.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return dirPath; }

private:
  std::string dirPath;
};

std::vector<std::uint8_t> readFile(const std::string &path);
void writeFile(const std::string &path, const std::vector<std::uint8_t> &bytes);
bool fileExists(const std::string &path);

} // namespace fuse::test

#endif // FUSE_TEST_RUNTIME_CACHE_CACHETESTSUPPORT_H
