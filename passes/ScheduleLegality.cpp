//===- ScheduleLegality.cpp - Which schedule can run a fusion -------------===//

#include "passes/ScheduleLegality.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::fuse {

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

int64_t numElements(Type type) {
  return cast<RankedTensorType>(type).getNumElements();
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

SmallVector<int64_t> withoutOnes(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes;
  for (int64_t size : shape)
    if (size != 1)
      sizes.push_back(size);
  return sizes;
}

InFlightDiagnostic refuse(Operation *op, const ScheduleTarget &target,
                          StringRef schedule) {
  InFlightDiagnostic diag = op->emitOpError();
  diag << "cannot be generated for the " << target.name << " in a " << schedule
       << " kernel: ";
  return diag;
}

InFlightDiagnostic refuseFusion(FusionOp fusion, const ScheduleTarget &target,
                                StringRef schedule) {
  InFlightDiagnostic diag = fusion.emitOpError();
  diag << "cannot be generated for the " << target.name << " as a " << schedule
       << " kernel: ";
  return diag;
}

/// The first use of `result` (a reduction's, one value per position) that
/// does not read it at its own position, or null: elementwise ops and
/// reshapes over the `positions` values are followed (a worklist, each op
/// once: chains of any length, diamonds of any width), the yield and other
/// reductions read it as a whole, and a broadcast back over the domain must
/// satisfy `readsOwnPosition`.
Operation *
firstUseElsewhere(Value result, int64_t positions,
                  llvm::function_ref<bool(BroadcastOp)> readsOwnPosition) {
  SmallVector<Value> work{result};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<YieldOp, ReduceOp>(user))
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
/// reduced dims (leading dims kept; output dims of size 1 hold no position,
/// so [4] -> [1, 1, 4, 6] with dims [2] is leading too), reshapes, the yield.
LogicalResult checkRowwiseUses(Value result, int64_t rows,
                               const ScheduleTarget &target) {
  // One row: every position of every use reads that row.
  if (rows == 1)
    return success();
  Operation *elsewhere =
      firstUseElsewhere(result, rows, [](BroadcastOp broadcast) {
        ArrayRef<int64_t> shape =
            cast<RankedTensorType>(broadcast.getType()).getShape();
        SmallVector<int64_t> position(shape.size(), -1);
        int64_t next = 0;
        for (auto [d, size] : llvm::enumerate(shape))
          if (size != 1)
            position[d] = next++;
        int64_t expected = 0;
        bool leading = true;
        for (int64_t d : broadcast.getDims())
          if (shape[d] != 1)
            leading &= position[d] == expected++;
        return leading;
      });
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
  layout.keptSizes.clear();
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
    if (!isReduced && shape[d] != 1)
      layout.keptSizes.push_back(shape[d]);
  }
}

/// A column's reduction must be read at its own column: by elementwise ops
/// and reshapes over the per-column values, by broadcasts back over the
/// reduced dims, by the yield.
LogicalResult checkColumnwiseUses(Value result, const ColumnSchedule &layout,
                                  const ScheduleTarget &target) {
  ArrayRef<int64_t> domainShape = layout.domainShape;
  Operation *elsewhere = firstUseElsewhere(
      result, layout.outer * layout.inner, [&](BroadcastOp broadcast) {
        ArrayRef<int64_t> operandShape = shapeOf(broadcast.getOperand());
        SmallVector<int64_t> targets;
        for (auto [i, d] : llvm::enumerate(broadcast.getDims()))
          if (operandShape[i] != 1)
            targets.push_back(domainShape.size() > size_t(d) ? domainShape[d]
                                                             : -1);
        return shapeOf(broadcast.getResult()) == domainShape &&
               withoutOnes(operandShape) == layout.keptSizes &&
               targets == layout.keptSizes;
      });
  if (!elsewhere)
    return success();
  return refuse(elsewhere, target, "column_reduction")
         << "it reads a column's reduction other than at its own column";
}

bool hasArgReduction(FusionOp fusion) {
  return !fusion.getBody().getOps<ArgMaxOp>().empty() ||
         !fusion.getBody().getOps<ArgMinOp>().empty();
}

} // namespace

ScheduleTarget ScheduleTarget::host(unsigned vectorWidth) {
  ScheduleTarget target;
  target.name = "host";
  target.vectorWidth = vectorWidth;
  target.interleavedColumnDims = true;
  target.columnArgReductions = true;
  target.fullReductionAsOneRow = true;
  return target;
}

