//===- FusionCostModel.cpp - Legality and cost of a kernel ----------------===//
//
// A kernel has one schedule: pointwise over one domain; a reduction over rows
// with elementwise ops over the elements and over the rows; or one matmul
// with a cheap elementwise prologue per operand and an elementwise epilogue.
// Iteration spaces are compared in elements: reshapes and transposes keep the
// element count and become index maps of the kernel.
//
//===----------------------------------------------------------------------===//

#include "passes/FusionCostModel.h"
#include "passes/RepresentativeDims.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"

#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::fuse;

// Counts at the representative sizes of symbolic dims (RepresentativeDims.h),
// exact for static ones.
static int64_t numElements(Type type) { return numElementsOf(type); }

int64_t mlir::fuse::tensorBytes(Type type) { return bytesOf(type); }

std::string mlir::fuse::formatBytes(int64_t bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytes < 0) {
    os << "-" << formatBytes(-bytes);
    return text;
  }
  if (bytes < 1024) {
    os << bytes << " B";
    return text;
  }
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<int64_t>(value)))
    os << static_cast<int64_t>(value) << " " << units[unit];
  else
    os << llvm::format("%.1f", value) << " " << units[unit];
  return text;
}

size_t mlir::fuse::countedOps(ArrayRef<Operation *> ops) {
  return llvm::count_if(ops, [](Operation *op) {
    return !isa<BroadcastOp, ReshapeOp, TransposeOp, SliceOp>(op);
  });
}

bool mlir::fuse::isFusible(Operation *op) {
  // A scatter writes rows at run-time positions: a kernel of its own (the
  // scatter schedule), never fused. An iota or dim_value of symbolic dims
  // (issue 22) has no code generation yet, and an op whose dims fusion
  // cannot count at representative sizes stays alone (unrepresentableDim).
  return isa<FuseDialect>(op->getDialect()) &&
         !isa<ConstantOp, FusionOp, YieldOp, ScatterOp, IotaOp, DimValueOp>(
             op) &&
         unrepresentableDim(op).empty();
}

bool mlir::fuse::isCheapProducer(Operation *op) {
  return isa<BroadcastOp, CastOp, ReshapeOp, TransposeOp>(op);
}

bool mlir::fuse::isCheapArithmetic(Operation *op) {
  return isCheapProducer(op) || isa<NegOp, AbsOp, AddOp, SubOp, MulOp, DivOp,
                                    MaxOp, MinOp, SelectOp, CompareOp>(op);
}

/// A concat of at most this many operands is computed where a kernel reads
/// it: each operand is evaluated at every position of the concat (a select
/// picks one), so a few cheap ones cost less than storing them.
static constexpr unsigned kMaxRecomputedConcatOperands = 4;

static bool isSmallConcat(Operation *op) {
  return isa<ConcatOp>(op) &&
         op->getNumOperands() <= kMaxRecomputedConcatOperands;
}

static bool isConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

namespace {
/// The rows of a reduction: `rows` independent reductions of `cols` elements
/// each, laid out as the schedule kind says.
struct Rows {
  ScheduleKind kind;
  int64_t rows;
  int64_t cols;
  bool operator!=(const Rows &other) const {
    return kind != other.kind || rows != other.rows || cols != other.cols;
  }
};
} // namespace

static llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const Rows &rows) {
  return os << stringifyScheduleKind(rows.kind) << " of " << rows.rows << "x"
            << rows.cols;
}

/// The rows a reduction op reduces (printed "kind of ROWSxREDUCED"), or
/// nothing for other ops. The reduced dimensions are a suffix of the non-unit
/// dimensions for a row reduction, all of them for a full reduction.
static std::optional<Rows> reductionRows(Operation *op) {
  ShapedType type;
  SmallVector<int64_t> dims;
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    type = reduce.getOperand().getType();
    dims.assign(reduce.getDims().begin(), reduce.getDims().end());
  } else if (auto argmax = dyn_cast<ArgMaxOp>(op)) {
    type = argmax.getOperand().getType();
    dims.push_back(argmax.getAxis());
  } else if (auto argmin = dyn_cast<ArgMinOp>(op)) {
    type = argmin.getOperand().getType();
    dims.push_back(argmin.getAxis());
  } else {
    return std::nullopt;
  }
  SmallVector<int64_t> shape = shapeOf(type);
  Rows rows{ScheduleKind::row_reduction, 1, 1};
  int64_t lastKept = -1;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    if (llvm::is_contained(dims, static_cast<int64_t>(dim))) {
      rows.cols *= size;
      continue;
    }
    rows.rows *= size;
    if (size != 1)
      lastKept = dim;
  }
  if (lastKept < 0)
    rows.kind = ScheduleKind::full_reduction;
  else if (llvm::any_of(
               dims, [&](int64_t d) { return shape[d] != 1 && d < lastKept; }))
    rows.kind = ScheduleKind::column_reduction;
  return rows;
}

