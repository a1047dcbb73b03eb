//===- ElementType.cpp - Tensor element types -----------------------------===//

#include "runtime/ir/ElementType.h"
#include "runtime/ir/LowPrecisionFloat.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

using namespace fuse;

namespace {

struct ElementTypeInfo {
  ElementType type;
  std::string_view name;
  std::int64_t bytes;
};

constexpr ElementTypeInfo kElementTypes[] = {
#define FUSE_ELEMENT_TYPE(Name, mnemonic, bytes)                               \
  {ElementType::Name, #mnemonic, bytes},
#include "runtime/ir/Ops.def"
};

constexpr ElementType kAllElementTypes[] = {
#define FUSE_ELEMENT_TYPE(Name, mnemonic, bytes) ElementType::Name,
#include "runtime/ir/Ops.def"
};

const ElementTypeInfo &info(ElementType type) {
  return kElementTypes[static_cast<std::size_t>(type)];
}

/// An IEEE-style binary float format: sign, exponent field, fraction field.
struct FloatFormat {
  int exponentBits;
  int fractionBits;
};

constexpr FloatFormat kF16{5, 10};
constexpr FloatFormat kBF16{8, 7};
constexpr FloatFormat kF32{8, 23};
constexpr FloatFormat kF64{11, 52};

FloatFormat formatOf(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return kF16;
  case ElementType::BF16:
    return kBF16;
  case ElementType::F32:
    return kF32;
  case ElementType::F64:
    return kF64;
  default:
    assert(false && "not a float type");
    return kF64;
  }
}

/// Bits of the format's value nearest to (-1)^negative * mantissa * 2^exp2,
/// ties to even. One rounding from the exact value is what makes every
/// conversion in this file correctly rounded.
std::uint64_t roundToFormat(bool negative, std::uint64_t mantissa, int exp2,
                            FloatFormat format) {
  const std::uint64_t signBit = std::uint64_t(negative)
                                << (format.exponentBits + format.fractionBits);
  const std::uint64_t infinity = ((std::uint64_t(1) << format.exponentBits) - 1)
                                 << format.fractionBits;
  if (mantissa == 0)
    return signBit;
  const int bias = (1 << (format.exponentBits - 1)) - 1;
  const int minExponent = 1 - bias;
  const int msb = 63 - std::countl_zero(mantissa);
  const int exponent = msb + exp2;
  if (exponent > bias)
    return signBit | infinity;
  const bool normal = exponent >= minExponent;
  // Right shift that leaves fractionBits bits below the leading one (normal)
  // or aligns the value to the subnormal spacing.
  const int shift =
      (normal ? exponent : minExponent) - format.fractionBits - exp2;
  std::uint64_t rounded;
  if (shift <= 0) {
    rounded = mantissa << -shift;
  } else if (shift > 64) {
    rounded = 0;
  } else {
    std::uint64_t remainder, half;
    if (shift == 64) {
      rounded = 0;
      remainder = mantissa;
      half = std::uint64_t(1) << 63;
    } else {
      rounded = mantissa >> shift;
      remainder = mantissa & ((std::uint64_t(1) << shift) - 1);
      half = std::uint64_t(1) << (shift - 1);
    }
    if (remainder > half || (remainder == half && (rounded & 1)))
      ++rounded;
  }
  // For a normal value `rounded` carries the leading one, which adds one to
  // the exponent field; a carry out of rounding moves on to the next binade
  // (or from the subnormals to the smallest normal) by the same addition.
  std::uint64_t bits =
      normal ? (std::uint64_t(exponent + bias - 1) << format.fractionBits) +
                   rounded
             : rounded;
  if (bits >= infinity)
    bits = infinity;
  return signBit | bits;
}

std::uint16_t doubleToSmallFloat(double value, FloatFormat format) {
  std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
  const bool negative = bits >> 63;
  const int exponentField = int((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t(1) << 52) - 1);
  const std::uint64_t signBit = std::uint64_t(negative)
                                << (format.exponentBits + format.fractionBits);
  const std::uint64_t infinity = ((std::uint64_t(1) << format.exponentBits) - 1)
                                 << format.fractionBits;
  if (exponentField == 0x7ff) {
    if (fraction == 0)
      return std::uint16_t(signBit | infinity);
    return std::uint16_t(signBit | infinity |
                         (std::uint64_t(1) << (format.fractionBits - 1)));
  }
  if (exponentField == 0)
    return std::uint16_t(roundToFormat(negative, fraction, -1074, format));
  return std::uint16_t(roundToFormat(negative,
                                     fraction | (std::uint64_t(1) << 52),
                                     exponentField - 1075, format));
}

double smallFloatToDouble(std::uint16_t bits, FloatFormat format) {
  const bool negative = bits >> (format.exponentBits + format.fractionBits);
  const int maxField = (1 << format.exponentBits) - 1;
  const int exponentField = (bits >> format.fractionBits) & maxField;
  const std::uint32_t fraction = bits & ((1u << format.fractionBits) - 1);
  const int bias = (1 << (format.exponentBits - 1)) - 1;
  double magnitude;
  if (exponentField == maxField)
    magnitude = fraction ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else if (exponentField == 0)
    magnitude = std::ldexp(double(fraction), 1 - bias - format.fractionBits);
  else
    magnitude = std::ldexp(double(fraction | (1u << format.fractionBits)),
                           exponentField - bias - format.fractionBits);
  return negative ? -magnitude : magnitude;
}

/// An integer to an f8/f4 type. Every f8/f4 value but f8E8M0FNU's is far
/// below 2^53, so converting through double loses nothing a rounding to them
/// would keep; f8E8M0FNU is defined on the nearest f32, which the integer
/// converts to directly (once).
template <typename Integer>
std::uint8_t lowPrecisionFromInteger(ElementType type, Integer value,
                                     const CastOptions &options) {
  if (type == ElementType::F8E8M0FNU)
    return floatToF8E8M0(float(value), options.saturate, options.roundMode);
  return doubleToLowPrecision(type, double(value), options);
}

} // namespace