ScheduleTarget ScheduleTarget::gpu() {
  ScheduleTarget target;
  target.name = "GPU";
  target.vectorWidth = 4;
  return target;
}

FailureOr<RowSchedule> analyzeRowReduction(FusionOp fusion,
                                           const ScheduleTarget &target) {
  Block &body = fusion.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  RowSchedule schedule;
  for (auto reduce : body.getOps<ReduceOp>()) {
    auto type = cast<RankedTensorType>(reduce.getOperand().getType());
    ArrayRef<int64_t> dims = reduce.getDims();
    int64_t rank = type.getRank();
    // Dims of size 1 may sit anywhere: only the others must keep every
    // kept dim before every reduced one, so that rows are contiguous.
    int64_t length = 1, count = 1;
    bool trailing = true, seenReduced = false;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(dims, d);
      (reduced ? length : count) *= type.getDimSize(d);
      if (type.getDimSize(d) == 1)
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
    if (failed(checkRowwiseUses(reduce.getResult(), count, target)))
      return failure();
    schedule.reductions.push_back(reduce);
  }
  if (schedule.reductions.empty())
    return refuseFusion(fusion, target, "row_reduction")
           << "it has no fuse.reduce";

  int64_t rows = schedule.rows, rowLength = schedule.rowLength;
  for (auto [r, value] : llvm::enumerate(yield.getValues())) {
    int64_t n = numElements(value.getType());
    if (n == rows * rowLength && rowLength != 1)
      schedule.domainResults.push_back(r);
    else if (n == rows)
      schedule.rowResults.push_back(r);
    else
      return refuseFusion(fusion, target, "row_reduction")
             << "result " << r << " has " << n << " elements, neither " << rows
             << " rows nor " << rows * rowLength << " elements";
  }
  return schedule;
}

FailureOr<FullSchedule> analyzeFullReduction(FusionOp fusion,
                                             const ScheduleTarget &target) {
  Block &body = fusion.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  FullSchedule schedule;
  int64_t &domain = schedule.domain;
  for (Operation &op : body.without_terminator()) {
    bool dependsOnReduction = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def &&
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
    return refuseFusion(fusion, target, "full_reduction")
           << "it has no fuse.reduce";
  for (auto [r, value] : llvm::enumerate(yield.getValues())) {
    Operation *def = value.getDefiningOp();
    bool after = def && schedule.afterReduction.contains(def);
    if (!after && numElements(value.getType()) == domain && domain != 1)
      schedule.domainResults.push_back(r);
    else if (numElements(value.getType()) == 1)
      schedule.scalarResults.push_back(r);
    else
      return refuseFusion(fusion, target, "full_reduction")
             << "result " << r
             << " has neither one element nor the reduced domain's";
  }
  return schedule;
}

FailureOr<ColumnSchedule> analyzeColumnReduction(FusionOp fusion,
                                                 const ScheduleTarget &target) {
  Block &body = fusion.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  ColumnSchedule schedule;
  for (Operation &op : body.without_terminator()) {
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
    ArrayRef<int64_t> shape = shapeOf(op.getOperand(0));
    if (!schedule.reductions.empty() &&
        (shape != ArrayRef(schedule.domainShape) || dims != schedule.dims))
      return refuse(&op, target, "column_reduction")
             << "its columns differ from another reduction's";
    schedule.domainShape.assign(shape.begin(), shape.end());
    schedule.dims = dims;
    columnLayout(schedule, shape, dims);
    if (failed(checkColumnwiseUses(op.getResult(0), schedule, target)))
      return failure();
    schedule.reductions.push_back(&op);
  }
  if (schedule.reductions.empty())
    return refuseFusion(fusion, target, "column_reduction")
           << "it has no fuse.reduce";

  int64_t domain = schedule.outer * schedule.reduced * schedule.inner;
  int64_t columns = schedule.outer * schedule.inner;
  for (auto [r, value] : llvm::enumerate(yield.getValues())) {
    int64_t n = numElements(value.getType());
    if (n == domain && schedule.reduced != 1)
      schedule.domainResults.push_back(r);
    else if (n == columns)
      schedule.columnResults.push_back(r);
    else
      return refuseFusion(fusion, target, "column_reduction")
             << "result " << r << " has " << n << " elements, neither "
             << columns << " columns nor " << domain << " elements";
  }
  return schedule;
}

FailureOr<WindowSchedule> analyzeWindowReduction(FusionOp fusion,
                                                 const ScheduleTarget &target) {
  Block &body = fusion.getBody().front();
  WindowSchedule schedule;
  for (auto pool : body.getOps<PoolOp>()) {
    if (!isa<BlockArgument>(pool.getOperand()))
      return refuse(pool, target, "window_reduction")
             << "its operand is computed in the kernel (it is read from "
                "memory at each window position)";
    int64_t positions = 1;
    for (int64_t size : pool.getWindow())
      positions =
          positions > kMaxWindowPositions ? positions : positions * size;
    if (positions > kMaxWindowPositions)
      return refuse(pool, target, "window_reduction")
             << "its window has more than " << kMaxWindowPositions
             << " positions";
    schedule.positions = std::max(schedule.positions, positions);
    schedule.pools.push_back(pool);
  }
  if (schedule.pools.empty())
    return refuseFusion(fusion, target, "window_reduction")
           << "it has no fuse.pool";
  for (Operation &op : body.without_terminator())
    if (isa<ReduceOp, ArgMaxOp, ArgMinOp, MatmulOp>(op))
      return refuse(&op, target, "window_reduction")
             << "a window reduction joins only pointwise ops";
  schedule.elements = numElements(schedule.pools.front().getType());
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [r, value] : llvm::enumerate(yield.getValues()))
    if (numElements(value.getType()) != schedule.elements)
      return refuseFusion(fusion, target, "window_reduction")
             << "result " << r << " has " << numElements(value.getType())
             << " elements, the pools' output " << schedule.elements;
  return schedule;
}

