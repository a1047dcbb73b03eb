//===- CheckedInt.h - Shape arithmetic that cannot wrap ---------*- C++ -*-===//
//
// A dimension, element count or byte size computed from a user's model or
// file (onnxruntime's SafeInt, for shapes): every +, -, * and / checks for
// int64 overflow, and an overflowed value stays overflowed through later
// arithmetic, the way a NaN does, so a chain of shape arithmetic is checked
// once, where its result is used. A raw int64 product of dims wraps: a
// 2^32 x 2^32 tensor counted 0 elements and a reshape to 16 x (2^60 + 1)
// counted 16 (issue 19).
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_CHECKEDINT_H
#define FUSE_RUNTIME_IR_CHECKEDINT_H

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

namespace fuse {

class [[nodiscard]] CheckedInt {
public:
  constexpr CheckedInt() = default;
  constexpr CheckedInt(std::int64_t value) : number(value) {}
  /// An unsigned count (a size_t, a uint64 read from a file): overflowed
  /// past INT64_MAX rather than read back negative.
  static constexpr CheckedInt fromUnsigned(std::uint64_t value) {
    return value > std::uint64_t(std::numeric_limits<std::int64_t>::max())
               ? overflowed()
               : CheckedInt(std::int64_t(value));
  }

  /// A length or index computed in floating point (Resize's floor(scale *
  /// size), a float constant read as integers), truncated toward zero:
  /// overflowed when it is NaN, infinite or outside int64, where a plain
  /// conversion is undefined behaviour.
  static constexpr CheckedInt fromDouble(double value) {
    // -2^63 is exact in double; 2^63 is the first value past INT64_MAX.
    return value >= -0x1p63 && value < 0x1p63
               ? CheckedInt(static_cast<std::int64_t>(value))
               : overflowed();
  }

  static constexpr CheckedInt overflowed() {
    CheckedInt result;
    result.valid = false;
    return result;
  }

  constexpr bool ok() const { return valid; }
  /// The value, or nullopt once any step overflowed.
  [[nodiscard]] constexpr std::optional<std::int64_t> get() const {
    return valid ? std::optional<std::int64_t>(number) : std::nullopt;
  }
  /// The value, or INT64_MAX once any step overflowed: a count that cannot
  /// be held is larger than any that can, never a small wrapped one.
  constexpr std::int64_t saturated() const {
    return valid ? number : std::numeric_limits<std::int64_t>::max();
  }

  friend constexpr CheckedInt operator+(CheckedInt a, CheckedInt b) {
    std::int64_t sum = 0;
    if (!a.valid || !b.valid ||
        __builtin_add_overflow(a.number, b.number, &sum))
      return overflowed();
    return sum;
  }
  friend constexpr CheckedInt operator-(CheckedInt a, CheckedInt b) {
    std::int64_t difference = 0;
    if (!a.valid || !b.valid ||
        __builtin_sub_overflow(a.number, b.number, &difference))
      return overflowed();
    return difference;
  }
  friend constexpr CheckedInt operator*(CheckedInt a, CheckedInt b) {
    std::int64_t product = 0;
    if (!a.valid || !b.valid ||
        __builtin_mul_overflow(a.number, b.number, &product))
      return overflowed();
    return product;
  }
  /// -INT64_MIN overflows.
  friend constexpr CheckedInt operator-(CheckedInt a) {
    return CheckedInt(0) - a;
  }
  /// Truncating, as C++; by 0, or INT64_MIN by -1, overflows.
  friend constexpr CheckedInt operator/(CheckedInt a, CheckedInt b) {
    if (!a.valid || !b.valid || b.number == 0 ||
        (a.number == std::numeric_limits<std::int64_t>::min() &&
         b.number == -1))
      return overflowed();
    return a.number / b.number;
  }
  CheckedInt &operator+=(CheckedInt other) { return *this = *this + other; }
  CheckedInt &operator-=(CheckedInt other) { return *this = *this - other; }
  CheckedInt &operator*=(CheckedInt other) { return *this = *this * other; }
  CheckedInt &operator/=(CheckedInt other) { return *this = *this / other; }

  /// Equal values, or both overflowed.
  friend constexpr bool operator==(CheckedInt a, CheckedInt b) {
    return a.valid == b.valid && (!a.valid || a.number == b.number);
  }

private:
  std::int64_t number = 0;
  bool valid = true;
};

/// The element count of a shape, `dims` multiplied: 0 when any dim is 0
/// (whatever the others), else overflowed when a dim is negative or the product
/// passes INT64_MAX.
constexpr CheckedInt checkedElementCount(std::span<const std::int64_t> dims) {
  for (std::int64_t dim : dims)
    if (dim == 0)
      return 0;
  CheckedInt product = 1;
  for (std::int64_t dim : dims) {
    if (dim < 0)
      return CheckedInt::overflowed();
    product *= dim;
  }
  return product;
}

} // namespace fuse

#endif // FUSE_RUNTIME_IR_CHECKEDINT_H
