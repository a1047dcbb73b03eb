//===- HostRegionEmitter.cpp - Region values of a fusion at an index ------===//

#include "compiler/host/HostRegionEmitter.h"
#include "compiler/host/HostMathLowering.h"

#include "mlir/IR/Matchers.h"

namespace fuse {
namespace host {

using namespace mlir;
using namespace codegen;

namespace {

/// Whether `x` is a - broadcast(max of a over some dims), softmax's shift:
/// each element less the max of a set of elements that holds it, so at most
/// 0, or NaN. The broadcast must put each max back over the elements it was
/// taken of: with keep_dims its dims are the identity, without them the
/// dims the reduction kept.
bool isShiftedByOwnMax(Value x) {
  auto sub = x.getDefiningOp<fd::SubOp>();
  if (!sub)
    return false;
  auto broadcast = sub.getRhs().getDefiningOp<fd::BroadcastOp>();
  if (!broadcast)
    return false;
  auto reduce = broadcast.getOperand().getDefiningOp<fd::ReduceOp>();
  if (!reduce || reduce.getKind() != fd::ReduceKind::max ||
      reduce.getOperand() != sub.getLhs())
    return false;
  int64_t rank = shapeOf(sub.getLhs()).size();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d)
    if (reduce.getKeepDims() || !llvm::is_contained(reduce.getDims(), d))
      expected.push_back(d);
  return llvm::equal(broadcast.getDims(), expected);
}

} // namespace

Value RegionEmitter::lowerTargetFloatOp(Operation *op, StringRef name,
                                        ArrayRef<Value> x, Type compute) {
  // Our lowerings of these are accurate to f32 only: on f64 they stay math
  // ops, which lowerF64MathToLibm (HostObjectEmitter.cpp) turns into libm
  // calls, lane by lane (within an ulp or so, as glibc is).
  if (compute.isF64() &&
      llvm::is_contained(
          {"atan", "sinh", "cosh", "asinh", "acosh", "atanh", "pow"}, name)) {
    OperationState state(loc, "math." + (name == "pow" ? "powf" : name.str()));
    state.addOperands(x);
    state.addTypes(x[0].getType());
    return b.create(state)->getResult(0);
  }
  if (name == "exp") {
    Value e = emitExp(x[0]);
    if (auto exp = e.getDefiningOp<math::ExpOp>();
        exp && isShiftedByOwnMax(op->getOperand(0)))
      exp->setAttr(kExpOfNonPositive, b.getUnitAttr());
    return e;
  }
  if (name == "log")
    return emitLog(x[0]);
  if (name == "asin")
    return math::AsinOp::create(b, loc, x[0]);
  if (name == "acos")
    return math::AcosOp::create(b, loc, x[0]);
  if (name == "atan")
    return emitAtan(x[0], compute);
  if (name == "sinh" || name == "cosh")
    return emitSinhCosh(x[0], compute, name == "sinh");
  if (name == "asinh" || name == "acosh" || name == "atanh")
    return emitInverseHyperbolic(name, x[0], compute);
  if (name == "pow")
    return emitPowF(x[0], x[1], compute);
  if (name == "sigmoid") {
    auto one = [&] { return constant(compute, 1.0); };
    Value e = emitExp(arith::NegFOp::create(b, loc, x[0]));
    return arith::DivFOp::create(b, loc, one(),
                                 arith::AddFOp::create(b, loc, one(), e));
  }
  // By a splat of one value (a row's reduction in a row kernel): one
  // reciprocal, then a multiply per element (within div's 2 eps; a
  // divisor below the smallest normal's reciprocal range would give inf,
  // as a flushed subnormal divisor does).
  if (name == "div") {
    auto splat = x[1].getDefiningOp<vector::BroadcastOp>();
    if (splat && !isa<VectorType>(splat.getSource().getType())) {
      Type scalar = splat.getSource().getType();
      Value one = arith::ConstantOp::create(b, loc, scalar,
                                            b.getFloatAttr(scalar, 1.0));
      Value inverse = arith::DivFOp::create(b, loc, one, splat.getSource());
      return arith::MulFOp::create(
          b, loc, x[0],
          vector::BroadcastOp::create(b, loc, x[1].getType(), inverse));
    }
  }
  return {};
}

Value RegionEmitter::lowerTargetIntegerOp(Operation *op, StringRef name,
                                          ArrayRef<Value> x,
                                          Type operandElement) {
  Type compute = computeType(operandElement);
  if (compute.isInteger(1))
    return {};
  bool isUnsigned = isUnsignedElement(operandElement);
  if (name == "abs")
    return isUnsigned ? x[0] : Value(math::AbsIOp::create(b, loc, x[0]));
  if (name == "pow")
    return lowerIntPow(x[0], x[1], compute, isUnsigned);
  return {};
}

Value RegionEmitter::i64Splat(int64_t value) {
  mlir::TypedAttr attr = b.getI64IntegerAttr(value);
  mlir::Type type = vectorOf(b.getI64Type());
  if (width != 1)
    attr = mlir::DenseElementsAttr::get(mlir::cast<mlir::ShapedType>(type),
                                        mlir::Attribute(attr));
  return mlir::arith::ConstantOp::create(b, loc, type, attr);
}

Value RegionEmitter::powerOfTwoF64(Value e) {
  Value bits = arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, e, i64Splat(1023)), i64Splat(52));
  return arith::BitcastOp::create(b, loc, vectorOf(b.getF64Type()), bits);
}

