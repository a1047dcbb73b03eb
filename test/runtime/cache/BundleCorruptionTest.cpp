//===- BundleCorruptionTest.cpp - Damaged and foreign cache entries -------===//
//
// Every kind of bad entry is detected on load, reported once (naming the
// file and the problem), removed, and the lookup is a miss.
//
//===----------------------------------------------------------------------===//

#include "CacheTestSupport.h"

#include "runtime/cache/BundleFile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace fuse;
using namespace fuse::test;

namespace {

class CacheCorruption : public testing::Test {
protected:
  void SetUp() override {
    BundleCacheOptions options;
    options.directory = dir.path() + "/cache";
    options.onProblem = [this](const std::string &message) {
      problems.push_back(message);
    };
    auto opened = BundleCache::open(options);
    ASSERT_TRUE(opened.ok()) << opened.message();
    cache = opened.take();
    ASSERT_TRUE(cache->store(key, bundle).ok());
    path = cache->pathFor(key.toHex());
    good = readFile(path);
  }

  /// A fresh cache over the same directory: nothing in memory, so lookups
  /// read the file.
  std::unique_ptr<BundleCache> reopen() {
    BundleCacheOptions options;
    options.directory = cache->directory();
    options.onProblem = [this](const std::string &message) {
      problems.push_back(message);
    };
    return BundleCache::open(options).take();
  }

  /// Looks `key` up from disk and expects one report containing `what`,
  /// the file removed, and a miss.
  void expectDetected(const std::string &what) {
    std::unique_ptr<BundleCache> fresh = reopen();
    problems.clear();
    EXPECT_FALSE(fresh->lookup(key).has_value());
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find(path), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find(what), std::string::npos) << problems[0];
    EXPECT_FALSE(fileExists(path));
    EXPECT_EQ(fresh->stats().corruptRemoved, 1u);
    EXPECT_EQ(fresh->stats().misses, 1u);
    // Reported once: the next lookup is a plain miss.
    EXPECT_FALSE(fresh->lookup(key).has_value());
    EXPECT_EQ(problems.size(), 1u);
    // And the recompiled bundle is stored and found again.
    ASSERT_TRUE(fresh->store(key, bundle).ok());
    std::optional<Bundle> found = reopen()->lookup(key);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(*found, bundle);
  }

  TempDir dir;
  Graph graph = makeGraph();
  BundleKey key = makeKey(graph);
  Bundle bundle = makeBundle(graph);
  std::unique_ptr<BundleCache> cache;
  std::vector<std::string> problems;
  std::string path;
  std::vector<std::uint8_t> good;
};

TEST_F(CacheCorruption, IntactEntryLoads) {
  std::optional<Bundle> found = reopen()->lookup(key);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, bundle);
  EXPECT_TRUE(problems.empty());
}

TEST_F(CacheCorruption, TruncatedPayload) {
  writeFile(path, {good.begin(), good.end() - good.size() / 3});
  expectDetected("truncated");
}

TEST_F(CacheCorruption, TruncatedHeader) {
  writeFile(path, {good.begin(), good.begin() + 40});
  expectDetected("truncated");
}

TEST_F(CacheCorruption, ExtendedFile) {
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0);
  writeFile(path, longer);
  expectDetected("size does not match");
}

TEST_F(CacheCorruption, FlippedPayloadByte) {
  std::vector<std::uint8_t> bad = good;
  bad[bad.size() - 10] ^= 0x40;
  writeFile(path, bad);
  expectDetected("payload is damaged");
}

TEST_F(CacheCorruption, EveryFlippedByteIsDetected) {
  // Each byte of the file in turn (every byte of header and key record,
  // every 7th of the payload), one bit flipped.
  std::size_t headerEnd = kBundleHeaderSize + key.encode().size();
  std::size_t tried = 0;
  for (std::size_t at = 0; at < good.size();
       at += at < headerEnd ? 1 : 7, ++tried) {
    std::vector<std::uint8_t> bad = good;
    bad[at] ^= 0x01;
    writeFile(path, bad);
    std::unique_ptr<BundleCache> fresh = reopen();
    problems.clear();
    EXPECT_FALSE(fresh->lookup(key).has_value()) << "flip at byte " << at;
    EXPECT_EQ(problems.size(), 1u) << "flip at byte " << at;
    EXPECT_FALSE(fileExists(path)) << "flip at byte " << at;
  }
  EXPECT_GT(tried, kBundleHeaderSize);
}

