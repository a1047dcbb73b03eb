//===- FuseFolders.cpp - Constant folding and algebraic folds -------------===//
//
// Folds on splat constants (floats computed in double and rounded once to the
// element type, integers in APInt wrapping at the element width), the
// identities x+0, x-0, x*1, x/1 (as in XLA, the sign of a zero result may
// differ from the unfolded -0.0 + 0.0), x & ~0 and x | 0 (the constant also
// a splat broadcast to a symbolic shape), cast to the same type, identity and
// composed transposes and reshapes, broadcasts of splats.
// Dense (non-splat) constants are left alone: folding them would bake data
// the size of a tensor into the IR.
//
//===----------------------------------------------------------------------===//

#include "dialect/FuseOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuse;

static double toDouble(const APFloat &value) {
  APFloat copy = value;
  bool losesInfo = false;
  copy.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return copy.convertToDouble();
}

static Attribute splatOf(Type resultType, double value) {
  auto shaped = cast<ShapedType>(resultType);
  auto floatType = cast<FloatType>(shaped.getElementType());
  APFloat result(value);
  bool losesInfo = false;
  result.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return DenseElementsAttr::get(shaped, result);
}

/// The float value of a splat float constant, if `attr` is one.
static std::optional<double> floatSplat(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return toDouble(splat.getSplatValue<APFloat>());
}

/// True for the ui element types, whose bits every op reads unsigned.
static bool isUnsignedElement(Type type) {
  return getElementTypeOrSelf(type).isUnsignedInteger();
}

static std::optional<APInt> intSplat(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat || !isa<IntegerType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APInt>();
}

template <typename Fn>
static OpFoldResult foldUnaryFloat(Attribute operand, Type resultType, Fn fn) {
  if (std::optional<double> x = floatSplat(operand))
    return splatOf(resultType, fn(*x));
  return {};
}

template <typename Fn>
static OpFoldResult foldUnaryInt(Attribute operand, Type resultType, Fn fn) {
  if (std::optional<APInt> x = intSplat(operand))
    return DenseElementsAttr::get(cast<ShapedType>(resultType), fn(*x));
  return {};
}

#define FUSE_FLOAT_UNARY_FOLDER(Op, expr)                                      \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldUnaryFloat(adaptor.getOperand(), getType(),                     \
                          [](double x) { return (expr); });                    \
  }

