// Host code generation of the f8 and f4 floats (f8E4M3FN, f8E4M3FNUZ,
// f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN) and the narrow integers (i4, ui4,
// i2, ui2), one byte per element. Graphs compiled by HostCompiler run on the
// HostRuntime; every output is checked bit for bit (NaN against NaN) twice:
// against C++ written here from the formats' definitions (independent of the
// code under test: floats are encoded by searching the format's sorted
// values for the nearest, not by bit manipulation) and against the
// reference interpreter.
//
// Inputs: every code of each format, every f16, the midpoints between
// neighbouring codes and the floats next to them (ties to even), random
// floats across and beyond each range, subnormals, signed zeros,
// infinities and NaNs, with and without `saturate`, from f16, f32 and f64
// (where rounding to f32 first would round twice).

#include "test/compiler/host/HostCodegenTest.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace fuse {
namespace {

//===----------------------------------------------------------------------===//
// The formats, from their definitions
//===----------------------------------------------------------------------===//

struct Format {
  ElementType type;
  int exponentBits, mantissaBits, bias;
  enum Specials {
    /// Infinity and NaNs at the all-ones exponent (f8E5M2, f16).
    Ieee,
    /// One NaN magnitude, all ones; no infinity (f8E4M3FN).
    AllOnesNaN,
    /// The negative-zero code is the NaN; no infinity (the FNUZ types).
    NegativeZeroNaN,
    /// No NaN, no infinity (f4E2M1FN).
    Finite,
  } specials;

  int signBit() const { return exponentBits + mantissaBits; }
  int codes() const { return 1 << (signBit() + 1); }

  double decode(uint32_t code) const {
    bool negative = (code >> signBit()) & 1;
    uint32_t magnitude = code & ((1u << signBit()) - 1);
    uint32_t exponent = magnitude >> mantissaBits;
    uint32_t mantissa = magnitude & ((1u << mantissaBits) - 1);
    uint32_t allOnes = (1u << exponentBits) - 1;
    // NaN keeps its sign; the FNUZ NaN (the negative-zero code) is negative,
    // as ml_dtypes decodes it.
    double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(),
                               negative ? -1.0 : 1.0);
    if (specials == Ieee && exponent == allOnes)
      return mantissa ? nan
                      : (negative ? -1 : 1) *
                            std::numeric_limits<double>::infinity();
    if (specials == AllOnesNaN && magnitude == (1u << signBit()) - 1)
      return nan;
    if (specials == NegativeZeroNaN && negative && magnitude == 0)
      return nan;
    double value = exponent == 0
                       ? std::ldexp(double(mantissa), 1 - bias - mantissaBits)
                       : std::ldexp(double((1u << mantissaBits) + mantissa),
                                    int(exponent) - bias - mantissaBits);
    return negative ? -value : value;
  }

  /// The largest finite magnitude code.
  uint32_t maxCode() const {
    uint32_t code = (1u << signBit()) - 1;
    while (!std::isfinite(decode(code)))
      --code;
    return code;
  }

  /// x rounded to nearest even among the format's values: overflow gives
  /// infinity, NaN, or with `saturate` (always for f4E2M1FN) the largest
  /// finite value.
  uint32_t encode(double x, bool saturate) const {
    bool negative = std::signbit(x);
    uint32_t sign = uint32_t(negative) << signBit();
    uint32_t allOnesExponent = ((1u << exponentBits) - 1) << mantissaBits;
    if (std::isnan(x)) {
      switch (specials) {
      case Ieee:
        return sign | allOnesExponent | (1u << (mantissaBits - 1));
      case AllOnesNaN:
        return sign | ((1u << signBit()) - 1);
      case NegativeZeroNaN:
        return 1u << signBit();
      case Finite:
        // As ml_dtypes (and so ONNX's test data): a zero of the other sign.
        return uint32_t(!negative) << signBit();
      }
    }
    double a = std::fabs(x);
    uint32_t top = maxCode();
    double max = decode(top);
    uint32_t magnitude;
    if (a > max) {
      double step = max - decode(top - 1);
      double middle = max + step / 2;
      bool overflows =
          std::isinf(a) || a > middle || (a == middle && (top & 1));
      if (!overflows)
        magnitude = top;
      else if (saturate || specials == Finite)
        magnitude = top;
      else if (specials == Ieee)
        magnitude = allOnesExponent;
      else if (specials == AllOnesNaN)
        magnitude = (1u << signBit()) - 1;
      else
        return 1u << signBit();
    } else {
      // The largest code not above a, then the nearer of it and the next.
      uint32_t lo = 0, hi = top;
      while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (decode(mid) <= a)
          lo = mid;
        else
          hi = mid - 1;
      }
      magnitude = lo;
      if (lo < top) {
        double below = a - decode(lo), above = decode(lo + 1) - a;
        if (above < below || (above == below && (lo & 1)))
          magnitude = lo + 1;
      }
    }
    if (specials == NegativeZeroNaN && magnitude == 0)
      return 0;
    return sign | magnitude;
  }
};