/// Whether broadcasting a per-row value to the elements of the rows follows
/// the layout of `reduction`'s rows (ScheduleLegality's rules).
static bool broadcastFollows(BroadcastOp broadcast, Operation *reduction,
                             const Rows &rows) {
  switch (rows.kind) {
  case ScheduleKind::full_reduction:
    return true;
  case ScheduleKind::row_reduction:
    return broadcastFollowsRows(broadcast);
  default:
    break;
  }
  auto reduce = dyn_cast<ReduceOp>(reduction);
  return reduce && broadcastFollowsColumns(
                       broadcast, shapeOf(reduce.getOperand().getType()),
                       reduce.getDims());
}

namespace {
/// Ops that only move or produce data without arithmetic: a pointwise
/// kernel recomputes them for free (index arithmetic and loads), whatever
/// their own size. Not a concat: its pieces are a compare and a select per
/// lane and defeat contiguous loads, which recomputing under several slices
/// multiplies (a depthwise convolution's zero padding, fused into its nine
/// shifted slices, ran 30x slower than padding first). An im2col is one:
/// its padding is a lane mask on one vector load (RegionEmitterBase::
/// emitIm2col), so a depthwise convolution reads its nine window offsets as
/// slices of an im2col that is never stored (a window_reduction kernel).
bool movesDataOnly(Operation *op) {
  return isa<SliceOp, ReshapeOp, TransposeOp, BroadcastOp, ConstantOp,
             Im2colOp>(op);
}

/// Checks one candidate kernel; the members are in block order.
class KernelChecker {
public:
  KernelChecker(ArrayRef<Operation *> ops, const CostModel &model,
                llvm::raw_ostream &why)
      : ops(ops), view(ops), model(model), why(why) {}

  FailureOr<KernelPlan> plan();

private:
  bool isMember(Value value) const {
    Operation *def = value.getDefiningOp();
    return def && view.contains(def);
  }
  LogicalResult checkMatmul(MatmulOp matmul);
  /// An attention kernel recomputes the ops that do not depend on its
  /// matmuls (the prologues of Q, K and V, the mask) wherever it reads
  /// them: only cheap arithmetic, and none of them a result.
  LogicalResult checkAttentionPrologues(ArrayRef<MatmulOp> matmuls);
  LogicalResult checkPrologueReads(MatmulOp matmul,
                                   const llvm::SmallPtrSetImpl<Operation *> &);
  /// An im2col in the matmul's prologue: only on B, reading a kernel input,
  /// where the target computes B's prologue once per element (its pack).
  LogicalResult checkIm2colOnB(MatmulOp matmul, Operation *im2col,
                               const llvm::SmallPtrSetImpl<Operation *> &);
  FailureOr<ScheduleKind> checkReductions(ArrayRef<Operation *> reductions);
  LogicalResult checkSchedule(ScheduleKind kind);
  /// Every op iterates over the kernel's domain, except (when
  /// `freeDataMovement`) ops of movesDataOnly over kernel inputs and
  /// constants only, whose results stay inside the kernel: a pointwise
  /// kernel reads them at the positions it needs.
  LogicalResult checkPointwise(bool freeDataMovement);
  bool feedsConcatOnly(Operation *op) const;
  /// Per member, whether it and every member below it only move data.
  llvm::DenseMap<Operation *, bool> membersMovingInputsOnly() const;
  unsigned countLiveValues(ArrayRef<Value> outputs) const;

  ArrayRef<Operation *> ops;
  KernelView view;
  const CostModel &model;
  llvm::raw_ostream &why;
};
} // namespace

