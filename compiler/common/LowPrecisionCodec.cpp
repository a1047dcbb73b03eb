//===- LowPrecisionCodec.cpp - f8, f4 and narrow integers in kernels ------===//
//
// The conversions LowPrecisionCodec.h declares: integer bit manipulation on
// the bytes of the low-precision formats, never an f8 type in LLVM.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/LowPrecisionCodec.h"

using namespace mlir;

namespace fuse {
namespace lowp {

bool isLowPrecisionFloat(Type element) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType, Float8E8M0FNUType, Float4E2M1FNType>(element);
}

bool isNarrowInteger(Type element) {
  auto integer = dyn_cast<IntegerType>(element);
  return integer && integer.getWidth() > 1 && integer.getWidth() < 8;
}

std::optional<MiniFloat> miniFloatFormat(Type element) {
  using N = MiniFloat::NaN;
  if (isa<Float8E4M3FNType>(element))
    return MiniFloat{3, 7, 7, 0x7E, 0x7F, N::Signed, 0x7F, false};
  if (isa<Float8E4M3FNUZType>(element))
    return MiniFloat{3, 8, 7, 0x7F, 0x80, N::Unsigned, 0x80, false};
  if (isa<Float8E5M2Type>(element))
    return MiniFloat{2, 15, 7, 0x7B, 0x7C, N::Signed, 0x7E, true};
  if (isa<Float8E5M2FNUZType>(element))
    return MiniFloat{2, 16, 7, 0x7F, 0x80, N::Unsigned, 0x80, false};
  if (isa<Float4E2M1FNType>(element))
    return MiniFloat{1, 1, 3, 0x7, 0x7, N::OppositeZero, 0, false};
  return std::nullopt;
}

Value LowPrecisionCodec::decode(Value byte, Type element) {
  Value bits = arith::ExtUIOp::create(b, loc, vectorOf(i32()), byte);
  if (isa<Float8E8M0FNUType>(element)) {
    // 2^(e - 127); e = 0 is the f32 subnormal 2^-127; 0xFF is NaN.
    Value normal = shl(bits, 23);
    Value result = select(eq(bits, 0), c32(0x00400000), normal);
    return toF32(select(eq(bits, 0xFF), c32(0x7FC00000), result));
  }
  MiniFloat f = *miniFloatFormat(element);
  Value sign = andi(shrui(bits, f.signBit), 1);
  Value magnitude = andi(bits, (1u << f.signBit) - 1);
  Value normal =
      arith::AddIOp::create(b, loc, shl(magnitude, 23 - f.mantissaBits),
                            c32(uint32_t(127 - f.bias) << 23));
  // Exponent field 0: magnitude * 2^(1 - bias - mantissaBits), exact.
  Value subnormal = arith::MulFOp::create(
      b, loc,
      arith::UIToFPOp::create(b, loc, vectorOf(b.getF32Type()), magnitude),
      f32(std::ldexp(1.0, 1 - f.bias - int(f.mantissaBits))));
  Value isSubnormal = ult(magnitude, 1u << f.mantissaBits);
  Value magnitudeBits = select(isSubnormal, toI32(subnormal), Value(normal));
  if (f.hasInfinity)
    magnitudeBits = select(
        uge(magnitude, f.overflowCode),
        select(eq(magnitude, f.overflowCode), c32(0x7F800000), c32(0x7FC00000)),
        magnitudeBits);
  else if (f.nan == MiniFloat::NaN::Signed)
    magnitudeBits =
        select(eq(magnitude, f.nanCode), c32(0x7FC00000), magnitudeBits);
  Value result = arith::OrIOp::create(b, loc, magnitudeBits, shl(sign, 31));
  // The FNUZ NaN (the negative-zero code) decodes negative, as ml_dtypes
  // (a later cast to f4E2M1FN sees the sign).
  if (f.nan == MiniFloat::NaN::Unsigned)
    result = select(eq(bits, 0x80), c32(0xFFC00000), result);
  return toF32(result);
}

Value LowPrecisionCodec::encode(Value x, Type element, bool saturate,
                                fd::RoundMode roundMode) {
  Value bits = toI32(x);
  if (isa<Float8E8M0FNUType>(element))
    return toI8(encodeE8M0(bits, saturate, roundMode));
  MiniFloat f = *miniFloatFormat(element);
  Value magnitudeBits = andi(bits, 0x7FFFFFFF);
  Value sign = shrui(bits, 31);
  // Normal results: round the f32 bits to nearest even at the format's
  // mantissa (a carry moves into the exponent), then rebias.
  unsigned shift = 23 - f.mantissaBits;
  Value roundBias =
      arith::AddIOp::create(b, loc, andi(shrui(magnitudeBits, shift), 1),
                            c32((1u << (shift - 1)) - 1));
  Value normal = arith::SubIOp::create(
      b, loc,
      shrui(arith::AddIOp::create(b, loc, magnitudeBits, roundBias), shift),
      c32(uint32_t(127 - f.bias) << f.mantissaBits));
  // Below the smallest normal: adding 2^(24 - bias - mantissaBits) rounds
  // |x| to the subnormal spacing, to nearest even; the difference of the
  // bits counts the steps (2^mantissaBits is the smallest normal).
  Value big = f32(std::ldexp(1.0, 24 - f.bias - int(f.mantissaBits)));
  Value sum = arith::AddFOp::create(b, loc, toF32(magnitudeBits), big);
  Value subnormal = arith::SubIOp::create(b, loc, toI32(sum), toI32(big));
  Value magnitude = select(ult(magnitudeBits, uint32_t(128 - f.bias) << 23),
                           subnormal, normal);
  Value overflows = ugt(magnitude, f.maxCode);
  magnitude =
      select(overflows, c32(saturate ? f.maxCode : f.overflowCode), magnitude);
  Value code = arith::OrIOp::create(b, loc, magnitude, shl(sign, f.signBit));
  Value nan;
  switch (f.nan) {
  case MiniFloat::NaN::Signed:
    nan = arith::OrIOp::create(b, loc, shl(sign, f.signBit), c32(f.nanCode));
    break;
  case MiniFloat::NaN::Unsigned:
    // No negative zero.
    code = select(eq(magnitude, 0), c32(0), code);
    nan = c32(f.nanCode);
    break;
  case MiniFloat::NaN::OppositeZero:
    nan = shl(arith::XOrIOp::create(b, loc, sign, c32(1)), f.signBit);
    break;
  }
  Value isNaN = ugt(magnitudeBits, 0x7F800000);
  return toI8(select(isNaN, nan, code));
}

Value LowPrecisionCodec::quantize(Value x, Type element, bool saturate,
                                  fd::RoundMode roundMode) {
  return decode(encode(x, element, saturate, roundMode), element);
}

Value LowPrecisionCodec::roundToOddF32(Value x) {
  Value t = arith::TruncFOp::create(b, loc, vectorOf(b.getF32Type()), x);
  Value back = arith::ExtFOp::create(b, loc, x.getType(), t);
  Value away = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                     math::AbsFOp::create(b, loc, back),
                                     math::AbsFOp::create(b, loc, x));
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, back, x);
  Value bits = toI32(t);
  bits = select(away, arith::SubIOp::create(b, loc, bits, c32(1)), bits);
  bits = select(inexact, arith::OrIOp::create(b, loc, bits, c32(1)), bits);
  return toF32(bits);
}

