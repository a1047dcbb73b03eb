//===- HostColumnReductionEmitter.cpp - Host column reductions ------------===//
//
// A column (outer-dimension) reduction views its operand as [outer, reduced,
// inner] (inner: the kept dims after the last reduced one; outer: the other
// kept dims, which may sit between reduced ones) and reduces the middle:
// out[o, i] = combine over r of x[o, r, i]. One iteration is a chunk
// of kChunkVectors vectors of columns of one outer index; a whole chunk (as
// one vector of kChunkVectors x width lanes: that many registers side by
// side), then each vector of the rest, then each single column of the tail,
// runs one pass down the reduced rows per reduction, in order (a later one may
// read an earlier one broadcast back, as a column variance reads the column
// mean), then a pass that stores the results over the whole domain, then the
// stores of the per-column results. Accumulators are vectors across columns: no
// horizontal reduction, every load is a contiguous row segment. Argmax and
// argmin take this schedule whatever their axis (with columns of one element
// when it is the last): a scan in order down the rows, lane by lane, has
// the reference's NaN and tie rules exactly.
//
// One reduction alone (blockedRows) runs down the rows in blocks of
// kBlockRows, its partial results kept between blocks; over 512 rows or
// more (and fixed shapes) it is split into bands of rows (bandsOf): a
// partials kernel, one band of one outer index per iteration, and a finish
// kernel, one chunk of columns per iteration, that combines the bands.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/KernelPlan.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"
#include "passes/ScheduleLegality.h"

#include <numeric>

using namespace mlir;
using namespace ::fuse::codegen;
using namespace ::fuse::host;

namespace fuse {

namespace {

/// Column vectors per iteration.
constexpr int64_t kChunkVectors = 4;
/// Elements per scheduling grain, about.
constexpr int64_t kGrainElements = 16384;
/// Rows per block of a blocked column reduction (blockedRows): each block
/// reads this many rows side by side, one stream each along the row, the
/// partial results of the columns kept between blocks (in the output, or in
/// a band's partial row).
/// Measured on 2 AVX-512 cores (a C loop, 4096x4096 f32, medians): every
/// chunk down all 4096 rows 2.1 ms (a new 4 KiB page at each row: the
/// hardware prefetchers stop there), 1.1 ms in blocks of 4 or 8 rows, 1.15
/// of 16-32.
constexpr int64_t kBlockRows = 8;
/// Elements ahead of each row's load that a blocked column reduction
/// prefetches (into L2) in that row: 1 KiB of f32. A blocked kernel's chunk
/// is one vector, so that each step reads one line of each of the block's
/// rows, side by side (16 lanes of f32; with 8, AVX2, half a line, each line
/// prefetched twice). A C loop of each form (4096x4096 f32, 2 threads, the
/// caches flushed before each run, alternating with a read loop over the
/// same rows): chunks of 4 vectors without prefetches took 1.05-1.26 of the
/// read loop's time, one vector without them 1.17 at the fast phase, one
/// vector with them 0.99-1.03 (0.89-0.96 of the 4-vector chunks); 512 or
/// 1024 elements ahead were no better, prefetches into L1 worse.
constexpr int64_t kColumnPrefetch = 256;
/// A blocked column reduction over at least 2 x kMinBandRows rows is split
/// into bands of rows (at most kMaxBands, each at least kMinBandRows): a
/// partials kernel reduces each band over all the columns, one iteration per
/// band, into a partial row in scratch; a finish kernel combines the bands'
/// rows in order. Each thread then streams whole rows of a contiguous part
/// of the operand, where a split by columns gave each of its chunks a strip
/// of the rows (2 KiB of each 16 KiB row: the hardware prefetchers start
/// again at every row). A C loop of each form (4096x4096 f32, 2 threads,
/// huge pages, 10 alternating rounds): strips of 512 columns 24-36 GB/s,
/// bands of 256 or 512 rows 39-47. It also spreads a narrow operand (fewer
/// columns than one chunk) over the threads, which a split by columns
/// cannot.
constexpr int64_t kMinBandRows = 256;
constexpr int64_t kMaxBands = 16;

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

/// What the passes over the columns share: the schedule, the reductions,
/// the pointers, and the positions of the current chunk.
struct ColumnKernel {
  const fd::ColumnSchedule &layout;
  ArrayRef<ColumnItem> items;
  fd::YieldOp yield;
  Location loc;
  const DenseMap<Value, Value> &pointers;
  SmallVector<Value> domainOutputs, columnOutputs;
  /// The chunk's outer index as a position of the operand (domainBase) and
  /// of the column results (columnBase).
  Value domainBase, columnBase;
  /// Set when a body fails; the kernel fails once its loops are built.
  bool broken = false;
  /// A blocked kernel's rows of the current block, [rowBegin, rowEnd);
  /// null: all the reduced rows.
  Value rowBegin, rowEnd;
  /// A banded partials kernel's first row of the current band: the block
  /// that starts there starts from the identity, and the band's result is
  /// stored unfinished (its column output is the band's partial row).
  Value bandBegin;
  /// A banded finish kernel's partial rows: `bands` of them, `bandStride`
  /// elements apart, combined in order for each column.
  Value partials;
  int64_t bands = 0, bandStride = 0;
  /// A blocked kernel's inputs read at the operand's positions, which each
  /// row's step prefetches kColumnPrefetch elements ahead.
  SmallVector<std::pair<Value, Type>> prefetched;
};

/// The passes over one vector of `w` columns (or one column) starting at
/// `col`: one down the reduced rows per reduction, in order, then one that
/// stores the results over the whole domain, then the stores of the
/// per-column results.
class ColumnPasses {
public:
  ColumnPasses(ColumnKernel &kernel, OpBuilder &nb, Value col, unsigned w)
      : k(kernel), nb(nb), loc(kernel.loc), col(col), w(w) {}