TEST_F(CacheCorruption, HugeLengthInHeaderIsNotAnAllocation) {
  std::vector<std::uint8_t> bad = good;
  for (int i = 16; i < 24; ++i)
    bad[i] = 0xff;
  writeFile(path, bad);
  expectDetected("damaged");
}

TEST_F(CacheCorruption, OtherFormatVersion) {
  std::vector<std::uint8_t> bad = good;
  bad[8] = std::uint8_t(kBundleFormatVersion + 1);
  writeFile(path, bad);
  expectDetected("format version " + std::to_string(kBundleFormatVersion + 1));
}

TEST_F(CacheCorruption, OtherVersionId) {
  BundleKey otherKey = key;
  otherKey.versionId = std::string(32, '0');
  Bundle other = bundle;
  other.versionId = otherKey.versionId;
  writeFile(path, encodeBundleFile(otherKey, other));
  expectDetected("another version of Fuse");
}

TEST_F(CacheCorruption, BundleVersionDisagreesWithItsKey) {
  Bundle other = bundle;
  other.versionId = std::string(32, '0');
  writeFile(path, encodeBundleFile(key, other));
  expectDetected("made by version");
}

TEST_F(CacheCorruption, OtherTarget) {
  BundleKey otherKey = makeKey(graph, "host-x86-64-v4");
  writeFile(path,
            encodeBundleFile(otherKey, makeBundle(graph, "host-x86-64-v4")));
  expectDetected("for target 'host-x86-64-v4'");
}

TEST_F(CacheCorruption, ValidEntryUnderTheWrongKey) {
  Graph otherGraph = makeGraph(7);
  BundleKey otherKey = makeKey(otherGraph);
  ASSERT_TRUE(cache->store(otherKey, makeBundle(otherGraph)).ok());
  writeFile(path, readFile(cache->pathFor(otherKey.toHex())));
  expectDetected("stored under key");
}

TEST_F(CacheCorruption, RandomBytes) {
  std::vector<std::uint8_t> noise(500);
  for (std::size_t i = 0; i < noise.size(); ++i)
    noise[i] = std::uint8_t(i * 37 + 11);
  writeFile(path, noise);
  expectDetected("not a Fuse bundle");
}

TEST_F(CacheCorruption, EmptyFile) {
  writeFile(path, {});
  expectDetected("empty");
}

TEST_F(CacheCorruption, GroupWritableEntryIsRefused) {
  ASSERT_EQ(::chmod(path.c_str(), 0664), 0);
  expectDetected("writable by its group");
}

TEST_F(CacheCorruption, EntryOwnedByAnotherUserIsRefused) {
  if (geteuid() != 0)
    GTEST_SKIP() << "changing a file's owner needs root";
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  expectDetected("owned by uid 65534");
}

TEST_F(CacheCorruption, SymbolicLinkEntryIsRefused) {
  std::string elsewhere = dir.path() + "/elsewhere";
  writeFile(elsewhere, good);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::symlink(elsewhere.c_str(), path.c_str()), 0);
  expectDetected("symbolic link");
}

TEST_F(CacheCorruption, FifoEntryIsRefusedWithoutBlocking) {
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::unique_ptr<BundleCache> fresh = reopen();
  problems.clear();
  std::future<std::optional<Bundle>> lookup =
      std::async(std::launch::async, [&] { return fresh->lookup(key); });
  if (lookup.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "the lookup blocks on a FIFO in the entry's place";
    // A writer lets the blocked open return, so that the test ends.
    int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0)
      ::close(writer);
  }
  EXPECT_FALSE(lookup.get().has_value());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not a regular file"), std::string::npos)
      << problems[0];
  EXPECT_FALSE(fileExists(path));
}

TEST_F(CacheCorruption, VerifyReportsAndRemovesOnlyDamagedEntries) {
  Graph second = makeGraph(3), third = makeGraph(4);
  ASSERT_TRUE(cache->store(makeKey(second), makeBundle(second)).ok());
  ASSERT_TRUE(cache->store(makeKey(third), makeBundle(third)).ok());
  writeFile(path, {good.begin(), good.begin() + 100});
  std::string thirdPath = cache->pathFor(makeKey(third).toHex());
  std::vector<std::uint8_t> bad = readFile(thirdPath);
  bad[bad.size() / 2] ^= 0xff;
  writeFile(thirdPath, bad);

  BundleCacheVerifyReport report = reopen()->verify();
  EXPECT_EQ(report.checked, 3u);
  ASSERT_EQ(report.problems.size(), 2u);
  auto entries = cache->list();
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].keyHex, makeKey(second).toHex());
  EXPECT_TRUE(reopen()->verify().problems.empty());
}

} // namespace
