//===- ScheduleLegality.cpp - Which schedule can run a fusion -------------===//

#include "passes/ScheduleLegality.h"
#include "passes/RepresentativeDims.h"

#include "dialect/FuseDims.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::fuse {

namespace {

// Counts at the representative sizes of symbolic dims (RepresentativeDims.h),
// exact for static ones.
SmallVector<int64_t> shapeOf(Value value) {
  return mlir::fuse::shapeOf(value.getType());
}

int64_t numElements(Type type) { return numElementsOf(type); }

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// "a" or "an" before a schedule's name.
StringRef article(StringRef schedule) {
  return schedule.starts_with("a") ? "an" : "a";
}

InFlightDiagnostic refuse(Operation *op, const ScheduleTarget &target,
                          StringRef schedule) {
  InFlightDiagnostic diag = op->emitOpError();
  diag << "cannot be generated for the " << target.name << " in "
       << article(schedule) << " " << schedule << " kernel: ";
  return diag;
}

InFlightDiagnostic refuseKernel(const KernelView &kernel,
                                const ScheduleTarget &target,
                                StringRef schedule) {
  InFlightDiagnostic diag = kernel.anchor()->emitOpError();
  diag << "cannot be generated for the " << target.name << " as "
       << article(schedule) << " " << schedule << " kernel: ";
  return diag;
}

/// The first use of `result` (a reduction's, one value per position) that
/// does not read it at its own position, or null: elementwise ops and
/// reshapes over the `positions` values are followed (a worklist, each op
/// once: chains of any length, diamonds of any width), users outside the
/// kernel (the stores of its results) and other reductions read it as a
/// whole, and a broadcast back over the domain must satisfy
/// `readsOwnPosition`.
Operation *
firstUseElsewhere(const KernelView &kernel, Value result, int64_t positions,
                  llvm::function_ref<bool(BroadcastOp)> readsOwnPosition) {
  SmallVector<Value> work{result};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (!kernel.contains(user) || isa<ReduceOp>(user))
        continue;
      if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
        if (readsOwnPosition(broadcast))
          continue;
      } else if (numElements(user->getResult(0).getType()) == positions &&
                 (user->hasTrait<OpTrait::Elementwise>() ||
                  isa<ReshapeOp>(user))) {
        if (seen.insert(user).second)
          work.push_back(user->getResult(0));
        continue;
      }
      return user;
    }
  }
  return nullptr;
}

/// Every use of a row's reduction result must read it at its own row:
/// elementwise ops over the rows, broadcasts of the rows back over the
/// reduced dims (broadcastFollowsRows), reshapes, the kernel's stores.
LogicalResult checkRowwiseUses(const KernelView &kernel, Value result,
                               int64_t rows, const ScheduleTarget &target) {
  // One row: every position of every use reads that row.
  if (rows == 1)
    return success();
  Operation *elsewhere =
      firstUseElsewhere(kernel, result, rows, broadcastFollowsRows);
  if (!elsewhere)
    return success();
  return refuse(elsewhere, target, "row_reduction")
         << "it reads a row's reduction other than at its own row";
}

void appendRun(SmallVector<DimRun> &runs, int64_t size, int64_t stride) {
  if (size == 1)
    return;
  if (!runs.empty() && runs.back().stride == size * stride) {
    runs.back() = {runs.back().size * size, stride};
    return;
  }
  runs.push_back({size, stride});
}

/// [outer, reduced, inner] of `shape` reduced over `dims`.
void columnLayout(ColumnSchedule &layout, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> dims) {
  SmallVector<int64_t> strides = rowMajorStrides(shape);
  layout.outer = layout.reduced = layout.inner = 1;
  layout.outerRuns.clear();
  layout.reducedRuns.clear();
  if (dims.empty())
    return;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    bool isReduced = llvm::is_contained(dims, d);
    if (isReduced) {
      layout.reduced *= shape[d];
      appendRun(layout.reducedRuns, shape[d], strides[d]);
    } else if (d < dims.back()) {
      layout.outer *= shape[d];
      appendRun(layout.outerRuns, shape[d], strides[d]);
    } else {
      layout.inner *= shape[d];
    }
  }
}

/// A column's reduction must be read at its own column: by elementwise ops
/// and reshapes over the per-column values, by broadcasts back over the
/// reduced dims (broadcastFollowsColumns), by the kernel's stores.
LogicalResult checkColumnwiseUses(const KernelView &kernel, Value result,
                                  const ColumnSchedule &layout,
                                  const ScheduleTarget &target) {
  Operation *elsewhere = firstUseElsewhere(
      kernel, result, layout.outer * layout.inner, [&](BroadcastOp broadcast) {
        return broadcastFollowsColumns(broadcast, layout.domainShape,
                                       layout.dims);
      });
  if (!elsewhere)
    return success();
  return refuse(elsewhere, target, "column_reduction")
         << "it reads a column's reduction other than at its own column";
}

bool hasArgReduction(const KernelView &kernel) {
  return llvm::any_of(
      kernel.ops(), [](Operation *op) { return isa<ArgMaxOp, ArgMinOp>(op); });
}