  void emit();

private:
  Index indexAt(Value position) const {
    int64_t inner = k.layout.inner;
    if (w == 1)
      return {Index::Uniform, position};
    return {Index::Contiguous, position, inner % w == 0 ? int64_t(w) : inner};
  }
  Value rowPosition(OpBuilder &rb, Value r) {
    return arith::AddIOp::create(
        rb, loc,
        arith::AddIOp::create(rb, loc, k.domainBase,
                              positionOf(rb, loc, r, k.layout.reducedRuns)),
        col);
  }
  /// A loop down the reduced rows carrying `init`, its body `step`.
  template <class Step> scf::ForOp rowLoop(ValueRange init, Step &&step) {
    Value begin = k.rowBegin ? k.rowBegin : i64Constant(nb, loc, 0);
    Value end = k.rowEnd ? k.rowEnd : i64Constant(nb, loc, k.layout.reduced);
    return scf::ForOp::create(
        nb, loc, begin, end, i64Constant(nb, loc, 1), init,
        [&](OpBuilder &rb, Location, Value r, ValueRange acc) {
          yieldStep<RegionEmitter>(
              rb, loc, w, k.pointers, seeds, indexAt(rowPosition(rb, r)), acc,
              [&](RegionEmitter &e, Index at, ValueRange carried) {
                return step(rb, e, at, carried);
              },
              k.broken);
        });
  }
  void emitArgScan(RegionEmitter &constants, const ColumnItem &item);
  void emitReduction(RegionEmitter &constants, ReductionInfo r);
  void emitBandFinish(RegionEmitter &constants, ReductionInfo r);
  /// The accumulator-typed values of this pass's columns in `base`,
  /// `offset` elements past the column results' position.
  Value loadColumns(Value base, Type accumulator, int64_t offset = 0);

