//===- ThreadPool.cpp - Splits host kernel launches across threads --------===//

#include "runtime/device/ThreadPool.h"

#include <algorithm>
#include <atomic>

namespace fuse::device {

struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)> *body;
  int64_t begin, end, chunk, chunks;
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

void ThreadPool::runChunks(Job &job) {
  for (int64_t i = job.next++; i < job.chunks; i = job.next++) {
    int64_t chunkBegin = job.begin + i * job.chunk;
    (*job.body)(chunkBegin, std::min(job.end, chunkBegin + job.chunk));
    if (++job.finished == job.chunks) {
      std::lock_guard lock(job.mutex);
      job.done.notify_all();
    }
  }
}

void ThreadPool::serve() {
  std::unique_lock lock(mutex);
  while (true) {
    wake.wait(lock, [&] { return stopping || !jobs.empty(); });
    if (stopping)
      return;
    std::shared_ptr<Job> job = jobs.front();
    if (job->next.load() >= job->chunks) {
      jobs.pop_front();
      continue;
    }
    lock.unlock();
    runChunks(*job);
    lock.lock();
  }
}

void ThreadPool::parallelFor(
    int64_t begin, int64_t end, int64_t grain,
    const std::function<void(int64_t, int64_t)> &body) {
  if (end <= begin)
    return;
  grain = std::max<int64_t>(grain, 1);
  int64_t total = end - begin;
  // A few chunks per thread balance uneven chunks without much overhead.
  int64_t target = static_cast<int64_t>(threads.size() + 1) * 4;
  int64_t grains = (total + grain - 1) / grain;
  int64_t chunk = std::max<int64_t>(1, grains / target) * grain;
  int64_t chunks = (total + chunk - 1) / chunk;
  if (chunks == 1 || threads.empty()) {
    body(begin, end);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->begin = begin;
  job->end = end;
  job->chunk = chunk;
  job->chunks = chunks;
  {
    std::lock_guard lock(mutex);
    jobs.push_back(job);
  }
  wake.notify_all();
  runChunks(*job);
  std::unique_lock lock(job->mutex);
  job->done.wait(lock, [&] { return job->finished.load() == job->chunks; });
}

} // namespace fuse::device
