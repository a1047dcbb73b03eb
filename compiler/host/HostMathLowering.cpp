//===- HostMathLowering.cpp - The host's own lowering of math ops ---------===//

#include "compiler/host/HostMathLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace fuse {

namespace {

using namespace mlir;

/// Whether the host's own lowerings take `type`: f32 or a 1-D vector of it.
bool isF32OrVector(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return getElementTypeOrSelf(type).isF32() &&
         (!vector || vector.getRank() == 1);
}

/// A constant of `type` (f32, or a vector of f32) with every element `value`.
Value f32Constant(PatternRewriter &b, Location loc, Type type, float value) {
  TypedAttr attr = b.getF32FloatAttr(value);
  if (auto vector = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vector, Attribute(attr));
  return arith::ConstantOp::create(b, loc, type, attr);
}

/// `bound` where `predicate(bound, x)` holds, else x: a clamp from one side
/// that keeps a NaN x (the compare is false), vminps or vmaxps on x86.
Value clampBy(PatternRewriter &b, Location loc, arith::CmpFPredicate predicate,
              Value bound, Value x) {
  Value outside = arith::CmpFOp::create(b, loc, predicate, bound, x);
  return arith::SelectOp::create(b, loc, outside, bound, x);
}

/// e^r on [-ln2/2, ln2/2] as 1 + r (c1 + r (c2 + ... + r c5)): the minimax
/// polynomial of relative error with p(0) = 1 (Lawson's algorithm), rounded
/// to f32; 9.2e-8 before the rounding. With the reduction below, exp is
/// within 2.0 ulp of the exact result over every f32 in [-104, 89] (all of
/// them tried against libm's f64 exp; below -87.33 the result is now 0, see
/// ExpF32), and exactly 1 at 0.
constexpr float kExpCoefficients[] = {0x1.fffff6p-1f, 0x1.fffdc4p-2f,
                                      0x1.555a6ep-3f, 0x1.573ad0p-5f,
                                      0x1.0fa7d8p-7f};

/// x = n ln2 + r, n = round(x / ln2) by adding and subtracting 1.5 * 2^23
/// (two vector instructions where a round is two and slower), ln2 in two
/// parts through FMAs; e^x = 2^n p(r). x is clamped first, so that n fits
/// the scale (from above only where kExpOfNonPositive does not say that x
/// is at most 0); the clamps keep NaN (a compare with NaN is false, and the
/// select then takes x).
///
/// On AVX-512 the scale is vscalefps: one instruction, overflow to inf as
/// IEEE rounds p 2^n; results below about 2^-126 are 0 (kLowestNormalInput).
/// Where the vector is not 16
/// lanes (a scalar tail), the same p 2^n is built from two powers of two
/// that are normal numbers, so that only the last product rounds: the same
/// bits as vscalefps. Without AVX-512 (AVX2) the scale is 2^(n-1) read from
/// the bits of the rounded sum (its low bits hold n + 126 when the constant
/// added is 1.5 * 2^23 + 126) and the polynomial's coefficients are doubled
/// (exact): two instructions, and results below 2^-125 (x < -87) flush to 0.
struct ExpF32 : OpRewritePattern<math::ExpOp> {
  /// On AVX-512, x is clamped from below at kLowestNormalInput, where n =
  /// -126 and p >= 1, so the scale's product is a normal number, and the
  /// result is selected to 0 for x below it: results under about 2^-126
  /// flush to 0 (an absolute error under 1.2e-38). A subnormal or underflowing
  /// product (x clamped at -104 before) costs a microcode assist per vector
  /// on Intel cores without flush-to-zero: a causal or padding mask's
  /// -3.4e38 (every masked score) made Llama's attention at 128 tokens take
  /// 0.26 ms, 0.12 with a finite mask (fuse-run --profile).
  static constexpr float kLowestNormalInput = -87.33f;