Value RegionEmitter::emitExpF64(Value x) {
  Type f64 = b.getF64Type();
  auto c = [&](double v) { return constant(f64, v); };
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
    return Value(arith::CmpFOp::create(b, loc, p, l, r));
  };
  Value isNaN = cmp(arith::CmpFPredicate::UNO, x, x);
  Value clamped = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OGT, x, c(710)), c(710), x);
  clamped = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OLT, x, c(-746)), c(-746), clamped);
  clamped = arith::SelectOp::create(b, loc, isNaN, c(0), clamped);
  // Adding and subtracting 1.5 * 2^52 rounds to the nearest integer (ties
  // to even) for |x / ln2| < 2^51, without a roundeven libm call on CPUs
  // before SSE4.1.
  Value shifter = c(0x1.8p52);
  Value n = arith::SubFOp::create(
      b, loc,
      arith::AddFOp::create(
          b, loc,
          arith::MulFOp::create(b, loc, clamped, c(0x1.71547652b82fep0)),
          shifter),
      shifter);
  Value r = arith::SubFOp::create(
      b, loc, clamped,
      arith::MulFOp::create(b, loc, n, c(0x1.62e42fee00000p-1)));
  r = arith::SubFOp::create(
      b, loc, r, arith::MulFOp::create(b, loc, n, c(0x1.a39ef35793c76p-33)));
  double inverseFactorial[14];
  inverseFactorial[0] = 1;
  for (int j = 1; j < 14; ++j)
    inverseFactorial[j] = inverseFactorial[j - 1] / j;
  Value p = c(inverseFactorial[13]);
  for (int j = 12; j >= 0; --j)
    p = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, p, r),
                              c(inverseFactorial[j]));
  Value ni = arith::FPToSIOp::create(b, loc, vectorOf(b.getI64Type()), n);
  Value half = arith::ShRSIOp::create(b, loc, ni, i64Splat(1));
  Value rest = arith::SubIOp::create(b, loc, ni, half);
  Value result = arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, p, powerOfTwoF64(half)),
      powerOfTwoF64(rest));
  return arith::SelectOp::create(b, loc, isNaN, x, result);
}

