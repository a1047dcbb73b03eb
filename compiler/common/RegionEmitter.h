//===- RegionEmitter.h - Region values at an index, host and GPU -*- C++
//-*-===//
//
// The part of code generation every schedule of both targets shares: a
// region value is emitted "at an index", the flattened position of the
// element in the value's own shape. Elementwise ops pass the index through;
// broadcast, transpose and slice map it to their operand's position through
// an affine map on coordinates (AffineIndexMap.h); reshape keeps it. An
// index is one of
//   Contiguous(o): lanes o, o+1, ..., o+W-1, inside one aligned block;
//   Uniform(s):    every lane reads position s;
//   Lanes(v):      a vector of arbitrary positions (a gather).
// The map of a broadcast or transpose keeps a contiguous index contiguous
// (or makes it uniform) when the lanes of one block stay inside a run of
// dims it does not reorder; only odd shapes fall back to gathers. Values are
// memoized per index, so a value read twice at one index is emitted once.
//
// The targets derive from RegionEmitterBase (HostRegionEmitter.h,
// GpuRegionEmitter.h) for their own ops (the GPU's matmul) and element
// lowerings (ScalarLowering's hooks).
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_REGIONEMITTER_H
#define FUSE_COMPILER_REGIONEMITTER_H

#include "compiler/common/AffineIndexMap.h"
#include "compiler/common/KernelPlan.h"
#include "compiler/common/ScalarLowering.h"
#include "runtime/ir/WindowShape.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <type_traits>

namespace fuse {
namespace codegen {

struct Index {
  enum Kind : uint8_t { Contiguous, Uniform, Lanes };
  Kind kind;
  mlir::Value value;
  /// Contiguous: the lanes lie inside one aligned block of this many
  /// elements (the vector width in pointwise kernels, the row in row
  /// kernels); a map keeps them contiguous when the block lies inside one
  /// unit-stride run. kUnalignedBlock where a map moved them off such a
  /// block (a slice of rows whose length is not a multiple of it): the
  /// lanes are consecutive, but no block boundary is known, so a later map
  /// keeps them contiguous only when the whole value is one run.
  int64_t block = 1;
  static constexpr int64_t kUnalignedBlock =
      std::numeric_limits<int64_t>::max();
  /// Contiguous: the first lane's position is a multiple of the vector
  /// width, so the lanes are one access aligned to their size (the GPU's
  /// 128-bit loads and stores; the host never sets it).
  bool aligned = false;
  /// Where `value` is splitOuter * splitExtent + splitInner with 0 <=
  /// splitInner < splitExtent (a row and a column: a matmul's A at row m,
  /// column k, C at row m from column n), set by whoever built it, with
  /// `splitOf` the value they describe; a map whose dims split there
  /// (splitDim) takes the row's terms from splitOuter alone. An index whose
  /// value was replaced (splitOf no longer `value`) has no split.
  mlir::Value splitOuter, splitInner, splitOf;
  int64_t splitExtent = 0;

  /// `index` with its value described as outer * extent + inner.
  static Index split(Index index, mlir::Value outer, mlir::Value inner,
                     int64_t extent) {
    index.splitOuter = outer;
    index.splitInner = inner;
    index.splitOf = index.value;
    index.splitExtent = extent;
    return index;
  }
  bool hasSplit() const { return splitOf && splitOf == value; }
};

/// The geometry of an im2col: its operand [leading..., spatial...] is read
/// through a window over its last `n` dims (from `first` on), making
/// [leading, K, P]: `offsets` window offsets K by `positions` output
/// positions P (`out` per spatial dim); `inInner` is the spatial size.
struct Im2colGeometry {
  mlir::ArrayRef<int64_t> window, strides, dilations, pads, in;
  int64_t n, first;
  mlir::SmallVector<int64_t> out;
  int64_t positions = 1, offsets = 1, inInner = 1;

  explicit Im2colGeometry(fd::Im2colOp im2col);

