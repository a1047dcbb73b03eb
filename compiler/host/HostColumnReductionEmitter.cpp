//===- HostColumnReductionEmitter.cpp - Host column reductions ------------===//
//
// A column (outer-dimension) reduction views its operand as [outer, reduced,
// inner] (inner: the kept dims after the last reduced one; outer: the other
// kept dims, which may sit between reduced ones) and reduces the middle:
// out[o, i] = combine over r of x[o, r, i]. One iteration is a chunk
// of kChunkVectors vectors of columns of one outer index; each vector of
// columns (then each single column of the tail) runs one pass down the
// reduced rows per reduction, in order (a later one may read an earlier
// one broadcast back, as a column variance reads the column mean), then a
// pass that stores the results over the whole domain, then the stores of
// the per-column results. Accumulators are vectors across columns: no
// horizontal reduction, every load is a contiguous row segment. Argmax and
// argmin take this schedule whatever their axis (with columns of one element
// when it is the last): a scan in order down the rows, lane by lane, has
// the reference's NaN and tie rules exactly.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"
#include "passes/ScheduleLegality.h"

using namespace mlir;
using namespace ::fuse::host;
namespace fd = mlir::fuse;

namespace fuse {

namespace {

/// Column vectors per iteration.
constexpr int64_t kChunkVectors = 4;
/// Elements per scheduling grain, about.
constexpr int64_t kGrainElements = 16384;

LogicalResult unsupportedColumns(Operation *op, const Twine &why) {
  return op->emitOpError()
         << "cannot be generated for the host in a column_reduction kernel: "
         << why;
}

/// The operand position of the index-th element of `runs` in row-major
/// order.
Value positionOf(OpBuilder &b, Location loc, Value index,
                 ArrayRef<fd::DimRun> runs) {
  Value position = i64Constant(b, loc, 0);
  int64_t innerSize = 1;
  for (int64_t i = int64_t(runs.size()) - 1; i >= 0; --i) {
    Value coordinate = index;
    if (innerSize != 1)
      coordinate = arith::DivUIOp::create(b, loc, coordinate,
                                          i64Constant(b, loc, innerSize));
    if (i != 0)
      coordinate = arith::RemUIOp::create(b, loc, coordinate,
                                          i64Constant(b, loc, runs[i].size));
    position = arith::AddIOp::create(
        b, loc, position,
        arith::MulIOp::create(b, loc, coordinate,
                              i64Constant(b, loc, runs[i].stride)));
    innerSize *= runs[i].size;
  }
  return position;
}

/// A reduction of the kernel: a fuse.reduce, or an argmax/argmin that
/// scans the reduced dim in order (NaN wins, ties go to the first index or,
/// with select_last_index, the last), as the reference does.
struct ColumnItem {
  Operation *op;
  Value operand;
  SmallVector<int64_t> dims;
  std::optional<ReductionInfo> reduce;
  bool isMax = false, selectLast = false;
  /// A ui operand: argmax and argmin compare unsigned.
  bool isUnsigned = false;
};

FailureOr<ColumnItem> classifyItem(Operation *op) {
  ColumnItem item{op, op->getOperand(0), {}, std::nullopt};
  if (auto reduce = dyn_cast<fd::ReduceOp>(op)) {
    FailureOr<ReductionInfo> info =
        classifyReduction(reduce, "column_reduction");
    if (failed(info))
      return failure();
    item.reduce = *info;
    item.dims.assign(reduce.getDims().begin(), reduce.getDims().end());
    return item;
  }
  if (elementTypeOf(item.operand).isInteger(1))
    return unsupportedColumns(op, "argmax and argmin of i1 are not supported");
  item.isUnsigned = isUnsignedElement(elementTypeOf(item.operand));
  if (auto arg = dyn_cast<fd::ArgMaxOp>(op)) {
    item.isMax = true;
    item.selectLast = arg.getSelectLastIndex();
    item.dims.push_back(arg.getAxis());
  } else {
    auto argMin = cast<fd::ArgMinOp>(op);
    item.selectLast = argMin.getSelectLastIndex();
    item.dims.push_back(argMin.getAxis());
  }
  return item;
}

/// One step of an argmax/argmin scan: whether `x` (at index `r`) replaces
/// `best`.
Value argTakes(OpBuilder &b, Location loc, const ColumnItem &item, Value x,
               Value best, RegionEmitter &e) {
  Type element = getElementTypeOrSelf(x.getType());
  if (isa<FloatType>(element)) {
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
      return Value(arith::CmpFOp::create(b, loc, p, l, r));
    };
    Value better =
        cmp(item.isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
            x, best);
    if (item.selectLast)
      better = arith::OrIOp::create(b, loc, better,
                                    cmp(arith::CmpFPredicate::OEQ, x, best));
    Value xNaN = cmp(arith::CmpFPredicate::UNO, x, x);
    Value bestNaN = cmp(arith::CmpFPredicate::UNO, best, best);
    Value afterNaN = item.selectLast
                         ? xNaN
                         : e.constant(IntegerType::get(b.getContext(), 1), 0);
    return arith::SelectOp::create(b, loc, bestNaN, afterNaN,
                                   arith::OrIOp::create(b, loc, xNaN, better));
  }
  auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
    return Value(arith::CmpIOp::create(b, loc, p, l, r));
  };
  arith::CmpIPredicate greater =
      item.isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
  arith::CmpIPredicate less =
      item.isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  Value better = cmp(item.isMax ? greater : less, x, best);
  if (item.selectLast)
    better = arith::OrIOp::create(b, loc, better,
                                  cmp(arith::CmpIPredicate::eq, x, best));
  return better;
}

} // namespace