  ExpF32(MLIRContext *context, bool avx512, PatternBenefit benefit)
      : OpRewritePattern(context, benefit), avx512(avx512) {}

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &b) const override {
    Type type = op.getType();
    if (!isF32OrVector(type))
      return failure();
    auto vector = dyn_cast<VectorType>(type);
    Location loc = op.getLoc();
    auto f = [&](float value) { return f32Constant(b, loc, type, value); };
    Value x =
        clampBy(b, loc, arith::CmpFPredicate::OGT,
                f(avx512 ? kLowestNormalInput : -87.3365448f), op.getOperand());
    if (!op->hasAttr(kExpOfNonPositive))
      x = clampBy(b, loc, arith::CmpFPredicate::OLT, f(88.75f), x);
    float magic = avx512 ? 0x1.8p23f : 0x1.8p23f + 126.0f;
    Value t = math::FmaOp::create(b, loc, x, f(0x1.715476p+0f), f(magic));
    Value n = arith::SubFOp::create(b, loc, t, f(magic));
    Value r = math::FmaOp::create(b, loc, n, f(-0x1.62e43p-1f), x);
    r = math::FmaOp::create(b, loc, n, f(0x1.05c61p-29f), r);
    float factor = avx512 ? 1.0f : 2.0f;
    Value p = f(factor * kExpCoefficients[4]);
    for (int k = 3; k >= 0; --k)
      p = math::FmaOp::create(b, loc, p, r, f(factor * kExpCoefficients[k]));
    p = math::FmaOp::create(b, loc, p, r, f(factor));
    Value result;
    if (!avx512)
      result = arith::MulFOp::create(b, loc, p, bitsShifted(b, loc, type, t));
    else if (vector && vector.getNumElements() % 16 == 0)
      result = scalef(b, loc, vector, p, n);
    else
      result = exactScale(b, loc, type, p, t, f(magic));
    if (avx512) {
      Value below =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                op.getOperand(), f(kLowestNormalInput));
      result = arith::SelectOp::create(b, loc, below, f(0.0f), result);
    }
    b.replaceOp(op, result);
    return success();
  }

  /// The bits of `t` shifted left by 23, as f32.
  static Value bitsShifted(PatternRewriter &b, Location loc, Type type,
                           Value t) {
    Type i32 = integerType(b, type);
    Value bits = arith::BitcastOp::create(b, loc, i32, t);
    Value shifted =
        arith::ShLIOp::create(b, loc, bits, i32Constant(b, loc, i32, 23));
    return arith::BitcastOp::create(b, loc, type, shifted);
  }

  /// p * 2^n by vscalefps, 16 lanes at a time.
  static Value scalef(PatternRewriter &b, Location loc, VectorType type,
                      Value p, Value n) {
    auto lanes16 = VectorType::get({16}, type.getElementType());
    Value all = LLVM::ConstantOp::create(b, loc, b.getI16Type(),
                                         b.getI16IntegerAttr(-1));
    // _MM_FROUND_CUR_DIRECTION: the product rounds as MXCSR says.
    Value rounding = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                              b.getI32IntegerAttr(4));
    auto one = [&](Value p16, Value n16) {
      return LLVM::CallIntrinsicOp::create(
                 b, loc, lanes16,
                 b.getStringAttr("llvm.x86.avx512.mask.scalef.ps.512"),
                 ValueRange{p16, n16, p16, all, rounding})
          .getResult(0);
    };
    int64_t count = type.getNumElements();
    if (count == 16)
      return one(p, n);
    Value result = p;
    for (int64_t offset = 0; offset < count; offset += 16) {
      auto slice = [&](Value v) {
        return vector::ExtractStridedSliceOp::create(b, loc, v, {offset}, {16},
                                                     {1});
      };
      result = vector::InsertStridedSliceOp::create(
          b, loc, one(slice(p), slice(n)), result, {offset}, {1});
    }
    return result;
  }

  /// p * 2^n as (p * 2^a) * 2^(n - a), a = max(n - 1, -125): both powers
  /// normal numbers, the first product exact (p is in [0.7, 1.42]), the
  /// second the only rounding, as vscalefps rounds. n is the difference of
  /// the bits of t = magic + n and of magic (one binade): unlike a
  /// conversion, defined for a NaN t too (whose p is NaN).
  static Value exactScale(PatternRewriter &b, Location loc, Type type, Value p,
                          Value t, Value magic) {
    Type i32 = integerType(b, type);
    Value ni =
        arith::SubIOp::create(b, loc, arith::BitcastOp::create(b, loc, i32, t),
                              arith::BitcastOp::create(b, loc, i32, magic));
    Value a = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ni, i32Constant(b, loc, i32, 1)),
        i32Constant(b, loc, i32, -125));
    Value rest = arith::SubIOp::create(b, loc, ni, a);
    auto power = [&](Value e) {
      Value biased =
          arith::AddIOp::create(b, loc, e, i32Constant(b, loc, i32, 127));
      return arith::BitcastOp::create(
          b, loc, type,
          arith::ShLIOp::create(b, loc, biased, i32Constant(b, loc, i32, 23)));
    };
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, p, power(a)), power(rest));
  }

  static Type integerType(PatternRewriter &b, Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      return vector.clone(b.getI32Type());
    return b.getI32Type();
  }

  static Value i32Constant(PatternRewriter &b, Location loc, Type type,
                           int32_t value) {
    TypedAttr attr = b.getI32IntegerAttr(value);
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vector, Attribute(attr));
    return arith::ConstantOp::create(b, loc, type, attr);
  }

  bool avx512;
};

/// Whether `v` is a constant `value` (an f32, or a splat of it).
bool isConstant(Value v, double value) {
  APFloat constant(APFloat::Bogus());
  return matchPattern(v, m_ConstantFloat(&constant)) &&
         constant.isExactlyValue(value);
}