  /// The coordinate along spatial dim `d` that window offset `w` of output
  /// position `o` reads: o * stride - pad + w * dilation (outside [0, in)
  /// in the padding). `constant` makes the integers, of o's and w's type.
  mlir::Value
  windowCoordinate(mlir::OpBuilder &b, mlir::Location loc, int64_t d,
                   mlir::Value o, mlir::Value w,
                   llvm::function_ref<mlir::Value(int64_t)> constant) const;
};

/// Emits region values at an index, with one vector width (1: scalars),
/// reading region arguments through `argPointers` (pointers in address
/// space `addressSpace`).
class RegionEmitterBase : public ScalarLowering {
public:
  RegionEmitterBase(mlir::OpBuilder &b, mlir::Location loc, unsigned width,
                    mlir::StringRef target, unsigned addressSpace,
                    const mlir::DenseMap<mlir::Value, mlir::Value> &argPointers)
      : ScalarLowering(b, loc, width, target), addressSpace(addressSpace),
        argPointers(argPointers) {}

  /// Values that are already known whatever the index (reduction results).
  void seed(mlir::Value regionValue, mlir::Value computed) {
    seeded[regionValue] = computed;
  }

  /// Values already computed at every index and kept in compute type at
  /// `base` (indexed by the same index as the value), a pointer in any
  /// address space (the GPU's shared memory).
  void stash(mlir::Value regionValue, mlir::Value base) {
    stashed[regionValue] = base;
  }

  /// Stores `computed` (in compute type) where stash() would read it.
  void storeStash(mlir::Value computed, mlir::Value base, Index index);

  /// The value at `index`. The region is walked with an explicit stack, so
  /// that a long chain of ops does not deepen the native one; ops are created
  /// in the order of a depth-first walk over the operands.
  mlir::FailureOr<mlir::Value> emit(mlir::Value value, Index index);

  /// The region value `value` emitted at `index` and stored there in
  /// `base` (a kernel's output): how every schedule writes its results.
  mlir::LogicalResult emitStore(mlir::Value value, mlir::Value base,
                                Index index);

  /// The value in its storage type, stored at `index` of `base`; Lanes
  /// scatter one lane at a time, the first `lanes` of them (all: 0).
  void store(mlir::Value computed, mlir::Type element, mlir::Value base,
             Index index, unsigned lanes = 0);

  /// The first `lanes` elements of `base` from `position` (scalar i64), in
  /// compute type, zero in the other lanes, which are never read: one
  /// masked vector load.
  mlir::Value loadFirstLanes(mlir::Value base, mlir::Type element,
                             mlir::Value position, unsigned lanes);

  /// Vector stores at contiguous positions bypass the caches (non-temporal)
  /// and are aligned to their size, at most 64 bytes: set by a host kernel
  /// for outputs far larger than the caches, whose positions are multiples
  /// of the width and whose buffers it has checked are 64-byte aligned
  /// (emitStoreLoop).
  bool streamingStores = false;

  /// A dim of a kernel's dims array (its index) and a block size that a
  /// version of the kernel takes the dim to be a multiple of.
  using AssumedMultiple = std::pair<unsigned, int64_t>;
  /// Set by a pointwise kernel with runtime dims for its version whose
  /// runs of unit stride and of one value, where they hold a runtime dim,
  /// are taken to be whole blocks: mapIndex then adds here each dim it
  /// takes to be a multiple of the block (the kernel runs that version
  /// only where every dim added is: emitPointwise).
  std::set<AssumedMultiple> *assumedMultiples = nullptr;

  mlir::Type pointerType() {
    return mlir::LLVM::LLVMPointerType::get(b.getContext(), addressSpace);
  }

  /// Every lane's position as a vector.
  mlir::Value lanePositions(Index index);

  Index mapIndex(Index index, const AffineIndexMap &map);

  /// Where some lane of `inRange` is false: stores one of those lanes'
  /// `key` and a set flag in the error record `slot` (KernelAbi.h), with
  /// relaxed atomic stores (chunks and threads of one launch may race to
  /// it). The common path is one test of the mask (an and-reduction of the
  /// lanes on a vector); the lanes outside are found in the branch.
  void reportOutOfRange(mlir::Value slot, mlir::Value inRange, mlir::Value key);

  /// One step of a scatter's update loop (Ops.def): row `rowIndex` and
  /// update `updateIndex` (the same lanes of the row, of `updates`) combined
  /// as the scatter's reduction says and stored into `out` at `rowIndex`.
  /// Lanes are contiguous or one (the GPU's scalar loop, the host's tail).
  mlir::LogicalResult emitScatterStep(fd::ScatterOp scatter, mlir::Value out,
                                      Index rowIndex, Index updateIndex);

  /// A scatter's index `q` (a scalar position of its indices) as a row:
  /// wrapped when negative, and whether it lies in [0, N); an index outside
  /// is reported in the error record slot `argPointers` maps the scatter's
  /// result to. Scalar emitters only.
  mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
  emitScatterRow(fd::ScatterOp scatter, mlir::Value q);

