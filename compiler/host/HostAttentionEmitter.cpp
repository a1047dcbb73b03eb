//===- HostAttentionEmitter.cpp - Host attention kernels ------------------===//
//
// An attention fusion (ScheduleLegality's AttentionSchedule): scores =
// Q K over [batch, M, N], a row kernel over each row of N scores (a
// softmax with its scale and mask), and out = P V. One iteration is a block
// of up to `rowsPerBlock` query rows of one batch element; its stack holds
// the block's Q rows, its rows of scores and of P (in the scratch, one row
// per part of the work, where a row of them is too long for the stack), and
// its output rows, so no buffer of M x N scores exists:
//   1. the Q rows, computed by their prologue where the kernel reads them;
//   2. per tile of 4 vectors of keys, their K rows (computed likewise)
//      transposed into the tile (K given transposed is copied a vector at
//      a time; K rows of whole vectors are transposed a square of vectors
//      at a time with shuffles, from where they lie when K is a fusion
//      input of f32 rows), and the Q rows times the tile in register
//      tiles of up to 4 rows x 4 vectors of keys (kMaxTileRows): each
//      vector of the tile loaded serves every row of the register tile.
//      Where a batch element's rows are several blocks, a `_keys` kernel
//      launched first stages every tile once into the scratch instead
//      (emitKeysKernel), and the blocks read them there;
//   3. per query row, the row kernel's passes (ScheduleLegality ran them as
//      a row_reduction's: emitRowPasses) with the scores read from the
//      stack, then P at every key (written over the scores on the stack);
//      a softmax's E is kept there instead, with no pass for P, and the
//      output rows are divided by the sums in step 5 (foldsSums);
//   4. per tile of keys, their V rows (staged, or where they lie when V is
//      a fusion input of f32 rows), and the rows' P times them in
//      register tiles of rows x the output row's vectors, accumulated into
//      the output rows, stored at the end.
// Each step reads its operands through the region emitter, so prologues
// (a scale on Q or K, heads split by transposes, K/V repeated for grouped
// heads, a mask computed from the model's inputs) are index maps and
// arithmetic on the loads, never stored.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/AffineIndexMap.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"
#include "passes/ScheduleLegality.h"

using namespace mlir;
using namespace ::fuse::codegen;
using namespace ::fuse::host;

namespace fuse {

namespace {

/// Most bytes of one iteration's rows of scores, P, Q and output on the
/// stack; the block has fewer rows for longer rows.
constexpr int64_t kAttentionStackBytes = 256 * 1024;
constexpr int64_t kMaxRowsPerBlock = 32;
/// A head of at most kMaxHeadRows query rows is one block where there are
/// at least kMinHeadsForHeadBlocks heads (batch elements) to share out
/// among the threads: its K and V tiles (with their prologue: rotary
/// embeddings, the heads split) are then staged once per head, not once
/// per 32 rows (Llama's attention at 128 tokens, 4 heads: 0.31 -> 0.23 ms;
/// GPT-2's 0.23 -> 0.18).
constexpr int64_t kMaxHeadRows = 128;
constexpr int64_t kMinHeadsForHeadBlocks = 4;
/// Most query rows of a register tile: the scores of a tile of keys and
/// the output rows of P V are rows x (a tile's or a row's vectors)
/// accumulators, so each vector of K or V loaded serves every row. The
/// accumulators take at most 3/4 of the vector registers (AVX-512 has 32,
/// AVX2 and SSE 16), the rest holding the loaded vectors and a broadcast.
constexpr int64_t kMaxTileRows = 4;
/// Rows of more keys than a one-row block's scores and P fit in the stack
/// (past 16384 keys with 64 elements per Q row) keep them in the kernel's
/// scratch instead: the blocks are dealt out to at most kMaxScratchParts
/// parts (fewer where their rows would pass kScratchBudgetBytes), each with
/// its own row of scores and of P, so the scratch grows with the keys
/// (parts x 2 rows), never with the queries times the keys.
constexpr int64_t kMaxScratchParts = 64;
constexpr int64_t kScratchBudgetBytes = int64_t(64) << 20;
/// Most bytes of the kernel's scratch that holds every batch element's K
/// tiles, staged once (by the `_keys` kernel) where a batch element's rows
/// are several blocks; past it each block stages its own tiles.
constexpr int64_t kKeyTilesBudgetBytes = int64_t(64) << 20;
/// Fewest elements of K tiles the blocks would stage again that make the
/// `_keys` kernel (a launch of its own) worth it: about 64K (a few tens of
/// microseconds of staging, against a launch's few).
constexpr int64_t kKeysOnceMinElements = int64_t(1) << 16;
/// Most keys of a runtime attention's whole rows of scores on the stack
/// (runtimeAttention); past them it takes an online softmax over tiles.
constexpr int64_t kMaxWholeRowKeys = 2048;

/// A kernel being built: its builder, pointers and scratch.
struct AttentionBuilder {
  OpBuilder &b;
  Location loc;
  unsigned width;
  const DenseMap<Value, Value> &pointers;

