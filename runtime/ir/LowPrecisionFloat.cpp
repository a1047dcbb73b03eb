//===- LowPrecisionFloat.cpp - The f8 and f4 float formats ----------------===//

#include "runtime/ir/LowPrecisionFloat.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

using namespace fuse;

namespace {

/// What the all-ones patterns mean.
enum class Specials : std::uint8_t {
  /// f8E4M3FN: the all-ones magnitude is NaN (either sign); no infinity.
  FiniteNaN,
  /// The FNUZ types: 0x80 (negative zero's pattern) is the one NaN.
  UnsignedZeroNaN,
  /// f8E5M2: the all-ones exponent is infinity (mantissa 0) or NaN.
  Ieee,
  /// f4E2M1FN: every pattern is a finite value.
  None,
};

struct Format {
  int exponentBits;
  int mantissaBits;
  int bias;
  /// The magnitude bits of the largest finite value.
  std::uint8_t maxCode;
  Specials specials;

  std::uint8_t signBit() const {
    return std::uint8_t(1u << (exponentBits + mantissaBits));
  }
};

constexpr Format kE4M3FN{4, 3, 7, 0x7E, Specials::FiniteNaN};
constexpr Format kE4M3FNUZ{4, 3, 8, 0x7F, Specials::UnsignedZeroNaN};
constexpr Format kE5M2{5, 2, 15, 0x7B, Specials::Ieee};
constexpr Format kE5M2FNUZ{5, 2, 16, 0x7F, Specials::UnsignedZeroNaN};
constexpr Format kE2M1FN{2, 1, 1, 0x7, Specials::None};

const Format &formatOf(ElementType type) {
  switch (type) {
  case ElementType::F8E4M3FN:
    return kE4M3FN;
  case ElementType::F8E4M3FNUZ:
    return kE4M3FNUZ;
  case ElementType::F8E5M2:
    return kE5M2;
  case ElementType::F8E5M2FNUZ:
    return kE5M2FNUZ;
  default:
    assert(type == ElementType::F4E2M1FN && "not an f8/f4 type");
    return kE2M1FN;
  }
}

/// Above every format's magnitude codes.
constexpr std::uint64_t kOverflow = ~std::uint64_t(0);

/// The magnitude code nearest to `magnitude` (finite, > 0), ties to even, as
/// if the exponent field were wider: a code above format.maxCode means the
/// value rounds past the largest finite one. The arithmetic is exact: the
/// scaled value has at most 53 significant bits and floor() and the
/// subtraction of its integer part lose none of them.
std::uint64_t roundedCode(double magnitude, const Format &format) {
  int binaryExponent;
  std::frexp(magnitude, &binaryExponent);
  // magnitude is in [2^e, 2^(e+1)).
  const int e = binaryExponent - 1;
  const int maxExponent = (1 << format.exponentBits) - 1 - format.bias;
  if (e > maxExponent)
    return kOverflow;
  const int minExponent = 1 - format.bias;
  const bool normal = e >= minExponent;
  // The spacing of representable values around `magnitude` is 2^quantum.
  const int quantum = (normal ? e : minExponent) - format.mantissaBits;
  const double scaled = std::ldexp(magnitude, -quantum);
  double rounded = std::floor(scaled);
  const double remainder = scaled - rounded;
  if (remainder > 0.5 || (remainder == 0.5 && std::fmod(rounded, 2.0) != 0))
    rounded += 1;
  const std::uint64_t steps = std::uint64_t(rounded);
  // A normal `steps` carries the leading one (2^mantissaBits), which adds
  // one to the exponent field; a carry out of rounding moves to the next
  // binade (or from the subnormals to the smallest normal) the same way.
  return normal ? (std::uint64_t(e + format.bias - 1) << format.mantissaBits) +
                      steps
                : steps;
}

std::uint8_t encode(const Format &format, double value, bool saturate) {
  const bool negative = std::signbit(value);
  const std::uint8_t signBit = format.signBit();
  const std::uint8_t sign = negative ? signBit : 0;
  if (std::isnan(value)) {
    switch (format.specials) {
    case Specials::FiniteNaN:
      return sign | std::uint8_t(signBit - 1);
    case Specials::UnsignedZeroNaN:
      return 0x80;
    case Specials::Ieee:
      return sign |
             std::uint8_t(((1u << format.exponentBits) - 1)
                          << format.mantissaBits) |
             std::uint8_t(1u << (format.mantissaBits - 1));
    case Specials::None:
      // ml_dtypes (and so ONNX's reference) gives the zero of the other
      // sign.
      return negative ? 0 : signBit;
    }
  }
  const std::uint64_t code = std::isinf(value) ? kOverflow
                             : value == 0
                                 ? 0
                                 : roundedCode(std::fabs(value), format);
  if (code > format.maxCode) {
    if (saturate || format.specials == Specials::None)
      return sign | format.maxCode;
    switch (format.specials) {
    case Specials::Ieee:
      return sign | std::uint8_t(((1u << format.exponentBits) - 1)
                                 << format.mantissaBits);
    case Specials::FiniteNaN:
      return sign | std::uint8_t(signBit - 1);
    default:
      return 0x80;
    }
  }
  if (code == 0 && format.specials == Specials::UnsignedZeroNaN)
    return 0;
  return sign | std::uint8_t(code);
}

double decode(const Format &format, std::uint8_t bits) {
  const std::uint8_t signBit = format.signBit();
  bits &= std::uint8_t(2 * signBit - 1);
  const bool negative = bits & signBit;
  const std::uint8_t magnitudeBits = bits & std::uint8_t(signBit - 1);
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const int maxField = (1 << format.exponentBits) - 1;
  const int field = magnitudeBits >> format.mantissaBits;
  const int mantissa = magnitudeBits & ((1 << format.mantissaBits) - 1);
  switch (format.specials) {
  case Specials::UnsignedZeroNaN:
    // Negative, as ml_dtypes reads it (a cast on to f4E2M1FN sees the
    // sign).
    if (bits == 0x80)
      return -nan;
    break;
  case Specials::FiniteNaN:
    if (magnitudeBits == signBit - 1)
      return negative ? -nan : nan;
    break;
  case Specials::Ieee:
    if (field == maxField) {
      const double special =
          mantissa ? nan : std::numeric_limits<double>::infinity();
      return negative ? -special : special;
    }
    break;
  case Specials::None:
    break;
  }
  const double magnitude =
      field == 0
          ? std::ldexp(double(mantissa), 1 - format.bias - format.mantissaBits)
          : std::ldexp(double(mantissa | (1 << format.mantissaBits)),
                       field - format.bias - format.mantissaBits);
  return negative ? -magnitude : magnitude;
}

/// The f32 nearest to `value` (ties to even; beyond the f32 range,
/// infinity), without the undefined behaviour of converting an
/// out-of-range double.
float nearestFloat(double value) {
  // The tie between FLT_MAX and 2^128 rounds to 2^128 (FLT_MAX is odd).
  if (std::fabs(value) >= 0x1.ffffffp127)
    return std::copysign(std::numeric_limits<float>::infinity(), float(value));
  return float(value);
}

} // namespace

