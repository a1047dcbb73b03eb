//===- GpuAttentionEmitter.cpp - GPU attention kernels --------------------===//
//
// An attention fusion (ScheduleLegality's AttentionSchedule) as one GPU
// kernel: scores = Q K over [batch, M, N], a row kernel over each row of N
// scores (a softmax with its scale and mask), out = P V. One block of 256
// threads per (batch element, block of up to 16 query rows); the block's
// rows of scores live in static shared memory, never in global memory:
//   1. scores: every thread computes scores of the block (4 adjacent keys
//      at a time where a row is a multiple of 4), each a dot product over
//      the depth pulled through the region emitter, so Q's and K's
//      prologues (a scale, heads split by transposes, K repeated for
//      grouped heads) are index maps and arithmetic on the loads; stored
//      in shared memory;
//   2. a warp per row (8 warps, rows in turn): the row kernel's passes as
//      the GPU row_reduction schedule runs them (a strided pass per
//      reduction, combined by warp shuffles), the scores read from shared
//      memory (a stash), the mask and other operands from global memory;
//      then P, stored over the row's scores;
//   3. out: every thread computes output elements (4 adjacent ones where
//      a V row is a multiple of 4), a sum over the keys of P (from shared
//      memory, the same for a warp's lanes) times V (its prologue applied
//      on load), stored once.
// Barriers separate the phases. f32 only, as on the host.
//
//===----------------------------------------------------------------------===//

#include "compiler/gpu/GpuRegionEmitter.h"
#include "passes/ScheduleLegality.h"

using namespace mlir;
using namespace ::fuse::codegen;
namespace fd = mlir::fuse;

namespace fuse::ptx {

namespace {

/// Threads per block: 8 warps, each taking rows in turn in the row phase.
constexpr unsigned kAttentionBlockSize = 256;
/// Most bytes of a block's rows of scores in static shared memory (the
/// static limit is 48 KiB). kMaxGpuAttentionKeys keys fill it with one row.
constexpr int64_t kAttentionSharedBytes = 32 * 1024;
static_assert(fd::kMaxGpuAttentionKeys * 4 <= kAttentionSharedBytes,
              "a row of the most keys must fit the shared memory");
/// Most query rows of a block.
constexpr int64_t kMaxAttentionRows = 16;

/// The kernel being built: its builder, its pointers and where its block
/// is.
struct AttentionKernel {
  OpBuilder &b;
  Location loc;
  KernelPointers pointers;
  fd::AttentionSchedule schedule;
  int64_t M, N, D, Dv, rowsPerBlock;
  /// The block's batch element, its first row among batch * M and its
  /// number of rows; the thread; the block's scores in shared memory, and
  /// that pointer moved back by the first score's position among all
  /// scores, so that a score's position indexes it.
  Value batch, firstRow, count, thread, scores, scoresAt;
  bool failedBody = false;