const Format kF16{ElementType::F16, 5, 10, 15, Format::Ieee};

const std::vector<Format> &miniFloats() {
  static const std::vector<Format> formats = {
      {ElementType::F8E4M3FN, 4, 3, 7, Format::AllOnesNaN},
      {ElementType::F8E4M3FNUZ, 4, 3, 8, Format::NegativeZeroNaN},
      {ElementType::F8E5M2, 5, 2, 15, Format::Ieee},
      {ElementType::F8E5M2FNUZ, 5, 2, 16, Format::NegativeZeroNaN},
      {ElementType::F4E2M1FN, 2, 1, 1, Format::Finite},
  };
  return formats;
}

bool isF8(ElementType type) { return type != ElementType::F4E2M1FN; }

/// f8E8M0FNU: 2^(code - 127), 0xFF is NaN.
double decodeE8M0(uint32_t code) {
  if (code == 0xFF)
    return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, int(code) - 127);
}

/// ONNX's reference (onnx.numpy_helper.to_float8e8m0), on the f32 bits.
uint32_t encodeE8M0(float x, bool saturate, const std::string &mode) {
  uint32_t bits = std::bit_cast<uint32_t>(x);
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF)
    return 0xFF;
  bool up = false;
  if (mode == "up") {
    up = (bits & 0x7FFFFF) != 0;
  } else if (mode == "nearest") {
    bool g = bits & 0x400000, r = bits & 0x200000, s = bits & 0x1FFFFF;
    up = g && (r || s || exponent > 0);
  }
  if (saturate && exponent == 0xFE)
    up = false;
  return exponent + (up ? 1 : 0);
}

//===----------------------------------------------------------------------===//
// Expected outputs and their comparison
//===----------------------------------------------------------------------===//

struct Expectation {
  std::string name;
  ElementType type;
  std::vector<std::byte> bytes;
};

/// Whether element i of `bytes` (of `type`) is a NaN.
bool isNaNAt(ElementType type, const std::vector<std::byte> &bytes, size_t i) {
  auto byteAt = [&](size_t k) { return uint32_t(bytes[k]); };
  switch (type) {
  case ElementType::F32: {
    float f;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    return std::isnan(f);
  }
  case ElementType::F64: {
    double d;
    std::memcpy(&d, bytes.data() + 8 * i, 8);
    return std::isnan(d);
  }
  case ElementType::F16:
    return std::isnan(kF16.decode(byteAt(2 * i) | (byteAt(2 * i + 1) << 8)));
  case ElementType::F8E8M0FNU:
    return byteAt(i) == 0xFF;
  default:
    for (const Format &f : miniFloats())
      if (f.type == type)
        return std::isnan(f.decode(byteAt(i)));
    return false;
  }
}

/// "" when equal bit for bit, NaN matching any NaN; else the first
/// difference.
std::string difference(ElementType type, const std::vector<std::byte> &got,
                       const std::vector<std::byte> &want,
                       const std::vector<std::string> &inputNames) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " bytes against " +
           std::to_string(want.size());
  size_t width = size_t(byteSize(type));
  for (size_t i = 0; i < want.size() / width; ++i) {
    if (std::memcmp(got.data() + i * width, want.data() + i * width, width) ==
        0)
      continue;
    if (isFloat(type) && isNaNAt(type, got, i) && isNaNAt(type, want, i))
      continue;
    std::string what = "element " + std::to_string(i);
    if (i < inputNames.size())
      what += " (" + inputNames[i] + ")";
    char hex[64];
    uint64_t g = 0, w = 0;
    std::memcpy(&g, got.data() + i * width, width);
    std::memcpy(&w, want.data() + i * width, width);
    std::snprintf(hex, sizeof hex, ": got 0x%llx, want 0x%llx",
                  (unsigned long long)g, (unsigned long long)w);
    return what + hex;
  }
  return "";
}

std::string describe(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", x);
  return text;
}

class HostLowPrecisionCodegen : public HostCodegen {
protected:
  /// Compiles and runs `graph` on the host and on the reference; output k
  /// must equal expected[k]. `labels` name the elements (the input values).
  void checkExact(GraphBuilder &builder,
                  const std::vector<std::vector<std::byte>> &inputs,
                  const std::vector<Expectation> &expected,
                  const std::vector<std::string> &labels = {}) {
    SCOPED_TRACE("random seed " + std::to_string(seed));
    Expected<Graph> finished = builder.finish();
    ASSERT_TRUE(finished.ok()) << finished.message();
    const Graph &graph = *finished;
    ASSERT_EQ(graph.outputs.size(), expected.size());
    std::vector<TensorBytes> host, reference;
    runOnHostAndReference(graph, inputs, host, reference);
    if (HasFatalFailure())
      return;

    for (size_t k = 0; k < expected.size(); ++k) {
      const Expectation &want = expected[k];
      std::string compiled = difference(want.type, host[k], want.bytes, labels);
      EXPECT_EQ(compiled, "")
          << "host output " << want.name << " differs from C++";
      std::string interpreted =
          difference(want.type, reference[k], want.bytes, labels);
      EXPECT_EQ(interpreted, "")
          << "reference output " << want.name << " differs from C++";
    }
  }