  /// Whether emitIm2colSlice can read `im2col`: its operand a region
  /// argument of 32 bits or more, on a target with masked vector loads.
  bool readsIm2colSlices(fd::Im2colOp im2col);

  /// The vector of an im2col [leading..., K, P] at leading coordinate
  /// `leading` (its leading dims flattened), window offset `offset` and
  /// positions `position` .. + width of P (scalar i64s), in compute type;
  /// with `valid`, the lanes from `valid` on are zero and read nothing (the
  /// positions past P). What a packer of an implicit GEMM's B reads: the
  /// lanes' output coordinates depend on `position` alone, so in a loop
  /// over k inside one over positions they are computed once, and each k
  /// is one masked load at the shifted position ("same" padding, unit
  /// strides), one masked load of a strided run (stridedRun) or one masked
  /// gather. `position` must be a multiple of the width. Needs
  /// readsIm2colSlices.
  mlir::Value emitIm2colSlice(fd::Im2colOp im2col, mlir::Value leading,
                              mlir::Value offset, mlir::Value position,
                              unsigned valid);

protected:
  /// A gather's or scatter's `key` (i64: a scalar, or a vector where `c`
  /// makes vectors) wrapped when negative, and whether it lies in
  /// [0, dim); a key outside is reported in the error record slot
  /// `argPointers` maps `result` to. `c` makes the i64 constants.
  std::pair<mlir::Value, mlir::Value>
  wrapIndex(mlir::Value key, int64_t dim, mlir::Value result,
            mlir::function_ref<mlir::Value(int64_t)> c);

  /// An op that is neither elementwise nor an index map, at `index`, where
  /// the target has a lowering of it; a null Value where it has none.
  /// Whether the target loads vectors under a lane mask cheaply (the
  /// host's AVX2/AVX-512 masked moves); the GPU's lanes are threads.
  virtual bool maskedVectorLoads() const { return false; }

  virtual mlir::FailureOr<mlir::Value> emitTargetOp(mlir::Operation *op,
                                                    Index index) {
    return mlir::Value();
  }

  /// An elementwise op on its operands (in their compute types); a target
  /// may refuse some before lowerElementwise.
  virtual mlir::FailureOr<mlir::Value>
  emitElementwise(mlir::Operation *op, mlir::ArrayRef<mlir::Value> x) {
    return lowerElementwise(op, x);
  }

  /// The element's size, or the whole vector's at an aligned contiguous
  /// index (LLVM splits an access it cannot prove aligned).
  unsigned alignmentOf(mlir::Type element, Index index) const;

  /// A value whose emission waits for its operands: an elementwise op's,
  /// one at a time, or (`op` null) the one an index map or reshape reads.
  struct Pending {
    mlir::Value value;
    Index index;
    mlir::Operation *op;
    mlir::SmallVector<mlir::Value> operands;
  };

  /// Starts emitting `value` at `index`: its result when no operand needs
  /// emitting first; else a null Value, with `value` pushed on `stack` and
  /// `next` set when one operand is to be started now.
  mlir::FailureOr<mlir::Value>
  start(mlir::Value value, Index index, mlir::SmallVector<Pending> &stack,
        std::optional<std::pair<mlir::Value, Index>> &next);

  /// The window offset k of a slice that takes one k of an im2col's [L...,
  /// K, P] and all the rest, unstrided (its result [L..., 1, P] is indexed
  /// as [L, P]); none for another slice.
  static std::optional<int64_t> im2colOffsetOf(fd::SliceOp slice);

  /// Every lane's position in vectorOf(i64) (a scalar at width 1).
  mlir::Value positionsOf(Index index);

  /// A position that is the start of a row of `length` positions plus a
  /// constant `offset` inside it: `row * length + offset`, as a window
  /// kernel by rows indexes its unrolled vectors (emitRowsLoop). Decoding
  /// one by a divisor or a multiple of the length splits into the row's
  /// decode (the same at every vector of the row, which CSE merges) and
  /// the offset's (constants).
  struct RowOffset {
    mlir::Value row;
    int64_t length, offset;
  };
  static std::optional<RowOffset> rowOffsetOf(mlir::Value position);

  /// `x` / `d` and `x` % `d` (scalar i64, d > 0), split through
  /// rowOffsetOf where `x` is a row's position.
  mlir::Value divideIndex(mlir::Value x, int64_t d);
  mlir::Value remainderIndex(mlir::Value x, int64_t d);

