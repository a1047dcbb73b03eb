//===- ScalarLowering.h - Element ops in arith, host and GPU alike -*- C++
//-*-===//
//
// What the host and GPU code generators share below the index: how a fuse
// element type sits in memory and which type arithmetic runs in, and the
// lowering of one element op to arith, math and scf ops on scalars or on
// vectors of `width` lanes alike (compares, casts with their saturation,
// integer division and remainder with safe divisors, the float floor-mod,
// integer pow). The region emitter of both targets (RegionEmitter.h)
// derives from ScalarLowering.
//
// It must never hold what only one target can compile: the host's
// polynomial approximations and vector widths stay in HostRegionEmitter.h,
// the GPU's libdevice calls and NVVM specifics in GpuRegionEmitter.h. Error
// messages name the target, so a lowering here that has nothing to emit
// returns a null Value and the emitter reports.
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_SCALARLOWERING_H
#define FUSE_COMPILER_SCALARLOWERING_H

#include "compiler/common/LowPrecisionCodec.h"
#include "dialect/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

namespace fuse {
namespace codegen {

namespace fd = mlir::fuse;

using lowp::isLowPrecisionFloat;
using lowp::isNarrowInteger;

inline int64_t numElements(mlir::Type type) {
  return mlir::cast<mlir::RankedTensorType>(type).getNumElements();
}

inline mlir::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  return mlir::cast<mlir::RankedTensorType>(value.getType()).getShape();
}

inline mlir::Type elementTypeOf(mlir::Value value) {
  return mlir::cast<mlir::RankedTensorType>(value.getType()).getElementType();
}

/// f16, bf16 and the f8 and f4 types are storage types: arithmetic runs in
/// f32. arith, vector and llvm take signless integers only: the ui types
/// compute in iN, and every lowering where signedness matters asks
/// isUnsignedElement of the fuse type. The narrow integers compute in i8,
/// wrapped to their width after every op (LowPrecisionCodec.h).
inline mlir::Type computeType(mlir::Type element) {
  if (element.isF16() || element.isBF16() || isLowPrecisionFloat(element))
    return mlir::Float32Type::get(element.getContext());
  if (isNarrowInteger(element))
    return mlir::IntegerType::get(element.getContext(), 8);
  if (element.isUnsignedInteger())
    return mlir::IntegerType::get(element.getContext(),
                                  element.getIntOrFloatBitWidth());
  return element;
}

/// The ui types: every op reads their bits unsigned.
inline bool isUnsignedElement(mlir::Type element) {
  return element.isUnsignedInteger();
}

/// How an element sits in memory: i1, the narrow integers and the f8 and f4
/// types as a byte, bf16 as its bits, ui as signless iN.
inline mlir::Type storageType(mlir::Type element) {
  if (element.isInteger(1) || isNarrowInteger(element) ||
      isLowPrecisionFloat(element))
    return mlir::IntegerType::get(element.getContext(), 8);
  if (element.isBF16())
    return mlir::IntegerType::get(element.getContext(), 16);
  if (element.isUnsignedInteger())
    return mlir::IntegerType::get(element.getContext(),
                                  element.getIntOrFloatBitWidth());
  return element;
}

inline unsigned storageBytes(mlir::Type element) {
  return std::max(1u, storageType(element).getIntOrFloatBitWidth() / 8);
}

/// Element ops on scalars (width 1) or vectors of `width` lanes, at one
/// builder position and location, for the target named `target` ("host",
/// "GPU") in error messages. A target adds its own lowerings through
/// lowerTargetFloatOp and lowerTargetIntegerOp.
class ScalarLowering {
public:
  ScalarLowering(mlir::OpBuilder &b, mlir::Location loc, unsigned width,
                 mlir::StringRef target)
      : b(b), loc(loc), width(width), target(target) {}
  virtual ~ScalarLowering() = default;

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }

  /// Float adds and multiplies may fuse into one FMA (fastmath contract),
  /// rounded once instead of twice: set by a host window kernel, whose
  /// depthwise convolution is a sum of products (half its vector ops).
  bool contractsProducts = false;

  /// "cannot be generated for the <target> in a <schedule> kernel: <why>".
  mlir::LogicalResult unsupported(mlir::Operation *op, const mlir::Twine &why);

  mlir::Type vectorOf(mlir::Type element) const {
    return width == 1 ? element : mlir::VectorType::get({width}, element);
  }

  mlir::Value constant(mlir::Type element, double value);

  mlir::Value integerConstant(mlir::Type element, const mlir::APInt &value);

  /// A scalar i64, whatever the width (positions, loop bounds).
  mlir::Value i64(int64_t value) {
    return mlir::arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  }

  /// A vector of `width` lanes, whatever the width.
  mlir::Value constantVector(mlir::Type element, int64_t value);

