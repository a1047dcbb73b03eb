//===- mlp_attention.cpp - The lazy tensor API with the host compiler -----===//
//
// Runs an MLP (linear, GELU, linear, layernorm), an attention block (scores,
// softmax, weighted values) and the row-wise composites (softmax,
// log-softmax, layernorm, RMSNorm, GELU) through the engine on the host,
// compiled on a cache miss by the real HostCompiler (injected: the engine
// itself never includes a compiler header). Every result is checked against
// the same program on the reference runtime. Prints, per program, its check,
// the kernels it launched, cache hits and timings, then the session's
// counters; run twice over one cache directory, the second run ends with
// "compiled 0".
//
// A block the host compiler cannot compile fused runs unfused (one kernel
// per op); one whose op cannot be compiled even alone (matmul, while the
// host compiler has no matmul schedule) is reported as not run, and does not
// fail the example.
//
// Usage: fuse-engine-example [--cache-dir DIR]
//
//===----------------------------------------------------------------------===//

#include "compiler/host/HostCompiler.h"
#include "runtime/engine/Engine.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace fuse::engine;
using fuse::BundleCache;
using fuse::BundleCacheOptions;
using fuse::ElementType;
using fuse::Expected;
using fuse::HostCompiler;
using fuse::ReferenceCompiler;
using fuse::TensorType;

namespace {

using Program = std::function<Tensor(Session &, std::mt19937 &)>;

TensorType f32(std::vector<std::int64_t> shape) {
  return {ElementType::F32, std::move(shape)};
}

/// Random values in +-[0.1, 1) scaled: never zero.
Tensor randomTensor(Session &session, std::vector<std::int64_t> shape,
                    std::mt19937 &rng, double scale = 1.0) {
  TensorType type = f32(std::move(shape));
  std::uniform_real_distribution<double> magnitude(0.1, 1.0);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> values(type.numElements());
  for (double &value : values)
    value = scale * (negative(rng) ? -magnitude(rng) : magnitude(rng));
  return session.upload(type, values);
}

Tensor mlp(Session &session, std::mt19937 &rng) {
  const std::int64_t batch = 32, width = 64, hidden = 128;
  Tensor x = randomTensor(session, {batch, width}, rng);
  Tensor w1 = randomTensor(session, {hidden, width}, rng, 0.125);
  Tensor b1 = randomTensor(session, {hidden}, rng, 0.1);
  Tensor w2 = randomTensor(session, {width, hidden}, rng, 0.09);
  Tensor b2 = randomTensor(session, {width}, rng, 0.1);
  Tensor gamma = randomTensor(session, {width}, rng);
  Tensor beta = randomTensor(session, {width}, rng);
  Tensor h = gelu(linear(x, w1, b1));
  return layerNorm(linear(h, w2, b2) + x, gamma, beta);
}

Tensor attention(Session &session, std::mt19937 &rng) {
  const std::int64_t heads = 4, sequence = 32, depth = 16;
  Tensor q = randomTensor(session, {heads, sequence, depth}, rng);
  Tensor k = randomTensor(session, {heads, sequence, depth}, rng);
  Tensor v = randomTensor(session, {heads, sequence, depth}, rng);
  Tensor scores = matmul(q, k, false, true);
  Tensor p = softmax(scores * fullLike(scores, 1.0 / std::sqrt(depth)));
  return matmul(p, v);
}

Tensor rowComposites(Session &session, std::mt19937 &rng) {
  const std::int64_t rows = 64, columns = 256;
  Tensor x = randomTensor(session, {rows, columns}, rng, 2.0);
  Tensor gamma = randomTensor(session, {columns}, rng);
  Tensor beta = randomTensor(session, {columns}, rng);
  Tensor y = layerNorm(x, gamma, beta);
  Tensor z = rmsNorm(gelu(y), gamma);
  return softmax(z) + logSoftmax(x);
}

Tensor geluBlock(Session &session, std::mt19937 &rng) {
  Tensor x = randomTensor(session, {128, 512}, rng, 3.0);
  return gelu(x);
}

struct ProgramResult {
  bool ran = false;
  bool ok = true;
};

ProgramResult runProgram(const char *name, const Program &program,
                         Session &host, Session &reference, unsigned seed) {
  ProgramResult outcome;
  EngineCounters before = host.counters();
  std::mt19937 hostRng(seed), referenceRng(seed);
  auto start = std::chrono::steady_clock::now();
  Expected<std::vector<double>> actual = program(host, hostRng).readDoubles();
  double firstMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  EngineCounters after = host.counters();
  if (!actual.ok()) {
    std::printf("%-10s not run: %s\n", name, actual.message().c_str());
    return outcome;
  }
  outcome.ran = true;

  // Steady state: the same program again, every kernel loaded.
  const int repeats = 5;
  // Timed on the device side (submit to fence, uploads and readbacks
  // included), so making the random inputs does not count.
  std::mt19937 steadyRng(seed);
  EngineCounters beforeSteady = host.counters();
  for (int i = 0; i < repeats; ++i) {
    steadyRng.seed(seed);
    (void)program(host, steadyRng).read();
  }
  double steadyMs = std::chrono::duration<double, std::milli>(
                        host.counters().runTime - beforeSteady.runTime)
                        .count() /
                    repeats;

  Expected<std::vector<double>> expected =
      program(reference, referenceRng).readDoubles();
  double maxError = 0;
  if (!expected.ok() || expected->size() != actual->size()) {
    outcome.ok = false;
  } else {
    for (std::size_t i = 0; i < actual->size(); ++i)
      maxError = std::max(maxError, std::fabs((*actual)[i] - (*expected)[i]) /
                                        (1.0 + std::fabs((*expected)[i])));
    outcome.ok = maxError <= 1e-4;
  }
  std::printf(
      "%-10s check %s (max rel. error %.2e over %zu values); "
      "kernels %llu in %llu submission(s)%s; cache hits: session %llu, "
      "memory %llu, disk %llu, misses %llu; compiled %llu; first "
      "%.2f ms (lookup, compile on a miss, run), steady run %.3f ms\n",
      name, outcome.ok ? "ok" : "FAILED", maxError, actual->size(),
      (unsigned long long)(after.kernelsLaunched - before.kernelsLaunched),
      (unsigned long long)(after.submissions - before.submissions),
      after.fallbacks != before.fallbacks ? " (unfused fallback)" : "",
      (unsigned long long)(after.sessionHits - before.sessionHits),
      (unsigned long long)(after.memoryHits - before.memoryHits),
      (unsigned long long)(after.diskHits - before.diskHits),
      (unsigned long long)(after.misses - before.misses),
      (unsigned long long)(after.compilations - before.compilations), firstMs,
      steadyMs);
  return outcome;
}

} // namespace

