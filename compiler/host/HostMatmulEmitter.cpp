//===- HostMatmulEmitter.cpp - Host matmul kernels with epilogues ---------===//
//
// One `fuse.matmul` per fusion, C[b, m, n] = sum_k A[b, m, k] B[b, k, n],
// with the fusion's other ops as a prologue (inside the operands' subtrees,
// applied on load) and an epilogue (elementwise ops and reshapes on C, then
// reshapes and transposes to the yielded values, applied before the store).
//
// One iteration is a block of kRowBlock output rows of one batch (the last
// block's row indices clamped to the last row). The kernel walks the columns
// in strips (outer loop) and, inside each strip, the row blocks of its
// [begin, end) (inner loop), so the strip of B stays in cache while the rows
// pass. A tile keeps rows x strip accumulators in vector registers; each k
// broadcasts one element of A per row and loads one vector of B per strip
// vector: rows x vectors FMAs per k. Strips are as many vectors wide as the
// registers allow (HostMatmulTarget::stripVectors), then the rest is one
// strip of its vectors, the last one's lanes past N masked or clamped.
// Positions are computed in the operands' and results' own shapes, so a
// transposed A or a transpose in the prologue is a gather, and head splits and
// merges in the epilogue are index maps on the store.
//
// B is packed into panels (K x strip, contiguous) by a kernel of its own
// that runs first (`_pack`, into the fusion's scratch): with transpose_b or
// a prologue on B (the k loop reads vectors, the prologue runs once per
// element of B), and for speed from M >= 128 rows (HostMatmulTarget): read
// in place, B is one row per k at a stride of N * 4 bytes, which at
// power-of-two N lands every k in the same L1 sets as A's rows; a panel is
// one stream the L2 prefetcher follows. The pack kernel reads B along its
// rows in memory (every element once, all cores), so the matmul's chunks
// share one copy and can be small: the work splits evenly across threads.
// Where B is computed by a prologue and has columns enough for 8 groups of
// the widest strip, or is a convolution's im2col, or a fusion input with
// that many columns and a C that fits the L2 (packsInput: an NCHW 1x1
// convolution's input), the matmul kernel packs instead (packsInKernel): an
// iteration is a column group (with fewer than 8 groups, a part of its row
// blocks, each part packing a copy of the group's panels), whose panels it
// packs and then runs its row blocks over while they are in cache; no pack
// kernel, no round trip of the copy through memory. With a long K and a small
// A, a block of k at a time (kBlockRows): the block's panels stay in L1,
// partial sums in scratch. An im2col's panels are packed a vector of columns at
// a time, k inside: its lanes' positions are decoded once per vector.
//
// With runtime dims (issue 22), a matmul whose rows alone grow with the dims
// (A read along its rows, one B for every batch: a linear layer on a batch
// of tokens) takes the runtime-rows form (takesRuntimeRows): its batches'
// rows are one run, an iteration is a row, and a chunk [begin, end) runs
// its rows in row blocks, the last clamped to end - 1, so no M is in the
// code; a weight is packed once per binding whatever M.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/HostBf16Matmul.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"

using namespace mlir;
using namespace ::fuse::codegen;
using namespace ::fuse::host;

namespace fuse {

namespace {

/// Output rows per iteration (and per register tile).
constexpr int64_t kRowBlock = 6;
/// Elements of B per pack-kernel chunk, about.
constexpr int64_t kPackGrainElements = int64_t(1) << 14;
/// Multiply-adds per scheduling grain, about.
constexpr int64_t kGrainMacs = int64_t(1) << 20;
/// The fewest iterations of the one-kernel form (packsInKernel) that the
/// column groups (of all batches) alone make: 2 threads then take at least
/// 4 groups each, so a last, narrower group unbalances them by at most a
/// quarter. Fewer groups (a 14x14 map has 4 of 64 columns, a 7x7 one 1)
/// split their row blocks into parts, up to kMaxRowParts, each packing the
/// group's panels into a copy of its own.
constexpr int64_t kMinColumnGroups = 8;
/// Bytes of a column group's panels per block of k in the one-kernel form
/// (kBlockRows): the block's panels stay in L1 while the row blocks pass
/// (48 KiB on the AVX-512 cores measured), and A's rows stream. resnet18's
/// 64 x 576 x 3136 convolutions, one core, in the model: 2.4 -> 2.1 ms.
constexpr int64_t kBlockPanelBytes = int64_t(32) << 10;
/// The largest A (one batch's M x K) whose rows are blocked by k: each row
/// block reads a short run of each of its rows per block of k, which the
/// prefetchers follow only from the caches (resnet18's 512 x 4608 x 49
/// convolutions took 2.0 ms on one core with one block, 4.0 with blocks).
constexpr int64_t kBlockMaxLhsBytes = int64_t(256) << 10;
/// The largest A blocked by k on AVX-512 where C's columns are whole vectors
/// (no dot columns, which blocks of k would cost) and a group's panels (K
/// rows) take at least kBlockMinWholePanelBytes: in one block each row block
/// reads the whole panel from the L2, in blocks of k a block's from L1.
/// resnet18's 128 x 1152 x 784 convolutions (A 576 KiB, panels 288 KiB), 2
/// AVX-512 Xeon cores (fuse-run --bench, alternating, medians): 0.76 ->
/// 0.725 ms, one core 1.30 -> 1.23 ms. With panels of 144 KiB the blocks
/// cost more than they save: the stride-2 128 x 576 x 784 one (A 288 KiB),
/// one core, 0.72 -> 0.74 ms.
constexpr int64_t kBlockMaxWholeLhsBytes = int64_t(1) << 20;
constexpr int64_t kBlockMinWholePanelBytes = int64_t(256) << 10;
/// Multiply-adds per grain of a runtime-rows matmul whose columns are split
/// into parts (runtimeRowsParts): a decoder's step is one row, and its
/// matmuls (256 x 1024 of f32, 1 MiB of packed B read from the L3) run on
/// one thread unless the columns split.
constexpr int64_t kPartGrainMacs = int64_t(1) << 16;
/// Chunks per worker thread of the row-block form's launch (the runtime's
/// default is 4, for balance): a chunk runs every strip over its row blocks,
/// so each chunk reads all of B's panels once more, and the first row block
/// of each strip reads its panel from past the L2. relu(x@W+b), 2 AVX-512
/// Xeon cores, fuse-run --bench under chrt -f, alternating, medians (1 / 2 /
/// 4 chunks): 1024^3 6.69 / 6.81 / 7.05 ms, 512x768x3072 8.15 / 8.52 /
/// 9.12 ms.
constexpr unsigned kMatmulChunksPerWorker = 1;
/// Steps of k per iteration of a tile's k loop (emitKLoop). The loop's own
/// increments and branch take issue slots beside the tile's FMAs; unrolled,
/// they take a quarter as many. A C prototype of the 6 x 4 tile (B in K x 64
/// panels, A in place), 2 AVX-512 Xeon cores, alternating, % of the FMA peak
/// measured in the same process: 1024^3 82% -> 88% (2 steps 86%, 8 steps
/// 86%), 2048^3 82% -> 88%.
constexpr int64_t kUnrollK = 4;
/// The most columns past the last whole vector computed as dot products
/// along k (dotTail), per vector width: each is a row block's accumulators
/// more in the registers.
constexpr unsigned kMaxDotColumns16 = 4, kMaxDotColumns8 = 2;
/// The last row block of a matmul gets a tile of its own rows where the
/// rows its clamped tile would compute again are at least 1 in this many of
/// those computed (lastRowsTile): M = 64 and 128 (3%), not 256 or 512
/// (0.8%), whose second copy of the tile costs compile time for little.
constexpr int64_t kMinClampedRowShare = 50;
/// The most window offsets of an im2col whose pack is unrolled over them
/// inside its loop over channels (emitPackIm2colColumns): up to a 7x7
/// window; a larger one loops. resnet18's 7x7 stride-2 stem, one core: 1.82
/// -> 1.57 ms unrolled (a loop decoded each offset's window coordinates,
/// scalar divisions, for every load).
constexpr int64_t kMaxUnrolledOffsets = 49;
/// The largest C (all batches) of a matmul whose B, a fusion input, is packed
/// by its column groups (packsInput): the L2 of the AVX-512 cores measured.
constexpr int64_t kMaxGroupStoreBytes = int64_t(2) << 20;
/// The most row parts per column group: each packs the group's panels again
/// (a copy per part, no part waits for another), so the parts trade packing
/// for threads that share the work.
constexpr int64_t kMaxRowParts = 2;

/// When B is packed (the one place these numbers live).
struct HostMatmulTarget {
  /// Whether B (read in place otherwise) is packed for speed alone, not
  /// for a transpose or a prologue: the copy is one read and one write of
  /// each element of B, which the unit-stride reads of M rows must repay.
  /// Read in place, B is one row per k, N elements apart; a panel is one
  /// stream. Which wins depends on the caches, so the rule is per vector
  /// ISA, each measured on its machine (fuse-run --bench, packed against in
  /// place, same sitting):
  /// - AVX2 (2 cores, 2026-11-30): packing gains from M >= 128 where N is a
  ///   power of two (256x256x1024: 1.22 -> 0.98 ms, 1024^3: 1.6x) or small
  ///   (512x4608x49: 2.8 -> 2.3 ms); M = 64 is even (64x576x3136).
  /// - AVX-512 (2 AMD EPYC cores, 48 KiB L1d and 1 MiB L2 each,
  ///   2026-12-02): packing gains only from M >= 512 with N a power of two of
  ///   at least 1024 (1024^3 5.1 -> 4.5 ms, 2048^3 53 -> 35 ms,
  ///   512x2048x2048 12.5 -> 10.1 ms) and loses elsewhere: 128x768x3072 1.40
  ///   -> 2.07 ms, 256x768x768 0.64 -> 0.81, 256x512x4096 2.35 -> 2.83,
  ///   512x768x3072 5.0 -> 5.5, and the convolutions' 128x1152x784 0.52 -> 0.81
  ///   and 256x2304x196 0.70 -> 0.85. 512x4608x49 (resnet18's last
  ///   convolutions) takes 0.80 ms packed, 0.71 in place (with its last column
  ///   in a two-vector strip).
  static bool packsForSpeed(int64_t m, int64_t n, unsigned width) {
    if (width < 16)
      return m >= 128;
    return m >= 512 && n >= 1024 && llvm::isPowerOf2_64(uint64_t(n));
  }
  /// The largest packed copy of B (in the bundle's arena); a larger B is
  /// read in place.
  int64_t maxPackedBytes = int64_t(1) << 30;

