//===- ElementTypeTest.cpp - Element types and float conversions ----------===//
//
// Expected bit patterns are worked out by hand from the IEEE formats:
// f16 = 1 sign, 5 exponent (bias 15), 10 fraction bits; bf16 = 1, 8 (bias
// 127), 7. The f8/f4 formats (LowPrecisionFloat.h's table): their constants
// are worked out by hand from onnx.proto's definitions, and the special
// cases are those of ml_dtypes, which ONNX's reference uses (checked against
// it once: 464 -> 448 in f8E4M3FN, 248 -> NaN in f8E4M3FNUZ, NaN -> -0 in
// f4E2M1FN, -9 -> 7 in i4). The exhaustive tests compare the encoder with a
// brute-force search for the nearest value over the decoded table.
//
//===----------------------------------------------------------------------===//

#include "runtime/ir/ElementType.h"
#include "runtime/ir/LowPrecisionFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace fuse;

namespace {

TEST(ElementTypeTest, NamesAndSizes) {
  EXPECT_EQ(allElementTypes().size(), 23u);
  EXPECT_TRUE(isLowPrecisionFloat(ElementType::F8E5M2));
  EXPECT_TRUE(isLowPrecisionFloat(ElementType::F4E2M1FN));
  EXPECT_FALSE(isLowPrecisionFloat(ElementType::BF16));
  EXPECT_FALSE(isLowPrecisionFloat(ElementType::I4));
  for (ElementType type : allElementTypes())
    EXPECT_EQ(parseElementType(elementTypeName(type)), type);
  EXPECT_EQ(elementTypeName(ElementType::BF16), "bf16");
  EXPECT_EQ(parseElementType("f32"), ElementType::F32);
  EXPECT_FALSE(parseElementType("f8").has_value());
  EXPECT_EQ(byteSize(ElementType::I1), 1);
  EXPECT_EQ(byteSize(ElementType::F16), 2);
  EXPECT_EQ(byteSize(ElementType::I32), 4);
  EXPECT_EQ(byteSize(ElementType::F64), 8);
  EXPECT_TRUE(isFloat(ElementType::BF16));
  EXPECT_FALSE(isFloat(ElementType::I1));
  EXPECT_TRUE(isInteger(ElementType::I1));
  EXPECT_FALSE(isInteger(ElementType::F16));
  EXPECT_EQ(integerBitWidth(ElementType::I8), 8u);
  EXPECT_EQ(integerBitWidth(ElementType::F32), 0u);
  EXPECT_EQ(integerBitWidth(ElementType::UI16), 16u);
  EXPECT_EQ(byteSize(ElementType::I16), 2);
  EXPECT_EQ(byteSize(ElementType::UI64), 8);
  EXPECT_EQ(parseElementType("ui8"), ElementType::UI8);
  EXPECT_TRUE(isUnsignedInteger(ElementType::UI32));
  EXPECT_FALSE(isUnsignedInteger(ElementType::I32));
  EXPECT_FALSE(isUnsignedInteger(ElementType::I1));
}

// The ui types read their bits unsigned everywhere; stores saturate (from
// doubles) or wrap (from integers) to the type's width.
TEST(ElementTypeTest, UnsignedAndInt16LoadsAndStores) {
  const std::uint8_t u8[] = {0xFF, 0x80};
  EXPECT_EQ(loadInt(ElementType::UI8, u8, 0), 255);
  EXPECT_EQ(loadDouble(ElementType::UI8, u8, 1), 128.0);
  EXPECT_EQ(loadInt(ElementType::I8, u8, 0), -1);
  const std::uint64_t big[] = {0xFFFFFFFFFFFFFFFFull};
  EXPECT_EQ(loadUnsigned(ElementType::UI64, big, 0), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(loadDouble(ElementType::UI64, big, 0), 18446744073709551616.0);
  const std::int16_t i16[] = {-300};
  EXPECT_EQ(loadInt(ElementType::I16, i16, 0), -300);
  EXPECT_EQ(loadUnsigned(ElementType::I16, i16, 0), 65236u);

  std::uint16_t out[1] = {};
  storeDouble(ElementType::UI16, out, 0, 70000.0);
  EXPECT_EQ(out[0], 65535);
  storeDouble(ElementType::UI16, out, 0, -3.5);
  EXPECT_EQ(out[0], 0);
  storeDouble(ElementType::UI16, out, 0, 1234.9);
  EXPECT_EQ(out[0], 1234);
  storeInt(ElementType::UI16, out, 0, 65537);
  EXPECT_EQ(out[0], 1);
  std::int16_t s16[1] = {};
  storeDouble(ElementType::I16, s16, 0, -40000.0);
  EXPECT_EQ(s16[0], -32768);
  storeInt(ElementType::I16, s16, 0, 32768);
  EXPECT_EQ(s16[0], -32768);
  std::uint64_t u64[1] = {};
  storeDouble(ElementType::UI64, u64, 0, 1e30);
  EXPECT_EQ(u64[0], 0xFFFFFFFFFFFFFFFFull);
  storeDouble(ElementType::UI64, u64, 0, 9223372036854775808.0);
  EXPECT_EQ(u64[0], 0x8000000000000000ull);
}

TEST(ElementTypeTest, F16Decode) {
  EXPECT_EQ(f16ToDouble(0x3C00), 1.0);
  EXPECT_EQ(f16ToDouble(0xC000), -2.0);
  EXPECT_EQ(f16ToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(f16ToDouble(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(f16ToDouble(0x3555), 0.333251953125);
  EXPECT_TRUE(std::isinf(f16ToDouble(0xFC00)));
  EXPECT_LT(f16ToDouble(0xFC00), 0);
  EXPECT_TRUE(std::isnan(f16ToDouble(0x7E00)));
}

TEST(ElementTypeTest, F16RoundsToNearestEven) {
  EXPECT_EQ(doubleToF16(1.0), 0x3C00);
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: the even one is 1.
  EXPECT_EQ(doubleToF16(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 0x3C01 and 0x3C02: even is 0x3C02.
  EXPECT_EQ(doubleToF16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  // Just above the first tie rounds up.
  EXPECT_EQ(doubleToF16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)),
            0x3C01);
  EXPECT_EQ(doubleToF16(65504.0), 0x7BFF);
  EXPECT_EQ(doubleToF16(65519.0), 0x7BFF);
  // 65520 is the tie between 65504 and 65536 (= infinity): even wins.
  EXPECT_EQ(doubleToF16(65520.0), 0x7C00);
  EXPECT_EQ(doubleToF16(-1e10), 0xFC00);
  EXPECT_EQ(doubleToF16(std::ldexp(1.0, -24)), 0x0001);
  // Half the smallest subnormal ties to zero; a bit more rounds up.
  EXPECT_EQ(doubleToF16(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(doubleToF16(3 * std::ldexp(1.0, -26)), 0x0001);
  // The largest subnormal plus a half step carries into the smallest normal.
  EXPECT_EQ(doubleToF16(std::ldexp(1023.5, -24)), 0x0400);
  EXPECT_EQ(doubleToF16(-0.0), 0x8000);
  EXPECT_EQ(doubleToF16(std::numeric_limits<double>::denorm_min()), 0x0000);
  EXPECT_EQ(doubleToF16(std::numeric_limits<double>::quiet_NaN()), 0x7E00);
  EXPECT_EQ(doubleToF16(std::numeric_limits<double>::infinity()), 0x7C00);
}

TEST(ElementTypeTest, BF16RoundsOnceFromDouble) {
  EXPECT_EQ(doubleToBF16(1.0), 0x3F80);
  EXPECT_EQ(bf16ToDouble(0x3F81), 1.0 + std::ldexp(1.0, -7));
  EXPECT_EQ(doubleToBF16(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  EXPECT_EQ(doubleToBF16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  // Through float, 2^-30 would be lost and the tie would round down to
  // 0x3F80; rounding once from the exact value rounds up.
  EXPECT_EQ(doubleToBF16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)),
            0x3F81);
  EXPECT_EQ(doubleToBF16(-2.0), 0xC000);
  EXPECT_EQ(doubleToBF16(1e39), 0x7F80);
  EXPECT_EQ(doubleToBF16(std::numeric_limits<double>::quiet_NaN()), 0x7FC0);
  EXPECT_EQ(bf16ToDouble(0x0001), std::ldexp(1.0, -133));
}

TEST(ElementTypeTest, IntegerToFloatRoundsOnce) {
  // 2^24 + 1 ties between 2^24 and 2^24 + 2: even is 2^24 (0x4B800000).
  EXPECT_EQ(int64ToFloatBits(16777217, ElementType::F32), 0x4B800000u);
  EXPECT_EQ(int64ToFloatBits(16777219, ElementType::F32), 0x4B800002u);
  EXPECT_EQ(int64ToFloatBits(-1, ElementType::F32), 0xBF800000u);
  // INT64_MAX rounds up to 2^63 (0x5F000000); INT64_MIN is -2^63 exactly.
  EXPECT_EQ(int64ToFloatBits(std::numeric_limits<std::int64_t>::max(),
                             ElementType::F32),
            0x5F000000u);
  EXPECT_EQ(int64ToFloatBits(std::numeric_limits<std::int64_t>::min(),
                             ElementType::F32),
            0xDF000000u);
  EXPECT_EQ(uint64ToFloatBits(~std::uint64_t(0), ElementType::F32),
            0x5F800000u);
  // 2^53 + 1 ties to 2^53 in f64 (0x4340000000000000).
  EXPECT_EQ(int64ToFloatBits((std::int64_t(1) << 53) + 1, ElementType::F64),
            0x4340000000000000u);
  EXPECT_EQ(int64ToFloatBits(65505, ElementType::F16), 0x7BFFu);
  EXPECT_EQ(int64ToFloatBits(70000, ElementType::F16), 0x7C00u);
  // 2^56 + 2^48 + 1 is above the bf16 tie 2^56 (1 + 2^-8), and a double
  // (53 bits) would drop the +1 and round the tie down: once is up.
  EXPECT_EQ(
      int64ToFloatBits((std::int64_t(1) << 56) + (std::int64_t(1) << 48) + 1,
                       ElementType::BF16),
      0x5B81u);
  EXPECT_EQ(int64ToFloatBits(0, ElementType::BF16), 0x0000u);
}

TEST(ElementTypeTest, LoadAndStoreFollowCastRules) {
  std::uint8_t buffer[8] = {};
  storeDouble(ElementType::I8, buffer, 0, 300.7);
  EXPECT_EQ(loadInt(ElementType::I8, buffer, 0), 127);
  storeDouble(ElementType::I8, buffer, 0, -2.9);
  EXPECT_EQ(loadInt(ElementType::I8, buffer, 0), -2);
  storeDouble(ElementType::I32, buffer, 0,
              std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(loadInt(ElementType::I32, buffer, 0), 0);
  storeDouble(ElementType::I64, buffer, 0, 1e300);
  EXPECT_EQ(loadInt(ElementType::I64, buffer, 0),
            std::numeric_limits<std::int64_t>::max());
  storeInt(ElementType::I8, buffer, 0, 200);
  EXPECT_EQ(loadInt(ElementType::I8, buffer, 0), -56);
  EXPECT_EQ(loadUnsigned(ElementType::I8, buffer, 0), 200u);
  storeInt(ElementType::I1, buffer, 0, 6);
  EXPECT_EQ(buffer[0], 1);
  storeDouble(ElementType::I1, buffer, 0,
              std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(loadInt(ElementType::I1, buffer, 0), 1);
  storeDouble(ElementType::F16, buffer, 1, 0.5);
  EXPECT_EQ(buffer[2], 0x00);
  EXPECT_EQ(buffer[3], 0x38);
  EXPECT_EQ(loadDouble(ElementType::F16, buffer, 1), 0.5);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint8_t encode(ElementType type, double value, bool saturate = false) {
  return doubleToLowPrecision(type, value, CastOptions{saturate});
}

double decode(ElementType type, std::uint8_t bits) {
  return lowPrecisionToDouble(type, bits);
}

TEST(LowPrecisionFloatTest, DecodesHandCheckedPatterns) {
  // f8E4M3FN: S.EEEE.MMM, bias 7.
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0x38), 1.0);
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0xB8), -1.0);
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0x7E), 448.0);
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0x07), 7 * std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E4M3FN, 0xFF)));
  EXPECT_TRUE(std::signbit(decode(ElementType::F8E4M3FN, 0x80)));
  EXPECT_EQ(decode(ElementType::F8E4M3FN, 0x80), 0.0);
  // f8E4M3FNUZ: bias 8; 0x80 is NaN; 0x7F is finite.
  EXPECT_EQ(decode(ElementType::F8E4M3FNUZ, 0x40), 1.0);
  EXPECT_EQ(decode(ElementType::F8E4M3FNUZ, 0xC0), -1.0);
  EXPECT_EQ(decode(ElementType::F8E4M3FNUZ, 0x7F), 240.0);
  EXPECT_EQ(decode(ElementType::F8E4M3FNUZ, 0x01), std::ldexp(1.0, -10));
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E4M3FNUZ, 0x80)));
  // ml_dtypes reads the FNUZ NaN as negative (its pattern is -0's), and a
  // cast on to f4E2M1FN gives +0 from it.
  EXPECT_TRUE(std::signbit(decode(ElementType::F8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::signbit(decode(ElementType::F8E5M2FNUZ, 0x80)));
  EXPECT_EQ(
      encode(ElementType::F4E2M1FN, decode(ElementType::F8E5M2FNUZ, 0x80)),
      0x0);
  EXPECT_FALSE(std::signbit(decode(ElementType::F8E8M0FNU, 0xFF)));
  EXPECT_EQ(decode(ElementType::F8E4M3FNUZ, 0xFF), -240.0);
  // f8E5M2: IEEE-like, bias 15.
  EXPECT_EQ(decode(ElementType::F8E5M2, 0x3C), 1.0);
  EXPECT_EQ(decode(ElementType::F8E5M2, 0x7B), 57344.0);
  EXPECT_EQ(decode(ElementType::F8E5M2, 0x7C), kInf);
  EXPECT_EQ(decode(ElementType::F8E5M2, 0xFC), -kInf);
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E5M2, 0x7D)));
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E5M2, 0xFE)));
  EXPECT_EQ(decode(ElementType::F8E5M2, 0x01), std::ldexp(1.0, -16));
  EXPECT_EQ(decode(ElementType::F8E5M2, 0x04), std::ldexp(1.0, -14));
  // f8E5M2FNUZ: bias 16.
  EXPECT_EQ(decode(ElementType::F8E5M2FNUZ, 0x40), 1.0);
  EXPECT_EQ(decode(ElementType::F8E5M2FNUZ, 0x7F), 57344.0);
  EXPECT_EQ(decode(ElementType::F8E5M2FNUZ, 0x01), std::ldexp(1.0, -17));
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E5M2FNUZ, 0x80)));
  // f8E8M0FNU: 2^(e - 127), 0xFF NaN.
  EXPECT_EQ(decode(ElementType::F8E8M0FNU, 0x7F), 1.0);
  EXPECT_EQ(decode(ElementType::F8E8M0FNU, 0x80), 2.0);
  EXPECT_EQ(decode(ElementType::F8E8M0FNU, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(decode(ElementType::F8E8M0FNU, 0xFE), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E8M0FNU, 0xFF)));
  // f4E2M1FN: S.EE.M, bias 1, in the low four bits.
  const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int bits = 0; bits < 8; ++bits) {
    EXPECT_EQ(decode(ElementType::F4E2M1FN, std::uint8_t(bits)), e2m1[bits]);
    EXPECT_EQ(decode(ElementType::F4E2M1FN, std::uint8_t(bits | 8)),
              -e2m1[bits]);
  }
  EXPECT_EQ(decode(ElementType::F4E2M1FN, 0xF2), 1.0);
  EXPECT_EQ(lowPrecisionMax(ElementType::F8E4M3FN), 448.0);
  EXPECT_EQ(lowPrecisionMax(ElementType::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(lowPrecisionMax(ElementType::F8E5M2FNUZ), 57344.0);
  EXPECT_EQ(lowPrecisionMax(ElementType::F4E2M1FN), 6.0);
}

struct FormatFacts {
  ElementType type;
  /// Patterns of the format (256, or 16 for f4).
  int patterns;
  /// Finite non-negative values (including zero).
  int finitePositive;
  /// What a value past the largest finite one gives without saturation.
  double overflow;
};

const FormatFacts kFormats[] = {
    {ElementType::F8E4M3FN, 256, 127, kNaN},
    {ElementType::F8E4M3FNUZ, 256, 128, kNaN},
    {ElementType::F8E5M2, 256, 124, kInf},
    {ElementType::F8E5M2FNUZ, 256, 128, kNaN},
    {ElementType::F4E2M1FN, 16, 8, 6.0},
};

bool sameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

// Every pattern decodes to a value that encodes back to it (NaN to a NaN);
// the finite values are as many as the format says and strictly increase
// with the magnitude bits.
TEST(LowPrecisionFloatTest, EveryPatternRoundTrips) {
  for (const FormatFacts &format : kFormats) {
    SCOPED_TRACE(std::string(elementTypeName(format.type)));
    const int half = format.patterns / 2;
    int finite = 0;
    double previous = -1;
    for (int bits = 0; bits < format.patterns; ++bits) {
      const double value = decode(format.type, std::uint8_t(bits));
      if (std::isnan(value)) {
        EXPECT_TRUE(std::isnan(decode(format.type, encode(format.type, value))))
            << bits;
        continue;
      }
      EXPECT_EQ(encode(format.type, value), bits) << bits << " = " << value;
      if (bits < half && std::isfinite(value)) {
        ++finite;
        EXPECT_GT(value, previous) << bits;
        previous = value;
      }
      if (bits >= half && bits != half) {
        const double positive = decode(format.type, std::uint8_t(bits - half));
        if (!std::isnan(positive))
          EXPECT_TRUE(sameValue(value, -positive)) << bits;
      }
    }
    EXPECT_EQ(finite, format.finitePositive);
  }
}

/// The encoding of `value` found by brute force: the nearest finite value
/// of the decoded table, the even pattern on a tie; past the largest finite
/// value by half a step of the top binade (ties to even), the format's
/// overflow.
double nearestByBruteForce(const FormatFacts &format, double value,
                           bool saturate) {
  std::vector<std::pair<double, int>> table;
  for (int bits = 0; bits < format.patterns / 2; ++bits) {
    const double v = decode(format.type, std::uint8_t(bits));
    if (std::isfinite(v))
      table.push_back({v, bits});
  }
  const double magnitude = std::fabs(value);
  const auto [largest, largestBits] = table.back();
  const double step = largest - table[table.size() - 2].first;
  const double overflowAt = largest + step / 2;
  double result;
  if (magnitude > overflowAt || (magnitude == overflowAt && largestBits % 2))
    result = saturate ? largest : format.overflow;
  else {
    std::pair<double, int> best = table[0];
    for (const auto &entry : table) {
      const double d = std::fabs(entry.first - magnitude),
                   bestD = std::fabs(best.first - magnitude);
      if (d < bestD || (d == bestD && entry.second % 2 == 0))
        best = entry;
    }
    result = best.first;
  }
  const bool hasNegativeZero = format.type == ElementType::F8E4M3FN ||
                               format.type == ElementType::F8E5M2 ||
                               format.type == ElementType::F4E2M1FN;
  if (result == 0 && !hasNegativeZero)
    return 0.0;
  return std::signbit(value) ? -result : result;
}

// Every midpoint between neighbours (a tie), just above and below it, every
// value itself and random values across and beyond the range encode as the
// brute-force search says.
TEST(LowPrecisionFloatTest, EncodeMatchesBruteForceNearest) {
  std::mt19937_64 random(20261130);
  for (const FormatFacts &format : kFormats) {
    SCOPED_TRACE(std::string(elementTypeName(format.type)));
    std::vector<double> values;
    std::vector<double> table;
    for (int bits = 0; bits < format.patterns / 2; ++bits)
      if (double v = decode(format.type, std::uint8_t(bits)); std::isfinite(v))
        table.push_back(v);
    table.push_back(2 * table.back() - table[table.size() - 2]);
    for (std::size_t i = 0; i + 1 < table.size(); ++i) {
      const double mid = (table[i] + table[i + 1]) / 2;
      for (double v : {table[i], mid, std::nextafter(mid, 0.0),
                       std::nextafter(mid, kInf), table[i + 1] * 1.0000001})
        values.insert(values.end(), {v, -v});
    }
    std::uniform_real_distribution<double> exponent(-25, 20);
    for (int i = 0; i < 20000; ++i) {
      const double v = std::exp2(exponent(random));
      values.insert(values.end(), {v, -v});
    }
    for (double v : values)
      for (bool saturate : {false, true}) {
        const double expected = nearestByBruteForce(format, v, saturate);
        const double got =
            decode(format.type, encode(format.type, v, saturate));
        EXPECT_TRUE(sameValue(got, expected))
            << v << (saturate ? " (saturate)" : "") << ": expected " << expected
            << ", got " << got;
      }
  }
}

TEST(LowPrecisionFloatTest, TiesSubnormalsAndSingleRounding) {
  // 1 + 2^-4 is the tie between 1 (0x38) and 1.125 (0x39): even is 0x38;
  // 1 + 3 * 2^-4 between 0x39 and 0x3A: even is 0x3A.
  EXPECT_EQ(encode(ElementType::F8E4M3FN, 1.0625), 0x38);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, 1.1875), 0x3A);
  // Half the smallest subnormal (2^-10) ties to zero; 3 * 2^-10 ties
  // between 2^-9 (0x01) and 2^-8 (0x02): 0x02.
  EXPECT_EQ(encode(ElementType::F8E4M3FN, std::ldexp(1.0, -10)), 0x00);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, -std::ldexp(1.0, -10)), 0x80);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, 3 * std::ldexp(1.0, -10)), 0x02);
  // Rounded once from the double: through f32 the 2^-40 would be lost and
  // the tie would go to zero (ml_dtypes rounds an f64 so).
  EXPECT_EQ(encode(ElementType::F8E4M3FN,
                   std::ldexp(1.0, -10) + std::ldexp(1.0, -40)),
            0x01);
  // The largest subnormal plus half a step carries into the smallest
  // normal: 7.5 * 2^-9 -> 2^-6 (0x08).
  EXPECT_EQ(encode(ElementType::F8E4M3FN, 7.5 * std::ldexp(1.0, -9)), 0x08);
  // f8E5M2: 1.125 ties between 1 (0x3C) and 1.25 (0x3D): 0x3C.
  EXPECT_EQ(encode(ElementType::F8E5M2, 1.125), 0x3C);
  EXPECT_EQ(encode(ElementType::F8E5M2, 1.375), 0x3E);
  // f4E2M1FN: 0.25 ties to 0, 0.75 to 1, 2.5 to 2, 5 to 4, 5.0001 -> 6.
  EXPECT_EQ(encode(ElementType::F4E2M1FN, 0.25), 0x0);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, 0.75), 0x2);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, 2.5), 0x4);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, 5.0), 0x6);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, 5.0001), 0x7);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, -3.5), 0xE);
}