  ColumnKernel &k;
  OpBuilder &nb;
  Location loc;
  Value col;
  unsigned w;
  /// The reductions' results so far, which later passes read.
  DenseMap<Value, Value> seeds;
};

/// An argmax/argmin: the best value and its index per column, carried down
/// the rows.
void ColumnPasses::emitArgScan(RegionEmitter &constants,
                               const ColumnItem &item) {
  Type element = computeType(elementTypeOf(item.operand));
  Value best;
  if (isa<FloatType>(element)) {
    best = constants.constant(
        element, item.isMax ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity());
  } else {
    unsigned bits = element.getIntOrFloatBitWidth();
    APInt lowest =
        item.isUnsigned ? APInt::getZero(bits) : APInt::getSignedMinValue(bits);
    APInt highest = item.isUnsigned ? APInt::getMaxValue(bits)
                                    : APInt::getSignedMaxValue(bits);
    TypedAttr worst = IntegerAttr::get(element, item.isMax ? lowest : highest);
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
}

Value ColumnPasses::loadColumns(Value base, Type accumulator, int64_t offset) {
  Type type = w == 1 ? accumulator : VectorType::get({w}, accumulator);
  Value position = arith::AddIOp::create(nb, loc, k.columnBase, col);
  if (offset)
    position =
        arith::AddIOp::create(nb, loc, position, i64Constant(nb, loc, offset));
  Value address =
      LLVM::GEPOp::create(nb, loc, LLVM::LLVMPointerType::get(nb.getContext()),
                          accumulator, base, ValueRange{position});
  return LLVM::LoadOp::create(
      nb, loc, type, address,
      std::max(1u, accumulator.getIntOrFloatBitWidth() / 8));
}

/// A banded kernel's finish: the bands' partial results combined in band
/// order, then finished.
void ColumnPasses::emitBandFinish(RegionEmitter &constants, ReductionInfo r) {
  Value result = loadColumns(k.partials, r.accumulator);
  for (int64_t band = 1; band < k.bands; ++band)
    result =
        combine(nb, loc, r, result,
                loadColumns(k.partials, r.accumulator, band * k.bandStride));
  seeds[r.op.getResult()] =
      finishReduction(nb, loc, constants, r, result, k.layout.reduced);
}

void ColumnPasses::emitReduction(RegionEmitter &constants, ReductionInfo r) {
  if (k.partials)
    return emitBandFinish(constants, r);
  Value init = reductionIdentity(constants, r);
  if (k.rowBegin) {
    // A blocked kernel's later blocks start from the partial result in the
    // output (blockedRows: the reduction's one result, in its accumulator
    // type), a banded one's from its band's partial row.
    Value partial = loadColumns(k.columnOutputs.front(), r.accumulator);
    Value first = arith::CmpIOp::create(
        nb, loc, arith::CmpIPredicate::eq, k.rowBegin,
        k.bandBegin ? k.bandBegin : i64Constant(nb, loc, 0));
    init = arith::SelectOp::create(nb, loc, first, init, partial);
  }
  auto loop = rowLoop(
      init, [&](OpBuilder &, RegionEmitter &e, Index index, ValueRange acc) {
        prefetchAhead(e, index, k.prefetched, kColumnPrefetch);
        return combineStep(e, r, index, acc);
      });
  Value result = loop.getResult(0);
  if (k.bandBegin) {
    // The finish kernel finishes the combined bands.
    seeds[r.op.getResult()] = result;
    return;
  }
  Value finished =
      finishReduction(nb, loc, constants, r, result, k.layout.reduced);
  if (k.rowBegin && finished != result) {
    Value last =
        arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, k.rowEnd,
                              i64Constant(nb, loc, k.layout.reduced));
    finished = arith::SelectOp::create(nb, loc, last, finished, result);
  }
  seeds[r.op.getResult()] = finished;
}

void ColumnPasses::emit() {
  for (const ColumnItem &item : k.items) {
    RegionEmitter constants(nb, loc, w, k.pointers);
    if (item.reduce)
      emitReduction(constants, *item.reduce);
    else
      emitArgScan(constants, item);
  }
  ArrayRef<unsigned> domainResults = k.layout.domainResults;
  if (!domainResults.empty())
    rowLoop({}, [&](OpBuilder &, RegionEmitter &e, Index index, ValueRange) {
      return storeAndCombine(e, index, k.yield.getValues(), domainResults,
                             k.domainOutputs, {}, {});
    });
  Index at = indexAt(arith::AddIOp::create(nb, loc, k.columnBase, col));
  if (failed(storeSeededResults<RegionEmitter>(
          nb, loc, w, k.pointers, seeds, at, k.yield.getValues(),
          k.layout.columnResults, k.columnOutputs)))
    k.broken = true;
}

/// The columns of one iteration: [c0, wideEnd) as one vector of the whole
/// chunk (empty unless the chunk is whole), [wideEnd, vectorEnd) in vectors
/// of `width`, then [vectorEnd, cEnd) one by one.
struct ChunkColumns {
  Value c0, wideEnd, vectorEnd, cEnd;
};

/// Iteration `iv` is chunk `iv % chunks` of the columns of outer index
/// `iv / chunks`: its columns, and the outer index's bases in `kernel`.
ChunkColumns chunkColumns(OpBuilder &b, Value iv, int64_t chunk, int64_t chunks,
                          unsigned width, ColumnKernel &kernel) {
  Location loc = kernel.loc;
  auto c = [&](int64_t value) { return i64Constant(b, loc, value); };
  int64_t inner = kernel.layout.inner;
  Value o = arith::DivUIOp::create(b, loc, iv, c(chunks));
  ChunkColumns columns;
  columns.c0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, iv, c(chunks)), c(chunk));
  columns.cEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, columns.c0, c(chunk)), c(inner));
  // c0 plus the chunk's columns rounded down to a multiple of `step`.
  auto roundDown = [&](int64_t step) {
    return Value(arith::AddIOp::create(
        b, loc, columns.c0,
        arith::MulIOp::create(
            b, loc,
            arith::DivUIOp::create(
                b, loc, arith::SubIOp::create(b, loc, columns.cEnd, columns.c0),
                c(step)),
            c(step))));
  };
  columns.vectorEnd = roundDown(width);
  kernel.domainBase = positionOf(b, loc, o, kernel.layout.outerRuns);
  kernel.columnBase = arith::MulIOp::create(b, loc, o, c(inner));
  columns.wideEnd = roundDown(chunk);
  return columns;
}