FailureOr<KernelPlan> KernelChecker::plan() {
  if (size_t counted = countedOps(ops); counted > model.maxOps) {
    why << "the kernel would hold " << counted
        << " ops, more than max-ops=" << model.maxOps;
    return failure();
  }
  KernelPlan plan;
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!isMember(operand) && !isConstant(operand))
        inputs.insert(operand);
  plan.inputs.assign(inputs.begin(), inputs.end());
  plan.outputs.assign(view.results().begin(), view.results().end());
  for (Value value : llvm::concat<Value>(plan.inputs, plan.outputs))
    plan.trafficBytes += tensorBytes(value.getType());

  SmallVector<MatmulOp> matmuls;
  SmallVector<Operation *> reductions;
  SmallVector<Operation *> pools; // and im2col ops
  for (Operation *op : ops) {
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmuls.push_back(matmul);
    else if (isa<PoolOp, Im2colOp>(op))
      pools.push_back(op);
    else if (reductionRows(op))
      reductions.push_back(op);
  }
  // An im2col on a matmul's B, where the target computes B's prologue once
  // per element, is that matmul's (an implicit GEMM: checkMatmul).
  if (matmuls.size() == 1 && model.target.matmulRhsPrologueOnce &&
      llvm::all_of(pools, [](Operation *op) { return isa<Im2colOp>(op); }))
    pools.clear();
  // A window reduction iterates over its pools' output and reads each
  // element's window from memory; the schedule has the rules. An im2col
  // that the kernel does not yield is read at the positions it needs (a
  // depthwise convolution's slices of it), like other data movement.
  if (!pools.empty()) {
    plan.kind = ScheduleKind::window_reduction;
    if (failed(checkSchedule(plan.kind)) ||
        failed(checkPointwise(/*freeDataMovement=*/true)))
      return failure();
  } else if (matmuls.size() == 2 && model.target.attention &&
             !reductions.empty()) {
    plan.kind = ScheduleKind::attention;
    if (failed(checkAttentionPrologues(matmuls)) ||
        failed(checkSchedule(plan.kind)))
      return failure();
  } else if (matmuls.size() > 1) {
    why << "a kernel holds at most one matmul";
    return failure();
  } else if (!matmuls.empty()) {
    plan.kind = ScheduleKind::matmul;
    if (failed(checkMatmul(matmuls.front())) ||
        failed(checkSchedule(plan.kind)))
      return failure();
  } else if (!reductions.empty()) {
    FailureOr<ScheduleKind> kind = checkReductions(reductions);
    if (failed(kind) || failed(checkSchedule(*kind)))
      return failure();
    plan.kind = *kind;
  } else if (failed(checkPointwise(/*freeDataMovement=*/true)) ||
             failed(checkSchedule(ScheduleKind::pointwise))) {
    return failure();
  }

  size_t operands = plan.inputs.size() + plan.outputs.size();
  if (operands > model.maxOperands) {
    why << "the kernel would have " << operands
        << " operands, more than max-operands=" << model.maxOperands;
    return failure();
  }
  plan.liveValues = countLiveValues(plan.outputs);
  if (plan.liveValues > model.maxLiveValues) {
    why << "the kernel would keep " << plan.liveValues
        << " values live, more than max-live-values=" << model.maxLiveValues;
    return failure();
  }
  return plan;
}

LogicalResult
KernelChecker::checkAttentionPrologues(ArrayRef<MatmulOp> matmuls) {
  SmallVector<Operation *> matmulOps(matmuls.begin(), matmuls.end());
  llvm::SmallPtrSet<Operation *, 32> fromMatmuls = view.computedFrom(matmulOps);
  for (Operation *op : ops) {
    if (fromMatmuls.contains(op))
      continue;
    StringRef name = op->getName().getStringRef();
    // A small concat: rotate_half in rotary embeddings of Q and K.
    if (!isCheapArithmetic(op) && !isSmallConcat(op) &&
        !isa<ConstantOp, SliceOp, AndOp, OrOp, XorOp, NotOp>(op)) {
      why << "would recompute " << name << " wherever attention reads it";
      return failure();
    }
    if (llvm::is_contained(view.results(), op->getResult(0))) {
      why << "would yield " << name
          << " from an attention prologue, which is recomputed";
      return failure();
    }
  }
  return success();
}

LogicalResult KernelChecker::checkMatmul(MatmulOp matmul) {
  // The prologue: the members the matmul depends on.
  llvm::SmallPtrSet<Operation *, 8> prologue;
  SmallVector<Operation *> worklist{matmul};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands())
      if (isMember(operand) && prologue.insert(operand.getDefiningOp()).second)
        worklist.push_back(operand.getDefiningOp());
  }

  int64_t domain = numElements(matmul.getType());
  // The prologue of A (an im2col may only be B's).
  llvm::SmallPtrSet<Operation *, 8> lhsCone;
  if (Operation *lhs = matmul.getLhs().getDefiningOp();
      lhs && prologue.contains(lhs)) {
    SmallVector<Operation *> stack{lhs};
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      if (!lhsCone.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (isMember(operand) && prologue.contains(operand.getDefiningOp()))
          stack.push_back(operand.getDefiningOp());
    }
  }
  for (Operation *op : ops) {
    if (op == matmul)
      continue;
    StringRef name = op->getName().getStringRef();
    if (prologue.contains(op)) {
      if (reductionRows(op)) {
        why << "would recompute a reduction for every tile of the matmul";
        return failure();
      }
      if (isa<Im2colOp>(op)) {
        if (failed(checkIm2colOnB(matmul, op, lhsCone)))
          return failure();
      } else if (!isCheapArithmetic(op)) {
        why << "would recompute " << name << " for every tile of the matmul";
        return failure();
      }
      for (Operation *user : op->getUsers()) {
        if (user != matmul.getOperation() && !prologue.contains(user)) {
          why << "would yield " << name
              << " from a matmul prologue, which is recomputed per tile";
          return failure();
        }
      }
      continue;
    }
    if (reductionRows(op)) {
      why << "a matmul epilogue is elementwise, " << name << " is a reduction";
      return failure();
    }
    int64_t elements = numElements(op->getResult(0).getType());
    if (elements != domain) {
      why << name << " iterates over " << elements
          << " elements, the matmul kernel over " << domain;
      return failure();
    }
    if (llvm::any_of(op->getOperands(), [&](Value operand) {
          Operation *def = operand.getDefiningOp();
          return def && prologue.contains(def);
        })) {
      why << "an epilogue would read a prologue value";
      return failure();
    }
  }
  return checkPrologueReads(matmul, prologue);
}

