//===- LowPrecisionFloat.h - The f8 and f4 float formats --------*- C++ -*-===//
//
// Decoding and encoding of the f8 and f4 storage formats, as ONNX defines
// them (onnx.proto; the numbers of onnx.reference come from ml_dtypes):
//
//   format      exp man bias  largest  zero  inf  NaN
//   f8E4M3FN     4   3   7     448     +-0   no   S.1111.111
//   f8E4M3FNUZ   4   3   8     240     +0    no   0x80
//   f8E5M2       5   2  15   57344     +-0   yes  S.11111.mm (mm != 0)
//   f8E5M2FNUZ   5   2  16   57344     +0    no   0x80
//   f8E8M0FNU    8   0 127   2^127     none  no   0xFF (no sign bit:
//                                                  2^(e - 127))
//   f4E2M1FN     2   1   1       6     +-0   no   none (low four bits)
//
// Subnormals (exponent field 0) are mantissa * 2^(1 - bias - man) in every
// format but f8E8M0FNU. Decoding is exact; encoding rounds to nearest even
// from the exact double (once: a double is never rounded to f32 on the way,
// except for f8E8M0FNU, which ONNX defines on the f32's bits). ml_dtypes,
// and so onnx.reference, converts an f64 through f32 first, which differs
// only for f64 values within 2^-24 (relative) of a tie; from f32, f16 and
// bf16 the two agree. What happens to values out of range, infinities and
// NaN is documented in ElementType.h (casts).
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_LOWPRECISIONFLOAT_H
#define FUSE_RUNTIME_IR_LOWPRECISIONFLOAT_H

#include "runtime/ir/ElementType.h"

#include <cstdint>

namespace fuse {

/// The value of the bits of an f8/f4 type (f4E2M1FN: the low four bits;
/// the high four are ignored). NaN keeps the sign bit where the format has
/// one; the FNUZ NaN (0x80) reads negative and f8E8M0FNU's positive, as in
/// ml_dtypes.
double lowPrecisionToDouble(ElementType type, std::uint8_t bits);

/// The bits nearest to `value` (ties to even) in an f8/f4 type, with the
/// specials of ElementType.h. f8E8M0FNU goes through the f32 nearest to
/// `value` (see floatToF8E8M0).
std::uint8_t doubleToLowPrecision(ElementType type, double value,
                                  const CastOptions &options = {});

/// f8E8M0FNU from an f32, as onnx.numpy_helper.to_float8e8m0: the biased
/// exponent of `value`, rounded by `roundMode` on its fraction bits; NaN and
/// infinities give 0xFF; the sign is ignored. `saturate` keeps 2^127 from
/// rounding up to 0xFF.
std::uint8_t floatToF8E8M0(float value, bool saturate, E8M0RoundMode roundMode);

/// The largest finite value of an f8/f4 type.
double lowPrecisionMax(ElementType type);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_LOWPRECISIONFLOAT_H