TEST(LowPrecisionFloatTest, OverflowInfinityAndNaN) {
  // f8E4M3FN: 464 is the tie between 448 (0x7E, even) and 480 (which would
  // be the NaN pattern): 448. Above it, NaN; with saturate, 448.
  EXPECT_EQ(encode(ElementType::F8E4M3FN, 464.0), 0x7E);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, 465.0), 0x7F);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, -1e6), 0xFF);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, -1e6, true), 0xFE);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, kInf), 0x7F);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, kInf, true), 0x7E);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, -kInf, true), 0xFE);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, kNaN, true), 0x7F);
  EXPECT_EQ(encode(ElementType::F8E4M3FN, -kNaN), 0xFF);
  // f8E4M3FNUZ: 248 ties between 240 (0x7F, odd) and 256: overflow, NaN.
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, 247.9), 0x7F);
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, 248.0), 0x80);
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, 248.0, true), 0x7F);
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, -kInf), 0x80);
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, -kInf, true), 0xFF);
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, -kNaN), 0x80);
  // No negative zero in the FNUZ types.
  EXPECT_EQ(encode(ElementType::F8E4M3FNUZ, -0.0), 0x00);
  EXPECT_EQ(encode(ElementType::F8E5M2FNUZ, -1e-30), 0x00);
  // f8E5M2: 61440 ties between 57344 (0x7B, odd) and 65536: infinity.
  EXPECT_EQ(encode(ElementType::F8E5M2, 61439.0), 0x7B);
  EXPECT_EQ(encode(ElementType::F8E5M2, 61440.0), 0x7C);
  EXPECT_EQ(encode(ElementType::F8E5M2, -kInf), 0xFC);
  EXPECT_EQ(encode(ElementType::F8E5M2, -kInf, true), 0xFB);
  EXPECT_EQ(encode(ElementType::F8E5M2, kNaN), 0x7E);
  EXPECT_EQ(encode(ElementType::F8E5M2FNUZ, 1e6), 0x80);
  EXPECT_EQ(encode(ElementType::F8E5M2FNUZ, 1e6, true), 0x7F);
  // f4E2M1FN saturates always; NaN gives the zero of the other sign.
  EXPECT_EQ(encode(ElementType::F4E2M1FN, 1e6), 0x7);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, -kInf), 0xF);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, kNaN), 0x8);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, -kNaN), 0x0);
  EXPECT_EQ(encode(ElementType::F4E2M1FN, -0.0), 0x8);
}