LogicalResult KernelChecker::checkIm2colOnB(
    MatmulOp matmul, Operation *im2col,
    const llvm::SmallPtrSetImpl<Operation *> &lhsCone) {
  // The matmul kernel computes B's prologue once per element where the
  // target packs B: from two row blocks of C and a vector of columns on.
  SmallVector<int64_t> shape = shapeOf(matmul.getType());
  int64_t m = shape[shape.size() - 2], n = shape[shape.size() - 1];
  if (!model.target.matmulRhsPrologueOnce || lhsCone.contains(im2col) ||
      isMember(im2col->getOperand(0)) || m <= 6 ||
      n < int64_t(model.target.vectorWidth)) {
    why << "would recompute fuse.im2col for every tile of the matmul";
    return failure();
  }
  return success();
}

LogicalResult KernelChecker::checkPrologueReads(
    MatmulOp matmul, const llvm::SmallPtrSetImpl<Operation *> &prologue) {
  SmallVector<int64_t> shape = shapeOf(matmul.getType());
  int64_t m = shape[shape.size() - 2], n = shape[shape.size() - 1];
  int64_t batch = numElements(matmul.getType()) / std::max<int64_t>(1, m * n);
  for (auto [index, operand] : llvm::enumerate(matmul->getOperands())) {
    if (!isMember(operand))
      continue;
    // The external reads of this operand's prologue.
    llvm::SmallPtrSet<Operation *, 8> cone;
    llvm::SetVector<Value> reads;
    SmallVector<Operation *> worklist{operand.getDefiningOp()};
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!cone.insert(op).second)
        continue;
      for (Value value : op->getOperands()) {
        if (isMember(value) && prologue.contains(value.getDefiningOp()))
          worklist.push_back(value.getDefiningOp());
        else if (!isMember(value) && !isConstant(value))
          reads.insert(value);
      }
    }
    int64_t readBytes = 0;
    for (Value value : reads)
      readBytes += tensorBytes(value.getType());
    // The matmul reads an operand once per tile of the other output
    // dimension, and a shared (rank 2) operand once per batch element too.
    auto operandType = cast<ShapedType>(operand.getType());
    SmallVector<int64_t> operandShape = shapeOf(operandType);
    int64_t operandMatrix = operandShape[operandShape.size() - 1] *
                            operandShape[operandShape.size() - 2];
    int64_t operandBatch =
        numElements(operandType) / std::max<int64_t>(1, operandMatrix);
    int64_t otherDim = index == 0 ? n : m;
    // Where the target computes B's prologue once per element (its pack
    // kernel), B's reads are not repeated per tile of rows.
    int64_t tiles = index == 1 && model.target.matmulRhsPrologueOnce
                        ? 1
                        : llvm::divideCeil(otherDim, model.matmulTile);
    int64_t rereads =
        tiles *
        std::max<int64_t>(1, batch / std::max<int64_t>(1, operandBatch));
    int64_t operandBytes = tensorBytes(operandType);
    int64_t fused = rereads * readBytes;
    int64_t unfused = readBytes + operandBytes + rereads * operandBytes +
                      model.launchCostBytes;
    if (fused > unfused) {
      why << "the prologue would multiply the reads of matmul operand " << index
          << " (" << formatBytes(fused) << " fused against "
          << formatBytes(unfused) << " with the operand materialized)";
      return failure();
    }
  }
  return success();
}