std::span<const ElementType> fuse::allElementTypes() {
  return kAllElementTypes;
}

std::int64_t fuse::byteSize(ElementType type) { return info(type).bytes; }

std::string_view fuse::elementTypeName(ElementType type) {
  return info(type).name;
}

std::optional<ElementType> fuse::parseElementType(std::string_view name) {
  for (const ElementTypeInfo &entry : kElementTypes)
    if (entry.name == name)
      return entry.type;
  return std::nullopt;
}

bool fuse::isFloat(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::F32:
  case ElementType::F64:
    return true;
  default:
    return isLowPrecisionFloat(type);
  }
}

bool fuse::isLowPrecisionFloat(ElementType type) {
  switch (type) {
  case ElementType::F8E4M3FN:
  case ElementType::F8E4M3FNUZ:
  case ElementType::F8E5M2:
  case ElementType::F8E5M2FNUZ:
  case ElementType::F8E8M0FNU:
  case ElementType::F4E2M1FN:
    return true;
  default:
    return false;
  }
}

bool fuse::isInteger(ElementType type) { return !isFloat(type); }

bool fuse::isUnsignedInteger(ElementType type) {
  return type == ElementType::UI8 || type == ElementType::UI16 ||
         type == ElementType::UI32 || type == ElementType::UI64 ||
         type == ElementType::UI4 || type == ElementType::UI2;
}

unsigned fuse::integerBitWidth(ElementType type) {
  switch (type) {
  case ElementType::I1:
    return 1;
  case ElementType::I2:
  case ElementType::UI2:
    return 2;
  case ElementType::I4:
  case ElementType::UI4:
    return 4;
  default:
    return isInteger(type) ? unsigned(info(type).bytes) * 8 : 0;
  }
}

double fuse::f16ToDouble(std::uint16_t bits) {
  return smallFloatToDouble(bits, kF16);
}

double fuse::bf16ToDouble(std::uint16_t bits) {
  return smallFloatToDouble(bits, kBF16);
}

std::uint16_t fuse::doubleToF16(double value) {
  return doubleToSmallFloat(value, kF16);
}

std::uint16_t fuse::doubleToBF16(double value) {
  return doubleToSmallFloat(value, kBF16);
}

std::uint64_t fuse::int64ToFloatBits(std::int64_t value,
                                     ElementType floatType) {
  if (isLowPrecisionFloat(floatType))
    return lowPrecisionFromInteger(floatType, value, {});
  const bool negative = value < 0;
  const std::uint64_t magnitude =
      negative ? std::uint64_t(0) - std::uint64_t(value) : std::uint64_t(value);
  return roundToFormat(negative, magnitude, 0, formatOf(floatType));
}

std::uint64_t fuse::uint64ToFloatBits(std::uint64_t value,
                                      ElementType floatType) {
  if (isLowPrecisionFloat(floatType))
    return lowPrecisionFromInteger(floatType, value, {});
  return roundToFormat(false, value, 0, formatOf(floatType));
}