FUSE_FLOAT_UNARY_FOLDER(ExpOp, std::exp(x))
FUSE_FLOAT_UNARY_FOLDER(LogOp, std::log(x))
FUSE_FLOAT_UNARY_FOLDER(SqrtOp, std::sqrt(x))
FUSE_FLOAT_UNARY_FOLDER(RsqrtOp, 1.0 / std::sqrt(x))
FUSE_FLOAT_UNARY_FOLDER(ReciprocalOp, 1.0 / x)
FUSE_FLOAT_UNARY_FOLDER(TanhOp, std::tanh(x))
FUSE_FLOAT_UNARY_FOLDER(SigmoidOp, 1.0 / (1.0 + std::exp(-x)))
FUSE_FLOAT_UNARY_FOLDER(ErfOp, std::erf(x))
FUSE_FLOAT_UNARY_FOLDER(SinOp, std::sin(x))
FUSE_FLOAT_UNARY_FOLDER(CosOp, std::cos(x))
FUSE_FLOAT_UNARY_FOLDER(TanOp, std::tan(x))
FUSE_FLOAT_UNARY_FOLDER(AsinOp, std::asin(x))
FUSE_FLOAT_UNARY_FOLDER(AcosOp, std::acos(x))
FUSE_FLOAT_UNARY_FOLDER(AtanOp, std::atan(x))
FUSE_FLOAT_UNARY_FOLDER(SinhOp, std::sinh(x))
FUSE_FLOAT_UNARY_FOLDER(CoshOp, std::cosh(x))
FUSE_FLOAT_UNARY_FOLDER(AsinhOp, std::asinh(x))
FUSE_FLOAT_UNARY_FOLDER(AcoshOp, std::acosh(x))
FUSE_FLOAT_UNARY_FOLDER(AtanhOp, std::atanh(x))
FUSE_FLOAT_UNARY_FOLDER(FloorOp, std::floor(x))
FUSE_FLOAT_UNARY_FOLDER(CeilOp, std::ceil(x))
// std::nearbyint rounds half to even in the default rounding mode.
FUSE_FLOAT_UNARY_FOLDER(RoundOp, std::nearbyint(x))
#undef FUSE_FLOAT_UNARY_FOLDER

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldUnaryFloat(adaptor.getOperand(), getType(),
                                      [](double x) { return -x; }))
    return r;
  return foldUnaryInt(adaptor.getOperand(), getType(),
                      [](const APInt &x) { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (isUnsignedElement(getType()))
    return getOperand();
  if (OpFoldResult r = foldUnaryFloat(adaptor.getOperand(), getType(),
                                      [](double x) { return std::fabs(x); }))
    return r;
  return foldUnaryInt(adaptor.getOperand(), getType(),
                      [](const APInt &x) { return x.abs(); });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldUnaryFloat(adaptor.getOperand(), getType(), [](double x) {
            return std::isnan(x) ? x : (x > 0) - (x < 0) + 0.0;
          }))
    return r;
  bool isUnsigned = isUnsignedElement(getType());
  return foldUnaryInt(
      adaptor.getOperand(), getType(), [isUnsigned](const APInt &x) {
        int64_t sign =
            x.isZero() ? 0 : (!isUnsigned && x.isNegative() ? -1 : 1);
        return APInt(x.getBitWidth(), sign, /*isSigned=*/true);
      });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldUnaryInt(adaptor.getOperand(), getType(),
                      [](const APInt &x) { return ~x; });
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

template <typename FloatFn, typename IntFn>
static OpFoldResult foldBinary(Attribute lhs, Attribute rhs, Type resultType,
                               FloatFn floatFn, IntFn intFn) {
  std::optional<double> fl = floatSplat(lhs), fr = floatSplat(rhs);
  if (fl && fr)
    return splatOf(resultType, floatFn(*fl, *fr));
  std::optional<APInt> il = intSplat(lhs), ir = intSplat(rhs);
  if (il && ir) {
    if (std::optional<APInt> r = intFn(*il, *ir))
      return DenseElementsAttr::get(cast<ShapedType>(resultType), *r);
  }
  return {};
}

/// The splat that `operand` is: its folded attribute (`folded`), else, for
/// a splat constant broadcast or reshaped to a shape with `?` dims (which
/// stays an op, reshapeSplat), the constant's splat, so that the identities
/// below hold for symbolic shapes as they do for static ones.
static Attribute splatOperand(Attribute folded, Value operand) {
  if (folded)
    return folded;
  while (Operation *def = operand.getDefiningOp()) {
    if (!isa<BroadcastOp, ReshapeOp>(def))
      break;
    operand = def->getOperand(0);
  }
  auto constant = operand.getDefiningOp<ConstantOp>();
  if (!constant)
    return {};
  return dyn_cast<SplatElementsAttr>(constant.getValue());
}

/// True if `attr` is a splat equal to `value` (0 or 1).
static bool isSplatOf(Attribute attr, int64_t value) {
  if (std::optional<double> f = floatSplat(attr))
    return *f == static_cast<double>(value);
  if (std::optional<APInt> i = intSplat(attr))
    return i->getSExtValue() == value;
  return false;
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(splatOperand(adaptor.getRhs(), getRhs()), 0))
    return getLhs();
  if (isSplatOf(splatOperand(adaptor.getLhs(), getLhs()), 0))
    return getRhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a + b; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(splatOperand(adaptor.getRhs(), getRhs()), 0))
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a - b; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(splatOperand(adaptor.getRhs(), getRhs()), 1))
    return getLhs();
  if (isSplatOf(splatOperand(adaptor.getLhs(), getLhs()), 1))
    return getRhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a * b; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(splatOperand(adaptor.getRhs(), getRhs()), 1))
    return getLhs();
  bool isUnsigned = getIsUnsigned() || isUnsignedElement(getType());
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a / b; },
      [isUnsigned](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // Division by zero gives 0; APInt's sdiv wraps the minimum divided
        // by -1 to the minimum, as the op does.
        if (b.isZero())
          return APInt::getZero(a.getBitWidth());
        return isUnsigned ? a.udiv(b) : a.sdiv(b);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return std::pow(a, b); },
      [isUnsigned](const APInt &base,
                   const APInt &exponent) -> std::optional<APInt> {
        unsigned width = base.getBitWidth();
        if (!isUnsigned && exponent.isNegative()) {
          if (base.isOne())
            return base;
          if (base.isAllOnes())
            return exponent[0] ? base : APInt(width, 1);
          return APInt::getZero(width);
        }
        // Square and multiply, wrapping at the element width.
        APInt result(width, 1), square = base;
        for (APInt e = exponent; !e.isZero(); e.lshrInPlace(1)) {
          if (e[0])
            result *= square;
          square *= square;
        }
        return result;
      });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  bool fmod = getFmod(),
       isUnsigned = getIsUnsigned() || isUnsignedElement(getType());
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [fmod](double a, double b) {
        double r = std::fmod(a, b);
        if (fmod)
          return r;
        // The floor-mod has the sign of the divisor, zero included (as
        // Python's -4.0 % 2.0 == 0.0).
        if (r != 0 && ((r < 0) != (b < 0)))
          r += b;
        return r == 0 ? std::copysign(0.0, b) : r;
      },
      [fmod, isUnsigned](const APInt &a,
                         const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return APInt::getZero(a.getBitWidth());
        if (isUnsigned)
          return a.urem(b);
        APInt r = a.srem(b);
        if (!fmod && !r.isZero() && r.isNegative() != b.isNegative())
          r += b;
        return r;
      });
}