  /// laneCoordinates of a row's position whose row is the dims from `k` on:
  /// the dims before it decoded from the row (scalars, broadcast), the
  /// others each lane's constant.
  mlir::SmallVector<mlir::Value>
  rowLaneCoordinates(const RowOffset &r, size_t k,
                     mlir::ArrayRef<int64_t> sizes, mlir::Type indexType);

  /// The coordinates of every lane of `index` in a row-major shape `sizes`
  /// (outermost first; the outermost is not wrapped), as vectors of
  /// `indexType`. A contiguous index whose innermost dim holds at least a
  /// vector is decoded once, for its first lane, with scalar divisions; the
  /// other lanes add 0..W-1 to the innermost coordinate and carry (at most
  /// one per dim) outwards: a compare and two selects per dim instead of a
  /// vector division (which x86 does lane by lane for i64). A row's
  /// position (rowOffsetOf) whose row is the innermost dims and whose
  /// lanes stay in it decodes the row once and the lanes as constants.
  /// Else each lane is decoded.
  mlir::SmallVector<mlir::Value> laneCoordinates(Index index,
                                                 mlir::ArrayRef<int64_t> sizes,
                                                 mlir::Type indexType);

  /// An im2col at `index`: its geometry, the index type of its window
  /// arithmetic, and each lane's coordinates over [leading, window dims
  /// (with `withWindow`: the result's [L, K, P])..., output dims...].
  struct Im2colLanes {
    Im2colGeometry g;
    mlir::Type indexType;
    mlir::SmallVector<mlir::Value> coordinates;
  };
  Im2colLanes im2colLanes(fd::Im2colOp im2col, Index index, bool withWindow);

  /// A window reduction at `index` (the window_reduction schedule's one
  /// definition, ScheduleLegality.h): the output coordinates of the window
  /// dims are decoded from the position, and each of the window's positions
  /// (unrolled; the schedule bounds their count) is read from the operand at
  /// a gathered index, clamped to 0 where it falls in the padding and masked
  /// out of the combination there.
  mlir::FailureOr<mlir::Value> emitPool(fd::PoolOp pool, Index index);

  /// emitPool by runs (PoolRuns.cpp), where poolReadsRuns and the index is
  /// contiguous with its lanes inside one output row (a block that divides
  /// the row): per offset of the other window dims, a scalar row inside the
  /// input or not, and along the last dim one masked vector load per
  /// window offset (stride 1), or one of twice the lanes (stride 2) whose
  /// even elements are the lanes; the padding's lanes load the
  /// reduction's identity, so nothing is selected. With stride 2 the
  /// other dims' offsets are combined first on the wide vectors, and each
  /// last-dim offset takes its even elements once. Null where it does not
  /// apply (emitPool then gathers).
  mlir::Value emitPoolRuns(fd::PoolOp pool, Index index);

  /// emitPoolRuns' count of a mean's window positions per lane (in its
  /// element type): the other window dims' output coordinates
  /// `outCoordinates` (scalar i64s) and the first lane's output column
  /// `column`.
  mlir::Value poolRunsCount(fd::PoolOp pool,
                            mlir::ArrayRef<mlir::Value> outCoordinates,
                            mlir::Value column);

  /// An im2col at `index` (the window_reduction schedule, one position per
  /// element): the position p and the window offset k are decoded from the
  /// index ([leading, K, P]), and the operand is read at p * stride - begin
  /// + k * dilation per window dim, clamped to 0 in the padding, where the
  /// result is zero. A vector whose lanes stay inside one output row of a
  /// unit-stride last window dim (always when the rows are whole aligned
  /// blocks of the index; else checked per vector) reads consecutive input
  /// positions: one masked vector load (emitIm2colRun) instead of a decode
  /// and a load per lane (emitIm2colGather). With `offset`, the index is
  /// over [leading, P] at that one window offset k (a slice of the im2col
  /// at one k, as a depthwise convolution reads it): the offset's window
  /// coordinates are constants, and the decode of p is the same for every
  /// offset, so the slices share it.
  mlir::FailureOr<mlir::Value>
  emitIm2col(fd::Im2colOp im2col, Index index,
             std::optional<int64_t> offset = std::nullopt);