  /// Vectors per column strip of the widest register tile: kRowBlock x
  /// stripVectors accumulators, stripVectors vectors of B and one broadcast
  /// of A must fit the vector registers. AVX-512 (16 lanes) has 32: a 6 x 4
  /// tile (24 accumulators, 10 loads per 24 FMAs). AVX2 (8 lanes) has 16:
  /// 6 x 2. Measured on 2 AVX-512 cores (fuse-bench, relu(x@W+b), medians,
  /// alternating): 6 x 2 262 / 260 / 230 GFLOP/s at 1024^3 / 2048^3 /
  /// 512x768x3072, 6 x 4 296 / 300 / 254.
  static int64_t stripVectors(unsigned width) { return width >= 16 ? 4 : 2; }
};
constexpr HostMatmulTarget kHostMatmulTarget;

LogicalResult unsupportedMatmul(Operation *op, const Twine &why) {
  return op->emitOpError()
         << "cannot be generated for the host in a matmul kernel: " << why;
}

/// Whether `value` is computed from `source`.
bool dependsOn(Value value, Value source, DenseMap<Value, bool> &memo) {
  if (value == source)
    return true;
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool result = def && llvm::any_of(def->getOperands(), [&](Value operand) {
                  return dependsOn(operand, source, memo);
                });
  memo[value] = result;
  return result;
}

/// Every path from `value` back to the matmul's result `c` must go through
/// elementwise ops and reshapes only (both keep positions): the epilogue
/// reads C at the position it computes.
LogicalResult checkElementwiseOnC(Value value, Value c,
                                  DenseMap<Value, bool> &memo) {
  if (value == c || !dependsOn(value, c, memo))
    return success();
  Operation *def = value.getDefiningOp();
  if (!def->hasTrait<OpTrait::Elementwise>() && !isa<fd::ReshapeOp>(def))
    return unsupportedMatmul(def, "it moves the matmul's result between "
                                  "positions before the last elementwise op");
  for (Value operand : def->getOperands())
    if (failed(checkElementwiseOnC(operand, c, memo)))
      return failure();
  return success();
}

/// A yielded value: computed at C's positions as `value`, then stored
/// through `maps` (C's position -> the yielded tensor's position).
struct EpilogueResult {
  Value value;
  SmallVector<AffineIndexMap> maps;
  Type element;
};

/// Where operand coordinates of a transpose land in its result.
AffineIndexMap forwardTransposeMap(fd::TransposeOp op) {
  AffineIndexMap map;
  ArrayRef<int64_t> operandShape = shapeOf(op.getOperand());
  map.resultShape.assign(operandShape.begin(), operandShape.end());
  SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getResult()));
  map.multipliers.assign(operandShape.size(), 0);
  for (auto [resultDim, operandDim] : llvm::enumerate(op.getPermutation()))
    map.multipliers[operandDim] = strides[resultDim];
  // With runtime dims its sizes and strides are read from the dims array
  // (a head split's store stride over the sequence is S * D).
  return mergedForRuntimeDims(op, std::move(map));
}

FailureOr<EpilogueResult> analyzeYield(Value yielded, Value c,
                                       DenseMap<Value, bool> &memo) {
  EpilogueResult result;
  result.element = elementTypeOf(yielded);
  Value value = yielded;
  SmallVector<AffineIndexMap> reversed;
  while (Operation *def = value.getDefiningOp()) {
    if (auto transpose = dyn_cast<fd::TransposeOp>(def)) {
      reversed.push_back(forwardTransposeMap(transpose));
      value = transpose.getOperand();
    } else if (auto reshape = dyn_cast<fd::ReshapeOp>(def)) {
      value = reshape.getOperand();
    } else {
      break;
    }
  }
  if (numElements(value.getType()) != numElements(c.getType())) {
    Operation *anchor = value.getDefiningOp()
                            ? value.getDefiningOp()
                            : c.getDefiningOp<fd::MatmulOp>().getOperation();
    return unsupportedMatmul(anchor, "a yielded value is not an elementwise "
                                     "function of the matmul's result "
                                     "followed by reshapes and transposes");
  }
  if (failed(checkElementwiseOnC(value, c, memo)))
    return failure();
  result.value = value;
  result.maps.assign(reversed.rbegin(), reversed.rend());
  return result;
}

/// The static sizes of a matmul, batch dims flattened.
struct MatmulShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool lhsBatched = false, rhsBatched = false;
  bool transposeA = false, transposeB = false;
};

MatmulShape matmulShape(fd::MatmulOp op) {
  MatmulShape s;
  ArrayRef<int64_t> result = shapeOf(op.getResult());
  ArrayRef<int64_t> lhs = shapeOf(op.getLhs());
  size_t rank = result.size();
  for (size_t d = 0; d + 2 < rank; ++d)
    s.batch *= result[d];
  s.m = result[rank - 2];
  s.n = result[rank - 1];
  s.transposeA = op.getTransposeA();
  s.transposeB = op.getTransposeB();
  s.k = s.transposeA ? lhs[lhs.size() - 2] : lhs[lhs.size() - 1];
  s.lhsBatched = lhs.size() > 2;
  s.rhsBatched = shapeOf(op.getRhs()).size() > 2;
  return s;
}

/// Whether the matmul's rows are a runtime count (issue 22, KernelAbi.h
/// "Runtime dims"): in a fusion emitted for runtime dims, A read along its
/// rows and one B shared by every batch (a linear layer on a token batch,
/// ?{batch}x?{sequence}xK @ KxN). Its batches and rows are then one run of
/// rows, A's and C's addressed by row from their base pointers, and an
/// iteration is a row (runtimeRowsShape), so the code depends on M and the
/// batch count through [begin, end) alone.
bool takesRuntimeRows(fd::MatmulOp matmul, const MatmulShape &s) {
  auto fusion = matmul->getParentOfType<fd::FusionOp>();
  return fusion && fusion->hasAttr(kRuntimeDimsAttr) && !s.transposeA &&
         !s.rhsBatched;
}

/// The shape a runtime-rows matmul is emitted at: one batch of rows of an
/// unknown count (m 0, which no code reads).
MatmulShape runtimeRowsShape(MatmulShape s) {
  s.batch = 1;
  s.m = 0;
  s.lhsBatched = false;
  return s;
}

class MatmulKernelBuilder {
public:
  MatmulKernelBuilder(OpBuilder &b, Location loc, fd::MatmulOp matmul,
                      const DenseMap<Value, Value> &pointers,
                      ArrayRef<EpilogueResult> results, ArrayRef<Value> outputs,
                      unsigned width, bool runtimeRows = false)
      : b(b), loc(loc), matmul(matmul),
        s(runtimeRows ? runtimeRowsShape(matmulShape(matmul))
                      : matmulShape(matmul)),
        pointers(pointers), results(results), outputs(outputs), width(width),
        accumulator(computeType(elementTypeOf(matmul.getResult()))),
        packB(runtimeRows ? packsRuntimeRowsB(matmul, s, width)
                          : packsB(matmul, s, width)),
        dots(!runtimeRows && dotTail(matmul, s, width)),
        runtimeRows(runtimeRows) {}

  /// Whether a runtime-rows matmul (takesRuntimeRows) reads B from panels
  /// the pack kernel wrote: where it must (transpose_b, a prologue on B),
  /// and for a weight, whose pack kernel runs once per binding (then even
  /// one row reads a panel, one stream, as fast as B in place).
  static bool packsRuntimeRowsB(fd::MatmulOp matmul, const MatmulShape &s,
                                unsigned width) {
    if (s.n < int64_t(width) || s.k == 0 ||
        packedBytes(matmul, s, width) > kHostMatmulTarget.maxPackedBytes)
      return false;
    return s.transposeB || !isa<BlockArgument>(matmul.getRhs()) ||
           packsOncePerBinding(matmul);
  }

  /// Whether the last columns past C's whole vectors (at most
  /// kMaxDotColumns) are dot products along k rather than a vector of
  /// partly valid lanes: in the one-kernel form without blocks of k, A
  /// read along its rows (no transpose_a) and K whole vectors. Their panel
  /// is the columns one after another, K each (storePacked); a row block's
  /// tile holds rows x columns vectors of products along k, summed across
  /// lanes at the end, and runs after the block's tile of the strip before
  /// them while A's rows are in cache (emitDotTile). resnet18's 512 x 4608
  /// x 49 convolutions: 3 vectors and one column instead of 4 vectors.
  static bool dotTail(fd::MatmulOp matmul, const MatmulShape &s,
                      unsigned width) {
    return takesDotTail(s, width) && packsInKernel(matmul, s, width) &&
           kBlockRows(matmul, s, width) == 0;
  }

  /// Whether the shape alone allows dot columns (dotTail): the last
  /// columns, past C's whole vectors, at most kMaxDotColumns, A read along
  /// its rows and K whole vectors.
  static bool takesDotTail(const MatmulShape &s, unsigned width) {
    int64_t tail = s.n % int64_t(width);
    int64_t most = width >= 16 ? kMaxDotColumns16 : kMaxDotColumns8;
    return width > 1 && tail > 0 && tail <= most && !s.transposeA &&
           s.k % int64_t(width) == 0;
  }

  /// B's fusion input, where B is one, or one through reshapes of static
  /// shapes that is not a bound input (a weight, whose reshaped copy is
  /// packed per run as before): a reshape keeps the row-major order, so B's
  /// element at flat position p is the input's. An NCHW 1x1 convolution
  /// reads its input through a reshape where that input is also another
  /// kernel's residual (FormFusions' reshapesKeptOutput). Else null.
  static BlockArgument rhsInput(fd::MatmulOp matmul) {
    Value value = matmul.getRhs();
    bool reshaped = false;
    while (auto reshape = value.getDefiningOp<fd::ReshapeOp>()) {
      if (!reshape.getType().hasStaticShape() ||
          !cast<RankedTensorType>(reshape.getOperand().getType())
               .hasStaticShape())
        return {};
      value = reshape.getOperand();
      reshaped = true;
    }
    auto argument = dyn_cast<BlockArgument>(value);
    if (argument && reshaped && isBoundFusionInput(argument))
      return {};
    return argument;
  }

  /// Whether the vector strips read B from panels the pack kernel wrote:
  /// from two row blocks on, always with transpose_b or a prologue on B (the
  /// panel is where B's
  /// rows become vectors), and for speed where the target's rule says
  /// enough rows reuse them (HostMatmulTarget::packsForSpeed).
  static bool packsB(fd::MatmulOp matmul, const MatmulShape &s,
                     unsigned width) {
    // One row block reads each element of B once: a copy first would only
    // add a write and a read (an M = 1 classifier's transposed weight took
    // as long to pack as the whole matmul).
    if (s.m <= kRowBlock || s.n < int64_t(width) || s.k == 0 ||
        packedBytes(matmul, s, width) > kHostMatmulTarget.maxPackedBytes)
      return false;
    return s.transposeB || !rhsInput(matmul) || packsOncePerBinding(matmul) ||
           packsInput(matmul, s, width) ||
           HostMatmulTarget::packsForSpeed(s.m, s.n, width);
  }

  /// Whether B, a fusion input another kernel computed (an NCHW 1x1
  /// convolution's input), is packed inside the matmul kernel a column group
  /// at a time (packsInKernel) rather than read in place, where each batch
  /// has kMinColumnGroups groups (not an attention's values, 64 columns a
  /// head). In place, a strip reads K rows of its columns at a stride of N
  /// elements and M / kRowBlock row blocks reuse them; packed, each group's
  /// rows are read once into panels that stay in L1. The group form stores
  /// a group's M rows a strip at a time, short runs that cost more than
  /// whole rows once C outgrows the L2 (kMaxGroupStoreBytes). mobilenet_v2
  /// on 2 AVX-512 cores (fuse-run --profile, same sitting): the projections
  /// 16 x 32 x 12544 0.14 -> 0.08 ms, 24 x 96 x 3136 0.18 -> 0.10, 24 x 144
  /// x 3136 with a residual 0.24 -> 0.13; the 96 x 16 x 12544 expansion (C
  /// 4.6 MiB) 0.23 -> 0.26 packed, so it stays in place; the model 4.7 ->
  /// 4.3 ms (--bench 100, alternating).
  /// With fewer groups (a 7x7 or 14x14 map: 1 or 4), one batch, and a last
  /// vector of few valid columns, B is packed too, for those columns'
  /// sake: the packed form computes them as dot products along k (dotTail)
  /// where in place a vector of mostly idle lanes takes as long as a whole
  /// one (49 columns: 4 vectors' FMAs for 3 and 1/16). The groups split
  /// their row blocks into parts (rowParts), each packing its own copy;
  /// B is small (K x N). Not with blocks of k, which take no dot columns.
  /// mobilenet_v2's 1x1 convolutions after a depthwise one, on 2 AVX-512
  /// cores (Xeon, 48 KiB L1d, 2 MiB L2; fuse-run --profile, same sitting):
  /// 1280 x 320 x 49 0.18 -> 0.15 ms, 320 x 960 x 49 0.13 -> 0.12,
  /// 960 x 160 x 49 0.07 -> 0.06, 576 x 96 x 196 0.09 -> 0.08.
  static bool packsInput(fd::MatmulOp matmul, const MatmulShape &s,
                         unsigned width) {
    return rhsInput(matmul) && !packsOncePerBinding(matmul) && !s.transposeB &&
           (s.rhsBatched || s.batch == 1) &&
           (columnGroups(s, width) >= kMinColumnGroups ||
            (s.batch == 1 && takesDotTail(s, width) &&
             !blocksK(matmul, s, width))) &&
           s.batch * s.m * s.n * elementBytes(matmul) <= kMaxGroupStoreBytes;
  }

