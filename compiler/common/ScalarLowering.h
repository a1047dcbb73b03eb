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

using namespace mlir;
namespace fd = mlir::fuse;

using lowp::isLowPrecisionFloat;
using lowp::isNarrowInteger;

inline int64_t numElements(Type type) {
  return cast<RankedTensorType>(type).getNumElements();
}

inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

inline Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// f16, bf16 and the f8 and f4 types are storage types: arithmetic runs in
/// f32. arith, vector and llvm take signless integers only: the ui types
/// compute in iN, and every lowering where signedness matters asks
/// isUnsignedElement of the fuse type. The narrow integers compute in i8,
/// wrapped to their width after every op (LowPrecisionCodec.h).
inline Type computeType(Type element) {
  if (element.isF16() || element.isBF16() || isLowPrecisionFloat(element))
    return Float32Type::get(element.getContext());
  if (isNarrowInteger(element))
    return IntegerType::get(element.getContext(), 8);
  if (element.isUnsignedInteger())
    return IntegerType::get(element.getContext(),
                            element.getIntOrFloatBitWidth());
  return element;
}

/// The ui types: every op reads their bits unsigned.
inline bool isUnsignedElement(Type element) {
  return element.isUnsignedInteger();
}

/// How an element sits in memory: i1, the narrow integers and the f8 and f4
/// types as a byte, bf16 as its bits, ui as signless iN.
inline Type storageType(Type element) {
  if (element.isInteger(1) || isNarrowInteger(element) ||
      isLowPrecisionFloat(element))
    return IntegerType::get(element.getContext(), 8);
  if (element.isBF16())
    return IntegerType::get(element.getContext(), 16);
  if (element.isUnsignedInteger())
    return IntegerType::get(element.getContext(),
                            element.getIntOrFloatBitWidth());
  return element;
}

inline unsigned storageBytes(Type element) {
  return std::max(1u, storageType(element).getIntOrFloatBitWidth() / 8);
}

/// Element ops on scalars (width 1) or vectors of `width` lanes, at one
/// builder position and location, for the target named `target` ("host",
/// "GPU") in error messages. A target adds its own lowerings through
/// lowerTargetFloatOp and lowerTargetIntegerOp.
class ScalarLowering {
public:
  ScalarLowering(OpBuilder &b, Location loc, unsigned width, StringRef target)
      : b(b), loc(loc), width(width), target(target) {}
  virtual ~ScalarLowering() = default;

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

  /// "cannot be generated for the <target> in a <schedule> kernel: <why>".
  LogicalResult unsupported(Operation *op, const Twine &why) {
    auto fusion = op->getParentOfType<fd::FusionOp>();
    std::string kind =
        fusion ? stringifyScheduleKind(fusion.getKind()).str() : "unknown";
    return op->emitOpError() << "cannot be generated for the " << target
                             << " in a " << kind << " kernel: " << why;
  }

  Type vectorOf(Type element) const {
    return width == 1 ? element : VectorType::get({width}, element);
  }

  Value constant(Type element, double value) {
    Type type = vectorOf(element);
    TypedAttr attr;
    if (isa<FloatType>(element))
      attr = b.getFloatAttr(element, value);
    else
      attr = b.getIntegerAttr(element, int64_t(value));
    if (width != 1)
      attr =
          DenseElementsAttr::get(cast<ShapedType>(type), mlir::Attribute(attr));
    return arith::ConstantOp::create(b, loc, type, attr);
  }

  Value integerConstant(Type element, const APInt &value) {
    Type type = vectorOf(element);
    TypedAttr attr = IntegerAttr::get(element, value);
    if (width != 1)
      attr =
          DenseElementsAttr::get(cast<ShapedType>(type), mlir::Attribute(attr));
    return arith::ConstantOp::create(b, loc, type, attr);
  }

  /// A scalar i64, whatever the width (positions, loop bounds).
  Value i64(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  }