  /// emitIm2col's lanes [from, to) (scalar i64), which stay inside one
  /// output row: lane j is the element at position `start` + j - `shift`,
  /// decoded once (for `start`); along the last window dim lane j reads
  /// input column lastC + (j - shift) * stride, with stride 1 one masked
  /// vector load, with stride 2 one masked load of twice the lanes and
  /// their even elements. Lanes outside [from, to), and in the padding,
  /// are zero and read nothing.
  mlir::Value emitIm2colRun(fd::Im2colOp im2col, mlir::Value start,
                            mlir::Value operandPointer,
                            std::optional<int64_t> offset, mlir::Value shift,
                            mlir::Value from, mlir::Value to);

  /// Whether an im2col's input position is its output position plus a
  /// constant at each window offset: unit strides, and the output's
  /// spatial shape the input's (a "same" padding).
  static bool isShifted(const Im2colGeometry &g);

  /// emitIm2col at one window `offset`, for rows narrower than a vector:
  /// each lane's output coordinates are decoded (the same ops at every
  /// offset, which CSE merges), and the lanes whose input coordinates
  /// leave the input are masked off. An isShifted im2col reads one masked
  /// vector load at the index's position plus the offset's shift (across
  /// output rows, and channels where a map is shorter than a vector);
  /// another one masked gather at each lane's input position.
  /// `offset` is a scalar i64; `index` is over [leading, P], the result
  /// without its K.
  mlir::Value emitIm2colAtOffset(fd::Im2colOp im2col, Index index,
                                 mlir::Value offset,
                                 mlir::Value operandPointer);

  /// emitIm2colAtOffset's load, given the lanes' leading coordinate
  /// `leading` and output coordinates `out` (vectors of `indexType`), lane
  /// 0's position over [leading, P] (`position`, scalar i64; the lanes
  /// consecutive), and lanes to read besides those inside the input
  /// (`lanes`, an i1 vector; null: all). With `runs`, the position is a
  /// multiple of the width, and a stridedRun im2col is read as a run.
  mlir::Value loadIm2colAtOffset(fd::Im2colOp im2col, const Im2colGeometry &g,
                                 mlir::Type indexType, mlir::Value leading,
                                 mlir::ArrayRef<mlir::Value> out,
                                 mlir::Value position, mlir::Value offset,
                                 mlir::Value operandPointer, mlir::Value lanes,
                                 bool runs = false);

  /// loadIm2colAtOffset where every lane's output coordinates and the
  /// window offset are constants (a window kernel's unrolled vectors of a
  /// map narrower than a vector, rowOffsetOf) and the last dim's stride is
  /// at most kMaxRunStride: per output row among the lanes (a piece), one
  /// masked load of a run (with stride 2, twice the lanes and their even
  /// elements), its lanes in the padding masked off at compile time, then
  /// the pieces merged by constant selects. Null where it does not apply
  /// (the caller gathers). mobilenet_v3's 5x5 stride-2 depthwise
  /// convolution onto 14x14 gathered every lane of its 25 offsets.
  mlir::Value loadIm2colPieces(const Im2colGeometry &g, mlir::Type element,
                               mlir::Value leading,
                               mlir::ArrayRef<mlir::Value> out,
                               mlir::Value offset, mlir::Value operandPointer);

  /// The most pieces loadIm2colPieces reads a vector in; more (maps only a
  /// few positions wide) gather.
  static constexpr int64_t kMaxIm2colPieces = 4;

  /// The most stride along an im2col's last dim whose vectors are read as
  /// one run (stridedRun).
  static constexpr int64_t kMaxRunStride = 2;

  /// Whether loadIm2colAtOffset reads a vector of an im2col that is not
  /// isShifted as one masked load of a run of stride x width elements,
  /// every stride-th kept (a shuffle), rather than a gather: the last dim's
  /// stride at most kMaxRunStride, every lane valid (`lanes` null) and the
  /// output's last dim a multiple of the width, so that a vector whose
  /// first position is a multiple of the width (the packer's, from
  /// emitIm2colSlice) lies in one output row. resnet18's 7x7 stride-2 stem
  /// (112 x 112 outputs) gathered a fifth of its time.
  static bool stridedRun(const Im2colGeometry &g, unsigned width,
                         mlir::Value lanes);

