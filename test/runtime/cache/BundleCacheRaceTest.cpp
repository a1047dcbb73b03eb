//===- BundleCacheRaceTest.cpp - Many processes over one cache ------------===//
//
// Eight processes store and look up the same keys at once in a cache small
// enough to evict, and some are killed with SIGKILL midway. Afterwards no
// entry is damaged and every lookup that hit returned the right bundle.
//
//===----------------------------------------------------------------------===//

#include "CacheTestSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace fuse;
using namespace fuse::test;

namespace {

enum ChildExit : int {
  kChildOk = 0,
  kChildOpenFailed = 2,
  kChildProblemReported = 3,
  kChildStoreFailed = 4,
  kChildWrongBundle = 5,
};

int runChild(const std::string &directory, std::uint64_t maxDiskBytes,
             const std::vector<BundleKey> &keys,
             const std::vector<Bundle> &bundles, int iterations) {
  bool problem = false;
  BundleCacheOptions options;
  options.directory = directory;
  options.maxDiskBytes = maxDiskBytes;
  // Small enough that most lookups go to disk.
  options.maxMemoryBytes = 1;
  options.onProblem = [&](const std::string &) { problem = true; };
  auto opened = BundleCache::open(options);
  if (!opened.ok())
    return kChildOpenFailed;
  std::mt19937 random{unsigned(getpid())};
  for (int i = 0; i < iterations; ++i) {
    std::size_t k = random() % keys.size();
    if (random() % 2) {
      if (!(*opened)->store(keys[k], bundles[k]).ok())
        return kChildStoreFailed;
    } else if (std::optional<Bundle> found = (*opened)->lookup(keys[k])) {
      if (*found != bundles[k])
        return kChildWrongBundle;
    }
    if (problem)
      return kChildProblemReported;
  }
  return kChildOk;
}

TEST(BundleCacheRace, EightProcessesSomeKilledLeaveNoDamage) {
  constexpr int kProcesses = 8;
  constexpr int kKeys = 6;
  constexpr int kIterations = 80;
  constexpr int kKilled = 3;
  TempDir dir;
  std::string directory = dir.path() + "/cache";
  std::vector<BundleKey> keys;
  std::vector<Bundle> bundles;
  for (int k = 0; k < kKeys; ++k) {
    Graph graph = makeGraph(10 + k);
    keys.push_back(makeKey(graph));
    bundles.push_back(makeBundle(graph, kHostTarget, 96 << 10, unsigned(k)));
  }
  // Room for about four entries: stores evict while others read.
  std::uint64_t maxDiskBytes = 4 * (100 << 10);

  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0)
      _exit(runChild(directory, maxDiskBytes, keys, bundles, kIterations));
    children.push_back(pid);
  }
  for (int p = 0; p < kKilled; ++p) {
    std::this_thread::sleep_for(std::chrono::milliseconds(15 + 25 * p));
    ::kill(children[p], SIGKILL);
  }

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int killed = 0;
  for (int p = 0; p < kProcesses; ++p) {
    int status = 0;
    pid_t done = 0;
    while ((done = waitpid(children[p], &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (done == 0) {
      ::kill(children[p], SIGKILL);
      waitpid(children[p], &status, 0);
      ADD_FAILURE() << "process " << p << " did not finish in time";
      continue;
    }
    if (WIFSIGNALED(status)) {
      EXPECT_LT(p, kKilled)
          << "process " << p << " died of signal " << WTERMSIG(status);
      ++killed;
      continue;
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), kChildOk) << "process " << p;
  }
  EXPECT_GT(killed, 0) << "no process was killed midway; the test proved "
                          "less than it claims";

  std::vector<std::string> problems;
  BundleCacheOptions options;
  options.directory = directory;
  options.onProblem = [&](const std::string &message) {
    problems.push_back(message);
  };
  auto cache = BundleCache::open(options);
  ASSERT_TRUE(cache.ok()) << cache.message();
  BundleCacheVerifyReport report = (*cache)->verify();
  EXPECT_GT(report.checked, 0u);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
  for (int k = 0; k < kKeys; ++k)
    if (std::optional<Bundle> found = (*cache)->lookup(keys[k]))
      EXPECT_EQ(*found, bundles[k]) << "key " << k;
  EXPECT_TRUE(problems.empty());
}

} // namespace
