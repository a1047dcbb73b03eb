//===- BundleCacheTest.cpp - Memory and disk store, LRU, directory --------===//

#include "CacheTestSupport.h"

#include "runtime/cache/BundleFile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fuse;
using namespace fuse::test;

namespace {

std::unique_ptr<BundleCache> openAt(const std::string &directory,
                                    std::uint64_t maxDiskBytes = 1 << 30,
                                    std::uint64_t maxMemoryBytes = 1 << 30) {
  BundleCacheOptions options;
  options.directory = directory;
  options.maxDiskBytes = maxDiskBytes;
  options.maxMemoryBytes = maxMemoryBytes;
  options.onProblem = [](const std::string &message) {
    ADD_FAILURE() << "unexpected problem: " << message;
  };
  auto opened = BundleCache::open(options);
  EXPECT_TRUE(opened.ok()) << opened.message();
  return opened.ok() ? opened.take() : nullptr;
}

std::size_t fileSize(const Graph &graph, std::size_t payload) {
  return encodeBundleFile(makeKey(graph),
                          makeBundle(graph, kHostTarget, payload))
      .size();
}

TEST(BundleCache, StoreThenLookupHitsMemoryThenDisk) {
  TempDir dir;
  Graph graph = makeGraph();
  Bundle bundle = makeBundle(graph);
  auto cache = openAt(dir.path());
  EXPECT_FALSE(cache->lookup(makeKey(graph)).has_value());
  ASSERT_TRUE(cache->store(makeKey(graph), bundle).ok());
  std::optional<Bundle> hit = cache->lookup(makeKey(graph));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, bundle);
  BundleCacheStats stats = cache->stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_EQ(stats.memoryHits, 1u);
  EXPECT_EQ(stats.diskHits, 0u);

  auto second = openAt(dir.path());
  hit = second->lookup(makeKey(graph));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, bundle);
  EXPECT_EQ(second->stats().diskHits, 1u);
  hit = second->lookup(makeKey(graph));
  EXPECT_EQ(second->stats().memoryHits, 1u);
}

// A cache that keeps nothing in memory (fuse-run's: one lookup a process)
// hands each disk hit over whole, every lookup from the disk.
TEST(BundleCache, WithoutMemoryEveryHitIsFromDisk) {
  TempDir dir;
  Graph graph = makeGraph();
  Bundle bundle = makeBundle(graph);
  ASSERT_TRUE(openAt(dir.path())->store(makeKey(graph), bundle).ok());
  auto cache = openAt(dir.path(), 1 << 30, /*maxMemoryBytes=*/0);
  for (int i = 0; i < 2; ++i) {
    std::optional<Bundle> hit = cache->lookup(makeKey(graph));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(*hit, bundle);
  }
  BundleCacheStats stats = cache->stats();
  EXPECT_EQ(stats.diskHits, 2u);
  EXPECT_EQ(stats.memoryHits, 0u);
  EXPECT_FALSE(cache->lookup(makeKey(makeGraph(3))).has_value());
}

TEST(BundleCache, OtherOptionsMiss) {
  TempDir dir;
  Graph graph = makeGraph();
  auto cache = openAt(dir.path());
  ASSERT_TRUE(cache->store(makeKey(graph), makeBundle(graph)).ok());
  CompileOptions options;
  options.enableFusion = false;
  EXPECT_FALSE(cache->lookup(makeKey(graph, kHostTarget, options)));
  EXPECT_FALSE(openAt(dir.path())->lookup(makeKey(graph, "host-x86-64-v4")));
}

TEST(BundleCache, RefusesABundleItsKeyDoesNotName) {
  TempDir dir;
  auto cache = openAt(dir.path());
  Status stored = cache->store(makeKey(makeGraph(2)), makeBundle(makeGraph(3)));
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.message().find("not the graph its key names"),
            std::string::npos)
      << stored.message();
  Status wrongTarget =
      cache->store(makeKey(makeGraph(), "sm_90"), makeBundle(makeGraph()));
  EXPECT_FALSE(wrongTarget.ok());
  EXPECT_TRUE(cache->list()->empty());
}

TEST(BundleCache, DiskEvictsTheLeastRecentlyUsed) {
  TempDir dir;
  Graph a = makeGraph(1), b = makeGraph(2), c = makeGraph(3), d = makeGraph(4);
  std::size_t entry = fileSize(a, 1000);
  auto cache = openAt(dir.path(), 3 * entry + entry / 2);
  // The disk LRU's clock is the entry's modification time. Set a, b, c an
  // hour apart in the past (no sleeps, no dependence on the file system's
  // timestamp granularity).
  const std::time_t past = std::time(nullptr) - 10 * 3600;
  int hour = 0;
  for (const Graph *graph : {&a, &b, &c}) {
    ASSERT_TRUE(
        cache->store(makeKey(*graph), makeBundle(*graph, kHostTarget, 1000))
            .ok());
    std::string path = dir.path() + "/" + makeKey(*graph).toHex() + ".fbundle";
    struct timespec times[2] = {{past + 3600 * hour, 0},
                                {past + 3600 * hour, 0}};
    ++hour;
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
  }
  // Using `a` from disk makes `b` the least recently used.
  ASSERT_TRUE(openAt(dir.path())->lookup(makeKey(a)).has_value());
  ASSERT_TRUE(cache->store(makeKey(d), makeBundle(d, kHostTarget, 1000)).ok());
  EXPECT_EQ(cache->stats().evictions, 1u);
  auto fresh = openAt(dir.path());
  EXPECT_TRUE(fresh->lookup(makeKey(a)).has_value());
  EXPECT_FALSE(fresh->lookup(makeKey(b)).has_value());
  EXPECT_TRUE(fresh->lookup(makeKey(c)).has_value());
  EXPECT_TRUE(fresh->lookup(makeKey(d)).has_value());
  EXPECT_EQ(fresh->list()->size(), 3u);
}

