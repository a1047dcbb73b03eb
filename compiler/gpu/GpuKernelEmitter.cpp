//===- GpuKernelEmitter.cpp - fuse.fusion -> GPU kernels ------------------===//
//
// The schedules other than matmul (GpuMatmulEmitter.cpp): pointwise, full,
// row and column reductions, on the region emitter of GpuRegionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/gpu/GpuKernelEmitter.h"
#include "compiler/gpu/GpuRegionEmitter.h"
#include "passes/ScheduleLegality.h"

#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;
using namespace ::fuse::codegen;
namespace fd = mlir::fuse;

namespace fuse {
namespace ptx {

namespace {

/// Most blocks of a pointwise kernel; beyond, each thread takes more steps.
constexpr int64_t kMaxPointwiseBlocks = 4096;
/// Blocks of a reduction's partials kernel: fixed by the size alone, so the
/// order of combination (and the result) does not depend on the device.
constexpr int64_t kMaxReductionBlocks = 1024;
/// Vector steps per thread before a reduction takes another block.
constexpr int64_t kReductionStepsPerThread = 4;
/// Most blocks of a row kernel; more rows are taken in a block-stride loop.
constexpr int64_t kMaxRowBlocks = 65535;
/// Rows per block of a row kernel whose rows a warp covers: one per warp.
constexpr int64_t kRowsPerBlock = 8;

struct GridStride {
  Value thread, threads;
};

/// A grid-stride loop's start and step: this thread's index in the grid and
/// the grid's thread count.
GridStride gridStride(OpBuilder &b, Location loc) {
  Value thread = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId(b, loc), blockDim(b, loc)),
      threadId(b, loc));
  Value threads =
      arith::MulIOp::create(b, loc, gridDim(b, loc), blockDim(b, loc));
  return {thread, threads};
}

} // namespace

FailureOr<FusionKernels> emitPointwise(fd::FusionOp fusion, ModuleOp module,
                                       StringRef prefix,
                                       ScheduleKind schedule) {
  return emitPointwiseKernel(
      fusion, module, "GPU",
      [&](OpBuilder &b, Location loc, int64_t domain,
          ValueRange yielded) -> FailureOr<FusionKernels> {
        std::string name =
            (prefix + (schedule == ScheduleKind::Matmul ? "_matmul"
                       : schedule == ScheduleKind::WindowReduction
                           ? "_window"
                           : "_pointwise"))
                .str();
        unsigned numResults = yielded.size();
        KernelPointers pointers =
            createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                         /*scratchReadOnly=*/false, kGpuBlockSize);
        auto [thread, threads] = gridStride(b, loc);
        DenseMap<Value, Value> noSeeds;
        // With runtime dims, the elements are read from the dims.
        Value length = fusion->hasAttr(kRuntimeDimsAttr)
                           ? extentValue(b, loc, fusion, pointers.func, domain)
                           : Value();
        FailureOr<StridedLoop> loop = emitStridedLoop(
            b, loc, i64Constant(b, loc, 0), domain, length, thread, threads,
            /*vectorize=*/true, /*aligned=*/true, kGpuVectorWidth,
            pointers.inputs, noSeeds, {}, {},
            [&](RegionEmitter &e, Index index, ValueRange) {
              return storeStep(e, index, yielded, pointers.outputs);
            });
        if (failed(loop))
          return failure();

        KernelPlan plan = kernelPlan(name, name + "_module", schedule,
                                     fusion.getInputs().size(), numResults);
        setGrid(plan.launch, fusion, domain, kGpuBlockSize * kGpuVectorWidth,
                kMaxPointwiseBlocks);
        plan.launch.blockX = kGpuBlockSize;
        return singleKernel(std::move(plan));
      });
}