  /// A cast with ONNX's attributes.
  static TensorId cast(GraphBuilder &b, TensorId x, ElementType to, int64_t n,
                       bool saturate = false, std::string roundMode = "") {
    AttrMap attributes;
    if (saturate)
      attributes.emplace("saturate", Attribute::flag(true));
    if (!roundMode.empty())
      attributes.emplace("round_mode", Attribute::enumName(roundMode));
    return b.op(OpKind::Cast, {x}, std::move(attributes), TensorType{to, {n}});
  }

  /// Floats that exercise `f`'s rounding: every value, the midpoints
  /// between neighbours and the floats next to them, beyond the largest
  /// value, random floats over the exponent range and past it, subnormal
  /// f32s, signed zeros, infinities and NaNs.
  std::vector<double> interestingValues(const Format &f, bool forF32) {
    std::vector<double> values;
    auto add = [&](double v) {
      values.push_back(v);
      values.push_back(-v);
    };
    auto nextTo = [&](double v) {
      if (forF32) {
        float single = float(v);
        add(std::nextafter(single, 0.0f));
        add(std::nextafter(single, std::numeric_limits<float>::infinity()));
      } else {
        add(std::nextafter(v, 0.0));
        add(std::nextafter(v, std::numeric_limits<double>::infinity()));
      }
    };
    uint32_t top = f.maxCode();
    for (uint32_t code = 0; code <= top; ++code) {
      double v = f.decode(code);
      add(v);
      double next =
          code < top ? f.decode(code + 1) : v + (v - f.decode(code - 1));
      double middle = (v + next) / 2;
      add(middle);
      nextTo(middle);
    }
    std::uniform_int_distribution<int> exponent(
        -f.bias - f.mantissaBits - 4, (1 << f.exponentBits) - f.bias + 2);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    for (int i = 0; i < 2000; ++i)
      add(std::ldexp(mantissa(rng), exponent(rng)));
    double inf = std::numeric_limits<double>::infinity();
    for (double v : {0.0, inf, double(std::numeric_limits<float>::max()),
                     double(std::numeric_limits<float>::denorm_min()),
                     double(std::numeric_limits<float>::min()) / 3, 1e30})
      add(v);
    values.push_back(std::numeric_limits<double>::quiet_NaN());
    values.push_back(-std::numeric_limits<double>::quiet_NaN());
    return values;
  }

  static std::vector<std::string> labelsOf(const std::vector<double> &x) {
    std::vector<std::string> labels;
    for (double v : x)
      labels.push_back(describe(v));
    return labels;
  }
};

//===----------------------------------------------------------------------===//
// f8 and f4
//===----------------------------------------------------------------------===//

// f32 -> each format, with and without saturate; the cast back to f32 and
// to f16 in the same kernel sees the rounded value.
TEST_F(HostLowPrecisionCodegen, FloatsFromF32RoundToNearestEven) {
  for (const Format &f : miniFloats()) {
    SCOPED_TRACE(std::string(elementTypeName(f.type)));
    std::vector<double> values = interestingValues(f, /*forF32=*/true);
    std::vector<float> x(values.begin(), values.end());
    int64_t n = int64_t(x.size());
    GraphBuilder b;
    TensorId xi = b.input({ElementType::F32, {n}}, "x");
    TensorId plain = cast(b, xi, f.type, n);
    b.output(plain, "plain");
    b.output(cast(b, plain, ElementType::F32, n), "plain_f32");
    b.output(cast(b, plain, ElementType::F16, n), "plain_f16");
    std::vector<uint8_t> wantPlain, wantSaturated;
    std::vector<float> wantF32;
    std::vector<uint16_t> wantF16;
    for (float v : x) {
      wantPlain.push_back(uint8_t(f.encode(v, false)));
      wantSaturated.push_back(uint8_t(f.encode(v, true)));
      wantF32.push_back(float(f.decode(wantPlain.back())));
      wantF16.push_back(uint16_t(kF16.encode(wantF32.back(), false)));
    }
    std::vector<Expectation> expected = {
        {"plain", f.type, bytesOf(wantPlain)},
        {"plain_f32", ElementType::F32, bytesOf(wantF32)},
        {"plain_f16", ElementType::F16, bytesOf(wantF16)}};
    if (isF8(f.type)) {
      b.output(cast(b, xi, f.type, n, /*saturate=*/true), "saturated");
      expected.push_back({"saturated", f.type, bytesOf(wantSaturated)});
    }
    std::vector<double> asDouble(x.begin(), x.end());
    checkExact(b, {bytesOf(x)}, expected, labelsOf(asDouble));
  }
}