FailureOr<SmallVector<ColumnItem>>
classifyItems(const fd::ColumnSchedule &layout) {
  SmallVector<ColumnItem> items;
  for (Operation *op : layout.reductions) {
    FailureOr<ColumnItem> item = classifyItem(op);
    if (failed(item))
      return failure();
    items.push_back(*item);
  }
  return items;
}

/// Whether a column reduction runs in blocks of kBlockRows rows: one
/// reduction (no argmax or argmin), its result the kernel's only one, stored
/// as it accumulates (its storage type is the accumulator's: the output holds
/// the partial result between blocks), over more rows than one block.
bool blockedRows(const fd::ColumnSchedule &layout, ArrayRef<ColumnItem> items,
                 fd::YieldOp yield) {
  if (items.size() != 1 || !items.front().reduce ||
      !layout.domainResults.empty() || layout.columnResults.size() != 1 ||
      layout.reduced <= kBlockRows)
    return false;
  const ReductionInfo &r = *items.front().reduce;
  Value result = yield.getValues()[layout.columnResults.front()];
  return result == items.front().op->getResult(0) &&
         storageType(elementTypeOf(result)) == r.accumulator;
}

/// The passes over the columns of iteration `iv` (chunkColumns): a whole
/// chunk is one pass of kChunkVectors vectors side by side (the lanes of one
/// wide vector, as many registers), so that each row gives one contiguous
/// segment of the chunk's width, then the rest in vectors, then one by one.
/// One vector per pass read 64 bytes per row at the row stride: 4096^2
/// column sums took 10.3-11.2 ms on 2 AVX-512 cores, 2.6 ms as one pass per
/// chunk.
void emitColumnChunks(OpBuilder &b, Value iv, int64_t chunk, int64_t chunks,
                      unsigned width, ColumnKernel &kernel) {
  Location loc = kernel.loc;
  ChunkColumns columns = chunkColumns(b, iv, chunk, chunks, width, kernel);
  SmallVector<std::tuple<Value, Value, unsigned>, 3> parts = {
      {columns.c0, columns.wideEnd, unsigned(chunk)}};
  // A chunk of one vector (a blocked kernel's) leaves no rest in vectors.
  if (chunk != int64_t(width))
    parts.push_back({columns.wideEnd, columns.vectorEnd, width});
  parts.push_back({columns.vectorEnd, columns.cEnd, 1u});
  for (auto [from, to, w] : parts) {
    auto loop = scf::ForOp::create(b, loc, from, to, i64Constant(b, loc, w));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    ColumnPasses(kernel, b, loop.getInductionVar(), w).emit();
  }
}

/// The bands of rows a blocked column reduction is split into (kMinBandRows,
/// emitBandedColumns); 1: not split. A fusion emitted for runtime dims is
/// not: the bands' partial rows are placed by the outer size, on which its
/// code must not depend.
int64_t bandsOf(fd::FusionOp fusion, const fd::ColumnSchedule &layout) {
  if (fusion->hasAttr(kRuntimeDimsAttr))
    return 1;
  return std::clamp<int64_t>(layout.reduced / kMinBandRows, 1, kMaxBands);
}