  /// Whether B is a graph input read as it is (a weight): its pack kernel
  /// then runs once per binding of the inputs, not per run, so packing
  /// costs a run nothing and B's panels are always read packed.
  static bool packsOncePerBinding(fd::MatmulOp matmul) {
    return isa<BlockArgument>(matmul.getRhs()) &&
           isBoundFusionInput(matmul.getRhs());
  }

  /// Column groups per batch of the one-kernel form: each the columns of
  /// one widest strip (the last group the rest).
  static int64_t columnGroups(const MatmulShape &s, unsigned width) {
    return llvm::divideCeil(s.n, groupColumns(width));
  }
  static int64_t groupColumns(unsigned width) {
    return HostMatmulTarget::stripVectors(width) * int64_t(width);
  }

  /// Whether B's panels are packed inside the matmul kernel (one kernel,
  /// each iteration a column group of a batch, or a part of its row blocks:
  /// it packs the group's panels, then runs its row blocks over them while
  /// they are in cache) rather than by a pack kernel first. For B computed
  /// by a prologue (an implicit GEMM's im2col), where the pack kernel's copy
  /// made a round trip through memory and a launch of its own per
  /// convolution, and for a fusion input where packsInput says. It needs
  /// B's batches to be its own (a shared B would be packed once per batch),
  /// and enough column groups for the threads to share evenly
  /// (kMinColumnGroups) or B an im2col, whose groups split their rows into
  /// parts (rowParts): its panels, read at one window offset per k
  /// (emitPackIm2colColumns), cost less than the pack kernel's round trip
  /// and launch even packed once per part. Another prologue on fewer
  /// columns keeps the pack kernel, whose rows split across threads.
  static bool packsInKernel(fd::MatmulOp matmul, const MatmulShape &s,
                            unsigned width) {
    return packsB(matmul, s, width) && !s.transposeB &&
           (!rhsInput(matmul) || packsInput(matmul, s, width)) &&
           (s.rhsBatched || s.batch == 1) &&
           (s.batch * columnGroups(s, width) >= kMinColumnGroups ||
            im2colOfB(matmul, s) || rhsInput(matmul));
  }

  /// Row parts per column group of the one-kernel form: enough for
  /// kMinColumnGroups iterations, at most kMaxRowParts and the row blocks.
  static int64_t rowParts(const MatmulShape &s, unsigned width) {
    int64_t groups = std::max<int64_t>(1, s.batch * columnGroups(s, width));
    int64_t rowBlocks = (s.m + kRowBlock - 1) / kRowBlock;
    return std::clamp<int64_t>(llvm::divideCeil(kMinColumnGroups, groups), 1,
                               std::min(kMaxRowParts, rowBlocks));
  }

  /// Columns of the packed panels: every strip's, the last columns' padded
  /// to a vector (its lanes past N hold the last column again and reach no
  /// store).
  static int64_t packedColumns(const MatmulShape &s, unsigned width) {
    return llvm::divideCeil(s.n, int64_t(width)) * int64_t(width);
  }

  /// The batches of B that are packed (one when B is shared).
  static int64_t packedBatches(const MatmulShape &s) {
    return s.rhsBatched ? s.batch : 1;
  }

  /// Rows of B per k block of the one-kernel form, or 0 for one block:
  /// with K longer than half again as many, the group's panels are packed
  /// and run over a block of k at a time (kBlockPanelBytes), the tiles'
  /// partial sums kept in scratch between blocks. Blocks of an im2col hold
  /// whole channels (a multiple of its window offsets), and the blocks are
  /// about even.
  static int64_t kBlockRows(fd::MatmulOp matmul, const MatmulShape &s,
                            unsigned width) {
    if (!packsInKernel(matmul, s, width) || !blocksK(matmul, s, width))
      return 0;
    int64_t target = kBlockTarget(matmul, width);
    int64_t rows = llvm::divideCeil(s.k, llvm::divideCeil(s.k, target));
    if (fd::Im2colOp im2col = im2colOfB(matmul, s)) {
      int64_t offsets = Im2colGeometry(im2col).offsets;
      if (s.k % offsets == 0)
        rows = llvm::divideCeil(rows, offsets) * offsets;
    }
    return rows < s.k ? rows : 0;
  }

  /// The rows of B per k block that kBlockPanelBytes asks for.
  static int64_t kBlockTarget(fd::MatmulOp matmul, unsigned width) {
    return std::max<int64_t>(
        1, kBlockPanelBytes /
               (groupColumns(width) * int64_t(elementBytes(matmul))));
  }

  /// Whether the one-kernel form would run over blocks of k (kBlockRows):
  /// K longer than half again a block's rows and A small enough
  /// (kBlockMaxLhsBytes; on AVX-512 without dot columns to lose and with
  /// large panels, kBlockMaxWholeLhsBytes).
  static bool blocksK(fd::MatmulOp matmul, const MatmulShape &s,
                      unsigned width) {
    int64_t target = kBlockTarget(matmul, width);
    int64_t lhsBytes = s.m * s.k * elementBytes(matmul);
    int64_t panelBytes = s.k * groupColumns(width) * elementBytes(matmul);
    int64_t most = width >= 16 && !takesDotTail(s, width) &&
                           panelBytes >= kBlockMinWholePanelBytes
                       ? kBlockMaxWholeLhsBytes
                       : kBlockMaxLhsBytes;
    return s.k > target + target / 2 && lhsBytes <= most;
  }

  static int64_t elementBytes(fd::MatmulOp matmul) {
    return computeType(elementTypeOf(matmul.getResult()))
               .getIntOrFloatBitWidth() /
           8;
  }

  /// The scratch of the k blocks' partial sums (after the panels' copies):
  /// per iteration of the one-kernel form, M rows of a group's columns
  /// (only those of chunks' first iterations are used).
  static int64_t partialBytes(fd::MatmulOp matmul, const MatmulShape &s,
                              unsigned width) {
    if (!kBlockRows(matmul, s, width))
      return 0;
    return rowParts(s, width) * s.batch * columnGroups(s, width) * s.m *
           groupColumns(width) * elementBytes(matmul);
  }

  /// The scratch the packed panels take.
  static int64_t packedBytes(fd::MatmulOp matmul, const MatmulShape &s,
                             unsigned width) {
    Type element = computeType(elementTypeOf(matmul.getResult()));
    double bytes = double(packedBatches(s)) * double(s.k) *
                   double(packedColumns(s, width)) *
                   double(element.getIntOrFloatBitWidth() / 8);
    return bytes > double(INT64_MAX / 2) ? INT64_MAX / 2 : int64_t(bytes);
  }

  /// Columns [from, to) in strips of `vectors` vectors of `lanes` lanes;
  /// with `valid` set, one strip whose last vector has only its first
  /// `valid` lanes in C (the last columns, fewer than a vector).
  struct StripTier {
    int64_t from, to, vectors;
    unsigned lanes;
    unsigned valid = 0;
    /// The `valid` columns as dot products (dotTail); its panel is a
    /// vector's.
    bool dots = false;
    int64_t columns() const { return vectors * lanes; }
  };

  /// The strips over C's columns: stripVectors vectors wide, then the rest
  /// as one strip of its vectors, the last one of partly valid lanes when
  /// N is not a multiple of the width (B, the epilogue's reads and C's
  /// stores masked or clamped to them). A strip of fewer vectors loads A
  /// once per fewer FMAs, so the rest is one tile: resnet18's 512 x 4608 x
  /// 49 convolutions, in strips of 2, 1 and 1 (partly valid) vectors, took
  /// 3.1 ms on one core in the model, in one of 4 vectors 2.0 ms. Single
  /// columns instead of a partly valid vector took 30% more for 256x2304x196
  /// (0.70 ms, against 0.53 for 208 columns).
  static SmallVector<StripTier> stripTiers(const MatmulShape &s, unsigned width,
                                           bool dots = false) {
    SmallVector<StripTier> tiers;
    int64_t columns = HostMatmulTarget::stripVectors(width) * int64_t(width);
    int64_t to = s.n / columns * columns;
    if (to > 0)
      tiers.push_back({0, to, HostMatmulTarget::stripVectors(width), width});
    if (to == s.n)
      return tiers;
    if (width == 1) {
      tiers.push_back({to, s.n, 1, 1});
      return tiers;
    }
    int64_t vectors = llvm::divideCeil(s.n - to, int64_t(width));
    unsigned valid = unsigned((s.n - to) % int64_t(width));
    if (dots && valid) {
      int64_t whole = (s.n - to) / int64_t(width) * int64_t(width);
      if (whole)
        tiers.push_back({to, to + whole, whole / int64_t(width), width});
      tiers.push_back({to + whole, s.n, 1, width, valid, /*dots=*/true});
      return tiers;
    }
    tiers.push_back({to, to + vectors * int64_t(width), vectors, width, valid});
    return tiers;
  }

  /// The pack kernel's iterations: rows of B as it lies in memory (k, or n
  /// with transpose_b) of every packed batch.
  int64_t packIterations() const {
    return packedBatches(s) * (s.transposeB ? packedColumns(s, width) : s.k);
  }

  int64_t packGrain() const {
    int64_t row = s.transposeB ? s.k : packedColumns(s, width);
    return std::max<int64_t>(1, kPackGrainElements / std::max<int64_t>(1, row));
  }