// Every f16 bit pattern -> each format.
TEST_F(HostLowPrecisionCodegen, EveryF16ToEachFormat) {
  const int64_t n = 65536;
  std::vector<uint16_t> x(n);
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = uint16_t(i);
    values[i] = kF16.decode(uint32_t(i));
  }
  for (const Format &f : miniFloats()) {
    SCOPED_TRACE(std::string(elementTypeName(f.type)));
    GraphBuilder b;
    TensorId xi = b.input({ElementType::F16, {n}}, "x");
    b.output(cast(b, xi, f.type, n), "plain");
    std::vector<uint8_t> wantPlain, wantSaturated;
    for (double v : values) {
      wantPlain.push_back(uint8_t(f.encode(v, false)));
      wantSaturated.push_back(uint8_t(f.encode(v, true)));
    }
    std::vector<Expectation> expected = {{"plain", f.type, bytesOf(wantPlain)}};
    if (isF8(f.type)) {
      b.output(cast(b, xi, f.type, n, /*saturate=*/true), "saturated");
      expected.push_back({"saturated", f.type, bytesOf(wantSaturated)});
    }
    checkExact(b, {bytesOf(x)}, expected, labelsOf(values));
  }
}

// f64 rounds once: values next to a midpoint that f32 would round onto it.
TEST_F(HostLowPrecisionCodegen, FloatsFromF64RoundOnce) {
  for (const Format &f : miniFloats()) {
    SCOPED_TRACE(std::string(elementTypeName(f.type)));
    std::vector<double> x = interestingValues(f, /*forF32=*/false);
    int64_t n = int64_t(x.size());
    GraphBuilder b;
    TensorId xi = b.input({ElementType::F64, {n}}, "x");
    b.output(cast(b, xi, f.type, n), "plain");
    std::vector<uint8_t> want;
    for (double v : x)
      want.push_back(uint8_t(f.encode(v, false)));
    checkExact(b, {bytesOf(x)}, {{"plain", f.type, bytesOf(want)}},
               labelsOf(x));
  }
}

// Every code of each format -> f32, f16, f64, i32, i1 and the other
// formats; and through a transpose, unchanged.
TEST_F(HostLowPrecisionCodegen, EveryCodeDecodesExactly) {
  for (const Format &f : miniFloats()) {
    SCOPED_TRACE(std::string(elementTypeName(f.type)));
    // Every code, in random order, twice (a vector body and a tail).
    std::vector<uint8_t> x;
    for (int round = 0; round < 2; ++round)
      for (int code = 0; code < f.codes(); ++code)
        x.push_back(uint8_t(code));
    std::shuffle(x.begin(), x.end(), rng);
    int64_t n = int64_t(x.size());
    std::vector<double> values;
    for (uint8_t code : x)
      values.push_back(f.decode(code));
    GraphBuilder b;
    TensorId xi = b.input({f.type, {n}}, "x");
    std::vector<Expectation> expected;
    auto out = [&](TensorId id, std::string name, ElementType type, auto fn) {
      b.output(id, name);
      using R = decltype(fn(0.0));
      std::vector<R> want;
      for (double v : values)
        want.push_back(fn(v));
      expected.push_back({name, type, bytesOf(want)});
    };
    out(cast(b, xi, ElementType::F32, n), "f32", ElementType::F32,
        [](double v) { return float(v); });
    out(cast(b, xi, ElementType::F64, n), "f64", ElementType::F64,
        [](double v) { return v; });
    out(cast(b, xi, ElementType::F16, n), "f16", ElementType::F16,
        [](double v) { return uint16_t(kF16.encode(v, false)); });
    out(cast(b, xi, ElementType::I32, n), "i32", ElementType::I32,
        [](double v) {
          // The documented float to integer cast: NaN gives 0, infinities
          // saturate.
          if (std::isnan(v))
            return int32_t(0);
          if (std::isinf(v))
            return v > 0 ? std::numeric_limits<int32_t>::max()
                         : std::numeric_limits<int32_t>::min();
          return int32_t(std::trunc(v));
        });
    out(cast(b, xi, ElementType::I1, n), "i1", ElementType::I1,
        [](double v) { return uint8_t(v != 0); });
    for (const Format &g : miniFloats())
      if (g.type != f.type)
        out(cast(b, xi, g.type, n), std::string(elementTypeName(g.type)),
            g.type, [&](double v) { return uint8_t(g.encode(v, false)); });
    std::vector<int64_t> half = {2, n / 2};
    b.output(b.reshape(b.transpose(b.reshape(xi, half), {1, 0}), {n}), "moved");
    std::vector<uint8_t> moved(x.size());
    for (int64_t i = 0; i < n / 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        moved[i * 2 + j] = x[j * (n / 2) + i];
    expected.push_back({"moved", f.type, bytesOf(moved)});
    checkExact(b, {bytesOf(x)}, expected, labelsOf(values));
  }
}

// Ops that take any type: compare (in f32), select, concat of f8 values.
TEST_F(HostLowPrecisionCodegen, F8CompareSelectConcat) {
  for (const Format &f : miniFloats()) {
    SCOPED_TRACE(std::string(elementTypeName(f.type)));
    const int64_t n = 999;
    std::uniform_int_distribution<int> code(0, f.codes() - 1);
    std::vector<uint8_t> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = uint8_t(code(rng));
      y[i] = uint8_t(code(rng));
    }
    GraphBuilder b;
    TensorType type{f.type, {n}};
    TensorId xi = b.input(type, "x"), yi = b.input(type, "y");
    TensorId less = b.compare(ComparePredicate::Lt, xi, yi);
    b.output(less, "lt");
    b.output(b.select(less, xi, yi), "min_by_select");
    b.output(b.concat({xi, yi}, 0), "concat");
    std::vector<uint8_t> lt(n), chosen(n), both;
    for (int64_t i = 0; i < n; ++i) {
      lt[i] = f.decode(x[i]) < f.decode(y[i]);
      chosen[i] = lt[i] ? x[i] : y[i];
    }
    both = x;
    both.insert(both.end(), y.begin(), y.end());
    checkExact(b, {bytesOf(x), bytesOf(y)},
               {{"lt", ElementType::I1, bytesOf(lt)},
                {"min_by_select", f.type, bytesOf(chosen)},
                {"concat", f.type, bytesOf(both)}});
  }
}

