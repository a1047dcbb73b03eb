//===- ScalarLowering.cpp - Element ops in arith, host and GPU alike ------===//

#include "compiler/common/ScalarLowering.h"

namespace fuse {
namespace codegen {

using namespace mlir;

LogicalResult ScalarLowering::unsupported(Operation *op, const Twine &why) {
  auto fusion = op->getParentOfType<fd::FusionOp>();
  std::string kind =
      fusion ? stringifyScheduleKind(fusion.getKind()).str() : "unknown";
  bool vowel = !kind.empty() && StringRef("aeiou").contains(kind.front());
  return op->emitOpError() << "cannot be generated for the " << target
                           << (vowel ? " in an " : " in a ") << kind
                           << " kernel: " << why;
}

Value ScalarLowering::constant(Type element, double value) {
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

Value ScalarLowering::integerConstant(Type element, const APInt &value) {
  Type type = vectorOf(element);
  TypedAttr attr = IntegerAttr::get(element, value);
  if (width != 1)
    attr =
        DenseElementsAttr::get(cast<ShapedType>(type), mlir::Attribute(attr));
  return arith::ConstantOp::create(b, loc, type, attr);
}

Value ScalarLowering::constantVector(Type element, int64_t value) {
  auto type = VectorType::get({width}, element);
  return arith::ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getIntegerAttr(element, value)));
}

Value ScalarLowering::laneSteps() {
  SmallVector<int64_t> steps;
  for (unsigned lane = 0; lane < width; ++lane)
    steps.push_back(lane);
  auto type = VectorType::get({width}, b.getI64Type());
  return arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, ArrayRef(steps)));
}

Value ScalarLowering::toCompute(Value stored, Type element) {
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
    return arith::BitcastOp::create(b, loc, vectorOf(b.getF32Type()), shifted);
  }
  return stored;
}

Value ScalarLowering::toStorage(Value computed, Type element) {
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

FailureOr<Value> ScalarLowering::lowerConstant(fd::ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !dense.isSplat())
    return unsupported(op, "only splat constants are supported; pass "
                           "dense data as a graph input");
  return splatConstant(dense, elementTypeOf(op.getResult()));
}

FailureOr<Value> ScalarLowering::lowerElementwise(Operation *op,
                                                  ArrayRef<Value> x) {
  FailureOr<Value> result = lowerElementwiseOp(op, x);
  Type resultElement = elementTypeOf(op->getResult(0));
  if (succeeded(result) && isNarrowInteger(resultElement))
    return codec().wrap(*result, resultElement);
  return result;
}

Value ScalarLowering::splatConstant(DenseElementsAttr dense, Type element) {
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
      attr =
          DenseElementsAttr::get(cast<ShapedType>(type), mlir::Attribute(attr));
    return arith::ConstantOp::create(b, loc, type, attr);
  }
  return constant(compute, value);
}

Value ScalarLowering::lowerFloatOp(Operation *op, ArrayRef<Value> x,
                                   Type compute) {
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
    Value pos =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x[0], zero());
    Value neg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0], zero());
    Value inner =
        arith::SelectOp::create(b, loc, neg, constant(compute, -1.0), x[0]);
    return arith::SelectOp::create(b, loc, pos, one(), inner);
  }
  if (name == "isnan")
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x[0], x[0]);
  if (name == "isinf")
    return arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, loc, x[0]),
        constant(compute, std::numeric_limits<double>::infinity()));
  arith::FastMathFlags contract = contractsProducts
                                      ? arith::FastMathFlags::contract
                                      : arith::FastMathFlags::none;
  if (name == "add")
    return arith::AddFOp::create(b, loc, x[0], x[1], contract);
  if (name == "sub")
    return arith::SubFOp::create(b, loc, x[0], x[1]);
  if (name == "mul")
    return arith::MulFOp::create(b, loc, x[0], x[1], contract);
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

Value ScalarLowering::lowerIntegerOp(Operation *op, ArrayRef<Value> x,
                                     Type operandElement) {
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
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x[0], zero()));
  // An i4 or i2 divided with `is_unsigned` reads its low bits.
  auto readUnsigned = [&](bool flag) {
    if (flag && !isUnsigned && isNarrowInteger(operandElement))
      return SmallVector<Value>{codec().lowBits(x[0], operandElement),
                                codec().lowBits(x[1], operandElement)};
    return SmallVector<Value>{x[0], x[1]};
  };
  if (auto div = dyn_cast<fd::DivOp>(op)) {
    SmallVector<Value> y = readUnsigned(div.getIsUnsigned());
    return lowerIntDiv(y[0], y[1], compute, isUnsigned || div.getIsUnsigned());
  }
  if (auto rem = dyn_cast<fd::RemOp>(op)) {
    SmallVector<Value> y = readUnsigned(rem.getIsUnsigned());
    return lowerIntRem(y[0], y[1], compute, isUnsigned || rem.getIsUnsigned(),
                       rem.getFmod());
  }
  return {};
}