  Value c(int64_t v) { return i64Constant(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Type f32() { return b.getF32Type(); }
  Type ptr() { return LLVM::LLVMPointerType::get(b.getContext()); }
  Value at(Value base, Value offset) {
    return LLVM::GEPOp::create(b, loc, ptr(), f32(), base, ValueRange{offset});
  }
  Value load(Value base, Value offset, unsigned lanes) {
    Type type = lanes == 1 ? f32() : VectorType::get({lanes}, f32());
    return LLVM::LoadOp::create(b, loc, type, at(base, offset), 4);
  }
  void store(Value value, Value base, Value offset) {
    LLVM::StoreOp::create(b, loc, value, at(base, offset), 4);
  }
  Value alloca(int64_t elements) {
    return LLVM::AllocaOp::create(b, loc, ptr(), f32(), c(elements), 64);
  }
  /// alloca() in the kernel's entry block, from inside its loops (a stack
  /// buffer of fixed size, not one per iteration).
  Value allocaAtEntry(int64_t elements) {
    OpBuilder::InsertionGuard guard(b);
    Region *body = b.getInsertionBlock()->getParent();
    while (!isa<func::FuncOp>(body->getParentOp()))
      body = body->getParentOp()->getParentRegion();
    b.setInsertionPointToStart(&body->front());
    return alloca(elements);
  }

  /// `elements` zeros at `buffer`.
  void zeroFill(Value buffer, int64_t elements) {
    forEach(c(elements), [&](Value e) { store(zero(1), buffer, e); });
  }

  /// `body(r)` for r in [0, count).
  void forEach(Value count, function_ref<void(Value)> body) {
    forRange(c(0), count, body);
  }

  /// `body(r)` for r in [lo, hi).
  void forRange(Value lo, Value hi, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, lo, hi, c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  }

  /// `rows`, `width` vectors of `width` lanes, transposed: log2(width)
  /// rounds of two-vector shuffles, each swapping the elements whose row
  /// and lane differ in one bit.
  SmallVector<Value> transpose(SmallVector<Value> rows) {
    for (unsigned bit = 1; bit < width; bit <<= 1) {
      SmallVector<Value> next(rows);
      SmallVector<int64_t> low, high;
      for (unsigned l = 0; l < width; ++l) {
        low.push_back(l & bit ? width + (l ^ bit) : l);
        high.push_back(l & bit ? width + l : l ^ bit);
      }
      for (unsigned i = 0; i < width; ++i) {
        if (i & bit)
          continue;
        next[i] =
            vector::ShuffleOp::create(b, loc, rows[i], rows[i | bit], low);
        next[i | bit] =
            vector::ShuffleOp::create(b, loc, rows[i], rows[i | bit], high);
      }
      rows = std::move(next);
    }
    return rows;
  }

  /// scf.for over [0, count) carrying `init`: `body(i, carried)` returns the
  /// next values; the loop's results.
  SmallVector<Value>
  forCarried(Value count, ValueRange init,
             function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = scf::ForOp::create(b, loc, c(0), count, c(1), init);
    OpBuilder::InsertionGuard guard(b);
    Block *block = loop.getBody();
    bool terminated =
        !block->empty() && block->back().hasTrait<OpTrait::IsTerminator>();
    if (terminated)
      b.setInsertionPoint(&block->back());
    else
      b.setInsertionPointToEnd(block);
    SmallVector<Value> next =
        body(loop.getInductionVar(), loop.getRegionIterArgs());
    if (terminated)
      block->back().setOperands(next);
    else
      scf::YieldOp::create(b, loc, next);
    return SmallVector<Value>(loop.getResults());
  }

  Value zero(unsigned lanes) {
    Value scalar = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    if (lanes == 1)
      return scalar;
    return vector::BroadcastOp::create(b, loc, VectorType::get({lanes}, f32()),
                                       scalar);
  }

  /// Lanes of a row of `length` elements: whole vectors, then single lanes.
  SmallVector<std::pair<int64_t, unsigned>> rowParts(int64_t length) {
    SmallVector<std::pair<int64_t, unsigned>> parts;
    int64_t k = 0;
    for (; k + width <= length; k += width)
      parts.push_back({k, width});
    for (; k < length; ++k)
      parts.push_back({k, 1});
    return parts;
  }

  /// The `length` elements of `value` from flat position `first` with
  /// stride `stride` (1: contiguous), into `to` (f32 in compute type). A
  /// contiguous run lies inside one aligned block of `block` elements
  /// (0: the run's own, from a multiple of its length). A contiguous run
  /// that is row `row` (non-null) of rows of `length` elements is read
  /// split at it (splitAtRow).
  LogicalResult stage(Value value, Value first, int64_t length, int64_t stride,
                      Value to, int64_t block = 0, Value row = nullptr) {
    if (stride != 1) {
      bool failedBody = false;
      forEach(c(length), [&](Value k) {
        RegionEmitter scalar(b, loc, 1, pointers);
        Value position = add(first, mul(k, c(stride)));
        FailureOr<Value> x = scalar.emit(value, {Index::Contiguous, position});
        if (failed(x)) {
          failedBody = true;
          return;
        }
        store(*x, to, k);
      });
      return failure(failedBody);
    }
    if (block == 0)
      block = length % width == 0 ? width : length;
    return stageRun(value, first, c(length), to, block, {row, first}, length);
  }

  /// The `length` (a runtime value) elements of `value` from flat position
  /// `first` on, contiguous and inside one aligned block of `block`
  /// elements, into `to`; read split at `split`'s row of `rowLength`
  /// elements where it has one (splitAtRow).
  LogicalResult stageRun(Value value, Value first, Value length, Value to,
                         int64_t block, RowSplit split = {},
                         int64_t rowLength = 0) {
    Value base = at(to, arith::SubIOp::create(b, loc, c(0), first));
    DenseMap<Value, Value> noSeeds;
    FailureOr<PeeledLoop> loop =
        emitPeeledLoop(b, loc, first, add(first, length), width, block,
                       pointers, noSeeds, {}, {},
                       [&](RegionEmitter &e, Index index,
                           ValueRange) -> FailureOr<SmallVector<Value>> {
                         FailureOr<Value> x =
                             e.emit(value, splitAtRow(e.builder(), e.location(),
                                                      index, split, rowLength));
                         if (failed(x))
                           return failure();
                         e.storeStash(*x, base, index);
                         return SmallVector<Value>();
                       });
    return failure(failed(loop));
  }
};

/// A row kernel that is a softmax: max = the row's max of X, E = exp(X -
/// max) and sum = the row's sum of E, P = E / sum or E times the sum's
/// reciprocal (the two spellings exporters use). Such rows are folded over
/// tiles of keys (an online softmax): a tile's E is relative to its own
/// max, and the running sum and output rows are rescaled by exp(old max -
/// new max) as the max grows.
/// `guarded`: P is select(isnan(E / sum), 0, E / sum), the guard PyTorch's
/// scaled_dot_product_attention exports: a row whose every key is masked
/// (its sum 0, or NaN) is 0, not NaN.
struct OnlineSoftmax {
  fd::ReduceOp max, sum;
  fd::ExpOp exp;
  bool guarded = false;
};

/// `v` through broadcasts and reshapes; `reciprocal` also through one
/// fuse.reciprocal, said in `*seen`.
Value throughBroadcasts(Value v, bool *seen = nullptr) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<fd::BroadcastOp, fd::ReshapeOp>(def) ||
        (seen && !*seen && isa<fd::ReciprocalOp>(def))) {
      if (isa<fd::ReciprocalOp>(def))
        *seen = true;
      v = def->getOperand(0);
      continue;
    }
    break;
  }
  return v;
}

/// Whether `v` is a splat constant 0 (through broadcasts).
bool isZeroConstant(Value v) {
  auto constant = throughBroadcasts(v).getDefiningOp<fd::ConstantOp>();
  auto dense =
      constant ? dyn_cast<DenseFPElementsAttr>(constant.getValue()) : nullptr;
  return dense && dense.isSplat() && dense.getSplatValue<APFloat>().isZero();
}

std::optional<OnlineSoftmax> matchSoftmax(ArrayRef<ReductionInfo> reductions,
                                          Value probs) {
  if (reductions.size() != 2)
    return std::nullopt;
  auto max = cast<fd::ReduceOp>(reductions[0].op),
       sum = cast<fd::ReduceOp>(reductions[1].op);
  if (max.getKind() != fd::ReduceKind::max ||
      sum.getKind() != fd::ReduceKind::sum)
    return std::nullopt;
  Value e = sum.getOperand();
  auto exp = e.getDefiningOp<fd::ExpOp>();
  auto sub = exp ? exp->getOperand(0).getDefiningOp<fd::SubOp>() : nullptr;
  if (!sub || sub->getOperand(0) != max.getOperand() ||
      throughBroadcasts(sub->getOperand(1)) != max.getResult())
    return std::nullopt;
  bool guarded = false;
  if (auto select = probs.getDefiningOp<fd::SelectOp>())
    if (auto isNan = select.getCondition().getDefiningOp<fd::IsNaNOp>();
        isNan && isNan->getOperand(0) == select.getFalseValue() &&
        isZeroConstant(select.getTrueValue())) {
      probs = select.getFalseValue();
      guarded = true;
    }
  Operation *p = probs.getDefiningOp();
  if (isa_and_nonnull<fd::DivOp>(p) && p->getOperand(0) == e &&
      throughBroadcasts(p->getOperand(1)) == sum.getResult())
    return OnlineSoftmax{max, sum, exp, guarded};
  if (isa_and_nonnull<fd::MulOp>(p))
    for (int side = 0; side < 2; ++side) {
      bool reciprocal = false;
      if (p->getOperand(side) == e &&
          throughBroadcasts(p->getOperand(1 - side), &reciprocal) ==
              sum.getResult() &&
          reciprocal)
        return OnlineSoftmax{max, sum, exp, guarded};
    }
  return std::nullopt;
}

/// The sum's place among a matched softmax's reductions (matchSoftmax).
constexpr size_t kSoftmaxSum = 1;

/// Whether a whole-row block's softmax `softmax` can keep E where P goes and
/// divide the output rows by the sums instead (emitWholeRows): its sum's
/// pass stashes E (`stashBuffers`, allocateRowStashes's), and the sum is an
/// f32. (P is E / sum, its only use P V: O = (E V) / sum.)
bool foldsSums(const std::optional<OnlineSoftmax> &softmax,
               ArrayRef<Value> stashBuffers) {
  return softmax && stashBuffers.size() > kSoftmaxSum &&
         stashBuffers[kSoftmaxSum] &&
         elementTypeOf(fd::ReduceOp(softmax->sum).getResult()).isF32();
}

/// An online block's per-row scalars on the stack: the running max and
/// sum, and the current tile's rescaling of the old output rows and weight
/// of its own.
struct OnlineRows {
  Value runMax, runSum, keep, weight;
};

/// One iteration's block of query rows: the sizes, the stack buffers and
/// where the block is.
struct AttentionBlock {
  AttentionBuilder &k;
  int64_t M, N, D, Dv, tile, tiles, paddedKeys;
  Value qRows, keyRow, keyTile, valueTile, scoreRows, probRows, outRows;
  Value batch, count, firstRow;
  /// With runtime dims: the number of keys and of tiles of keys, read from
  /// the dims array (null: the static N and tiles), and the stride of the
  /// whole rows of scores (null: paddedKeys).
  Value keys = nullptr, tileCount = nullptr, rowStride = nullptr;
  /// Every batch element's K tiles, staged once by the `_keys` kernel
  /// (tile t of batch b at ((b * tiles) + t) * D * tile), else null: each
  /// block stages its own into keyTile.
  Value keyTiles = nullptr;
  /// The row passes' prefetching pass (none with runtime dims: its distance
  /// is a row of keys).
  unsigned prefetchPass = 1;
  bool failedBody = false;

  void check(LogicalResult result) { failedBody |= failed(result); }
  /// `row`, where the block's reads are split at their rows (runtime keys:
  /// their maps divide by runtime sizes), else null.
  Value splitRow(Value row) { return keys ? row : nullptr; }
  Value n() { return keys ? keys : k.c(N); }
  Value nTiles() { return tileCount ? tileCount : k.c(tiles); }
  Value stride() { return rowStride ? rowStride : k.c(paddedKeys); }