namespace {

template <typename T> T loadRaw(const void *data, std::int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char *>(data) + index * sizeof(T),
              sizeof(T));
  return value;
}

template <typename T> void storeRaw(void *data, std::int64_t index, T value) {
  std::memcpy(static_cast<char *>(data) + index * sizeof(T), &value, sizeof(T));
}

/// Element `index` of an array of `bytes`-byte elements, as unsigned bits.
std::uint64_t loadBits(std::int64_t bytes, const void *data,
                       std::int64_t index) {
  switch (bytes) {
  case 1:
    return loadRaw<std::uint8_t>(data, index);
  case 2:
    return loadRaw<std::uint16_t>(data, index);
  case 4:
    return loadRaw<std::uint32_t>(data, index);
  default:
    return loadRaw<std::uint64_t>(data, index);
  }
}

/// The low `bytes` bytes of `bits` into element `index` of an array of
/// `bytes`-byte elements.
void storeBits(std::int64_t bytes, void *data, std::int64_t index,
               std::uint64_t bits) {
  switch (bytes) {
  case 1:
    storeRaw(data, index, std::uint8_t(bits));
    return;
  case 2:
    storeRaw(data, index, std::uint16_t(bits));
    return;
  case 4:
    storeRaw(data, index, std::uint32_t(bits));
    return;
  default:
    storeRaw(data, index, bits);
    return;
  }
}

void storeFloatBits(ElementType type, void *data, std::int64_t index,
                    std::uint64_t bits) {
  storeBits(info(type).bytes, data, index, bits);
}

/// Truncation toward zero with saturation; NaN gives 0.
std::int64_t saturatingTruncate(double value, unsigned bits) {
  if (std::isnan(value))
    return 0;
  const double limit = std::ldexp(1.0, int(bits) - 1);
  if (value >= limit)
    return bits == 64 ? std::numeric_limits<std::int64_t>::max()
                      : std::int64_t(limit) - 1;
  if (value <= -limit)
    return bits == 64 ? std::numeric_limits<std::int64_t>::min()
                      : -std::int64_t(limit);
  return std::int64_t(std::trunc(value));
}

/// Truncation toward zero, saturating to 0 .. 2^bits - 1; NaN gives 0.
std::uint64_t saturatingTruncateUnsigned(double value, unsigned bits) {
  if (std::isnan(value) || value <= 0)
    return 0;
  const double limit = std::ldexp(1.0, int(bits));
  if (value >= limit)
    return bits == 64 ? std::numeric_limits<std::uint64_t>::max()
                      : (std::uint64_t(1) << bits) - 1;
  return std::uint64_t(std::trunc(value));
}

/// Float to i4, ui4, i2, ui2 as ml_dtypes converts on x86-64 (and so ONNX's
/// reference): truncation to a 32-bit integer, whose low bits the store
/// keeps; what does not fit 32 bits (NaN and infinities too) converts to
/// INT32_MIN, whose low bits are 0.
std::int64_t truncateThroughInt32(double value) {
  if (!(value > -2147483649.0 && value < 2147483648.0))
    return 0;
  return std::int64_t(std::trunc(value));
}

bool isNarrowInteger(ElementType type) {
  return type == ElementType::I4 || type == ElementType::UI4 ||
         type == ElementType::I2 || type == ElementType::UI2;
}

/// The low `bits` bits of `value`, sign-extended (zero-extended when
/// `isUnsigned`).
std::int64_t wrapTo(std::int64_t value, unsigned bits, bool isUnsigned) {
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  const std::uint64_t low = std::uint64_t(value) & mask;
  if (isUnsigned || !(low >> (bits - 1)))
    return std::int64_t(low);
  return std::int64_t(low | ~mask);
}

} // namespace

double fuse::loadDouble(ElementType type, const void *data,
                        std::int64_t index) {
  switch (type) {
  case ElementType::F16:
    return f16ToDouble(loadRaw<std::uint16_t>(data, index));
  case ElementType::BF16:
    return bf16ToDouble(loadRaw<std::uint16_t>(data, index));
  case ElementType::F32:
    return loadRaw<float>(data, index);
  case ElementType::F64:
    return loadRaw<double>(data, index);
  default:
    if (isLowPrecisionFloat(type))
      return lowPrecisionToDouble(type, loadRaw<std::uint8_t>(data, index));
    if (isUnsignedInteger(type))
      return double(loadUnsigned(type, data, index));
    return double(loadInt(type, data, index));
  }
}