  /// The pack kernel over iterations [begin, end): each element of B's
  /// packed columns, computed once (with its prologue) and stored at its
  /// panel slot, B read along its rows in memory. (Writing one panel at a
  /// time instead, B read across its rows, measured slower at 1024^2.)
  /// Panels lie in column order, each K x its width; the panel of the strip
  /// at n0 of batch b starts at (b * K * P + n0 * K) for P packed columns,
  /// whatever the widths of the strips before it.
  LogicalResult emitPack(Value begin, Value end, Value scratch) {
    int64_t columns = packedColumns(s, width);
    auto rows = scf::ForOp::create(b, loc, begin, end, c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(rows.getBody()->getTerminator());
    Value it = rows.getInductionVar();
    int64_t perBatch = s.transposeB ? columns : s.k;
    Value batch = arith::DivUIOp::create(b, loc, it, c(perBatch));
    Value row = arith::RemUIOp::create(b, loc, it, c(perBatch));
    Value batchBase = arith::MulIOp::create(b, loc, batch, c(s.k * columns));
    if (s.transposeB)
      return emitPackTransposedRow(batch, batchBase, row, scratch);
    return emitPackRow(batch, batchBase, row, scratch);
  }

  /// Row n of B^T in memory: B[batch, k, n] for every k, one lane each.
  /// Its strip's width and first column: the tier's whose columns hold n,
  /// from the last tier back.
  LogicalResult emitPackTransposedRow(Value batch, Value batchBase, Value n,
                                      Value scratch) {
    SmallVector<StripTier> tiers = stripTiers(s, width, dots);
    Value stripWidth = c(tiers.back().columns());
    Value tierFrom = c(tiers.back().from);
    for (const StripTier &tier : llvm::drop_begin(llvm::reverse(tiers))) {
      Value inTier = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n,
                                           c(tier.to));
      stripWidth = arith::SelectOp::create(b, loc, inTier, c(tier.columns()),
                                           stripWidth);
      tierFrom =
          arith::SelectOp::create(b, loc, inTier, c(tier.from), tierFrom);
    }
    Value j = arith::RemUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, n, tierFrom), stripWidth);
    Value n0 = arith::SubIOp::create(b, loc, n, j);
    auto ks = scf::ForOp::create(b, loc, c(0), c(s.k), c(1));
    OpBuilder::InsertionGuard kGuard(b);
    b.setInsertionPoint(ks.getBody()->getTerminator());
    Value k = ks.getInductionVar();
    RegionEmitter e(b, loc, 1, pointers);
    // Rows past N (the last strip's padding) repeat row N - 1.
    Value read = arith::MinUIOp::create(b, loc, n, c(s.n - 1));
    FailureOr<Value> x =
        e.emit(matmul.getRhs(), rhsIndex(b, batch, k, read, 1));
    if (failed(x))
      return failure();
    storePacked(*x, batchBase, k, n0, j, stripWidth, scratch);
    return success();
  }

  /// Row k of B in memory: its packed columns, a vector at a time; with
  /// `group`, only the strips from its first column to its end.
  LogicalResult
  emitPackRow(Value batch, Value batchBase, Value k, Value scratch,
              std::optional<std::pair<Value, Value>> group = std::nullopt) {
    return forEachPackedVector(group, [&](const PackedVector &v) {
      RegionEmitter e(b, loc, width, pointers);
      FailureOr<Value> x =
          e.emit(matmul.getRhs(), rhsIndex(b, batch, k, v.n, width, v.valid));
      if (failed(x))
        return failure();
      storePacked(*x, batchBase, k, v.n0, c(v.j), c(v.stripWidth), scratch,
                  v.dots);
      return success();
    });
  }

  /// A vector of B's columns in its strip: the strip's first column `n0`,
  /// the vector's `j` columns into the strip (of `stripWidth`), its first
  /// column `n`, and its `valid` lanes (0: all; rhsIndex's `valid`).
  struct PackedVector {
    Value n0, n;
    int64_t j, stripWidth;
    unsigned valid;
    bool dots;
  };

  /// `body` for each vector of the packed strips' columns (with `group`,
  /// only the strips from its first column to its end), in a loop over the
  /// strips of each tier; the first failure stops it.
  LogicalResult
  forEachPackedVector(std::optional<std::pair<Value, Value>> group,
                      function_ref<LogicalResult(const PackedVector &)> body) {
    for (const StripTier &tier : stripTiers(s, width, dots)) {
      int64_t stripWidth = tier.columns();
      auto [from, to] = stripBounds(tier, group);
      auto strips = scf::ForOp::create(b, loc, from, to, c(stripWidth));
      OpBuilder::InsertionGuard stripGuard(b);
      b.setInsertionPoint(strips.getBody()->getTerminator());
      Value n0 = strips.getInductionVar();
      for (int64_t j = 0; j < stripWidth; j += width) {
        Value n = arith::AddIOp::create(b, loc, n0, c(j));
        unsigned valid = j + int64_t(width) == stripWidth ? tier.valid : 0;
        if (failed(body({n0, n, j, stripWidth, valid, tier.dots})))
          return failure();
      }
    }
    return success();
  }

  /// Stores B[batch, k, n0 + j] of a strip of `stripWidth` columns from n0
  /// at its panel slot (the batch's panels from `batchBase`); with `dots`,
  /// each of the first `valid` lanes at its column's k (x's lanes are
  /// columns n0 ...).
  void storePacked(Value x, Value batchBase, Value k, Value n0, Value j,
                   Value stripWidth, Value scratch, bool dots = false) {
    Value panel = arith::AddIOp::create(
        b, loc, batchBase, arith::MulIOp::create(b, loc, n0, c(s.k)));
    if (dots) {
      for (int64_t l = 0; l < s.n % int64_t(width); ++l) {
        Value slot = arith::AddIOp::create(
            b, loc, panel, arith::AddIOp::create(b, loc, c(l * s.k), k));
        Value address = LLVM::GEPOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator,
            scratch, ValueRange{slot});
        LLVM::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{l}),
            address, accumulator.getIntOrFloatBitWidth() / 8);
      }
      return;
    }
    Value within = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, panelRow(b, k), stripWidth), j);
    Value address = LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator,
        scratch, ValueRange{arith::AddIOp::create(b, loc, panel, within)});
    LLVM::StoreOp::create(b, loc, x, address,
                          accumulator.getIntOrFloatBitWidth() / 8);
  }

  /// The bounds of a tier's strip loop: the tier's columns, or with `group`
  /// those of them from the group's first column to its end. A group starts
  /// at a multiple of the widest strip, and the narrower tiers lie in the
  /// last group, so every strip of a group starts where its tier's would.
  std::pair<Value, Value>
  stripBounds(const StripTier &tier,
              std::optional<std::pair<Value, Value>> group) {
    Value from = c(tier.from), to = c(tier.to);
    if (!group)
      return {from, to};
    return {arith::MaxUIOp::create(b, loc, from, group->first),
            arith::MinUIOp::create(b, loc, to, group->second)};
  }

  /// The one-kernel form (packsInKernel) over iterations [begin, end), each
  /// a row part (rowParts) of a column group of a batch: the group's panels
  /// first, into the part's copy, row k of B at a time, then its strips over
  /// the part's row blocks of the batch. Iteration (part * batches + batch)
  /// * groups + group.
  LogicalResult emitPackedGroups(Value begin, Value end, Value packed) {
    int64_t groups = columnGroups(s, width);
    int64_t rowBlocks = (s.m + kRowBlock - 1) / kRowBlock;
    int64_t partBlocks = llvm::divideCeil(rowBlocks, rowParts(s, width));
    auto iterations = scf::ForOp::create(b, loc, begin, end, c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(iterations.getBody()->getTerminator());
    Value it = iterations.getInductionVar();
    Value part = arith::DivUIOp::create(b, loc, it, c(s.batch * groups));
    it = arith::RemUIOp::create(b, loc, it, c(s.batch * groups));
    Value batch = arith::DivUIOp::create(b, loc, it, c(groups));
    Value first = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, it, c(groups)),
        c(groupColumns(width)));
    // Every iteration of the chunk [begin, end) packs into the panels'
    // region of its first one (groupRegion): the addresses of the
    // iteration's own panels (batch * K * P + n0 * K + ..., the strips' n0
    // from `first`) shifted there, so the chunk's groups reuse one region
    // while it is in cache instead of each writing a region of its own
    // (a write-allocate from memory: a copy of all of B, 7 MiB for
    // resnet18's 64 x 576 x 3136 convolutions). Regions lie in iteration
    // order, each 64 x K but a batch's last group's (narrower): an
    // iteration after `begin` writes at most 64 x K from begin's region,
    // past it only into begin + 1's, which no other chunk uses.
    Value own = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, batch, c(s.k * packedColumns(s, width))),
        arith::MulIOp::create(b, loc, first, c(s.k)));
    panels = LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator, packed,
        ValueRange{arith::SubIOp::create(b, loc, groupRegion(begin), own)});
    Value last = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, c(groupColumns(width))),
        c(s.n));
    std::pair<Value, Value> group{first, last};
    Value batchBase =
        arith::MulIOp::create(b, loc, batch, c(s.k * packedColumns(s, width)));
    int64_t kRows = kBlockRows(matmul, s, width);
    if (kRows) {
      // Block by block of k: the block's panels, then the strips over them,
      // the tiles' partial sums in the group's rows of the partial scratch.
      auto kBlocks = scf::ForOp::create(b, loc, c(0), c(s.k), c(kRows));
      b.setInsertionPoint(kBlocks.getBody()->getTerminator());
      Value kBegin = kBlocks.getInductionVar();
      Value kEnd = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, kBegin, c(kRows)), c(s.k));
      // The partial sums of the chunk's first iteration's (like its
      // panels: the chunk's groups reuse them while they are in cache).
      Value partialBase =
          arith::MulIOp::create(b, loc, begin, c(s.m * groupColumns(width)));
      Value partials = LLVM::GEPOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator,
          packed,
          ValueRange{
              arith::AddIOp::create(b, loc,
                                    c(rowParts(s, width) * packedBatches(s) *
                                      s.k * packedColumns(s, width)),
                                    partialBase)});
      kBlock = KBlock{
          kBegin,
          kEnd,
          partials,
          first,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kBegin, c(0)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kEnd,
                                c(s.k))};
      if (failed(emitPackGroup(batch, batchBase, group, kBegin, kEnd)))
        return failure();
    } else if (failed(emitPackGroup(batch, batchBase, group, c(0), c(s.k)))) {
      return failure();
    }
    // The part's row blocks of the batch: iterations of the row-block form,
    // whose strips decode their batch from them.
    Value batchBlocks = arith::MulIOp::create(b, loc, batch, c(rowBlocks));
    Value partFirst = arith::MulIOp::create(b, loc, part, c(partBlocks));
    Value blocks = arith::AddIOp::create(b, loc, batchBlocks, partFirst);
    Value blocksEnd = arith::AddIOp::create(
        b, loc, batchBlocks,
        arith::MinUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, partFirst, c(partBlocks)),
            c(rowBlocks)));
    SmallVector<StripTier> tiers = stripTiers(s, width, dots);
    for (auto [t, tier] : llvm::enumerate(tiers)) {
      auto [from, to] = stripBounds(tier, group);
      // Dot columns inside a group run with the strip before them.
      bool after = tier.dots && tier.from % groupColumns(width) != 0;
      if (after)
        continue;
      const StripTier *next = t + 1 < tiers.size() && tiers[t + 1].dots &&
                                      tiers[t + 1].from % groupColumns(width)
                                  ? &tiers[t + 1]
                                  : nullptr;
      emitStrips(blocks, blocksEnd, from, to, tier.vectors, tier.lanes,
                 tier.valid, tier.dots, next);
    }
    kBlock.reset();
    return failure(broken);
  }

  /// The first element of the panels of iteration `x` of the one-kernel
  /// form in the scratch: its part's copy, its batch's panels and its
  /// group's first column (times K).
  Value groupRegion(Value x) {
    int64_t groups = columnGroups(s, width);
    int64_t copy = packedBatches(s) * s.k * packedColumns(s, width);
    Value part = arith::DivUIOp::create(b, loc, x, c(s.batch * groups));
    Value rest = arith::RemUIOp::create(b, loc, x, c(s.batch * groups));
    Value batch = arith::DivUIOp::create(b, loc, rest, c(groups));
    Value group = arith::RemUIOp::create(b, loc, rest, c(groups));
    Value region = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, part, c(copy)),
        arith::MulIOp::create(b, loc, batch, c(s.k * packedColumns(s, width))));
    return arith::AddIOp::create(
        b, loc, region,
        arith::MulIOp::create(b, loc, group, c(groupColumns(width) * s.k)));
  }

  /// Rows [kBegin, kEnd) of the group's panels of B.
  LogicalResult emitPackGroup(Value batch, Value batchBase,
                              std::pair<Value, Value> group, Value kBegin,
                              Value kEnd) {
    RegionEmitter probe(b, loc, width, pointers);
    if (fd::Im2colOp im2col = im2colOfB(matmul, s);
        im2col && probe.readsIm2colSlices(im2col)) {
      emitPackIm2colColumns(im2col, batch, batchBase, group, kBegin, kEnd);
      return success();
    }
    auto ks = scf::ForOp::create(b, loc, kBegin, kEnd, c(1));
    OpBuilder::InsertionGuard kGuard(b);
    b.setInsertionPoint(ks.getBody()->getTerminator());
    return emitPackRow(batch, batchBase, ks.getInductionVar(), panels, group);
  }

  /// B's im2col, where B is one through reshapes alone (row r of B, over
  /// its batches, is the im2col's row r, whose positions are B's columns);
  /// else null.
  static fd::Im2colOp im2colOfB(fd::MatmulOp matmul, const MatmulShape &s) {
    Value value = matmul.getRhs();
    while (auto reshape = value.getDefiningOp<fd::ReshapeOp>())
      value = reshape.getOperand();
    auto im2col = value.getDefiningOp<fd::Im2colOp>();
    if (!im2col || s.transposeB || shapeOf(im2col.getResult()).back() != s.n)
      return {};
    return im2col;
  }

  /// The group's panels of B, B its `im2col`, a vector of columns at a time
  /// with the k loop inside: the lanes' output coordinates are decoded once
  /// per vector, and each k is a load at its window offset (emitIm2colSlice)
  /// and a store. (Row k at a time, each vector decoded its position from
  /// scratch: resnet18's 64 x 576 x 3136 convolution packed in 1.1 ms.)
  void emitPackIm2colColumns(fd::Im2colOp im2col, Value batch, Value batchBase,
                             std::pair<Value, Value> group, Value kBegin,
                             Value kEnd) {
    int64_t offsets = Im2colGeometry(im2col).offsets;
    // Rows k = channel * offsets + offset: with whole channels per batch,
    // the channels outside and the offsets inside, unrolled (up to
    // kMaxUnrolledOffsets), so a vector's masks and shifts (which depend on
    // the offset alone) are hoisted out of the channel loop, each k is one
    // load and one store, a channel's offsets read the same few input rows
    // while they are in L1, and the panel's rows are written in order.
    // (Offsets outside, channels inside: each offset swept every channel's
    // rows again, from L2 once they passed L1; resnet18's 128 x 1152 x 784
    // convolution spent a fifth of its time packing. k inside alone, each k
    // decoded its channel and offset: resnet18's 64 x 576 x 3136
    // convolution spent a quarter of its time packing.)
    bool byOffset = s.k % offsets == 0;
    int64_t channels = s.k / offsets;
    Value rowBase =
        s.rhsBatched ? arith::MulIOp::create(b, loc, batch, c(s.k)) : c(0);
    Value leadBase = s.rhsBatched && byOffset
                         ? arith::MulIOp::create(b, loc, batch, c(channels))
                         : c(0);
    (void)forEachPackedVector(group, [&](const PackedVector &v) {
      if (!byOffset) {
        auto ks = scf::ForOp::create(b, loc, kBegin, kEnd, c(1));
        OpBuilder::InsertionGuard kGuard(b);
        b.setInsertionPoint(ks.getBody()->getTerminator());
        Value k = ks.getInductionVar();
        Value row = arith::AddIOp::create(b, loc, rowBase, k);
        RegionEmitter e(b, loc, width, pointers);
        Value x = e.emitIm2colSlice(
            im2col, arith::DivUIOp::create(b, loc, row, c(offsets)),
            arith::RemUIOp::create(b, loc, row, c(offsets)), v.n, v.valid);
        storePacked(x, batchBase, k, v.n0, c(v.j), c(v.stripWidth), panels,
                    v.dots);
        return success();
      }
      // A block of k holds whole channels (kBlockRows).
      auto channelLoop = scf::ForOp::create(
          b, loc, arith::DivUIOp::create(b, loc, kBegin, c(offsets)),
          arith::DivUIOp::create(b, loc, kEnd, c(offsets)), c(1));
      OpBuilder::InsertionGuard channelGuard(b);
      b.setInsertionPoint(channelLoop.getBody()->getTerminator());
      Value channel = channelLoop.getInductionVar();
      Value lead = arith::AddIOp::create(b, loc, leadBase, channel);
      Value first = arith::MulIOp::create(b, loc, channel, c(offsets));
      auto emitOffset = [&](Value offset) {
        RegionEmitter e(b, loc, width, pointers);
        Value x = e.emitIm2colSlice(im2col, lead, offset, v.n, v.valid);
        storePacked(x, batchBase, arith::AddIOp::create(b, loc, first, offset),
                    v.n0, c(v.j), c(v.stripWidth), panels, v.dots);
      };
      if (offsets <= kMaxUnrolledOffsets) {
        for (int64_t offset = 0; offset < offsets; ++offset)
          emitOffset(c(offset));
        return success();
      }
      auto offsetLoop = scf::ForOp::create(b, loc, c(0), c(offsets), c(1));
      b.setInsertionPoint(offsetLoop.getBody()->getTerminator());
      emitOffset(offsetLoop.getInductionVar());
      return success();
    });
  }

  /// The strips over the columns, each with the row blocks of [begin, end)
  /// inside; `packed` holds B's panels when packB.
  LogicalResult emit(Value begin, Value end, Value packed) {
    panels = packed;
    for (const StripTier &tier : stripTiers(s, width))
      if (tier.from < tier.to)
        emitStrips(begin, end, c(tier.from), c(tier.to), tier.vectors,
                   tier.lanes, tier.valid);
    return failure(broken);
  }

  /// The runtime-rows form (takesRuntimeRows) over rows [begin, end): the
  /// strips over the columns, each with the chunk's rows inside, kRowBlock
  /// at a time, the last block's rows clamped to end - 1 (a chunk ends on a
  /// multiple of the grain, a multiple of kRowBlock, but for the last).
  /// Columns per part of a runtime-rows matmul's row: two strips.
  static int64_t partColumns(unsigned width) {
    return 2 * HostMatmulTarget::stripVectors(width) * int64_t(width);
  }

  /// Parts of each row of a runtime-rows matmul, its iterations per row:
  /// rows split into parts of partColumns so that the threads share one row
  /// (a decoder's step). 1 where N is one part.
  static int64_t runtimeRowsParts(const MatmulShape &s, unsigned width) {
    return std::max<int64_t>(1, llvm::divideCeil(s.n, partColumns(width)));
  }

  /// The runtime-rows kernel over iterations [begin, end), runtimeRowsParts
  /// per row: the whole rows among them strip by strip, each strip's row
  /// blocks inside (emitStrips), and the parts of a row cut by the chunk's
  /// ends (at most one at each) in one-row tiles (emitRowParts).
  LogicalResult emitRuntimeRows(Value begin, Value end, Value packed) {
    panels = packed;
    int64_t parts = runtimeRowsParts(s, width);
    if (parts == 1) {
      emitWholeRows(begin, end);
      return failure(broken);
    }
    Value p = c(parts);
    Value headRow = arith::DivUIOp::create(b, loc, begin, p);
    Value headFrom = arith::RemUIOp::create(b, loc, begin, p);
    Value tailRow = arith::DivUIOp::create(b, loc, end, p);
    Value tailTo = arith::RemUIOp::create(b, loc, end, p);
    auto ne = [&](Value x, Value y) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
    };
    OpBuilder::InsertionGuard guard(b);
    // A chunk inside one row: its parts alone.
    auto oneRow = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, headRow,
                              tailRow),
        /*withElseRegion=*/true);
    b.setInsertionPoint(oneRow.thenBlock()->getTerminator());
    emitRowParts(headRow, headFrom, tailTo);
    b.setInsertionPoint(oneRow.elseBlock()->getTerminator());
    Value cutHead = ne(headFrom, c(0));
    auto head = scf::IfOp::create(b, loc, cutHead, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inHead(b);
      b.setInsertionPoint(head.thenBlock()->getTerminator());
      emitRowParts(headRow, headFrom, p);
    }
    Value fullBegin = arith::SelectOp::create(
        b, loc, cutHead, arith::AddIOp::create(b, loc, headRow, c(1)), headRow);
    auto full = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, fullBegin,
                              tailRow),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inFull(b);
      b.setInsertionPoint(full.thenBlock()->getTerminator());
      emitWholeRows(fullBegin, tailRow);
    }
    auto tail =
        scf::IfOp::create(b, loc, ne(tailTo, c(0)), /*withElseRegion=*/false);
    b.setInsertionPoint(tail.thenBlock()->getTerminator());
    emitRowParts(tailRow, c(0), tailTo);
    return failure(broken);
  }

  /// The epilogue on a tile's sums, for HostBf16Matmul.cpp's tiles.
  LogicalResult epilogueOf(Value batch, ArrayRef<Value> rows,
                           ArrayRef<Value> columns, unsigned w, unsigned valid,
                           ArrayRef<Value> sums) {
    emitTileEpilogue(batch, rows, columns, w, valid, sums);
    return failure(broken);
  }