/// Which dims of the broadcast's result repeat its operand.
SmallVector<bool> repeatedDims(BroadcastOp broadcast) {
  SmallVector<int64_t> operandShape = shapeOf(broadcast.getOperand());
  SmallVector<int64_t> resultShape = shapeOf(broadcast.getResult());
  SmallVector<bool> repeated(resultShape.size(), true);
  for (auto [operandDim, resultDim] : llvm::enumerate(broadcast.getDims()))
    repeated[resultDim] = operandShape[operandDim] != resultShape[resultDim];
  return repeated;
}

} // namespace

KernelView::KernelView(FusionOp fusion) {
  body = &fusion.getBody().front();
  for (Operation &op : body->without_terminator()) {
    members.push_back(&op);
    memberSet.insert(&op);
  }
  auto values = cast<YieldOp>(body->getTerminator()).getValues();
  stored.assign(values.begin(), values.end());
  anchorOp = fusion;
}

KernelView::KernelView(ArrayRef<Operation *> ops)
    : members(ops.begin(), ops.end()), memberSet(ops.begin(), ops.end()) {
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !contains(user); }))
        stored.push_back(result);
  anchorOp = ops.empty() ? nullptr : ops.back();
}

llvm::SmallPtrSet<Operation *, 32>
KernelView::computedFrom(ArrayRef<Operation *> from) const {
  llvm::SmallPtrSet<Operation *, 32> after(from.begin(), from.end());
  for (Operation *op : members)
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && after.contains(def);
        }))
      after.insert(op);
  return after;
}

bool KernelView::isComputed(Value value) const {
  Operation *def = value.getDefiningOp();
  return def && contains(def) && !def->hasTrait<OpTrait::ConstantLike>();
}

bool KernelView::isInput(Value value) const {
  if (body)
    return isa<BlockArgument>(value) &&
           cast<BlockArgument>(value).getOwner() == body;
  Operation *def = value.getDefiningOp();
  return !def || (!contains(def) && !def->hasTrait<OpTrait::ConstantLike>());
}

bool broadcastFollowsRows(BroadcastOp broadcast) {
  SmallVector<bool> repeated = repeatedDims(broadcast);
  bool seenRepeated = false;
  for (auto [dim, size] : llvm::enumerate(shapeOf(broadcast.getResult()))) {
    if (size == 1)
      continue;
    if (repeated[dim])
      seenRepeated = true;
    else if (seenRepeated)
      return false;
  }
  return true;
}

bool broadcastFollowsColumns(BroadcastOp broadcast,
                             ArrayRef<int64_t> domainShape,
                             ArrayRef<int64_t> dims) {
  SmallVector<int64_t> shape = shapeOf(broadcast.getResult());
  if (shape != domainShape)
    return false;
  SmallVector<bool> repeated = repeatedDims(broadcast);
  for (auto [dim, size] : llvm::enumerate(shape))
    if (size != 1 &&
        repeated[dim] != llvm::is_contained(dims, static_cast<int64_t>(dim)))
      return false;
  return true;
}

ScheduleTarget ScheduleTarget::host(unsigned vectorWidth) {
  ScheduleTarget target;
  target.name = "host";
  target.vectorWidth = vectorWidth;
  target.interleavedColumnDims = true;
  target.columnArgReductions = true;
  target.fullReductionAsOneRow = true;
  target.matmulRhsPrologueOnce = true;
  target.attention = true;
  target.horizontal = true;
  target.attentionMaxDepth = kMaxAttentionDepth;
  target.attentionMaxKeys = kMaxAttentionKeys;
  return target;
}

ScheduleTarget ScheduleTarget::gpu() {
  ScheduleTarget target;
  target.name = "GPU";
  target.vectorWidth = 4;
  target.matmulMovesBeforeElementwise = true;
  target.attention = true;
  target.attentionMaxDepth = kMaxAttentionDepth;
  target.attentionMaxKeys = kMaxGpuAttentionKeys;
  return target;
}

/// The first dim of the trailing runs of `length` elements of `shape`
/// (the trailing dims' product is `length`), or -1 where a run's boundary
/// falls inside a dim.
int64_t runsStart(ArrayRef<int64_t> shape, int64_t length) {
  int64_t first = int64_t(shape.size()), product = 1;
  while (first > 0 && product < length)
    product *= shape[--first];
  return product == length ? first : -1;
}

/// Whether `transpose` puts every element of its operand in the same run of
/// `length` elements (a row, or with `length` 1 the same position): its
/// dims of size > 1 before the row's stay in place, the row's are permuted
/// among themselves. False where the row boundary falls inside a dim.
bool transposeKeepsRuns(TransposeOp transpose, int64_t length) {
  SmallVector<int64_t> shape = shapeOf(transpose.getOperand());
  // The permutation over the operand's dims of size > 1.
  SmallVector<int64_t> kept(shape.size(), -1), permutation;
  int64_t count = 0;
  for (auto [d, size] : llvm::enumerate(shape))
    if (size != 1)
      kept[d] = count++;
  for (int64_t d : transpose.getPermutation())
    if (kept[d] != -1)
      permutation.push_back(kept[d]);
  SmallVector<int64_t> sizes;
  for (int64_t size : shape)
    if (size != 1)
      sizes.push_back(size);
  // The first dim of the row.
  int64_t first = runsStart(sizes, length);
  if (first < 0)
    return false;
  for (int64_t d = 0; d < first; ++d)
    if (permutation[d] != d)
      return false;
  return true;
}

