//===- ScheduleLegality.h - Which schedule can run a fusion -----*- C++ -*-===//
//
// The one place that decides whether a kernel can run as its schedule on a
// target, and how: the rows of a row reduction, the
// [outer, reduced, inner] view of a column reduction, which results are
// stored per element and which per row or column. `fuse-select-schedules`
// records the decision on each fusion; the host and GPU code generators
// build their kernels from the same analysis instead of checking on their
// own, and fuse-form-fusions' planKernel asks the same analysis of a set of
// ops before it makes them one fusion (a KernelView is either). Target
// differences are capabilities of a ScheduleTarget, not target names in
// shared code.
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
#include "llvm/ADT/SmallPtrSet.h"
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
  /// A matmul epilogue may move the result (a transpose) before an
  /// elementwise op: the GPU's pull form computes each output at its own
  /// position. The host's applies the elementwise ops at the result's
  /// positions and moves only after the last of them.
  bool matmulMovesBeforeElementwise = false;
  /// A matmul computes the prologue of its B once per element of B (the
  /// host packs B's panels, in a pack kernel or per column group inside the
  /// matmul kernel, before its tiles read them), so a convolution's im2col
  /// may be B's prologue (an implicit GEMM): its column matrix is never
  /// stored.
  bool matmulRhsPrologueOnce = false;
  /// Attention kernels (AttentionSchedule): two matmuls with a row kernel
  /// between them, the scores never stored.
  bool attention = false;
  /// Horizontal fusions: several independent kernels in one launch.
  bool horizontal = false;
  /// The largest attention kernel the target's code generator holds: most
  /// elements of a Q or V row and most keys (the host's stack, the GPU's
  /// shared memory: a larger attention stays three kernels).
  int64_t attentionMaxDepth = 0, attentionMaxKeys = 0;

  static ScheduleTarget host(unsigned vectorWidth);
  static ScheduleTarget gpu();
};

/// The ops of one kernel as a schedule sees them: a fusion's body, or a set
/// of ops of a block that fuse-form-fusions considers making one fusion.
/// Values defined outside are the kernel's inputs (a fusion's block
/// arguments); values used outside are its results (a fusion's yielded
/// values). Constants are cloned into each kernel that reads them: neither
/// inputs nor computed.
class KernelView {
public:
  /// The body of `fusion`.
  explicit KernelView(FusionOp fusion);
  /// `ops`, in block order, as one kernel.
  explicit KernelView(ArrayRef<Operation *> ops);

  /// The members in order (a fusion's constants included).
  ArrayRef<Operation *> ops() const { return members; }
  bool contains(Operation *op) const { return memberSet.contains(op); }
  /// Computed in the kernel (by a member that is not a constant).
  bool isComputed(Value value) const;
  /// Read from memory.
  bool isInput(Value value) const;
  /// What the kernel stores: a fusion's yielded values; a set's values used
  /// outside it, in op order.
  ArrayRef<Value> results() const { return stored; }
  /// Where a refusal of the kernel as a whole is reported.
  Operation *anchor() const { return anchorOp; }
  /// The members computed from any of `from` (those included): the forward
  /// closure of `from` over the members, in one pass in block order.
  llvm::SmallPtrSet<Operation *, 32>
  computedFrom(ArrayRef<Operation *> from) const;

private:
  SmallVector<Operation *> members;
  llvm::SmallPtrSet<Operation *, 16> memberSet;
  SmallVector<Value> stored;
  Operation *anchorOp = nullptr;
  Block *body = nullptr; // a fusion's
};

/// Whether a broadcast of one value per row over the elements of the rows
/// reads each row's own value: it repeats the operand along trailing dims
/// only (dims of size 1 aside).
bool broadcastFollowsRows(BroadcastOp broadcast);

/// Whether a broadcast of one value per column over `domainShape` reads each
/// column's own value: it has that shape and repeats exactly along the
/// reduced `dims` (dims of size 1 aside).
bool broadcastFollowsColumns(BroadcastOp broadcast,
                             ArrayRef<int64_t> domainShape,
                             ArrayRef<int64_t> dims);