private:
  Value c(int64_t value) { return i64Constant(b, loc, value); }

  /// Rows [begin, end) of a runtime-rows matmul, every column.
  void emitWholeRows(Value begin, Value end) {
    rowLimit = arith::SubIOp::create(b, loc, end, c(1));
    for (const StripTier &tier : stripTiers(s, width))
      if (tier.from < tier.to)
        emitStrips(begin, end, c(tier.from), c(tier.to), tier.vectors,
                   tier.lanes, tier.valid);
  }

  /// Parts [from, to) of runtime-rows row `row` (partColumns each, the last
  /// ending at N), strip by strip in one-row tiles: each strip tier's
  /// columns clipped to the parts' (a part's first column is a multiple of
  /// every tier's step, and only the last part reaches the tail tier).
  void emitRowParts(Value row, Value from, Value to) {
    Value lo = arith::MulIOp::create(b, loc, from, c(partColumns(width)));
    Value hi = arith::MinUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, to, c(partColumns(width))),
        c(s.n));
    for (const StripTier &tier : stripTiers(s, width)) {
      if (tier.from >= tier.to)
        continue;
      Value first = arith::MaxUIOp::create(b, loc, lo, c(tier.from));
      Value last = arith::MinUIOp::create(b, loc, hi, c(tier.to));
      auto strips =
          scf::ForOp::create(b, loc, first, last, c(tier.vectors * tier.lanes));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(strips.getBody()->getTerminator());
      Value n0 = strips.getInductionVar();
      if (packB && tier.lanes != 1)
        panel = LLVM::GEPOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator,
            panels, ValueRange{arith::MulIOp::create(b, loc, n0, c(s.k))});
      emitTile(c(0), row, 1, n0, tier.vectors, tier.lanes, /*clamp=*/false,
               tier.valid);
    }
  }

  /// The strips of columns [from, to), each with the row blocks of [begin,
  /// end) inside: a tile per block, or with `dots` a dot tile (emitDotTile);
  /// with `dotsAfter`, the dot columns after the strip that ends where they
  /// start, block by block after its tile.
  void emitStrips(Value begin, Value end, Value from, Value to, int64_t vectors,
                  unsigned w, unsigned valid, bool dots = false,
                  const StripTier *dotsAfter = nullptr) {
    auto strips = scf::ForOp::create(b, loc, from, to, c(vectors * w));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(strips.getBody()->getTerminator());
    Value n0 = strips.getInductionVar();
    if (runtimeRows) {
      if (packB && w != 1)
        panel = LLVM::GEPOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext()), accumulator,
            panels, ValueRange{arith::MulIOp::create(b, loc, n0, c(s.k))});
      // One row (a decoder's step), a tile of one row: a block clamped to
      // it computed it kRowBlock times, as long as six rows take (gpt2's
      // 1 x 256 x 1024 step: 0.03 -> 0.01 ms). Two rows or more take the
      // clamped block, which reads B once for all of them (three one-row
      // tiles: 0.04 ms).
      auto one = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                arith::SubIOp::create(b, loc, end, begin),
                                c(1)),
          /*withElseRegion=*/true);
      b.setInsertionPoint(one.thenBlock()->getTerminator());
      emitTile(c(0), begin, 1, n0, vectors, w, /*clamp=*/false, valid);
      // Rows [begin, end) of the one run of rows, a block at a time.
      b.setInsertionPoint(one.elseBlock()->getTerminator());
      auto rowBlocks = scf::ForOp::create(b, loc, begin, end, c(kRowBlock));
      b.setInsertionPoint(rowBlocks.getBody()->getTerminator());
      emitTile(c(0), rowBlocks.getInductionVar(), kRowBlock, n0, vectors, w,
               /*clamp=*/true, valid);
      return;
    }
    auto blocks = scf::ForOp::create(b, loc, begin, end, c(1));
    b.setInsertionPoint(blocks.getBody()->getTerminator());
    Value iv = blocks.getInductionVar();
    int64_t rowBlocks = (s.m + kRowBlock - 1) / kRowBlock;
    Value batch = arith::DivUIOp::create(b, loc, iv, c(rowBlocks));
    Value block = arith::RemUIOp::create(b, loc, iv, c(rowBlocks));
    Value m0 = arith::MulIOp::create(b, loc, block, c(kRowBlock));
    if (packB && w != 1) {
      // This strip's panel of this batch of B.
      Value base = arith::MulIOp::create(b, loc, n0, c(s.k));
      if (s.rhsBatched)
        base = arith::AddIOp::create(
            b, loc, base,
            arith::MulIOp::create(b, loc, batch,
                                  c(s.k * packedColumns(s, width))));
      panel = LLVM::GEPOp::create(b, loc,
                                  LLVM::LLVMPointerType::get(b.getContext()),
                                  accumulator, panels, ValueRange{base});
    }
    // A last block of fewer rows clamps its row indices to the last row
    // (inside the block: the extra rows store the last row's values again,
    // from the same iteration) instead of a second copy of the tile, unless
    // the clamped rows are a large share of the work (lastRowsTile).
    int64_t lastRows = s.m - (rowBlocks - 1) * kRowBlock;
    int64_t rows = rowBlocks == 1 ? lastRows : kRowBlock;
    bool clamp = rowBlocks != 1 && lastRows != kRowBlock;
    if (dots) {
      emitDotTile(batch, m0, rows, clamp, n0);
      return;
    }
    if (clamp && lastRowsTile(s)) {
      auto last = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, block,
                                c(rowBlocks - 1)),
          /*withElseRegion=*/true);
      OpBuilder::InsertionGuard lastGuard(b);
      b.setInsertionPoint(last.thenBlock()->getTerminator());
      emitTile(batch, m0, lastRows, n0, vectors, w, /*clamp=*/false, valid);
      b.setInsertionPoint(last.elseBlock()->getTerminator());
      emitTile(batch, m0, rows, n0, vectors, w, /*clamp=*/false, valid);
    } else {
      emitTile(batch, m0, rows, n0, vectors, w, clamp, valid);
    }
    if (!dotsAfter)
      return;
    auto adjacent = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::AddIOp::create(b, loc, n0, c(vectors * w)),
                              c(dotsAfter->from)),
        /*withElseRegion=*/false);
    b.setInsertionPoint(adjacent.thenBlock()->getTerminator());
    emitDotTile(batch, m0, rows, clamp, c(dotsAfter->from));
  }

  /// Whether the last row block, of fewer rows than kRowBlock, gets a tile
  /// of its own rows (a second copy of the strip's tile, behind a branch on
  /// the block) rather than clamping its rows: where the clamped rows would
  /// be at least kMinClampedRowShare of the rows computed. resnet18's 64 x
  /// 576 x 3136 convolutions (11 blocks, the last of 4 rows), 2 AVX-512
  /// cores, alternating medians: 0.687 -> 0.663 ms.
  static bool lastRowsTile(const MatmulShape &s) {
    int64_t rowBlocks = (s.m + kRowBlock - 1) / kRowBlock;
    int64_t clamped = rowBlocks * kRowBlock - s.m;
    return rowBlocks > 1 && clamped > 0 &&
           clamped * kMinClampedRowShare >= rowBlocks * kRowBlock;
  }

  /// The dot columns from `n0` (dotTail) of the row block from `m0`: rows x
  /// columns accumulators of products along k, a vector of k at a time (A's
  /// row and the column's panel both contiguous), summed across their lanes
  /// into the first lanes of a vector per row for the epilogue.
  void emitDotTile(Value batch, Value m0, int64_t rows, bool clamp, Value n0) {
    const int64_t columns = s.n % int64_t(width);
    SmallVector<Value> rowIndex;
    for (int64_t i = 0; i < rows; ++i) {
      Value row = arith::AddIOp::create(b, loc, m0, c(i));
      if (clamp && i != 0)
        row = arith::MinUIOp::create(b, loc, row, c(s.m - 1));
      rowIndex.push_back(row);
    }
    Value base = arith::MulIOp::create(b, loc, n0, c(s.k));
    if (s.rhsBatched)
      base = arith::AddIOp::create(
          b, loc, base,
          arith::MulIOp::create(b, loc, batch,
                                c(s.k * packedColumns(s, width))));
    auto vectorType = VectorType::get({width}, accumulator);
    SmallVector<Value> init(rows * columns, zero(b, width));
    auto kLoop = scf::ForOp::create(
        b, loc, c(0), c(s.k), c(width), init,
        [&](OpBuilder &nb, Location, Value k, ValueRange acc) {
          RegionEmitter lanes(nb, loc, width, pointers);
          SmallVector<Value> bs;
          for (int64_t j = 0; j < columns; ++j) {
            Value slot = arith::AddIOp::create(
                nb, loc, base,
                arith::AddIOp::create(nb, loc, i64Constant(nb, loc, j * s.k),
                                      k));
            Value address = LLVM::GEPOp::create(
                nb, loc, LLVM::LLVMPointerType::get(nb.getContext()),
                accumulator, panels, ValueRange{slot});
            bs.push_back(
                LLVM::LoadOp::create(nb, loc, vectorType, address,
                                     accumulator.getIntOrFloatBitWidth() / 8));
          }
          SmallVector<Value> next;
          for (int64_t i = 0; i < rows && !broken; ++i) {
            FailureOr<Value> a = lanes.emit(
                matmul.getLhs(),
                {Index::Contiguous, lhsPosition(nb, batch, rowIndex[i], k),
                 int64_t(width)});
            if (failed(a)) {
              broken = true;
              break;
            }
            for (int64_t j = 0; j < columns; ++j)
              next.push_back(math::FmaOp::create(nb, loc, *a, bs[j],
                                                 acc[i * columns + j]));
          }
          if (broken)
            next.assign(acc.begin(), acc.end());
          scf::YieldOp::create(nb, loc, next);
        });
    if (broken)
      return;
    SmallVector<Value> sums;
    for (int64_t i = 0; i < rows; ++i) {
      Value row;
      for (int64_t j = columns - 1; j >= 0; --j) {
        Value sum =
            vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                        kLoop.getResult(i * columns + j),
                                        Value(), arith::FastMathFlags::reassoc);
        row = row ? vector::InsertOp::create(b, loc, sum, row,
                                             ArrayRef<int64_t>{j})
                        .getResult()
                  : vector::BroadcastOp::create(b, loc, vectorType, sum)
                        .getResult();
      }
      sums.push_back(row);
    }
    emitTileEpilogue(batch, rowIndex, {n0}, width, unsigned(columns), sums);
  }

  /// The index of A[batch, m, k] in the lhs value's shape.
  Value lhsPosition(OpBuilder &nb, Value batch, Value m, Value k) {
    Value inner =
        s.transposeA
            ? arith::AddIOp::create(
                  nb, loc, arith::MulIOp::create(nb, loc, k, c(s.m)), m)
            : arith::AddIOp::create(
                  nb, loc, arith::MulIOp::create(nb, loc, m, c(s.k)), k);
    if (!s.lhsBatched)
      return inner;
    return arith::AddIOp::create(
        nb, loc, arith::MulIOp::create(nb, loc, batch, c(s.m * s.k)), inner);
  }

  /// A[batch, m, k] as a uniform index split into the row and k
  /// (Index::split; not for a transposed A), so that a map on A (a head
  /// merge, [b, h, s, d] read as [b, s, h * d]) computes the row's terms
  /// once per row (with runtime dims: quotients by the runtime sequence) and
  /// k's once per k for all rows. Unsplit, each row's broadcast of A had an
  /// address of its own to compute per k, and the tile's broadcasts spilled
  /// (T5's output projection, 128 x 256 x 256 from 4 heads: 0.12 -> 0.09 ms,
  /// as fast as from A in place).
  Index lhsIndex(OpBuilder &nb, Value batch, Value m, Value k) {
    Index at{Index::Uniform, lhsPosition(nb, batch, m, k)};
    if (runtimeRows)
      return Index::split(at, m, k, s.k);
    if (s.transposeA)
      return at;
    Value row =
        s.lhsBatched
            ? arith::AddIOp::create(
                  nb, loc, arith::MulIOp::create(nb, loc, batch, c(s.m)), m)
            : m;
    return Index::split(at, row, k, s.k);
  }

  /// The index of B[batch, k, n .. n+w) in the rhs value's shape; with
  /// `valid`, lanes from `valid` on read lane valid - 1's element.
  Index rhsIndex(OpBuilder &nb, Value batch, Value k, Value n, unsigned w,
                 unsigned valid = 0) {
    Value base =
        s.rhsBatched
            ? Value(arith::MulIOp::create(nb, loc, batch, c(s.k * s.n)))
            : c(0);
    if (!s.transposeB) {
      Value position = arith::AddIOp::create(
          nb, loc, base,
          arith::AddIOp::create(nb, loc,
                                arith::MulIOp::create(nb, loc, k, c(s.n)), n));
      if (w == 1)
        return {Index::Uniform, position};
      if (valid)
        return {Index::Lanes, clampedLanes(nb, loc, position, w, valid, 1)};
      return {Index::Contiguous, position, s.n % w == 0 ? w : s.n};
    }
    // B[k, n + l] sits at (n + l) * K + k: lanes K apart.
    Value position = arith::AddIOp::create(
        nb, loc, base,
        arith::AddIOp::create(nb, loc,
                              arith::MulIOp::create(nb, loc, n, c(s.k)), k));
    if (w == 1)
      return {Index::Uniform, position};
    return {Index::Lanes, clampedLanes(nb, loc, position, w, valid, s.k)};
  }

  Value zero(OpBuilder &nb, unsigned w) {
    RegionEmitter e(nb, loc, w, pointers);
    return e.constant(accumulator, 0.0);
  }

  /// The k loop of a tile, [kBegin, kEnd) over `init`: kUnrollK steps of
  /// k per iteration, then the last (kEnd - kBegin) % kUnrollK one at a time.
  SmallVector<Value> emitKLoop(
      Value kBegin, Value kEnd, ValueRange init,
      function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> step) {
    auto loopOf = [&](Value from, Value to, int64_t by, ValueRange start) {
      auto loop = scf::ForOp::create(
          b, loc, from, to, c(by), start,
          [&](OpBuilder &nb, Location, Value k, ValueRange acc) {
            SmallVector<Value> next(acc.begin(), acc.end());
            for (int64_t u = 0; u < by; ++u) {
              Value ku = u == 0 ? k
                                : arith::AddIOp::create(nb, loc, k,
                                                        i64Constant(nb, loc, u))
                                      .getResult();
              next = step(nb, ku, next);
            }
            scf::YieldOp::create(nb, loc, next);
          });
      return SmallVector<Value>(loop.getResults());
    };
    std::optional<int64_t> from = getConstantIntValue(kBegin),
                           to = getConstantIntValue(kEnd);
    Value mainEnd;
    if (from && to) {
      int64_t count = *to - *from;
      if (count < kUnrollK)
        return loopOf(kBegin, kEnd, 1, init);
      mainEnd = c(*from + count / kUnrollK * kUnrollK);
    } else {
      Value count = arith::SubIOp::create(b, loc, kEnd, kBegin);
      Value rest = arith::RemUIOp::create(b, loc, count, c(kUnrollK));
      mainEnd = arith::SubIOp::create(b, loc, kEnd, rest);
    }
    SmallVector<Value> accs = loopOf(kBegin, mainEnd, kUnrollK, init);
    if (from && to && getConstantIntValue(mainEnd) == to)
      return accs;
    return loopOf(mainEnd, kEnd, 1, accs);
  }

  /// rows x vectors accumulators over k, then the epilogue and the stores;
  /// with `valid`, the last vector's first `valid` lanes are C's.
  void emitTile(Value batch, Value m0, int64_t rows, Value n0, int64_t vectors,
                unsigned w, bool clamp, unsigned valid = 0) {
    SmallVector<Value> rowIndex, colIndex;
    for (int64_t i = 0; i < rows; ++i) {
      Value row = arith::AddIOp::create(b, loc, m0, c(i));
      if (clamp && i != 0)
        row = arith::MinUIOp::create(b, loc, row,
                                     rowLimit ? rowLimit : c(s.m - 1));
      rowIndex.push_back(row);
    }
    for (int64_t j = 0; j < vectors; ++j)
      colIndex.push_back(arith::AddIOp::create(b, loc, n0, c(j * w)));
    SmallVector<Value> init(rows * vectors, zero(b, w));
    Value kBegin = c(0), kEnd = c(s.k);
    if (kBlock) {
      kBegin = kBlock->begin;
      kEnd = kBlock->end;
      init = loadPartials(rowIndex, colIndex, w, init);
    }
    BlockArgument rhsArgument = rhsInput(matmul);
    // One k: B's vectors, then a broadcast of A per row and its FMAs.
    auto kStep = [&](OpBuilder &nb, Value k,
                     ValueRange acc) -> SmallVector<Value> {
      RegionEmitter scalars(nb, loc, 1, pointers);
      RegionEmitter lanes(nb, loc, w, pointers);
      SmallVector<Value> bs;
      for (int64_t j = 0; j < vectors; ++j) {
        unsigned lanesIn = j == vectors - 1 ? valid : 0;
        if (lanesIn && !packB && !s.transposeB && rhsArgument) {
          // B's row k from column n0: a masked load of its last columns.
          Index at = rhsIndex(nb, batch, k, colIndex[j], 1);
          bs.push_back(lanes.loadFirstLanes(pointers.lookup(rhsArgument),
                                            elementTypeOf(rhsArgument),
                                            at.value, lanesIn));
          continue;
        }
        if (packB && w != 1) {
          Value slot = arith::AddIOp::create(
              nb, loc,
              arith::MulIOp::create(nb, loc, panelRow(nb, k),
                                    i64Constant(nb, loc, vectors * w)),
              i64Constant(nb, loc, j * w));
          Value address = LLVM::GEPOp::create(
              nb, loc, LLVM::LLVMPointerType::get(nb.getContext()), accumulator,
              panel, ValueRange{slot});
          bs.push_back(LLVM::LoadOp::create(
              nb, loc, VectorType::get({w}, accumulator), address,
              accumulator.getIntOrFloatBitWidth() / 8));
          continue;
        }
        FailureOr<Value> x = lanes.emit(
            matmul.getRhs(), rhsIndex(nb, batch, k, colIndex[j], w, lanesIn));
        if (succeeded(x))
          bs.push_back(*x);
      }
      SmallVector<Value> next;
      for (int64_t i = 0; i < rows && !broken; ++i) {
        FailureOr<Value> a =
            scalars.emit(matmul.getLhs(), lhsIndex(nb, batch, rowIndex[i], k));
        if (failed(a) || bs.size() != size_t(vectors)) {
          broken = true;
          break;
        }
        Value lhs = *a;
        if (w != 1)
          lhs = vector::BroadcastOp::create(
              nb, loc, VectorType::get({w}, accumulator), lhs);
        for (int64_t j = 0; j < vectors; ++j)
          next.push_back(
              math::FmaOp::create(nb, loc, lhs, bs[j], acc[i * vectors + j]));
      }
      if (broken)
        next.assign(acc.begin(), acc.end());
      return next;
    };
    SmallVector<Value> accs = emitKLoop(kBegin, kEnd, init, kStep);
    if (broken)
      return;
    if (!kBlock) {
      emitTileEpilogue(batch, rowIndex, colIndex, w, valid, accs);
      return;
    }
    // The last block of k runs the epilogue; the others keep the sums.
    auto last = scf::IfOp::create(b, loc, kBlock->isLast,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(last.thenBlock());
    emitTileEpilogue(batch, rowIndex, colIndex, w, valid, accs);
    b.setInsertionPointToStart(last.elseBlock());
    for (auto [i, row] : llvm::enumerate(rowIndex))
      for (auto [j, column] : llvm::enumerate(colIndex))
        LLVM::StoreOp::create(b, loc, accs[i * colIndex.size() + j],
                              partialAddress(row, column),
                              accumulator.getIntOrFloatBitWidth() / 8);
  }

  /// The row of a strip's panel that holds B's row k: k itself, or in a
  /// block of k its row in the block. Every block's rows lie at the start
  /// of the strip's panel, so each block writes the lines that the block
  /// before it read, still in L1; with rows of their own (K rows in all,
  /// 147 KiB a group for resnet18's 64 x 576 x 3136 convolutions) each
  /// block's stores missed L1 (storing zeros instead of the im2col cost as
  /// much as the whole pack). resnet18's 64 x 576 x 3136 and 128 x 1152 x
  /// 784 convolutions, 2 AVX-512 cores, alternating medians: 0.63 -> 0.61
  /// and 0.64 -> 0.61 ms.
  Value panelRow(OpBuilder &nb, Value k) {
    if (!kBlock)
      return k;
    return arith::SubIOp::create(nb, loc, k, kBlock->begin);
  }

  /// The partial sum of C[row, column .. + w) of the current block of k.
  Value partialAddress(Value row, Value column) {
    Value at = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, c(groupColumns(width))),
        arith::SubIOp::create(b, loc, column, kBlock->first));
    return LLVM::GEPOp::create(b, loc,
                               LLVM::LLVMPointerType::get(b.getContext()),
                               accumulator, kBlock->partials, ValueRange{at});
  }

  /// A tile's accumulators before the current block of k: `zeros` in the
  /// first block, the partial sums after it.
  SmallVector<Value> loadPartials(ArrayRef<Value> rowIndex,
                                  ArrayRef<Value> colIndex, unsigned w,
                                  ArrayRef<Value> zeros) {
    Type type = w == 1 ? accumulator : VectorType::get({w}, accumulator);
    SmallVector<Type> types(zeros.size(), type);
    auto first = scf::IfOp::create(b, loc, types, kBlock->isFirst,
                                   /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(first.thenBlock());
    scf::YieldOp::create(b, loc, zeros);
    b.setInsertionPointToStart(first.elseBlock());
    SmallVector<Value> sums;
    for (Value row : rowIndex)
      for (Value column : colIndex)
        sums.push_back(
            LLVM::LoadOp::create(b, loc, type, partialAddress(row, column),
                                 accumulator.getIntOrFloatBitWidth() / 8));
    scf::YieldOp::create(b, loc, sums);
    return SmallVector<Value>(first.getResults());
  }

  /// The epilogue on a tile's sums `accs` (rows x vectors) and the stores
  /// of the yielded values.
  void emitTileEpilogue(Value batch, ArrayRef<Value> rowIndex,
                        ArrayRef<Value> colIndex, unsigned w, unsigned valid,
                        ArrayRef<Value> accs) {
    int64_t rows = rowIndex.size(), vectors = colIndex.size();
    for (int64_t i = 0; i < rows; ++i) {
      // A runtime-rows matmul's row is C's flat row.
      Value rowStart =
          runtimeRows
              ? arith::MulIOp::create(b, loc, rowIndex[i], c(s.n))
              : arith::MulIOp::create(
                    b, loc,
                    arith::AddIOp::create(
                        b, loc, arith::MulIOp::create(b, loc, batch, c(s.m)),
                        rowIndex[i]),
                    c(s.n));
      for (int64_t j = 0; j < vectors; ++j) {
        Value position = arith::AddIOp::create(b, loc, rowStart, colIndex[j]);
        // The epilogue reads the invalid lanes at the last valid column and
        // stores only the valid ones.
        unsigned lanesIn = j == vectors - 1 ? valid : 0;
        Index at = w == 1 ? Index{Index::Uniform, position}
                   : lanesIn
                       ? Index{Index::Lanes,
                               clampedLanes(b, loc, position, w, lanesIn, 1)}
                       : Index{Index::Contiguous, position,
                               s.n % w == 0 ? int64_t(w) : s.n};
        // A runtime-rows matmul's stores through a head split compute the
        // row's terms once (Index::split).
        if (runtimeRows && !lanesIn)
          at = Index::split(at, rowIndex[i], colIndex[j], s.n);
        RegionEmitter e(b, loc, w, pointers);
        e.seed(matmul.getResult(), accs[i * vectors + j]);
        for (auto [result, output] : llvm::zip(results, outputs)) {
          FailureOr<Value> value = e.emit(result.value, at);
          if (failed(value)) {
            broken = true;
            return;
          }
          Index stored = at;
          for (const AffineIndexMap &map : result.maps)
            stored = e.mapIndex(stored, map);
          e.store(*value, result.element, output, stored, lanesIn);
        }
      }
    }
  }

  OpBuilder &b;
  Location loc;
  fd::MatmulOp matmul;
  MatmulShape s;
  const DenseMap<Value, Value> &pointers;
  ArrayRef<EpilogueResult> results;
  ArrayRef<Value> outputs;
  unsigned width;
  Type accumulator;
  /// Whether vector strips read B from packed panels (packsB).
  bool packB;
  /// Whether the last columns are dot products (dotTail).
  bool dots;
  /// Whether the rows are a runtime count (takesRuntimeRows), and then the
  /// chunk's last row, to which a block's rows clamp.
  bool runtimeRows;
  Value rowLimit;
  /// The packed panels of every batch, and the current strip's.
  Value panels, panel;
  /// The current block of k of the one-kernel form (kBlockRows): its rows
  /// [begin, end), the group's partial sums (M rows of the group's columns
  /// from `first`), and whether it is the first and the last block (i1).
  struct KBlock {
    Value begin, end, partials, first, isFirst, isLast;
  };
  std::optional<KBlock> kBlock;
  bool broken = false;
};

