//===- FusionCostModel.h - Legality and cost of a kernel --------*- C++ -*-===//
//
// The cost model of fusion, shared by the passes that decide
// (fuse-form-fusions, fuse-duplicate-cheap-producers) and the one that
// outlines (fuse-outline-fusions): what a kernel costs, what it would
// recompute, its limits. Whether the target's schedule can run a kernel is
// ScheduleLegality's question, which planKernel asks. It reads IR and never
// changes it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_FUSIONCOSTMODEL_H
#define FUSE_PASSES_FUSIONCOSTMODEL_H

#include "dialect/FuseOps.h"
#include "passes/ScheduleLegality.h"

#include <limits>
#include <memory>
#include <string>

namespace mlir::fuse {

/// The constants of the cost model (options of fuse-form-fusions).
struct CostModel {
  /// Most inputs plus outputs of one kernel.
  unsigned maxOperands = std::numeric_limits<unsigned>::max();
  /// Most values live at once while a kernel evaluates one element.
  unsigned maxLiveValues = std::numeric_limits<unsigned>::max();
  /// Most ops of one kernel (countedOps): LLVM's register allocator and
  /// instruction selection grow faster than linearly with a kernel's length.
  unsigned maxOps = std::numeric_limits<unsigned>::max();
  /// Output tile edge of the matmul schedule.
  int64_t matmulTile = 64;
  /// A launch, in bytes of traffic.
  int64_t launchCostBytes = 0;
  /// Whose schedules the kernel must fit (the host's run every kernel the
  /// cost model forms; the GPU's fewer).
  ScheduleTarget target = ScheduleTarget::host(16);
};

/// A set of ops that can run as one kernel.
struct KernelPlan {
  ScheduleKind kind = ScheduleKind::pointwise;
  /// Values read from outside, in order of first use (constants are cloned
  /// into the kernel instead).
  SmallVector<Value> inputs;
  /// Values used after the kernel, in op order.
  SmallVector<Value> outputs;
  /// Bytes read and written: inputs plus outputs.
  int64_t trafficBytes = 0;
  /// Most values live at once (inputs and intermediates).
  unsigned liveValues = 0;
};

/// The ops of `ops` that count toward max-ops: all but index maps
/// (broadcast, reshape, transpose, slice), which only say where another
/// op's elements are read. fuse-duplicate-cheap-producers copies them into
/// each consumer, and CSE merges the copies a kernel gets: a 7x7 depthwise
/// convolution's 49 slices of its columns and of its weight, with the
/// weight's copies, are no more code than its 97 multiplies and adds.
size_t countedOps(ArrayRef<Operation *> ops);

/// Ops that belong to a kernel: fuse tensor ops other than constants (cloned
/// into every kernel that reads them) and the fusion ops themselves.
bool isFusible(Operation *op);

/// Index remappings and conversions that cost less to recompute from their
/// operand than to read back from memory.
bool isCheapProducer(Operation *op);

/// Arithmetic cheap enough to redo for every tile of a matmul: the cheap
/// producers and a few instructions a vector (add, mul, div, max, select,
/// compare...), no transcendental (exp, log, tanh, pow...).
bool isCheapArithmetic(Operation *op);

/// Bytes of a statically shaped tensor type.
int64_t tensorBytes(Type type);

/// "64 B", "2 KiB", "1.5 MiB".
std::string formatBytes(int64_t bytes);

/// Plans `ops` (in block order) as one kernel. Fails when no schedule kind
/// fits, the schedule of `model.target` refuses the kernel
/// (ScheduleLegality's selectSchedule on a KernelView of `ops`), or a limit
/// of `model` is passed, with the reason in `why`.
FailureOr<KernelPlan> planKernel(ArrayRef<Operation *> ops,
                                 const CostModel &model, std::string &why);

/// planKernel's verdict on unions of groups of ops, kept up to date while
/// the groups of one block merge (fuse-form-fusions): each group keeps its
/// values' live ranges, inputs, outputs and iteration sizes, so that trying a
/// merge costs about the size of the smaller group (and a log factor) instead
/// of re-planning every op of both. A long chain then fuses in O(n log n)
/// rather than O(n^2). It decides pointwise, row and full reductions exactly
/// as planKernel does and leaves kernels with a matmul, a pool, an im2col, a
/// gather or a column reduction to planKernel, as well as reductions with an
/// op that reads other positions than its own (a transpose, a slice:
/// ScheduleLegality decides whether it reads a row's value at that row) or
/// an argmax/argmin.
class GroupPlans {
public:
  GroupPlans(Block &block, const CostModel &model);
  ~GroupPlans();

  /// Starts a group of the one op; groups are numbered in the order added.
  void addGroup(Operation *op);

  struct Verdict {
    /// False: planKernel on the union decides (a matmul, a column reduction).
    bool decided = false;
    bool legal = false;
    ScheduleKind kind = ScheduleKind::pointwise;
    int64_t trafficBytes = 0;
  };

  /// planKernel's verdict on the union of groups `a` and `b` (when decided).
  Verdict tryMerge(unsigned a, unsigned b);

  /// Makes the union of `a` and `b`, which the last tryMerge planned, group
  /// `into` (one of them); the other becomes empty.
  void commit(unsigned a, unsigned b, unsigned into);

  /// Calls `fn` on each value of the group that is used outside it.
  void forEachOutput(unsigned group, function_ref<void(Value)> fn) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::fuse

#endif // FUSE_PASSES_FUSIONCOSTMODEL_H