FailureOr<FusionKernels> emitHostColumnReduction(fd::FusionOp fusion,
                                                 ModuleOp module,
                                                 StringRef prefix,
                                                 unsigned width) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  FailureOr<fd::ColumnSchedule> layout =
      fd::analyzeColumnReduction(fusion, fd::ScheduleTarget::host(width));
  if (failed(layout))
    return failure();
  SmallVector<ColumnItem> items;
  for (Operation *op : layout->reductions) {
    FailureOr<ColumnItem> item = classifyItem(op);
    if (failed(item))
      return failure();
    items.push_back(*item);
  }
  int64_t outer = layout->outer, reduced = layout->reduced,
          inner = layout->inner;
  ArrayRef<unsigned> domainResults = layout->domainResults,
                     columnResults = layout->columnResults;

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_columns").str();
  func::FuncOp func = createKernelFunc(b, module, loc, name);
  Value buffers = func.getArgument(0);
  DenseMap<Value, Value> pointers = loadInputPointers(b, loc, fusion, buffers);
  unsigned numInputs = fusion.getInputs().size();
  SmallVector<Value> outputs;
  for (unsigned k = 0; k < yield.getValues().size(); ++k)
    outputs.push_back(bufferPointer(b, loc, buffers, numInputs + k));
  SmallVector<Value> domainOutputs = outputsOf(outputs, domainResults);
  SmallVector<Value> columnOutputs = outputsOf(outputs, columnResults);
  auto c = [&](int64_t value) { return i64Constant(b, loc, value); };

  int64_t chunk = kChunkVectors * width;
  int64_t chunks = (inner + chunk - 1) / chunk;
  auto chunkLoop = scf::ForOp::create(b, loc, func.getArgument(1),
                                      func.getArgument(2), c(1));
  b.setInsertionPoint(chunkLoop.getBody()->getTerminator());
  Value iv = chunkLoop.getInductionVar();
  Value o = arith::DivUIOp::create(b, loc, iv, c(chunks));
  Value c0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, iv, c(chunks)), c(chunk));
  Value cEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, c0, c(chunk)), c(inner));
  Value vectorEnd = arith::AddIOp::create(
      b, loc, c0,
      arith::MulIOp::create(
          b, loc,
          arith::DivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, cEnd, c0), c(width)),
          c(width)));
  Value domainBase = positionOf(b, loc, o, layout->outerRuns);
  Value columnBase = arith::MulIOp::create(b, loc, o, c(inner));

  bool broken = false;
  // An argmax/argmin: the best value and its index per column, carried down
  // the rows.
  auto emitArgScan = [&](OpBuilder &nb, RegionEmitter &constants,
                         const ColumnItem &item, unsigned w,
                         DenseMap<Value, Value> &seeds, auto &&rowLoop) {
    Type element = computeType(elementTypeOf(item.operand));
    Value best;
    if (isa<FloatType>(element)) {
      best = constants.constant(
          element, item.isMax ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity());
    } else {
      unsigned bits = element.getIntOrFloatBitWidth();
      APInt lowest = item.isUnsigned ? APInt::getZero(bits)
                                     : APInt::getSignedMinValue(bits);
      APInt highest = item.isUnsigned ? APInt::getMaxValue(bits)
                                      : APInt::getSignedMaxValue(bits);
      TypedAttr worst =
          IntegerAttr::get(element, item.isMax ? lowest : highest);
      Type type = constants.vectorOf(element);
      if (w != 1)
        worst = DenseElementsAttr::get(cast<ShapedType>(type),
                                       mlir::Attribute(worst));
      best = arith::ConstantOp::create(nb, loc, type, worst);
    }
    Value index = constants.constant(nb.getI64Type(), 0);
    auto loop =
        rowLoop(ValueRange{best, index},
                [&](OpBuilder &rb, RegionEmitter &e, Index at,
                    ValueRange acc) -> FailureOr<SmallVector<Value>> {
                  FailureOr<Value> x = e.emit(item.operand, at);
                  if (failed(x))
                    return failure();
                  Value take = argTakes(rb, loc, item, *x, acc[0], e);
                  Value r = rb.getInsertionBlock()->getArgument(0);
                  if (w != 1)
                    r = vector::BroadcastOp::create(
                        rb, loc, VectorType::get({w}, rb.getI64Type()), r);
                  return SmallVector<Value>{
                      arith::SelectOp::create(rb, loc, take, *x, acc[0]),
                      arith::SelectOp::create(rb, loc, take, r, acc[1])};
                });
    seeds[item.op->getResult(0)] = loop.getResult(1);
  };
  // The passes over one vector (or one column) of columns starting at `col`.
  auto columnStep = [&](OpBuilder &nb, Value col, unsigned w) {
    auto indexAt = [&](Value position) -> Index {
      if (w == 1)
        return {Index::Uniform, position};
      return {Index::Contiguous, position, inner % w == 0 ? int64_t(w) : inner};
    };
    auto rowPosition = [&](OpBuilder &rb, Value r) -> Value {
      return arith::AddIOp::create(
          rb, loc,
          arith::AddIOp::create(rb, loc, domainBase,
                                positionOf(rb, loc, r, layout->reducedRuns)),
          col);
    };
    DenseMap<Value, Value> seeds;
    auto rowLoop = [&](ValueRange init, auto &&step) {
      return scf::ForOp::create(
          nb, loc, i64Constant(nb, loc, 0), i64Constant(nb, loc, reduced),
          i64Constant(nb, loc, 1), init,
          [&](OpBuilder &rb, Location, Value r, ValueRange acc) {
            yieldStep<RegionEmitter>(
                rb, loc, w, pointers, seeds, indexAt(rowPosition(rb, r)), acc,
                [&](RegionEmitter &e, Index at, ValueRange carried) {
                  return step(rb, e, at, carried);
                },
                broken);
          });
    };
    for (ColumnItem &item : items) {
      RegionEmitter constants(nb, loc, w, pointers);
      if (!item.reduce) {
        emitArgScan(nb, constants, item, w, seeds, rowLoop);
        continue;
      }
      ReductionInfo &r = *item.reduce;
      Value init = reductionIdentity(constants, r);
      auto loop = rowLoop(
          init, [&](OpBuilder &, RegionEmitter &e, Index index,
                    ValueRange acc) { return combineStep(e, r, index, acc); });
      Value result = loop.getResult(0);
      result = finishReduction(nb, loc, constants, r, result, reduced);
      seeds[r.op.getResult()] = result;
    }
    if (!domainResults.empty())
      rowLoop({}, [&](OpBuilder &, RegionEmitter &e, Index index, ValueRange) {
        return storeAndCombine(e, index, yield.getValues(), domainResults,
                               domainOutputs, {}, {});
      });
    Index at = indexAt(arith::AddIOp::create(nb, loc, columnBase, col));
    if (failed(storeSeededResults<RegionEmitter>(nb, loc, w, pointers, seeds,
                                                 at, yield.getValues(),
                                                 columnResults, columnOutputs)))
      broken = true;
  };
  for (auto [from, to, w] : {std::make_tuple(c0, vectorEnd, width),
                             std::make_tuple(vectorEnd, cEnd, 1u)}) {
    auto loop = scf::ForOp::create(b, loc, from, to, c(w));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    columnStep(b, loop.getInductionVar(), w);
  }
  if (broken)
    return failure();

  KernelPlan plan = kernelPlan(name, "", ScheduleKind::ColumnReduction,
                               numInputs, outputs.size());
  plan.launch.iterations = outer * chunks;
  plan.launch.grain = std::max<int64_t>(
      1, kGrainElements / std::max<int64_t>(1, reduced * chunk));
  return singleKernel(std::move(plan));
}

} // namespace fuse