//===----------------------------------------------------------------------===//
// f8E8M0FNU
//===----------------------------------------------------------------------===//

TEST_F(HostLowPrecisionCodegen, E8M0RoundsTheExponentAsOnnx) {
  // Every power of two, its neighbours and the midpoints 1.5 * 2^k (the
  // ties of `nearest`), f32 subnormals (2^-127 among them), random floats of
  // either sign, zeros, infinities, NaN.
  std::vector<float> x;
  for (int e = -149; e <= 127; ++e) {
    float p = std::ldexp(1.0f, e);
    for (float v :
         {p, 1.5f * p, std::nextafter(p, 0.0f), std::nextafter(p, 1e38f),
          std::nextafter(1.5f * p, 0.0f), std::nextafter(1.5f * p, 1e38f)})
      if (std::isfinite(v)) {
        x.push_back(v);
        x.push_back(-v);
      }
  }
  std::uniform_int_distribution<uint32_t> anyBits;
  for (int i = 0; i < 3000; ++i) {
    float v = std::bit_cast<float>(anyBits(rng));
    if (v != 0)
      x.push_back(v);
  }
  for (float v : {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::max()})
    x.push_back(v);
  int64_t n = int64_t(x.size());
  GraphBuilder b;
  TensorId xi = b.input({ElementType::F32, {n}}, "x");
  std::vector<Expectation> expected;
  for (std::string mode : {"up", "down", "nearest"})
    for (bool saturate : {false, true}) {
      std::string name = mode + (saturate ? "_saturated" : "");
      // `up` is the default: leave it out once.
      TensorId y = cast(b, xi, ElementType::F8E8M0FNU, n, saturate,
                        mode == "up" && !saturate ? "" : mode);
      b.output(y, name);
      std::vector<uint8_t> want;
      for (float v : x)
        want.push_back(uint8_t(encodeE8M0(v, saturate, mode)));
      expected.push_back({name, ElementType::F8E8M0FNU, bytesOf(want)});
      if (mode == "nearest" && saturate) {
        b.output(cast(b, y, ElementType::F32, n), "decoded");
        std::vector<float> decoded;
        for (uint8_t code : want)
          decoded.push_back(float(decodeE8M0(code)));
        expected.push_back({"decoded", ElementType::F32, bytesOf(decoded)});
      }
    }
  std::vector<double> asDouble(x.begin(), x.end());
  checkExact(b, {bytesOf(x)}, expected, labelsOf(asDouble));
}

// ONNX converts to f32 first (to nearest even), then rounds the exponent:
// from f64, values just above a power of two that f32 rounds onto it stay
// there under `up`; from f16, every value.
TEST_F(HostLowPrecisionCodegen, E8M0FromF64AndF16ThroughF32) {
  std::vector<double> x;
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-140, 130);
  for (int e = -126; e <= 127; e += 3) {
    double p = std::ldexp(1.0, e);
    for (double v : {p, p * (1 + 0x1p-30), p * (1 - 0x1p-30), 1.5 * p,
                     1.5 * p * (1 + 0x1p-30), 1.5 * p * (1 - 0x1p-30)}) {
      x.push_back(v);
      x.push_back(-v);
    }
  }
  for (int i = 0; i < 1000; ++i)
    x.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  x.push_back(std::numeric_limits<double>::quiet_NaN());
  x.push_back(1e300);
  int64_t n = int64_t(x.size());
  const int64_t m = 65536;
  std::vector<uint16_t> h(m);
  for (int64_t i = 0; i < m; ++i)
    h[size_t(i)] = uint16_t(i);
  GraphBuilder b;
  TensorId xi = b.input({ElementType::F64, {n}}, "x");
  TensorId hi = b.input({ElementType::F16, {m}}, "h");
  std::vector<Expectation> expected;
  for (std::string mode : {"up", "down", "nearest"}) {
    b.output(cast(b, xi, ElementType::F8E8M0FNU, n, false, mode),
             "f64_" + mode);
    b.output(cast(b, hi, ElementType::F8E8M0FNU, m, true, mode), "f16_" + mode);
    std::vector<uint8_t> fromF64, fromF16;
    for (double v : x)
      fromF64.push_back(uint8_t(encodeE8M0(float(v), false, mode)));
    for (uint16_t bits : h)
      fromF16.push_back(
          uint8_t(encodeE8M0(float(kF16.decode(bits)), true, mode)));
    expected.push_back(
        {"f64_" + mode, ElementType::F8E8M0FNU, bytesOf(fromF64)});
    expected.push_back(
        {"f16_" + mode, ElementType::F8E8M0FNU, bytesOf(fromF16)});
  }
  checkExact(b, {bytesOf(x), bytesOf(h)}, expected);
}