FailureOr<ScheduleKind>
KernelChecker::checkReductions(ArrayRef<Operation *> reductions) {
  Rows rows = *reductionRows(reductions.front());
  for (Operation *reduction : reductions.drop_front()) {
    Rows other = *reductionRows(reduction);
    if (other != rows) {
      why << "reductions over incompatible dimensions (" << rows << " against "
          << other << ")";
      return failure();
    }
  }
  int64_t elements = rows.rows * rows.cols;
  for (Operation *op : ops) {
    if (reductionRows(op))
      continue;
    StringRef name = op->getName().getStringRef();
    int64_t size = numElements(op->getResult(0).getType());
    if (size != elements && size != rows.rows) {
      why << name << " iterates over " << size << " elements, the kernel over "
          << rows;
      return failure();
    }
    auto broadcast = dyn_cast<BroadcastOp>(op);
    if (broadcast && isMember(broadcast.getOperand()) &&
        !broadcastFollows(broadcast, reductions.front(), rows)) {
      why << name << " repeats along other dimensions than the kernel's "
          << rows;
      return failure();
    }
  }
  return rows.kind;
}

/// Asks ScheduleLegality whether the target's schedule of `kind` runs the
/// kernel: its refusal, an error at the op at fault, becomes the reason.
LogicalResult KernelChecker::checkSchedule(ScheduleKind kind) {
  MLIRContext *context = ops.front()->getContext();
  bool refused = false;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
    if (!refused)
      why << diag.str();
    refused = true;
    return success();
  });
  return selectSchedule(view, kind, model.target);
}

/// One pass in block order: a member's operands that are members are
/// answered before it.
llvm::DenseMap<Operation *, bool>
KernelChecker::membersMovingInputsOnly() const {
  llvm::DenseMap<Operation *, bool> moves;
  for (Operation *op : ops) {
    bool movesInputs =
        movesDataOnly(op) &&
        llvm::all_of(op->getOperands(), [&](Value operand) {
          return !isMember(operand) || moves.lookup(operand.getDefiningOp());
        });
    moves[op] = movesInputs;
  }
  return moves;
}

/// Whether `op` is a cheap elementwise op whose result the kernel reads only
/// as an operand of small concats (rotate_half's negated half in rotary
/// embeddings): a part of the concat's result, not a value recomputed for
/// every element of a larger domain, as its smaller size would suggest.
bool KernelChecker::feedsConcatOnly(Operation *op) const {
  if (op->getNumResults() != 1 || !isCheapArithmetic(op) ||
      op->getResult(0).use_empty())
    return false;
  return llvm::all_of(op->getResult(0).getUsers(), [&](Operation *user) {
    auto concat = dyn_cast<ConcatOp>(user);
    return concat && view.contains(user) && isSmallConcat(concat) &&
           !llvm::is_contained(view.results(), op->getResult(0));
  });
}

LogicalResult KernelChecker::checkPointwise(bool freeDataMovement) {
  llvm::DenseMap<Operation *, bool> movesInputs;
  if (freeDataMovement)
    movesInputs = membersMovingInputsOnly();
  auto isFree = [&](Operation *op) {
    return freeDataMovement && movesInputs.lookup(op) &&
           llvm::none_of(op->getResults(), [&](Value result) {
             return llvm::is_contained(view.results(), result);
           });
  };
  int64_t domain = 0;
  for (Operation *op : ops)
    if (!isFree(op))
      domain = std::max(domain, numElements(op->getResult(0).getType()));
  for (Operation *op : ops) {
    int64_t size = numElements(op->getResult(0).getType());
    if (size != domain && !isFree(op) && !feedsConcatOnly(op)) {
      why << op->getName().getStringRef() << " iterates over " << size
          << " elements, the pointwise kernel over " << domain
          << ": it would be recomputed";
      return failure();
    }
  }
  return success();
}

unsigned KernelChecker::countLiveValues(ArrayRef<Value> outputs) const {
  // A value is live from its definition (an input: its first use) to its
  // last use; an output stays live to the end.
  llvm::MapVector<Value, std::pair<unsigned, unsigned>> ranges;
  for (auto [index, op] : llvm::enumerate(ops)) {
    unsigned at = index;
    for (Value operand : op->getOperands())
      if (!isConstant(operand))
        ranges.try_emplace(operand, at, at).first->second.second = at;
    for (Value result : op->getResults())
      ranges.try_emplace(result, at, at);
  }
  unsigned end = ops.size();
  for (Value output : outputs)
    ranges[output].second = end;
  SmallVector<int> delta(end + 2, 0);
  for (auto &[value, range] : ranges) {
    ++delta[range.first];
    --delta[range.second + 1];
  }
  int live = 0, most = 0;
  for (int change : delta) {
    live += change;
    most = std::max(most, live);
  }
  return most;
}

FailureOr<KernelPlan> mlir::fuse::planKernel(ArrayRef<Operation *> ops,
                                             const CostModel &model,
                                             std::string &why) {
  llvm::raw_string_ostream os(why);
  return KernelChecker(ops, model, os).plan();
}