  /// The first key of tile `t` and its number of keys.
  std::pair<Value, Value> keysIn(Value t) {
    Value j0 = k.mul(t, k.c(tile));
    return {j0,
            arith::MinSIOp::create(k.b, k.loc, k.c(tile),
                                   arith::SubIOp::create(k.b, k.loc, n(), j0))};
  }

  /// 1. The block's Q rows.
  void stageQueryRows(fd::MatmulOp scores) {
    k.forEach(count, [&](Value r) {
      // (Built in the order the static kernels' code has had.)
      Value to = k.at(qRows, k.mul(r, k.c(D))), depth = k.c(D);
      Value row = k.add(firstRow, r);
      check(k.stage(scores.getLhs(), k.mul(row, depth), D, 1, to, 0,
                    splitRow(row)));
    });
  }

  /// Rows of a register tile of `vectors` accumulators per row.
  int64_t tileRows(int64_t vectors) {
    int64_t registers = k.width >= 16 ? 32 : 16;
    return std::clamp<int64_t>(registers * 3 / 4 / vectors, 1, kMaxTileRows);
  }

  /// `body(r0, rows)` over the block's rows in register tiles of `rows`
  /// rows, then the rows past the last whole tile one at a time.
  void forRowTiles(int64_t rows, function_ref<void(Value, int64_t)> body) {
    Value tilesOfRows = arith::DivSIOp::create(k.b, k.loc, count, k.c(rows));
    k.forEach(tilesOfRows, [&](Value g) { body(k.mul(g, k.c(rows)), rows); });
    if (rows > 1)
      k.forRange(k.mul(tilesOfRows, k.c(rows)), count,
                 [&](Value r) { body(r, 1); });
  }

  /// Tile `t`'s K rows transposed into the key tile. K given transposed
  /// ([D, N]): each element of depth's run of the tile's keys, copied a
  /// vector at a time (inside its row of N; the last tile's run is shorter,
  /// both lengths are known). Else, where K's rows are whole vectors, they are
  /// staged into the value tile (free until step 4), or read where they lie
  /// (rowsInPlace), and transposed a square of vectors at a time; else one
  /// element at a time.
  void stageKeyTile(fd::MatmulOp scores, Value t) {
    unsigned width = k.width;
    auto [j0, valid] = keysIn(t);
    if (!scores.getTransposeB() && keys) {
      // Runtime keys: each run lies inside its row of keys, whose length
      // is the dims array's (N is the dim's representative value).
      k.forEach(k.c(D), [&](Value d) {
        Value row = k.add(k.mul(batch, k.c(D)), d), start = k.mul(row, n());
        check(k.stageRun(scores.getRhs(), k.add(start, j0), valid,
                         k.at(keyTile, k.mul(d, k.c(tile))), N, {row, start},
                         N));
      });
      return;
    }
    if (!scores.getTransposeB()) {
      auto copyRuns = [&](int64_t length) {
        k.forEach(k.c(D), [&](Value d) {
          check(
              k.stage(scores.getRhs(),
                      k.add(k.mul(k.add(k.mul(batch, k.c(D)), d), k.c(N)), j0),
                      length, 1, k.at(keyTile, k.mul(d, k.c(tile))), N));
        });
      };
      const int64_t last = N - (tiles - 1) * tile;
      lastTileOr(
          t, [&] { copyRuns(last); }, [&] { copyRuns(tile); });
      return;
    }
    if (D % width != 0) {
      k.forEach(valid, [&](Value jj) {
        check(k.stage(scores.getRhs(),
                      k.mul(k.add(k.mul(batch, n()), k.add(j0, jj)), k.c(D)), D,
                      1, keyRow));
        k.forEach(k.c(D), [&](Value d) {
          k.store(k.load(keyRow, d, 1), keyTile,
                  k.add(k.mul(d, k.c(tile)), jj));
        });
      });
      return;
    }
    // The tile's rows of K (row i at `source` + `first` + i * D),
    // transposed a square of vectors at a time.
    // (Key i's row at `source` + `first` + i * `stride`.)
    auto transposeRows = [&](Value source, Value first, int64_t stride) {
      k.forEach(k.c(tile / width), [&](Value kb) {
        k.forEach(k.c(D / width), [&](Value db) {
          Value key = k.mul(kb, k.c(width)), depth = k.mul(db, k.c(width));
          SmallVector<Value> rows;
          for (unsigned i = 0; i < width; ++i)
            rows.push_back(k.load(
                source,
                k.add(first,
                      k.add(k.mul(k.add(key, k.c(i)), k.c(stride)), depth)),
                width));
          SmallVector<Value> columns = k.transpose(rows);
          for (unsigned i = 0; i < width; ++i)
            k.store(columns[i], keyTile,
                    k.add(k.mul(k.add(depth, k.c(i)), k.c(tile)), key));
        });
      });
    };
    auto staged = [&] {
      k.forEach(valid, [&](Value jj) {
        Value j = k.add(j0, jj);
        Value to = k.at(valueTile, k.mul(jj, k.c(D))), depth = k.c(D);
        Value row = k.add(k.mul(batch, n()), j);
        check(k.stage(scores.getRhs(), k.mul(row, depth), D, 1, to, 0,
                      splitRow(row)));
      });
      transposeRows(valueTile, k.c(0), D);
    };
    // K's rows where they lie (rowsInPlace, headRowsInPlace): a whole
    // tile's are transposed from there; the last tile, with fewer keys than
    // the tile, is staged (the transpose reads the whole tile).
    if (Value inPlace = rowsInPlace(scores, D, N)) {
      lastTileOr(t, staged,
                 [&] { transposeRows(inPlace, rowStart(j0, D), D); });
      return;
    }
    if (std::optional<HeadRows> heads = headRowsInPlace(scores)) {
      lastTileOr(t, staged, [&] {
        transposeRows(heads->base, heads->rowStart(k, batch, j0),
                      heads->stride);
      });
      return;
    }
    staged();
  }

  /// K's rows where they lie with the heads split by the matmul's prologue:
  /// K is transpose(X, [0, 2, 1, 3]) of a fusion input X [B, N, H, D] of
  /// f32 (a projection's output as stored, the heads and keys swapped),
  /// batch b = (b0, h) of K's [B x H], key j's row at ((b0 * N + j) * H +
  /// h) * D: rows of D contiguous, `stride` = H * D apart.
  struct HeadRows {
    Value base;
    int64_t heads, keys, depth, stride;
    Value rowStart(AttentionBuilder &k, Value batch, Value j) const {
      Value b0 = arith::DivSIOp::create(k.b, k.loc, batch, k.c(heads));
      Value h = arith::RemSIOp::create(k.b, k.loc, batch, k.c(heads));
      return k.mul(k.add(k.mul(k.add(k.mul(b0, k.c(keys)), j), k.c(heads)), h),
                   k.c(depth));
    }
  };
  std::optional<HeadRows> headRowsInPlace(fd::MatmulOp scores) {
    auto transpose = scores.getRhs().getDefiningOp<fd::TransposeOp>();
    if (!transpose || keys || !scores.getTransposeB() ||
        !llvm::equal(transpose.getPermutation(), ArrayRef<int64_t>{0, 2, 1, 3}))
      return std::nullopt;
    auto arg = dyn_cast<BlockArgument>(transpose.getOperand());
    if (!arg || !elementTypeOf(arg).isF32())
      return std::nullopt;
    ArrayRef<int64_t> shape = cast<RankedTensorType>(arg.getType()).getShape();
    if (shape[1] != N || shape[3] != D)
      return std::nullopt;
    return HeadRows{k.pointers.lookup(arg), shape[2], N, D, shape[2] * D};
  }

  /// `lastTile()` at tile `t` where it is the last, a partial one (fewer
  /// keys than a tile), else `wholeTile()`; only `wholeTile()` where N is
  /// whole tiles.
  void lastTileOr(Value t, function_ref<void()> lastTile,
                  function_ref<void()> wholeTile) {
    if (N % tile == 0) {
      wholeTile();
      return;
    }
    OpBuilder &b = k.b;
    auto isLast = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::eq, t,
                                        k.c(tiles - 1));
    auto branch = scf::IfOp::create(b, k.loc, isLast, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    lastTile();
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    wholeTile();
  }