TEST_F(HostLowPrecisionCodegen, E8M0DecodesEveryCode) {
  std::vector<uint8_t> x;
  for (int round = 0; round < 3; ++round)
    for (int code = 0; code < 256; ++code)
      x.push_back(uint8_t(code));
  std::shuffle(x.begin(), x.end(), rng);
  int64_t n = int64_t(x.size());
  GraphBuilder b;
  TensorId xi = b.input({ElementType::F8E8M0FNU, {n}}, "x");
  b.output(cast(b, xi, ElementType::F32, n), "f32");
  b.output(cast(b, xi, ElementType::F16, n), "f16");
  b.output(b.transpose(b.reshape(xi, {3, n / 3}), {1, 0}), "moved");
  // To itself rounding up: 2^-127, an f32 with a mantissa bit, becomes
  // 2^-126 (not folded away).
  b.output(cast(b, xi, ElementType::F8E8M0FNU, n), "up_again");
  std::vector<float> f32;
  std::vector<uint16_t> f16;
  std::vector<uint8_t> moved(x.size()), upAgain;
  for (uint8_t code : x) {
    f32.push_back(float(decodeE8M0(code)));
    f16.push_back(uint16_t(kF16.encode(decodeE8M0(code), false)));
    upAgain.push_back(
        uint8_t(encodeE8M0(float(decodeE8M0(code)), false, "up")));
  }
  for (int64_t i = 0; i < n / 3; ++i)
    for (int64_t j = 0; j < 3; ++j)
      moved[i * 3 + j] = x[j * (n / 3) + i];
  checkExact(b, {bytesOf(x)},
             {{"f32", ElementType::F32, bytesOf(f32)},
              {"f16", ElementType::F16, bytesOf(f16)},
              {"moved", ElementType::F8E8M0FNU, bytesOf(moved)},
              {"up_again", ElementType::F8E8M0FNU, bytesOf(upAgain)}});
}

//===----------------------------------------------------------------------===//
// i4, ui4, i2, ui2
//===----------------------------------------------------------------------===//

struct Narrow {
  ElementType type;
  int bits;
  bool isUnsigned;

  /// The value of the low `bits` bits of v, sign- or zero-extended.
  int8_t wrap(int64_t v) const {
    uint64_t low = uint64_t(v) & ((1u << bits) - 1);
    if (!isUnsigned && (low >> (bits - 1)))
      return int8_t(int64_t(low) - (int64_t(1) << bits));
    return int8_t(low);
  }
  /// As ml_dtypes (ONNX's reference): the integer part through int32; NaN,
  /// infinities and magnitudes from 2^31 give 0.
  int8_t fromFloat(double v) const {
    if (!(std::fabs(v) < 2147483648.0))
      return 0;
    return wrap(int64_t(std::trunc(v)));
  }
};

const std::vector<Narrow> &narrowTypes() {
  static const std::vector<Narrow> types = {{ElementType::I4, 4, false},
                                            {ElementType::UI4, 4, true},
                                            {ElementType::I2, 2, false},
                                            {ElementType::UI2, 2, true}};
  return types;
}

