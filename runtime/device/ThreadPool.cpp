//===- ThreadPool.cpp - Splits host kernel launches across threads --------===//

#include "runtime/device/ThreadPool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace fuse::device {

namespace {

/// How long a helper polls for work after a job before it sleeps: longer
/// than the gap between two launches of a batch, short enough that an idle
/// runtime stops using the CPU almost at once.
constexpr std::chrono::microseconds kPollTime{100};

/// Chunks per worker: a few balance chunks of uneven cost.
constexpr int64_t kChunksPerWorker = 4;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

} // namespace

struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)> *body;
  std::vector<int64_t> bounds;
  int64_t chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0};
  std::mutex mutex;
  std::condition_variable done;
};

ThreadPool::ThreadPool(unsigned helpers) {
  threads.reserve(helpers);
  for (unsigned i = 0; i < helpers; ++i)
    threads.emplace_back([this] { serve(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &thread : threads)
    thread.join();
}

std::vector<int64_t> ThreadPool::chunkBoundaries(int64_t begin, int64_t end,
                                                 int64_t grain,
                                                 unsigned workers) {
  grain = std::max<int64_t>(grain, 1);
  int64_t total = std::max<int64_t>(end - begin, 0);
  int64_t grains = (total + grain - 1) / grain;
  int64_t chunks =
      std::clamp<int64_t>(int64_t(std::max(workers, 1u)) * kChunksPerWorker, 1,
                          std::max<int64_t>(grains, 1));
  if (workers <= 1)
    chunks = 1;
  // Chunk i holds grains [i * grains / chunks, (i + 1) * grains / chunks):
  // sizes differ by at most one grain.
  std::vector<int64_t> bounds;
  bounds.reserve(chunks + 1);
  for (int64_t i = 0; i < chunks; ++i)
    bounds.push_back(begin + i * grains / chunks * grain);
  bounds.push_back(begin + total);
  return bounds;
}

void ThreadPool::runChunks(Job &job) {
  for (int64_t i = job.next++; i < job.chunks; i = job.next++) {
    (*job.body)(job.bounds[i], job.bounds[i + 1]);
    if (++job.finished == job.chunks) {
      std::lock_guard lock(job.mutex);
      job.done.notify_all();
    }
  }
}

std::shared_ptr<ThreadPool::Job> ThreadPool::nextJob() {
  while (!jobs.empty()) {
    if (jobs.front()->next.load() < jobs.front()->chunks)
      return jobs.front();
    jobs.pop_front();
  }
  return nullptr;
}

void ThreadPool::serve() {
  uint64_t seen = 0;
  std::unique_lock lock(mutex);
  while (true) {
    if (stopping)
      return;
    if (std::shared_ptr<Job> job = nextJob()) {
      seen = pushed.load();
      lock.unlock();
      runChunks(*job);
      // Poll for the next launch before sleeping.
      auto until = std::chrono::steady_clock::now() + kPollTime;
      while (pushed.load(std::memory_order_relaxed) == seen &&
             std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 64; ++i)
          relax();
      lock.lock();
      continue;
    }
    ++sleepers;
    wake.wait(lock);
    --sleepers;
  }
}

void ThreadPool::parallelFor(
    int64_t begin, int64_t end, int64_t grain,
    const std::function<void(int64_t, int64_t)> &body) {
  if (end <= begin)
    return;
  std::vector<int64_t> bounds =
      chunkBoundaries(begin, end, grain, unsigned(threads.size()) + 1);
  int64_t chunks = int64_t(bounds.size()) - 1;
  if (chunks == 1) {
    body(begin, end);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->bounds = std::move(bounds);
  job->chunks = chunks;
  bool notify;
  {
    std::lock_guard lock(mutex);
    jobs.push_back(job);
    pushed.fetch_add(1);
    notify = sleepers > 0;
  }
  if (notify)
    wake.notify_all();
  runChunks(*job);
  // The helpers' last chunks are usually short: poll before sleeping.
  auto until = std::chrono::steady_clock::now() + kPollTime;
  while (job->finished.load() != job->chunks &&
         std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 16; ++i)
      relax();
  std::unique_lock lock(job->mutex);
  job->done.wait(lock, [&] { return job->finished.load() == job->chunks; });
}

} // namespace fuse::device