/// The column kernel of `opened`, whose buffers after the inputs are the
/// fusion's results.
ColumnKernel outputKernel(const fd::ColumnSchedule &layout,
                          ArrayRef<ColumnItem> items, fd::YieldOp yield,
                          Location loc, const HostKernel &opened) {
  return {layout,
          items,
          yield,
          loc,
          opened.pointers,
          outputsOf(opened.outputs, layout.domainResults),
          outputsOf(opened.outputs, layout.columnResults),
          {},
          {}};
}

/// Opens the loop over [begin, end) in blocks of kBlockRows rows, the
/// kernel's current block its iteration's, whose rows prefetch the inputs
/// read at the operand's positions; the builder is left in its body.
void openBlockLoop(OpBuilder &b, fd::FusionOp fusion, ColumnKernel &kernel,
                   Value begin, Value end) {
  Location loc = kernel.loc;
  kernel.prefetched =
      domainAlignedInputs(fusion, kernel.pointers,
                          numElements(kernel.items.front().operand.getType()));
  Value step = i64Constant(b, loc, kBlockRows);
  auto loop = scf::ForOp::create(b, loc, begin, end, step);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  kernel.rowBegin = loop.getInductionVar();
  kernel.rowEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, kernel.rowBegin, step), end);
}

/// Columns per chunk (kChunkVectors vectors; one where `blocked`, see
/// kColumnPrefetch) and chunks per outer index.
std::pair<int64_t, int64_t> chunksOf(const fd::ColumnSchedule &layout,
                                     unsigned width, bool blocked) {
  int64_t chunk = (blocked ? 1 : kChunkVectors) * width;
  return {chunk, (layout.inner + chunk - 1) / chunk};
}

