//===- Workloads.h - The graphs the benchmark runs --------------*- C++ -*-===//
//
// Each workload is a function of fuse ops written as `.mlir` text, at the
// issue's sizes or at small ones (`--quick`), so that fuse-bench, fuse-run
// (the warm-cache start) and bench.py's peers (which implement each one by
// name, on the shapes given here) run exactly the same graph.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_BENCH_WORKLOADS_H
#define FUSE_BENCH_WORKLOADS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fuse::bench {

/// What bounds a workload, for the target it is reported against.
enum class Bound {
  /// Streams memory with little arithmetic: >= 90% of triad.
  Bandwidth,
  /// exp/tanh per element: >= 80% of triad.
  Transcendental,
  /// Matmul: measured in GFLOP/s as well.
  Compute,
};

const char *boundName(Bound bound);

struct Workload {
  std::string name;
  /// One line for the table, with the shapes.
  std::string title;
  Bound bound;
  /// A module with one func.func of fuse ops.
  std::string mlir;
  /// Shapes of the function's inputs, in order.
  std::vector<std::vector<std::int64_t>> inputShapes;
  /// Floating-point operations of one run (matmuls only; 0 otherwise).
  double flops = 0;
  /// What a peer needs beyond the shapes (the encoder's head count).
  std::vector<std::pair<std::string, std::int64_t>> params = {};
};

/// The workloads at full size, or small ones for a smoke test.
std::vector<Workload> makeWorkloads(bool quick);

} // namespace fuse::bench

#endif // FUSE_BENCH_WORKLOADS_H