/// CompileOptions::matmulPrecision bf16 (HostBf16Matmul.h): a matmul of f32
/// whose B is a bound weight, on AVX-512; others stay f32.
bool computesInBf16(fd::FusionOp fusion, fd::MatmulOp matmul, unsigned width) {
  Type f32 = Float32Type::get(matmul.getContext());
  return wantsBf16Matmul(fusion) && width == 16 &&
         MatmulKernelBuilder::packsOncePerBinding(matmul) &&
         elementTypeOf(matmul.getResult()) == f32 &&
         elementTypeOf(matmul.getLhs()) == f32 &&
         elementTypeOf(matmul.getRhs()) == f32 && matmulShape(matmul).k > 0 &&
         matmulShape(matmul).m > 0;
}

FailureOr<FusionKernels> emitBf16(fd::FusionOp fusion, fd::MatmulOp matmul,
                                  ModuleOp module, StringRef prefix,
                                  unsigned width,
                                  ArrayRef<EpilogueResult> results) {
  MatmulShape s = matmulShape(matmul);
  Bf16MatmulShape shape{s.batch,      s.m,          s.n,          s.k,
                        s.lhsBatched, s.rhsBatched, s.transposeA, s.transposeB};
  return emitHostBf16Matmul(
      fusion, matmul, module, prefix, width, shape, unsigned(results.size()),
      [&](OpBuilder &b, const DenseMap<Value, Value> &pointers,
          ArrayRef<Value> outputs, Value batch, ArrayRef<Value> rows,
          ArrayRef<Value> columns, unsigned w, unsigned valid,
          ArrayRef<Value> sums) {
        MatmulKernelBuilder builder(b, fusion.getLoc(), matmul, pointers,
                                    results, outputs, width);
        return builder.epilogueOf(batch, rows, columns, w, valid, sums);
      });
}