  /// A vector of `width` lanes, whatever the width.
  Value constantVector(Type element, int64_t value) {
    auto type = VectorType::get({width}, element);
    return arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getIntegerAttr(element, value)));
  }

  /// [0, 1, ..., W-1] as i64 lanes.
  Value laneSteps() {
    SmallVector<int64_t> steps;
    for (unsigned lane = 0; lane < width; ++lane)
      steps.push_back(lane);
    auto type = VectorType::get({width}, b.getI64Type());
    return arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef(steps)));
  }

  lowp::LowPrecisionCodec codec() { return {b, loc, width}; }

  /// A value loaded in `element`'s storage type, in its compute type.
  Value toCompute(Value stored, Type element) {
    if (isLowPrecisionFloat(element))
      return codec().decode(stored, element);
    if (isNarrowInteger(element))
      return codec().wrap(stored, element);
    if (element.isInteger(1))
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, stored,
                                   constant(b.getI8Type(), 0));
    if (element.isF16())
      return arith::ExtFOp::create(b, loc, vectorOf(b.getF32Type()), stored);
    if (element.isBF16()) {
      Value wide =
          arith::ExtUIOp::create(b, loc, vectorOf(b.getI32Type()), stored);
      Value shifted =
          arith::ShLIOp::create(b, loc, wide, constant(b.getI32Type(), 16));
      return arith::BitcastOp::create(b, loc, vectorOf(b.getF32Type()),
                                      shifted);
    }
    return stored;
  }

  /// A value in `element`'s compute type, in its storage type.
  Value toStorage(Value computed, Type element) {
    // Values of a narrow float are exact (a cast quantized them), and
    // narrow integers are wrapped: the default encoding keeps them.
    if (isLowPrecisionFloat(element))
      return codec().encode(computed, element, /*saturate=*/false);
    if (element.isInteger(1))
      return arith::ExtUIOp::create(b, loc, vectorOf(b.getI8Type()), computed);
    if (element.isF16())
      return arith::TruncFOp::create(b, loc, vectorOf(element), computed);
    if (element.isBF16()) {
      // Round to nearest even on the bits; NaN stays a quiet NaN.
      Type i32 = b.getI32Type();
      Value bits = arith::BitcastOp::create(b, loc, vectorOf(i32), computed);
      Value lsb = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, bits, constant(i32, 16)),
          constant(i32, 1));
      Value rounded = arith::AddIOp::create(
          b, loc, bits,
          arith::AddIOp::create(b, loc, lsb, constant(i32, 0x7fff)));
      Value high = arith::ShRUIOp::create(b, loc, rounded, constant(i32, 16));
      Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          computed, computed);
      Value chosen =
          arith::SelectOp::create(b, loc, isNaN, constant(i32, 0x7fc0), high);
      return arith::TruncIOp::create(b, loc, vectorOf(b.getI16Type()), chosen);
    }
    return computed;
  }

  /// A splat fuse.constant in its compute type; dense data is refused.
  FailureOr<Value> lowerConstant(fd::ConstantOp op) {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return unsupported(op, "only splat constants are supported; pass "
                             "dense data as a graph input");
    return splatConstant(dense, elementTypeOf(op.getResult()));
  }

  /// An elementwise op on its operands (in their compute types): cast,
  /// compare and select, then the target's own lowering of the op where it
  /// has one, then the shared one. A narrow integer result is wrapped to
  /// its width.
  FailureOr<Value> lowerElementwise(Operation *op, ArrayRef<Value> x) {
    FailureOr<Value> result = lowerElementwiseOp(op, x);
    Type resultElement = elementTypeOf(op->getResult(0));
    if (succeeded(result) && isNarrowInteger(resultElement))
      return codec().wrap(*result, resultElement);
    return result;
  }

  /// The target's lowering of a float op (`compute` the operands' type);
  /// null where the shared one applies.
  virtual Value lowerTargetFloatOp(Operation *op, StringRef name,
                                   ArrayRef<Value> x, Type compute) {
    return {};
  }

  /// The target's lowering of an integer op (`operandElement` the fuse type
  /// of its operands); null where the shared one applies.
  virtual Value lowerTargetIntegerOp(Operation *op, StringRef name,
                                     ArrayRef<Value> x, Type operandElement) {
    return {};
  }

  /// A splat constant of `element` in its compute type.
  Value splatConstant(DenseElementsAttr dense, Type element) {
    Type compute = computeType(element);
    double value;
    if (isa<FloatType>(element))
      value = dense.getSplatValue<APFloat>().convertToDouble();
    else if (element.isInteger(1))
      value = dense.getSplatValue<bool>() ? 1 : 0;
    else if (isNarrowInteger(element) && element.isUnsignedInteger())
      value = double(dense.getSplatValue<APInt>().getZExtValue());
    else
      value = double(dense.getSplatValue<APInt>().getSExtValue());
    if (isa<IntegerType>(element) && element.getIntOrFloatBitWidth() == 64) {
      // The bits, also for a ui64 above INT64_MAX.
      int64_t exact = dense.getSplatValue<APInt>().getSExtValue();
      Type type = vectorOf(compute);
      TypedAttr attr = b.getIntegerAttr(compute, exact);
      if (width != 1)
        attr = DenseElementsAttr::get(cast<ShapedType>(type),
                                      mlir::Attribute(attr));
      return arith::ConstantOp::create(b, loc, type, attr);
    }
    return constant(compute, value);
  }

  /// The float ops that every target lowers alike; null for the others
  /// (exp, log, sigmoid and the rest of the transcendentals are the
  /// target's).
  Value lowerFloatOp(Operation *op, ArrayRef<Value> x, Type compute) {
    StringRef name = op->getName().stripDialect();
    auto one = [&] { return constant(compute, 1.0); };
    auto zero = [&] { return constant(compute, 0.0); };
    if (name == "neg")
      return arith::NegFOp::create(b, loc, x[0]);
    if (name == "abs")
      return math::AbsFOp::create(b, loc, x[0]);
    if (name == "tanh")
      return math::TanhOp::create(b, loc, x[0]);
    if (name == "erf")
      return math::ErfOp::create(b, loc, x[0]);
    if (name == "sin")
      return math::SinOp::create(b, loc, x[0]);
    if (name == "cos")
      return math::CosOp::create(b, loc, x[0]);
    if (name == "tan")
      return math::TanOp::create(b, loc, x[0]);
    if (name == "sqrt")
      return math::SqrtOp::create(b, loc, x[0]);
    if (name == "rsqrt")
      return arith::DivFOp::create(b, loc, one(),
                                   math::SqrtOp::create(b, loc, x[0]));
    if (name == "reciprocal")
      return arith::DivFOp::create(b, loc, one(), x[0]);
    if (name == "floor")
      return math::FloorOp::create(b, loc, x[0]);
    if (name == "ceil")
      return math::CeilOp::create(b, loc, x[0]);
    if (name == "round")
      return math::RoundEvenOp::create(b, loc, x[0]);
    if (name == "sign") {
      Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x[0],
                                        zero());
      Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0],
                                        zero());
      Value inner =
          arith::SelectOp::create(b, loc, neg, constant(compute, -1.0), x[0]);
      return arith::SelectOp::create(b, loc, pos, one(), inner);
    }
    if (name == "isnan")
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x[0],
                                   x[0]);
    if (name == "isinf")
      return arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, loc, x[0]),
          constant(compute, std::numeric_limits<double>::infinity()));
    if (name == "add")
      return arith::AddFOp::create(b, loc, x[0], x[1]);
    if (name == "sub")
      return arith::SubFOp::create(b, loc, x[0], x[1]);
    if (name == "mul")
      return arith::MulFOp::create(b, loc, x[0], x[1]);
    if (name == "div")
      return arith::DivFOp::create(b, loc, x[0], x[1]);
    if (name == "max")
      return arith::MaximumFOp::create(b, loc, x[0], x[1]);
    if (name == "min")
      return arith::MinimumFOp::create(b, loc, x[0], x[1]);
    if (auto rem = dyn_cast<fd::RemOp>(op))
      return lowerFloatRem(x[0], x[1], compute, rem.getFmod());
    return {};
  }

  /// The integer ops that every target lowers alike, `operandElement` the
  /// fuse type of the operands; null for the others (abs, pow).
  Value lowerIntegerOp(Operation *op, ArrayRef<Value> x, Type operandElement) {
    StringRef name = op->getName().stripDialect();
    Type compute = computeType(operandElement);
    bool isBool = compute.isInteger(1);
    if (name == "and")
      return arith::AndIOp::create(b, loc, x[0], x[1]);
    if (name == "or")
      return arith::OrIOp::create(b, loc, x[0], x[1]);
    if (name == "xor")
      return arith::XOrIOp::create(b, loc, x[0], x[1]);
    if (name == "not")
      return arith::XOrIOp::create(b, loc, x[0],
                                   constant(compute, isBool ? 1 : -1));
    if (isBool)
      return {};
    bool isUnsigned = isUnsignedElement(operandElement);
    auto zero = [&] { return constant(compute, 0.0); };
    if (name == "add")
      return arith::AddIOp::create(b, loc, x[0], x[1]);
    if (name == "sub")
      return arith::SubIOp::create(b, loc, x[0], x[1]);
    if (name == "mul")
      return arith::MulIOp::create(b, loc, x[0], x[1]);
    if (name == "max")
      return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x[0], x[1]))
                        : Value(arith::MaxSIOp::create(b, loc, x[0], x[1]));
    if (name == "min")
      return isUnsigned ? Value(arith::MinUIOp::create(b, loc, x[0], x[1]))
                        : Value(arith::MinSIOp::create(b, loc, x[0], x[1]));
    if (name == "neg")
      return arith::SubIOp::create(b, loc, zero(), x[0]);
    if (name == "sign" && isUnsigned)
      return arith::ExtUIOp::create(
          b, loc, x[0].getType(),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x[0],
                                zero()));
    // An i4 or i2 divided with `is_unsigned` reads its low bits.
    auto readUnsigned = [&](bool flag) {
      if (flag && !isUnsigned && isNarrowInteger(operandElement))
        return SmallVector<Value>{codec().lowBits(x[0], operandElement),
                                  codec().lowBits(x[1], operandElement)};
      return SmallVector<Value>{x[0], x[1]};
    };
    if (auto div = dyn_cast<fd::DivOp>(op)) {
      SmallVector<Value> y = readUnsigned(div.getIsUnsigned());
      return lowerIntDiv(y[0], y[1], compute,
                         isUnsigned || div.getIsUnsigned());
    }
    if (auto rem = dyn_cast<fd::RemOp>(op)) {
      SmallVector<Value> y = readUnsigned(rem.getIsUnsigned());
      return lowerIntRem(y[0], y[1], compute, isUnsigned || rem.getIsUnsigned(),
                         rem.getFmod());
    }
    return {};
  }

  /// Null for a float predicate that has no ordered form.
  Value lowerCompare(fd::CompareOp op, Value lhs, Value rhs, Type compute,
                     bool isUnsigned) {
    StringRef predicate = stringifyComparePredicate(op.getPredicate());
    if (isa<FloatType>(compute)) {
      std::optional<arith::CmpFPredicate> p =
          llvm::StringSwitch<std::optional<arith::CmpFPredicate>>(predicate)
              .Case("eq", arith::CmpFPredicate::OEQ)
              .Case("ne", arith::CmpFPredicate::UNE)
              .Case("lt", arith::CmpFPredicate::OLT)
              .Case("le", arith::CmpFPredicate::OLE)
              .Case("gt", arith::CmpFPredicate::OGT)
              .Case("ge", arith::CmpFPredicate::OGE)
              .Default(std::nullopt);
      if (!p)
        return {};
      return arith::CmpFOp::create(b, loc, *p, lhs, rhs);
    }
    // i1 compares as 0 < 1 under every predicate, and the ui types compare
    // unsigned: read them unsigned.
    bool isBool = compute.isInteger(1) || isUnsigned;
    auto p = llvm::StringSwitch<arith::CmpIPredicate>(predicate)
                 .Case("eq", arith::CmpIPredicate::eq)
                 .Case("ne", arith::CmpIPredicate::ne)
                 .Case("lt", isBool ? arith::CmpIPredicate::ult
                                    : arith::CmpIPredicate::slt)
                 .Case("le", isBool ? arith::CmpIPredicate::ule
                                    : arith::CmpIPredicate::sle)
                 .Case("gt", isBool ? arith::CmpIPredicate::ugt
                                    : arith::CmpIPredicate::sgt)
                 .Case("ge", isBool ? arith::CmpIPredicate::uge
                                    : arith::CmpIPredicate::sge)
                 .Case("ult", arith::CmpIPredicate::ult)
                 .Case("ule", arith::CmpIPredicate::ule)
                 .Case("ugt", arith::CmpIPredicate::ugt)
                 .Default(arith::CmpIPredicate::uge);
    return arith::CmpIOp::create(b, loc, p, lhs, rhs);
  }

  /// fuse.cast on `x` (in the operand's compute type); null where there is
  /// no lowering.
  Value lowerCast(fd::CastOp op, Value x) {
    Type from = elementTypeOf(op.getOperand());
    Type to = elementTypeOf(op.getResult());
    Type fromCompute = computeType(from), toCompute = computeType(to);
    Type toType = vectorOf(toCompute);
    bool readUnsigned =
        op.getIsUnsigned() || from.isInteger(1) || isUnsignedElement(from);
    // An i4 or i2 read unsigned: its low bits, zero-extended.
    if (isNarrowInteger(from) && readUnsigned)
      x = codec().lowBits(x, from);
    if (isLowPrecisionFloat(to)) {
      Type f32 = b.getF32Type();
      Value single = x;
      if (isa<IntegerType>(fromCompute))
        single = readUnsigned
                     ? Value(arith::UIToFPOp::create(b, loc, vectorOf(f32), x))
                     : Value(arith::SIToFPOp::create(b, loc, vectorOf(f32), x));
      else if (fromCompute.isF64())
        // ONNX's f8E8M0FNU cast first converts to f32 (to nearest even);
        // the other formats round once from the f64 value.
        single = isa<Float8E8M0FNUType>(to)
                     ? Value(arith::TruncFOp::create(b, loc, vectorOf(f32), x))
                     : codec().roundToOddF32(x);
      return codec().quantize(single, to, op.getSaturate(),
                              op.getEffectiveRoundMode());
    }
    if (isNarrowInteger(to) && isa<FloatType>(fromCompute))
      return codec().floatToNarrow(x);
    if (to.isInteger(1)) {
      if (isa<FloatType>(fromCompute))
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                     constant(fromCompute, 0));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                   constant(fromCompute, 0));
    }
    if (fromCompute == toCompute)
      return x;
    unsigned fromBits = fromCompute.getIntOrFloatBitWidth();
    unsigned toBits = toCompute.getIntOrFloatBitWidth();
    if (isa<FloatType>(fromCompute) && isa<FloatType>(toCompute))
      return fromBits < toBits
                 ? Value(arith::ExtFOp::create(b, loc, toType, x))
                 : Value(arith::TruncFOp::create(b, loc, toType, x));
    if (isa<IntegerType>(fromCompute) && isa<FloatType>(toCompute))
      return readUnsigned ? Value(arith::UIToFPOp::create(b, loc, toType, x))
                          : Value(arith::SIToFPOp::create(b, loc, toType, x));
    if (isa<IntegerType>(fromCompute) && isa<IntegerType>(toCompute)) {
      if (fromBits > toBits)
        return arith::TruncIOp::create(b, loc, toType, x);
      return readUnsigned ? Value(arith::ExtUIOp::create(b, loc, toType, x))
                          : Value(arith::ExtSIOp::create(b, loc, toType, x));
    }
    if (isa<FloatType>(fromCompute) && isa<IntegerType>(toCompute))
      return lowerSaturatingCast(x, fromCompute, toCompute,
                                 isUnsignedElement(to));
    return {};
  }

  /// fmod (arith.remf: the target lowers it exactly, see the emitters), or
  /// without `fmod` the floor-mod of the reference: a nonzero remainder
  /// takes the divisor's sign, a zero one is a zero of the divisor's sign.
  Value lowerFloatRem(Value lhs, Value rhs, Type compute, bool fmod) {
    Value r = arith::RemFOp::create(b, loc, lhs, rhs);
    if (fmod)
      return r;
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
      return Value(arith::CmpFOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0);
    Value signsDiffer =
        arith::XOrIOp::create(b, loc, cmp(arith::CmpFPredicate::OLT, r, zero),
                              cmp(arith::CmpFPredicate::OLT, rhs, zero));
    Value fix = arith::AndIOp::create(
        b, loc, cmp(arith::CmpFPredicate::UNE, r, zero), signsDiffer);
    r = arith::SelectOp::create(b, loc, fix,
                                arith::AddFOp::create(b, loc, r, rhs), r);
    return arith::SelectOp::create(
        b, loc, cmp(arith::CmpFPredicate::OEQ, r, zero),
        math::CopySignOp::create(b, loc, zero, rhs), r);
  }

  /// Truncating; a division by 0 is 0 and a signed one by -1 the wrapped
  /// negation (divsi would overflow for the minimum), as the reference
  /// runtime computes them.
  Value lowerIntDiv(Value lhs, Value rhs, Type compute, bool isUnsigned) {
    auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
      return Value(arith::CmpIOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0), one = constant(compute, 1);
    Value byZero = cmp(arith::CmpIPredicate::eq, rhs, zero);
    if (isUnsigned) {
      Value safe = arith::SelectOp::create(b, loc, byZero, one, rhs);
      Value q = arith::DivUIOp::create(b, loc, lhs, safe);
      return arith::SelectOp::create(b, loc, byZero, zero, q);
    }
    Value byMinusOne =
        cmp(arith::CmpIPredicate::eq, rhs, constant(compute, -1));
    Value safe = arith::SelectOp::create(
        b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, rhs);
    Value q = arith::DivSIOp::create(b, loc, lhs, safe);
    q = arith::SelectOp::create(b, loc, byMinusOne,
                                arith::SubIOp::create(b, loc, zero, lhs), q);
    return arith::SelectOp::create(b, loc, byZero, zero, q);
  }

  /// A remainder by 0 (and a signed one by -1, which overflows for the
  /// minimum) is 0; without `fmod` a signed result takes the divisor's sign.
  Value lowerIntRem(Value lhs, Value rhs, Type compute, bool isUnsigned,
                    bool fmod) {
    auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
      return Value(arith::CmpIOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0), one = constant(compute, 1);
    Value bad = cmp(arith::CmpIPredicate::eq, rhs, zero);
    if (!isUnsigned)
      bad = arith::OrIOp::create(
          b, loc, bad,
          cmp(arith::CmpIPredicate::eq, rhs, constant(compute, -1)));
    Value safe = arith::SelectOp::create(b, loc, bad, one, rhs);
    Value r;
    if (isUnsigned) {
      r = arith::RemUIOp::create(b, loc, lhs, safe);
    } else {
      r = arith::RemSIOp::create(b, loc, lhs, safe);
      if (!fmod) {
        Value signsDiffer = arith::XOrIOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, r, zero),
            cmp(arith::CmpIPredicate::slt, rhs, zero));
        Value fix = arith::AndIOp::create(
            b, loc, cmp(arith::CmpIPredicate::ne, r, zero), signsDiffer);
        r = arith::SelectOp::create(b, loc, fix,
                                    arith::AddIOp::create(b, loc, r, rhs), r);
      }
    }
    return arith::SelectOp::create(b, loc, bad, zero, r);
  }

  /// Exact, wrapping: squaring over the exponent's bits. A negative
  /// exponent gives 0 unless the base is 1 (1) or -1 (-1 or 1 by parity); a
  /// ui exponent is never negative.
  Value lowerIntPow(Value base, Value exponent, Type compute, bool isUnsigned) {
    auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
      return Value(arith::CmpIOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0), one = constant(compute, 1);
    Value minusOne = constant(compute, -1);
    unsigned bits = compute.getIntOrFloatBitWidth();
    auto loop = scf::ForOp::create(
        b, loc, i64(0), i64(bits), i64(1), ValueRange{one, base, exponent},
        [&](OpBuilder &nb, Location nl, Value, ValueRange acc) {
          Value odd = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::ne,
              arith::AndIOp::create(nb, nl, acc[2], one), zero);
          Value result = arith::SelectOp::create(
              nb, nl, odd, arith::MulIOp::create(nb, nl, acc[0], acc[1]),
              acc[0]);
          Value square = arith::MulIOp::create(nb, nl, acc[1], acc[1]);
          Value rest = arith::ShRUIOp::create(nb, nl, acc[2], one);
          scf::YieldOp::create(nb, nl, ValueRange{result, square, rest});
        });
    if (isUnsigned)
      return loop.getResult(0);
    Value oddExponent = cmp(arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, loc, exponent, one), zero);
    Value ofMinusOne =
        arith::SelectOp::create(b, loc, oddExponent, minusOne, one);
    Value negative = arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, base, one), one,
        arith::SelectOp::create(b, loc,
                                cmp(arith::CmpIPredicate::eq, base, minusOne),
                                ofMinusOne, zero));
    return arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, exponent, zero), negative,
        loop.getResult(0));
  }

  /// Truncates toward zero, saturating at the integer's limits (0 and
  /// 2^n - 1 for a ui type, `isUnsigned`); NaN gives 0. fptosi and fptoui
  /// alone would give poison out of range.
  Value lowerSaturatingCast(Value x, Type from, Type to, bool isUnsigned) {
    unsigned bits = to.getIntOrFloatBitWidth();
    double limit = std::ldexp(1.0, int(bits) - (isUnsigned ? 0 : 1));
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
      return Value(arith::CmpFOp::create(b, loc, p, l, r));
    };
    Value tooHigh = cmp(arith::CmpFPredicate::OGE, x, constant(from, limit));
    // Below 0 a ui saturates to 0 (and (-1, 0) truncates to 0 anyway).
    Value tooLow = cmp(arith::CmpFPredicate::OLT, x,
                       constant(from, isUnsigned ? 0.0 : -limit));
    Value inRange = cmp(arith::CmpFPredicate::ORD, x, x);
    inRange = arith::AndIOp::create(
        b, loc, inRange,
        arith::XOrIOp::create(b, loc,
                              arith::OrIOp::create(b, loc, tooHigh, tooLow),
                              constant(b.getI1Type(), 1)));
    Value safe = arith::SelectOp::create(b, loc, inRange, x, constant(from, 0));
    Value result =
        isUnsigned ? Value(arith::FPToUIOp::create(b, loc, vectorOf(to), safe))
                   : Value(arith::FPToSIOp::create(b, loc, vectorOf(to), safe));
    result = arith::SelectOp::create(
        b, loc, tooHigh,
        integerConstant(to, isUnsigned ? APInt::getMaxValue(bits)
                                       : APInt::getSignedMaxValue(bits)),
        result);
    return arith::SelectOp::create(
        b, loc, tooLow,
        integerConstant(to, isUnsigned ? APInt::getZero(bits)
                                       : APInt::getSignedMinValue(bits)),
        result);
  }