int main(int argc, char **argv) {
  BundleCacheOptions cacheOptions;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cache-dir") && i + 1 < argc) {
      cacheOptions.directory = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--cache-dir DIR]\n", argv[0]);
      return 2;
    }
  }
  if (cacheOptions.directory.empty()) {
    Expected<std::string> directory = BundleCache::defaultDirectory();
    if (!directory.ok()) {
      std::fprintf(stderr, "error: %s\n", directory.message().c_str());
      return 1;
    }
    cacheOptions.directory = *directory;
  }
  Expected<std::unique_ptr<BundleCache>> cache =
      BundleCache::open(cacheOptions);
  if (!cache.ok()) {
    std::fprintf(stderr, "error: %s\n", cache.message().c_str());
    return 1;
  }

  HostCompiler compiler;
  SessionOptions hostOptions;
  // The host by name: the default device would be CUDA where a GPU is, which
  // HostCompiler does not target.
  hostOptions.device = DeviceChoice::Host;
  hostOptions.compiler = &compiler;
  hostOptions.cache = cache->get();
  Expected<Session> host = Session::open(hostOptions);
  if (!host.ok()) {
    std::fprintf(stderr, "error: %s\n", host.message().c_str());
    return 1;
  }
  ReferenceCompiler referenceCompiler;
  SessionOptions referenceOptions;
  referenceOptions.device = DeviceChoice::Reference;
  referenceOptions.compiler = &referenceCompiler;
  Session reference = Session::open(referenceOptions).take();

  std::printf("engine on %s (target %s), cache %s\n",
              host->deviceName().c_str(), host->target().c_str(),
              cacheOptions.directory.c_str());
  struct Named {
    const char *name;
    Program program;
  };
  const Named programs[] = {{"mlp", mlp},
                            {"attention", attention},
                            {"rows", rowComposites},
                            {"gelu", geluBlock}};
  bool allOk = true;
  int ran = 0;
  for (const Named &named : programs) {
    ProgramResult result =
        runProgram(named.name, named.program, *host, reference, 1234);
    allOk = allOk && result.ok;
    ran += result.ran;
  }

  EngineCounters counters = host->counters();
  std::printf(
      "engine: %llu ops recorded, %llu blocks, %llu kernels, %llu "
      "submissions; cache hits: session %llu, memory %llu, disk %llu, "
      "misses %llu; compiled %llu (%.1f ms), compile failures %llu, "
      "fallbacks %llu, failed blocks %llu; run time %.1f ms\n",
      (unsigned long long)counters.opsRecorded,
      (unsigned long long)counters.blocks,
      (unsigned long long)counters.kernelsLaunched,
      (unsigned long long)counters.submissions,
      (unsigned long long)counters.sessionHits,
      (unsigned long long)counters.memoryHits,
      (unsigned long long)counters.diskHits,
      (unsigned long long)counters.misses,
      (unsigned long long)counters.compilations,
      std::chrono::duration<double, std::milli>(counters.compileTime).count(),
      (unsigned long long)counters.compileFailures,
      (unsigned long long)counters.fallbacks,
      (unsigned long long)counters.failedBlocks,
      std::chrono::duration<double, std::milli>(counters.runTime).count());
  if (ran == 0) {
    std::printf("error: no program ran\n");
    return 1;
  }
  std::printf("%s\n", allOk ? "all checks passed" : "some checks FAILED");
  return allOk ? 0 : 1;
}