TEST_F(HostLowPrecisionCodegen, NarrowIntegersFromFloatsWrap) {
  for (const Narrow &t : narrowTypes()) {
    SCOPED_TRACE(std::string(elementTypeName(t.type)));
    // Fractions of either sign across a few periods, large values, ONNX's
    // test range (-9 .. 15), infinities and NaN.
    std::uniform_real_distribution<double> near(-5.0 * (1 << t.bits),
                                                5.0 * (1 << t.bits));
    std::uniform_real_distribution<double> far(-3e9, 3e9);
    std::vector<double> values;
    for (int i = 0; i < 1500; ++i)
      values.push_back(near(rng));
    for (int i = 0; i < 300; ++i)
      values.push_back(far(rng));
    for (int v = -9; v <= 15; ++v)
      values.push_back(v);
    double inf = std::numeric_limits<double>::infinity();
    for (double v : {inf, -inf, std::numeric_limits<double>::quiet_NaN(),
                     2147483648.0, -2147483648.0, 2147483520.0, -0.75, 1e30})
      values.push_back(v);
    std::vector<float> f32(values.begin(), values.end());
    std::vector<double> f64(f32.begin(), f32.end());
    std::vector<uint16_t> f16;
    for (double v : values)
      f16.push_back(uint16_t(kF16.encode(v, false)));
    int64_t n = int64_t(values.size());
    GraphBuilder b;
    TensorId fi = b.input({ElementType::F32, {n}}, "f");
    TensorId di = b.input({ElementType::F64, {n}}, "d");
    TensorId hi = b.input({ElementType::F16, {n}}, "h");
    b.output(cast(b, fi, t.type, n), "from_f32");
    b.output(cast(b, di, t.type, n), "from_f64");
    b.output(cast(b, hi, t.type, n), "from_f16");
    std::vector<int8_t> fromF32, fromF64, fromF16;
    for (int64_t i = 0; i < n; ++i) {
      fromF32.push_back(t.fromFloat(f32[i]));
      fromF64.push_back(t.fromFloat(f64[i]));
      fromF16.push_back(t.fromFloat(kF16.decode(f16[i])));
    }
    checkExact(b, {bytesOf(f32), bytesOf(f64), bytesOf(f16)},
               {{"from_f32", t.type, bytesOf(fromF32)},
                {"from_f64", t.type, bytesOf(fromF64)},
                {"from_f16", t.type, bytesOf(fromF16)}},
               labelsOf(f64));
  }
}

TEST_F(HostLowPrecisionCodegen, NarrowIntegerCastsAndArithmeticWrap) {
  for (const Narrow &t : narrowTypes()) {
    SCOPED_TRACE(std::string(elementTypeName(t.type)));
    const int64_t n = 1001;
    int lo = t.isUnsigned ? 0 : -(1 << (t.bits - 1));
    int hi = lo + (1 << t.bits) - 1;
    std::uniform_int_distribution<int> value(lo, hi);
    std::uniform_int_distribution<int32_t> any32(
        std::numeric_limits<int32_t>::min(),
        std::numeric_limits<int32_t>::max());
    std::vector<int8_t> x(n), y(n), bytes(n);
    std::vector<int32_t> w(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = int8_t(value(rng));
      do
        y[i] = int8_t(value(rng));
      while (y[i] == 0);
      bytes[i] = int8_t(any32(rng));
      w[i] = any32(rng);
    }
    GraphBuilder b;
    TensorType type{t.type, {n}};
    TensorId xi = b.input(type, "x"), yi = b.input(type, "y");
    TensorId bi = b.input({ElementType::I8, {n}}, "bytes");
    TensorId wi = b.input({ElementType::I32, {n}}, "w");
    std::vector<Expectation> expected;
    auto out = [&](TensorId id, std::string name, ElementType resultType,
                   auto fn) {
      b.output(id, name);
      using R = decltype(fn(size_t(0)));
      std::vector<R> want(n);
      for (size_t i = 0; i < size_t(n); ++i)
        want[i] = fn(i);
      expected.push_back({name, resultType, bytesOf(want)});
    };
    out(b.add(xi, yi), "add", t.type,
        [&](size_t i) { return t.wrap(x[i] + y[i]); });
    out(b.sub(xi, yi), "sub", t.type,
        [&](size_t i) { return t.wrap(x[i] - y[i]); });
    out(b.mul(xi, yi), "mul", t.type,
        [&](size_t i) { return t.wrap(x[i] * y[i]); });
    // Chained in one kernel: the sum wraps before the product and the
    // comparison see it.
    TensorId sum = b.add(xi, yi);
    out(b.mul(sum, sum), "square_of_sum", t.type, [&](size_t i) {
      return t.wrap(t.wrap(x[i] + y[i]) * t.wrap(x[i] + y[i]));
    });
    out(b.compare(ComparePredicate::Lt, sum, xi), "sum_lt_x", ElementType::I1,
        [&](size_t i) { return uint8_t(t.wrap(x[i] + y[i]) < x[i]); });
    out(b.max(xi, yi), "max", t.type,
        [&](size_t i) { return std::max(x[i], y[i]); });
    out(b.neg(xi), "neg", t.type, [&](size_t i) { return t.wrap(-x[i]); });
    out(b.min(xi, yi), "min", t.type,
        [&](size_t i) { return std::min(x[i], y[i]); });
    out(b.unary(OpKind::Abs, xi), "abs", t.type,
        [&](size_t i) { return t.wrap(std::abs(int(x[i]))); });
    // Truncating division (the minimum by -1 wraps), the remainder with the
    // divisor's sign, and both reading the low bits unsigned.
    out(b.div(xi, yi), "div", t.type,
        [&](size_t i) { return t.wrap(x[i] / y[i]); });
    out(b.rem(xi, yi), "rem", t.type, [&](size_t i) {
      int r = x[i] % y[i];
      if (r != 0 && ((r < 0) != (y[i] < 0)))
        r += y[i];
      return t.wrap(r);
    });
    auto low = [&](int8_t v) { return int(uint8_t(v) & ((1u << t.bits) - 1)); };
    out(b.div(xi, yi, /*isUnsigned=*/true), "div_unsigned", t.type,
        [&](size_t i) { return t.wrap(low(x[i]) / low(y[i])); });
    out(b.rem(xi, yi, /*fmod=*/false, /*isUnsigned=*/true), "rem_unsigned",
        t.type, [&](size_t i) { return t.wrap(low(x[i]) % low(y[i])); });
    out(b.compare(ComparePredicate::Ult, xi, yi), "ult", ElementType::I1,
        [&](size_t i) { return uint8_t(low(x[i]) < low(y[i])); });
    out(b.select(b.compare(ComparePredicate::Gt, xi, yi), sum, xi), "select",
        t.type,
        [&](size_t i) { return x[i] > y[i] ? t.wrap(x[i] + y[i]) : x[i]; });
    out(cast(b, bi, t.type, n), "from_i8", t.type,
        [&](size_t i) { return t.wrap(bytes[i]); });
    out(cast(b, wi, t.type, n), "from_i32", t.type,
        [&](size_t i) { return t.wrap(w[i]); });
    out(cast(b, xi, ElementType::I8, n), "to_i8", ElementType::I8,
        [&](size_t i) { return x[i]; });
    out(cast(b, xi, ElementType::I32, n), "to_i32", ElementType::I32,
        [&](size_t i) { return int32_t(x[i]); });
    out(cast(b, xi, ElementType::F32, n), "to_f32", ElementType::F32,
        [&](size_t i) { return float(x[i]); });
    out(cast(b, xi, ElementType::F16, n), "to_f16", ElementType::F16,
        [&](size_t i) { return uint16_t(kF16.encode(x[i], false)); });
    out(b.cast(xi, ElementType::F32, /*isUnsigned=*/true), "unsigned_to_f32",
        ElementType::F32,
        [&](size_t i) { return float(uint32_t(x[i]) & ((1u << t.bits) - 1)); });
    for (const Narrow &u : narrowTypes())
      if (u.type != t.type)
        out(cast(b, xi, u.type, n),
            "to_" + std::string(elementTypeName(u.type)), u.type,
            [&](size_t i) { return u.wrap(x[i]); });
    checkExact(b, {bytesOf(x), bytesOf(y), bytesOf(bytes), bytesOf(w)},
               expected);
  }
}