private:
  FailureOr<Value> lowerElementwiseOp(Operation *op, ArrayRef<Value> x) {
    StringRef name = op->getName().stripDialect();
    Type operandElement = elementTypeOf(op->getOperand(0));
    Type compute = computeType(operandElement);
    if (auto cast = dyn_cast<fd::CastOp>(op)) {
      if (Value result = lowerCast(cast, x[0]))
        return result;
      return unsupported(op, "no " + target + " lowering of this cast yet");
    }
    if (auto compare = dyn_cast<fd::CompareOp>(op)) {
      if (Value result = lowerCompare(compare, x[0], x[1], compute,
                                      isUnsignedElement(operandElement)))
        return result;
      return unsupported(
          op, "predicate " +
                  stringifyComparePredicate(compare.getPredicate()).str() +
                  " on floats");
    }
    if (isa<fd::SelectOp>(op))
      return Value(arith::SelectOp::create(b, loc, x[0], x[1], x[2]));
    if (isa<FloatType>(compute)) {
      if (Value result = lowerTargetFloatOp(op, name, x, compute))
        return result;
      if (Value result = lowerFloatOp(op, x, compute))
        return result;
      return unsupported(op,
                         "no " + target + " lowering of f" +
                             std::to_string(compute.getIntOrFloatBitWidth()) +
                             " " + name + " yet");
    }
    if (Value result = lowerTargetIntegerOp(op, name, x, operandElement))
      return result;
    if (Value result = lowerIntegerOp(op, x, operandElement))
      return result;
    return unsupported(op, "no " + target + " lowering of integer " + name +
                               " yet");
  }

protected:
  OpBuilder &b;
  Location loc;
  unsigned width;
  StringRef target;
};

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_SCALARLOWERING_H