//===----------------------------------------------------------------------===//
// GroupPlans
//===----------------------------------------------------------------------===//

namespace {
/// Live-value counts over the block's op positions, as a segment tree whose
/// nodes are never changed once made: a group's tree is one root, adding a
/// range or merging two trees makes new nodes only along the changed paths,
/// so a tried merge leaves both groups' trees as they were.
class LiveTrees {
public:
  explicit LiveTrees(unsigned size) : size(std::max(size, 1u)) {}

  static constexpr int32_t empty = -1;

  /// Adds `delta` over positions [first, last] of `root`.
  int32_t add(int32_t root, unsigned first, unsigned last, int32_t delta) {
    return add(root, 0, size - 1, first, last, delta);
  }

  /// The tree whose count at each position is the sum of both trees'.
  int32_t merge(int32_t a, int32_t b) {
    if (a == empty)
      return b;
    if (b == empty)
      return a;
    Node node;
    node.add = nodes[a].add + nodes[b].add;
    int32_t aLeft = nodes[a].left, bLeft = nodes[b].left;
    int32_t aRight = nodes[a].right, bRight = nodes[b].right;
    node.left = merge(aLeft, bLeft);
    node.right = merge(aRight, bRight);
    node.most = std::max(most(node.left), most(node.right)) + node.add;
    nodes.push_back(node);
    return nodes.size() - 1;
  }

  /// The highest count at any position.
  int32_t most(int32_t root) const {
    return root == empty ? 0 : nodes[root].most;
  }

private:
  struct Node {
    int32_t left = empty, right = empty;
    int32_t add = 0;  // added over the whole range of the node
    int32_t most = 0; // the highest count in the range, `add` included
  };

  int32_t add(int32_t root, unsigned low, unsigned high, unsigned first,
              unsigned last, int32_t delta) {
    Node node = root == empty ? Node() : nodes[root];
    if (first <= low && high <= last) {
      node.add += delta;
      node.most += delta;
    } else {
      unsigned middle = low + (high - low) / 2;
      if (first <= middle)
        node.left = add(node.left, low, middle, first, last, delta);
      if (last > middle)
        node.right = add(node.right, middle + 1, high, first, last, delta);
      node.most = std::max(most(node.left), most(node.right)) + node.add;
    }
    nodes.push_back(node);
    return nodes.size() - 1;
  }

  unsigned size;
  std::vector<Node> nodes;
};

/// A value a group defines or reads (constants aside), as countLiveValues
/// and KernelChecker::plan see it.
struct ValueUse {
  unsigned first, last; // positions of its definition or first use, last use
  unsigned uses;        // operands of the group's ops that are this value
  unsigned totalUses;   // all its uses (values the group defines)
  bool defined;         // the group defines it
  /// The group's broadcasts of it while the group does not define it.
  SmallVector<Operation *, 0> broadcasts;

  bool isOutput() const { return defined && uses < totalUses; }
};

struct GroupPlan {
  llvm::DenseMap<Value, ValueUse> values;
  llvm::DenseSet<Value> outputs;
  int32_t live = LiveTrees::empty;
  unsigned numInputs = 0;
  int64_t trafficBytes = 0;
  /// Ops after which planKernel decides a union that has one: matmuls,
  /// pools, im2cols, gathers, and in a reduction kernel arg reductions
  /// (analyzed as columns where the target scans them) and ops that read other
  /// positions than their own (ScheduleLegality follows a row's value through
  /// elementwise ops, reshapes and broadcasts only).
  unsigned numForPlanKernel = 0;
  unsigned numForPlanKernelWithRows = 0;
  std::optional<Rows> rows; // the rows of its reductions
  /// Iteration sizes of its ops other than reductions and movesDataOnly.
  SmallVector<int64_t, 2> sizes;
  /// Iteration sizes of its movesDataOnly ops.
  SmallVector<int64_t, 2> dataSizes;
  /// Its broadcasts of a value it defines.
  SmallVector<Operation *> broadcasts;
};
} // namespace

struct GroupPlans::Impl {
  Impl(Block &block, const CostModel &model)
      : model(model), trees(std::distance(block.begin(), block.end())) {
    for (auto [index, op] : llvm::enumerate(block))
      position[&op] = index;
    end = std::max<unsigned>(position.size(), 1) - 1;
  }

  /// The positions a value is live over.
  std::pair<unsigned, unsigned> range(const ValueUse &use) const {
    return {use.first, use.isOutput() ? end : use.last};
  }

  int64_t cost(Value value, const ValueUse &use) const {
    return !use.defined || use.isOutput() ? tensorBytes(value.getType()) : 0;
  }

  /// A value both groups of the tried merge hold, as the union holds it.
  struct Shared {
    Value value;
    ValueUse *small, *large;
    ValueUse merged;
  };