/// The operand of the commutative `op` other than `one`, if `op` is an `Op`
/// and one of its operands is `one`; else null.
template <typename Op> Value otherOperand(Operation *op, Value one) {
  if (!isa_and_present<Op>(op))
    return {};
  if (op->getOperand(0) == one)
    return op->getOperand(1);
  return op->getOperand(1) == one ? op->getOperand(0) : Value();
}

/// GELU's tanh form, x (1 + tanh u) / 2 (as ONNX's Gelu and the engine write
/// it, the half on x or on the product), as x / (1 + e^(-2u)): the same
/// function, since (1 + tanh u) / 2 = 1 / (1 + e^(-2u)). It is also closer
/// to GELU where u < -4, where 1 + tanh u cancels (at x = -5 the tanh form's
/// result is off by a third).
///
/// On AVX-512, 16 lanes at a time, the exponential costs 10 vector
/// instructions where tanh's rational form costs 13 and the products by 1 +
/// tanh and the half two more: llvm-mca (znver4) puts the GELU of the bench at
/// 16.5 cycles a vector of 16 instead of 22.3. e^w, w = -2u: n = round(w /
/// ln2), q = u + n ln2 / 2 = -r / 2 with r = w - n ln2 in [-ln2/2, ln2/2], e^r
/// = p(r) by ExpF32's polynomial with its coefficients scaled by powers of -2
/// (exact), taking q; then p 2^n (vscalefps). ln2 in one part: n ln2's error,
/// at most 128 * 1.9e-9, is 2.4e-7 of e^w at the ends and less inside. u is
/// clamped to [-100, 43] (vmaxps and vminps, which keep a NaN u NaN): e^w is
/// then at least e^-86, a normal number (a subnormal product costs a
/// microcode assist per vector on Intel cores, see ExpF32), whose 1 + e^w
/// rounds to 1, so that a large x gives x; and inf where x is very negative
/// (x / inf = -0, and -inf / inf = NaN, as the tanh form's -inf * 0 gives).
/// Elsewhere (a scalar tail, AVX2) e^(-2u) is a math.exp, which ExpF32
/// lowers: the same function, to within its 2 ulp.
struct GeluTanhF32 : OpRewritePattern<math::TanhOp> {
  GeluTanhF32(MLIRContext *context, bool avx512, PatternBenefit benefit)
      : OpRewritePattern(context, benefit), avx512(avx512) {}

  LogicalResult matchAndRewrite(math::TanhOp tanh,
                                PatternRewriter &b) const override {
    Type type = tanh.getType();
    if (!isF32OrVector(type) || !tanh->hasOneUse())
      return failure();
    // s = tanh u + 1, m = s a, then either a = x / 2 or y = m / 2.
    Operation *sum = *tanh->user_begin();
    Value one = otherOperand<arith::AddFOp>(sum, tanh.getResult());
    if (!one || !isConstant(one, 1.0) || !sum->hasOneUse())
      return failure();
    Operation *product = *sum->user_begin();
    Value a = otherOperand<arith::MulFOp>(product, sum->getResult(0));
    if (!a)
      return failure();
    Operation *root = nullptr;
    Value x;
    if (Operation *def = a.getDefiningOp(); isa_and_present<arith::MulFOp>(def))
      for (unsigned k : {0u, 1u})
        if (isConstant(def->getOperand(k), 0.5)) {
          x = def->getOperand(1 - k);
          root = product;
        }
    if (!root && product->hasOneUse()) {
      Operation *half = *product->user_begin();
      Value h = otherOperand<arith::MulFOp>(half, product->getResult(0));
      if (h && isConstant(h, 0.5)) {
        x = a;
        root = half;
      }
    }
    if (!root)
      return failure();
    Location loc = tanh.getLoc();
    b.setInsertionPoint(root);
    auto f = [&](float value) { return f32Constant(b, loc, type, value); };
    auto vector = dyn_cast<VectorType>(type);
    Value e;
    if (avx512 && vector && vector.getNumElements() % 16 == 0) {
      Value u = clampBy(b, loc, arith::CmpFPredicate::OLT, f(43.0f),
                        clampBy(b, loc, arith::CmpFPredicate::OGT, f(-100.0f),
                                tanh.getOperand()));
      constexpr float kMagic = 0x1.8p23f;
      Value t =
          math::FmaOp::create(b, loc, u, f(-2 * 0x1.715476p+0f), f(kMagic));
      Value n = arith::SubFOp::create(b, loc, t, f(kMagic));
      Value q = math::FmaOp::create(b, loc, n, f(0x1.62e43p-2f), u);
      float scale = -32.0f;
      Value p = f(scale * kExpCoefficients[4]);
      for (int k = 3; k >= 0; --k) {
        scale /= -2.0f;
        p = math::FmaOp::create(b, loc, p, q, f(scale * kExpCoefficients[k]));
      }
      p = math::FmaOp::create(b, loc, p, q, f(1.0f));
      e = ExpF32::scalef(b, loc, vector, p, n);
    } else {
      e = math::ExpOp::create(
          b, loc, arith::MulFOp::create(b, loc, tanh.getOperand(), f(-2.0f)));
    }
    Value d = arith::AddFOp::create(b, loc, e, f(1.0f));
    b.replaceOp(root, arith::DivFOp::create(b, loc, x, d));
    return success();
  }

