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
//      transposed into the tile, and each Q row times the tile in four
//      vector accumulators: the block's scores;
//   3. per query row, the row kernel's passes (ScheduleLegality ran them as
//      a row_reduction's: emitRowPasses) with the scores read from the
//      stack, then P at every key;
//   4. per tile of keys, their V rows, and each row's P times them,
//      accumulated in registers into the output rows, stored at the end.
// Each step reads its operands through the region emitter, so prologues
// (a scale on Q or K, heads split by transposes, K/V repeated for grouped
// heads, a mask computed from the model's inputs) are index maps and
// arithmetic on the loads, never stored.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"
#include "passes/ScheduleLegality.h"

using namespace mlir;
using namespace ::fuse::codegen;
using namespace ::fuse::host;
namespace fd = mlir::fuse;

namespace fuse {

namespace {

/// Most bytes of one iteration's rows of scores, P, Q and output on the
/// stack; the block has fewer rows for longer rows.
constexpr int64_t kAttentionStackBytes = 256 * 1024;
constexpr int64_t kMaxRowsPerBlock = 32;
/// Rows of more keys than a one-row block's scores and P fit in the stack
/// (past 16384 keys with 64 elements per Q row) keep them in the kernel's
/// scratch instead: the blocks are dealt out to at most kMaxScratchParts
/// parts (fewer where their rows would pass kScratchBudgetBytes), each with
/// its own row of scores and of P, so the scratch grows with the keys
/// (parts x 2 rows), never with the queries times the keys.
constexpr int64_t kMaxScratchParts = 64;
constexpr int64_t kScratchBudgetBytes = int64_t(64) << 20;

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

  /// `body(r)` for r in [0, count).
  void forEach(Value count, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, c(0), count, c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
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
  /// stride `stride` (1: contiguous), into `to` (f32 in compute type).
  LogicalResult stage(Value value, Value first, int64_t length, int64_t stride,
                      Value to) {
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
    int64_t block = length % width == 0 ? width : length;
    Value base = at(to, arith::SubIOp::create(b, loc, c(0), first));
    DenseMap<Value, Value> noSeeds;
    FailureOr<PeeledLoop> loop =
        emitPeeledLoop(b, loc, first, add(first, c(length)), width, block,
                       pointers, noSeeds, {}, {},
                       [&](RegionEmitter &e, Index index,
                           ValueRange) -> FailureOr<SmallVector<Value>> {
                         FailureOr<Value> x = e.emit(value, index);
                         if (failed(x))
                           return failure();
                         e.storeStash(*x, base, index);
                         return SmallVector<Value>();
                       });
    return failure(failed(loop));
  }
};

/// One iteration's block of query rows: the sizes, the stack buffers and
/// where the block is.
struct AttentionBlock {
  AttentionBuilder &k;
  int64_t M, N, D, Dv, tile, tiles, paddedKeys;
  Value qRows, keyRow, keyTile, valueTile, scoreRows, probRows, outRows;
  Value batch, count, firstRow;
  bool failedBody = false;

  void check(LogicalResult result) { failedBody |= failed(result); }

  /// The first key of tile `t` and its number of keys.
  std::pair<Value, Value> keysIn(Value t) {
    Value j0 = k.mul(t, k.c(tile));
    return {j0, arith::MinSIOp::create(
                    k.b, k.loc, k.c(tile),
                    arith::SubIOp::create(k.b, k.loc, k.c(N), j0))};
  }

  /// The block's rows of scores.
  void emitScores(fd::MatmulOp scores) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    unsigned width = k.width;
    // 2. Scores, a tile of keys at a time: its K rows transposed into the
    // tile, then each Q row times the tile.
    k.forEach(k.c(tiles), [&](Value t) {
      auto [j0, valid] = keysIn(t);
      k.forEach(valid, [&](Value jj) {
        Value j = k.add(j0, jj);
        Value keyStart = scores.getTransposeB()
                             ? k.mul(k.add(k.mul(batch, k.c(N)), j), k.c(D))
                             : k.add(k.mul(batch, k.c(D * N)), j);
        check(k.stage(scores.getRhs(), keyStart, D,
                      scores.getTransposeB() ? 1 : N, keyRow));
        k.forEach(k.c(D), [&](Value d) {
          k.store(k.load(keyRow, d, 1), keyTile,
                  k.add(k.mul(d, k.c(tile)), jj));
        });
      });
      k.forEach(count, [&](Value r) {
        SmallVector<Value> init(4, k.zero(width));
        Value qRow = k.mul(r, k.c(D));
        SmallVector<Value> acc =
            k.forCarried(k.c(D), init, [&](Value d, ValueRange carried) {
              Value q = vector::BroadcastOp::create(
                  b, loc, VectorType::get({width}, k.f32()),
                  k.load(qRows, k.add(qRow, d), 1));
              SmallVector<Value> next;
              for (int64_t v = 0; v < 4; ++v)
                next.push_back(math::FmaOp::create(
                    b, loc, q,
                    k.load(keyTile, k.add(k.mul(d, k.c(tile)), k.c(v * width)),
                           width),
                    carried[v]));
              return next;
            });
        Value scoreRow = k.add(k.mul(r, k.c(paddedKeys)), j0);
        for (int64_t v = 0; v < 4; ++v)
          k.store(acc[v], scoreRows, k.add(scoreRow, k.c(v * width)));
      });
    });
  }