  /// The last tryMerge: the union, without its values.
  struct Tried {
    unsigned a = ~0u, b = ~0u;
    unsigned small, large;
    SmallVector<Shared> shared;
    GroupPlan merged;
  };

  const CostModel &model;
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned end;
  LiveTrees trees;
  SmallVector<GroupPlan> groups;
  Tried tried;
};

GroupPlans::GroupPlans(Block &block, const CostModel &model)
    : impl(std::make_unique<Impl>(block, model)) {}

GroupPlans::~GroupPlans() = default;

void GroupPlans::addGroup(Operation *op) {
  GroupPlan &group = impl->groups.emplace_back();
  unsigned at = impl->position.lookup(op);
  for (Value operand : op->getOperands()) {
    if (isConstant(operand))
      continue;
    auto [it, inserted] =
        group.values.try_emplace(operand, ValueUse{at, at, 0, 0, false, {}});
    ++it->second.uses;
    if (isa<BroadcastOp>(op))
      it->second.broadcasts.push_back(op);
  }
  for (Value result : op->getResults()) {
    unsigned uses = std::distance(result.use_begin(), result.use_end());
    group.values.try_emplace(result, ValueUse{at, at, 0, uses, true, {}});
  }
  for (auto &[value, use] : group.values) {
    auto [first, last] = impl->range(use);
    group.live = impl->trees.add(group.live, first, last, 1);
    group.numInputs += !use.defined;
    if (use.isOutput())
      group.outputs.insert(value);
    group.trafficBytes += impl->cost(value, use);
  }
  // A concat's operands may be smaller than its kernel's domain
  // (KernelChecker::feedsConcatOnly), which the sizes below do not see.
  group.numForPlanKernel =
      isa<MatmulOp, PoolOp, Im2colOp, GatherOp, ConcatOp>(op);
  group.numForPlanKernelWithRows = isa<ArgMaxOp, ArgMinOp>(op) ||
                                   !(op->hasTrait<OpTrait::Elementwise>() ||
                                     isa<ReshapeOp, BroadcastOp, ReduceOp>(op));
  group.rows = reductionRows(op);
  if (movesDataOnly(op))
    group.dataSizes.push_back(numElements(op->getResult(0).getType()));
  else if (!group.rows)
    group.sizes.push_back(numElements(op->getResult(0).getType()));
}