  /// Tile `t`'s K rows transposed into the key tile, then the Q rows times
  /// the tile in register tiles of tileRows rows x the tile's vectors of
  /// keys (the tile's vectors loaded once per element of depth for all the
  /// rows): row r's scores of the tile at scoreRows + r * stride, + the
  /// tile's first key where `atKey`.
  void emitScoreTile(fd::MatmulOp scores, Value t, Value stride, bool atKey) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    unsigned width = k.width;
    const int64_t vectors = tile / width;
    Value j0 = keysIn(t).first;
    Value keyRows = keyTile;
    if (keyTiles)
      keyRows = k.at(keyTiles,
                     k.mul(k.add(k.mul(batch, k.c(tiles)), t), k.c(D * tile)));
    else
      stageKeyTile(scores, t);
    forRowTiles(tileRows(vectors), [&](Value r0, int64_t rows) {
      SmallVector<Value> init(rows * vectors, k.zero(width));
      SmallVector<Value> acc =
          k.forCarried(k.c(D), init, [&](Value d, ValueRange carried) {
            SmallVector<Value> keys;
            for (int64_t v = 0; v < vectors; ++v)
              keys.push_back(k.load(
                  keyRows, k.add(k.mul(d, k.c(tile)), k.c(v * width)), width));
            SmallVector<Value> next;
            for (int64_t i = 0; i < rows; ++i) {
              Value qRow = k.mul(k.add(r0, k.c(i)), k.c(D));
              Value q = vector::BroadcastOp::create(
                  b, loc, VectorType::get({width}, k.f32()),
                  k.load(qRows, k.add(qRow, d), 1));
              for (int64_t v = 0; v < vectors; ++v)
                next.push_back(math::FmaOp::create(b, loc, q, keys[v],
                                                   carried[i * vectors + v]));
            }
            return next;
          });
      for (int64_t i = 0; i < rows; ++i) {
        Value r = k.add(r0, k.c(i));
        Value scoreRow = atKey ? k.add(k.mul(r, stride), j0) : k.mul(r, stride);
        for (int64_t v = 0; v < vectors; ++v)
          k.store(acc[i * vectors + v], scoreRows,
                  k.add(scoreRow, k.c(v * width)));
      }
    });
  }

  /// The block's rows of scores, a tile of keys at a time.
  void emitScores(fd::MatmulOp scores) {
    k.forEach(nTiles(),
              [&](Value t) { emitScoreTile(scores, t, stride(), true); });
  }

