//===- PoolRuns.cpp - window reductions read by masked vector runs --------===//
//
// RegionEmitterBase::emitPoolRuns: a pool whose vector lies in one output
// row reads each window offset as one masked vector load (stride 1), or one
// of twice the lanes whose even elements are the lanes (stride 2), instead
// of a gather per offset. Measured on resnet18's 3x3/2 max pool of
// 64x112x112 (--profile, 2 threads): see the commit that added it.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/RegionEmitter.h"

#include "runtime/ir/CheckedInt.h"

#include <limits>

namespace fuse {
namespace codegen {

using namespace mlir;

namespace {

/// Coordinates a pool's window computes stay below this (so i64 arithmetic
/// on them, and i32 lane columns, are exact).
constexpr int64_t kRunCoordinateLimit = int64_t(1) << 30;

/// The identity of a pool's reduction in its operand's storage type
/// `element`: 0 for a mean, the least value for a max.
TypedAttr identityOf(fd::PoolOp pool, Type element) {
  Builder b(pool.getContext());
  if (pool.getKind() != fd::ReduceKind::max)
    return b.getFloatAttr(element, 0.0);
  if (isa<FloatType>(element))
    return b.getFloatAttr(element, -std::numeric_limits<double>::infinity());
  const unsigned bits = element.getIntOrFloatBitWidth();
  return b.getIntegerAttr(element,
                          isUnsignedElement(elementTypeOf(pool.getOperand()))
                              ? APInt::getZero(bits)
                              : APInt::getSignedMinValue(bits));
}

} // namespace

bool poolReadsRuns(fd::PoolOp pool, unsigned width) {
  if (width <= 1 || !isa<BlockArgument>(pool.getOperand()))
    return false;
  Type element = elementTypeOf(pool.getOperand());
  if (storageType(element) != computeType(element) ||
      storageType(element).getIntOrFloatBitWidth() < 32)
    return false;
  bool isMax = pool.getKind() == fd::ReduceKind::max;
  if (!isMax && !isa<FloatType>(element))
    return false;
  ArrayRef<int64_t> window = pool.getWindow(), strides = pool.getStrides(),
                    dilations = pool.getDilations(), pads = pool.getPads();
  ArrayRef<int64_t> in = shapeOf(pool.getOperand()),
                    out = shapeOf(pool.getResult());
  const size_t n = window.size();
  if (n == 0 || strides.back() < 1 || strides.back() > 2 ||
      out.back() < int64_t(width))
    return false;
  if (numElements(pool.getOperand().getType()) >= kRunCoordinateLimit ||
      numElements(pool.getResult().getType()) >= kRunCoordinateLimit)
    return false;
  for (size_t d = 0; d < n; ++d) {
    const int64_t outDim = out[out.size() - n + d];
    if ((CheckedInt(strides[d]) * (outDim + int64_t(width))).saturated() >=
            kRunCoordinateLimit ||
        (CheckedInt(dilations[d]) * window[d]).saturated() >=
            kRunCoordinateLimit ||
        pads[d] >= kRunCoordinateLimit || pads[n + d] >= kRunCoordinateLimit ||
        in[in.size() - n + d] >= kRunCoordinateLimit)
      return false;
  }
  return true;
}

Value RegionEmitterBase::emitPoolRuns(fd::PoolOp pool, Index index) {
  ArrayRef<int64_t> in = shapeOf(pool.getOperand()),
                    out = shapeOf(pool.getResult());
  const int64_t lastOut = out.back();
  if (!maskedVectorLoads() || index.kind != Index::Contiguous ||
      !poolReadsRuns(pool, width) || index.block < int64_t(width) ||
      lastOut % index.block != 0)
    return Value();
  Value operandPointer =
      argPointers.lookup(cast<BlockArgument>(pool.getOperand()));
  if (!operandPointer)
    return Value();
  ArrayRef<int64_t> window = pool.getWindow(), strides = pool.getStrides(),
                    dilations = pool.getDilations(), pads = pool.getPads();
  const int64_t n = window.size(), first = in.size() - n;
  const int64_t stride = strides.back(), lastIn = in.back();
  const int64_t padBegin = pads[n - 1];
  Type element = storageType(elementTypeOf(pool.getOperand()));
  const bool isMax = pool.getKind() == fd::ReduceKind::max;
  const bool isUnsigned = isUnsignedElement(elementTypeOf(pool.getOperand()));
  const bool isFloat = isa<FloatType>(element);

  // The position is row * lastOut + column: the row decodes into the
  // leading coordinate and the output coordinates of the other window dims
  // (scalars; the same at every vector of a row, which CSE merges), the
  // column is the first lane's (a constant in an unrolled row).
  Value row = divideIndex(index.value, lastOut);
  Value column = remainderIndex(index.value, lastOut);
  SmallVector<Value> outCoordinates(n - 1);
  Value rest = row;
  for (int64_t d = n - 2; d >= 0; --d) {
    outCoordinates[d] = remainderIndex(rest, out[first + d]);
    rest = divideIndex(rest, out[first + d]);
  }
  int64_t inInner = 1;
  SmallVector<int64_t> inStrides(n);
  for (int64_t d = n - 1; d >= 0; --d) {
    inStrides[d] = inInner;
    inInner *= in[first + d];
  }
  Value base = arith::MulIOp::create(b, loc, rest, i64(inInner));
  auto ult = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
        .getResult();
  };

