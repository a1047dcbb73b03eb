//===- ThreadPoolTest.cpp - The host runtime's workers --------------------===//

#include "runtime/device/ThreadPool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace fuse::device {
namespace {

/// Every chunk but the last starts and ends on a multiple of the grain from
/// `begin`, the chunks cover [begin, end) in order, and their sizes in
/// grains differ by at most one.
void expectEvenGrainChunks(int64_t begin, int64_t end, int64_t grain,
                           unsigned workers) {
  SCOPED_TRACE(testing::Message() << "[" << begin << ", " << end << ") grain "
                                  << grain << ", " << workers << " workers");
  std::vector<int64_t> bounds =
      ThreadPool::chunkBoundaries(begin, end, grain, workers);
  ASSERT_GE(bounds.size(), 2u);
  EXPECT_EQ(bounds.front(), begin);
  EXPECT_EQ(bounds.back(), end);
  // Sizes in grains, the last one's partial grain counted as one.
  int64_t smallest = INT64_MAX, largest = 0;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    EXPECT_LT(bounds[i], bounds[i + 1]) << "chunk " << i << " is empty";
    EXPECT_EQ((bounds[i] - begin) % grain, 0) << "chunk " << i;
    if (i + 2 < bounds.size())
      EXPECT_EQ((bounds[i + 1] - begin) % grain, 0) << "chunk " << i;
    int64_t grains = (bounds[i + 1] - bounds[i] + grain - 1) / grain;
    smallest = std::min(smallest, grains);
    largest = std::max(largest, grains);
  }
  EXPECT_LE(largest - smallest, 1);
  EXPECT_LE(int64_t(bounds.size()) - 1, int64_t(workers) * 4);
  // Never more chunks than grains, and one chunk for one worker.
  int64_t grains = (end - begin + grain - 1) / grain;
  EXPECT_LE(int64_t(bounds.size()) - 1, grains);
  if (workers == 1)
    EXPECT_EQ(bounds.size(), 2u);
  else
    EXPECT_GE(int64_t(bounds.size()) - 1, std::min<int64_t>(grains, workers));
}

TEST(ThreadPool, ChunksAreWholeGrainsOfEvenSize) {
  // 171 row blocks of a matmul, grain 1, 2 workers: the pool made 8
  // chunks of 21 and a ninth of 3.
  expectEvenGrainChunks(0, 171, 32, 2);
  expectEvenGrainChunks(0, 171, 1, 2);
  expectEvenGrainChunks(5, 1000, 16, 2);
  expectEvenGrainChunks(0, 1, 1, 8);
  expectEvenGrainChunks(0, 7, 3, 3);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    int64_t begin = int64_t(rng() % 100);
    int64_t end = begin + 1 + int64_t(rng() % 5000);
    int64_t grain = 1 + int64_t(rng() % 64);
    unsigned workers = 1 + unsigned(rng() % 16);
    expectEvenGrainChunks(begin, end, grain, workers);
  }
}

TEST(ThreadPool, ALaunchMayAskForFewerChunksPerWorker) {
  // A matmul's launch asks for one chunk per worker (each chunk reads all
  // of B again): 171 row blocks, grain 1, make 2 chunks for 2 workers, 3
  // for 3; never more chunks than grains; 0 is the default (4 per worker).
  EXPECT_EQ(ThreadPool::chunkBoundaries(0, 171, 1, 2, 1),
            (std::vector<int64_t>{0, 85, 171}));
  EXPECT_EQ(ThreadPool::chunkBoundaries(0, 171, 1, 3, 1),
            (std::vector<int64_t>{0, 57, 114, 171}));
  EXPECT_EQ(ThreadPool::chunkBoundaries(0, 171, 1, 2, 2).size(), 5u);
  EXPECT_EQ(ThreadPool::chunkBoundaries(0, 171, 1, 2, 0).size(), 9u);
  EXPECT_EQ(ThreadPool::chunkBoundaries(0, 2, 1, 3, 1),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(ThreadPool::chunkBoundaries(0, 171, 1, 1, 1),
            (std::vector<int64_t>{0, 171}));
  // Every iteration runs once with one chunk per worker.
  for (unsigned helpers : {0u, 1u, 2u}) {
    ThreadPool pool(helpers);
    std::vector<std::atomic<int>> hits(173);
    pool.parallelFor(
        0, 173, 1,
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            ++hits[i];
        },
        1);
    for (int64_t i = 0; i < 173; ++i)
      EXPECT_EQ(hits[i].load(), 1) << "iteration " << i;
  }
}