  /// The pointer of the right operand of `matmul` (whose result has
  /// `columns` columns: K of the scores given as rows [N, D], or V of P V)
  /// where its rows of `length` are read where they lie, not staged on the
  /// stack first: a fusion input of f32 rows as the matmul reads them (no
  /// prologue, one row of keys per batch, no runtime keys). A row is
  /// contiguous, so a tile's rows are one run in memory, and a copy only
  /// moved them; a query block restages every tile (whisper's encoder, 1500
  /// keys in blocks of 32 rows, spent about 6% of its attention copying V,
  /// and as much copying K before its transpose). Null otherwise.
  Value rowsInPlace(fd::MatmulOp matmul, int64_t length, int64_t columns) {
    auto arg = dyn_cast<BlockArgument>(matmul.getRhs());
    if (!arg || keys || !elementTypeOf(arg).isF32() || M * columns == 0)
      return nullptr;
    auto count = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getNumElements();
    };
    int64_t batches = count(matmul.getResult()) / (M * columns);
    if (count(arg) != batches * N * length)
      return nullptr;
    return k.pointers.lookup(arg);
  }

  /// The flat position of the row of key `j` of the block's batch in rows
  /// of `length` (an operand read where it lies, rowsInPlace).
  Value rowStart(Value j, int64_t length) {
    return k.mul(k.add(k.mul(batch, k.c(N)), j), k.c(length));
  }

  /// Where P V reads a tile's V rows: row jj of the tile at `base` +
  /// `first` + jj * Dv.
  struct ValueRows {
    Value base, first;
  };

  /// Tile `t`'s V rows: where they lie where V is read in place
  /// (rowsInPlace, V not transposed), else staged into the value tile.
  ValueRows stageValueTile(fd::MatmulOp output, Value t) {
    auto [j0, valid] = keysIn(t);
    if (!output.getTransposeB())
      if (Value inPlace = rowsInPlace(output, Dv, Dv))
        return {inPlace, rowStart(j0, Dv)};
    k.forEach(valid, [&](Value jj) {
      Value j = k.add(j0, jj);
      Value row, valueStart;
      if (output.getTransposeB()) {
        valueStart = k.add(k.mul(batch, k.c(Dv * N)), j);
      } else {
        Value depth = k.c(Dv);
        row = k.add(k.mul(batch, n()), j);
        valueStart = k.mul(row, depth);
      }
      check(k.stage(output.getRhs(), valueStart, Dv,
                    output.getTransposeB() ? N : 1,
                    k.at(valueTile, k.mul(jj, k.c(Dv))), 0,
                    row ? splitRow(row) : nullptr));
    });
    return {valueTile, k.c(0)};
  }

  /// Rows [r0, r0 + rows)'s P of a tile (row r's at probRows + r * stride
  /// + `keyOffset`) times the tile's V rows (stageValueTile's `values`),
  /// accumulated into `init` (row i's parts of the output row at i *
  /// parts): each V row is loaded once for all the rows.
  SmallVector<Value> multiplyValues(Value r0, int64_t rows, Value stride,
                                    Value keyOffset, Value valid,
                                    ValueRange init, ValueRows values) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    SmallVector<std::pair<int64_t, unsigned>> outParts = k.rowParts(Dv);
    const int64_t parts = outParts.size();
    return k.forCarried(valid, init, [&](Value jj, ValueRange carried) {
      Value valueRow = k.add(values.first, k.mul(jj, k.c(Dv)));
      SmallVector<Value> loaded;
      for (auto [offset, lanes] : outParts)
        loaded.push_back(
            k.load(values.base, k.add(valueRow, k.c(offset)), lanes));
      SmallVector<Value> next;
      for (int64_t i = 0; i < rows; ++i) {
        Value probRow = k.add(k.mul(k.add(r0, k.c(i)), stride), keyOffset);
        Value p = k.load(probRows, k.add(probRow, jj), 1);
        Value splat = vector::BroadcastOp::create(
            b, loc, VectorType::get({k.width}, k.f32()), p);
        for (auto [part, span] : llvm::enumerate(outParts))
          next.push_back(
              math::FmaOp::create(b, loc, span.second == 1 ? p : splat,
                                  loaded[part], carried[i * parts + part]));
      }
      return next;
    });
  }

  /// The block's output rows from its rows of P, stored in `out`; divided
  /// by the rows' `sums` where given (their rows of P are E, sums folded).
  void emitOutputRows(fd::MatmulOp output, Value out, Value sums = Value(),
                      bool guarded = false) {
    // 4. Output rows: over each tile of keys, P times the tile's V rows,
    // accumulated in registers per register tile of rows.
    SmallVector<std::pair<int64_t, unsigned>> outParts = k.rowParts(Dv);
    auto partAt = [&](Value r0, int64_t i, int64_t offset) {
      return k.add(k.mul(k.add(r0, k.c(i)), k.c(Dv)), k.c(offset));
    };
    // A register tile's rows' parts: zeros, or loaded from the output rows.
    auto tileInit = [&](Value r0, int64_t rows, bool zeros) {
      SmallVector<Value> init;
      for (int64_t i = 0; i < rows; ++i)
        for (auto [offset, lanes] : outParts)
          init.push_back(zeros ? k.zero(lanes)
                               : k.load(outRows, partAt(r0, i, offset), lanes));
      return init;
    };
    auto storeTile = [&](Value r0, int64_t rows, ArrayRef<Value> acc) {
      int64_t part = 0;
      for (int64_t i = 0; i < rows; ++i)
        for (auto [offset, lanes] : outParts)
          k.store(acc[part++], outRows, partAt(r0, i, offset));
    };
    // V read where it lies: a register tile's rows over every key at once,
    // their sums kept in registers, not added into the output rows per
    // tile of keys.
    if (Value inPlace =
            output.getTransposeB() ? Value() : rowsInPlace(output, Dv, Dv)) {
      ValueRows values{inPlace, rowStart(k.c(0), Dv)};
      forRowTiles(tileRows(outParts.size()), [&](Value r0, int64_t rows) {
        storeTile(r0, rows,
                  multiplyValues(r0, rows, stride(), k.c(0), n(),
                                 tileInit(r0, rows, true), values));
      });
    } else {
      k.forEach(count, [&](Value r) {
        for (auto [offset, lanes] : outParts)
          k.store(k.zero(lanes), outRows, partAt(r, 0, offset));
      });
      k.forEach(nTiles(), [&](Value t) {
        auto [j0, valid] = keysIn(t);
        ValueRows values = stageValueTile(output, t);
        forRowTiles(tileRows(outParts.size()), [&](Value r0, int64_t rows) {
          storeTile(r0, rows,
                    multiplyValues(r0, rows, stride(), j0, valid,
                                   tileInit(r0, rows, false), values));
        });
      });
    }
    // 5. The block's output rows.
    storeOutputRows(output, out, sums, guarded);
  }

  /// The block's output rows, divided by the row's `sums` where given, in
  /// the output's storage type; `guarded`: 0 where the sum is 0 or NaN (a
  /// row whose every P is NaN, which the softmax's guard makes 0).
  void storeOutputRows(fd::MatmulOp output, Value out, Value sums,
                       bool guarded = false) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    Type element = elementTypeOf(output.getResult());
    k.forEach(count, [&](Value r) {
      Value outRow = k.mul(r, k.c(Dv));
      Value stored = k.mul(k.add(firstRow, r), k.c(Dv));
      for (auto [offset, lanes] : k.rowParts(Dv)) {
        Value row = k.load(outRows, k.add(outRow, k.c(offset)), lanes);
        if (sums) {
          Value sum = k.load(sums, r, 1);
          Value splat =
              lanes == 1
                  ? sum
                  : vector::BroadcastOp::create(b, loc, row.getType(), sum);
          row = arith::DivFOp::create(b, loc, row, splat);
          if (guarded) {
            // UEQ: equal to 0, or unordered (NaN).
            Value empty = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::UEQ, sum,
                arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)));
            row = arith::SelectOp::create(b, loc, empty, k.zero(lanes), row);
          }
        }
        RegionEmitter e(b, loc, lanes, k.pointers);
        e.store(
            row, element, out,
            {Index::Contiguous, k.add(stored, k.c(offset)), int64_t(lanes)});
      }
    });
  }

  /// Row r's passes of the row kernel over its keys [lo, hi), its scores
  /// at scoreRows + minusLo, then P at those keys into probRows + minusLo;
  /// `beforeP` may change the reductions' results (`seeds`) in between.
  /// With runtime keys, the steps' indices are split at the row of scores
  /// that [lo, hi) lies in (splitAtRow).
  void emitRowAndP(fd::MatmulOp scores, Value probs, Value lo, Value hi,
                   Value minusLo, RowSplit split,
                   ArrayRef<ReductionInfo> reductions,
                   ArrayRef<Value> stashBuffers, DenseMap<Value, Value> &seeds,
                   function_ref<void(DenseMap<Value, Value> &)> beforeP) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    unsigned width = k.width;
    SmallVector<std::pair<Value, Value>> written{
        {scores.getResult(), k.at(scoreRows, minusLo)}};
    if (!keys)
      split = {};
    check(emitRowPasses(b, loc, width, N, lo, hi, k.pointers, reductions,
                        stashBuffers, seeds, written, {}, prefetchPass, split));
    beforeP(seeds);
    Value probBase = k.at(probRows, minusLo);
    int64_t block = N % width == 0 ? width : N;
    FailureOr<PeeledLoop> pass = emitPeeledLoop(
        b, loc, lo, hi, width, block, k.pointers, seeds, {}, {},
        [&](RegionEmitter &e, Index index,
            ValueRange) -> FailureOr<SmallVector<Value>> {
          for (auto [value, base] : written)
            e.stash(value, base);
          FailureOr<Value> p = e.emit(
              probs, splitAtRow(e.builder(), e.location(), index, split, N));
          if (failed(p))
            return failure();
          e.storeStash(*p, probBase, index);
          return SmallVector<Value>();
        });
    check(failure(failed(pass)));
  }

  /// The block's attention with whole rows of scores on the stack (at
  /// scoreRows, P written over them, `stride()` apart): 2. the rows of
  /// scores a tile of keys at a time, 3. per row the row kernel's passes
  /// over its n() keys, then P at every key, 4.-5. the output rows.
  /// With `foldedSums` (a softmax whose E its sum's pass keeps: foldsSums),
  /// that pass keeps E where P goes and there is no pass for P: each output
  /// row is divided by its row's sum (saved in foldedSums) at the end, as
  /// the online softmax does.
  void emitWholeRows(fd::MatmulOp scores, fd::MatmulOp output, Value out,
                     ArrayRef<ReductionInfo> reductions,
                     ArrayRef<Value> stashBuffers,
                     const OnlineSoftmax *softmax = nullptr,
                     Value foldedSums = Value()) {
    emitScores(scores);
    k.forEach(count, [&](Value r) {
      Value lo = k.mul(k.add(firstRow, r), n());
      Value hi = k.add(lo, n());
      Value minusLo = arith::SubIOp::create(k.b, k.loc, k.mul(r, stride()), lo);
      DenseMap<Value, Value> seeds;
      RowSplit split;
      if (keys)
        split = {k.add(firstRow, r), lo};
      if (foldedSums) {
        SmallVector<Value> rowStashes(stashBuffers);
        rowStashes[kSoftmaxSum] = k.at(probRows, k.mul(r, stride()));
        SmallVector<std::pair<Value, Value>> written{
            {scores.getResult(), k.at(scoreRows, minusLo)}};
        check(emitRowPasses(k.b, k.loc, k.width, N, lo, hi, k.pointers,
                            reductions, rowStashes, seeds, written, {},
                            prefetchPass, split));
        Value sum = seeds.lookup(fd::ReduceOp(softmax->sum).getResult());
        if (!sum || sum.getType() != k.f32()) {
          failedBody = true;
          return;
        }
        k.store(sum, foldedSums, r);
        return;
      }
      emitRowAndP(scores, output.getLhs(), lo, hi, minusLo, split, reductions,
                  stashBuffers, seeds, [](DenseMap<Value, Value> &) {});
    });
    emitOutputRows(output, out, foldedSums, softmax && softmax->guarded);
  }

  /// emitWholeRows, the sums folded into the output rows where the row
  /// kernel is a softmax that allows it (foldsSums); `rowsPerBlock` rows
  /// at most.
  void emitWholeRowsFolded(fd::MatmulOp scores, fd::MatmulOp output, Value out,
                           ArrayRef<ReductionInfo> reductions,
                           ArrayRef<Value> stashBuffers, int64_t rowsPerBlock) {
    std::optional<OnlineSoftmax> softmax =
        matchSoftmax(reductions, output.getLhs());
    if (foldsSums(softmax, stashBuffers))
      emitWholeRows(scores, output, out, reductions, stashBuffers, &*softmax,
                    k.allocaAtEntry(rowsPerBlock));
    else
      emitWholeRows(scores, output, out, reductions, stashBuffers);
  }

  void emitOnline(fd::MatmulOp scores, fd::MatmulOp output, Value out,
                  OnlineSoftmax softmax, ArrayRef<ReductionInfo> reductions,
                  ArrayRef<Value> stashBuffers, const OnlineRows &rows);
};

