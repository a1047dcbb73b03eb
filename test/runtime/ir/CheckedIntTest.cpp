//===- CheckedIntTest.cpp - Shape arithmetic that cannot wrap -------------===//

#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/Graph.h"

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

} // namespace