/// Whether the dims before `end` of `shape` are whole in `slice`.
bool sliceKeepsDims(SliceOp slice, ArrayRef<int64_t> shape, int64_t end) {
  for (int64_t d = 0; d < end; ++d)
    if (slice.getSizes()[d] != shape[d])
      return false;
  return true;
}

/// Whether a data movement `op` (a transpose, slice, concat, broadcast,
/// gather) puts each element that it reads from `from` in the run (a row)
/// of the element that it writes, where a value of n elements is in runs
/// of `runLength(n)` elements (0: none), all values having as many runs.
/// Other ops pass.
bool keepsRows(Operation *op, Value from,
               llvm::function_ref<int64_t(int64_t)> runLength) {
  if (!isa<TransposeOp, SliceOp, ConcatOp, BroadcastOp, GatherOp>(op))
    return true;
  if (isa<GatherOp>(op))
    return false; // Its indices: read at run-time positions.
  int64_t in = runLength(numElements(from.getType()));
  int64_t out = runLength(numElements(op->getResult(0).getType()));
  if (in == 0 || out == 0)
    return false;
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return transposeKeepsRuns(transpose, in);
  SmallVector<int64_t> inShape = shapeOf(from);
  SmallVector<int64_t> outShape = shapeOf(op->getResult(0));
  int64_t inStart = runsStart(inShape, in);
  int64_t outStart = runsStart(outShape, out);
  if (inStart < 0 || outStart < 0)
    return false;
  // A slice keeps the rows' dims whole; it may cut within a row.
  if (auto slice = dyn_cast<SliceOp>(op))
    return sliceKeepsDims(slice, inShape, inStart);
  // A concat joins within the rows.
  if (auto concat = dyn_cast<ConcatOp>(op))
    return concat.getAxis() >= outStart;
  // A broadcast repeats only within the rows.
  auto broadcast = cast<BroadcastOp>(op);
  SmallVector<bool> repeated = repeatedDims(broadcast);
  for (int64_t d = 0; d < outStart; ++d)
    if (repeated[d] && outShape[d] != 1)
      return false;
  return llvm::is_sorted(broadcast.getDims());
}

/// Whether a data movement `op` of a column kernel (`layout`) puts each
/// element that it reads from `from` in the column of the element that it
/// writes: columns interleave, so a transpose must keep every position, a
/// slice of the domain (shaped as the reductions' operands) keep the
/// columns' dims whole, a broadcast of the columns follow them
/// (broadcastFollowsColumns); other moves between values of equal size
/// keep every position, and a concat or gather stays out.
bool keepsColumns(Operation *op, Value from, const ColumnSchedule &layout) {
  if (!isa<TransposeOp, SliceOp, ConcatOp, BroadcastOp, GatherOp>(op))
    return true;
  int64_t columns = layout.outer * layout.inner;
  int64_t domain = columns * layout.reduced;
  int64_t in = numElements(from.getType());
  int64_t out = numElements(op->getResult(0).getType());
  SmallVector<int64_t> inShape = shapeOf(from);
  SmallVector<int64_t> outShape = shapeOf(op->getResult(0));
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return transposeKeepsRuns(transpose, 1);
  if (auto slice = dyn_cast<SliceOp>(op)) {
    if (inShape == outShape)
      return true;
    if (in != domain || out != columns ||
        inShape != ArrayRef<int64_t>(layout.domainShape))
      return false;
    for (auto [d, size] : llvm::enumerate(inShape))
      if (!llvm::is_contained(layout.dims, int64_t(d)) &&
          slice.getSizes()[d] != size)
        return false;
    return true;
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    if (in == columns && out == domain)
      return broadcastFollowsColumns(broadcast, layout.domainShape,
                                     layout.dims);
    if (in != out)
      return false;
    // As many elements: a reshape, if in order.
    return llvm::is_sorted(broadcast.getDims());
  }
  return false;
}

/// A reduction kernel computes its results a row (a column) at a time: the
/// reductions' results are the current row's, and a reduction's operand
/// kept for the store pass (a row stash) holds that row alone. So a data
/// movement of what depends on them must keep each element in its row
/// (`keeps`): a window partition after a LayerNorm (Swin's) moves elements
/// from row to row, as would a slice of rows or a concat of them.
LogicalResult
checkMovesKeepRuns(const KernelView &kernel, ArrayRef<Operation *> reductions,
                   llvm::function_ref<bool(Operation *, Value)> keeps,
                   const ScheduleTarget &target, StringRef schedule) {
  SmallVector<Value> work;
  for (Operation *reduce : reductions) {
    work.push_back(reduce->getResult(0));
    if (kernel.isComputed(reduce->getOperand(0)))
      work.push_back(reduce->getOperand(0));
  }
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallPtrSet<Value, 16> seenValues;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seenValues.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      if (!kernel.contains(user))
        continue;
      if (!keeps(user, value))
        return refuse(user, target, schedule)
               << "it moves elements from one row (column) to another";
      if (!seen.insert(user).second)
        continue;
      for (Value result : user->getResults())
        work.push_back(result);
    }
  }
  return success();
}