double fuse::lowPrecisionToDouble(ElementType type, std::uint8_t bits) {
  if (type == ElementType::F8E8M0FNU)
    return bits == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                        : std::ldexp(1.0, int(bits) - 127);
  return decode(formatOf(type), bits);
}

std::uint8_t fuse::doubleToLowPrecision(ElementType type, double value,
                                        const CastOptions &options) {
  if (type == ElementType::F8E8M0FNU)
    return floatToF8E8M0(nearestFloat(value), options.saturate,
                         options.roundMode);
  return encode(formatOf(type), value, options.saturate);
}

std::uint8_t fuse::floatToF8E8M0(float value, bool saturate,
                                 E8M0RoundMode roundMode) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF)
    return 0xFF;
  bool up = false;
  switch (roundMode) {
  case E8M0RoundMode::Up:
    up = (bits & 0x7FFFFF) != 0;
    break;
  case E8M0RoundMode::Down:
    break;
  case E8M0RoundMode::Nearest: {
    // onnx.numpy_helper.to_float8e8m0: guard = the fraction's top bit,
    // round = the next, sticky = the rest; the "least significant bit" is
    // the implicit leading one (0 for f32 subnormals).
    const bool guard = bits & 0x400000, round = bits & 0x200000,
               sticky = bits & 0x1FFFFF, lsb = exponent > 0;
    up = guard && (round || sticky || lsb);
    break;
  }
  }
  if (up && saturate && exponent == 0xFE)
    up = false;
  return std::uint8_t(exponent + (up ? 1 : 0));
}

double fuse::lowPrecisionMax(ElementType type) {
  if (type == ElementType::F8E8M0FNU)
    return std::ldexp(1.0, 127);
  const Format &format = formatOf(type);
  return decode(format, format.maxCode);
}
