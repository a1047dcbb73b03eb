//===- CheckedIntTest.cpp - Shape arithmetic that cannot wrap -------------===//

#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/WindowShape.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

using namespace fuse;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(CheckedIntTest, ArithmeticInRange) {
  EXPECT_EQ((CheckedInt(6) * 7).get(), 42);
  EXPECT_EQ((CheckedInt(kMax - 1) + 1).get(), kMax);
  EXPECT_EQ((CheckedInt(kMin + 1) - 1).get(), kMin);
  EXPECT_EQ((CheckedInt(-7) / 2).get(), -3);
  EXPECT_EQ((CheckedInt(std::int64_t(1) << 31) * (std::int64_t(1) << 31)).get(),
            std::int64_t(1) << 62);
}

// A double becomes an int64 only where one holds it; a plain conversion of
// NaN, an infinity or 2^63 is undefined behaviour (x86 gives INT64_MIN).
TEST(CheckedIntTest, FromDouble) {
  EXPECT_EQ(CheckedInt::fromDouble(6.9).get(), 6);
  EXPECT_EQ(CheckedInt::fromDouble(-6.9).get(), -6);
  EXPECT_EQ(CheckedInt::fromDouble(-0x1p63).get(), kMin);
  EXPECT_EQ(CheckedInt::fromDouble(0x1p62).get(), std::int64_t(1) << 62);
  EXPECT_FALSE(CheckedInt::fromDouble(0x1p63).ok());
  EXPECT_FALSE(CheckedInt::fromDouble(-0x1p64).ok());
  EXPECT_FALSE(
      CheckedInt::fromDouble(std::numeric_limits<double>::quiet_NaN()).ok());
  EXPECT_FALSE(
      CheckedInt::fromDouble(std::numeric_limits<double>::infinity()).ok());
  EXPECT_FALSE(
      CheckedInt::fromDouble(-std::numeric_limits<double>::infinity()).ok());
}

// Each operation that a raw int64 would wrap (or trap on) overflows instead.
TEST(CheckedIntTest, OverflowIsCaught) {
  EXPECT_FALSE((CheckedInt(kMax) + 1).ok());
  EXPECT_FALSE((CheckedInt(kMin) - 1).ok());
  EXPECT_FALSE(
      (CheckedInt(std::int64_t(1) << 32) * (std::int64_t(1) << 32)).ok());
  EXPECT_FALSE((CheckedInt(kMin) * -1).ok());
  EXPECT_FALSE((CheckedInt(kMin) / -1).ok());
  EXPECT_FALSE((CheckedInt(1) / 0).ok());
}

// An overflow stays: a later step cannot bring the value back into range
// (2^64 x 0 is not 0, 4 x (2^62 + 1) - 2^64 is not 4).
TEST(CheckedIntTest, OverflowPropagates) {
  CheckedInt wrapped = CheckedInt(4) * ((std::int64_t(1) << 62) + 1);
  EXPECT_FALSE(wrapped.ok());
  EXPECT_FALSE((wrapped * 0).ok());
  EXPECT_FALSE((wrapped - kMax).ok());
  EXPECT_FALSE((wrapped / 4).ok());
  EXPECT_EQ(wrapped.get(), std::nullopt);
  EXPECT_EQ(wrapped.saturated(), kMax);
  EXPECT_EQ(wrapped, CheckedInt::overflowed());
  CheckedInt count = 1;
  count *= kMax;
  count += 1;
  EXPECT_FALSE(count.ok());
}

TEST(CheckedIntTest, ElementCount) {
  std::vector<std::int64_t> wraps = {std::int64_t(1) << 32, std::int64_t(1)
                                                                << 32};
  EXPECT_FALSE(checkedElementCount(wraps).ok());
  std::vector<std::int64_t> sixteen = {16, (std::int64_t(1) << 60) + 1};
  EXPECT_FALSE(checkedElementCount(sixteen).ok());
  // A zero dim empties the tensor whatever the others hold.
  std::vector<std::int64_t> empty = {kMax, 0, kMax};
  EXPECT_EQ(checkedElementCount(empty).get(), 0);
  std::vector<std::int64_t> negative = {2, -3};
  EXPECT_FALSE(checkedElementCount(negative).ok());
  EXPECT_EQ(checkedElementCount(std::vector<std::int64_t>{}).get(), 1);
  EXPECT_EQ(checkedElementCount(std::vector<std::int64_t>{2, 3, 4}).get(), 24);
}