FailureOr<RowSchedule> analyzeRowReduction(const KernelView &kernel,
                                           const ScheduleTarget &target) {
  RowSchedule schedule;
  for (Operation *op : kernel.ops()) {
    auto reduce = dyn_cast<ReduceOp>(op);
    if (!reduce)
      continue;
    auto type = cast<RankedTensorType>(reduce.getOperand().getType());
    ArrayRef<int64_t> dims = reduce.getDims();
    int64_t rank = type.getRank();
    // Dims of size 1 may sit anywhere: only the others must keep every
    // kept dim before every reduced one, so that rows are contiguous.
    int64_t length = 1, count = 1;
    bool trailing = true, seenReduced = false;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(dims, d);
      (reduced ? length : count) *= dimSize(type, d);
      if (dimSize(type, d) == 1)
        continue;
      trailing &= reduced || !seenReduced;
      seenReduced |= reduced;
    }
    if (!trailing)
      return refuse(reduce, target, "row_reduction")
             << "it does not reduce the trailing dims";
    if (schedule.rows != -1 &&
        (schedule.rows != count || schedule.rowLength != length))
      return refuse(reduce, target, "row_reduction")
             << "its rows differ from another reduction's";
    schedule.rows = count;
    schedule.rowLength = length;
    if (failed(checkRowwiseUses(kernel, reduce.getResult(), count, target)))
      return failure();
    schedule.reductions.push_back(reduce);
  }
  if (schedule.reductions.empty())
    return refuseKernel(kernel, target, "row_reduction")
           << "it has no fuse.reduce";

  int64_t rows = schedule.rows, rowLength = schedule.rowLength;
  SmallVector<Operation *> reductions(schedule.reductions.begin(),
                                      schedule.reductions.end());
  auto rowRuns = [&](int64_t n) -> int64_t {
    return n == rows * rowLength ? rowLength : n == rows ? 1 : 0;
  };
  // One row: every element is in it.
  if (rows != 1 && failed(checkMovesKeepRuns(
                       kernel, reductions,
                       [&](Operation *op, Value from) {
                         return keepsRows(op, from, rowRuns);
                       },
                       target, "row_reduction")))
    return failure();
  for (auto [r, value] : llvm::enumerate(kernel.results())) {
    int64_t n = numElements(value.getType());
    if (n == rows * rowLength && rowLength != 1)
      schedule.domainResults.push_back(r);
    else if (n == rows)
      schedule.rowResults.push_back(r);
    else
      return refuseKernel(kernel, target, "row_reduction")
             << "result " << r << " has " << n << " elements, neither " << rows
             << " rows nor " << rows * rowLength << " elements";
  }
  return schedule;
}

FailureOr<FullSchedule> analyzeFullReduction(const KernelView &kernel,
                                             const ScheduleTarget &target) {
  FullSchedule schedule;
  int64_t &domain = schedule.domain;
  for (Operation *member : kernel.ops()) {
    Operation &op = *member;
    bool dependsOnReduction = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && kernel.contains(def) &&
             (isa<ReduceOp>(def) || schedule.afterReduction.contains(def));
    });
    if (auto reduce = dyn_cast<ReduceOp>(&op)) {
      // A reduction of a reduction's result (a variance of the whole
      // tensor): one row, its passes in order.
      if (dependsOnReduction) {
        if (target.fullReductionAsOneRow)
          return FullSchedule{-1, /*asOneRow=*/true, {}, {}, {}, {}};
        return refuse(reduce, target, "full_reduction")
               << "it reduces the result of another reduction";
      }
      if (numElements(reduce.getResult().getType()) != 1)
        return refuse(reduce, target, "full_reduction")
               << "it does not reduce every element";
      int64_t n = numElements(reduce.getOperand().getType());
      if (domain != -1 && n != domain)
        return refuse(reduce, target, "full_reduction")
               << "its operand has " << n << " elements, another reduction's "
               << domain;
      domain = n;
      schedule.reductions.push_back(reduce);
      schedule.afterReduction.insert(&op);
      continue;
    }
    if (dependsOnReduction) {
      // Reduce-then-broadcast over the whole tensor: a row kernel of one
      // row (a softmax over every element).
      if (numElements(op.getResult(0).getType()) != 1) {
        if (target.fullReductionAsOneRow)
          return FullSchedule{-1, /*asOneRow=*/true, {}, {}, {}, {}};
        return refuse(&op, target, "full_reduction")
               << "it uses a reduction's result over "
               << numElements(op.getResult(0).getType())
               << " elements (reduce-then-broadcast is a row kernel)";
      }
      schedule.afterReduction.insert(&op);
    }
  }
  if (schedule.reductions.empty())
    return refuseKernel(kernel, target, "full_reduction")
           << "it has no fuse.reduce";
  for (auto [r, value] : llvm::enumerate(kernel.results())) {
    Operation *def = value.getDefiningOp();
    bool after = def && schedule.afterReduction.contains(def);
    if (!after && numElements(value.getType()) == domain && domain != 1)
      schedule.domainResults.push_back(r);
    else if (numElements(value.getType()) == 1)
      schedule.scalarResults.push_back(r);
    else
      return refuseKernel(kernel, target, "full_reduction")
             << "result " << r
             << " has neither one element nor the reduced domain's";
  }
  return schedule;
}

