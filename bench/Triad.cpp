//===- Triad.cpp - This machine's memory bandwidth ------------------------===//

#include "bench/Triad.h"

#include "runtime/device/HostAllocator.h"

#include <emmintrin.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fuse::bench {

namespace {

/// Runs `body(begin, end)` over [0, count) split across threads, each
/// slice but the last a multiple of 8 elements (64 bytes).
template <typename Body>
void parallelFor(std::uint64_t count, unsigned threads, Body body) {
  std::vector<std::thread> workers;
  std::uint64_t chunk = ((count + threads - 1) / threads + 7) / 8 * 8;
  for (unsigned t = 0; t < threads; ++t) {
    std::uint64_t begin = std::min(count, t * chunk);
    std::uint64_t end = std::min(count, begin + chunk);
    workers.emplace_back([=] { body(begin, end); });
  }
  for (std::thread &worker : workers)
    worker.join();
}

/// `count` uninitialized doubles, in huge pages from the host runtime's
/// own allocator (the memory a large tensor gets) or in 4 KiB pages from the
/// C++ heap; given back when it goes. Null where the memory cannot be had.
class DoubleArray {
public:
  DoubleArray(std::uint64_t count, TriadPages pages)
      : bytes(count * sizeof(double)) {
    if (pages == TriadPages::Small) {
      small.reset(new double[count]);
      data = small.get();
      return;
    }
    huge = std::make_unique<device::HostAllocator>();
    data = reinterpret_cast<double *>(huge->allocate(bytes));
  }
  DoubleArray(const DoubleArray &) = delete;
  DoubleArray &operator=(const DoubleArray &) = delete;
  ~DoubleArray() {
    // The allocator unmaps only what was given back to it.
    if (huge && data)
      huge->free(reinterpret_cast<std::byte *>(data), bytes);
  }
  double *get() const { return data; }

private:
  std::uint64_t bytes;
  std::unique_ptr<device::HostAllocator> huge;
  std::unique_ptr<double[]> small;
  double *data = nullptr;
};

/// a = b + s * c over [begin, end) with 16-byte streaming stores (SSE2,
/// every x86-64); `begin` is a multiple of 8 and the arrays 16-byte aligned.
void streamingTriad(double *a, const double *b, const double *c, double s,
                    std::uint64_t begin, std::uint64_t end) {
  __m128d scalar = _mm_set1_pd(s);
  std::uint64_t i = begin;
  for (; i + 2 <= end; i += 2)
    _mm_stream_pd(a + i, _mm_add_pd(_mm_load_pd(b + i),
                                    _mm_mul_pd(scalar, _mm_load_pd(c + i))));
  for (; i < end; ++i)
    a[i] = b[i] + s * c[i];
  _mm_sfence();
}

/// The sum of [begin, end) of `array`, 8 doubles a step in 4 independent
/// 16-byte accumulators (SSE2, every x86-64; `begin` a multiple of 8, the
/// array 16-byte aligned): enough loads in flight to keep a core's share of
/// the memory busy.
double streamingRead(const double *array, std::uint64_t begin,
                     std::uint64_t end) {
  __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  std::uint64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    a0 = _mm_add_pd(a0, _mm_load_pd(array + i));
    a1 = _mm_add_pd(a1, _mm_load_pd(array + i + 2));
    a2 = _mm_add_pd(a2, _mm_load_pd(array + i + 4));
    a3 = _mm_add_pd(a3, _mm_load_pd(array + i + 6));
  }
  double lanes[2];
  _mm_storeu_pd(lanes, _mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3)));
  double sum = lanes[0] + lanes[1];
  for (; i < end; ++i)
    sum += array[i];
  return sum;
}

} // namespace

struct TriadPasses::Arrays {
  Arrays(std::uint64_t count, TriadPages pages)
      : a(count, pages), b(count, pages), c(count, pages) {}
  DoubleArray a, b, c;
};

