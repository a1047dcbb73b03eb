//===- ElementType.h - Tensor element types ---------------------*- C++ -*-===//
//
// The element types of Fuse tensors (generated from FUSE_ELEMENT_TYPE in
// Ops.def), their storage sizes and names, and exact conversions between
// double and the narrow float formats. The reference interpreter computes
// floats in double and rounds once to the storage type, so these conversions
// round to nearest, ties to even, straight from the exact value (never
// through float, which would round twice).
//
// Storage: every type is little-endian; i1 takes one byte holding 0 or 1;
// f16 is IEEE binary16, bf16 the upper half of an IEEE binary32. The f8
// types take one byte holding the format's bits, f4E2M1FN one byte with its
// bits in the low four (the high four zero); i4 and i2 one byte holding the
// value sign-extended, ui4 and ui2 one byte holding it zero-extended (ONNX
// packs them; the importer unpacks). The f8/f4 formats are in
// LowPrecisionFloat.h.
//
// Casts to the narrow types follow ONNX's reference (onnx.reference, whose
// numbers come from ml_dtypes):
//   - float -> f8: round to nearest even; out of range (and +-inf) gives
//     infinity (f8E5M2), NaN (f8E4M3FN: 0x7F with the sign; the FNUZ types:
//     0x80), or with CastOptions::saturate the largest finite value of its
//     sign. NaN stays NaN. The FNUZ types have no negative zero: -0 and
//     negative values that round to zero give +0.
//   - float -> f4E2M1FN: round to nearest even and always saturate (+-6);
//     NaN, which f4E2M1FN lacks, gives a zero of the opposite sign (as
//     ml_dtypes does).
//   - float -> f8E8M0FNU (ONNX Cast-24): the value is rounded to f32 first;
//     the f32's biased exponent is the result, incremented by
//     CastOptions::roundMode (up: when any fraction bit is set; down: never;
//     nearest: as onnx.numpy_helper.to_float8e8m0), the sign is dropped;
//     NaN and infinities give 0xFF (NaN), as does rounding 2^127 up unless
//     `saturate`. Zero gives 2^-127 (0x00).
//   - float -> i4, ui4, i2, ui2: truncate toward zero through a 32-bit
//     integer and keep the low bits (ml_dtypes on x86-64: NaN, infinities
//     and values outside [-2^31, 2^31) give 0): they wrap, where the wider
//     integers saturate.
//   - integer -> any of them: integers wrap to the width; to f8/f4 the
//     integer converts as the float of its value would (to f8E8M0FNU through
//     the nearest f32).
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_ELEMENTTYPE_H
#define FUSE_RUNTIME_IR_ELEMENTTYPE_H

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fuse {

enum class ElementType : std::uint8_t {
#define FUSE_ELEMENT_TYPE(Name, mnemonic, bytes) Name,
#include "runtime/ir/Ops.def"
};

/// Every element type, in Ops.def order.
std::span<const ElementType> allElementTypes();

/// Bytes one element takes in a buffer.
std::int64_t byteSize(ElementType type);
/// The mnemonic: "f32", "bf16", "i1", ...
std::string_view elementTypeName(ElementType type);
std::optional<ElementType> parseElementType(std::string_view name);

/// f16, bf16, f32, f64 and the f8/f4 storage formats.
bool isFloat(ElementType type);
/// The f8 and f4 formats: f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ,
/// f8E8M0FNU, f4E2M1FN (storage types: no arithmetic on them in the
/// dialect).
bool isLowPrecisionFloat(ElementType type);
/// i1, i2, i4, i8, i16, i32, i64 and ui2 .. ui64.
bool isInteger(ElementType type);
/// ui2, ui4, ui8, ui16, ui32, ui64: integers whose bits read unsigned. (i1
/// reads as 0 or 1 but is not one of them: it is the boolean type.)
bool isUnsignedInteger(ElementType type);
/// Bits of an integer type (1, 2, 4, 8, 16, 32, 64); 0 for floats.
unsigned integerBitWidth(ElementType type);

double f16ToDouble(std::uint16_t bits);
double bf16ToDouble(std::uint16_t bits);
/// Round to nearest, ties to even; overflow gives infinity, NaN stays a
/// (quiet) NaN with its sign.
std::uint16_t doubleToF16(double value);
std::uint16_t doubleToBF16(double value);

/// The float nearest to the exact integer (ties to even), for any target
/// float type: its bit pattern in the low bits. Integer to float casts go
/// through here so that i64 -> bf16 rounds once, not twice. (f8/f4 targets
/// as a cast without attributes converts.)
std::uint64_t int64ToFloatBits(std::int64_t value, ElementType floatType);
std::uint64_t uint64ToFloatBits(std::uint64_t value, ElementType floatType);

/// Element `index` of a buffer of `type`. Floats read exactly; integers
/// sign-extend (loadUnsigned: zero-extend), except the ui types, which
/// zero-extend in both (a ui64 above INT64_MAX comes back from loadInt as its
/// two's-complement bit pattern); i1 reads as 0 or 1 either way. loadDouble
/// reads the ui types unsigned. i4, ui4, i2, ui2 read their low bits (so
/// loadUnsigned of an i4 -1 is 15). loadInt of a float truncates toward
/// zero, saturating.
double loadDouble(ElementType type, const void *data, std::int64_t index);
std::int64_t loadInt(ElementType type, const void *data, std::int64_t index);
std::uint64_t loadUnsigned(ElementType type, const void *data,
                           std::int64_t index);

/// How a cast to f8E8M0FNU rounds (ONNX Cast-24 `round_mode`).
enum class E8M0RoundMode : std::uint8_t { Up, Down, Nearest };

/// The attributes of a cast that matter to the f8 targets; the defaults are
/// a cast without them.
struct CastOptions {
  /// f8 targets: out-of-range values and infinities give the largest finite
  /// value of their sign instead of infinity or NaN.
  bool saturate = false;
  /// f8E8M0FNU targets only.
  E8M0RoundMode roundMode = E8M0RoundMode::Up;
};

/// Stores as cast converts: to floats rounding to nearest even (the f8/f4
/// types as the header comment says); to integers truncating toward zero,
/// saturating to the type's range (0 .. 2^n - 1 for the ui types), NaN -> 0,
/// except i4, ui4, i2, ui2, which wrap; to i1 as `value != 0`.
void storeDouble(ElementType type, void *data, std::int64_t index, double value,
                 const CastOptions &options = {});
/// Stores an integer: to integers wrapping to the width (i1: `value != 0`);
/// to floats rounding once to nearest even.
void storeInt(ElementType type, void *data, std::int64_t index,
              std::int64_t value, const CastOptions &options = {});
void storeUnsigned(ElementType type, void *data, std::int64_t index,
                   std::uint64_t value, const CastOptions &options = {});

} // namespace fuse

#endif // FUSE_RUNTIME_IR_ELEMENTTYPE_H
