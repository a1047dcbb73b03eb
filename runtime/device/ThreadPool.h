//===- ThreadPool.h - Host kernel launches across threads -------*- C++ -*-===//
//
// The host runtime's workers. `parallelFor` splits an iteration range into
// chunks of whole grains, as equal as the grains allow, and runs them on
// the pool and on the calling thread. The caller always takes part, so a
// launch makes progress even when every pool thread is busy with another
// stream's launch: streams stay independent. Each worker (the caller, then
// the helpers in order) owns an even run of the chunks and runs it first,
// then takes what is left of the others': the same worker runs the same
// part of every launch, near the data it wrote in the launches before.
//
// A helper that finishes a job polls for the next one for a short while
// before it sleeps: a model launches its kernels back to back, and waking a
// sleeping thread costs tens of microseconds, more than a small kernel.
//
// Never depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_THREADPOOL_H
#define FUSE_RUNTIME_DEVICE_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fuse::device {

class ThreadPool {
public:
  /// `helpers` threads besides each caller; 0 runs everything on callers.
  explicit ThreadPool(unsigned helpers);
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool();

  /// Calls `body(chunkBegin, chunkEnd)` over [begin, end); every chunk but
  /// the last starts and ends at `begin` plus a multiple of `grain`, and
  /// the chunks' sizes differ by at most one grain (the last may be
  /// shorter). `chunksPerWorker` chunks per thread at most, 0 the default
  /// (a few, for balance). Returns when every chunk is done.
  void parallelFor(int64_t begin, int64_t end, int64_t grain,
                   const std::function<void(int64_t, int64_t)> &body,
                   unsigned chunksPerWorker = 0);

  /// The chunks `parallelFor` makes of [begin, end) for `workers` threads
  /// (the caller included): their boundaries, first `begin`, last `end`.
  static std::vector<int64_t> chunkBoundaries(int64_t begin, int64_t end,
                                              int64_t grain, unsigned workers,
                                              unsigned chunksPerWorker = 0);

private:
  struct Job;
  void serve(unsigned worker);
  static void runChunks(Job &job, unsigned worker);
  /// The next job with chunks left, or null; pops finished jobs. Under
  /// `mutex`.
  std::shared_ptr<Job> nextJob();

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<Job>> jobs;
  /// Jobs pushed, read without the lock by polling helpers.
  std::atomic<uint64_t> pushed{0};
  /// Helpers waiting on `wake` (changed under `mutex`).
  unsigned sleepers = 0;
  bool stopping = false;
  std::vector<std::thread> threads;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_THREADPOOL_H