// TensorType's counts saturate: a shape that wraps an int64 counts as more
// than any tensor holds, never as a small number (2^32 x 2^32 counted 0
// elements, 2^32 x (2^32 + 1) f32 counted 2^34 bytes).
TEST(CheckedIntTest, TensorTypeCountsNeverWrap) {
  TensorType square{ElementType::F32,
                    {std::int64_t(1) << 32, std::int64_t(1) << 32}};
  EXPECT_EQ(square.numElements(), kMax);
  EXPECT_EQ(square.byteSize(), kMax);
  TensorType bytesWrap{ElementType::F64, {std::int64_t(1) << 61}};
  EXPECT_EQ(bytesWrap.numElements(), std::int64_t(1) << 61);
  EXPECT_EQ(bytesWrap.byteSize(), kMax);
  TensorType small{ElementType::F32, {2, 3}};
  EXPECT_EQ(small.numElements(), 6);
  EXPECT_EQ(small.byteSize(), 24);
}

// Negation and unsigned counts: -INT64_MIN and a uint64 past INT64_MAX do not
// fit, every other value does.
TEST(CheckedIntTest, NegationAndUnsigned) {
  EXPECT_EQ((-CheckedInt(kMax)).get(), kMin + 1);
  EXPECT_EQ((-CheckedInt(-5)).get(), 5);
  EXPECT_FALSE((-CheckedInt(kMin)).ok());
  EXPECT_FALSE((-CheckedInt::overflowed()).ok());
  EXPECT_EQ(CheckedInt::fromUnsigned(std::uint64_t(kMax)).get(), kMax);
  EXPECT_FALSE(CheckedInt::fromUnsigned(std::uint64_t(kMax) + 1).ok());
  EXPECT_FALSE(CheckedInt::fromUnsigned(~std::uint64_t(0)).ok());
  EXPECT_EQ(CheckedInt::fromUnsigned(0).get(), 0);
}

// Negative values are values: only the range of int64 is checked.
TEST(CheckedIntTest, NegativeOperands) {
  EXPECT_EQ((CheckedInt(-3) * -4).get(), 12);
  EXPECT_EQ((CheckedInt(-3) + -4).get(), -7);
  EXPECT_EQ((CheckedInt(7) / -2).get(), -3);
  EXPECT_EQ((CheckedInt(kMin) / 1).get(), kMin);
  EXPECT_FALSE((CheckedInt(kMin) + -1).ok());
  EXPECT_FALSE((CheckedInt(kMax) - -1).ok());
  EXPECT_FALSE((CheckedInt(kMin / 2 - 1) * 2).ok());
  EXPECT_EQ((CheckedInt(kMin / 2) * 2).get(), kMin);
}

// A pool's output size counts with CheckedInt: sizes past the old 2^61
// limit are sizes, and a step past 2^63 is "does not fit" (-1), never a
// wrapped size.
TEST(CheckedIntTest, PoolOutputSize) {
  EXPECT_EQ(poolOutputSize(8, 3, 1, 1, 0, 0, false), 6);
  EXPECT_EQ(poolOutputSize(8, 3, 2, 1, 1, 1, false), 4);
  EXPECT_EQ(poolOutputSize(8, 3, 2, 1, 0, 0, true), 4);
  // ceil_mode drops a last window that would start in the end padding.
  EXPECT_EQ(poolOutputSize(5, 1, 2, 1, 0, 1, true), 3);
  EXPECT_EQ(poolOutputSize(2, 3, 1, 1, 0, 0, false), -1);
  EXPECT_EQ(poolOutputSize(std::int64_t(1) << 62, 1, 1, 1, 0, 0, false),
            std::int64_t(1) << 62);
  EXPECT_EQ(poolOutputSize(kMax, 1, kMax, 1, 0, 0, true), 1);
  EXPECT_EQ(poolOutputSize(4, 1, 1, 1, kMax, kMax, false), -1);
  EXPECT_EQ(poolOutputSize(4, 3, 1, std::int64_t(1) << 62, 0, 0, false), -1);
  EXPECT_EQ(poolOutputSize(kMax - 1, 2, 1, 1, 0, 1, false), kMax - 1);
  EXPECT_EQ(poolOutputSize(kMax, 1, 1, 1, 0, 1, false), -1);
}

} // namespace
