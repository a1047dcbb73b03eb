//===- LowPrecisionCodec.h - f8, f4 and narrow ints in kernels -*- C++ -*-===//
//
// The f8 and f4 floats (f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ,
// f8E8M0FNU, f4E2M1FN) and the narrow integers (i4, ui4, i2, ui2) take one
// byte per element in memory. Kernels compute on the floats in f32 and on
// the integers in i8 (sign- or zero-extended, wrapped after every op). This
// unit emits the conversions, on scalars and vectors alike: exact decoding
// of a byte to f32; encoding of f32 to a byte, rounded to nearest even, with
// each format's overflow (infinity, NaN or saturation) and ONNX's `saturate`;
// the f8E8M0FNU rounding of ONNX Cast-24 (ONNX's reference to_float8e8m0);
// f64 to f32 rounded to odd, so that f64 rounds once to a narrow float; and
// the wrapping of narrow integers. LLVM has no f8 types: all of it is integer
// bit manipulation and one f32 addition (which rounds subnormals to nearest
// even for us), never arith.extf/truncf on an f8 type, so the host and GPU
// code generators share it (through ScalarLowering.h).
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see. The conversions are in
// LowPrecisionCodec.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_LOWPRECISIONCODEC_H
#define FUSE_COMPILER_LOWPRECISIONCODEC_H

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <optional>

namespace fuse {
namespace lowp {

namespace fd = mlir::fuse;

/// The f8 and f4 types of the fuse dialect.
bool isLowPrecisionFloat(mlir::Type element);

/// i4, ui4, i2, ui2.
bool isNarrowInteger(mlir::Type element);

/// The one-byte float formats with a sign bit, an exponent and a mantissa
/// (every low-precision float but f8E8M0FNU).
struct MiniFloat {
  unsigned mantissaBits;
  int bias;
  /// 7, or 3 for f4E2M1FN.
  unsigned signBit;
  /// The magnitude bits of the largest finite value.
  uint32_t maxCode;
  /// What a magnitude beyond maxCode encodes as (the infinity of f8E5M2, a
  /// NaN, or maxCode where the format saturates).
  uint32_t overflowCode;
  enum class NaN {
    /// nanCode with the sign of the value.
    Signed,
    /// 0x80, the FNUZ types' one NaN (they have no negative zero either).
    Unsigned,
    /// f4E2M1FN has none: a zero of the opposite sign, as ml_dtypes.
    OppositeZero,
  } nan;
  uint32_t nanCode;
  /// f8E5M2: the magnitudes from 0x7C up are infinity and NaNs.
  bool hasInfinity;
};

std::optional<MiniFloat> miniFloatFormat(mlir::Type element);

/// Emits the conversions on scalars (width 1) or vectors of `width` lanes.
class LowPrecisionCodec {
public:
  LowPrecisionCodec(mlir::OpBuilder &b, mlir::Location loc, unsigned width)
      : b(b), loc(loc), width(width) {}

  /// A byte (i8) of `element`'s format as the exact f32 value.
  mlir::Value decode(mlir::Value byte, mlir::Type element);

  /// f32 to a byte (i8) of `element`'s format. `saturate` clamps values
  /// beyond the largest finite one (infinities included) to it; `roundMode`
  /// is for f8E8M0FNU.
  mlir::Value encode(mlir::Value x, mlir::Type element, bool saturate,
                     fd::RoundMode roundMode = fd::RoundMode::nearest);

  /// The value `x` (f32) takes when cast to `element`: encoded, then
  /// decoded. A later store encodes it again, exactly.
  mlir::Value quantize(mlir::Value x, mlir::Type element, bool saturate,
                       fd::RoundMode roundMode);

  /// f64 to f32 rounded to odd (toward zero, then the last bit set if
  /// inexact): rounding that to a format of at most 22 mantissa bits gives
  /// what rounding the f64 once would.
  mlir::Value roundToOddF32(mlir::Value x);

  /// A float (f32 or f64) to i8 holding the low bits of its integer part
  /// (truncated toward zero), as ml_dtypes converts to int4: through i32,
  /// so NaN, infinities and magnitudes of 2^31 and beyond give 0. The caller
  /// wraps the result to the narrow width.
  mlir::Value floatToNarrow(mlir::Value x);

  /// An i8 value wrapped to `element`'s width: sign-extended from its low
  /// bits for i4 and i2, zero-extended for ui4 and ui2.
  mlir::Value wrap(mlir::Value x, mlir::Type element);

  /// The low `element`-width bits of an i8 value, zero-extended (a signed
  /// narrow integer read unsigned).
  mlir::Value lowBits(mlir::Value x, mlir::Type element);

private:
  /// ONNX's to_float8e8m0 on the f32 bits: the exponent field, rounded up
  /// by the mantissa (up: any bit; nearest: the guard bit with a round,
  /// sticky or nonzero exponent; down: never), not past 0xFE when
  /// saturating; NaN and infinities give 0xFF. The sign is ignored.
  mlir::Value encodeE8M0(mlir::Value bits, bool saturate,
                         fd::RoundMode roundMode);

  mlir::Type i32();
  mlir::Type vectorOf(mlir::Type element) const;
  mlir::TypedAttr splat(mlir::TypedAttr attr);
  mlir::Value c32(uint32_t value);
  mlir::Value c8(uint32_t value);
  mlir::Value f32(double value);
  mlir::Value toI32(mlir::Value x);
  mlir::Value toF32(mlir::Value x);
  mlir::Value toI8(mlir::Value x);
  mlir::Value shl(mlir::Value x, unsigned n);
  mlir::Value shrui(mlir::Value x, unsigned n);
  mlir::Value andi(mlir::Value x, uint32_t mask);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, uint32_t value);
  mlir::Value eq(mlir::Value x, uint32_t v);
  mlir::Value ne(mlir::Value x, uint32_t v);
  mlir::Value ult(mlir::Value x, uint32_t v);
  mlir::Value ugt(mlir::Value x, uint32_t v);
  mlir::Value uge(mlir::Value x, uint32_t v);
  mlir::Value select(mlir::Value condition, mlir::Value x, mlir::Value y);

  mlir::OpBuilder &b;
  mlir::Location loc;
  unsigned width;
};

} // namespace lowp
} // namespace fuse

#endif // FUSE_COMPILER_LOWPRECISIONCODEC_H
