//===- ScheduleLegality.h - Which schedule can run a fusion -----*- C++ -*-===//
//
// The one place that decides whether a `fuse.fusion` can run as its
// schedule on a target, and how: the rows of a row reduction, the
// [outer, reduced, inner] view of a column reduction, which results are
// stored per element and which per row or column. `fuse-select-schedules`
// records the decision on each fusion; the host and GPU code generators
// build their kernels from the same analysis instead of checking on their
// own. Target differences are capabilities of a ScheduleTarget, not target
// names in shared code.
//
// A refusal is an error at the offending op that names the target and the
// schedule ("cannot be generated for the GPU in a column_reduction kernel:
// its reduced dims are not consecutive").
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_SCHEDULELEGALITY_H
#define FUSE_PASSES_SCHEDULELEGALITY_H

#include "dialect/FuseOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::fuse {

/// What a target's code generator can do, as far as choosing a schedule
/// goes.
struct ScheduleTarget {
  /// In messages: "host" or "GPU".
  std::string name;
  /// Lanes of f32 arithmetic per vector step.
  unsigned vectorWidth = 1;
  /// Column reductions whose reduced dims interleave with kept ones (the
  /// host walks runs of dims; the GPU needs them consecutive).
  bool interleavedColumnDims = false;
  /// argmax/argmin scans inside column reductions.
  bool columnArgReductions = false;
  /// A full reduction that reads a reduction's result (a variance of the
  /// whole tensor, a softmax over every element) runs as a row kernel of
  /// one row; without it, such a fusion is refused.
  bool fullReductionAsOneRow = false;

  static ScheduleTarget host(unsigned vectorWidth);
  static ScheduleTarget gpu();
};

/// A window reduction (pooling): one work item per element of the pools'
/// output, which every result has; each element reads its window from the
/// pool's operand, a kernel input, at each of the window's positions.
struct WindowSchedule {
  int64_t elements = 0;
  /// The most positions of one pool's window (unrolled in the kernel).
  int64_t positions = 0;
  SmallVector<PoolOp> pools;
};

/// Most positions of a window that the window_reduction schedule unrolls.
inline constexpr int64_t kMaxWindowPositions = 256;

FailureOr<WindowSchedule> analyzeWindowReduction(FusionOp fusion,
                                                 const ScheduleTarget &target);

/// A row reduction: every reduction reduces `rowLength` contiguous elements
/// per row (dims of size 1 may sit anywhere), `rows` rows.
struct RowSchedule {
  int64_t rows = -1, rowLength = -1;
  /// The reductions, in block order.
  SmallVector<ReduceOp> reductions;
  /// Results over the whole domain (rows x rowLength) and one per row.
  SmallVector<unsigned> domainResults, rowResults;
};
FailureOr<RowSchedule> analyzeRowReduction(FusionOp fusion,
                                           const ScheduleTarget &target);

/// A full reduction: every reduction reduces all `domain` elements of its
/// operand.
struct FullSchedule {
  int64_t domain = -1;
  /// The target runs this fusion as a row kernel of one row instead
  /// (ScheduleTarget::fullReductionAsOneRow); nothing else is filled.
  bool asOneRow = false;
  SmallVector<ReduceOp> reductions;
  /// The reductions and the ops that use their results.
  llvm::SetVector<Operation *> afterReduction;
  /// Results over the whole domain (stored by the partials kernel) and of
  /// one element (stored by the finishing kernel).
  SmallVector<unsigned> domainResults, scalarResults;
};
FailureOr<FullSchedule> analyzeFullReduction(FusionOp fusion,
                                             const ScheduleTarget &target);

/// A run of operand dims merged where their strides allow it.
struct DimRun {
  int64_t size, stride;
};

/// A column reduction views its operand as [outer, reduced, inner]: inner
/// is the run of kept dims after the last reduced dim (the columns,
/// contiguous); kept dims before it and the reduced dims may interleave
/// where the target allows.
struct ColumnSchedule {
  int64_t outer = 1, reduced = 1, inner = 1;
  /// The kept dims before the innermost reduced dim, and the reduced dims,
  /// outermost first.
  SmallVector<DimRun> outerRuns, reducedRuns;
  /// The operand's kept dims of size other than 1, in order.
  SmallVector<int64_t> keptSizes;
  /// The shape every reduction reads and the dims it reduces.
  SmallVector<int64_t> domainShape, dims;
  /// The fuse.reduce ops (and argmax/argmin where the target scans them),
  /// in block order.
  SmallVector<Operation *> reductions;
  /// Results over the whole domain and one per column.
  SmallVector<unsigned> domainResults, columnResults;
};
FailureOr<ColumnSchedule> analyzeColumnReduction(FusionOp fusion,
                                                 const ScheduleTarget &target);

/// Checks that `fusion` can run as its schedule kind on `target` and
/// returns the decision as attributes (the kind and its extents), for
/// `fuse-select-schedules`. Schedules whose legality still lives in a code
/// generator (pointwise, matmul) are recorded with their extents only.
FailureOr<DictionaryAttr> selectSchedule(FusionOp fusion,
                                         const ScheduleTarget &target);

} // namespace mlir::fuse

#endif // FUSE_PASSES_SCHEDULELEGALITY_H