GroupPlans::Verdict GroupPlans::tryMerge(unsigned a, unsigned b) {
  Impl &p = *impl;
  Impl::Tried &tried = p.tried;
  tried.a = a;
  tried.b = b;
  bool aSmaller = p.groups[a].values.size() < p.groups[b].values.size();
  tried.small = aSmaller ? a : b;
  tried.large = aSmaller ? b : a;
  GroupPlan &small = p.groups[tried.small], &large = p.groups[tried.large];
  GroupPlan &merged = tried.merged;
  merged = GroupPlan();
  tried.shared.clear();

  merged.live = p.trees.merge(small.live, large.live);
  merged.numInputs = small.numInputs + large.numInputs;
  merged.trafficBytes = small.trafficBytes + large.trafficBytes;
  SmallVector<Operation *> newlyInternal;
  int64_t outputDelta = 0;
  for (auto &[value, smallUse] : small.values) {
    auto it = large.values.find(value);
    if (it == large.values.end())
      continue;
    ValueUse &largeUse = it->second;
    ValueUse use{std::min(smallUse.first, largeUse.first),
                 std::max(smallUse.last, largeUse.last),
                 smallUse.uses + largeUse.uses,
                 std::max(smallUse.totalUses, largeUse.totalUses),
                 smallUse.defined || largeUse.defined,
                 {}};
    if (use.defined) {
      for (ValueUse *side : {&smallUse, &largeUse})
        if (!side->defined)
          newlyInternal.append(side->broadcasts);
    } else {
      use.broadcasts.append(smallUse.broadcasts);
      use.broadcasts.append(largeUse.broadcasts);
    }
    for (ValueUse *side : {&smallUse, &largeUse}) {
      auto [first, last] = p.range(*side);
      merged.live = p.trees.add(merged.live, first, last, -1);
      merged.numInputs -= !side->defined;
      outputDelta -= side->isOutput();
      merged.trafficBytes -= p.cost(value, *side);
    }
    auto [first, last] = p.range(use);
    merged.live = p.trees.add(merged.live, first, last, 1);
    merged.numInputs += !use.defined;
    outputDelta += use.isOutput();
    merged.trafficBytes += p.cost(value, use);
    tried.shared.push_back({value, &smallUse, &largeUse, std::move(use)});
  }
  merged.numForPlanKernel = small.numForPlanKernel + large.numForPlanKernel;
  merged.numForPlanKernelWithRows =
      small.numForPlanKernelWithRows + large.numForPlanKernelWithRows;
  merged.sizes = large.sizes;
  for (int64_t size : small.sizes)
    if (!llvm::is_contained(merged.sizes, size))
      merged.sizes.push_back(size);
  merged.dataSizes = large.dataSizes;
  for (int64_t size : small.dataSizes)
    if (!llvm::is_contained(merged.dataSizes, size))
      merged.dataSizes.push_back(size);

  Verdict verdict;
  verdict.trafficBytes = merged.trafficBytes;
  // planKernel's checks, in any order: the union is legal when all pass.
  bool legal = true;
  if (small.rows && large.rows && *small.rows != *large.rows)
    legal = false;
  merged.rows = large.rows ? large.rows : small.rows;
  if (merged.numForPlanKernel != 0 ||
      (legal && merged.rows &&
       (merged.numForPlanKernelWithRows != 0 ||
        merged.rows->kind == ScheduleKind::column_reduction ||
        (merged.rows->kind == ScheduleKind::full_reduction &&
         !p.model.target.fullReductionAsOneRow))))
    return verdict; // planKernel decides
  if (legal && merged.rows) {
    verdict.kind = merged.rows->kind;
    int64_t elements = merged.rows->rows * merged.rows->cols;
    legal = llvm::all_of(llvm::concat<int64_t>(merged.sizes, merged.dataSizes),
                         [&](int64_t size) {
                           return size == elements || size == merged.rows->rows;
                         });
    // Broadcasts of values the kernel computes follow the rows; those of a
    // group that had reductions already did.
    SmallVector<Operation *> unchecked = newlyInternal;
    for (GroupPlan *side : {&small, &large})
      if (!side->rows)
        unchecked.append(side->broadcasts);
    legal =
        legal && llvm::all_of(unchecked, [&](Operation *op) {
          // Which reduction does not matter for row and full ones.
          return broadcastFollows(cast<BroadcastOp>(op), nullptr, *merged.rows);
        });
  } else if (legal) {
    verdict.kind = ScheduleKind::pointwise;
    // Data movement of another size than the arithmetic (a slice of a
    // weight, a padded input) may be free: planKernel decides, knowing
    // what it reads and what the kernel yields.
    bool mixed = llvm::any_of(merged.dataSizes, [&](int64_t size) {
      return merged.sizes.empty() ? size != merged.dataSizes.front()
                                  : size != merged.sizes.front();
    });
    if (mixed && merged.sizes.size() <= 1)
      return verdict; // planKernel decides
    legal = merged.sizes.size() + (merged.sizes.empty() ? 1 : 0) == 1 && !mixed;
  }
  unsigned numOutputs = small.outputs.size() + large.outputs.size();
  numOutputs += outputDelta;
  legal = legal && merged.numInputs + numOutputs <= p.model.maxOperands &&
          unsigned(p.trees.most(merged.live)) <= p.model.maxLiveValues;
  verdict.decided = true;
  verdict.legal = legal;
  return verdict;
}

void GroupPlans::commit(unsigned a, unsigned b, unsigned into) {
  Impl &p = *impl;
  Impl::Tried &tried = p.tried;
  assert(tried.a == a && tried.b == b && (into == a || into == b) &&
         "commit follows the tryMerge of the same groups");
  GroupPlan &small = p.groups[tried.small], &large = p.groups[tried.large];
  GroupPlan &merged = tried.merged;
  // The shared values first: their entries move when the map grows.
  for (Impl::Shared &shared : tried.shared) {
    if (shared.merged.defined) {
      for (ValueUse *side : {shared.small, shared.large})
        if (!side->defined)
          merged.broadcasts.append(side->broadcasts);
    }
    if (shared.merged.isOutput())
      large.outputs.insert(shared.value);
    else
      large.outputs.erase(shared.value);
    *shared.large = std::move(shared.merged);
  }
  for (auto &[value, use] : small.values) {
    auto [it, inserted] = large.values.try_emplace(value, std::move(use));
    if (inserted && it->second.isOutput())
      large.outputs.insert(value);
  }
  merged.values = std::move(large.values);
  merged.outputs = std::move(large.outputs);
  merged.broadcasts.append(small.broadcasts);
  merged.broadcasts.append(large.broadcasts);
  p.groups[into == tried.large ? tried.small : tried.large] = GroupPlan();
  p.groups[into] = std::move(merged);
  tried.a = tried.b = ~0u;
}

void GroupPlans::forEachOutput(unsigned group,
                               function_ref<void(Value)> fn) const {
  for (Value value : impl->groups[group].outputs)
    fn(value);
}