Value LowPrecisionCodec::floatToNarrow(Value x) {
  Type type = getElementTypeOrSelf(x.getType());
  Value limit = arith::ConstantOp::create(
      b, loc, vectorOf(type), splat(b.getFloatAttr(type, 2147483648.0)));
  Value zero = arith::ConstantOp::create(b, loc, vectorOf(type),
                                         splat(b.getFloatAttr(type, 0.0)));
  Value inRange = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                        math::AbsFOp::create(b, loc, x), limit);
  Value safe = arith::SelectOp::create(b, loc, inRange, x, zero);
  Value integer = arith::FPToSIOp::create(b, loc, vectorOf(i32()), safe);
  return toI8(integer);
}

Value LowPrecisionCodec::wrap(Value x, Type element) {
  if (element.isUnsignedInteger())
    return lowBits(x, element);
  unsigned shift = 8 - element.getIntOrFloatBitWidth();
  Value up = arith::ShLIOp::create(b, loc, x, c8(shift));
  return arith::ShRSIOp::create(b, loc, up, c8(shift));
}

Value LowPrecisionCodec::lowBits(Value x, Type element) {
  unsigned bits = element.getIntOrFloatBitWidth();
  return arith::AndIOp::create(b, loc, x, c8((1u << bits) - 1));
}