Value RegionEmitter::emitLogF64(Value x) {
  Type f64 = b.getF64Type();
  Type i64 = vectorOf(b.getI64Type());
  auto c = [&](double v) { return constant(f64, v); };
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
    return Value(arith::CmpFOp::create(b, loc, p, l, r));
  };
  Value tiny = cmp(arith::CmpFPredicate::OLT, x, c(0x1p-1022));
  Value scaled = arith::SelectOp::create(
      b, loc, tiny, arith::MulFOp::create(b, loc, x, c(0x1p54)), x);
  Value bits = arith::BitcastOp::create(b, loc, i64, scaled);
  Value e = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, i64Splat(52)),
      arith::SelectOp::create(b, loc, tiny, i64Splat(1023 + 54),
                              i64Splat(1023)));
  Value m = arith::BitcastOp::create(
      b, loc, vectorOf(f64),
      arith::OrIOp::create(
          b, loc,
          arith::AndIOp::create(b, loc, bits, i64Splat((int64_t(1) << 52) - 1)),
          i64Splat(int64_t(1023) << 52)));
  Value big = cmp(arith::CmpFPredicate::OGT, m, c(M_SQRT2));
  m = arith::SelectOp::create(b, loc, big,
                              arith::MulFOp::create(b, loc, m, c(0.5)), m);
  e = arith::SelectOp::create(b, loc, big,
                              arith::AddIOp::create(b, loc, e, i64Splat(1)), e);
  Value k = arith::SIToFPOp::create(b, loc, vectorOf(f64), e);
  Value f = arith::SubFOp::create(b, loc, m, c(1));
  Value s =
      arith::DivFOp::create(b, loc, f, arith::AddFOp::create(b, loc, f, c(2)));
  Value z = arith::MulFOp::create(b, loc, s, s);
  Value series = c(1.0 / 21);
  for (int j = 9; j >= 0; --j)
    series = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, series, z), c(1.0 / (2 * j + 1)));
  Value logM = arith::MulFOp::create(
      b, loc, arith::AddFOp::create(b, loc, s, s), series);
  Value result = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, k, c(0x1.62e42fee00000p-1)),
      arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, k, c(0x1.a39ef35793c76p-33)),
          logM));
  double inf = std::numeric_limits<double>::infinity();
  result = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OEQ, x, c(inf)), c(inf), result);
  result = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OLT, x, c(0)),
      c(std::numeric_limits<double>::quiet_NaN()), result);
  result = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OEQ, x, c(0)), c(-inf), result);
  return arith::SelectOp::create(b, loc, cmp(arith::CmpFPredicate::UNO, x, x),
                                 x, result);
}

Value RegionEmitter::emitSinhCosh(Value x, Type compute, bool isSinh) {
  Value e = emitExp(x);
  Value inverse = arith::DivFOp::create(b, loc, constant(compute, 1), e);
  Value half = constant(compute, 0.5);
  if (!isSinh)
    return arith::MulFOp::create(b, loc, half,
                                 arith::AddFOp::create(b, loc, e, inverse));
  Value wide = arith::MulFOp::create(b, loc, half,
                                     arith::SubFOp::create(b, loc, e, inverse));
  // x + x^3/3! + ... + x^9/9! for |x| < 0.5 (next term below 2e-10 |x|).
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value series = constant(compute, 1.0 / 362880);
  for (double c : {1.0 / 5040, 1.0 / 120, 1.0 / 6, 1.0})
    series = math::FmaOp::create(b, loc, series, x2, constant(compute, c));
  series = arith::MulFOp::create(b, loc, series, x);
  Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                      math::AbsFOp::create(b, loc, x),
                                      constant(compute, 0.5));
  return arith::SelectOp::create(b, loc, small, series, wide);
}

Value RegionEmitter::emitInverseHyperbolic(StringRef name, Value x,
                                           Type compute) {
  auto c = [&](double v) { return constant(compute, v); };
  if (name == "atanh")
    return arith::MulFOp::create(
        b, loc, c(0.5),
        arith::SubFOp::create(
            b, loc, math::Log1pOp::create(b, loc, x),
            math::Log1pOp::create(b, loc, arith::NegFOp::create(b, loc, x))));
  Value a = name == "asinh" ? Value(math::AbsFOp::create(b, loc, x)) : x;
  Value a2 = arith::MulFOp::create(b, loc, a, a);
  Value near;
  if (name == "asinh") {
    // a + a^2 / (1 + sqrt(1 + a^2)) = a + sqrt(1 + a^2) - 1.
    Value root =
        math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, c(1), a2));
    near = math::Log1pOp::create(
        b, loc,
        arith::AddFOp::create(
            b, loc, a,
            arith::DivFOp::create(b, loc, a2,
                                  arith::AddFOp::create(b, loc, c(1), root))));
  } else {
    // t + sqrt(2t + t^2) with t = x - 1; NaN below 1.
    Value t1 = arith::SubFOp::create(b, loc, x, c(1));
    Value root = math::SqrtOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, t1,
                              arith::AddFOp::create(b, loc, x, c(1))));
    near =
        math::Log1pOp::create(b, loc, arith::AddFOp::create(b, loc, t1, root));
  }
  Value far = arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, a),
                                    c(0.69314718055994530942));
  Value large = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a,
                                      c(268435456.0));
  Value result = arith::SelectOp::create(b, loc, large, far, near);
  if (name == "asinh")
    result = math::CopySignOp::create(b, loc, result, x);
  return result;
}