  /// [0, 1, ..., W-1] as i64 lanes.
  mlir::Value laneSteps();

  lowp::LowPrecisionCodec codec() { return {b, loc, width}; }

  /// A value loaded in `element`'s storage type, in its compute type.
  mlir::Value toCompute(mlir::Value stored, mlir::Type element);

  /// A value in `element`'s compute type, in its storage type.
  mlir::Value toStorage(mlir::Value computed, mlir::Type element);

  /// A splat fuse.constant in its compute type; dense data is refused.
  mlir::FailureOr<mlir::Value> lowerConstant(fd::ConstantOp op);

  /// An elementwise op on its operands (in their compute types): cast,
  /// compare and select, then the target's own lowering of the op where it
  /// has one, then the shared one. A narrow integer result is wrapped to
  /// its width.
  mlir::FailureOr<mlir::Value> lowerElementwise(mlir::Operation *op,
                                                mlir::ArrayRef<mlir::Value> x);

  /// The target's lowering of a float op (`compute` the operands' type);
  /// null where the shared one applies.
  virtual mlir::Value lowerTargetFloatOp(mlir::Operation *op,
                                         mlir::StringRef name,
                                         mlir::ArrayRef<mlir::Value> x,
                                         mlir::Type compute) {
    return {};
  }

  /// The target's lowering of an integer op (`operandElement` the fuse type
  /// of its operands); null where the shared one applies.
  virtual mlir::Value lowerTargetIntegerOp(mlir::Operation *op,
                                           mlir::StringRef name,
                                           mlir::ArrayRef<mlir::Value> x,
                                           mlir::Type operandElement) {
    return {};
  }

  /// A splat constant of `element` in its compute type.
  mlir::Value splatConstant(mlir::DenseElementsAttr dense, mlir::Type element);

  /// The float ops that every target lowers alike; null for the others
  /// (exp, log, sigmoid and the rest of the transcendentals are the
  /// target's).
  mlir::Value lowerFloatOp(mlir::Operation *op, mlir::ArrayRef<mlir::Value> x,
                           mlir::Type compute);

  /// The integer ops that every target lowers alike, `operandElement` the
  /// fuse type of the operands; null for the others (abs, pow).
  mlir::Value lowerIntegerOp(mlir::Operation *op, mlir::ArrayRef<mlir::Value> x,
                             mlir::Type operandElement);

  /// Null for a float predicate that has no ordered form.
  mlir::Value lowerCompare(fd::CompareOp op, mlir::Value lhs, mlir::Value rhs,
                           mlir::Type compute, bool isUnsigned);

  /// fuse.cast on `x` (in the operand's compute type); null where there is
  /// no lowering.
  mlir::Value lowerCast(fd::CastOp op, mlir::Value x);

  /// fmod (arith.remf: the target lowers it exactly, see the emitters), or
  /// without `fmod` the floor-mod of the reference: a nonzero remainder
  /// takes the divisor's sign, a zero one is a zero of the divisor's sign.
  mlir::Value lowerFloatRem(mlir::Value lhs, mlir::Value rhs,
                            mlir::Type compute, bool fmod);

  /// Truncating; a division by 0 is 0 and a signed one by -1 the wrapped
  /// negation (divsi would overflow for the minimum), as the reference
  /// runtime computes them.
  mlir::Value lowerIntDiv(mlir::Value lhs, mlir::Value rhs, mlir::Type compute,
                          bool isUnsigned);

  /// A remainder by 0 (and a signed one by -1, which overflows for the
  /// minimum) is 0; without `fmod` a signed result takes the divisor's sign.
  mlir::Value lowerIntRem(mlir::Value lhs, mlir::Value rhs, mlir::Type compute,
                          bool isUnsigned, bool fmod);

  /// Exact, wrapping: squaring over the exponent's bits. A negative
  /// exponent gives 0 unless the base is 1 (1) or -1 (-1 or 1 by parity); a
  /// ui exponent is never negative.
  mlir::Value lowerIntPow(mlir::Value base, mlir::Value exponent,
                          mlir::Type compute, bool isUnsigned);

  /// Truncates toward zero, saturating at the integer's limits (0 and
  /// 2^n - 1 for a ui type, `isUnsigned`); NaN gives 0. fptosi and fptoui
  /// alone would give poison out of range.
  mlir::Value lowerSaturatingCast(mlir::Value x, mlir::Type from, mlir::Type to,
                                  bool isUnsigned);

private:
  mlir::FailureOr<mlir::Value>
  lowerElementwiseOp(mlir::Operation *op, mlir::ArrayRef<mlir::Value> x);

protected:
  mlir::OpBuilder &b;
  mlir::Location loc;
  unsigned width;
  mlir::StringRef target;
};

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_SCALARLOWERING_H