std::uint8_t e8m0(double value, E8M0RoundMode mode, bool saturate = false) {
  return doubleToLowPrecision(ElementType::F8E8M0FNU, value,
                              CastOptions{saturate, mode});
}

// ONNX Cast-24's rounding of f8E8M0FNU (onnx.numpy_helper.to_float8e8m0).
TEST(LowPrecisionFloatTest, E8M0RoundModes) {
  using enum E8M0RoundMode;
  // The ONNX test's input and its `up` output: 0 -> 2^-127, 0.124 -> 2^-3,
  // 1.1 -> 2.
  const double in[] = {0, 0.124, 0.25, 0.5, 1.1, 2, 4, 8};
  const std::uint8_t up[] = {0x00, 0x7C, 0x7D, 0x7E, 0x80, 0x80, 0x81, 0x82};
  const std::uint8_t down[] = {0x00, 0x7B, 0x7D, 0x7E, 0x7F, 0x80, 0x81, 0x82};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(e8m0(in[i], Up), up[i]) << in[i];
    EXPECT_EQ(e8m0(in[i], Down), down[i]) << in[i];
  }
  // nearest: up from a mantissa of 1.5 on (the tie goes up).
  EXPECT_EQ(e8m0(1.4999, Nearest), 0x7F);
  EXPECT_EQ(e8m0(1.5, Nearest), 0x80);
  EXPECT_EQ(e8m0(3.0, Nearest), 0x81);
  EXPECT_EQ(e8m0(0.124, Nearest), 0x7C);
  // f32 subnormals: the exponent field is 0 and the implicit bit too.
  EXPECT_EQ(e8m0(std::ldexp(1.0, -149), Up), 0x01);
  EXPECT_EQ(e8m0(std::ldexp(1.0, -149), Down), 0x00);
  EXPECT_EQ(e8m0(std::ldexp(1.0, -149), Nearest), 0x00);
  EXPECT_EQ(e8m0(std::ldexp(0.5, -126), Nearest), 0x00);
  EXPECT_EQ(e8m0(std::ldexp(0.75, -126), Nearest), 0x01);
  // The sign is dropped; NaN and infinities give NaN.
  EXPECT_EQ(e8m0(-4.0, Up), 0x81);
  EXPECT_EQ(e8m0(kNaN, Down), 0xFF);
  EXPECT_EQ(e8m0(-kInf, Up, true), 0xFF);
  // 1.5 * 2^127 rounds up to NaN unless saturating.
  EXPECT_EQ(e8m0(std::ldexp(1.5, 127), Up), 0xFF);
  EXPECT_EQ(e8m0(std::ldexp(1.5, 127), Up, true), 0xFE);
  EXPECT_EQ(e8m0(std::ldexp(1.5, 127), Nearest, true), 0xFE);
  EXPECT_EQ(e8m0(std::ldexp(1.5, 127), Down), 0xFE);
  // Defined on the f32: 1 + 2^-30 is 1.0f, which `up` leaves at 1; beyond
  // the f32 range, infinity.
  EXPECT_EQ(e8m0(1.0 + std::ldexp(1.0, -30), Up), 0x7F);
  EXPECT_EQ(e8m0(1e39, Down), 0xFF);
  EXPECT_EQ(floatToF8E8M0(3.0f, false, Down), 0x80);
}