/// The exponent of a pow that is one constant for every lane, where it is
/// a whole number in [-1, 4].
static std::optional<int64_t> smallWholeExponent(Value y) {
  mlir::Attribute attr;
  if (!matchPattern(y, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<SplatElementsAttr>(attr))
    attr = dense.getSplatValue<mlir::Attribute>();
  auto value = dyn_cast<FloatAttr>(attr);
  if (!value)
    return std::nullopt;
  double e = value.getValueAsDouble();
  if (!(e >= -1 && e <= 4) || e != std::floor(e))
    return std::nullopt;
  return int64_t(e);
}

Value RegionEmitter::emitPowF(Value x, Value y, Type compute) {
  auto c = [&](double v) { return constant(compute, v); };
  // x^n for a constant whole n in [-1, 4] (GELU's x^3, RMSNorm's x^2):
  // products, within an ulp or two of the exact power where exp(n log |x|)
  // loses a few more, with pow's special values (x^0 = 1 even for NaN,
  // x^-1 = 1 / x: inf of x's sign at a zero).
  if (std::optional<int64_t> n = smallWholeExponent(y)) {
    if (*n == 0)
      return c(1.0);
    Value power = x;
    for (int64_t i = 1; i < std::abs(*n); ++i)
      power = arith::MulFOp::create(b, loc, power, x);
    if (*n < 0)
      power = arith::DivFOp::create(b, loc, c(1.0), power);
    return power;
  }
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
    return Value(arith::CmpFOp::create(b, loc, p, l, r));
  };
  Value magnitude = math::ExpOp::create(
      b, loc,
      arith::MulFOp::create(
          b, loc, y,
          math::LogOp::create(b, loc, math::AbsFOp::create(b, loc, x))));
  Value isInteger =
      cmp(arith::CmpFPredicate::OEQ, math::FloorOp::create(b, loc, y), y);
  Value half = arith::MulFOp::create(b, loc, y, c(0.5));
  Value isOdd =
      arith::AndIOp::create(b, loc, isInteger,
                            cmp(arith::CmpFPredicate::UNE,
                                math::FloorOp::create(b, loc, half), half));
  Value negative = cmp(arith::CmpFPredicate::OLT, x, c(0));
  Value signed_ = arith::SelectOp::create(
      b, loc, isOdd, arith::NegFOp::create(b, loc, magnitude), magnitude);
  Value ofNegative = arith::SelectOp::create(
      b, loc, isInteger, signed_, c(std::numeric_limits<double>::quiet_NaN()));
  Value result =
      arith::SelectOp::create(b, loc, negative, ofNegative, magnitude);
  Value one =
      arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OEQ, y, c(0)),
                           cmp(arith::CmpFPredicate::OEQ, x, c(1)));
  return arith::SelectOp::create(b, loc, one, c(1), result);
}

Value RegionEmitter::emitExp(Value x) {
  if (getElementTypeOrSelf(x.getType()).isF64())
    return emitExpF64(x);
  return math::ExpOp::create(b, loc, x);
}

Value RegionEmitter::emitLog(Value x) {
  if (getElementTypeOrSelf(x.getType()).isF64())
    return emitLogF64(x);
  return math::LogOp::create(b, loc, x);
}

