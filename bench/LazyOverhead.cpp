//===- LazyOverhead.cpp - What the lazy API costs per op ------------------===//

#include "bench/LazyOverhead.h"

#include "runtime/engine/Engine.h"

#include <chrono>
#include <vector>

namespace fuse::bench {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

} // namespace

Expected<LazyOverhead> measureLazyOverhead(Compiler &compiler,
                                           std::uint64_t ops) {
  engine::SessionOptions options;
  options.device = engine::DeviceChoice::Host;
  options.compiler = &compiler;
  // One block for every op: no flush while recording.
  options.maxBlockOps = ops + 64;
  Expected<engine::Session> session = engine::Session::open(options);
  if (!session.ok())
    return session.status();
  TensorType type{ElementType::F32, {4096}};
  std::vector<double> values(4096);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = -2.0 + 4.0 * double(i) / double(values.size());
  engine::Tensor x = session->upload(type, values);

  LazyOverhead result;
  result.ops = ops;
  Clock::time_point start = Clock::now();
  for (std::uint64_t i = 0; i < ops; ++i) {
    // Independent ops, each handle dropped at once: recording only (a chain
    // would make dropping it a deep recursion).
    engine::Tensor y = x * x;
    (void)y;
  }
  result.recordNsPerOp = msSince(start) * 1e6 / double(ops);
  if (Status flushed = session->flush(); !flushed.ok())
    return flushed;

  for (double *ms : {&result.firstResultMs, &result.repeatResultMs}) {
    Clock::time_point begin = Clock::now();
    Expected<HostTensorData> y = engine::gelu(x).read();
    if (!y.ok())
      return y.status();
    *ms = msSince(begin);
  }
  return result;
}

} // namespace fuse::bench