namespace {

FailureOr<FusionKernels> emitFullReduction(fd::FusionOp fusion, ModuleOp module,
                                           StringRef prefix) {
  FailureOr<ReductionSchedule<fd::FullSchedule>> schedule = classifySchedule(
      fusion, fd::analyzeFullReduction(fusion, fd::ScheduleTarget::gpu()),
      "full_reduction", classifyReduction);
  if (failed(schedule))
    return failure();
  SmallVector<ReductionInfo> &reductions = schedule->infos;
  int64_t domain = schedule->domain;
  ArrayRef<unsigned> domainResults = schedule->domainResults;
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  unsigned numInputs = fusion.getInputs().size();
  int64_t partials =
      std::clamp<int64_t>(ceilDiv(domain, kGpuBlockSize * kGpuVectorWidth *
                                              kReductionStepsPerThread),
                          1, kMaxReductionBlocks);
  FusionKernels kernels;
  kernels.scratchBytes = partialsScratchBytes(partials, reductions.size());

  // Partials: block p reduces its grid-stride share into slot p.
  {
    std::string name = (prefix + "_partials").str();
    KernelPointers pointers = createKernel(
        b, module, fusion, name, domainResults.size(), /*scratch=*/true,
        /*scratchReadOnly=*/false, kGpuBlockSize);
    auto [thread, threads] = gridStride(b, loc);
    ReductionStarts starts = reductionStarts<RegionEmitter>(
        b, loc, kGpuVectorWidth, pointers.inputs, reductions);
    DenseMap<Value, Value> noSeeds;
    FailureOr<StridedLoop> loop = emitStridedLoop(
        b, loc, i64Constant(b, loc, 0), domain, thread, threads,
        /*vectorize=*/true, /*aligned=*/true, kGpuVectorWidth, pointers.inputs,
        noSeeds, starts.vector, starts.scalar,
        [&](RegionEmitter &e, Index index, ValueRange carried) {
          return storeAndCombine(e, index, schedule->yielded, domainResults,
                                 pointers.outputs, reductions, carried);
        });
    if (failed(loop))
      return failure();
    Value block = blockId(b, loc);
    for (auto [i, r] : llvm::enumerate(reductions)) {
      Value total = reduceBlock(b, loc, r, loop->vectorResults[i],
                                loop->scalarResults[i]);
      onFirstThread(b, loc, [&](OpBuilder &then) {
        Value slot = arith::AddIOp::create(
            then, loc, block, i64Constant(then, loc, int64_t(i) * partials));
        LLVM::StoreOp::create(
            then, loc, total,
            scratchAddress(then, loc, pointers.scratch, r.accumulator, slot),
            storageBytes(r.accumulator));
      });
    }
    KernelPlan plan =
        kernelPlan(name, name + "_module", ScheduleKind::FullReduction,
                   numInputs, domainResults, /*scratch=*/true);
    plan.launch.gridX = uint32_t(partials);
    plan.launch.blockX = kGpuBlockSize;
    plan.launch.iterations = domain;
    kernels.kernels.push_back(std::move(plan));
  }

  // Finishing: one block combines the slots (always in the same tree), then
  // thread 0 computes the ops after the reductions on one element.
  {
    std::string name = (prefix + "_finish").str();
    KernelPointers pointers =
        createKernel(b, module, fusion, name, schedule->scalarResults.size(),
                     /*scratch=*/true,
                     /*scratchReadOnly=*/true, kGpuBlockSize);
    Value thread = threadId(b, loc);
    Value threads = blockDim(b, loc);
    DenseMap<Value, Value> seeds;
    for (auto [i, r] : llvm::enumerate(reductions)) {
      RegionEmitter constants(b, loc, 1, pointers.inputs);
      Value init = reductionIdentity(constants, r);
      Value base = i64Constant(b, loc, int64_t(i) * partials);
      auto loop = scf::ForOp::create(
          b, loc, arith::AddIOp::create(b, loc, base, thread),
          arith::AddIOp::create(b, loc, base, i64Constant(b, loc, partials)),
          threads, ValueRange{init},
          [&](OpBuilder &nested, Location nestedLoc, Value slot,
              ValueRange acc) {
            Value partial = LLVM::LoadOp::create(
                nested, nestedLoc, r.accumulator,
                scratchAddress(nested, nestedLoc, pointers.scratch,
                               r.accumulator, slot),
                storageBytes(r.accumulator));
            scf::YieldOp::create(
                nested, nestedLoc,
                combine(nested, nestedLoc, r, acc[0], partial));
          });
      Value total = gpu::AllReduceOp::create(
          b, loc, loop.getResult(0),
          gpu::AllReduceOperationAttr::get(b.getContext(),
                                           allReduceKind(r.combining)),
          /*uniform=*/true);
      seeds[r.op.getResult()] =
          finishReduction(b, loc, constants, r, total, domain);
    }
    bool failedBody = false;
    onFirstThread(b, loc, [&](OpBuilder &then) {
      Index zero{Index::Uniform, i64Constant(then, loc, 0)};
      failedBody = failed(storeSeededResults<RegionEmitter>(
          then, loc, 1, pointers.inputs, seeds, zero, schedule->yielded,
          schedule->scalarResults, pointers.outputs));
    });
    if (failedBody)
      return failure();
    KernelPlan plan =
        kernelPlan(name, name + "_module", ScheduleKind::FullReduction,
                   numInputs, schedule->scalarResults, /*scratch=*/true);
    plan.launch.gridX = 1;
    plan.launch.blockX = kGpuBlockSize;
    plan.launch.iterations = 1;
    kernels.kernels.push_back(std::move(plan));
  }
  return kernels;
}

/// A block per tile of groups of 4 adjacent columns, kColumnTileBytes of a
/// row (8 groups, or 32 single columns when the kept inner size is not a
/// multiple of 4), in a block-stride loop over the
/// tiles; the block's threads are the tile's groups times `slices` slices
/// of the reduced rows (thread t: group t % groups, slice t / groups), so
/// that a 4096 x 4096 column sum runs on 128 blocks of 1024 threads rather
/// than on 1024 threads in all. Per reduction, in order: each thread
/// combines its slice's rows (rows slice, slice + slices, ...) into one
/// accumulator per column, stores it in shared memory, and after a barrier
/// every thread combines the slices' partials in slice order (the same
/// value in every thread, whatever the timing); a barrier again before the
/// next reduction's partials. Then the results over the domain, each slice
/// its rows, and the per-column results from slice 0. A group past the last
/// (the last tile's) reads the last group and stores nothing.
constexpr int64_t kColumnTileBytes = 128;
/// Most threads of a column kernel's block, and fewest rows per slice
/// (where the block is more than a warp).
constexpr int64_t kMaxColumnBlock = 1024;
constexpr int64_t kMinRowsPerSlice = 8;

/// This thread's `partial` stored at its place among the block's, then,
/// after a barrier, its group's partials of every slice combined in slice
/// order from `init` (a loop, not unrolled: 128 partials in flight would
/// spill), and a barrier again so that the buffer may be reused.
Value combineSlices(OpBuilder &b, Location loc, const ReductionInfo &r,
                    Value partials, Value partial, Value init, Value thread,
                    Value lane, int64_t slices, int64_t tileGroups) {
  Type sharedPtr =
      LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  Type type = partial.getType();
  auto c = [&](int64_t value) { return i64Constant(b, loc, value); };
  LLVM::StoreOp::create(b, loc, partial,
                        LLVM::GEPOp::create(b, loc, sharedPtr, type, partials,
                                            ValueRange{thread}));
  gpu::BarrierOp::create(b, loc);
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(slices * tileGroups), c(tileGroups), ValueRange{init},
      [&](OpBuilder &nested, Location nestedLoc, Value k, ValueRange acc) {
        Value at = LLVM::GEPOp::create(
            nested, nestedLoc, sharedPtr, type, partials,
            ValueRange{arith::AddIOp::create(nested, nestedLoc, k, lane)});
        Value value = LLVM::LoadOp::create(nested, nestedLoc, type, at);
        scf::YieldOp::create(nested, nestedLoc,
                             combine(nested, nestedLoc, r, acc[0], value));
      });
  gpu::BarrierOp::create(b, loc);
  return loop.getResult(0);
}