/// A gather reads its data at run-time positions, from memory: in every
/// schedule, its data is a kernel input.
static LogicalResult checkGatherData(FusionOp fusion,
                                     const ScheduleTarget &target) {
  for (auto gather : fusion.getBody().front().getOps<GatherOp>())
    if (!isa<BlockArgument>(gather.getData()))
      return refuse(gather, target, stringifyScheduleKind(fusion.getKind()))
             << "its data is computed in the kernel (a gather reads it from "
                "memory, at run-time positions)";
  return success();
}

FailureOr<DictionaryAttr> selectSchedule(FusionOp fusion,
                                         const ScheduleTarget &target) {
  if (failed(checkGatherData(fusion, target)))
    return failure();
  Builder b(fusion.getContext());
  SmallVector<NamedAttribute> entries;
  auto add = [&](StringRef name, int64_t value) {
    entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  };
  auto setKind = [&](ScheduleKind kind) {
    entries.push_back(
        b.getNamedAttr("kind", b.getStringAttr(stringifyScheduleKind(kind))));
  };
  ScheduleKind kind = fusion.getKind();
  // An argmax or argmin scans its axis in order, as a column reduction does,
  // where the target has that scan.
  bool columns = kind == ScheduleKind::column_reduction ||
                 (target.columnArgReductions && hasArgReduction(fusion));
  if (!columns && kind == ScheduleKind::full_reduction) {
    FailureOr<FullSchedule> full = analyzeFullReduction(fusion, target);
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
    FailureOr<ColumnSchedule> schedule = analyzeColumnReduction(fusion, target);
    if (failed(schedule))
      return failure();
    setKind(ScheduleKind::column_reduction);
    add("outer", schedule->outer);
    add("reduced", schedule->reduced);
    add("inner", schedule->inner);
  } else if (kind == ScheduleKind::row_reduction) {
    FailureOr<RowSchedule> schedule = analyzeRowReduction(fusion, target);
    if (failed(schedule))
      return failure();
    setKind(kind);
    add("rows", schedule->rows);
    add("row_length", schedule->rowLength);
  } else if (kind == ScheduleKind::pointwise) {
    setKind(kind);
    int64_t elements = 0;
    for (Value result : fusion.getResults())
      elements = std::max(elements, numElements(result.getType()));
    add("elements", elements);
  } else if (kind == ScheduleKind::matmul) {
    setKind(kind);
  } else if (kind == ScheduleKind::window_reduction) {
    FailureOr<WindowSchedule> schedule = analyzeWindowReduction(fusion, target);
    if (failed(schedule))
      return failure();
    setKind(kind);
    add("elements", schedule->elements);
    add("window_positions", schedule->positions);
  }
  add("vector_width", target.vectorWidth);
  return b.getDictionaryAttr(entries);
}

} // namespace mlir::fuse