/// A blocked column reduction split into `bands` bands of rows: a partials
/// kernel (iteration: one band of one outer index, over all its columns, in
/// blocks of kBlockRows rows) writes each band's unfinished result to its
/// partial row in scratch; a finish kernel (iteration: one chunk of columns,
/// as an unsplit kernel's) combines the bands' rows in order and finishes.
FailureOr<FusionKernels> emitBandedColumns(fd::FusionOp fusion, ModuleOp module,
                                           StringRef prefix, unsigned width,
                                           const fd::ColumnSchedule &layout,
                                           ArrayRef<ColumnItem> items,
                                           fd::YieldOp yield, int64_t bands) {
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  auto c = [&](int64_t value) { return i64Constant(b, loc, value); };
  unsigned numInputs = fusion.getInputs().size();
  auto [chunk, chunks] = chunksOf(layout, width, /*blocked=*/true);
  int64_t stride = layout.outer * layout.inner;
  Type accumulator = items.front().reduce->accumulator;
  FusionKernels kernels;
  kernels.scratchBytes = uint64_t(bands) * uint64_t(stride) *
                         std::max(1u, accumulator.getIntOrFloatBitWidth() / 8);

  {
    std::string name = (prefix + "_column_partials").str();
    HostKernel opened = openKernel(b, module, loc, name, fusion, 0);
    Value scratch = bufferPointer(b, loc, opened.buffers, numInputs);
    ColumnKernel kernel{layout, items,     yield, loc, opened.pointers,
                        {},     {scratch}, {},    {}};
    auto bandLoop =
        scf::ForOp::create(b, loc, opened.begin(), opened.end(), c(1));
    b.setInsertionPoint(bandLoop.getBody()->getTerminator());
    Value iv = bandLoop.getInductionVar();
    Value o = arith::DivUIOp::create(b, loc, iv, c(bands));
    Value band = arith::RemUIOp::create(b, loc, iv, c(bands));
    auto bandRow = [&](Value index) {
      return Value(arith::DivUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, index, c(layout.reduced)),
          c(bands)));
    };
    kernel.bandBegin = bandRow(band);
    Value bandEnd = bandRow(arith::AddIOp::create(b, loc, band, c(1)));
    kernel.columnOutputs = {LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator,
        scratch, ValueRange{arith::MulIOp::create(b, loc, band, c(stride))})};
    openBlockLoop(b, fusion, kernel, kernel.bandBegin, bandEnd);
    auto chunkLoop = scf::ForOp::create(b, loc, c(0), c(chunks), c(1));
    b.setInsertionPoint(chunkLoop.getBody()->getTerminator());
    emitColumnChunks(b,
                     arith::AddIOp::create(
                         b, loc, arith::MulIOp::create(b, loc, o, c(chunks)),
                         chunkLoop.getInductionVar()),
                     chunk, chunks, width, kernel);
    if (kernel.broken)
      return failure();
    KernelPlan plan = kernelPlan(name, "", ScheduleKind::ColumnReduction,
                                 numInputs, ArrayRef<unsigned>{},
                                 /*scratch=*/true);
    plan.launch.iterations = layout.outer * bands;
    plan.launch.grain = std::max<int64_t>(
        1, kGrainElements /
               std::max<int64_t>(1, layout.reduced / bands * layout.inner));
    kernels.kernels.push_back(std::move(plan));
  }

  {
    std::string name = (prefix + "_column_finish").str();
    unsigned numOutputs = yield.getValues().size();
    HostKernel opened = openKernel(b, module, loc, name, fusion, numOutputs);
    ColumnKernel kernel = outputKernel(layout, items, yield, loc, opened);
    kernel.partials =
        bufferPointer(b, loc, opened.buffers, numInputs + numOutputs);
    kernel.bands = bands;
    kernel.bandStride = stride;
    // Chunks of kChunkVectors vectors: each reads its columns of every band.
    auto [chunk, chunks] = chunksOf(layout, width, /*blocked=*/false);
    auto chunkLoop =
        scf::ForOp::create(b, loc, opened.begin(), opened.end(), c(1));
    b.setInsertionPoint(chunkLoop.getBody()->getTerminator());
    emitColumnChunks(b, chunkLoop.getInductionVar(), chunk, chunks, width,
                     kernel);
    if (kernel.broken)
      return failure();
    SmallVector<unsigned> results(numOutputs);
    std::iota(results.begin(), results.end(), 0u);
    KernelPlan plan = kernelPlan(name, "", ScheduleKind::ColumnReduction,
                                 numInputs, results, /*scratch=*/true);
    plan.launch.iterations = layout.outer * chunks;
    plan.launch.grain = std::max<int64_t>(
        1, kGrainElements / std::max<int64_t>(1, bands * chunk));
    kernels.kernels.push_back(std::move(plan));
  }
  return kernels;
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
  FailureOr<SmallVector<ColumnItem>> items = classifyItems(*layout);
  if (failed(items))
    return failure();
  bool blocked = blockedRows(*layout, *items, yield);
  if (int64_t bands = bandsOf(fusion, *layout); blocked && bands > 1)
    return emitBandedColumns(fusion, module, prefix, width, *layout, *items,
                             yield, bands);

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_columns").str();
  HostKernel opened =
      openKernel(b, module, loc, name, fusion, yield.getValues().size());
  ColumnKernel kernel = outputKernel(*layout, *items, yield, loc, opened);
  auto [chunk, chunks] = chunksOf(*layout, width, blocked);
  // The blocks of rows outermost: each block reads its rows of the
  // iterations' columns, chunk by chunk.
  if (blocked)
    openBlockLoop(b, fusion, kernel, i64Constant(b, loc, 0),
                  i64Constant(b, loc, layout->reduced));
  auto chunkLoop = scf::ForOp::create(b, loc, opened.begin(), opened.end(),
                                      i64Constant(b, loc, 1));
  b.setInsertionPoint(chunkLoop.getBody()->getTerminator());
  emitColumnChunks(b, chunkLoop.getInductionVar(), chunk, chunks, width,
                   kernel);
  if (kernel.broken)
    return failure();

  KernelPlan plan =
      kernelPlan(name, "", ScheduleKind::ColumnReduction,
                 fusion.getInputs().size(), unsigned(opened.outputs.size()));
  plan.launch.iterations = layout->outer * chunks;
  plan.launch.grain = std::max<int64_t>(
      1, kGrainElements / std::max<int64_t>(1, layout->reduced * chunk));
  return singleKernel(std::move(plan));
}

} // namespace fuse