TEST(BundleCache, MemoryEvictsTheLeastRecentlyUsed) {
  TempDir dir;
  Graph a = makeGraph(1), b = makeGraph(2), c = makeGraph(3);
  std::size_t entry = fileSize(a, 1000);
  auto cache = openAt(dir.path(), 1 << 30, 2 * entry + entry / 2);
  for (const Graph *graph : {&a, &b}) {
    ASSERT_TRUE(
        cache->store(makeKey(*graph), makeBundle(*graph, kHostTarget, 1000))
            .ok());
  }
  ASSERT_TRUE(cache->lookup(makeKey(a)).has_value()); // a is now recent
  ASSERT_TRUE(cache->store(makeKey(c), makeBundle(c, kHostTarget, 1000)).ok());
  EXPECT_EQ(cache->stats().evictions, 1u);
  ASSERT_TRUE(cache->lookup(makeKey(a)).has_value());
  ASSERT_TRUE(cache->lookup(makeKey(b)).has_value()); // from disk
  EXPECT_EQ(cache->stats().memoryHits, 2u);
  EXPECT_EQ(cache->stats().diskHits, 1u);
}

TEST(BundleCache, RefusesABundleLargerThanTheBound) {
  TempDir dir;
  Graph graph = makeGraph();
  auto cache = openAt(dir.path(), 500);
  Status stored =
      cache->store(makeKey(graph), makeBundle(graph, kHostTarget, 1000));
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.message().find("more than the cache's bound"),
            std::string::npos);
}

TEST(BundleCache, ListRemoveAndClear) {
  TempDir dir;
  auto cache = openAt(dir.path());
  Graph a = makeGraph(1), b = makeGraph(2);
  ASSERT_TRUE(cache->store(makeKey(a), makeBundle(a)).ok());
  ASSERT_TRUE(cache->store(makeKey(b), makeBundle(b)).ok());
  auto entries = cache->list();
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].bytes, fileSize(b, 64));

  ASSERT_TRUE(cache->remove(makeKey(a).toHex()).ok());
  EXPECT_FALSE(cache->lookup(makeKey(a)).has_value());
  EXPECT_EQ(cache->list()->size(), 1u);
  EXPECT_FALSE(cache->remove("not-a-key").ok());

  // A stale temporary file from a killed writer goes with clear().
  writeFile(dir.path() + "/.tmp-leftover", {1, 2, 3});
  ASSERT_TRUE(cache->clear().ok());
  EXPECT_FALSE(cache->lookup(makeKey(b)).has_value());
  EXPECT_TRUE(cache->list()->empty());
  EXPECT_FALSE(fileExists(dir.path() + "/.tmp-leftover"));
}

TEST(BundleCache, CreatesAPrivateDirectory) {
  TempDir dir;
  std::string path = dir.path() + "/a/b/cache";
  auto cache = openAt(path);
  ASSERT_NE(cache, nullptr);
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST(BundleCache, RefusesAGroupOrWorldWritableDirectory) {
  TempDir dir;
  for (mode_t mode : {0770, 0707}) {
    ASSERT_EQ(::chmod(dir.path().c_str(), mode), 0);
    BundleCacheOptions options;
    options.directory = dir.path();
    auto opened = BundleCache::open(options);
    ASSERT_FALSE(opened.ok());
    EXPECT_NE(opened.message().find(dir.path()), std::string::npos);
    EXPECT_NE(opened.message().find(mode == 0770 ? "writable by its group"
                                                 : "writable by others"),
              std::string::npos)
        << opened.message();
  }
}

TEST(BundleCache, RefusesADirectoryOwnedByAnotherUser) {
  if (geteuid() != 0)
    GTEST_SKIP() << "changing a directory's owner needs root";
  TempDir dir;
  ASSERT_EQ(::chown(dir.path().c_str(), 65534, 65534), 0);
  BundleCacheOptions options;
  options.directory = dir.path();
  auto opened = BundleCache::open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.message().find("owned by uid 65534"), std::string::npos)
      << opened.message();
}

TEST(BundleCache, RefusesAFileAsDirectory) {
  TempDir dir;
  writeFile(dir.path() + "/file", {1});
  BundleCacheOptions options;
  options.directory = dir.path() + "/file";
  auto opened = BundleCache::open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.message().find("is not a directory"), std::string::npos)
      << opened.message();
}

TEST(BundleCache, DefaultDirectoryFollowsTheEnvironment) {
  const char *saved = std::getenv("FUSE_CACHE_DIR");
  std::string keep = saved ? saved : "";
  const char *savedHome = std::getenv("HOME");
  std::string keepHome = savedHome ? savedHome : "";
  ::setenv("FUSE_CACHE_DIR", "/somewhere/cache", 1);
  EXPECT_EQ(*BundleCache::defaultDirectory(), "/somewhere/cache");
  ::unsetenv("FUSE_CACHE_DIR");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(*BundleCache::defaultDirectory(), "/home/someone/.cache/fuse");
  if (saved)
    ::setenv("FUSE_CACHE_DIR", keep.c_str(), 1);
  if (savedHome)
    ::setenv("HOME", keepHome.c_str(), 1);
}

} // namespace
