//===- FmaPeak.h - This machine's f32 multiply-add peak ---------*- C++ -*-===//
//
// Every core runs independent chains of vector fused multiply-adds on
// registers only (no memory traffic), with the widest vectors the CPU has
// (AVX-512, else AVX2 with FMA, else SSE multiply + add). Enough chains are
// in flight to cover the FMA latency on both pipes, so the figure is the
// throughput the matmul kernels are measured against. Like the triad it is
// measured in the same run as the workloads, and it asserts nothing.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_BENCH_FMAPEAK_H
#define FUSE_BENCH_FMAPEAK_H

namespace fuse::bench {

struct FmaPeakResult {
  /// f32 FLOP/s over all threads (a multiply-add is 2 FLOPs), the best and
  /// the median of the passes.
  double bestGflops = 0;
  double medianGflops = 0;
  /// "avx512", "avx2", or "sse".
  const char *isa = "";
  unsigned threads = 0;
};

/// `threads` threads (0: one per hardware thread), `passes` timed passes.
FmaPeakResult measureFmaPeak(unsigned threads, unsigned passes);

} // namespace fuse::bench

#endif // FUSE_BENCH_FMAPEAK_H