TriadPasses::TriadPasses(std::uint64_t arrayBytes, unsigned threads,
                         TriadPages pages)
    : count(arrayBytes / sizeof(double)),
      threads(threads ? threads
                      : std::max(1u, std::thread::hardware_concurrency())),
      arrays(std::make_unique<Arrays>(count, pages)) {
  double *pa = arrays->a.get(), *pb = arrays->b.get(), *pc = arrays->c.get();
  if (!pa || !pb || !pc) {
    arrays.reset();
    return;
  }
  // Uninitialized storage: the first touch happens on the thread that
  // later streams the slice.
  parallelFor(count, this->threads,
              [=](std::uint64_t begin, std::uint64_t end) {
                for (std::uint64_t i = begin; i < end; ++i) {
                  pa[i] = 0.0;
                  pb[i] = 1.0;
                  pc[i] = 2.0;
                }
              });
}

TriadPasses::~TriadPasses() {
  // The compiler must not drop the passes: the result is observed.
  if (arrays) {
    volatile double sink = arrays->a.get()[count / 2];
    (void)sink;
  }
}

double TriadPasses::passGBps(bool streamingStores) {
  if (!arrays)
    return 0;
  double *pa = arrays->a.get(), *pb = arrays->b.get(), *pc = arrays->c.get();
  const double scalar = 3.0;
  auto start = std::chrono::steady_clock::now();
  parallelFor(count, threads, [=](std::uint64_t begin, std::uint64_t end) {
    if (streamingStores) {
      streamingTriad(pa, pb, pc, scalar, begin, end);
      return;
    }
    for (std::uint64_t i = begin; i < end; ++i)
      pa[i] = pb[i] + scalar * pc[i];
  });
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  return 3.0 * double(count * sizeof(double)) / elapsed.count() / 1e9;
}

TriadResult measureTriad(std::uint64_t arrayBytes, unsigned threads,
                         unsigned passes, bool streamingStores,
                         TriadPages pages) {
  TriadPasses triad(arrayBytes, threads, pages);
  if (!triad.ok())
    return TriadResult{};
  triad.passGBps(streamingStores); // warm-up
  std::vector<double> gbps;
  for (unsigned pass = 0; pass < passes; ++pass)
    gbps.push_back(triad.passGBps(streamingStores));
  std::sort(gbps.begin(), gbps.end());
  TriadResult result;
  result.bestGBps = gbps.back();
  result.medianGBps = gbps[(gbps.size() - 1) / 2];
  result.arrayBytes = triad.arrayBytes();
  result.threads = triad.threadCount();
  result.passes = passes;
  return result;
}

struct ReadPasses::Array {
  Array(std::uint64_t count) : data(count, TriadPages::Huge) {}
  DoubleArray data;
};

ReadPasses::ReadPasses(std::uint64_t arrayBytes, unsigned threads)
    : count(arrayBytes / sizeof(double) / 8 * 8),
      threads(threads ? threads
                      : std::max(1u, std::thread::hardware_concurrency())),
      array(std::make_unique<Array>(count)) {
  double *data = array->data.get();
  if (!data) {
    array.reset();
    return;
  }
  parallelFor(count, this->threads,
              [=](std::uint64_t begin, std::uint64_t end) {
                for (std::uint64_t i = begin; i < end; ++i)
                  data[i] = 1.0;
              });
}

ReadPasses::~ReadPasses() {
  // The compiler must not drop the passes: the result is observed.
  volatile double sink = total;
  (void)sink;
}

double ReadPasses::passGBps() {
  if (!array)
    return 0;
  const double *data = array->data.get();
  std::mutex mutex;
  auto start = std::chrono::steady_clock::now();
  parallelFor(count, threads,
              [=, this, &mutex](std::uint64_t begin, std::uint64_t end) {
                double sum = streamingRead(data, begin, end);
                std::lock_guard lock(mutex);
                total += sum;
              });
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  return double(count * sizeof(double)) / elapsed.count() / 1e9;
}

} // namespace fuse::bench
