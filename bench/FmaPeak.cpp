//===- FmaPeak.cpp - This machine's f32 multiply-add peak -----------------===//

#include "bench/FmaPeak.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace fuse::bench {

namespace {

/// Chains in flight: 2 pipes x 4-5 cycles of latency need 8-10; 12 leaves
/// margin and fits the 16 AVX2 registers.
constexpr int kChains = 12;
/// Multiply-adds per chain per call.
constexpr std::int64_t kSteps = int64_t(1) << 24;

// Each loop returns a value computed from every chain, which the caller
// stores, so no chain is dead. The multiplier is just below 1 and the
// addend small, so the values stay finite and normal.

__attribute__((target("avx512f"))) float chainsAvx512() {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps(float(i));
  __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-6f);
  for (std::int64_t s = 0; s < kSteps; ++s)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i)
    sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) float chainsAvx2() {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm256_set1_ps(float(i));
  __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-6f);
  for (std::int64_t s = 0; s < kSteps; ++s)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes)
    total += lane;
  return total;
}

float chainsSse() {
  __m128 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm_set1_ps(float(i));
  __m128 x = _mm_set1_ps(0.999999f), y = _mm_set1_ps(1e-6f);
  for (std::int64_t s = 0; s < kSteps; ++s)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
      acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], x), y);
  __m128 sum = acc[0];
  for (int i = 1; i < kChains; ++i)
    sum = _mm_add_ps(sum, acc[i]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

} // namespace

FmaPeakResult measureFmaPeak(unsigned threads, unsigned passes) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  FmaPeakResult result;
  float (*chains)() = chainsSse;
  int lanes = 4;
  result.isa = "sse";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    chains = chainsAvx512;
    lanes = 16;
    result.isa = "avx512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    chains = chainsAvx2;
    lanes = 8;
    result.isa = "avx2";
  }
  std::vector<float> sinks(threads);
  std::vector<double> seconds;
  for (unsigned pass = 0; pass <= passes; ++pass) {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] { sinks[t] = chains(); });
    for (std::thread &worker : workers)
      worker.join();
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    if (pass > 0)
      seconds.push_back(elapsed.count());
  }
  volatile float sink = sinks[0];
  (void)sink;
  std::sort(seconds.begin(), seconds.end());
  double flops = 2.0 * lanes * kChains * double(kSteps) * threads;
  result.bestGflops = flops / seconds.front() / 1e9;
  result.medianGflops = flops / seconds[seconds.size() / 2] / 1e9;
  result.threads = threads;
  return result;
}

} // namespace fuse::bench
