//===- BenchSupport.h - What the benchmark programs share -------*- C++ -*-===//
//
// JSON lines (every benchmark program prints one object per line) and the
// inputs every runtime gets: deterministic f32 values, the same in
// fuse-bench and fuse-gpu-bench.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_BENCH_BENCHSUPPORT_H
#define FUSE_BENCH_BENCHSUPPORT_H

#include "runtime/device/RunBundle.h"
#include "tools/JsonText.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuse::bench {

std::string shapeJson(const std::vector<std::int64_t> &shape);

/// One JSON object built field by field, in order.
class JsonObject {
public:
  JsonObject &raw(const std::string &key, const std::string &value) {
    text += (text.empty() ? "" : ", ") + jsonString(key) + ": " + value;
    return *this;
  }
  JsonObject &str(const std::string &key, const std::string &value) {
    return raw(key, jsonString(value));
  }
  JsonObject &num(const std::string &key, std::optional<double> value) {
    return raw(key, jsonNumber(value));
  }
  JsonObject &boolean(const std::string &key, bool value) {
    return raw(key, value ? "true" : "false");
  }
  std::string toString() const { return "{" + text + "}"; }

private:
  std::string text;
};

/// Deterministic f32 values in [-2, 2] without (-0.125, 0.125): no division
/// by zero, no log of zero; fast enough for 2^26 elements.
device::TensorBytes randomF32(std::int64_t count, std::uint64_t seed);

/// The median of `values` (of an even count, the mean of the middle two); 0
/// for none.
double median(std::vector<double> values);

/// The first line of a message, for a one-line JSON field.
std::string firstLine(const std::string &text);

} // namespace fuse::bench

#endif // FUSE_BENCH_BENCHSUPPORT_H