FailureOr<ColumnSchedule> analyzeColumnReduction(const KernelView &kernel,
                                                 const ScheduleTarget &target) {
  ColumnSchedule schedule;
  for (Operation *member : kernel.ops()) {
    Operation &op = *member;
    SmallVector<int64_t> dims;
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      dims.assign(reduce.getDims().begin(), reduce.getDims().end());
    } else if (target.columnArgReductions && isa<ArgMaxOp>(op)) {
      dims.push_back(cast<ArgMaxOp>(op).getAxis());
    } else if (target.columnArgReductions && isa<ArgMinOp>(op)) {
      dims.push_back(cast<ArgMinOp>(op).getAxis());
    } else {
      continue;
    }
    if (!target.interleavedColumnDims &&
        (dims.empty() ||
         dims.back() - dims.front() + 1 != int64_t(dims.size())))
      return refuse(&op, target, "column_reduction")
             << "its reduced dims are not consecutive";
    SmallVector<int64_t> shape = shapeOf(op.getOperand(0));
    if (!schedule.reductions.empty() &&
        (shape != ArrayRef(schedule.domainShape) || dims != schedule.dims))
      return refuse(&op, target, "column_reduction")
             << "its columns differ from another reduction's";
    schedule.domainShape.assign(shape.begin(), shape.end());
    schedule.dims = dims;
    columnLayout(schedule, shape, dims);
    if (failed(checkColumnwiseUses(kernel, op.getResult(0), schedule, target)))
      return failure();
    schedule.reductions.push_back(&op);
  }
  if (schedule.reductions.empty())
    return refuseKernel(kernel, target, "column_reduction")
           << "it has no fuse.reduce";

  int64_t domain = schedule.outer * schedule.reduced * schedule.inner;
  int64_t columns = schedule.outer * schedule.inner;
  if (failed(checkMovesKeepRuns(
          kernel, schedule.reductions,
          [&](Operation *op, Value from) {
            return keepsColumns(op, from, schedule);
          },
          target, "column_reduction")))
    return failure();
  for (auto [r, value] : llvm::enumerate(kernel.results())) {
    int64_t n = numElements(value.getType());
    if (n == domain && schedule.reduced != 1)
      schedule.domainResults.push_back(r);
    else if (n == columns)
      schedule.columnResults.push_back(r);
    else
      return refuseKernel(kernel, target, "column_reduction")
             << "result " << r << " has " << n << " elements, neither "
             << columns << " columns nor " << domain << " elements";
  }
  return schedule;
}

FailureOr<WindowSchedule> analyzeWindowReduction(const KernelView &kernel,
                                                 const ScheduleTarget &target) {
  WindowSchedule schedule;
  for (Operation *op : kernel.ops()) {
    ArrayRef<int64_t> window;
    if (auto pool = dyn_cast<PoolOp>(op))
      window = pool.getWindow();
    else if (!isa<Im2colOp>(op))
      continue;
    if (!kernel.isInput(op->getOperand(0)))
      return refuse(op, target, "window_reduction")
             << "its operand is computed in the kernel (it is read from "
                "memory at each window position)";
    // An im2col reads one position per element.
    int64_t positions = 1;
    for (int64_t size : window)
      positions =
          positions > kMaxWindowPositions ? positions : positions * size;
    if (positions > kMaxWindowPositions)
      return refuse(op, target, "window_reduction")
             << "its window has more than " << kMaxWindowPositions
             << " positions";
    schedule.positions = std::max(schedule.positions, positions);
    schedule.windows.push_back(op);
  }
  if (schedule.windows.empty())
    return refuseKernel(kernel, target, "window_reduction")
           << "it has no fuse.pool or fuse.im2col";
  for (Operation *op : kernel.ops())
    if (isa<ReduceOp, ArgMaxOp, ArgMinOp, MatmulOp>(op))
      return refuse(op, target, "window_reduction")
             << "a window reduction joins only pointwise ops";
  // The domain: the results' elements. A pool reduces over its window at
  // each element of it; an im2col (data movement) may be read at any
  // positions, such as a depthwise convolution's slices of it.
  schedule.elements = kernel.results().empty()
                          ? 0
                          : numElements(kernel.results().front().getType());
  for (auto [r, value] : llvm::enumerate(kernel.results()))
    if (numElements(value.getType()) != schedule.elements)
      return refuseKernel(kernel, target, "window_reduction")
             << "result " << r << " has " << numElements(value.getType())
             << " elements, result 0 " << schedule.elements;
  for (Operation *window : schedule.windows)
    if (isa<PoolOp>(window) &&
        numElements(window->getResultTypes()[0]) != schedule.elements)
      return refuse(window, target, "window_reduction")
             << "its output has " << numElements(window->getResultTypes()[0])
             << " elements, the kernel's results " << schedule.elements;
  return schedule;
}