FailureOr<FusionKernels>
emitColumnReduction(fd::FusionOp fusion, ModuleOp module, StringRef prefix) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  FailureOr<fd::ColumnSchedule> layout =
      fd::analyzeColumnReduction(fusion, fd::ScheduleTarget::gpu());
  if (failed(layout))
    return failure();
  SmallVector<ReductionInfo> reductions;
  if (failed(classifyEach(layout->reductions, "column_reduction",
                          classifyReduction, reductions)))
    return failure();
  int64_t outer = layout->outer, reduced = layout->reduced,
          inner = layout->inner;
  ArrayRef<unsigned> domainResults = layout->domainResults,
                     columnResults = layout->columnResults;

  unsigned width = inner % kGpuVectorWidth == 0 ? kGpuVectorWidth : 1;
  int64_t groupsPerOuter = inner / width;
  int64_t groups = outer * groupsPerOuter;
  const int64_t tileGroups = kColumnTileBytes / (4 * width);
  // Slices: a power of two, each of at least kMinRowsPerSlice rows where
  // there are that many, within the block's most threads.
  // A block is a warp at least (few rows: slices of a row or two).
  int64_t slices = std::max<int64_t>(1, kWarpSize / tileGroups);
  while (slices * 2 * tileGroups <= kMaxColumnBlock &&
         slices * 2 * kMinRowsPerSlice <= reduced)
    slices *= 2;
  const int64_t blockSize = tileGroups * slices;
  const int64_t tiles = ceilDiv(groups, tileGroups);

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_columns").str();
  unsigned numResults = yield.getValues().size();
  KernelPointers pointers =
      createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                   /*scratchReadOnly=*/false, unsigned(blockSize));
  auto c = [&](OpBuilder &builder, int64_t value) {
    return i64Constant(builder, loc, value);
  };
  // The partials: one accumulator (a vector of `width`, 8 bytes an element
  // at most) per thread.
  Value partials = sharedBuffer(
      b, loc, pointers.func, name + "_partials",
      LLVM::LLVMArrayType::get(b.getI8Type(), uint64_t(blockSize * width * 8)));
  Value thread = threadId(b, loc);
  Value lane = arith::RemUIOp::create(b, loc, thread, c(b, tileGroups));
  Value slice = arith::DivUIOp::create(b, loc, thread, c(b, tileGroups));
  auto tileLoop =
      scf::ForOp::create(b, loc, blockId(b, loc), c(b, tiles), gridDim(b, loc));
  b.setInsertionPoint(tileLoop.getBody()->getTerminator());
  Value group = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, tileLoop.getInductionVar(),
                            c(b, tileGroups)),
      lane);
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, group,
                                      c(b, groups));
  Value read = arith::MinUIOp::create(b, loc, group, c(b, groups - 1));
  Value o = arith::DivUIOp::create(b, loc, read, c(b, groupsPerOuter));
  Value column = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, read, c(b, groupsPerOuter)),
      c(b, width));
  Value domainBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, c(b, reduced * inner)), column);
  Value columnPosition = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, c(b, inner)), column);
  auto indexAt = [&](Value position) -> Index {
    if (width == 1)
      return {Index::Uniform, position};
    return {Index::Contiguous, position, int64_t(width), /*aligned=*/true};
  };

  DenseMap<Value, Value> seeds;
  bool failedBody = false;
  // A loop down this slice's rows; `body` gets the row's index.
  auto rowLoop = [&](ValueRange init, StepBody step) {
    return scf::ForOp::create(
        b, loc, slice, c(b, reduced), c(b, slices), init,
        [&](OpBuilder &nested, Location nestedLoc, Value r, ValueRange acc) {
          Value position = arith::AddIOp::create(
              nested, nestedLoc, domainBase,
              arith::MulIOp::create(nested, nestedLoc, r, c(nested, inner)));
          yieldStep<RegionEmitter>(nested, nestedLoc, width, pointers.inputs,
                                   seeds, indexAt(position), acc, step,
                                   failedBody);
        });
  };
  for (ReductionInfo &r : reductions) {
    RegionEmitter constants(b, loc, width, pointers.inputs);
    Value init = reductionIdentity(constants, r);
    auto loop = rowLoop(ValueRange{init},
                        [&](RegionEmitter &e, Index index, ValueRange acc) {
                          return combineStep(e, r, index, acc);
                        });
    if (failedBody)
      return failure();
    Value total = combineSlices(b, loc, r, partials, loop.getResult(0), init,
                                thread, lane, slices, tileGroups);
    seeds[r.op.getResult()] =
        finishReduction(b, loc, constants, r, total, reduced);
  }
  SmallVector<Value> domainOutputs = outputsOf(pointers.outputs, domainResults);
  SmallVector<Value> columnOutputs = outputsOf(pointers.outputs, columnResults);
  if (!domainResults.empty()) {
    onlyIf(b, loc, valid, [&](OpBuilder &) {
      rowLoop(ValueRange{}, [&](RegionEmitter &e, Index index, ValueRange) {
        return storeAndCombine(e, index, yield.getValues(), domainResults,
                               domainOutputs, {}, {});
      });
    });
    if (failedBody)
      return failure();
  }
  Value first = arith::AndIOp::create(
      b, loc, valid,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice, c(b, 0)));
  LogicalResult stored = success();
  onlyIf(b, loc, first, [&](OpBuilder &) {
    stored = storeSeededResults<RegionEmitter>(
        b, loc, width, pointers.inputs, seeds, indexAt(columnPosition),
        yield.getValues(), columnResults, columnOutputs);
  });
  if (failed(stored))
    return failure();

  KernelPlan plan =
      kernelPlan(name, name + "_module", ScheduleKind::ColumnReduction,
                 fusion.getInputs().size(), numResults);
  plan.launch.gridX =
      uint32_t(std::clamp<int64_t>(tiles, 1, kMaxPointwiseBlocks));
  plan.launch.blockX = uint32_t(blockSize);
  plan.launch.iterations = groups;
  return singleKernel(std::move(plan));
}