  /// stridedRun's load: lane 0's `base` plus `delta`, the run's elements
  /// inside the input where the last dim's coordinate `lastInput` (of lane
  /// 0) plus the element's index is, and `rowInside` (lane 0's; null: all)
  /// holds.
  mlir::Value loadStridedRun(const Im2colGeometry &g, mlir::Type element,
                             mlir::Value base, mlir::Value delta,
                             mlir::Value lastInput, mlir::Value rowInside,
                             mlir::Value operandPointer, mlir::Type indexType);

  /// Whether loadIm2colAtOffset reads a packer's vector of a 2-D im2col
  /// that is not isShifted (and not a stridedRun) by output rows
  /// (loadRowPieces) rather than with a gather: the last dim's stride at
  /// most kMaxRunStride, and at most kMaxIm2colPieces output rows under a
  /// vector.
  static bool readsRowPieces(const Im2colGeometry &g, unsigned width);

  /// loadIm2colAtOffset for readsRowPieces: lane 0's output coordinates
  /// are runtime values, so each of the rows a vector can cover is a piece
  /// whose mask and place are computed (once per vector and window offset;
  /// a packer's loop over channels leaves them invariant): one masked load
  /// of a run (at stride 2, twice the lanes and their even elements) per
  /// row, merged by selects. `out` is the lanes' output coordinates,
  /// `leading` their leading coordinate (vectors of `indexType`), `lanes`
  /// the lanes to read besides those inside the input (null: all).
  /// resnet18's stride-2 convolutions onto 28x28 and 14x14 gathered every
  /// lane, a fifth of their kernels' time.
  mlir::Value loadRowPieces(const Im2colGeometry &g, mlir::Type element,
                            mlir::Type indexType, mlir::Value leading,
                            mlir::ArrayRef<mlir::Value> out, mlir::Value offset,
                            mlir::Value operandPointer, mlir::Value lanes);

  /// emitIm2col lane by lane: each lane's position decoded and loaded.
  mlir::FailureOr<mlir::Value> emitIm2colGather(fd::Im2colOp im2col,
                                                Index index,
                                                std::optional<int64_t> offset);

  /// The index type of a window kernel's arithmetic: i32 where every
  /// position of its operand and result fits, and so does every coordinate
  /// the window computes (a pad, a stride times an output coordinate, a
  /// dilation times a window offset: a pool dilated by 2^62 over 3 elements
  /// wrapped in i32 and read its padding as elements, issue 19); vector
  /// divisions by a constant then become multiplies (there is no 64-bit
  /// vector multiply-high). Else i64.
  mlir::Type windowIndexType(mlir::Value operand, mlir::Value result,
                             llvm::ArrayRef<int64_t> window,
                             llvm::ArrayRef<int64_t> strides,
                             llvm::ArrayRef<int64_t> dilations,
                             llvm::ArrayRef<int64_t> pads);

  /// An integer constant of a window kernel's index type, exact (constant()
  /// goes through a double, which rounds past 2^53).
  mlir::Value indexConstant(mlir::Type indexType, int64_t value);

  static int64_t numElementsOf(mlir::Value value) {
    return mlir::cast<mlir::RankedTensorType>(value.getType()).getNumElements();
  }

  /// `operand` at positions `at` (in a window kernel's index type) where
  /// `inside`, zero elsewhere, in `resultElement`'s compute type: emitted
  /// at the positions clamped to 0 outside. (An llvm.masked.gather instead
  /// measured no faster on AVX-512 for im2col and pooling, and slower for
  /// other gathered reads: mobilenet_v2 11.7 -> 12.5 ms.)
  mlir::FailureOr<mlir::Value> windowLoad(mlir::Value operand, mlir::Value at,
                                          mlir::Value inside,
                                          mlir::Type resultElement);

  /// A gather at `index` (Ops.def; every schedule reads it the same way):
  /// the indices are read at the result position's index coordinates (an
  /// index map: uniform along an embedding's row, so one index per vector),
  /// wrapped when negative, and the data, a kernel input, is loaded at the
  /// position they select (contiguous when the index is uniform and the
  /// result position contiguous). An index outside [-dim, dim) is never
  /// read: the load takes position 0 of the axis instead, and the kernel
  /// reports the index in its error record (KernelAbi.h), whose slot for
  /// this gather `argPointers` maps the gather's result to.
  mlir::FailureOr<mlir::Value> emitGather(fd::GatherOp gather, Index index);

  /// A concat at `index`: each operand is read at its own position of the
  /// element, clamped into its range along the axis (so every read is in
  /// bounds), and the one whose range holds the element is selected. The
  /// lanes of an aligned block that stays in one run of the dims after the
  /// axis share their operand; otherwise they are gathered lane by lane.
  mlir::FailureOr<mlir::Value> emitConcat(fd::ConcatOp concat, Index index);