// Every f8E8M0FNU value is a power of two, which no mode rounds; except
// 2^-127 (0x00), an f32 subnormal whose fraction bit `up` rounds up to
// 2^-126, as onnx.numpy_helper.to_float8e8m0 does.
TEST(LowPrecisionFloatTest, E8M0EveryPatternRoundTrips) {
  using enum E8M0RoundMode;
  EXPECT_TRUE(std::isnan(decode(ElementType::F8E8M0FNU, 0xFF)));
  EXPECT_EQ(e8m0(kNaN, Nearest), 0xFF);
  for (int bits = 0; bits < 255; ++bits) {
    const double value = decode(ElementType::F8E8M0FNU, std::uint8_t(bits));
    EXPECT_EQ(value, std::ldexp(1.0, bits - 127));
    EXPECT_EQ(e8m0(value, Down), bits);
    EXPECT_EQ(e8m0(value, Nearest), bits);
    EXPECT_EQ(e8m0(value, Up), bits == 0 ? 1 : bits);
    EXPECT_EQ(e8m0(-value, Down), bits);
  }
}

TEST(LowPrecisionFloatTest, LoadsAndStores) {
  std::uint8_t buffer[4] = {};
  storeDouble(ElementType::F8E4M3FN, buffer, 1, 1000.0);
  EXPECT_EQ(buffer[1], 0x7F);
  storeDouble(ElementType::F8E4M3FN, buffer, 1, 1000.0, CastOptions{true});
  EXPECT_EQ(buffer[1], 0x7E);
  EXPECT_EQ(loadDouble(ElementType::F8E4M3FN, buffer, 1), 448.0);
  // Float to integer truncates and saturates as for the other floats.
  EXPECT_EQ(loadInt(ElementType::F8E4M3FN, buffer, 1), 448);
  buffer[0] = 0xBC; // -1.0 in f8E5M2
  EXPECT_EQ(loadInt(ElementType::F8E5M2, buffer, 0), -1);
  buffer[0] = 0x7C; // +inf
  EXPECT_EQ(loadInt(ElementType::F8E5M2, buffer, 0),
            std::numeric_limits<std::int64_t>::max());
  storeDouble(ElementType::F4E2M1FN, buffer, 2, -2.9);
  EXPECT_EQ(buffer[2], 0xD);
  // Integers convert to the nearest value, saturating on request.
  storeInt(ElementType::F8E4M3FN, buffer, 0, 1000);
  EXPECT_EQ(buffer[0], 0x7F);
  storeInt(ElementType::F8E4M3FN, buffer, 0, -1000, CastOptions{true});
  EXPECT_EQ(buffer[0], 0xFE);
  storeUnsigned(ElementType::F8E5M2, buffer, 0, ~std::uint64_t(0));
  EXPECT_EQ(buffer[0], 0x7C);
  storeInt(ElementType::F4E2M1FN, buffer, 0, 3);
  EXPECT_EQ(buffer[0], 0x5);
  EXPECT_EQ(int64ToFloatBits(-3, ElementType::F4E2M1FN), 0xDu);
  // To f8E8M0FNU through the nearest f32: 2^24 + 1 is 2^24 there, which
  // `up` keeps (directly it would round up to 2^25).
  storeInt(ElementType::F8E8M0FNU, buffer, 0, (1 << 24) + 1);
  EXPECT_EQ(buffer[0], 127 + 24);
  storeInt(ElementType::F8E8M0FNU, buffer, 0, 3,
           CastOptions{false, E8M0RoundMode::Down});
  EXPECT_EQ(buffer[0], 0x80);
}

