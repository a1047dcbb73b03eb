//===- Triad.h - This machine's memory bandwidth ----------------*- C++ -*-===//
//
// A STREAM-like triad, a[i] = b[i] + s * c[i], on three arrays of doubles
// spread over threads that each touch their own slice first (so the pages
// live next to the thread that streams them). Every percentage the benchmark
// reports is against the figure measured in the same run, because the
// bandwidth of a shared machine moves between runs.
//
// With plain stores the CPU also reads each line of `a` before writing it
// (write-allocate), traffic STREAM does not count; with streaming
// (non-temporal) stores it does not. Kernels that write with streaming
// stores can therefore pass the plain figure, so the streaming one is the
// limit the benchmark reports against, and the plain one is shown beside it.
//
// Never asserts anything about the figure it measures.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_BENCH_TRIAD_H
#define FUSE_BENCH_TRIAD_H

#include <cstdint>
#include <memory>

namespace fuse::bench {

struct TriadResult {
  /// Bytes moved per pass over bytes per second, STREAM's convention: two
  /// arrays read and one written, write-allocate traffic not counted.
  double bestGBps = 0;
  double medianGBps = 0;
  std::uint64_t arrayBytes = 0;
  unsigned threads = 0;
  unsigned passes = 0;
};

/// Where the arrays live. `Huge`: blocks of the host runtime's allocator,
/// which gives a tensor of 2 MiB or more transparent huge pages (where the
/// system allows them), the memory every Fuse kernel of these sizes
/// streams. `Small`: 4 KiB pages from the C++ heap, what most programs
/// get; on a virtual machine each such page costs a nested page walk, and
/// this triad ran at 43-57 GB/s where the huge-page one ran at 74-78.
enum class TriadPages { Huge, Small };

/// The triad's three arrays, held for passes one at a time: fuse-bench's
/// paired figure times one pass just before each run of a memory-bound
/// workload, so that each run is compared with the memory of its own moment.
class TriadPasses {
public:
  /// `arrayBytes` per array, `threads` threads (0: one per hardware thread);
  /// ok() is false where the memory cannot be had.
  TriadPasses(std::uint64_t arrayBytes, unsigned threads,
              TriadPages pages = TriadPages::Huge);
  ~TriadPasses();
  TriadPasses(const TriadPasses &) = delete;
  TriadPasses &operator=(const TriadPasses &) = delete;

  bool ok() const { return arrays != nullptr; }
  /// One timed pass: STREAM's bytes (three arrays) over its time; 0 where
  /// not ok().
  double passGBps(bool streamingStores = true);
  std::uint64_t arrayBytes() const { return count * sizeof(double); }
  unsigned threadCount() const { return threads; }

private:
  struct Arrays;
  std::uint64_t count;
  unsigned threads;
  std::unique_ptr<Arrays> arrays;
};

/// `arrayBytes` per array, `threads` threads (0: one per hardware thread),
/// `passes` timed passes after one warm-up, with streaming or plain stores.
/// All zeros when the memory cannot be had.
TriadResult measureTriad(std::uint64_t arrayBytes, unsigned threads,
                         unsigned passes, bool streamingStores,
                         TriadPages pages = TriadPages::Huge);

/// A read-only stream, held for passes one at a time (as TriadPasses): the
/// sum of one array of `arrayBytes` in huge pages (as TriadPages::Huge),
/// split over `threads` threads. The ceiling of a kernel that reads far more
/// than it writes (a sum, column sums): on the AMD EPYC VM the triad was
/// measured on, reads alone ran at about 75-80% of the triad's rate.
class ReadPasses {
public:
  ReadPasses(std::uint64_t arrayBytes, unsigned threads);
  ~ReadPasses();
  ReadPasses(const ReadPasses &) = delete;
  ReadPasses &operator=(const ReadPasses &) = delete;

  bool ok() const { return array != nullptr; }
  /// One timed pass: the bytes read over its time; 0 where not ok().
  double passGBps();

private:
  struct Array;
  std::uint64_t count;
  unsigned threads;
  std::unique_ptr<Array> array;
  double total = 0;
};

} // namespace fuse::bench

#endif // FUSE_BENCH_TRIAD_H