  /// The kernel being built whose dims a fusion with runtime dims reads
  /// (dimsKernelOf): the host kernel a pointer of `argPointers` was loaded
  /// in (a kernel with no input maps its fusion's result to its output's
  /// pointer), or the GPU kernel with dims parameters that takes one; null
  /// elsewhere (a GPU kernel of a static fusion).
  mlir::FunctionOpInterface dimsKernel();

  /// An iota at `index`: the element's coordinate along the axis, its
  /// position decomposed by the result's shape as an index map would (in a
  /// fusion with runtime dims the sizes that are dims read from the
  /// kernel's dims array: the same code at every value of the dims).
  mlir::FailureOr<mlir::Value> emitIota(fd::IotaOp iota, Index index);

  /// A dim_value: its polynomial over the dims, each read from the host
  /// kernel's dims array (a fusion with runtime dims), or its constant.
  mlir::FailureOr<mlir::Value> emitDimValue(fd::DimValueOp op);

  /// `x`, i64 positions or a dim's value, as `op`'s result element type.
  mlir::FailureOr<mlir::Value> fromIndexValue(mlir::Operation *op,
                                              mlir::Value x);

  static std::tuple<mlir::Value, mlir::Value, unsigned>
  memoKey(mlir::Value value, Index index) {
    return std::make_tuple(value, index.value, unsigned(index.kind));
  }

  /// An op's own lowering, remembered where it succeeded.
  mlir::FailureOr<mlir::Value>
  rememberEmitted(mlir::Value value, Index index,
                  mlir::FailureOr<mlir::Value> emitted);

  mlir::Value remember(mlir::Value value, Index index, mlir::Value computed) {
    memo[memoKey(value, index)] = computed;
    return computed;
  }

  mlir::Value scalarLoad(mlir::Value base, mlir::Type element,
                         mlir::Value position);

  mlir::Value load(mlir::Value base, mlir::Type element, Index index);