/// The block's attention with an online softmax: per tile of keys, the
/// scores of the tile, per row the row kernel's passes over them (the
/// tile's max and its sum of E relative to it), E at the tile's keys (P
/// with the sum taken as 1), the running max and sum updated and the output
/// rows rescaled by exp(old max - new max) before the tile's E times V is
/// added at weight exp(tile max - new max); at the end each output row is
/// divided by its sum. A tile whose max is -inf (every key masked so far)
/// adds nothing: its E is NaN there (-inf - -inf), and it is selected
/// away, not multiplied by 0; a row masked entirely gives 0 / 0 = NaN, as
/// the softmax's definition does.
void AttentionBlock::emitOnline(fd::MatmulOp scores, fd::MatmulOp output,
                                Value out, OnlineSoftmax softmax,
                                ArrayRef<ReductionInfo> reductions,
                                ArrayRef<Value> stashBuffers,
                                const OnlineRows &rows) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type f32 = k.f32();
  auto constant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  };
  auto isMinusInf = [&](Value x) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                 constant(-INFINITY));
  };
  SmallVector<std::pair<int64_t, unsigned>> outParts = k.rowParts(Dv);
  k.forEach(count, [&](Value r) {
    for (auto [offset, lanes] : outParts)
      k.store(k.zero(lanes), outRows, k.add(k.mul(r, k.c(Dv)), k.c(offset)));
    k.store(constant(-INFINITY), rows.runMax, r);
    k.store(constant(0), rows.runSum, r);
  });
  Value probs = output.getLhs();
  k.forEach(nTiles(), [&](Value t) {
    emitScoreTile(scores, t, k.c(tile), /*atKey=*/false);
    auto [j0, valid] = keysIn(t);
    k.forEach(count, [&](Value r) {
      Value row = k.add(firstRow, r), rowStart = k.mul(row, n());
      Value lo = k.add(rowStart, j0);
      Value hi = k.add(lo, valid);
      Value minusLo = arith::SubIOp::create(b, loc, k.mul(r, k.c(tile)), lo);
      DenseMap<Value, Value> seeds;
      Value tileMax, tileSum;
      emitRowAndP(scores, probs, lo, hi, minusLo, {row, rowStart}, reductions,
                  stashBuffers, seeds, [&](DenseMap<Value, Value> &seeds) {
                    tileMax = seeds.lookup(softmax.max.getResult());
                    tileSum = seeds.lookup(softmax.sum.getResult());
                    // E at the tile's keys: P with the sum seeded as 1.
                    seeds[softmax.sum.getResult()] = constant(1);
                  });
      if (!tileMax || !tileSum || tileMax.getType() != f32) {
        failedBody = true;
        return;
      }
      // The running max and sum, and the tile's rescaling and weight.
      RegionEmitter scalar(b, loc, 1, k.pointers);
      Value oldMax = k.load(rows.runMax, r, 1);
      Value newMax = arith::MaximumFOp::create(b, loc, oldMax, tileMax);
      auto exp = [&](Value x) -> Value {
        FailureOr<Value> e = scalar.lowerElementwise(softmax.exp, {x});
        if (failed(e)) {
          failedBody = true;
          return x;
        }
        return *e;
      };
      Value keep = arith::SelectOp::create(
          b, loc, isMinusInf(oldMax), constant(0),
          exp(arith::SubFOp::create(b, loc, oldMax, newMax)));
      Value tileEmpty = isMinusInf(tileMax);
      Value weight = arith::SelectOp::create(
          b, loc, tileEmpty, constant(0),
          exp(arith::SubFOp::create(b, loc, tileMax, newMax)));
      Value added = arith::SelectOp::create(
          b, loc, tileEmpty, constant(0),
          arith::MulFOp::create(b, loc, tileSum, weight));
      k.store(
          math::FmaOp::create(b, loc, k.load(rows.runSum, r, 1), keep, added),
          rows.runSum, r);
      k.store(newMax, rows.runMax, r);
      k.store(keep, rows.keep, r);
      k.store(weight, rows.weight, r);
    });
    ValueRows values = stageValueTile(output, t);
    forRowTiles(tileRows(outParts.size()), [&](Value r0, int64_t rowCount) {
      SmallVector<Value> zeros;
      for (int64_t i = 0; i < rowCount; ++i)
        for (auto [offset, lanes] : outParts)
          zeros.push_back(k.zero(lanes));
      SmallVector<Value> acc =
          multiplyValues(r0, rowCount, k.c(tile), k.c(0), valid, zeros, values);
      for (int64_t i = 0; i < rowCount; ++i) {
        Value r = k.add(r0, k.c(i));
        Value outRow = k.mul(r, k.c(Dv));
        Value keep = k.load(rows.keep, r, 1),
              weight = k.load(rows.weight, r, 1);
        Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            weight, constant(0));
        for (auto [part, span] : llvm::enumerate(outParts)) {
          auto [offset, lanes] = span;
          auto splat = [&](Value x) -> Value {
            return lanes == 1 ? x
                              : vector::BroadcastOp::create(
                                    b, loc, VectorType::get({lanes}, f32), x);
          };
          Value old = k.load(outRows, k.add(outRow, k.c(offset)), lanes);
          Value tilePart = arith::SelectOp::create(
              b, loc, empty, k.zero(lanes),
              arith::MulFOp::create(b, loc, acc[i * outParts.size() + part],
                                    splat(weight)));
          k.store(math::FmaOp::create(b, loc, old, splat(keep), tilePart),
                  outRows, k.add(outRow, k.c(offset)));
        }
      }
    });
  });
  storeOutputRows(output, out, rows.runSum, softmax.guarded);
}