// The other schedules load and store the new types through the same
// emitter: reductions and a matmul over decoded f8 values, exact max
// reductions encoded back; argmax, argmin and every reduction of the narrow
// integers; checked against the reference interpreter.
TEST_F(HostLowPrecisionCodegen, OtherSchedulesLoadAndStoreThem) {
  const int64_t rows = 7, cols = 33;
  for (const Format &f : miniFloats()) {
    SCOPED_TRACE(std::string(elementTypeName(f.type)));
    GraphBuilder b;
    TensorId x = b.input({f.type, {rows, cols}}, "x");
    TensorId w = b.input({ElementType::F32, {cols, 5}}, "w");
    TensorId wide = b.cast(x, ElementType::F32);
    TensorId rowMax = b.reduce(ReduceKind::Max, wide, {1});
    b.output(b.cast(rowMax, f.type), "row_max");
    TensorId columnMin = b.reduce(ReduceKind::Min, wide, {0});
    b.output(b.cast(columnMin, f.type), "column_min");
    b.output(b.reduce(ReduceKind::Sum, wide, {0, 1}), "sum");
    b.output(b.cast(b.matmul(wide, w), ElementType::F16), "matmul");
    Expected<Graph> graph = b.finish();
    ASSERT_TRUE(graph.ok()) << graph.message();
    check(*graph, {{-3, 3}, {-1, 1}});
  }
  for (const Narrow &t : narrowTypes()) {
    SCOPED_TRACE(std::string(elementTypeName(t.type)));
    GraphBuilder b;
    TensorId x = b.input({t.type, {rows, cols}}, "x");
    b.output(b.argmax(x, 1), "argmax");
    b.output(b.argmin(x, 0), "argmin");
    b.output(b.reduce(ReduceKind::Sum, b.cast(x, ElementType::I32), {1}),
             "sum_i32");
    // In the type itself: sums and products wrap to the width (a mean
    // divides the wrapped sum), along rows, columns and everything.
    for (std::vector<int64_t> dims :
         {std::vector<int64_t>{1}, std::vector<int64_t>{0},
          std::vector<int64_t>{0, 1}})
      for (ReduceKind kind :
           {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max, ReduceKind::Min,
            ReduceKind::Mean})
        b.output(b.reduce(kind, x, dims));
    Expected<Graph> graph = b.finish();
    ASSERT_TRUE(graph.ok()) << graph.message();
    check(*graph, {{-9, 9}});
  }
}

} // namespace
} // namespace fuse