/// One block per row (one warp per row, 8 per block, for short rows), rows
/// beyond the grid in a
/// block-stride loop: a pass over the row per reduction, in order (so a
/// reduction may use an earlier one, as softmax's sum uses its max), each
/// combined across the block, then a last pass that stores the results over
/// the row. The passes re-read the row, from L1/L2 after the first.
FailureOr<FusionKernels> emitRowReduction(fd::FusionOp fusion, ModuleOp module,
                                          StringRef prefix) {
  FailureOr<ReductionSchedule<fd::RowSchedule>> schedule = classifySchedule(
      fusion, fd::analyzeRowReduction(fusion, fd::ScheduleTarget::gpu()),
      "row_reduction", classifyReduction);
  if (failed(schedule))
    return failure();
  SmallVector<ReductionInfo> &reductions = schedule->infos;
  int64_t rows = schedule->rows, rowLength = schedule->rowLength;

  // Rows whose length is a multiple of the vector width start aligned and
  // are read 128 bits at a time; others element by element.
  bool vectorize = rowLength % kGpuVectorWidth == 0;
  int64_t steps =
      vectorize ? rowLength / kGpuVectorWidth : std::max<int64_t>(1, rowLength);
  unsigned blockSize = unsigned(std::clamp<int64_t>(
      ceilDiv(steps, kWarpSize) * kWarpSize, kWarpSize, kGpuBlockSize));
  // Rows that one warp covers in a step: a warp per row, kRowsPerBlock rows
  // per block, reduced by shuffles alone (32-bit accumulators).
  bool warpPerRow =
      blockSize == kWarpSize && llvm::all_of(reductions, [](const auto &r) {
        return r.accumulator.getIntOrFloatBitWidth() == 32;
      });
  int64_t rowsPerBlock = warpPerRow ? kRowsPerBlock : 1;
  if (warpPerRow)
    blockSize = unsigned(kWarpSize * kRowsPerBlock);

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_rows").str();
  unsigned numResults = schedule->yielded.size();
  KernelPointers pointers =
      createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                   /*scratchReadOnly=*/false, blockSize);
  Value thread = threadId(b, loc);
  Value threads = blockDim(b, loc);
  Value firstRow = blockId(b, loc), rowStep = gridDim(b, loc);
  if (warpPerRow) {
    Value warpSize = i64Constant(b, loc, kWarpSize);
    Value perBlock = i64Constant(b, loc, rowsPerBlock);
    firstRow = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, firstRow, perBlock),
        arith::DivUIOp::create(b, loc, thread, warpSize));
    rowStep = arith::MulIOp::create(b, loc, rowStep, perBlock);
    thread = arith::RemUIOp::create(b, loc, thread, warpSize);
    threads = warpSize;
  }
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, i64Constant(b, loc, 0));
  // With runtime dims, the rows are read from the dims.
  auto rowLoop = scf::ForOp::create(
      b, loc, firstRow, extentValue(b, loc, fusion, pointers.func, rows),
      rowStep);
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  Value row = rowLoop.getInductionVar();
  Value lo = arith::MulIOp::create(b, loc, row, i64Constant(b, loc, rowLength));
  DenseMap<Value, Value> seeds;
  for (ReductionInfo &r : reductions) {
    ReductionStarts starts = reductionStarts<RegionEmitter>(
        b, loc, kGpuVectorWidth, pointers.inputs, r);
    FailureOr<StridedLoop> loop = emitStridedLoop(
        b, loc, lo, rowLength, thread, threads, vectorize, vectorize,
        kGpuVectorWidth, pointers.inputs, seeds, starts.vector, starts.scalar,
        [&](RegionEmitter &e, Index index, ValueRange carried) {
          return combineStep(e, r, index, carried);
        });
    if (failed(loop))
      return failure();
    Value result = warpPerRow ? reduceWarp(b, loc, r, loop->vectorResults[0],
                                           loop->scalarResults[0])
                              : reduceBlock(b, loc, r, loop->vectorResults[0],
                                            loop->scalarResults[0]);
    RegionEmitter scalar(b, loc, 1, pointers.inputs);
    seeds[r.op.getResult()] =
        finishReduction(b, loc, scalar, r, result, rowLength);
  }
  SmallVector<Value> domainOutputs =
      outputsOf(pointers.outputs, schedule->domainResults);
  SmallVector<Value> rowOutputs =
      outputsOf(pointers.outputs, schedule->rowResults);
  if (!schedule->domainResults.empty()) {
    FailureOr<StridedLoop> loop =
        emitStridedLoop(b, loc, lo, rowLength, thread, threads, vectorize,
                        vectorize, kGpuVectorWidth, pointers.inputs, seeds, {},
                        {}, [&](RegionEmitter &e, Index index, ValueRange) {
                          return storeAndCombine(e, index, schedule->yielded,
                                                 schedule->domainResults,
                                                 domainOutputs, {}, {});
                        });
    if (failed(loop))
      return failure();
  }
  bool failedBody = false;
  if (!schedule->rowResults.empty())
    onlyIf(b, loc, isFirst, [&](OpBuilder &then) {
      failedBody = failed(storeSeededResults<RegionEmitter>(
          then, loc, 1, pointers.inputs, seeds, {Index::Uniform, row},
          schedule->yielded, schedule->rowResults, rowOutputs));
    });
  if (failedBody)
    return failure();
  // The next row's reductions reuse the shared memory of this row's.
  if (!warpPerRow)
    gpu::BarrierOp::create(b, loc);

  KernelPlan plan =
      kernelPlan(name, name + "_module", ScheduleKind::RowReduction,
                 fusion.getInputs().size(), numResults);
  setGrid(plan.launch, fusion, rows, rowsPerBlock, kMaxRowBlocks);
  plan.launch.blockX = blockSize;
  return singleKernel(std::move(plan));
}

} // namespace

} // namespace ptx