/// The `_keys` kernel of an attention whose batch elements' rows are
/// several blocks each: every batch element's K tiles staged (transposed,
/// with K's prologue) once into the scratch, tile t of batch b at ((b *
/// tiles) + t) * D * tile, which the attention kernel's blocks then read
/// (AttentionBlock::keyTiles) instead of each staging every tile again
/// (whisper's encoder, 1500 keys in 47 blocks of 32 rows per head, spent
/// about 6% of its attention transposing K tiles). An iteration is one
/// tile of one batch element; the last tile's columns past the keys are
/// zeros, as the stack's key tile has (their scores are never read).
FailureOr<KernelPlan> emitKeysKernel(fd::FusionOp fusion, ModuleOp module,
                                     StringRef namePrefix, unsigned width,
                                     const fd::AttentionSchedule &schedule,
                                     int64_t tile) {
  const int64_t M = schedule.rows, N = schedule.keys, D = schedule.depth,
                Dv = schedule.valueDepth, tiles = (N + tile - 1) / tile;
  fd::MatmulOp scores = schedule.scores;
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (namePrefix + "_keys").str();
  // Its one "output" is the scratch (the plan's operand after the inputs).
  HostKernel kernel = openKernel(b, module, loc, name, fusion, 1);
  AttentionBuilder k{b, loc, width, kernel.pointers};
  Value keyRow = k.alloca(D), valueTile = k.alloca(tile * std::max(D, Dv));
  if (scores.getTransposeB() && D % width == 0 && N % tile != 0)
    k.zeroFill(valueTile, tile * std::max(D, Dv));
  auto loop = scf::ForOp::create(b, loc, kernel.begin(), kernel.end(), k.c(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value iteration = loop.getInductionVar();
  Value batch = arith::DivSIOp::create(b, loc, iteration, k.c(tiles));
  Value t = arith::RemSIOp::create(b, loc, iteration, k.c(tiles));
  Value slot = k.at(kernel.outputs.front(), k.mul(iteration, k.c(D * tile)));
  AttentionBlock blk{
      k,       M,      N,    D,         Dv,      tile,    tiles,   tiles * tile,
      Value(), keyRow, slot, valueTile, Value(), Value(), Value(), batch,
      Value(), Value()};
  blk.lastTileOr(
      t, [&] { k.zeroFill(slot, D * tile); }, [] {});
  blk.stageKeyTile(scores, t);
  if (blk.failedBody)
    return failure();
  KernelPlan plan =
      kernelPlan(name, "", ScheduleKind::Attention, fusion.getInputs().size(),
                 std::span<const unsigned>(), /*scratch=*/true);
  plan.launch.iterations = schedule.batch * tiles;
  // Chunks of about 64 KiB of tiles.
  plan.launch.grain = std::max<int64_t>(1, (int64_t(16) << 10) / (D * tile));
  return plan;
}

/// The `_keys` kernel (emitKeysKernel) into `kernels`, with its scratch,
/// where the attention's `blocks` blocks per batch element would stage
/// enough K again (kKeysOnceMinElements) and its tiles fit the budget
/// (kKeyTilesBudgetBytes); whether it was added. Not where the fusion takes
/// runtime dims (a symbolic batch): the scratch grows with the batch, and a
/// kernel plan that depends on a dim's value would be compiled again for
/// every value of it.
FailureOr<bool> addKeysKernel(fd::FusionOp fusion, ModuleOp module,
                              StringRef namePrefix, unsigned width,
                              const fd::AttentionSchedule &schedule,
                              int64_t tile, int64_t blocks,
                              FusionKernels &kernels) {
  const int64_t D = schedule.depth,
                paddedKeys = (schedule.keys + tile - 1) / tile * tile,
                keyTilesBytes = schedule.batch * paddedKeys * D * 4;
  if (fusion->hasAttr(kRuntimeDimsAttr) ||
      keyTilesBytes > kKeyTilesBudgetBytes ||
      (blocks - 1) * schedule.batch * paddedKeys * D < kKeysOnceMinElements)
    return false;
  FailureOr<KernelPlan> plan =
      emitKeysKernel(fusion, module, namePrefix, width, schedule, tile);
  if (failed(plan))
    return failure();
  kernels.kernels.push_back(std::move(*plan));
  kernels.scratchBytes = uint64_t(keyTilesBytes);
  return true;
}

/// Query rows per block, of `rows` per head and `heads` heads, where each
/// row takes `elementsPerRow` floats of the stack beside `shared` floats:
/// a whole head where kMaxHeadRows and kMinHeadsForHeadBlocks allow, else
/// at most kMaxRowsPerBlock; fewer where the stack would pass its budget.
int64_t rowsPerStackBlock(int64_t rows, int64_t heads, int64_t shared,
                          int64_t elementsPerRow) {
  const int64_t most = rows <= kMaxHeadRows && heads >= kMinHeadsForHeadBlocks
                           ? rows
                           : kMaxRowsPerBlock;
  return std::min(
      rows, std::clamp<int64_t>(
                (kAttentionStackBytes / 4 - shared) / elementsPerRow, 1, most));
}

/// The index in the dims array of a runtime dim of `fusion` whose
/// representative value is `size` (kRuntimeDimsAttr), if any.
std::optional<unsigned> runtimeDimOf(fd::FusionOp fusion, int64_t size) {
  return runtimeDimIndex(
      fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr), size);
}

bool hasRuntimeRowsOrKeys(fd::FusionOp fusion,
                          const fd::AttentionSchedule &schedule) {
  return runtimeDimOf(fusion, schedule.rows) ||
         runtimeDimOf(fusion, schedule.keys);
}

/// The stack of a runtime attention's iteration: its sizes, the rows of
/// the whole-row path and its buffers.
struct RuntimeAttentionStack {
  int64_t tile, rowsPerBlock;
  /// Most keys of the whole-row path (0: none), and the floats its rows of
  /// scores may take.
  int64_t wholeKeys, wholeFloats;
  Value qRows, keyRow, keyTile, valueTile, rowBuffer, outRows;
  OnlineRows online;
  SmallVector<Value> stashBuffers;
};

RuntimeAttentionStack allocateRuntimeStack(AttentionBuilder &k, int64_t D,
                                           int64_t Dv, int64_t batch,
                                           ArrayRef<ReductionInfo> reductions,
                                           Value probs) {
  RuntimeAttentionStack s;
  s.tile = 4 * k.width;
  const int64_t shared = D * s.tile + s.tile * std::max(D, Dv) + D;
  s.rowsPerBlock =
      rowsPerStackBlock(kMaxHeadRows, batch, shared, 2 * s.tile + D + Dv + 4);
  // The whole rows take what the rest of the stack leaves (the row stashes
  // counted at their most).
  const int64_t budget = kAttentionStackBytes / 4 - shared -
                         s.rowsPerBlock * (D + Dv + 4) -
                         int64_t(reductions.size()) * kMaxWholeRowKeys;
  s.wholeKeys = std::min(kMaxWholeRowKeys, budget) / s.tile * s.tile;
  s.wholeFloats = s.wholeKeys > 0 ? budget : 0;
  s.qRows = k.alloca(s.rowsPerBlock * D);
  s.keyRow = k.alloca(D);
  s.keyTile = k.alloca(D * s.tile);
  s.valueTile = k.alloca(s.tile * std::max(D, Dv));
  // The online path's rows of scores and of P, or the whole rows.
  s.rowBuffer = k.alloca(std::max(2 * s.rowsPerBlock * s.tile, s.wholeFloats));
  s.outRows = k.alloca(s.rowsPerBlock * Dv);
  s.online = {k.alloca(s.rowsPerBlock), k.alloca(s.rowsPerBlock),
              k.alloca(s.rowsPerBlock), k.alloca(s.rowsPerBlock)};
  s.stashBuffers = allocateRowStashes(k.b, k.loc, reductions, {probs},
                                      std::max(s.tile, s.wholeKeys));
  // The last tile's columns and rows past the keys hold finite values.
  k.zeroFill(s.keyTile, D * s.tile);
  if (D % k.width == 0)
    k.zeroFill(s.valueTile, s.tile * std::max(D, Dv));
  return s;
}

/// An attention whose query rows or keys (or both) are runtime dims
/// (KernelAbi.h, "Runtime dims"): the same code at every value of them.
/// Where the keys (a whole number of tiles) are at most the stack's
/// wholeKeys (read at the kernel's entry), each block takes its whole rows
/// of scores on the stack and the row kernel's passes over them, as a
/// static attention does (AttentionBlock::emitWholeRows), with as many
/// rows as the stack holds; past that, an online softmax over tiles of
/// keys keeps the stack independent of the keys. The row kernel must be a
/// softmax, K read by its rows and V given by rows. An iteration is a
/// query row of one batch element, and a call's rows [begin, end) are
/// taken a batch element at a time in blocks of equal size, of up to the
/// rows a head of kMaxHeadRows would have, M and N read from the dims
/// array.
FailureOr<FusionKernels> runtimeAttention(fd::FusionOp fusion, ModuleOp module,
                                          StringRef namePrefix, unsigned width,
                                          const fd::AttentionSchedule &schedule,
                                          ArrayRef<ReductionInfo> reductions) {
  std::optional<unsigned> rowsDim = runtimeDimOf(fusion, schedule.rows),
                          keysDim = runtimeDimOf(fusion, schedule.keys);
  fd::MatmulOp scores = schedule.scores, output = schedule.output;
  Value probs = output.getLhs();
  std::optional<OnlineSoftmax> online = matchSoftmax(reductions, probs);
  if (!online || output.getTransposeB())
    return fusion.emitOpError("an attention with runtime dims needs a softmax "
                              "row kernel and V by its rows");
  const int64_t M = schedule.rows, N = schedule.keys, D = schedule.depth,
                Dv = schedule.valueDepth;

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (namePrefix + "_attention").str();
  HostKernel kernel = openKernel(b, module, loc, name, fusion, 1);
  unsigned numInputs = fusion.getInputs().size();
  Value out = kernel.outputs.front();
  AttentionBuilder k{b, loc, width, kernel.pointers};
  Value rows = rowsDim ? loadRuntimeDim(b, loc, kernel.func, *rowsDim) : k.c(M);
  Value keys = keysDim ? loadRuntimeDim(b, loc, kernel.func, *keysDim) : k.c(N);
  RuntimeAttentionStack s =
      allocateRuntimeStack(k, D, Dv, schedule.batch, reductions, probs);
  const int64_t tile = s.tile;
  Value tileCount =
      arith::DivSIOp::create(b, loc, k.add(keys, k.c(tile - 1)), k.c(tile));
  // Whole rows where they fit, `wholeRows` of them a block.
  Value padded = k.mul(tileCount, k.c(tile));
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, padded,
                                      k.c(s.wholeKeys));
  Value wholeRows = arith::MinSIOp::create(
      b, loc, k.c(s.rowsPerBlock),
      arith::DivSIOp::create(b, loc, k.c(s.wholeFloats),
                             arith::MaxSIOp::create(b, loc, padded, k.c(1))));
  Value mostRows = arith::SelectOp::create(
      b, loc, whole, arith::MaxSIOp::create(b, loc, wholeRows, k.c(1)),
      k.c(s.rowsPerBlock));

  // The batch elements that rows [begin, end) touch, and in each its rows
  // among them, in blocks of equal size.
  Value firstBatch = arith::DivSIOp::create(b, loc, kernel.begin(), rows);
  Value endBatch = k.add(
      arith::DivSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, kernel.end(), k.c(1)), rows),
      k.c(1));
  auto batchLoop = scf::ForOp::create(b, loc, firstBatch, endBatch, k.c(1));
  b.setInsertionPoint(batchLoop.getBody()->getTerminator());
  Value batch = batchLoop.getInductionVar();
  Value batchFirst = k.mul(batch, rows);
  Value lo = arith::MaxSIOp::create(b, loc, kernel.begin(), batchFirst);
  Value hi =
      arith::MinSIOp::create(b, loc, kernel.end(), k.add(batchFirst, rows));
  auto ceilDiv = [&](Value x, Value y) -> Value {
    return arith::MaxSIOp::create(
        b, loc, k.c(1),
        arith::DivSIOp::create(
            b, loc, k.add(x, arith::SubIOp::create(b, loc, y, k.c(1))), y));
  };
  Value span = arith::SubIOp::create(b, loc, hi, lo);
  Value step = ceilDiv(span, ceilDiv(span, mostRows));
  auto blockLoop = scf::ForOp::create(b, loc, lo, hi, step);
  b.setInsertionPoint(blockLoop.getBody()->getTerminator());
  Value firstRow = blockLoop.getInductionVar();
  Value count = arith::MinSIOp::create(
      b, loc, step, arith::SubIOp::create(b, loc, hi, firstRow));
  AttentionBlock blk{
      k,           M,           N,         D,        Dv,        tile,
      0,           0,           s.qRows,   s.keyRow, s.keyTile, s.valueTile,
      s.rowBuffer, s.rowBuffer, s.outRows, batch,    count,     firstRow};
  blk.keys = keys;
  blk.tileCount = tileCount;
  blk.prefetchPass = ~0u;
  blk.stageQueryRows(scores);
  auto emitOnline = [&] {
    blk.scoreRows = s.rowBuffer;
    blk.probRows = k.at(s.rowBuffer, k.c(s.rowsPerBlock * tile));
    blk.emitOnline(scores, output, out, *online, reductions, s.stashBuffers,
                   s.online);
  };
  if (s.wholeKeys > 0) {
    auto branch = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    blk.rowStride = padded;
    blk.emitWholeRows(scores, output, out, reductions, s.stashBuffers);
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    emitOnline();
  } else {
    emitOnline();
  }
  if (blk.failedBody)
    return failure();

  const unsigned result = 0;
  KernelPlan plan = kernelPlan(name, "", ScheduleKind::Attention, numInputs,
                               std::span<const unsigned>(&result, 1),
                               /*scratch=*/false);
  plan.launch.iterations = schedule.batch * M;
  plan.launch.grain = s.rowsPerBlock;
  return singleKernel(std::move(plan));
}

} // namespace