/// The pack kernel of B's panels (into the fusion's scratch, its one
/// buffer after the inputs), first in `kernels`.
LogicalResult addPackKernel(fd::FusionOp fusion, fd::MatmulOp matmul,
                            ModuleOp module, StringRef prefix, unsigned width,
                            bool runtimeRows, FusionKernels &kernels) {
  OpBuilder b(module.getContext());
  Location loc = fusion.getLoc();
  std::string name = (prefix + "_pack").str();
  HostKernel pack = openKernel(b, module, loc, name, fusion, 1);
  MatmulKernelBuilder builder(b, loc, matmul, pack.pointers, {}, {}, width,
                              runtimeRows);
  if (failed(builder.emitPack(pack.begin(), pack.end(), pack.outputs.front())))
    return failure();
  KernelPlan plan =
      kernelPlan(name, "", ScheduleKind::Matmul, fusion.getInputs().size(),
                 std::span<const unsigned>(), /*scratch=*/true);
  plan.perBinding = MatmulKernelBuilder::packsOncePerBinding(matmul);
  if (plan.perBinding)
    plan.bindingReads = {cast<BlockArgument>(matmul.getRhs()).getArgNumber()};
  plan.launch.iterations = builder.packIterations();
  plan.launch.grain = builder.packGrain();
  kernels.kernels.push_back(std::move(plan));
  return success();
}