FailureOr<FusionKernels> emitGpuKernels(fd::FusionOp fusion, ModuleOp module,
                                        StringRef namePrefix) {
  using namespace ptx;
  switch (fusion.getKind()) {
  case fd::ScheduleKind::pointwise:
    return emitPointwise(fusion, module, namePrefix, ScheduleKind::Pointwise);
  case fd::ScheduleKind::matmul:
    return emitMatmul(fusion, module, namePrefix);
  case fd::ScheduleKind::full_reduction:
    return emitFullReduction(fusion, module, namePrefix);
  case fd::ScheduleKind::row_reduction:
    return emitRowReduction(fusion, module, namePrefix);
  case fd::ScheduleKind::column_reduction:
    return emitColumnReduction(fusion, module, namePrefix);
  case fd::ScheduleKind::window_reduction:
    if (failed(fd::analyzeWindowReduction(fusion, fd::ScheduleTarget::gpu())))
      return failure();
    return emitPointwise(fusion, module, namePrefix,
                         ScheduleKind::WindowReduction);
  case fd::ScheduleKind::scatter:
    return emitScatter(fusion, module, namePrefix);
  case fd::ScheduleKind::horizontal:
    // fuse-horizontal-fusion groups kernels for the host only.
    return fusion.emitOpError() << "has no GPU horizontal code generator";
  case fd::ScheduleKind::attention:
    return emitAttention(fusion, module, namePrefix);
  }
  llvm_unreachable("every schedule kind has a GPU code generator");
}

} // namespace fuse