Value LowPrecisionCodec::encodeE8M0(Value bits, bool saturate,
                                    fd::RoundMode roundMode) {
  Value exponent = andi(shrui(bits, 23), 0xFF);
  Value mantissa = andi(bits, 0x7FFFFF);
  Value roundsUp;
  switch (roundMode) {
  case fd::RoundMode::up:
    roundsUp = ne(mantissa, 0);
    break;
  case fd::RoundMode::down:
    break;
  case fd::RoundMode::nearest: {
    Value guard = ne(andi(bits, 0x400000), 0);
    Value rest = arith::OrIOp::create(b, loc, ne(andi(bits, 0x3FFFFF), 0),
                                      ne(exponent, 0));
    roundsUp = arith::AndIOp::create(b, loc, guard, rest);
    break;
  }
  }
  Value result = exponent;
  if (roundsUp) {
    if (saturate)
      roundsUp = arith::AndIOp::create(b, loc, roundsUp, ne(exponent, 0xFE));
    result = arith::AddIOp::create(
        b, loc, exponent,
        arith::ExtUIOp::create(b, loc, vectorOf(i32()), roundsUp));
  }
  return select(eq(exponent, 0xFF), c32(0xFF), result);
}

Type LowPrecisionCodec::i32() { return b.getI32Type(); }

Type LowPrecisionCodec::vectorOf(Type element) const {
  return width == 1 ? element : VectorType::get({width}, element);
}

TypedAttr LowPrecisionCodec::splat(TypedAttr attr) {
  if (width == 1)
    return attr;
  return DenseElementsAttr::get(cast<ShapedType>(vectorOf(attr.getType())),
                                mlir::Attribute(attr));
}

Value LowPrecisionCodec::c32(uint32_t value) {
  return arith::ConstantOp::create(
      b, loc, vectorOf(i32()),
      splat(b.getIntegerAttr(i32(), APInt(32, value))));
}

Value LowPrecisionCodec::c8(uint32_t value) {
  Type i8 = b.getI8Type();
  return arith::ConstantOp::create(
      b, loc, vectorOf(i8), splat(b.getIntegerAttr(i8, APInt(8, value))));
}

Value LowPrecisionCodec::f32(double value) {
  Type f = b.getF32Type();
  return arith::ConstantOp::create(b, loc, vectorOf(f),
                                   splat(b.getFloatAttr(f, value)));
}

Value LowPrecisionCodec::toI32(Value x) {
  return arith::BitcastOp::create(b, loc, vectorOf(i32()), x);
}

Value LowPrecisionCodec::toF32(Value x) {
  return arith::BitcastOp::create(b, loc, vectorOf(b.getF32Type()), x);
}

Value LowPrecisionCodec::toI8(Value x) {
  return arith::TruncIOp::create(b, loc, vectorOf(b.getI8Type()), x);
}

Value LowPrecisionCodec::shl(Value x, unsigned n) {
  return arith::ShLIOp::create(b, loc, x, c32(n));
}

Value LowPrecisionCodec::shrui(Value x, unsigned n) {
  return arith::ShRUIOp::create(b, loc, x, c32(n));
}

Value LowPrecisionCodec::andi(Value x, uint32_t mask) {
  return arith::AndIOp::create(b, loc, x, c32(mask));
}

Value LowPrecisionCodec::cmp(arith::CmpIPredicate p, Value x, uint32_t value) {
  return arith::CmpIOp::create(b, loc, p, x, c32(value));
}

Value LowPrecisionCodec::eq(Value x, uint32_t v) {
  return cmp(arith::CmpIPredicate::eq, x, v);
}

Value LowPrecisionCodec::ne(Value x, uint32_t v) {
  return cmp(arith::CmpIPredicate::ne, x, v);
}

Value LowPrecisionCodec::ult(Value x, uint32_t v) {
  return cmp(arith::CmpIPredicate::ult, x, v);
}

Value LowPrecisionCodec::ugt(Value x, uint32_t v) {
  return cmp(arith::CmpIPredicate::ugt, x, v);
}

Value LowPrecisionCodec::uge(Value x, uint32_t v) {
  return cmp(arith::CmpIPredicate::uge, x, v);
}

Value LowPrecisionCodec::select(Value condition, Value x, Value y) {
  return arith::SelectOp::create(b, loc, condition, x, y);
}

} // namespace lowp
} // namespace fuse
