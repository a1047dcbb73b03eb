//===- ThreadPool.h - Splits host kernel launches across threads -*- C++
//-*-===//
//
// The host runtime's workers. `parallelFor` splits an iteration range into
// chunks that are whole multiples of a grain and runs them on the pool and
// on the calling thread. The caller always takes part, so a launch makes
// progress even when every pool thread is busy with another stream's launch:
// streams stay independent.
//
// Never depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_THREADPOOL_H
#define FUSE_RUNTIME_DEVICE_THREADPOOL_H

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

  unsigned helperCount() const { return threads.size(); }

  /// Calls `body(chunkBegin, chunkEnd)` over [begin, end); every chunk but
  /// the last starts and ends at `begin` plus a multiple of `grain`.
  /// Returns when every chunk is done.
  void parallelFor(int64_t begin, int64_t end, int64_t grain,
                   const std::function<void(int64_t, int64_t)> &body);

private:
  struct Job;
  void serve();
  static void runChunks(Job &job);

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<Job>> jobs;
  bool stopping = false;
  std::vector<std::thread> threads;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_THREADPOOL_H