  // Loads of `lanes` elements: the identity of the reduction in the lanes
  // outside the input.
  const int64_t loadLanes = stride * int64_t(width);
  auto wideType = VectorType::get({loadLanes}, element);
  auto maskType = VectorType::get({loadLanes}, b.getI1Type());
  auto i32Wide = VectorType::get({loadLanes}, b.getI32Type());
  Value identity = arith::ConstantOp::create(
      b, loc, wideType,
      DenseElementsAttr::get(wideType, identityOf(pool, element)));
  Value noLanes = arith::ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, false));
  SmallVector<int32_t> wideSteps;
  for (int64_t e = 0; e < loadLanes; ++e)
    wideSteps.push_back(int32_t(e));
  Value wideStepsValue = arith::ConstantOp::create(
      b, loc, i32Wide, DenseElementsAttr::get(i32Wide, ArrayRef(wideSteps)));
  auto combine = [&](Value x, Value y) -> Value {
    if (!isMax)
      return arith::AddFOp::create(b, loc, x, y);
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    if (isUnsigned)
      return arith::MaxUIOp::create(b, loc, x, y);
    return arith::MaxSIOp::create(b, loc, x, y);
  };
  // The first lane's column in the input at last-dim window offset `w`.
  auto columnAt = [&](int64_t w) {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, column, i64(stride)),
        i64(w * dilations[n - 1] - padBegin));
  };

  // The other window dims' offsets, each with its scalar input coordinates'
  // position and whether they lie inside the input.
  struct Offset {
    Value at, inside;
  };
  SmallVector<Offset> others;
  SmallVector<int64_t> offset(n - 1, 0);
  while (true) {
    Value at = base, inside;
    for (int64_t d = 0; d + 1 < n; ++d) {
      Value c = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, outCoordinates[d], i64(strides[d])),
          i64(offset[d] * dilations[d] - pads[d]));
      Value in_d = ult(c, i64(in[first + d]));
      inside =
          inside ? Value(arith::AndIOp::create(b, loc, inside, in_d)) : in_d;
      at = arith::AddIOp::create(
          b, loc, at, arith::MulIOp::create(b, loc, c, i64(inStrides[d])));
    }
    others.push_back({at, inside});
    int64_t d = n - 2;
    while (d >= 0 && ++offset[d] == window[d])
      offset[d--] = 0;
    if (d < 0)
      break;
  }

  SmallVector<int32_t> evens;
  for (unsigned j = 0; j < width; ++j)
    evens.push_back(int32_t(stride * j));
  Value result;
  for (int64_t w = 0; w < window[n - 1]; ++w) {
    Value start = columnAt(w);
    // Lane e reads column start + e: inside the row or the identity.
    Value startLanes = vector::BroadcastOp::create(
        b, loc, i32Wide,
        arith::TruncIOp::create(b, loc, b.getI32Type(), start));
    Value columns = arith::AddIOp::create(b, loc, startLanes, wideStepsValue);
    Value columnMask =
        ult(columns, arith::ConstantOp::create(
                         b, loc, i32Wide,
                         DenseElementsAttr::get(i32Wide, int32_t(lastIn))));
    Value acc;
    for (const Offset &o : others) {
      Value mask = o.inside ? Value(arith::SelectOp::create(
                                  b, loc, o.inside, columnMask, noLanes))
                            : columnMask;
      Value address = LLVM::GEPOp::create(
          b, loc, pointerType(), element, operandPointer,
          ValueRange{arith::AddIOp::create(b, loc, o.at, start)});
      Value loaded = LLVM::MaskedLoadOp::create(
          b, loc, wideType, address, mask, identity, storageBytes(element));
      acc = acc ? combine(acc, loaded) : loaded;
    }
    if (stride != 1)
      acc = LLVM::ShuffleVectorOp::create(b, loc, acc, acc, evens);
    result = result ? combine(result, acc) : acc;
  }
  if (isMax)
    return result;

  return arith::DivFOp::create(b, loc, result,
                               poolRunsCount(pool, outCoordinates, column));
}