/// A gather reads its data at run-time positions, from memory: in every
/// schedule, its data is a kernel input.
FailureOr<AttentionSchedule> analyzeAttention(const KernelView &kernel,
                                              const ScheduleTarget &target) {
  constexpr StringLiteral kName = "attention";
  if (!target.attention)
    return refuseKernel(kernel, target, kName)
           << "the target has no attention schedule";
  SmallVector<MatmulOp> matmuls;
  for (Operation *op : kernel.ops())
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmuls.push_back(matmul);
  if (matmuls.size() != 2)
    return refuseKernel(kernel, target, kName)
           << "it holds " << matmuls.size() << " matmuls, not 2";
  llvm::SmallPtrSet<Operation *, 32> after =
      kernel.computedFrom({matmuls[0].getOperation()});
  if (!after.contains(matmuls[1])) {
    std::swap(matmuls[0], matmuls[1]);
    after = kernel.computedFrom({matmuls[0].getOperation()});
  }
  AttentionSchedule schedule;
  MatmulOp scores = schedule.scores = matmuls[0];
  MatmulOp output = schedule.output = matmuls[1];
  auto isAfter = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return def && after.contains(def);
  };
  if (!isAfter(output.getLhs()) || isAfter(output.getRhs()))
    return refuseKernel(kernel, target, kName)
           << "the second matmul's lhs, and only it, must be computed from "
              "the first matmul's result";
  if (scores.getTransposeA() || output.getTransposeA())
    return refuseKernel(kernel, target, kName) << "a matmul transposes its lhs";
  // f16 and bf16 are storage types: the kernel computes in f32 (scores,
  // P and the output rows), as every kernel does for them.
  for (Value v : {scores.getLhs(), scores.getRhs(), scores.getResult(),
                  output.getLhs(), output.getRhs(), output.getResult()}) {
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    if (!element.isF32() && !element.isF16() && !element.isBF16())
      return refuseKernel(kernel, target, kName)
             << "its matmuls are not all f32, f16 or bf16";
  }
  SmallVector<int64_t> s = shapeOf(scores.getResult());
  size_t rank = s.size();
  if (rank < 3)
    return refuseKernel(kernel, target, kName)
           << "its scores have no batch (heads) dim";
  ArrayRef<int64_t> batchDims = ArrayRef<int64_t>(s).drop_back(2);
  for (Value v :
       {scores.getLhs(), scores.getRhs(), output.getRhs(), output.getResult()})
    if (shapeOf(v).size() != rank ||
        ArrayRef<int64_t>(shapeOf(v)).drop_back(2) != batchDims)
      return refuseKernel(kernel, target, kName)
             << "its matmul operands do not share the scores' batch dims";
  // How many keys one kernel holds is a bound on a value: symbolic keys
  // (a sequence, issue 22) keep attention three kernels, but on the host,
  // whose kernel reads the keys from its dims array and holds a tile of
  // them at a time (an online softmax; HostAttentionEmitter.cpp).
  auto scoresType = cast<RankedTensorType>(scores.getType());
  if (scoresType.isDynamicDim(rank - 1) && target.name != "host")
    return refuseKernel(kernel, target, kName)
           << "its keys (" << dimString(scoresType, unsigned(rank - 1))
           << ") are symbolic, and the most keys it holds needs a static "
              "count";
  for (int64_t size : batchDims)
    schedule.batch *= size;
  schedule.rows = s[rank - 2];
  schedule.keys = s[rank - 1];
  schedule.depth = shapeOf(scores.getLhs()).back();
  schedule.valueDepth = shapeOf(output.getResult()).back();
  if (schedule.depth > target.attentionMaxDepth ||
      schedule.valueDepth > target.attentionMaxDepth ||
      schedule.keys > target.attentionMaxKeys)
    return refuseKernel(kernel, target, kName)
           << "its rows of Q or V (" << schedule.depth << ", "
           << schedule.valueDepth << ") are over " << target.attentionMaxDepth
           << " elements or its keys (" << schedule.keys << ") over "
           << target.attentionMaxKeys;
  if (kernel.results().size() != 1 ||
      kernel.results().front() != output.getResult())
    return refuseKernel(kernel, target, kName)
           << "its one result must be the second matmul's";

  // The row kernel between the matmuls: what the second reads, computed
  // from the scores. Every op that reads scores-sized values computed from
  // them reads each at its own position.
  int64_t domain = numElements(scores.getType());
  llvm::SmallPtrSet<Operation *, 32> before;
  SmallVector<Operation *> work{output.getLhs().getDefiningOp()};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op || !after.contains(op) || op == scores || !before.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      work.push_back(operand.getDefiningOp());
  }
  SmallVector<Operation *> middle;
  for (Operation *op : kernel.ops()) {
    if (!after.contains(op) || op == scores || op == output)
      continue;
    if (!before.contains(op))
      return refuse(op, target, kName)
             << "it is computed from the scores but the second matmul does "
                "not read it";
    middle.push_back(op);
    bool ownPosition = isa<ReduceOp, ReshapeOp>(op) ||
                       (op->hasTrait<OpTrait::Elementwise>() &&
                        numElements(op->getResult(0).getType()) == domain);
    for (Value operand : op->getOperands())
      if (isAfter(operand) && numElements(operand.getType()) == domain &&
          !ownPosition)
        return refuse(op, target, kName)
               << "it reads the scores other than at their own position";
  }
  if (middle.empty())
    return refuseKernel(kernel, target, kName)
           << "no row kernel (a softmax) lies between its matmuls";
  FailureOr<RowSchedule> rows =
      analyzeRowReduction(KernelView(ArrayRef<Operation *>(middle)), target);
  if (failed(rows))
    return failure();
  if (rows->rows != schedule.batch * schedule.rows ||
      rows->rowLength != schedule.keys || !rows->rowResults.empty())
    return refuseKernel(kernel, target, kName)
           << "its reductions do not reduce each row of the scores";
  schedule.reductions = rows->reductions;

  // Prologues (Q, K, V, the mask) are computed where they are read.
  for (Operation *op : kernel.ops())
    if (!after.contains(op) &&
        isa<ReduceOp, ArgMaxOp, ArgMinOp, PoolOp, Im2colOp, ScatterOp,
            MatmulOp>(op) &&
        op != scores.getOperation())
      return refuse(op, target, kName)
             << "it would be recomputed wherever the kernel reads it";
  return schedule;
}