Value ScalarLowering::lowerCompare(fd::CompareOp op, Value lhs, Value rhs,
                                   Type compute, bool isUnsigned) {
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

Value ScalarLowering::lowerCast(fd::CastOp op, Value x) {
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
  if (to.isF16() || to.isBF16()) {
    // They compute in f32, so the cast rounds to their precision here, as
    // a store would (toStorage): an op of the same kernel that reads the
    // result (a cast back to f32) sees the rounded value. From f64 through
    // f32 rounded to odd, which then rounds once.
    Value single = x;
    if (isa<IntegerType>(fromCompute))
      single = readUnsigned ? Value(arith::UIToFPOp::create(b, loc, toType, x))
                            : Value(arith::SIToFPOp::create(b, loc, toType, x));
    else if (fromCompute.isF64())
      single = codec().roundToOddF32(x);
    return ScalarLowering::toCompute(toStorage(single, to), to);
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

Value ScalarLowering::lowerFloatRem(Value lhs, Value rhs, Type compute,
                                    bool fmod) {
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

Value ScalarLowering::lowerIntDiv(Value lhs, Value rhs, Type compute,
                                  bool isUnsigned) {
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
  Value byMinusOne = cmp(arith::CmpIPredicate::eq, rhs, constant(compute, -1));
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, rhs);
  Value q = arith::DivSIOp::create(b, loc, lhs, safe);
  q = arith::SelectOp::create(b, loc, byMinusOne,
                              arith::SubIOp::create(b, loc, zero, lhs), q);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

Value ScalarLowering::lowerIntRem(Value lhs, Value rhs, Type compute,
                                  bool isUnsigned, bool fmod) {
  auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
    return Value(arith::CmpIOp::create(b, loc, p, l, r));
  };
  Value zero = constant(compute, 0), one = constant(compute, 1);
  Value bad = cmp(arith::CmpIPredicate::eq, rhs, zero);
  if (!isUnsigned)
    bad = arith::OrIOp::create(
        b, loc, bad, cmp(arith::CmpIPredicate::eq, rhs, constant(compute, -1)));
  Value safe = arith::SelectOp::create(b, loc, bad, one, rhs);
  Value r;
  if (isUnsigned) {
    r = arith::RemUIOp::create(b, loc, lhs, safe);
  } else {
    r = arith::RemSIOp::create(b, loc, lhs, safe);
    if (!fmod) {
      Value signsDiffer =
          arith::XOrIOp::create(b, loc, cmp(arith::CmpIPredicate::slt, r, zero),
                                cmp(arith::CmpIPredicate::slt, rhs, zero));
      Value fix = arith::AndIOp::create(
          b, loc, cmp(arith::CmpIPredicate::ne, r, zero), signsDiffer);
      r = arith::SelectOp::create(b, loc, fix,
                                  arith::AddIOp::create(b, loc, r, rhs), r);
    }
  }
  return arith::SelectOp::create(b, loc, bad, zero, r);
}

Value ScalarLowering::lowerIntPow(Value base, Value exponent, Type compute,
                                  bool isUnsigned) {
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
            nb, nl, odd, arith::MulIOp::create(nb, nl, acc[0], acc[1]), acc[0]);
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
  return arith::SelectOp::create(b, loc,
                                 cmp(arith::CmpIPredicate::slt, exponent, zero),
                                 negative, loop.getResult(0));
}

Value ScalarLowering::lowerSaturatingCast(Value x, Type from, Type to,
                                          bool isUnsigned) {
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

FailureOr<Value> ScalarLowering::lowerElementwiseOp(Operation *op,
                                                    ArrayRef<Value> x) {
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
    return unsupported(op, "no " + target + " lowering of f" +
                               std::to_string(compute.getIntOrFloatBitWidth()) +
                               " " + name + " yet");
  }
  if (Value result = lowerTargetIntegerOp(op, name, x, operandElement))
    return result;
  if (Value result = lowerIntegerOp(op, x, operandElement))
    return result;
  return unsupported(op,
                     "no " + target + " lowering of integer " + name + " yet");
}

} // namespace codegen
} // namespace fuse