std::int64_t fuse::loadInt(ElementType type, const void *data,
                           std::int64_t index) {
  switch (type) {
  case ElementType::I1:
    return loadRaw<std::uint8_t>(data, index) != 0;
  case ElementType::I8:
    return loadRaw<std::int8_t>(data, index);
  case ElementType::I16:
    return loadRaw<std::int16_t>(data, index);
  case ElementType::I32:
    return loadRaw<std::int32_t>(data, index);
  case ElementType::I64:
    return loadRaw<std::int64_t>(data, index);
  case ElementType::UI8:
  case ElementType::UI16:
  case ElementType::UI32:
  case ElementType::UI64:
    return std::int64_t(loadUnsigned(type, data, index));
  case ElementType::I4:
  case ElementType::I2:
  case ElementType::UI4:
  case ElementType::UI2:
    return wrapTo(loadRaw<std::uint8_t>(data, index), integerBitWidth(type),
                  isUnsignedInteger(type));
  default:
    assert(isFloat(type));
    return saturatingTruncate(loadDouble(type, data, index), 64);
  }
}

std::uint64_t fuse::loadUnsigned(ElementType type, const void *data,
                                 std::int64_t index) {
  // Whole-byte integers: their bytes as they are.
  if (integerBitWidth(type) >= 8)
    return loadBits(info(type).bytes, data, index);
  switch (type) {
  case ElementType::I4:
  case ElementType::I2:
  case ElementType::UI4:
  case ElementType::UI2:
    return std::uint64_t(wrapTo(loadRaw<std::uint8_t>(data, index),
                                integerBitWidth(type), /*isUnsigned=*/true));
  default:
    if (isFloat(type)) {
      double value = loadDouble(type, data, index);
      return value < 0 ? std::uint64_t(saturatingTruncate(value, 64))
                       : saturatingTruncateUnsigned(value, 64);
    }
    return std::uint64_t(loadInt(type, data, index));
  }
}

void fuse::storeDouble(ElementType type, void *data, std::int64_t index,
                       double value, const CastOptions &options) {
  switch (type) {
  case ElementType::F16:
    storeRaw(data, index, doubleToF16(value));
    return;
  case ElementType::BF16:
    storeRaw(data, index, doubleToBF16(value));
    return;
  case ElementType::F32:
    storeRaw(data, index, float(value));
    return;
  case ElementType::F64:
    storeRaw(data, index, value);
    return;
  case ElementType::I1:
    storeRaw(data, index, std::uint8_t(value != 0));
    return;
  default:
    if (isLowPrecisionFloat(type))
      storeRaw(data, index, doubleToLowPrecision(type, value, options));
    else if (isNarrowInteger(type))
      storeInt(type, data, index, truncateThroughInt32(value));
    else if (isUnsignedInteger(type))
      storeUnsigned(type, data, index,
                    saturatingTruncateUnsigned(value, integerBitWidth(type)));
    else
      storeInt(type, data, index,
               saturatingTruncate(value, integerBitWidth(type)));
    return;
  }
}

void fuse::storeInt(ElementType type, void *data, std::int64_t index,
                    std::int64_t value, const CastOptions &options) {
  // Whole-byte integers: the low bytes of the value.
  if (integerBitWidth(type) >= 8) {
    storeBits(info(type).bytes, data, index, std::uint64_t(value));
    return;
  }
  switch (type) {
  case ElementType::I1:
    storeRaw(data, index, std::uint8_t(value != 0));
    return;
  case ElementType::I4:
  case ElementType::I2:
  case ElementType::UI4:
  case ElementType::UI2:
    storeRaw(data, index,
             std::uint8_t(wrapTo(value, integerBitWidth(type),
                                 isUnsignedInteger(type))));
    return;
  default:
    if (isLowPrecisionFloat(type))
      storeRaw(data, index, lowPrecisionFromInteger(type, value, options));
    else
      storeFloatBits(type, data, index, int64ToFloatBits(value, type));
    return;
  }
}

void fuse::storeUnsigned(ElementType type, void *data, std::int64_t index,
                         std::uint64_t value, const CastOptions &options) {
  if (isLowPrecisionFloat(type))
    storeRaw(data, index, lowPrecisionFromInteger(type, value, options));
  else if (isFloat(type))
    storeFloatBits(type, data, index, uint64ToFloatBits(value, type));
  else
    storeInt(type, data, index, std::int64_t(value));
}
