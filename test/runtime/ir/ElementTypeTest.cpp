//===- ElementTypeTest.cpp - Element types and float conversions ----------===//
//
// Expected bit patterns are worked out by hand from the IEEE formats:
// f16 = 1 sign, 5 exponent (bias 15), 10 fraction bits; bf16 = 1, 8 (bias
// 127), 7.
//
//===----------------------------------------------------------------------===//

#include "runtime/ir/ElementType.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace fuse;

namespace {

TEST(ElementTypeTest, NamesAndSizes) {
  EXPECT_EQ(allElementTypes().size(), 23u);
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

} // namespace