  /// The block's output rows from its rows of P, stored in `out`.
  void emitOutputRows(fd::MatmulOp output, Value out) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    unsigned width = k.width;
    // 4. Output rows: over each tile of keys, P times the tile's V rows,
    // accumulated in registers per row.
    SmallVector<std::pair<int64_t, unsigned>> outParts = k.rowParts(Dv);
    k.forEach(count, [&](Value r) {
      for (auto [offset, lanes] : outParts)
        k.store(k.zero(lanes), outRows, k.add(k.mul(r, k.c(Dv)), k.c(offset)));
    });
    k.forEach(k.c(tiles), [&](Value t) {
      auto [j0, valid] = keysIn(t);
      k.forEach(valid, [&](Value jj) {
        Value j = k.add(j0, jj);
        Value valueStart = output.getTransposeB()
                               ? k.add(k.mul(batch, k.c(Dv * N)), j)
                               : k.mul(k.add(k.mul(batch, k.c(N)), j), k.c(Dv));
        check(k.stage(output.getRhs(), valueStart, Dv,
                      output.getTransposeB() ? N : 1,
                      k.at(valueTile, k.mul(jj, k.c(Dv)))));
      });
      k.forEach(count, [&](Value r) {
        Value outRow = k.mul(r, k.c(Dv));
        SmallVector<Value> init;
        for (auto [offset, lanes] : outParts)
          init.push_back(k.load(outRows, k.add(outRow, k.c(offset)), lanes));
        Value probRow = k.add(k.mul(r, k.c(paddedKeys)), j0);
        SmallVector<Value> acc =
            k.forCarried(valid, init, [&](Value jj, ValueRange carried) {
              Value p = k.load(probRows, k.add(probRow, jj), 1);
              Value splat = vector::BroadcastOp::create(
                  b, loc, VectorType::get({width}, k.f32()), p);
              Value valueRow = k.mul(jj, k.c(Dv));
              SmallVector<Value> next;
              for (auto [part, span] : llvm::enumerate(outParts)) {
                auto [offset, lanes] = span;
                next.push_back(math::FmaOp::create(
                    b, loc, lanes == 1 ? p : splat,
                    k.load(valueTile, k.add(valueRow, k.c(offset)), lanes),
                    carried[part]));
              }
              return next;
            });
        for (auto [part, span] : llvm::enumerate(outParts))
          k.store(acc[part], outRows, k.add(outRow, k.c(span.first)));
      });
    });
    // 5. The block's output rows, in the output's storage type.
    Type element = elementTypeOf(output.getResult());
    k.forEach(count, [&](Value r) {
      Value outRow = k.mul(r, k.c(Dv));
      Value stored = k.mul(k.add(firstRow, r), k.c(Dv));
      for (auto [offset, lanes] : outParts) {
        RegionEmitter e(b, loc, lanes, k.pointers);
        e.store(
            k.load(outRows, k.add(outRow, k.c(offset)), lanes), element, out,
            {Index::Contiguous, k.add(stored, k.c(offset)), int64_t(lanes)});
      }
    });
  }
};

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
  // Keys in tiles of four vectors: the scores of a tile are four vector
  // accumulators per query row, the K tile transposed on the stack.
  const int64_t tile = 4 * width, tiles = (N + tile - 1) / tile,
                paddedKeys = tiles * tile;
  int64_t perRow = 2 * paddedKeys + D + Dv, shared = D * tile + tile * Dv + D;
  int64_t rowsPerBlock = std::clamp<int64_t>(
      (kAttentionStackBytes / 4 - shared) / perRow, 1, kMaxRowsPerBlock);
  rowsPerBlock = std::min(rowsPerBlock, M);
  const int64_t blocks = (M + rowsPerBlock - 1) / rowsPerBlock;

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (namePrefix + "_attention").str();
  func::FuncOp func = createKernelFunc(b, module, loc, name);
  Value buffers = func.getArgument(0);
  DenseMap<Value, Value> pointers = loadInputPointers(b, loc, fusion, buffers);
  unsigned numInputs = fusion.getInputs().size();
  Value out = bufferPointer(b, loc, buffers, numInputs);
  AttentionBuilder k{b, loc, width, pointers};
  // The rows of scores and P on the stack where they fit, else in the
  // scratch (kMaxScratchParts).
  const bool onStack =
      4 * (rowsPerBlock * perRow + shared) <= kAttentionStackBytes;
  const int64_t totalBlocks = schedule->batch * blocks,
                parts = std::clamp<int64_t>(
                    std::min(kScratchBudgetBytes / (8 * paddedKeys),
                             kMaxScratchParts),
                    1, std::max<int64_t>(totalBlocks, 1));
  Value qRows = k.alloca(rowsPerBlock * D), keyRow = k.alloca(D),
        keyTile = k.alloca(D * tile), valueTile = k.alloca(tile * Dv);
  Value scoreRows, probRows;
  if (onStack) {
    scoreRows = k.alloca(rowsPerBlock * paddedKeys);
    probRows = k.alloca(rowsPerBlock * paddedKeys);
  }
  Value outRows = k.alloca(rowsPerBlock * Dv);
  Value probs = output.getLhs();
  SmallVector<Value> stashBuffers =
      allocateRowStashes(b, loc, reductions, {probs}, N);
  // A last tile's columns past the keys hold finite values (their scores
  // are computed and never read).
  k.forEach(k.c(D * tile), [&](Value e) { k.store(k.zero(1), keyTile, e); });

  Value iteration;
  if (onStack) {
    auto loop = scf::ForOp::create(b, loc, func.getArgument(1),
                                   func.getArgument(2), k.c(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    iteration = loop.getInductionVar();
  } else {
    // An iteration is a part: the blocks [part * total / parts, (part + 1)
    // * total / parts), with its rows of scores and P in the scratch.
    auto partLoop = scf::ForOp::create(b, loc, func.getArgument(1),
                                       func.getArgument(2), k.c(1));
    b.setInsertionPoint(partLoop.getBody()->getTerminator());
    Value part = partLoop.getInductionVar();
    Value scratch = bufferPointer(b, loc, buffers, numInputs + 1);
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
  auto check = [&](LogicalResult result) { blk.check(result); };

  // 1. Q rows.
  k.forEach(count, [&](Value r) {
    check(k.stage(scores.getLhs(), k.mul(k.add(firstRow, r), k.c(D)), D, 1,
                  k.at(qRows, k.mul(r, k.c(D)))));
  });
  blk.emitScores(scores);
  // 3. Per row: the row kernel's passes over its scores, then P.
  k.forEach(count, [&](Value r) {
    Value lo = k.mul(k.add(firstRow, r), k.c(N));
    Value hi = k.add(lo, k.c(N));
    Value minusLo =
        arith::SubIOp::create(b, loc, k.mul(r, k.c(paddedKeys)), lo);
    SmallVector<std::pair<Value, Value>> written{
        {scores.getResult(), k.at(scoreRows, minusLo)}};
    DenseMap<Value, Value> seeds;
    check(emitRowPasses(b, loc, width, N, lo, hi, pointers, reductions,
                        stashBuffers, seeds, written));
    Value probBase = k.at(probRows, minusLo);
    int64_t block = N % width == 0 ? width : N;
    FailureOr<PeeledLoop> pass =
        emitPeeledLoop(b, loc, lo, hi, width, block, pointers, seeds, {}, {},
                       [&](RegionEmitter &e, Index index,
                           ValueRange) -> FailureOr<SmallVector<Value>> {
                         for (auto [value, base] : written)
                           e.stash(value, base);
                         FailureOr<Value> p = e.emit(probs, index);
                         if (failed(p))
                           return failure();
                         e.storeStash(*p, probBase, index);
                         return SmallVector<Value>();
                       });
    check(failure(failed(pass)));
  });
  blk.emitOutputRows(output, out);
  if (blk.failedBody)
    return failure();

  const unsigned result = 0;
  KernelPlan plan = kernelPlan(name, "", ScheduleKind::Attention, numInputs,
                               std::span<const unsigned>(&result, 1),
                               /*scratch=*/!onStack);
  plan.launch.iterations = onStack ? totalBlocks : parts;
  plan.launch.grain = 1;
  FusionKernels kernels = singleKernel(std::move(plan));
  if (!onStack)
    kernels.scratchBytes = uint64_t(parts) * 2 * paddedKeys * 4;
  return kernels;
}

} // namespace fuse