Value RegionEmitterBase::poolRunsCount(fd::PoolOp pool,
                                       ArrayRef<Value> outCoordinates,
                                       Value column) {
  ArrayRef<int64_t> in = shapeOf(pool.getOperand());
  ArrayRef<int64_t> window = pool.getWindow(), strides = pool.getStrides(),
                    dilations = pool.getDilations(), pads = pool.getPads();
  const int64_t n = window.size(), first = in.size() - n;
  Type element = elementTypeOf(pool.getOperand());
  auto i64Vector = VectorType::get({width}, b.getI64Type());
  // Whether coordinate(s) `c` of dim `d` count: inside the input, or inside
  // its padding with count_include_pad (one unsigned compare). `splat`
  // makes `c`'s constants.
  auto counts = [&](Value c, int64_t d, auto splat) {
    const int64_t padB = pads[d], size = in[first + d];
    if (!pool.getCountIncludePad())
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                   splat(size))
          .getResult();
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                 arith::AddIOp::create(b, loc, c, splat(padB)),
                                 splat(size + padB + pads[n + d]))
        .getResult();
  };
  auto scalar = [&](int64_t v) { return i64(v); };
  auto lanes = [&](int64_t v) {
    return vector::BroadcastOp::create(b, loc, i64Vector, i64(v)).getResult();
  };
  // The other dims' count (a scalar): the product of each one's offsets
  // that count.
  Type f64 = b.getF64Type();
  Value product = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
  for (int64_t d = 0; d + 1 < n; ++d) {
    Value count = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
    for (int64_t k = 0; k < window[d]; ++k) {
      Value c = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, outCoordinates[d], i64(strides[d])),
          i64(k * dilations[d] - pads[d]));
      count = arith::AddFOp::create(
          b, loc, count,
          arith::UIToFPOp::create(
              b, loc, f64,
              arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                     counts(c, d, scalar))));
    }
    product = arith::MulFOp::create(b, loc, product, count);
  }
  Value otherCount =
      element.isF64()
          ? product
          : arith::TruncFOp::create(b, loc, element, product).getResult();
  // The last dim's (per lane): lane j's column (column + j) * stride -
  // begin + w * dilation.
  const int64_t stride = strides.back();
  Value lastCount = constant(element, 0.0);
  for (int64_t w = 0; w < window[n - 1]; ++w) {
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, column, i64(stride)),
        i64(w * dilations[n - 1] - pads[n - 1]));
    Value columns = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, i64Vector, start),
        arith::MulIOp::create(b, loc, laneSteps(), lanes(stride)));
    lastCount = arith::AddFOp::create(
        b, loc, lastCount,
        arith::SelectOp::create(b, loc, counts(columns, n - 1, lanes),
                                constant(element, 1.0),
                                constant(element, 0.0)));
  }
  return arith::MulFOp::create(
      b, loc, lastCount,
      vector::BroadcastOp::create(b, loc, vectorOf(element), otherCount));
}

} // namespace codegen
} // namespace fuse
