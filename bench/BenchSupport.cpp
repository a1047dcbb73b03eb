//===- BenchSupport.cpp - What the benchmark programs share ---------------===//

#include "bench/BenchSupport.h"

#include <algorithm>

namespace fuse::bench {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

device::TensorBytes randomF32(std::int64_t count, std::uint64_t seed) {
  device::TensorBytes bytes(std::size_t(count) * sizeof(float));
  auto *values = reinterpret_cast<float *>(bytes.data());
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t i = 0; i < count; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    float unit = float(state >> 40) / float(1 << 24);
    float magnitude = 0.125f + 1.875f * unit;
    values[i] = (state & 1) ? -magnitude : magnitude;
  }
  return bytes;
}

std::string shapeJson(const std::vector<std::int64_t> &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string firstLine(const std::string &text) {
  return text.substr(0, text.find('\n'));
}

} // namespace fuse::bench