/// The larger (`max`) or smaller of two constants: NaN if either is, and
/// integers read as the element type says (signed or unsigned).
static OpFoldResult foldMinMax(Attribute lhs, Attribute rhs, Type type,
                               bool max) {
  bool isUnsigned = isUnsignedElement(type);
  return foldBinary(
      lhs, rhs, type,
      [max](double a, double b) {
        if (std::isnan(a) || std::isnan(b))
          return double(NAN);
        return max ? std::max(a, b) : std::min(a, b);
      },
      [isUnsigned, max](const APInt &a,
                        const APInt &b) -> std::optional<APInt> {
        bool aFirst = max ? (isUnsigned ? a.uge(b) : a.sge(b))
                          : (isUnsigned ? a.ule(b) : a.sle(b));
        return aFirst ? a : b;
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldMinMax(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    /*max=*/true);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldMinMax(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    /*max=*/false);
}

/// True if `attr` is an integer splat with every bit set (true for i1).
static bool isAllOnesSplat(Attribute attr) {
  std::optional<APInt> i = intSplat(attr);
  return i && i->isAllOnes();
}

/// x & ~0 = x: exporters And a computed mask with a broadcast `true` (a
/// causal mask built from iotas, GPT-2's dynamic-axes export).
OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (isAllOnesSplat(splatOperand(adaptor.getRhs(), getRhs())))
    return getLhs();
  if (isAllOnesSplat(splatOperand(adaptor.getLhs(), getLhs())))
    return getRhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double, double) { return 0.0; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a & b;
      });
}

/// x | 0 = x.
OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(splatOperand(adaptor.getRhs(), getRhs()), 0))
    return getLhs();
  if (isSplatOf(splatOperand(adaptor.getLhs(), getLhs()), 0))
    return getRhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double, double) { return 0.0; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a | b;
      });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double, double) { return 0.0; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a ^ b;
      });
}

