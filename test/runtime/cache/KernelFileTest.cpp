//===- KernelFileTest.cpp - Single kernels' machine code on disk ----------===//
//
// BundleCache::storeKernel / loadKernel: the files a compiler keeps the
// code of single kernels in (KEY.fkernel), beside the bundles. A damaged,
// truncated, foreign or misplaced file is reported, removed and a miss.

#include "CacheTestSupport.h"

#include <gtest/gtest.h>

#include <functional>

#include <sys/stat.h>
#include <unistd.h>

using namespace fuse;
using namespace fuse::test;

namespace {

const std::string kKey(64, 'a');
const std::string kOtherKey(64, 'b');

/// A cache at `directory` that collects the problems it reports.
std::unique_ptr<BundleCache> openAt(const std::string &directory,
                                    std::vector<std::string> &problems,
                                    std::uint64_t maxDiskBytes = 1 << 30) {
  BundleCacheOptions options;
  options.directory = directory;
  options.maxDiskBytes = maxDiskBytes;
  options.onProblem = [&problems](const std::string &message) {
    problems.push_back(message);
  };
  auto opened = BundleCache::open(options);
  EXPECT_TRUE(opened.ok()) << opened.message();
  return opened.ok() ? opened.take() : nullptr;
}

/// A kernel of `size` object bytes and two symbols.
KernelFile payload(std::size_t size, std::uint8_t seed) {
  KernelFile kernel;
  kernel.object.resize(size);
  for (std::size_t i = 0; i < size; ++i)
    kernel.object[i] = std::uint8_t(seed + 31 * i);
  kernel.symbols = {"fuse_matmul_" + std::to_string(seed), "fuse_part"};
  return kernel;
}

std::string kernelPath(const TempDir &dir, const std::string &key) {
  return dir.path() + "/" + key + ".fkernel";
}

TEST(KernelFiles, StoreThenLoadInAnotherCache) {
  TempDir dir;
  std::vector<std::string> problems;
  auto cache = openAt(dir.path(), problems);
  EXPECT_FALSE(cache->loadKernel(kKey).has_value());
  ASSERT_TRUE(cache->storeKernel(kKey, payload(1000, 7)).ok());
  EXPECT_TRUE(fileExists(kernelPath(dir, kKey)));
  // Not a bundle: the listing of bundles leaves it out.
  EXPECT_TRUE(cache->list()->empty());

  auto second = openAt(dir.path(), problems);
  std::optional<KernelFile> loaded = second->loadKernel(kKey);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(*loaded, payload(1000, 7));
  EXPECT_EQ(second->stats().kernelHits, 1u);
  EXPECT_FALSE(second->loadKernel(kOtherKey).has_value());
  EXPECT_FALSE(second->loadKernel("not-a-key").has_value());
  EXPECT_FALSE(second->storeKernel("not-a-key", payload(4, 1)).ok());
  EXPECT_TRUE(problems.empty());

  // clear() removes kernels too.
  ASSERT_TRUE(second->clear().ok());
  EXPECT_FALSE(fileExists(kernelPath(dir, kKey)));
}

/// Stores a kernel, lets `damage` change its file, and expects the next
/// load to miss, report `expected` and remove the file.
void expectDamageIsRemoved(
    const std::function<void(const std::string &path)> &damage,
    const std::string &expected) {
  TempDir dir;
  std::vector<std::string> problems;
  auto cache = openAt(dir.path(), problems);
  ASSERT_TRUE(cache->storeKernel(kKey, payload(300, 3)).ok());
  damage(kernelPath(dir, kKey));
  EXPECT_FALSE(cache->loadKernel(kKey).has_value());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(expected), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("the kernel will be recompiled"),
            std::string::npos)
      << problems[0];
  EXPECT_FALSE(fileExists(kernelPath(dir, kKey)));
  EXPECT_EQ(cache->stats().corruptRemoved, 1u);
}

TEST(KernelFiles, AFlippedPayloadByteFailsTheChecksum) {
  expectDamageIsRemoved(
      [](const std::string &path) {
        std::vector<std::uint8_t> bytes = readFile(path);
        bytes[bytes.size() - 10] ^= 0x40;
        writeFile(path, bytes);
      },
      "checksum does not match");
}

TEST(KernelFiles, ATruncatedFileIsRefused) {
  expectDamageIsRemoved(
      [](const std::string &path) {
        std::vector<std::uint8_t> bytes = readFile(path);
        bytes.resize(bytes.size() - 1);
        writeFile(path, bytes);
      },
      "truncated");
  expectDamageIsRemoved(
      [](const std::string &path) {
        writeFile(path, {'F', 'U', 'S'});
      },
      "not a kernel file");
}

TEST(KernelFiles, AnotherVersionsKernelIsRefused) {
  expectDamageIsRemoved(
      [](const std::string &path) {
        std::vector<std::uint8_t> bytes = readFile(path);
        // The version id's first character (after the magic and length).
        bytes[12] = bytes[12] == 'x' ? 'y' : 'x';
        writeFile(path, bytes);
      },
      "another version of Fuse");
}

TEST(KernelFiles, AFileUnderAnotherKeyIsRefused) {
  TempDir dir;
  std::vector<std::string> problems;
  auto cache = openAt(dir.path(), problems);
  ASSERT_TRUE(cache->storeKernel(kKey, payload(50, 9)).ok());
  ASSERT_EQ(::rename(kernelPath(dir, kKey).c_str(),
                     kernelPath(dir, kOtherKey).c_str()),
            0);
  EXPECT_FALSE(cache->loadKernel(kOtherKey).has_value());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("holds another key"), std::string::npos)
      << problems[0];
  EXPECT_FALSE(fileExists(kernelPath(dir, kOtherKey)));
}

TEST(KernelFiles, ALinkOrAWritableFileIsRefused) {
  expectDamageIsRemoved(
      [](const std::string &path) {
        std::string target = path + ".real";
        ASSERT_EQ(::rename(path.c_str(), target.c_str()), 0);
        ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0);
      },
      "symbolic link");
  expectDamageIsRemoved(
      [](const std::string &path) {
        ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
      },
      "refusing the entry");
}

TEST(KernelFiles, KernelsCountInTheDiskBound) {
  TempDir dir;
  std::vector<std::string> problems;
  // Room for about two kernels of 1000 bytes (with their headers).
  auto cache = openAt(dir.path(), problems, 2600);
  ASSERT_TRUE(cache->storeKernel(kKey, payload(1000, 1)).ok());
  ASSERT_TRUE(cache->storeKernel(kOtherKey, payload(1000, 2)).ok());
  // The oldest goes, never the one just stored.
  std::string third(64, 'c');
  ASSERT_TRUE(cache->storeKernel(third, payload(1000, 3)).ok());
  int kept = int(fileExists(kernelPath(dir, kKey))) +
             int(fileExists(kernelPath(dir, kOtherKey)));
  EXPECT_EQ(kept, 1);
  EXPECT_TRUE(fileExists(kernelPath(dir, third)));
  EXPECT_FALSE(cache->storeKernel(kKey, payload(3000, 4)).ok());
  EXPECT_TRUE(problems.empty());
}

TEST(KernelFiles, AFolderOfOnlyKernelsIsAdopted) {
  TempDir dir;
  std::vector<std::string> problems;
  {
    auto cache = openAt(dir.path(), problems);
    ASSERT_TRUE(cache->storeKernel(kKey, payload(10, 1)).ok());
  }
  ASSERT_EQ(::unlink((dir.path() + "/.fuse-cache").c_str()), 0);
  auto again = openAt(dir.path(), problems);
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->loadKernel(kKey).has_value());
}

} // namespace
