//===- LazyOverhead.h - What the lazy API costs per op ----------*- C++ -*-===//
//
// The lazy tensor API (runtime/engine) records every op before anything
// runs; this measures that recording (an op recorded and its handle dropped,
// so the flush that follows has nothing to compile), and the time to a
// result of a small GELU through a session: first with a compilation, then
// again when the session already holds the executable.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_BENCH_LAZYOVERHEAD_H
#define FUSE_BENCH_LAZYOVERHEAD_H

#include "runtime/Compiler.h"
#include "runtime/ir/Status.h"

#include <cstdint>

namespace fuse::bench {

struct LazyOverhead {
  std::uint64_t ops = 0;
  double recordNsPerOp = 0;
  /// GELU of 4096 elements, read: record, compile, run, read back.
  double firstResultMs = 0;
  /// The same again: record, session hit, run, read back.
  double repeatResultMs = 0;
};

/// Records `ops` ops in a host session that compiles with `compiler`.
Expected<LazyOverhead> measureLazyOverhead(Compiler &compiler,
                                           std::uint64_t ops);

} // namespace fuse::bench

#endif // FUSE_BENCH_LAZYOVERHEAD_H