TEST(ThreadPool, EveryIterationRunsOnce) {
  for (unsigned helpers : {0u, 1u, 3u}) {
    ThreadPool pool(helpers);
    for (int64_t count : {1, 2, 17, 1000, 4099}) {
      std::vector<std::atomic<int>> hits(count);
      std::mutex mutex;
      std::vector<std::pair<int64_t, int64_t>> chunks;
      pool.parallelFor(0, count, 4, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          ++hits[i];
        std::lock_guard lock(mutex);
        chunks.push_back({begin, end});
      });
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(hits[i].load(), 1) << "iteration " << i << " of " << count
                                     << " with " << helpers << " helpers";
      std::sort(chunks.begin(), chunks.end());
      std::vector<int64_t> bounds =
          ThreadPool::chunkBoundaries(0, count, 4, helpers + 1);
      ASSERT_EQ(chunks.size() + 1, bounds.size());
      for (size_t i = 0; i < chunks.size(); ++i)
        EXPECT_EQ(chunks[i], std::make_pair(bounds[i], bounds[i + 1]));
    }
  }
}

TEST(ThreadPool, WorkersStartWithTheirOwnShareOfChunks) {
  // 8 chunks for 2 workers: the caller owns chunks 0-3, the helper 4-7, so
  // that launches over the same positions run them on the same core. The
  // caller's first chunk waits until the helper has run one: the helper's
  // first must be its own share's first (4), not the next chunk of a shared
  // counter (0 or 1); the caller's first is one of its own (the helper
  // takes the caller's only after its own four).
  ThreadPool pool(1);
  ASSERT_EQ(ThreadPool::chunkBoundaries(0, 8, 1, 2).size(), 9u);
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::vector<int64_t> callerChunks, helperChunks;
  std::atomic<bool> helperRan{false};
  pool.parallelFor(0, 8, 1, [&](int64_t begin, int64_t end) {
    bool byCaller = std::this_thread::get_id() == caller;
    bool first;
    {
      std::lock_guard lock(mutex);
      std::vector<int64_t> &chunks = byCaller ? callerChunks : helperChunks;
      first = chunks.empty();
      chunks.push_back(begin);
    }
    if (!byCaller) {
      helperRan = true;
      return;
    }
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (first && !helperRan && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  });
  EXPECT_EQ(callerChunks.size() + helperChunks.size(), 8u);
  if (helperChunks.empty())
    GTEST_SKIP() << "the helper never ran (a machine too busy to tell)";
  EXPECT_EQ(helperChunks.front(), 4);
  if (!callerChunks.empty())
    EXPECT_LT(callerChunks.front(), 4);
}

TEST(ThreadPool, HelpersTakePartAndCallersRunConcurrently) {
  ThreadPool pool(2);
  // Back-to-back launches (the helpers poll between them) and launches
  // after a pause (the helpers slept): each sums [0, n) correctly.
  for (int round = 0; round < 200; ++round) {
    if (round % 50 == 49)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::atomic<int64_t> sum{0};
    pool.parallelFor(0, 10000, 8, [&](int64_t begin, int64_t end) {
      int64_t local = 0;
      for (int64_t i = begin; i < end; ++i)
        local += i;
      sum += local;
    });
    ASSERT_EQ(sum.load(), int64_t(10000) * 9999 / 2) << "round " << round;
  }
  // Two callers at once (two streams) share the helpers.
  std::atomic<int64_t> a{0}, b{0};
  std::thread other([&] {
    for (int r = 0; r < 100; ++r)
      pool.parallelFor(0, 512, 1,
                       [&](int64_t begin, int64_t end) { a += end - begin; });
  });
  for (int r = 0; r < 100; ++r)
    pool.parallelFor(0, 512, 1,
                     [&](int64_t begin, int64_t end) { b += end - begin; });
  other.join();
  EXPECT_EQ(a.load(), 512 * 100);
  EXPECT_EQ(b.load(), 512 * 100);
}

} // namespace
} // namespace fuse::device