  unsigned addressSpace;
  const mlir::DenseMap<mlir::Value, mlir::Value> &argPointers;
  mlir::DenseMap<mlir::Value, mlir::Value> seeded, seededSplats, stashed;
  mlir::DenseMap<std::tuple<mlir::Value, mlir::Value, unsigned>, mlir::Value>
      memo;
};

/// A target's region emitter (`Derived`: HostRegionEmitter.h's,
/// GpuRegionEmitter.h's): RegionEmitterBase with the target's name
/// (`Derived::kTarget`) and address space (`Derived::kAddressSpace`), made
/// as every schedule makes one, and the one op only that target lowers, if
/// any (`OwnOp`: the GPU's matmul; void: none) emitted by
/// `Derived::emitOwnOp`.
template <class Derived, class OwnOp = void>
class TargetRegionEmitter : public RegionEmitterBase {
public:
  TargetRegionEmitter(
      mlir::OpBuilder &b, mlir::Location loc, unsigned width,
      const mlir::DenseMap<mlir::Value, mlir::Value> &argPointers)
      : RegionEmitterBase(b, loc, width, Derived::kTarget,
                          Derived::kAddressSpace, argPointers) {}

private:
  mlir::FailureOr<mlir::Value> emitTargetOp(mlir::Operation *op,
                                            Index index) override {
    if constexpr (!std::is_void_v<OwnOp>)
      if (auto own = mlir::dyn_cast<OwnOp>(op))
        return static_cast<Derived *>(this)->emitOwnOp(own, index);
    return mlir::Value();
  }
};

/// The buffers of `results` in their order, from a kernel's `outputs` (one
/// per result of the fusion).
mlir::SmallVector<mlir::Value> outputsOf(mlir::ArrayRef<mlir::Value> outputs,
                                         mlir::ArrayRef<unsigned> results);

/// The yielded values `results` emitted at `index`, results[k] stored in
/// outputs[k].
mlir::LogicalResult storeResults(RegionEmitterBase &e, Index index,
                                 mlir::ValueRange yielded,
                                 mlir::ArrayRef<unsigned> results,
                                 mlir::ArrayRef<mlir::Value> outputs);

/// The results a kernel computes once per row, column or fusion, after its
/// reductions: storeResults with a target emitter (`Emitter`) of `width`
/// lanes that knows `seeds` (the reductions' results).
template <class Emitter>
mlir::LogicalResult
storeSeededResults(mlir::OpBuilder &b, mlir::Location loc, unsigned width,
                   const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
                   const mlir::DenseMap<mlir::Value, mlir::Value> &seeds,
                   Index index, mlir::ValueRange yielded,
                   mlir::ArrayRef<unsigned> results,
                   mlir::ArrayRef<mlir::Value> outputs) {
  Emitter e(b, loc, width, pointers);
  for (auto [value, known] : seeds)
    e.seed(value, known);
  return storeResults(e, index, yielded, results, outputs);
}

/// One step of a schedule's loop over positions: `body` runs at `index`
/// with the loop-carried values and a target emitter (`Emitter`: the
/// host's or the GPU's RegionEmitter) of `width` lanes that knows `seeds`
/// (results of earlier reductions). Returns the values carried on.
template <class Emitter, class Body>
mlir::FailureOr<mlir::SmallVector<mlir::Value>>
runStep(mlir::OpBuilder &b, mlir::Location loc, unsigned width,
        const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
        const mlir::DenseMap<mlir::Value, mlir::Value> &seeds, Index index,
        mlir::ValueRange carried, Body &&body) {
  Emitter emitter(b, loc, width, pointers);
  for (auto [value, known] : seeds)
    emitter.seed(value, known);
  return body(emitter, index, carried);
}

/// runStep as the whole body of an scf.for, which yields what it returns:
/// when it fails, the carried values unchanged, and `failedBody` is set (the
/// caller fails once the loop is built).
template <class Emitter, class Body>
void yieldStep(mlir::OpBuilder &b, mlir::Location loc, unsigned width,
               const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
               const mlir::DenseMap<mlir::Value, mlir::Value> &seeds,
               Index index, mlir::ValueRange carried, Body &&body,
               bool &failedBody) {
  mlir::FailureOr<mlir::SmallVector<mlir::Value>> next =
      runStep<Emitter>(b, loc, width, pointers, seeds, index, carried, body);
  if (mlir::failed(next)) {
    failedBody = true;
    mlir::scf::YieldOp::create(b, loc, carried);
    return;
  }
  mlir::scf::YieldOp::create(b, loc, *next);
}

/// A pointwise kernel (and the GPU's pull-form matmul) writes every result
/// at the same positions: each must have `domain` elements. The error names
/// `target` ("host", "GPU").
mlir::LogicalResult checkYields(fd::FusionOp fusion, int64_t domain,
                                mlir::StringRef target);

/// A pointwise kernel's frame, for every target: no kernel for a fusion
/// that yields nothing, checkYields, then `emitKernel(builder, location,
/// domain, yielded values)`, the target's kernel.
template <class EmitKernel>
mlir::FailureOr<FusionKernels>
emitPointwiseKernel(fd::FusionOp fusion, mlir::ModuleOp module,
                    mlir::StringRef target, EmitKernel &&emitKernel) {
  auto yield =
      mlir::cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  if (yield.getValues().empty())
    return FusionKernels{};
  int64_t domain = numElements(yield.getValues().front().getType());
  if (mlir::failed(checkYields(fusion, domain, target)))
    return mlir::failure();
  mlir::OpBuilder b(module.getContext());
  return emitKernel(b, fusion.getLoc(), domain, yield.getValues());
}

/// The step of a pointwise loop: each yielded value stored at `index` in
/// its output (yielded[k] in outputs[k]); nothing carried.
mlir::FailureOr<mlir::SmallVector<mlir::Value>>
storeStep(RegionEmitterBase &e, Index index, mlir::ValueRange yielded,
          mlir::ArrayRef<mlir::Value> outputs);

/// Whether a pool can be read by runs (RegionEmitterBase::emitPoolRuns) on
/// a target with masked vector loads of `width` lanes: its operand a region
/// argument whose elements are their own compute type of 32 bits or more, a
/// max (or a float mean), its last window dim strided by 1 or 2, output rows
/// of at least a vector, and every coordinate its window computes far from
/// overflowing i64. A host window kernel then takes its output rows as
/// rows.
bool poolReadsRuns(fd::PoolOp pool, unsigned width);

/// Whether `value` is an argument of a fusion's body whose input the driver
/// marked bound (kBoundInputsAttr, KernelPlan.h): a graph input, through
/// the horizontal fusions it is a member of.
bool isBoundFusionInput(mlir::Value value);

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_REGIONEMITTER_H