/// The matmul kernel `<prefix>_matmul` of both forms, opened: its builder,
/// and B's packed panels (the fusion's scratch, after the inputs and the
/// outputs) where packB. Neither copied nor moved: the builder holds the
/// OpBuilder and the kernel's pointers.
struct MatmulKernel {
  MatmulKernel(fd::FusionOp fusion, fd::MatmulOp matmul, ModuleOp module,
               StringRef prefix, unsigned width,
               ArrayRef<EpilogueResult> results, bool packB, bool runtimeRows)
      : b(module.getContext()), name((prefix + "_matmul").str()),
        numInputs(fusion.getInputs().size()), packB(packB),
        kernel(openKernel(b, module, fusion.getLoc(), name, fusion,
                          results.size())),
        packed(packB ? bufferPointer(b, fusion.getLoc(), kernel.buffers,
                                     numInputs + results.size())
                     : Value()),
        builder(b, fusion.getLoc(), matmul, kernel.pointers, results,
                kernel.outputs, width, runtimeRows) {}
  MatmulKernel(const MatmulKernel &) = delete;
  MatmulKernel &operator=(const MatmulKernel &) = delete;

  /// The kernel's plan, reading the scratch where packB; the caller sets
  /// its launch.
  KernelPlan plan() const {
    KernelPlan plan = kernelPlan(name, "", ScheduleKind::Matmul, numInputs,
                                 unsigned(kernel.outputs.size()));
    if (packB)
      plan.operands.push_back({KernelOperand::Kind::Scratch, 0});
    return plan;
  }

  OpBuilder b;
  std::string name;
  unsigned numInputs;
  bool packB;
  HostKernel kernel;
  Value packed;
  MatmulKernelBuilder builder;
};

/// A runtime-rows matmul (takesRuntimeRows): a pack kernel where B is packed
/// (packsRuntimeRowsB), then the matmul kernel, an iteration per part of a
/// row of C (all batches; runtimeRowsParts per row, one where N is one
/// part, and then its grain whole row blocks). Its code reads neither M nor
/// the batch count: KernelCompiler.cpp's "Symbolic fusions" finds its
/// iteration count M (times the batches and parts) and keeps it for every
/// value. A chunk of one row (a decoder's step) takes a tile of one row,
/// and the threads share the row's parts: gpt2's 1 x 256 x 1024 step on 2
/// threads (fuse-run --bench 2000, 3 rounds alternating) 19.6-19.8 us ->
/// 6.5-7.1; 8 and 128 rows unchanged (46-50 and 316-318 us).
FailureOr<FusionKernels> emitRuntimeRows(fd::FusionOp fusion,
                                         fd::MatmulOp matmul, ModuleOp module,
                                         StringRef prefix, unsigned width,
                                         ArrayRef<EpilogueResult> results) {
  MatmulShape bound = matmulShape(matmul);
  MatmulShape s = runtimeRowsShape(bound);
  bool packB = MatmulKernelBuilder::packsRuntimeRowsB(matmul, s, width);
  FusionKernels kernels;
  if (packB) {
    kernels.scratchBytes =
        uint64_t(MatmulKernelBuilder::packedBytes(matmul, s, width));
    if (failed(addPackKernel(fusion, matmul, module, prefix, width,
                             /*runtimeRows=*/true, kernels)))
      return failure();
  }
  MatmulKernel k(fusion, matmul, module, prefix, width, results, packB,
                 /*runtimeRows=*/true);
  if (failed(k.builder.emitRuntimeRows(k.kernel.begin(), k.kernel.end(),
                                       k.packed)))
    return failure();
  KernelPlan plan = k.plan();
  int64_t parts = MatmulKernelBuilder::runtimeRowsParts(s, width);
  plan.launch.iterations = s.n == 0 ? 0 : bound.batch * bound.m * parts;
  plan.launch.grain =
      parts == 1
          ? kRowBlock *
                std::max<int64_t>(
                    1, kGrainMacs / std::max<int64_t>(1, kRowBlock * s.n * s.k))
          : std::max<int64_t>(
                1, kPartGrainMacs /
                       std::max<int64_t>(
                           1, MatmulKernelBuilder::partColumns(width) * s.k));
  // One chunk per thread: more cut rows into parts, each a one-row tile
  // that reads all of B's panels for one row (8 rows of 256 x 1024 in
  // chunks of a row: 0.07 ms, in 2 chunks 0.05).
  if (parts != 1)
    plan.launch.chunksPerWorker = kMatmulChunksPerWorker;
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

} // namespace

FailureOr<FusionKernels> emitHostMatmul(fd::FusionOp fusion, ModuleOp module,
                                        StringRef prefix, unsigned width) {
  Block &body = fusion.getBody().front();
  auto yield = cast<fd::YieldOp>(body.getTerminator());
  SmallVector<fd::MatmulOp> matmuls(body.getOps<fd::MatmulOp>());
  if (matmuls.size() != 1)
    return fusion.emitOpError()
           << "cannot be generated for the host as a matmul kernel: it has "
           << matmuls.size() << " fuse.matmul ops, not one";
  fd::MatmulOp matmul = matmuls.front();
  if (!isa<FloatType>(elementTypeOf(matmul.getResult())))
    return unsupportedMatmul(matmul, "integer matmuls are not supported yet");
  Value c = matmul.getResult();
  DenseMap<Value, bool> memo;
  SmallVector<EpilogueResult> results;
  for (Value value : yield.getValues()) {
    FailureOr<EpilogueResult> result = analyzeYield(value, c, memo);
    if (failed(result))
      return failure();
    results.push_back(*result);
  }
  if (computesInBf16(fusion, matmul, width))
    return emitBf16(fusion, matmul, module, prefix, width, results);

  MatmulShape s = matmulShape(matmul);
  if (takesRuntimeRows(matmul, s))
    return emitRuntimeRows(fusion, matmul, module, prefix, width, results);
  bool packB = MatmulKernelBuilder::packsB(matmul, s, width);
  bool packInKernel = MatmulKernelBuilder::packsInKernel(matmul, s, width);
  FusionKernels kernels;
  // The one-kernel form packs a copy per row part.
  int64_t copies =
      packInKernel ? MatmulKernelBuilder::rowParts(s, width) : int64_t(1);
  if (packB)
    kernels.scratchBytes =
        uint64_t(copies * MatmulKernelBuilder::packedBytes(matmul, s, width) +
                 MatmulKernelBuilder::partialBytes(matmul, s, width));
  if (packB && !packInKernel &&
      failed(addPackKernel(fusion, matmul, module, prefix, width,
                           /*runtimeRows=*/false, kernels)))
    return failure();

  MatmulKernel k(fusion, matmul, module, prefix, width, results, packB,
                 /*runtimeRows=*/false);
  Value begin = k.kernel.begin(), end = k.kernel.end();
  if (failed(packInKernel ? k.builder.emitPackedGroups(begin, end, k.packed)
                          : k.builder.emit(begin, end, k.packed)))
    return failure();

  KernelPlan plan = k.plan();
  int64_t rowBlocks = (s.m + kRowBlock - 1) / kRowBlock;
  if (packInKernel) {
    int64_t groupMacs = llvm::divideCeil(s.m, copies) *
                        MatmulKernelBuilder::groupColumns(width) * s.k;
    plan.launch.iterations =
        copies * s.batch * MatmulKernelBuilder::columnGroups(s, width);
    plan.launch.grain =
        std::max<int64_t>(1, kGrainMacs / std::max<int64_t>(1, groupMacs));
  } else {
    plan.launch.iterations = s.n == 0 ? 0 : s.batch * rowBlocks;
    plan.launch.grain = std::max<int64_t>(
        1, kGrainMacs / std::max<int64_t>(1, kRowBlock * s.n * s.k));
    plan.launch.chunksPerWorker = kMatmulChunksPerWorker;
  }
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

} // namespace fuse