// i4, ui4, i2, ui2: one byte per element, i4/i2 sign-extended; integer
// stores wrap, float stores truncate through i32 and wrap (ml_dtypes).
TEST(NarrowIntegerTest, LoadsAndStores) {
  std::uint8_t b[1] = {};
  storeInt(ElementType::I4, b, 0, 8);
  EXPECT_EQ(b[0], 0xF8);
  EXPECT_EQ(loadInt(ElementType::I4, b, 0), -8);
  EXPECT_EQ(loadUnsigned(ElementType::I4, b, 0), 8u);
  EXPECT_EQ(loadDouble(ElementType::I4, b, 0), -8.0);
  storeInt(ElementType::UI4, b, 0, -1);
  EXPECT_EQ(b[0], 0x0F);
  EXPECT_EQ(loadInt(ElementType::UI4, b, 0), 15);
  EXPECT_EQ(loadDouble(ElementType::UI4, b, 0), 15.0);
  storeInt(ElementType::I2, b, 0, 2);
  EXPECT_EQ(b[0], 0xFE);
  EXPECT_EQ(loadInt(ElementType::I2, b, 0), -2);
  EXPECT_EQ(loadUnsigned(ElementType::I2, b, 0), 2u);
  storeUnsigned(ElementType::UI2, b, 0, 7);
  EXPECT_EQ(b[0], 0x03);
  // A byte with stray high bits reads by its low bits.
  b[0] = 0x17;
  EXPECT_EQ(loadInt(ElementType::I4, b, 0), 7);
  EXPECT_EQ(loadInt(ElementType::UI2, b, 0), 3);

  // The ONNX test's float -> INT4: -9 -> 7, 8 -> -8, 15 -> -1.
  const double in[] = {-9, -8, 7, 8, 15, -2.7, 7.9};
  const std::int64_t i4[] = {7, -8, 7, -8, -1, -2, 7};
  const std::int64_t ui4[] = {7, 8, 7, 8, 15, 14, 7};
  const std::int64_t i2[] = {-1, 0, -1, 0, -1, -2, -1};
  const std::int64_t ui2[] = {3, 0, 3, 0, 3, 2, 3};
  for (int i = 0; i < 7; ++i) {
    storeDouble(ElementType::I4, b, 0, in[i]);
    EXPECT_EQ(loadInt(ElementType::I4, b, 0), i4[i]) << in[i];
    storeDouble(ElementType::UI4, b, 0, in[i]);
    EXPECT_EQ(loadInt(ElementType::UI4, b, 0), ui4[i]) << in[i];
    storeDouble(ElementType::I2, b, 0, in[i]);
    EXPECT_EQ(loadInt(ElementType::I2, b, 0), i2[i]) << in[i];
    storeDouble(ElementType::UI2, b, 0, in[i]);
    EXPECT_EQ(loadInt(ElementType::UI2, b, 0), ui2[i]) << in[i];
  }
  // What i32 cannot hold (and NaN) gives 0; 2^31 - 1 keeps its low bits.
  for (double v : {kNaN, kInf, -kInf, 2147483648.0, -2147483649.0, 1e20}) {
    b[0] = 0x5;
    storeDouble(ElementType::I4, b, 0, v);
    EXPECT_EQ(b[0], 0) << v;
  }
  storeDouble(ElementType::I4, b, 0, 2147483647.0);
  EXPECT_EQ(loadInt(ElementType::I4, b, 0), -1);
  storeDouble(ElementType::UI2, b, 0, -2147483648.5);
  EXPECT_EQ(b[0], 0);
}

} // namespace