FailureOr<FusionKernels> emitHostAttention(fd::FusionOp fusion, ModuleOp module,
                                           StringRef namePrefix,
                                           unsigned width) {
  FailureOr<fd::AttentionSchedule> schedule =
      fd::analyzeAttention(fusion, fd::ScheduleTarget::host(width));
  if (failed(schedule))
    return failure();
  SmallVector<ReductionInfo> reductions;
  if (failed(classifyEach(schedule->reductions, "attention", classifyReduction,
                          reductions)))
    return failure();
  fd::MatmulOp scores = schedule->scores, output = schedule->output;
  const int64_t M = schedule->rows, N = schedule->keys, D = schedule->depth,
                Dv = schedule->valueDepth;
  if (hasRuntimeRowsOrKeys(fusion, *schedule))
    return runtimeAttention(fusion, module, namePrefix, width, *schedule,
                            reductions);
  // Keys in tiles of four vectors: the scores of a tile are four vector
  // accumulators per row of a register tile, the K tile on the stack.
  const int64_t tile = 4 * width, tiles = (N + tile - 1) / tile,
                paddedKeys = tiles * tile;
  int64_t perRow = 2 * paddedKeys + D + Dv,
          shared = D * tile + tile * std::max(D, Dv) + D;
  auto rowsIn = [&](int64_t elementsPerRow) {
    return rowsPerStackBlock(M, schedule->batch, shared, elementsPerRow);
  };
  int64_t rowsPerBlock = rowsIn(perRow);
  // The rows of scores and P on the stack where they fit; else an online
  // softmax over tiles of keys where the row kernel is a softmax (a tile of
  // scores and of E per row, and 4 scalars), else the rows in the scratch
  // (kMaxScratchParts).
  const bool onStack =
      4 * (rowsPerBlock * perRow + shared) <= kAttentionStackBytes;
  Value probs = output.getLhs();
  std::optional<OnlineSoftmax> online;
  if (!onStack)
    online = matchSoftmax(reductions, probs);
  // On the stack, P is written over the scores it is computed from (each
  // at its own position), so a row takes one row of keys and the block
  // has more rows (fewer stagings of the K and V tiles per row).
  if (onStack)
    rowsPerBlock = rowsIn(paddedKeys + D + Dv);
  if (online)
    rowsPerBlock = rowsIn(2 * tile + D + Dv + 4);
  const bool inScratch = !onStack && !online;
  const int64_t blocks = (M + rowsPerBlock - 1) / rowsPerBlock;
  FusionKernels kernels;
  FailureOr<bool> keysOnce =
      !inScratch ? addKeysKernel(fusion, module, namePrefix, width, *schedule,
                                 tile, blocks, kernels)
                 : false;
  if (failed(keysOnce))
    return failure();

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (namePrefix + "_attention").str();
  HostKernel kernel = openKernel(b, module, loc, name, fusion, 1);
  const DenseMap<Value, Value> &pointers = kernel.pointers;
  unsigned numInputs = fusion.getInputs().size();
  Value out = kernel.outputs.front();
  AttentionBuilder k{b, loc, width, pointers};
  const int64_t totalBlocks = schedule->batch * blocks,
                parts = std::clamp<int64_t>(
                    std::min(kScratchBudgetBytes / (8 * paddedKeys),
                             kMaxScratchParts),
                    1, std::max<int64_t>(totalBlocks, 1));
  Value qRows = k.alloca(rowsPerBlock * D), keyRow = k.alloca(D),
        keyTile = k.alloca(D * tile),
        valueTile = k.alloca(tile * std::max(D, Dv));
  Value scoreRows, probRows;
  if (!inScratch) {
    int64_t rowLength = online ? tile : paddedKeys;
    scoreRows = k.alloca(rowsPerBlock * rowLength);
    probRows = online ? k.alloca(rowsPerBlock * rowLength) : scoreRows;
  }
  Value outRows = k.alloca(rowsPerBlock * Dv);
  OnlineRows onlineRows;
  if (online)
    onlineRows = {k.alloca(rowsPerBlock), k.alloca(rowsPerBlock),
                  k.alloca(rowsPerBlock), k.alloca(rowsPerBlock)};
  SmallVector<Value> stashBuffers =
      allocateRowStashes(b, loc, reductions, {probs}, online ? tile : N);
  // A last tile's columns past the keys hold finite values (their scores
  // are computed and never read), and so do the value tile's rows past the
  // keys where the key tile's transposes read them.
  k.zeroFill(keyTile, D * tile);
  if (scores.getTransposeB() && D % width == 0 && N % tile != 0)
    k.zeroFill(valueTile, tile * std::max(D, Dv));

  Value iteration;
  if (!inScratch) {
    auto loop =
        scf::ForOp::create(b, loc, kernel.begin(), kernel.end(), k.c(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    iteration = loop.getInductionVar();
  } else {
    // An iteration is a part: the blocks [part * total / parts, (part + 1)
    // * total / parts), with its rows of scores and P in the scratch.
    auto partLoop =
        scf::ForOp::create(b, loc, kernel.begin(), kernel.end(), k.c(1));
    b.setInsertionPoint(partLoop.getBody()->getTerminator());
    Value part = partLoop.getInductionVar();
    Value scratch = bufferPointer(b, loc, kernel.buffers, numInputs + 1);
    scoreRows = k.at(scratch, k.mul(part, k.c(2 * paddedKeys)));
    probRows = k.at(scoreRows, k.c(paddedKeys));
    auto firstBlock = [&](Value p) {
      return arith::DivSIOp::create(b, loc, k.mul(p, k.c(totalBlocks)),
                                    k.c(parts));
    };
    auto loop = scf::ForOp::create(b, loc, firstBlock(part),
                                   firstBlock(k.add(part, k.c(1))), k.c(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    iteration = loop.getInductionVar();
  }
  Value batch = arith::DivSIOp::create(b, loc, iteration, k.c(blocks));
  Value first = k.mul(arith::RemSIOp::create(b, loc, iteration, k.c(blocks)),
                      k.c(rowsPerBlock));
  Value count = arith::MinSIOp::create(
      b, loc, k.c(rowsPerBlock), arith::SubIOp::create(b, loc, k.c(M), first));
  // The block's first row among batch * M.
  Value firstRow = k.add(k.mul(batch, k.c(M)), first);
  AttentionBlock blk{k,         M,          N,       D,      Dv,      tile,
                     tiles,     paddedKeys, qRows,   keyRow, keyTile, valueTile,
                     scoreRows, probRows,   outRows, batch,  count,   firstRow};
  if (*keysOnce)
    blk.keyTiles = bufferPointer(b, loc, kernel.buffers, numInputs + 1);
  blk.stageQueryRows(scores);
  if (online) {
    blk.emitOnline(scores, output, out, *online, reductions, stashBuffers,
                   onlineRows);
  } else {
    blk.emitWholeRowsFolded(scores, output, out, reductions, stashBuffers,
                            rowsPerBlock);
  }
  if (blk.failedBody)
    return failure();

  const unsigned result = 0;
  KernelPlan plan = kernelPlan(name, "", ScheduleKind::Attention, numInputs,
                               std::span<const unsigned>(&result, 1),
                               /*scratch=*/inScratch || *keysOnce);
  plan.launch.iterations = inScratch ? parts : totalBlocks;
  plan.launch.grain = 1;
  kernels.kernels.push_back(std::move(plan));
  if (inScratch)
    kernels.scratchBytes = uint64_t(parts) * 2 * paddedKeys * 4;
  return kernels;
}

} // namespace fuse