  bool avx512;
};

/// An odd function as c P(c^2) / Q(c^2), c = x clamped to [-bound, bound]
/// (beyond which the function rounds to +-1 in f32), the coefficients from
/// the highest power down. The multiply by c comes after the division: with
/// P(0) / Q(0) the function's slope at 0 (to within 1e-7), c times it is
/// right for tiny and subnormal x as it is. NaN stays NaN (vminps and vmaxps
/// return x where it is NaN; vrangeps, which would clamp in one instruction,
/// returns the bound), +-inf gives +-1, -0 gives -0.
template <typename Op> struct OddRationalF32 : OpRewritePattern<Op> {
  OddRationalF32(MLIRContext *context, PatternBenefit benefit, float bound,
                 ArrayRef<float> numerator, ArrayRef<float> denominator)
      : OpRewritePattern<Op>(context, benefit), bound(bound),
        numerator(numerator), denominator(denominator) {}

  LogicalResult matchAndRewrite(Op op, PatternRewriter &b) const override {
    Type type = op.getType();
    if (!isF32OrVector(type))
      return failure();
    Location loc = op.getLoc();
    auto f = [&](float value) { return f32Constant(b, loc, type, value); };
    Value c = clampBy(
        b, loc, arith::CmpFPredicate::OGT, f(-bound),
        clampBy(b, loc, arith::CmpFPredicate::OLT, f(bound), op.getOperand()));
    Value c2 = arith::MulFOp::create(b, loc, c, c);
    auto horner = [&](ArrayRef<float> coefficients) {
      Value p = f(coefficients[0]);
      for (float k : coefficients.drop_front())
        p = math::FmaOp::create(b, loc, c2, p, f(k));
      return p;
    };
    Value ratio =
        arith::DivFOp::create(b, loc, horner(numerator), horner(denominator));
    b.replaceOp(op, arith::MulFOp::create(b, loc, c, ratio));
    return success();
  }

  float bound;
  ArrayRef<float> numerator, denominator;
};

/// tanh: MLIR's (and Eigen's) rational approximation, the same
/// coefficients. MLIR's form, c P / Q, loses precision where c P
/// underflows, so it selects x itself for |x| < 0.0004: an and, a compare
/// and a blend per vector that OddRationalF32 does without.
constexpr float kTanhBound = 7.99881172f;
constexpr float kTanhNumerator[] = {
    -2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
    5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
    4.89352455891786e-03f};
constexpr float kTanhDenominator[] = {
    1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
    4.89352518554385e-03f};

/// erf: Eigen's rational approximation on [-4, 4] (erf rounds to +-1
/// beyond): within 4.5e-7 of erf over every f32 in [-6, 6] (against libm's
/// f64 erf; 2.4 ulp at most, near 3.9). 18 vector instructions a vector of
/// 16, load and store included, where MLIR's three-interval approximation
/// took 38 (llvm-mca, znver4: 17 cycles against 34). BERT's GELU is
/// x/2 (1 + erf(x / sqrt 2)).
constexpr float kErfBound = 4.0f;
constexpr float kErfNumerator[] = {
    -2.72614225801306e-10f, 2.77068142495902e-08f,  -2.10102402082508e-06f,
    -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f,
    -1.60960333262415e-02f};
constexpr float kErfDenominator[] = {
    -1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
    -7.37332916720468e-03f, -1.42647390514189e-02f};

} // namespace

void populateHostMathPatterns(RewritePatternSet &patterns, bool avx512,
                              PatternBenefit benefit) {
  patterns.add<ExpF32>(patterns.getContext(), avx512, benefit);
  patterns.add<GeluTanhF32>(patterns.getContext(), avx512,
                            PatternBenefit(benefit.getBenefit() + 1));
  patterns.add<OddRationalF32<math::TanhOp>>(patterns.getContext(), benefit,
                                             kTanhBound, kTanhNumerator,
                                             kTanhDenominator);
  patterns.add<OddRationalF32<math::ErfOp>>(patterns.getContext(), benefit,
                                            kErfBound, kErfNumerator,
                                            kErfDenominator);
}

} // namespace fuse