Value RegionEmitter::emitAtan(Value x, Type compute) {
  auto c = [&](double v) { return constant(compute, v); };
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
    return Value(arith::CmpFOp::create(b, loc, p, l, r));
  };
  Value a = math::AbsFOp::create(b, loc, x);
  Value large = cmp(arith::CmpFPredicate::OGT, a, c(2.414213562373095));
  Value middle = cmp(arith::CmpFPredicate::OGT, a, c(0.4142135623730950));
  Value reduced = arith::SelectOp::create(
      b, loc, middle,
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, a, c(1)),
                            arith::AddFOp::create(b, loc, a, c(1))),
      a);
  reduced = arith::SelectOp::create(
      b, loc, large, arith::DivFOp::create(b, loc, c(-1), a), reduced);
  Value offset = arith::SelectOp::create(
      b, loc, large, c(M_PI_2),
      arith::SelectOp::create(b, loc, middle, c(M_PI_4), c(0)));
  Value z = arith::MulFOp::create(b, loc, reduced, reduced);
  Value p = c(8.05374449538e-2);
  for (double k : {-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1})
    p = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, p, z),
                              c(k));
  Value y = arith::AddFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, p, z),
                            reduced),
      reduced);
  y = arith::AddFOp::create(b, loc, offset, y);
  return math::CopySignOp::create(b, loc, y, x);
}

func::FuncOp createKernelFunc(OpBuilder &b, ModuleOp module, Location loc,
                              StringRef name) {
  b.setInsertionPointToEnd(module.getBody());
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto type = b.getFunctionType({ptr, b.getI64Type(), b.getI64Type()}, {});
  auto func = func::FuncOp::create(b, loc, name, type);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  func::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(entry);
  return func;
}

HostKernel openKernel(OpBuilder &b, ModuleOp module, Location loc,
                      StringRef name, fd::FusionOp fusion,
                      unsigned numOutputs) {
  HostKernel kernel;
  kernel.func = createKernelFunc(b, module, loc, name);
  kernel.buffers = kernel.func.getArgument(0);
  kernel.pointers = loadInputPointers(b, loc, fusion, kernel.buffers);
  unsigned numInputs = fusion.getInputs().size();
  for (unsigned k = 0; k < numOutputs; ++k)
    kernel.outputs.push_back(
        bufferPointer(b, loc, kernel.buffers, numInputs + k));
  // A fusion with runtime dims and no input (an iota alone): its first
  // output's pointer, by the fusion's own result (which no value inside
  // names), tells the region emitter the kernel whose dims array to read
  // (RegionEmitterBase::dimsKernel).
  if (numInputs == 0 && numOutputs > 0 && fusion->hasAttr(kRuntimeDimsAttr))
    kernel.pointers[fusion->getResult(0)] = kernel.outputs.front();
  return kernel;
}

Value bufferPointer(OpBuilder &b, Location loc, Value buffers, int32_t i) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value slot =
      LLVM::GEPOp::create(b, loc, ptr, ptr, buffers, ArrayRef<LLVM::GEPArg>{i});
  return LLVM::LoadOp::create(b, loc, ptr, slot, 8);
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

Value clampedLanes(OpBuilder &b, Location loc, Value position, unsigned width,
                   unsigned valid, int64_t step) {
  auto type = VectorType::get({width}, b.getI64Type());
  SmallVector<int64_t> steps;
  for (unsigned lane = 0; lane < width; ++lane)
    steps.push_back(int64_t(valid ? std::min(lane, valid - 1) : lane) * step);
  Value offsets = arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, ArrayRef(steps)));
  return arith::AddIOp::create(
      b, loc, vector::BroadcastOp::create(b, loc, type, position), offsets);
}