static LogicalResult checkGatherData(const KernelView &kernel,
                                     ScheduleKind kind,
                                     const ScheduleTarget &target) {
  for (Operation *op : kernel.ops())
    if (auto gather = dyn_cast<GatherOp>(op);
        gather && !kernel.isInput(gather.getData()))
      return refuse(gather, target, stringifyScheduleKind(kind))
             << "its data is computed in the kernel (a gather reads it from "
                "memory, at run-time positions)";
  return success();
}

/// Without matmulMovesBeforeElementwise, a matmul's epilogue is elementwise
/// ops and reshapes on its result (which keep its positions), then reshapes
/// and transposes to the stored values: no elementwise op reads a value that
/// a transpose (or any other op that moves positions) made from the result.
static LogicalResult checkMatmulEpilogueOrder(const KernelView &kernel,
                                              const ScheduleTarget &target) {
  if (target.matmulMovesBeforeElementwise)
    return success();
  // Values computed from the matmul's result -> the op that first moved
  // them (null: still at the result's positions).
  DenseMap<Value, Operation *> fromResult;
  for (Operation *op : kernel.ops()) {
    if (isa<MatmulOp>(op)) {
      fromResult[op->getResult(0)] = nullptr;
      continue;
    }
    bool reads = false;
    Operation *moved = nullptr;
    for (Value operand : op->getOperands())
      if (auto it = fromResult.find(operand); it != fromResult.end()) {
        reads = true;
        moved = moved ? moved : it->second;
      }
    if (!reads)
      continue;
    bool keeps = op->hasTrait<OpTrait::Elementwise>() || isa<ReshapeOp>(op);
    if (moved && op->hasTrait<OpTrait::Elementwise>())
      return refuse(moved, target, "matmul")
             << "it moves the matmul's result between positions before the "
                "last elementwise op ("
             << op->getName() << ")";
    if (!keeps && !isa<TransposeOp>(op))
      return refuse(op, target, "matmul")
             << "a matmul epilogue is elementwise ops, reshapes and "
                "transposes";
    for (Value result : op->getResults())
      fromResult[result] = moved ? moved : (keeps ? nullptr : op);
  }
  return success();
}

/// A scatter is a kernel of its own, the scatter schedule's only op (with
/// constants); no other schedule holds one.
static LogicalResult checkScatter(const KernelView &kernel, ScheduleKind kind,
                                  const ScheduleTarget &target) {
  int scatters = 0;
  for (Operation *op : kernel.ops()) {
    if (isa<ScatterOp>(op)) {
      ++scatters;
      if (kind != ScheduleKind::scatter)
        return refuse(op, target, stringifyScheduleKind(kind))
               << "a scatter is a kernel of its own (the scatter schedule)";
    } else if (kind == ScheduleKind::scatter && !isa<ConstantOp>(op)) {
      return refuse(op, target, "scatter")
             << "a scatter kernel holds one fuse.scatter and nothing else";
    }
  }
  if (kind == ScheduleKind::scatter &&
      (scatters != 1 || kernel.results().size() != 1))
    return refuseKernel(kernel, target, "scatter")
           << "it must compute one fuse.scatter and return it";
  return success();
}