/// A window reduction (pooling, or a convolution's im2col): one work item
/// per element of the results (a pool's output has as many); each element
/// reads its window from the window op's operand, a kernel input, at each of
/// the window's positions (one for an im2col, which may be read at other
/// positions than the results', as a depthwise convolution's slices of it).
struct WindowSchedule {
  int64_t elements = 0;
  /// The most positions of one pool's window (unrolled in the kernel).
  int64_t positions = 0;
  /// The fuse.pool and fuse.im2col ops.
  SmallVector<Operation *> windows;
};

/// Most positions of a window that the window_reduction schedule unrolls.
inline constexpr int64_t kMaxWindowPositions = 256;

FailureOr<WindowSchedule> analyzeWindowReduction(const KernelView &kernel,
                                                 const ScheduleTarget &target);
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
FailureOr<RowSchedule> analyzeRowReduction(const KernelView &kernel,
                                           const ScheduleTarget &target);
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
FailureOr<FullSchedule> analyzeFullReduction(const KernelView &kernel,
                                             const ScheduleTarget &target);
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
  /// The shape every reduction reads and the dims it reduces.
  SmallVector<int64_t> domainShape, dims;
  /// The fuse.reduce ops (and argmax/argmin where the target scans them),
  /// in block order.
  SmallVector<Operation *> reductions;
  /// Results over the whole domain and one per column.
  SmallVector<unsigned> domainResults, columnResults;
};
FailureOr<ColumnSchedule> analyzeColumnReduction(const KernelView &kernel,
                                                 const ScheduleTarget &target);
FailureOr<ColumnSchedule> analyzeColumnReduction(FusionOp fusion,
                                                 const ScheduleTarget &target);

/// An attention kernel: `scores` = matmul(Q, K) is [batch..., M, N]; a row
/// kernel over rows of its N elements (a softmax, with any scale and mask:
/// what the row_reduction schedule runs, every op that reads the scores
/// reading them at their own position) computes the lhs of `output` =
/// matmul(P, V), [batch..., M, Dv], the kernel's one result. Q, K and V
/// (and the mask) may have prologues of data movement and cheap arithmetic,
/// computed where they are read. Work items are blocks of query rows, each
/// keeping its rows of scores on its stack: no buffer holds M x N scores.
struct AttentionSchedule {
  MatmulOp scores, output;
  int64_t batch = 1, rows = 0, keys = 0, depth = 0, valueDepth = 0;
  /// The row kernel's reductions, in block order.
  SmallVector<ReduceOp> reductions;
};

/// Most elements of a Q or V row, and most keys, of a host attention kernel
/// (its stack holds a block of Q rows and of output rows, and of score rows
/// where they fit: longer ones live in the kernel's scratch, a few rows per
/// part of the work, HostAttentionEmitter.cpp).
inline constexpr int64_t kMaxAttentionDepth = 512;
inline constexpr int64_t kMaxAttentionKeys = int64_t(1) << 20;
/// Most keys of a GPU attention kernel: a block's rows of scores live in
/// static shared memory (at most 48 KiB), 32 KiB of them for one row of
/// 8192 keys. Its Q and V rows are read from global memory: no limit of
/// shared memory on the depth beyond the host's.
inline constexpr int64_t kMaxGpuAttentionKeys = 8192;

FailureOr<AttentionSchedule> analyzeAttention(const KernelView &kernel,
                                              const ScheduleTarget &target);
FailureOr<AttentionSchedule> analyzeAttention(FusionOp fusion,
                                              const ScheduleTarget &target);

/// Checks that `kernel` can run as schedule `kind` on `target` and returns
/// the decision as attributes (the kind and its extents). A refusal is an
/// error at the op at fault. Pointwise and matmul kernels are recorded with
/// their extents only: a pointwise kernel needs only planKernel's one domain;
/// of a matmul's epilogue only the order of moves and elementwise ops is
/// checked here (matmulMovesBeforeElementwise), the emitters check the rest.
FailureOr<DictionaryAttr> selectSchedule(const KernelView &kernel,
                                         ScheduleKind kind,
                                         const ScheduleTarget &target);
/// As above for `fusion` and its kind, for `fuse-select-schedules`.
FailureOr<DictionaryAttr> selectSchedule(FusionOp fusion,
                                         const ScheduleTarget &target);

} // namespace mlir::fuse

#endif // FUSE_PASSES_SCHEDULELEGALITY_H
