//===- ElementType.h - Tensor element types ---------------------*- C++ -*-===//
//
// The element types of Fuse tensors (generated from FUSE_ELEMENT_TYPE in
// Ops.def), their storage sizes and names, and exact conversions between
// double and the 16-bit float formats. The reference interpreter computes
// floats in double and rounds once to the storage type, so these conversions
// round to nearest, ties to even, straight from the exact value (never
// through float, which would round twice).
//
// Storage: every type is little-endian; i1 takes one byte holding 0 or 1;
// f16 is IEEE binary16, bf16 the upper half of an IEEE binary32.
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
/// i1, i2, i4, i8, i16, i32, i64 and ui2 .. ui64.
bool isInteger(ElementType type);
/// ui2, ui4, ui8, ui16, ui32, ui64: integers whose bits read unsigned. (i1 reads as 0
/// or 1 but is not one of them: it is the boolean type.)
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
/// float type: bit pattern of an f16/bf16/f32/f64 in the low bits. Integer to
/// float casts go through here so that i64 -> bf16 rounds once, not twice.
std::uint64_t int64ToFloatBits(std::int64_t value, ElementType floatType);
std::uint64_t uint64ToFloatBits(std::uint64_t value, ElementType floatType);

/// Element `index` of a buffer of `type`. Floats read exactly; integers
/// sign-extend (loadUnsigned: zero-extend), except the ui types, which
/// zero-extend in both (a ui64 above INT64_MAX comes back from loadInt as its
/// two's-complement bit pattern); i1 reads as 0 or 1 either way. loadDouble
/// reads the ui types unsigned.
double loadDouble(ElementType type, const void *data, std::int64_t index);
std::int64_t loadInt(ElementType type, const void *data, std::int64_t index);
std::uint64_t loadUnsigned(ElementType type, const void *data,
                           std::int64_t index);

/// Stores as cast converts: to floats rounding to nearest even; to integers
/// truncating toward zero, saturating to the type's range (0 .. 2^n - 1 for
/// the ui types), NaN -> 0; to i1 as `value != 0`.
void storeDouble(ElementType type, void *data, std::int64_t index,
                 double value);
/// Stores an integer: to integers wrapping to the width (i1: `value != 0`);
/// to floats rounding once to nearest even.
void storeInt(ElementType type, void *data, std::int64_t index,
              std::int64_t value);
void storeUnsigned(ElementType type, void *data, std::int64_t index,
                   std::uint64_t value);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_ELEMENTTYPE_H