FailureOr<DictionaryAttr> selectSchedule(const KernelView &kernel,
                                         ScheduleKind kind,
                                         const ScheduleTarget &target) {
  if (failed(checkGatherData(kernel, kind, target)) ||
      failed(checkScatter(kernel, kind, target)))
    return failure();
  Builder b(kernel.anchor()->getContext());
  SmallVector<NamedAttribute> entries;
  auto add = [&](StringRef name, int64_t value) {
    entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  };
  auto setKind = [&](ScheduleKind kind) {
    entries.push_back(
        b.getNamedAttr("kind", b.getStringAttr(stringifyScheduleKind(kind))));
  };
  // An argmax or argmin scans its axis in order, as a column reduction does,
  // where the target has that scan.
  bool columns = kind == ScheduleKind::column_reduction ||
                 (target.columnArgReductions && hasArgReduction(kernel));
  if (!columns && kind == ScheduleKind::full_reduction) {
    FailureOr<FullSchedule> full = analyzeFullReduction(kernel, target);
    if (failed(full))
      return failure();
    if (full->asOneRow) {
      // The target runs it as a row kernel of one row.
      kind = ScheduleKind::row_reduction;
    } else {
      setKind(kind);
      add("elements", full->domain);
    }
  }
  if (columns) {
    FailureOr<ColumnSchedule> schedule = analyzeColumnReduction(kernel, target);
    if (failed(schedule))
      return failure();
    setKind(ScheduleKind::column_reduction);
    add("outer", schedule->outer);
    add("reduced", schedule->reduced);
    add("inner", schedule->inner);
  } else if (kind == ScheduleKind::row_reduction) {
    FailureOr<RowSchedule> schedule = analyzeRowReduction(kernel, target);
    if (failed(schedule))
      return failure();
    setKind(kind);
    add("rows", schedule->rows);
    add("row_length", schedule->rowLength);
  } else if (kind == ScheduleKind::pointwise) {
    setKind(kind);
    int64_t elements = 0;
    for (Value result : kernel.results())
      elements = std::max(elements, numElements(result.getType()));
    add("elements", elements);
  } else if (kind == ScheduleKind::matmul) {
    if (failed(checkMatmulEpilogueOrder(kernel, target)))
      return failure();
    setKind(kind);
  } else if (kind == ScheduleKind::window_reduction) {
    FailureOr<WindowSchedule> schedule = analyzeWindowReduction(kernel, target);
    if (failed(schedule))
      return failure();
    setKind(kind);
    add("elements", schedule->elements);
    add("window_positions", schedule->positions);
  } else if (kind == ScheduleKind::scatter) {
    setKind(kind);
  } else if (kind == ScheduleKind::attention) {
    FailureOr<AttentionSchedule> schedule = analyzeAttention(kernel, target);
    if (failed(schedule))
      return failure();
    setKind(kind);
    add("batch", schedule->batch);
    add("rows", schedule->rows);
    add("keys", schedule->keys);
  }
  add("vector_width", target.vectorWidth);
  return b.getDictionaryAttr(entries);
}

/// A horizontal fusion (whose members the verifier checked): each member of
/// a schedule the target has.
static FailureOr<DictionaryAttr>
selectHorizontalSchedule(FusionOp fusion, const ScheduleTarget &target) {
  if (!target.horizontal)
    return fusion.emitOpError()
           << "the " << target.name << " target has no horizontal schedule";
  int64_t members = 0;
  for (FusionOp member : fusion.getBody().getOps<FusionOp>()) {
    if (failed(selectSchedule(member, target)))
      return failure();
    ++members;
  }
  Builder b(fusion.getContext());
  return b.getDictionaryAttr(
      {b.getNamedAttr("kind", b.getStringAttr(stringifyScheduleKind(
                                  ScheduleKind::horizontal))),
       b.getNamedAttr("members", b.getI64IntegerAttr(members))});
}

FailureOr<DictionaryAttr> selectSchedule(FusionOp fusion,
                                         const ScheduleTarget &target) {
  if (fusion.getKind() == ScheduleKind::horizontal)
    return selectHorizontalSchedule(fusion, target);
  return selectSchedule(KernelView(fusion), fusion.getKind(), target);
}

FailureOr<AttentionSchedule> analyzeAttention(FusionOp fusion,
                                              const ScheduleTarget &target) {
  return analyzeAttention(KernelView(fusion), target);
}

FailureOr<WindowSchedule> analyzeWindowReduction(FusionOp fusion,
                                                 const ScheduleTarget &target) {
  return analyzeWindowReduction(KernelView(fusion), target);
}

FailureOr<RowSchedule> analyzeRowReduction(FusionOp fusion,
                                           const ScheduleTarget &target) {
  return analyzeRowReduction(KernelView(fusion), target);
}

FailureOr<FullSchedule> analyzeFullReduction(FusionOp fusion,
                                             const ScheduleTarget &target) {
  return analyzeFullReduction(KernelView(fusion), target);
}

FailureOr<ColumnSchedule> analyzeColumnReduction(FusionOp fusion,
                                                 const ScheduleTarget &target) {
  return analyzeColumnReduction(KernelView(fusion), target);
}

} // namespace mlir::fuse