  Value c(int64_t v) { return i64Constant(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Type f32() { return b.getF32Type(); }
  Type sharedPtr() {
    return LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  }
  Value sharedAt(Value offset) {
    return LLVM::GEPOp::create(b, loc, sharedPtr(), f32(), scores,
                               ValueRange{offset});
  }

  void check(LogicalResult result) { failedBody |= failed(result); }

  /// A loop from `first` to `end` by `step` whose body is `body(iv)`.
  void loop(Value first, Value end, Value step,
            function_ref<void(Value)> body) {
    auto forOp = scf::ForOp::create(b, loc, first, end, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    body(forOp.getInductionVar());
  }

  /// The block's rows of scores in a shared-memory global of the kernel's
  /// module.
  void allocateScores(StringRef name) {
    scores = sharedBuffer(b, loc, pointers.func, (name + "_scores").str(),
                          LLVM::LLVMArrayType::get(f32(), rowsPerBlock * N));
  }

  void emitScores();
  void emitRows();
  void emitOutput();
};

/// 1. Every score of the block's rows: they are the positions
/// [firstRow * N, (firstRow + count) * N) of the scores, 4 adjacent keys per
/// step where rows are a multiple of 4 (the dot products share their Q
/// element, one load broadcast).
void AttentionKernel::emitScores() {
  unsigned width = N % kGpuVectorWidth == 0 ? kGpuVectorWidth : 1;
  Value lo = mul(firstRow, c(N));
  Value hi = add(lo, mul(count, c(N)));
  loop(add(lo, mul(thread, c(width))), hi, c(kAttentionBlockSize * width),
       [&](Value position) {
         RegionEmitter e(b, loc, width, pointers.inputs);
         Index index = width == 1
                           ? Index{Index::Uniform, position}
                           : Index{Index::Contiguous, position, width, true};
         FailureOr<Value> score = e.emit(schedule.scores.getResult(), index);
         if (failed(score)) {
           failedBody = true;
           return;
         }
         e.storeStash(*score, scoresAt, index);
       });
}

/// 2. A warp per row: the row kernel's passes over the row's scores, then
/// P over them.
void AttentionKernel::emitRows() {
  SmallVector<ReductionInfo> reductions;
  if (failed(classifyEach(schedule.reductions, "attention", classifyReduction,
                          reductions))) {
    failedBody = true;
    return;
  }
  for (const ReductionInfo &r : reductions)
    if (r.accumulator.getIntOrFloatBitWidth() != 32) {
      r.op->emitOpError()
          << "cannot be generated for the GPU in an attention kernel: its "
             "accumulator is not 32 bits (a warp reduces each row)";
      failedBody = true;
      return;
    }
  bool vectorize = N % kGpuVectorWidth == 0;
  Value warp = arith::DivUIOp::create(b, loc, thread, c(kWarpSize));
  Value lane = arith::RemUIOp::create(b, loc, thread, c(kWarpSize));
  Value lanes = c(kWarpSize);
  Value probs = schedule.output.getLhs();
  Value scoresValue = schedule.scores.getResult();
  loop(warp, count, c(kAttentionBlockSize / kWarpSize), [&](Value r) {
    Value lo = mul(add(firstRow, r), c(N));
    DenseMap<Value, Value> seeds;
    for (ReductionInfo &reduction : reductions) {
      ReductionStarts starts = reductionStarts<RegionEmitter>(
          b, loc, kGpuVectorWidth, pointers.inputs, reduction);
      FailureOr<StridedLoop> pass = emitStridedLoop(
          b, loc, lo, N, lane, lanes, vectorize, vectorize, kGpuVectorWidth,
          pointers.inputs, seeds, starts.vector, starts.scalar,
          [&](RegionEmitter &e, Index index, ValueRange carried) {
            e.stash(scoresValue, scoresAt);
            return combineStep(e, reduction, index, carried);
          });
      if (failed(pass)) {
        failedBody = true;
        return;
      }
      Value result = reduceWarp(b, loc, reduction, pass->vectorResults[0],
                                pass->scalarResults[0]);
      RegionEmitter scalar(b, loc, 1, pointers.inputs);
      seeds[reduction.op.getResult()] =
          finishReduction(b, loc, scalar, reduction, result, N);
    }
    // P over the scores: each lane reads the scores it writes.
    FailureOr<StridedLoop> pass =
        emitStridedLoop(b, loc, lo, N, lane, lanes, vectorize, vectorize,
                        kGpuVectorWidth, pointers.inputs, seeds, {}, {},
                        [&](RegionEmitter &e, Index index,
                            ValueRange) -> FailureOr<SmallVector<Value>> {
                          e.stash(scoresValue, scoresAt);
                          FailureOr<Value> p = e.emit(probs, index);
                          if (failed(p))
                            return failure();
                          e.storeStash(*p, scoresAt, index);
                          return SmallVector<Value>();
                        });
    check(failure(failed(pass)));
  });
}

/// 3. The block's output rows: [count, Dv] elements, 4 adjacent ones per
/// step where V rows are a multiple of 4; each a sum over the keys of P
/// times V.
void AttentionKernel::emitOutput() {
  fd::MatmulOp output = schedule.output;
  bool transposed = output.getTransposeB();
  unsigned width = Dv % kGpuVectorWidth == 0 ? kGpuVectorWidth : 1;
  auto laneType = VectorType::get({width}, b.getI64Type());
  Value outputs = pointers.outputs[0];
  Value end = mul(count, c(Dv));
  loop(
      mul(thread, c(width)), end, c(kAttentionBlockSize * width), [&](Value e) {
        Value r = arith::DivUIOp::create(b, loc, e, c(Dv));
        Value dv = arith::RemUIOp::create(b, loc, e, c(Dv));
        Value pRow = mul(r, c(N));
        // V[batch, j, dv] at j = 0; a key further is Dv on (N transposed),
        // a lane further 1 on (N transposed).
        Value vFirst = transposed ? add(mul(batch, c(Dv * N)), mul(dv, c(N)))
                                  : add(mul(batch, c(N * Dv)), dv);
        int64_t keyStride = transposed ? 1 : Dv;
        Type accType =
            width == 1 ? f32() : Type(VectorType::get({width}, f32()));
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        if (width != 1)
          zero = vector::BroadcastOp::create(b, loc, accType, zero);
        auto sum = scf::ForOp::create(
            b, loc, c(0), c(N), c(1), ValueRange{zero},
            [&](OpBuilder &nb, Location nl, Value j, ValueRange acc) {
              Value p = LLVM::LoadOp::create(
                  nb, nl, f32(),
                  LLVM::GEPOp::create(
                      nb, nl, sharedPtr(), f32(), scores,
                      ValueRange{arith::AddIOp::create(nb, nl, pRow, j)}),
                  4);
              Value at = arith::AddIOp::create(
                  nb, nl, vFirst,
                  arith::MulIOp::create(nb, nl, j,
                                        i64Constant(nb, nl, keyStride)));
              Index index{Index::Uniform, at};
              if (width != 1 && !transposed)
                index = {Index::Contiguous, at, width, /*aligned=*/true};
              if (width != 1 && transposed) {
                SmallVector<int64_t> steps;
                for (unsigned l = 0; l < width; ++l)
                  steps.push_back(int64_t(l) * N);
                Value offsets = arith::ConstantOp::create(
                    nb, nl,
                    DenseElementsAttr::get(laneType, ArrayRef<int64_t>(steps)));
                index = {Index::Lanes,
                         arith::AddIOp::create(
                             nb, nl,
                             vector::BroadcastOp::create(nb, nl, laneType, at),
                             offsets)};
              }
              RegionEmitter inner(nb, nl, width, pointers.inputs);
              FailureOr<Value> v = inner.emit(output.getRhs(), index);
              if (failed(v)) {
                failedBody = true;
                scf::YieldOp::create(nb, nl, acc);
                return;
              }
              if (width != 1)
                p = vector::BroadcastOp::create(nb, nl, accType, p);
              scf::YieldOp::create(
                  nb, nl, Value(math::FmaOp::create(nb, nl, p, *v, acc[0])));
            });
        Value stored = add(mul(add(firstRow, r), c(Dv)), dv);
        // In the output's storage type (f16 and bf16 rounded once here).
        RegionEmitter store(b, loc, width, pointers.inputs);
        store.store(sum.getResult(0), elementTypeOf(output.getResult()),
                    outputs,
                    width == 1 ? Index{Index::Uniform, stored}
                               : Index{Index::Contiguous, stored,
                                       int64_t(width), /*aligned=*/true});
      });
}

} // namespace

FailureOr<FusionKernels> emitAttention(fd::FusionOp fusion, ModuleOp module,
                                       StringRef prefix) {
  FailureOr<fd::AttentionSchedule> schedule =
      fd::analyzeAttention(fusion, fd::ScheduleTarget::gpu());
  if (failed(schedule))
    return failure();
  const int64_t M = schedule->rows, N = schedule->keys;
  int64_t rowsPerBlock = std::clamp<int64_t>(kAttentionSharedBytes / (4 * N), 1,
                                             kMaxAttentionRows);
  rowsPerBlock = std::min(rowsPerBlock, M);
  const int64_t blocks = ceilDiv(M, rowsPerBlock);

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_attention").str();
  KernelPointers pointers = createKernel(
      b, module, fusion, name, /*numOutputs=*/1,
      /*scratch=*/false, /*scratchReadOnly=*/false, kAttentionBlockSize);
  AttentionKernel k{b,           loc, pointers,        *schedule,
                    M,           N,   schedule->depth, schedule->valueDepth,
                    rowsPerBlock};
  k.allocateScores(name);
  Value block = blockId(b, loc);
  k.batch = arith::DivUIOp::create(b, loc, block, k.c(blocks));
  Value first = k.mul(arith::RemUIOp::create(b, loc, block, k.c(blocks)),
                      k.c(rowsPerBlock));
  k.count = arith::MinSIOp::create(
      b, loc, k.c(rowsPerBlock), arith::SubIOp::create(b, loc, k.c(M), first));
  k.firstRow = k.add(k.mul(k.batch, k.c(M)), first);
  k.thread = threadId(b, loc);
  k.scoresAt = k.sharedAt(
      arith::SubIOp::create(b, loc, k.c(0), k.mul(k.firstRow, k.c(N))));

  k.emitScores();
  gpu::BarrierOp::create(b, loc);
  k.emitRows();
  gpu::BarrierOp::create(b, loc);
  k.emitOutput();
  if (k.failedBody)
    return failure();

  KernelPlan plan = kernelPlan(name, name + "_module", ScheduleKind::Attention,
                               fusion.getInputs().size(), /*numResults=*/1);
  plan.launch.gridX = uint32_t(schedule->batch * blocks);
  plan.launch.blockX = kAttentionBlockSize;
  plan.launch.iterations = schedule->batch * M;
  return singleKernel(std::move(plan));
}

} // namespace fuse::ptx