FailureOr<PeeledLoop>
emitPeeledLoop(OpBuilder &b, Location loc, Value lo, Value hi, unsigned width,
               int64_t block, const DenseMap<Value, Value> &pointers,
               const DenseMap<Value, Value> &seeds, ValueRange vectorInit,
               ValueRange scalarInit, StepBody body, unsigned unroll,
               bool scalarTail, StepsDone stepsDone) {
  Value count = arith::SubIOp::create(b, loc, hi, lo);
  auto roundDown = [&](unsigned step) {
    Value steps = arith::MulIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc, count, i64Constant(b, loc, step)),
        i64Constant(b, loc, step));
    return Value(arith::AddIOp::create(b, loc, lo, steps));
  };
  Value vectorEnd = roundDown(width);
  PeeledLoop result;
  bool failedBody = false;
  SmallVector<Value> copies;
  if (unroll > 1) {
    Value unrolledEnd = roundDown(width * unroll);
    unsigned n = vectorInit.size();
    SmallVector<Value> init;
    for (unsigned k = 0; k < unroll; ++k)
      llvm::append_range(init, vectorInit);
    auto loop = scf::ForOp::create(
        b, loc, lo, unrolledEnd, i64Constant(b, loc, int64_t(width) * unroll),
        init,
        [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
          SmallVector<Value> next;
          for (unsigned k = 0; k < unroll && !failedBody; ++k) {
            Value at =
                k == 0
                    ? iv
                    : Value(arith::AddIOp::create(
                          nested, nestedLoc, iv,
                          i64Constant(nested, nestedLoc, int64_t(k) * width)));
            FailureOr<SmallVector<Value>> step = runStep<RegionEmitter>(
                nested, nestedLoc, width, pointers, seeds,
                {Index::Contiguous, at, block}, args.slice(k * n, n), body);
            if (failed(step)) {
              failedBody = true;
              break;
            }
            llvm::append_range(next, *step);
          }
          if (!failedBody && stepsDone &&
              failed(stepsDone(nested, {Index::Contiguous, iv, block}, unroll)))
            failedBody = true;
          if (failedBody) {
            scf::YieldOp::create(nested, nestedLoc, args);
            return;
          }
          scf::YieldOp::create(nested, nestedLoc, next);
        });
    copies.assign(loop.getResults().begin(), loop.getResults().end());
    vectorInit = ValueRange(copies).take_front(n);
    // The W-step loop below continues copy 0; the others are done.
    result.vectorResults.assign(copies.begin(), copies.end());
    lo = unrolledEnd;
  }
  auto makeLoop = [&](Value from, Value to, unsigned w, ValueRange init) {
    auto loop = scf::ForOp::create(
        b, loc, from, to, i64Constant(b, loc, w), init,
        [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
          Index index{w == 1 ? Index::Uniform : Index::Contiguous, iv, block};
          yieldStep<RegionEmitter>(nested, nestedLoc, w, pointers, seeds, index,
                                   args, body, failedBody);
          if (w != 1 && stepsDone && !failedBody) {
            OpBuilder::InsertionGuard guard(nested);
            nested.setInsertionPoint(
                nested.getInsertionBlock()->getTerminator());
            if (failed(stepsDone(nested, index, 1)))
              failedBody = true;
          }
        });
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> first = makeLoop(lo, vectorEnd, width, vectorInit);
  if (unroll > 1)
    llvm::copy(first, result.vectorResults.begin());
  else
    result.vectorResults = first;
  if (scalarTail)
    result.scalarResults = makeLoop(vectorEnd, hi, 1, scalarInit);
  else
    result.scalarResults.assign(scalarInit.begin(), scalarInit.end());
  if (failedBody)
    return failure();
  return result;
}

DenseMap<Value, Value> loadInputPointers(OpBuilder &b, Location loc,
                                         fd::FusionOp fusion, Value buffers) {
  DenseMap<Value, Value> pointers;
  for (BlockArgument arg : fusion.getBody().front().getArguments())
    pointers[arg] = bufferPointer(b, loc, buffers, arg.getArgNumber());
  SmallVector<Operation *> checked = frontend::checkedOps(fusion);
  if (checked.empty())
    return pointers;
  Value record = bufferPointer(b, loc, buffers, -1);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  for (auto [slot, op] : llvm::enumerate(checked))
    pointers[op->getResult(0)] = LLVM::GEPOp::create(
        b, loc, ptr, b.getI64Type(), record,
        ArrayRef<LLVM::GEPArg>{int32_t(slot * kErrorRecordWordsPerCheck)});
  return pointers;
}

FailureOr<ReductionInfo> classifyReduction(fd::ReduceOp reduce,
                                           StringRef schedule) {
  Type element = elementTypeOf(reduce.getResult());
  if (!isa<IntegerType, FloatType>(element))
    return reduce.emitOpError()
           << "cannot be generated for the host in a " << schedule
           << " kernel: element type " << element << " is not supported";
  return reductionInfo(reduce);
}

} // namespace host
} // namespace fuse