/// Whether `predicate` holds between two values that compare as `less`,
/// `equal` or `greater` (none of them: unordered, a NaN); the unsigned
/// predicates as their signed ones (the caller compared unsigned).
static bool holds(ComparePredicate predicate, bool less, bool equal,
                  bool greater) {
  switch (predicate) {
  case ComparePredicate::eq:
    return equal;
  case ComparePredicate::ne:
    return !equal;
  case ComparePredicate::lt:
  case ComparePredicate::ult:
    return less;
  case ComparePredicate::le:
  case ComparePredicate::ule:
    return less || equal;
  case ComparePredicate::gt:
  case ComparePredicate::ugt:
    return greater;
  case ComparePredicate::ge:
  case ComparePredicate::uge:
    return greater || equal;
  }
  return false;
}

/// Splat operands give a splat i1. Floats compare ordered (false with a NaN)
/// except `ne`; integers as the predicate says, except that i1 and the ui
/// types read unsigned under every predicate.
OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparePredicate predicate = getPredicate();
  bool unsignedPredicate = predicate == ComparePredicate::ult ||
                           predicate == ComparePredicate::ule ||
                           predicate == ComparePredicate::ugt ||
                           predicate == ComparePredicate::uge;
  auto result = [&](bool value) -> OpFoldResult {
    return DenseElementsAttr::get(cast<ShapedType>(getType()), value);
  };
  std::optional<double> fl = floatSplat(adaptor.getLhs()),
                        fr = floatSplat(adaptor.getRhs());
  if (fl && fr) {
    if (unsignedPredicate)
      return {};
    return result(holds(predicate, *fl<*fr, *fl == *fr, *fl> * fr));
  }
  std::optional<APInt> il = intSplat(adaptor.getLhs()),
                       ir = intSplat(adaptor.getRhs());
  if (!il || !ir)
    return {};
  const APInt &a = *il, &b = *ir;
  Type element = getElementTypeOrSelf(getLhs().getType());
  bool readUnsigned =
      unsignedPredicate || element.isUnsignedInteger() || element.isInteger(1);
  return result(holds(predicate, readUnsigned ? a.ult(b) : a.slt(b), a == b,
                      readUnsigned ? a.ugt(b) : a.sgt(b)));
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  if (std::optional<APInt> c = intSplat(adaptor.getCondition()))
    return c->isZero() ? getFalseValue() : getTrueValue();
  return {};
}

//===----------------------------------------------------------------------===//
// Conversion, constants, shape ops
//===----------------------------------------------------------------------===//

/// f16, bf16, f32, f64. Casts into the f8 and f4 types round by their own
/// rules (saturate, round_mode, overflow to NaN) and are not folded.
static bool isStandardFloat(Type type) {
  type = getElementTypeOrSelf(type);
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  // A cast to f8E8M0FNU rounding up moves 2^-127 (whose f32 form has a
  // mantissa bit) to 2^-126: not the identity.
  bool roundsUpE8M0 = isa<Float8E8M0FNUType>(getType().getElementType()) &&
                      getEffectiveRoundMode() == RoundMode::up;
  if (getOperand().getType() == getType() && !roundsUpE8M0)
    return getOperand();
  // Float to float splats: every float type converts exactly to double, and
  // one rounding from double gives the standard float types' cast.
  if (isStandardFloat(getType()))
    return foldUnaryFloat(adaptor.getOperand(), getType(),
                          [](double x) { return x; });
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// A splat of `attr`'s value with the shape of `resultType`.
static OpFoldResult reshapeSplat(Attribute attr, Type resultType) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  // A constant has a static shape: a symbolic result (a splat broadcast to
  // a `?` dim) stays the op it is.
  if (!splat || !cast<ShapedType>(resultType).hasStaticShape())
    return {};
  return splat.resizeSplat(cast<ShapedType>(resultType));
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto producer = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(producer.getOperand());
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getPermutation(),
                  llvm::seq<int64_t>(0, getPermutation().size())))
    return getOperand();
  if (auto producer = getOperand().getDefiningOp<TransposeOp>()) {
    // result dim i = producer result dim p[i] = producer operand dim q[p[i]].
    SmallVector<int64_t> composed;
    for (int64_t p : getPermutation())
      composed.push_back(producer.getPermutation()[p]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return producer.getOperand();
    setPermutation(composed);
    getOperandMutable().assign(producer.getOperand());
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}
