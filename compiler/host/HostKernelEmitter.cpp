//===- HostKernelEmitter.cpp - fuse.fusion -> host kernel functions -------===//
//
// The pointwise, full-reduction and row-reduction schedules, and the switch
// over every schedule kind. Region values are emitted at an index by
// HostRegionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostObjectEmitter.h"
#include "compiler/host/HostRegionEmitter.h"
#include "passes/FusionCostModel.h"
#include "passes/ScheduleLegality.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace ::fuse::codegen;
using namespace ::fuse::host;

namespace fuse {

bool hostHasAvx512(const Target &target) {
  return target.name == "host-x86-64-v4";
}

unsigned hostVectorWidth(const Target &target) {
  return hostHasAvx512(target) ? 16 : 8;
}

namespace {

/// Elements per chunk of a reduction's partials kernel: one partial each.
constexpr int64_t kReductionChunk = 16384;
/// Accumulators of a whole chunk of a reduction's partials kernel, a vector
/// apart along one stream. Four streams side by side (consecutive quarters)
/// read faster from 4 KiB pages (a C loop, 2^26 f32, 2 AVX-512 cores:
/// 29-31 GB/s against 25-27), but the host runtime gives inputs this large
/// huge pages, where one stream is faster (AMD EPYC Zen 4 VM, 22
/// alternating rounds, prefetcht1 4 KiB ahead in both: 34-37 GB/s either
/// way when the host was busy, 58-71 against 49-62 when it was not).
constexpr int64_t kReductionAccumulators = 4;
/// Elements per scheduling grain of a pointwise kernel (a multiple of every
/// vector width, so each chunk's vector body and tail split as compiled).
constexpr int64_t kPointwiseGrain = 4096;
/// Region ops from which a pointwise fusion counts as huge (a chain fused up
/// to FormFusions' max-ops, 256 by default; the kernels of the tests and
/// examples have far fewer).
constexpr unsigned kHugeFusionOps = 128;

bool isHugeFusion(fd::FusionOp fusion) {
  unsigned ops = 0;
  fusion.getBody().walk([&](Operation *) { ++ops; });
  return ops >= kHugeFusionOps;
}

/// Whether a pointwise kernel of a huge fusion over `domain` elements leaves
/// out its scalar tail loop: its chunks start and end at multiples of the
/// grain (the runtime's ThreadPool::chunkBoundaries), so where the domain is
/// whole grains, every chunk is whole vectors and the tail never runs. Only
/// for a huge fusion, where the tail doubles the code that the MLIR lowering
/// and LLVM then work through (a small kernel keeps its code as it was).
bool leavesOutTail(bool huge, int64_t domain) {
  return huge && domain > 0 && domain % kPointwiseGrain == 0;
}

/// Independent vector accumulators per reduction pass of a row kernel (and
/// per reduction of a full reduction's partials): enough to hide the latency
/// of the combining add or max.
constexpr unsigned kRowUnroll = 4;

/// A window kernel's rows of at most this many vectors run by rows, each
/// row's vectors unrolled (emitRowsLoop): mobilenet_v2's depthwise
/// convolutions' rows of 7 to 112 positions and 14x14 planes of 196.
constexpr int64_t kUnrolledRowVectors = 16;
/// Elements per scheduling grain of a row kernel (whole rows, at least one).
constexpr int64_t kRowGrainElements = 32768;
/// Most bytes of a row of a row buffer on the stack (one buffer per
/// reduction whose operand the store pass uses again; two rows in a kernel
/// that stores each row during the next, pipelinesStores); longer rows
/// compute the operand again.
constexpr int64_t kRowStashBytes = 64 * 1024;

/// The locality of the row kernels' prefetches of the next row (llvm.prefetch:
/// 2 is prefetcht1, into L2).
constexpr int32_t kPrefetchLocality = 2;

/// Elements ahead of a vector step that a pointwise kernel with streaming
/// stores prefetches its inputs (4 KiB of f32; 256 elements were no better
/// than none, 2048 and 4096 a little worse than 1024).
constexpr int64_t kPointwisePrefetch = 1024;

/// Inputs (at least this many bytes, over the whole domain) that a full
/// reduction's partials prefetch kPointwisePrefetch elements ahead of each
/// vector load. A C loop of the partials' form (2^26 f32, 2 threads,
/// chunks of 4 streams, AMD EPYC Zen 4, best of 5, 3 sittings): 32.4 / 35.3
/// / 46.5 GB/s without, 37.4 / 37.3 / 54.7 with prefetcht1 1024 ahead
/// (prefetcht0: 33.6 / 34.5 / 42.8).
constexpr int64_t kPrefetchedReductionBytes = int64_t(8) << 20;

/// Outputs of at least this many bytes are stored around the caches
/// (non-temporal stores). Measured on 2 AVX-512 cores (y = 2x, 2 threads,
/// aligned vector stores): 64 MiB 27 GB/s cached, 52 GB/s streaming (the
/// cached stores read each line first); 16 MiB even; 4 MiB streaming a
/// little ahead, but a smaller output may still be in the cache for the
/// kernel that reads it next.
constexpr int64_t kStreamingStoreBytes = int64_t(32) << 20;

/// Whether a pointwise kernel's outputs are large enough for streaming
/// stores (each a whole tensor written at the domain's positions). Never in
/// a fusion emitted for runtime dims (kRuntimeDimsAttr): its sizes are the
/// dims' representative values, and its code must not depend on them.
bool streamsOutputs(ValueRange yielded) {
  if (yielded.empty())
    return false;
  for (Operation *parent = yielded.front().getParentRegion()->getParentOp();
       parent; parent = parent->getParentOp())
    if (isa<fd::FusionOp>(parent) && parent->hasAttr(kRuntimeDimsAttr))
      return false;
  return llvm::any_of(yielded, [](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return type.getNumElements() *
               int64_t(storageBytes(type.getElementType())) >=
           kStreamingStoreBytes;
  });
}

/// Whether `value` is computed from the fusion's inputs and reductions'
/// results with cheap arithmetic alone (fd::isCheapArithmetic: no exp, log,
/// tanh...): its pass over a row is a few instructions a vector.
bool computesCheaply(Value value) {
  SmallVector<Value> work{value};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || isa<fd::ReduceOp>(def) ||
        def->hasTrait<OpTrait::ConstantLike>() || !seen.insert(def).second)
      continue;
    if (!fd::isCheapArithmetic(def))
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// Whether every output's address is a multiple of 64 bytes (the widest
/// vector store).
Value outputsAligned(OpBuilder &b, Location loc, ArrayRef<Value> outputs) {
  Value all;
  for (Value output : outputs) {
    Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), output);
    Value low = arith::AndIOp::create(b, loc, address, i64Constant(b, loc, 63));
    Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                                          i64Constant(b, loc, 0));
    all = all ? Value(arith::AndIOp::create(b, loc, all, aligned)) : aligned;
  }
  return all;
}

/// Emits `emitLoop(streaming)`: with streaming stores when `streams` and
/// every output's address is aligned (checked in the kernel; a misaligned
/// output takes the other copy of the loop), with cached stores otherwise.
/// The loop's vector positions must be multiples of the width.
LogicalResult
emitStoreLoop(OpBuilder &b, Location loc, bool streams, ArrayRef<Value> outputs,
              function_ref<FailureOr<PeeledLoop>(bool streaming)> emitLoop) {
  if (!streams)
    return failure(failed(emitLoop(false)));
  auto branch = scf::IfOp::create(b, loc, outputsAligned(b, loc, outputs),
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  if (failed(emitLoop(true)))
    return failure();
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  return failure(failed(emitLoop(false)));
}

/// A pointwise kernel with runtime dims (kRuntimeDimsAttr) reads an operand
/// through a broadcast or transpose a vector at a time where the run of
/// unit stride (or of one value) that the map keeps is whole vectors; with
/// a runtime dim in the run that depends on its value (T5's bias and
/// masks, [batch, heads, sequence, sequence]: runs of `sequence`), and
/// lane by lane otherwise. Emits `emitLoop()` twice: first with the
/// region emitters taking such runs as whole vectors (assumedMultiples
/// collects the dims that takes), which runs where every such dim is a
/// multiple of its block, the other version elsewhere; once where no
/// operand needs it.
LogicalResult
emitVersionedLoop(OpBuilder &b, Location loc, func::FuncOp func,
                  std::set<RegionEmitterBase::AssumedMultiple> &assumed,
                  std::set<RegionEmitterBase::AssumedMultiple> *&assumeInto,
                  function_ref<LogicalResult()> emitLoop) {
  Value placeholder = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  auto branch = scf::IfOp::create(b, loc, placeholder, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    assumeInto = &assumed;
    LogicalResult emitted = emitLoop();
    assumeInto = nullptr;
    if (failed(emitted))
      return failure();
  }
  if (assumed.empty()) {
    branch.erase();
    placeholder.getDefiningOp()->erase();
    return emitLoop();
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(branch);
  Value all = placeholder;
  for (auto [dim, block] : assumed) {
    Value value = loadRuntimeDim(b, loc, func, dim);
    Value rest =
        arith::RemUIOp::create(b, loc, value, i64Constant(b, loc, block));
    all = arith::AndIOp::create(
        b, loc, all,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest,
                              i64Constant(b, loc, 0)));
  }
  branch->setOperand(0, all);
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  return emitLoop();
}

} // namespace

namespace host {

// Declared, and described, in HostRegionEmitter.h.

SmallVector<std::pair<Value, Type>>
domainAlignedInputs(fd::FusionOp fusion, const DenseMap<Value, Value> &pointers,
                    int64_t domain) {
  SmallVector<std::pair<Value, Type>> inputs;
  for (BlockArgument arg : fusion.getBody().front().getArguments()) {
    if (numElements(arg.getType()) != domain)
      continue;
    bool aligned = llvm::all_of(arg.getUsers(), [&](Operation *user) {
      // A broadcast that only adds unit dims (a matrix-vector product's
      // weight, lowered to a row reduction) keeps the positions.
      if (auto broadcast = dyn_cast<fd::BroadcastOp>(user))
        return numElements(broadcast.getType()) == domain &&
               llvm::is_sorted(broadcast.getDims());
      return user->hasTrait<OpTrait::Elementwise>() || isa<fd::ReduceOp>(user);
    });
    if (aligned)
      inputs.push_back({pointers.lookup(arg), storageType(elementTypeOf(arg))});
  }
  return inputs;
}

void prefetchElement(OpBuilder &b, Location loc, Value pointer, Type element,
                     Value position) {
  Value address =
      LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                          element, pointer, ValueRange{position});
  LLVM::Prefetch::create(b, loc, address, b.getI32IntegerAttr(0),
                         b.getI32IntegerAttr(kPrefetchLocality),
                         b.getI32IntegerAttr(1));
}

void prefetchAhead(RegionEmitter &e, Index index,
                   ArrayRef<std::pair<Value, Type>> inputs, int64_t distance) {
  if (index.kind != Index::Contiguous)
    return;
  OpBuilder &b = e.builder();
  Location loc = e.location();
  Value next =
      arith::AddIOp::create(b, loc, index.value, i64Constant(b, loc, distance));
  for (auto [pointer, element] : inputs)
    prefetchElement(b, loc, pointer, element, next);
}

} // namespace host

namespace {

/// At a vector step of a pass over the row [lo, lo + rowLength), a prefetch
/// (into L2) of a line of the next row in each of `inputs`, in the `share`th
/// half of it: the row's position halved, to a line, so that two passes (the
/// second reduction's and the store pass) each prefetch half the next row
/// (each line twice at 16 lanes of 4 bytes; more often with fewer or narrower
/// lanes). The halves start at the row's half, not at a line. Spread over both
/// passes, the prefetches keep the memory busier than a burst in one
/// (emitRowReduction says where it is used, and what it measured).
void prefetchShare(RegionEmitter &e, Index index, Value lo,
                   ArrayRef<std::pair<Value, Type>> inputs, int64_t rowLength,
                   unsigned share) {
  if (index.kind != Index::Contiguous)
    return;
  OpBuilder &b = e.builder();
  Location loc = e.location();
  Value half = arith::ShRUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, index.value, lo),
      i64Constant(b, loc, 1));
  Value start = arith::AddIOp::create(
      b, loc, lo, i64Constant(b, loc, rowLength + share * (rowLength / 2)));
  for (auto [pointer, element] : inputs) {
    int64_t line = std::max<int64_t>(
        1, 64 / std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8));
    Value next = arith::AddIOp::create(
        b, loc, start,
        arith::AndIOp::create(b, loc, half, i64Constant(b, loc, -line)));
    prefetchElement(b, loc, pointer, element, next);
  }
}

/// A window kernel's rows: the output positions of its windows (all the
/// same), over which the channels and batches are the rows; 0 where its
/// windows differ. Where those are whole vectors but an output row is not
/// (56 and 28 wide on AVX-512), a kernel of im2col reads (a depthwise
/// convolution) takes output rows as its rows: each vector is then one run
/// of its row, not pieces of two rows behind a branch. Measured on
/// mobilenet_v2 (--profile --threads 1, alternating): the depthwise
/// convolutions onto 28x28 0.23 -> 0.16 ms, on 28x28 0.17 -> 0.14 ms, onto
/// 56x56 0.52-0.57 -> 0.46-0.50 ms; resnet18's 3x3/2 max pool onto 56x56
/// went 1.63-1.72 -> 2.05-2.23 ms, so pools keep their positions, except
/// those read by runs (poolReadsRuns), whose lanes must lie in one output
/// row.
int64_t windowRowLength(const fd::WindowSchedule &schedule, unsigned width) {
  int64_t rowLength = 0, lastLength = 0;
  bool pools = false, poolRuns = false;
  for (Operation *op : schedule.windows) {
    int64_t positions = 1, last = 1;
    if (auto im2col = dyn_cast<fd::Im2colOp>(op)) {
      Im2colGeometry g(im2col);
      positions = g.positions;
      last = g.out.back();
    } else {
      auto pool = cast<fd::PoolOp>(op);
      for (int64_t size :
           shapeOf(pool.getResult()).take_back(pool.getWindow().size()))
        positions *= size;
      last = shapeOf(pool.getResult()).back();
      // A pool read by runs (poolReadsRuns) needs its output rows as rows;
      // gathered ones keep their positions.
      if (poolReadsRuns(pool, width))
        poolRuns = true;
      else
        pools = true;
    }
    if (rowLength != 0 && (rowLength != positions || lastLength != last))
      return 0;
    rowLength = positions;
    lastLength = last;
  }
  if (poolRuns && !pools)
    return lastLength;
  if (!pools && rowLength % width == 0 && lastLength >= int64_t(width) &&
      (lastLength % width != 0 ||
       lastLength <= kUnrolledRowVectors * int64_t(width)))
    return lastLength;
  return rowLength;
}

/// Whether a window kernel over `domain` elements runs row by row: its rows
/// (windowRowLength) are at least a vector, and either not whole vectors, so
/// that a flat loop's vectors would cross rows, and what is uniform along a
/// row (a channel's weight, bias and scale) would be gathered lane by lane,
/// or few enough vectors to unroll (emitRowsLoop).
bool runsByRows(int64_t rowLength, int64_t domain, unsigned width) {
  return rowLength >= int64_t(width) && domain % rowLength == 0 &&
         (rowLength % width != 0 ||
          rowLength <= kUnrolledRowVectors * int64_t(width));
}

/// A window kernel's loop by rows of `rowLength` (runsByRows): the row's
/// whole vectors, then one vector of the row's last W elements, which
/// overlaps the one before it and stores the same values again there (an
/// output never shares its bytes with an input: ArenaPlanner.h). Every
/// vector lies in one row, a block of `rowLength`.
FailureOr<PeeledLoop> emitRowsLoop(OpBuilder &b, Location loc, Value begin,
                                   Value end, int64_t rowLength, unsigned width,
                                   const DenseMap<Value, Value> &pointers,
                                   StepBody body) {
  auto rowLoop = scf::ForOp::create(b, loc, begin, end, i64Constant(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  Value lo = arith::MulIOp::create(b, loc, rowLoop.getInductionVar(),
                                   i64Constant(b, loc, rowLength));
  DenseMap<Value, Value> noSeeds;
  // A row of few vectors is unrolled: each vector at the row's start plus
  // a constant (RegionEmitterBase::rowOffsetOf), so that its coordinates
  // in the row, and the window's masks there, are constants, and what
  // depends on the row alone is computed once per row.
  if (rowLength <= kUnrolledRowVectors * int64_t(width)) {
    SmallVector<int64_t> starts;
    for (int64_t at = 0; at + int64_t(width) <= rowLength; at += width)
      starts.push_back(at);
    if (rowLength % width != 0)
      starts.push_back(rowLength - int64_t(width));
    for (int64_t at : starts) {
      Value position =
          arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, at));
      if (failed(runStep<RegionEmitter>(
              b, loc, width, pointers, noSeeds,
              {Index::Contiguous, position, rowLength}, {}, body)))
        return failure();
    }
    return PeeledLoop{};
  }
  Value vectorsEnd = arith::AddIOp::create(
      b, loc, lo, i64Constant(b, loc, rowLength / width * width));
  FailureOr<PeeledLoop> loop =
      emitPeeledLoop(b, loc, lo, vectorsEnd, width, rowLength, pointers,
                     noSeeds, {}, {}, body, /*unroll=*/1, /*scalarTail=*/false);
  if (failed(loop))
    return failure();
  Value last = arith::AddIOp::create(
      b, loc, lo, i64Constant(b, loc, rowLength - int64_t(width)));
  if (failed(runStep<RegionEmitter>(b, loc, width, pointers, noSeeds,
                                    {Index::Contiguous, last, rowLength}, {},
                                    body)))
    return failure();
  return loop;
}

/// A pointwise kernel; a window_reduction kernel is one too, whose region
/// reads windows (RegionEmitterBase::emitPool), by rows where they are
/// `rowLength` long (runsByRows).
FailureOr<FusionKernels>
emitPointwise(fd::FusionOp fusion, ModuleOp module, StringRef prefix,
              unsigned width, ScheduleKind schedule = ScheduleKind::Pointwise,
              int64_t rowLength = 0) {
  return emitPointwiseKernel(
      fusion, module, "host",
      [&](OpBuilder &b, Location loc, int64_t domain,
          ValueRange yielded) -> FailureOr<FusionKernels> {
        bool byRows = runsByRows(rowLength, domain, width);
        std::string name = (prefix + (schedule == ScheduleKind::WindowReduction
                                          ? "_window"
                                          : "_pointwise"))
                               .str();
        HostKernel kernel =
            openKernel(b, module, loc, name, fusion, yielded.size());
        const DenseMap<Value, Value> &pointers = kernel.pointers;
        ArrayRef<Value> outputs = kernel.outputs;
        // HostObjectEmitter compiles a huge kernel with a cheaper LLVM
        // pipeline.
        bool huge = isHugeFusion(fusion);
        if (huge)
          kernel.func->setAttr(
              "passthrough",
              b.getArrayAttr({b.getStringAttr(kHugeKernelAttribute)}));
        DenseMap<Value, Value> noSeeds;
        bool tail = !leavesOutTail(huge, domain);
        SmallVector<std::pair<Value, Type>> prefetched =
            domainAlignedInputs(fusion, pointers, domain);
        std::set<RegionEmitterBase::AssumedMultiple> assumed;
        std::set<RegionEmitterBase::AssumedMultiple> *assumeInto = nullptr;
        auto emitLoop = [&](bool streaming) {
          auto step = [&](RegionEmitter &e, Index index, ValueRange) {
            e.streamingStores = streaming;
            e.assumedMultiples = assumeInto;
            e.contractsProducts = schedule == ScheduleKind::WindowReduction;
            if (streaming)
              prefetchAhead(e, index, prefetched, kPointwisePrefetch);
            return storeStep(e, index, yielded, outputs);
          };
          if (byRows)
            return emitRowsLoop(b, loc, kernel.begin(), kernel.end(), rowLength,
                                width, pointers, step);
          return emitPeeledLoop(b, loc, kernel.begin(), kernel.end(), width,
                                width, pointers, noSeeds, {}, {}, step,
                                /*unroll=*/1, tail);
        };
        // Chunks start at multiples of the grain, so each vector's
        // position is a multiple of the width (not so by rows).
        if (!byRows && width > 1 && fusion->hasAttr(kRuntimeDimsAttr)) {
          if (failed(emitVersionedLoop(
                  b, loc, kernel.func, assumed, assumeInto,
                  [&] { return failure(failed(emitLoop(false))); })))
            return failure();
        } else if (failed(emitStoreLoop(b, loc,
                                        !byRows && streamsOutputs(yielded),
                                        outputs, emitLoop))) {
          return failure();
        }

        KernelPlan plan = kernelPlan(name, "", schedule,
                                     fusion.getInputs().size(), outputs.size());
        plan.launch.iterations = byRows ? domain / rowLength : domain;
        plan.launch.grain =
            byRows ? std::max<int64_t>(1, kPointwiseGrain / rowLength)
                   : kPointwiseGrain;
        return singleKernel(std::move(plan));
      });
}

FailureOr<FusionKernels> emitRowReduction(fd::FusionOp fusion, ModuleOp module,
                                          StringRef prefix, unsigned width);

/// One kernel of a full reduction's pair (partials, finish): its function,
/// the fusion's input pointers, the pointers of its `results` outputs and,
/// after them, the scratch of partials.
struct ReductionKernel {
  func::FuncOp func;
  DenseMap<Value, Value> pointers;
  SmallVector<Value> outputs;
  Value scratch;
};

ReductionKernel openReductionKernel(OpBuilder &b, ModuleOp module, Location loc,
                                    StringRef name, fd::FusionOp fusion,
                                    size_t results) {
  HostKernel opened = openKernel(b, module, loc, name, fusion, results);
  Value scratch = bufferPointer(b, loc, opened.buffers,
                                fusion.getInputs().size() + results);
  return {opened.func, std::move(opened.pointers), std::move(opened.outputs),
          scratch};
}

/// The unrolled copies of a reduction's accumulator combined pairwise, then
/// across lanes (a row kernel's float sum, `reassociate`d, in any order: a
/// tree).
Value reduceCopies(OpBuilder &b, Location loc, const ReductionInfo &r,
                   ValueRange copies, bool reassociate) {
  SmallVector<Value> partial(copies);
  while (partial.size() > 1) {
    SmallVector<Value> halved;
    for (size_t k = 0; k + 1 < partial.size(); k += 2)
      halved.push_back(combine(b, loc, r, partial[k], partial[k + 1]));
    if (partial.size() % 2)
      halved.push_back(partial.back());
    partial = std::move(halved);
  }
  bool floatSum = reassociate && r.combining == vector::CombiningKind::ADD &&
                  isa<FloatType>(r.accumulator);
  return vector::ReductionOp::create(b, loc, r.combining, partial[0],
                                     floatSum ? arith::FastMathFlags::reassoc
                                              : arith::FastMathFlags::none);
}

/// A reduction's independent vector accumulators combined pairwise, then
/// across lanes, then with the scalar tail's accumulator.
Value combineAccumulators(OpBuilder &b, Location loc, const ReductionInfo &r,
                          ValueRange accumulators, Value scalar) {
  return combine(b, loc, r,
                 reduceCopies(b, loc, r, accumulators, /*reassociate=*/false),
                 scalar);
}

/// A chunk's partials through the peeled loop over [lo, hi): kRowUnroll
/// accumulators one vector apart, combined pairwise, then the scalar tail's.
FailureOr<SmallVector<Value>>
peeledPartials(OpBuilder &b, Location loc, Value lo, Value hi, unsigned width,
               const DenseMap<Value, Value> &pointers,
               ArrayRef<ReductionInfo> reductions, StepBody step) {
  ReductionStarts starts =
      reductionStarts<RegionEmitter>(b, loc, width, pointers, reductions);
  DenseMap<Value, Value> noSeeds;
  FailureOr<PeeledLoop> loop =
      emitPeeledLoop(b, loc, lo, hi, width, width, pointers, noSeeds,
                     starts.vector, starts.scalar, step, kRowUnroll);
  if (failed(loop))
    return failure();
  SmallVector<Value> results;
  for (auto [i, r] : llvm::enumerate(reductions)) {
    // Copy k of reduction i's accumulator is at k * n + i.
    SmallVector<Value> copies;
    for (unsigned k = 0; k < kRowUnroll; ++k)
      copies.push_back(loop->vectorResults[k * reductions.size() + i]);
    results.push_back(
        combineAccumulators(b, loc, r, copies, loop->scalarResults[i]));
  }
  return results;
}

/// A whole chunk's partials as one stream of kReductionAccumulators vector
/// accumulators a vector apart, combined pairwise (a whole chunk is whole
/// groups of vectors: no tail).
FailureOr<SmallVector<Value>>
streamedPartials(OpBuilder &b, Location loc, Value lo, unsigned width,
                 const DenseMap<Value, Value> &pointers,
                 ArrayRef<ReductionInfo> reductions, StepBody step) {
  ReductionStarts starts =
      reductionStarts<RegionEmitter>(b, loc, width, pointers, reductions);
  size_t n = reductions.size();
  SmallVector<Value> init;
  for (int64_t k = 0; k < kReductionAccumulators; ++k)
    llvm::append_range(init, starts.vector);
  DenseMap<Value, Value> noSeeds;
  bool failedBody = false;
  auto loop = scf::ForOp::create(
      b, loc, i64Constant(b, loc, 0), i64Constant(b, loc, kReductionChunk),
      i64Constant(b, loc, int64_t(width) * kReductionAccumulators), init,
      [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
        SmallVector<Value> next;
        for (int64_t k = 0; k < kReductionAccumulators && !failedBody; ++k) {
          Value at = arith::AddIOp::create(
              nested, nestedLoc, iv,
              arith::AddIOp::create(
                  nested, nestedLoc, lo,
                  i64Constant(nested, nestedLoc, k * int64_t(width))));
          FailureOr<SmallVector<Value>> carried = runStep<RegionEmitter>(
              nested, nestedLoc, width, pointers, noSeeds,
              {Index::Contiguous, at, width}, args.slice(k * n, n), step);
          if (failed(carried))
            failedBody = true;
          else
            llvm::append_range(next, *carried);
        }
        scf::YieldOp::create(nested, nestedLoc,
                             failedBody ? SmallVector<Value>(args) : next);
      });
  if (failedBody)
    return failure();
  SmallVector<Value> results;
  for (auto [i, r] : llvm::enumerate(reductions)) {
    SmallVector<Value> copies;
    for (int64_t k = 0; k < kReductionAccumulators; ++k)
      copies.push_back(loop.getResult(k * n + i));
    results.push_back(reduceCopies(b, loc, r, copies, /*reassociate=*/false));
  }
  return results;
}

/// The partials of chunk `p`, [lo, hi) of a `domain` of elements: streamed
/// where the chunk is whole, peeled where it is the short last one (an
/// scf.if where the domain has both).
FailureOr<SmallVector<Value>>
partialsOfChunk(OpBuilder &b, Location loc, Value p, Value lo, Value hi,
                int64_t domain, unsigned width,
                const DenseMap<Value, Value> &pointers,
                ArrayRef<ReductionInfo> reductions, StepBody step) {
  int64_t whole = domain / kReductionChunk;
  bool hasShort = domain % kReductionChunk != 0;
  if (whole == 0)
    return peeledPartials(b, loc, lo, hi, width, pointers, reductions, step);
  if (!hasShort)
    return streamedPartials(b, loc, lo, width, pointers, reductions, step);
  SmallVector<Type> types;
  for (const ReductionInfo &r : reductions)
    types.push_back(r.accumulator);
  Value isWhole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                        i64Constant(b, loc, whole));
  auto branch = scf::IfOp::create(b, loc, types, isWhole, /*withElse=*/true);
  bool failedAny = false;
  for (bool streamed : {true, false}) {
    OpBuilder::InsertionGuard guard(b);
    Block *block = streamed ? branch.thenBlock() : branch.elseBlock();
    b.setInsertionPointToStart(block);
    FailureOr<SmallVector<Value>> results =
        streamed
            ? streamedPartials(b, loc, lo, width, pointers, reductions, step)
            : peeledPartials(b, loc, lo, hi, width, pointers, reductions, step);
    if (failed(results)) {
      failedAny = true;
      break;
    }
    scf::YieldOp::create(b, loc, *results);
  }
  if (failedAny)
    return failure();
  return SmallVector<Value>(branch.getResults());
}

FailureOr<FusionKernels> emitFullReduction(fd::FusionOp fusion, ModuleOp module,
                                           StringRef prefix, unsigned width) {
  FailureOr<fd::FullSchedule> analyzed =
      fd::analyzeFullReduction(fusion, fd::ScheduleTarget::host(width));
  if (succeeded(analyzed) && analyzed->asOneRow)
    return emitRowReduction(fusion, module, prefix, width);
  FailureOr<ReductionSchedule<fd::FullSchedule>> schedule =
      classifySchedule(fusion, analyzed, "full_reduction", classifyReduction);
  if (failed(schedule))
    return failure();
  SmallVector<ReductionInfo> &reductions = schedule->infos;
  int64_t domain = schedule->domain;
  ArrayRef<unsigned> domainResults = schedule->domainResults,
                     scalarResults = schedule->scalarResults;
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  unsigned numInputs = fusion.getInputs().size();
  int64_t partials =
      std::max<int64_t>(1, (domain + kReductionChunk - 1) / kReductionChunk);
  FusionKernels kernels;
  kernels.scratchBytes = partialsScratchBytes(partials, reductions.size());

  // Partials: iteration p reduces elements [p*C, min((p+1)*C, n)).
  {
    std::string name = (prefix + "_partials").str();
    auto [func, pointers, outputs, scratch] =
        openReductionKernel(b, module, loc, name, fusion, domainResults.size());
    Value one = i64Constant(b, loc, 1);
    auto chunkLoop = scf::ForOp::create(b, loc, func.getArgument(1),
                                        func.getArgument(2), one);
    b.setInsertionPoint(chunkLoop.getBody()->getTerminator());
    Value p = chunkLoop.getInductionVar();
    Value lo =
        arith::MulIOp::create(b, loc, p, i64Constant(b, loc, kReductionChunk));
    Value hi = arith::MinUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, kReductionChunk)),
        i64Constant(b, loc, domain));
    // Inputs far larger than the caches: each vector step prefetches ahead,
    // as a pointwise kernel does (prefetchAhead).
    SmallVector<std::pair<Value, Type>> prefetched;
    if (!fusion->hasAttr(kRuntimeDimsAttr)) {
      prefetched = domainAlignedInputs(fusion, pointers, domain);
      llvm::erase_if(prefetched, [&](const std::pair<Value, Type> &input) {
        return domain * int64_t(storageBytes(input.second)) <
               kPrefetchedReductionBytes;
      });
    }
    auto step = [&](RegionEmitter &e, Index index, ValueRange carried) {
      prefetchAhead(e, index, prefetched, kPointwisePrefetch);
      return storeAndCombine(e, index, schedule->yielded, domainResults,
                             outputs, reductions, carried);
    };
    FailureOr<SmallVector<Value>> chunkPartials = partialsOfChunk(
        b, loc, p, lo, hi, domain, width, pointers, reductions, step);
    if (failed(chunkPartials))
      return failure();
    for (auto [i, r] : llvm::enumerate(reductions)) {
      Value partial = (*chunkPartials)[i];
      Value slot = arith::AddIOp::create(
          b, loc, p, i64Constant(b, loc, int64_t(i) * partials));
      Value address = LLVM::GEPOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()), b.getI64Type(),
          scratch, ValueRange{slot});
      LLVM::StoreOp::create(b, loc, partial, address, 8);
    }
    KernelPlan plan = kernelPlan(name, "", ScheduleKind::FullReduction,
                                 numInputs, domainResults, /*scratch=*/true);
    plan.launch.iterations = partials;
    plan.launch.grain = 1;
    kernels.kernels.push_back(std::move(plan));
  }

  // Finishing: combines the partials in order, then the ops after the
  // reductions, on one element.
  {
    std::string name = (prefix + "_finish").str();
    auto [func, pointers, outputs, scratch] =
        openReductionKernel(b, module, loc, name, fusion, scalarResults.size());
    RegionEmitter e(b, loc, 1, pointers);
    for (auto [i, r] : llvm::enumerate(reductions)) {
      Value init = reductionIdentity(e, r);
      auto loop = scf::ForOp::create(
          b, loc, i64Constant(b, loc, int64_t(i) * partials),
          i64Constant(b, loc, int64_t(i + 1) * partials),
          i64Constant(b, loc, 1), ValueRange{init},
          [&](OpBuilder &nested, Location nestedLoc, Value slot,
              ValueRange acc) {
            Value address = LLVM::GEPOp::create(
                nested, nestedLoc, LLVM::LLVMPointerType::get(b.getContext()),
                nested.getI64Type(), scratch, ValueRange{slot});
            Value partial = LLVM::LoadOp::create(nested, nestedLoc,
                                                 r.accumulator, address, 8);
            scf::YieldOp::create(
                nested, nestedLoc,
                combine(nested, nestedLoc, r, acc[0], partial));
          });
      Value result = loop.getResult(0);
      result = finishReduction(b, loc, e, r, result, domain);
      e.seed(r.op.getResult(), result);
    }
    Index zero{Index::Uniform, i64Constant(b, loc, 0)};
    if (failed(
            storeResults(e, zero, schedule->yielded, scalarResults, outputs)))
      return failure();
    KernelPlan plan = kernelPlan(name, "", ScheduleKind::FullReduction,
                                 numInputs, scalarResults, /*scratch=*/true);
    plan.launch.iterations = 1;
    plan.launch.grain = 1;
    kernels.kernels.push_back(std::move(plan));
  }
  return kernels;
}

/// Whether a row kernel's reduction `r` is a float max or min on AVX-512
/// (16 lanes; hostVectorWidth), whose steps rangeStep emits.
bool reducesByRange(const ReductionInfo &r, unsigned width) {
  return width == 16 && r.accumulator.isF32() &&
         (r.combining == vector::CombiningKind::MAXIMUMF ||
          r.combining == vector::CombiningKind::MINIMUMF);
}

/// vrangeps: the IEEE maximum (or minimum) of two numbers, +0 above -0; of a
/// NaN and a number, the number.
Value range(OpBuilder &b, Location loc, const ReductionInfo &r, Value a,
            Value x) {
  int32_t select = r.combining == vector::CombiningKind::MAXIMUMF ? 5 : 4;
  auto i32 = [&](int32_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                    b.getI32IntegerAttr(v));
  };
  Value all =
      LLVM::ConstantOp::create(b, loc, b.getI16Type(), b.getI16IntegerAttr(-1));
  // i32(4): _MM_FROUND_CUR_DIRECTION (a max rounds nothing).
  return LLVM::CallIntrinsicOp::create(
             b, loc, a.getType(),
             b.getStringAttr("llvm.x86.avx512.mask.range.ps.512"),
             ValueRange{a, x, i32(select), a, all, i32(4)})
      .getResult(0);
}

/// A step of a float max or min on AVX-512: the accumulator (`carried`'s
/// first value) and the operand by vrangeps, and a mask (its second) that
/// an ordered compare leaves set in the lanes that saw no NaN: two
/// instructions, where arith.maximumf's NaN propagation is six
/// (reduceRanges makes the row's result NaN where a lane saw one).
FailureOr<SmallVector<Value>> rangeStep(RegionEmitter &e,
                                        const ReductionInfo &r, Index index,
                                        ValueRange carried, Value stash) {
  FailureOr<Value> x = e.emit(fd::ReduceOp(r.op).getOperand(), index);
  if (failed(x))
    return failure();
  if (stash)
    e.storeStash(*x, stash, index);
  OpBuilder &b = e.builder();
  Location loc = e.location();
  Value ordered =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, *x, *x);
  return SmallVector<Value>{range(b, loc, r, carried[0], *x),
                            arith::AndIOp::create(b, loc, carried[1], ordered)};
}

/// The unrolled copies of rangeStep's (accumulator, mask) pairs as one
/// value: combined, then across lanes by halving rotations; NaN where a
/// mask lost a lane.
Value reduceRanges(OpBuilder &b, Location loc, const ReductionInfo &r,
                   ValueRange copies) {
  Value acc = copies[0], mask = copies[1];
  for (size_t k = 2; k < copies.size(); k += 2) {
    acc = range(b, loc, r, acc, copies[k]);
    mask = arith::AndIOp::create(b, loc, mask, copies[k + 1]);
  }
  int64_t lanes = cast<VectorType>(acc.getType()).getNumElements();
  for (int64_t half = lanes / 2; half >= 1; half /= 2) {
    SmallVector<int64_t> rotation;
    for (int64_t lane = 0; lane < lanes; ++lane)
      rotation.push_back((lane + half) % lanes);
    acc = range(b, loc, r, acc,
                vector::ShuffleOp::create(b, loc, acc, acc, rotation));
  }
  Value all =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::AND, mask);
  Value nan = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(std::numeric_limits<float>::quiet_NaN()));
  return arith::SelectOp::create(
      b, loc, all, vector::ExtractOp::create(b, loc, acc, int64_t(0)), nan);
}

} // namespace

SmallVector<bool> host::rowStashes(ArrayRef<ReductionInfo> reductions,
                                   ArrayRef<Value> storedValues,
                                   int64_t rowLength) {
  // A reduction's operand that the store pass uses again (softmax's
  // exponentials) is kept in a row buffer on the stack by its reduction's
  // pass and read back from cache, not computed twice.
  llvm::SmallPtrSet<Value, 8> storeUses;
  SmallVector<Value> work(storedValues);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!storeUses.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || isa<fd::ReduceOp>(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<bool> stashed(reductions.size());
  for (auto [k, r] : llvm::enumerate(reductions)) {
    Value operand = fd::ReduceOp(r.op).getOperand();
    Type element = computeType(elementTypeOf(operand));
    // i1 vectors are bit-packed in memory: not stashed, recomputed.
    stashed[k] = !isa<BlockArgument>(operand) && storeUses.contains(operand) &&
                 !element.isInteger(1) &&
                 rowLength * int64_t(element.getIntOrFloatBitWidth() / 8) <=
                     kRowStashBytes;
  }
  return stashed;
}

SmallVector<Value> host::allocateRowStashes(OpBuilder &b, Location loc,
                                            ArrayRef<ReductionInfo> reductions,
                                            ArrayRef<Value> storedValues,
                                            int64_t rowLength,
                                            unsigned copies) {
  SmallVector<bool> stashed = rowStashes(reductions, storedValues, rowLength);
  SmallVector<Value> stashBuffers(reductions.size());
  for (auto [k, r] : llvm::enumerate(reductions))
    if (stashed[k])
      stashBuffers[k] = LLVM::AllocaOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()),
          computeType(elementTypeOf(fd::ReduceOp(r.op).getOperand())),
          i64Constant(b, loc, rowLength * copies), 64);
  return stashBuffers;
}

Index host::splitAtRow(OpBuilder &b, Location loc, Index index, RowSplit split,
                       int64_t rowLength) {
  if (!split.row)
    return index;
  return Index::split(index, split.row,
                      arith::SubIOp::create(b, loc, index.value, split.start),
                      rowLength);
}

LogicalResult host::emitRowPasses(
    OpBuilder &b, Location loc, unsigned width, int64_t rowLength, Value lo,
    Value hi, const DenseMap<Value, Value> &pointers,
    ArrayRef<ReductionInfo> reductions, ArrayRef<Value> stashBuffers,
    DenseMap<Value, Value> &seeds,
    SmallVectorImpl<std::pair<Value, Value>> &written,
    ArrayRef<std::pair<Value, Type>> prefetched, unsigned prefetchPass,
    RowSplit split, StepsDone lastPassSteps) {
  // Each row buffer at -lo, so that a position in the row indexes it.
  SmallVector<std::pair<Value, Value>> stashes;
  Value negLo = arith::SubIOp::create(b, loc, i64Constant(b, loc, 0), lo);
  for (auto [k, r] : llvm::enumerate(reductions))
    if (stashBuffers[k])
      stashes.push_back(
          {fd::ReduceOp(r.op).getOperand(),
           LLVM::GEPOp::create(
               b, loc, LLVM::LLVMPointerType::get(b.getContext()),
               computeType(elementTypeOf(fd::ReduceOp(r.op).getOperand())),
               stashBuffers[k], ValueRange{negLo})});
  // Lanes never leave their row; with rows a multiple of the width they
  // also stay inside a width-aligned block.
  int64_t block =
      rowLength % width == 0 ? width : std::max<int64_t>(1, rowLength);
  for (auto [pass, r] : llvm::enumerate(reductions)) {
    Value stash;
    for (auto [value, base] : stashes)
      if (value == fd::ReduceOp(r.op).getOperand())
        stash = base;
    bool ranged = reducesByRange(r, width);
    ReductionStarts starts =
        reductionStarts<RegionEmitter>(b, loc, width, pointers, r);
    if (ranged)
      starts.vector.push_back(arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(VectorType::get({width}, b.getI1Type()),
                                 true)));
    FailureOr<PeeledLoop> loop = emitPeeledLoop(
        b, loc, lo, hi, width, block, pointers, seeds, starts.vector,
        starts.scalar,
        [&](RegionEmitter &e, Index index, ValueRange carried) {
          index =
              splitAtRow(e.builder(), e.location(), index, split, rowLength);
          for (auto [value, base] : written)
            e.stash(value, base);
          if (pass == prefetchPass && (pass == 1 || !prefetched.empty()))
            prefetchAhead(e, index, prefetched, rowLength);
          if (pass == 1 && prefetchPass == kSharedPrefetchPass)
            prefetchShare(e, index, lo, prefetched, rowLength, 0);
          if (carried.size() == 2)
            return rangeStep(e, r, index, carried, stash);
          return combineStep(e, r, index, carried, stash);
        },
        kRowUnroll, /*scalarTail=*/true,
        pass + 1 == reductions.size() ? lastPassSteps : StepsDone());
    if (failed(loop))
      return failure();
    Value horizontal = ranged ? reduceRanges(b, loc, r, loop->vectorResults)
                              : reduceCopies(b, loc, r, loop->vectorResults,
                                             /*reassociate=*/true);
    Value result = combine(b, loc, r, horizontal, loop->scalarResults[0]);
    RegionEmitter scalar(b, loc, 1, pointers);
    result = finishReduction(b, loc, scalar, r, result, rowLength);
    seeds[fd::ReduceOp(r.op).getResult()] = result;
    if (stash)
      written.push_back({fd::ReduceOp(r.op).getOperand(), stash});
  }
  return success();
}

namespace {

/// A `prefetchPass` of a row kernel: its store pass prefetches the next row.
constexpr unsigned kStorePass = ~0u;

/// What the row loops of a row kernel share.
struct RowKernel {
  unsigned width;
  int64_t rowLength;
  const DenseMap<Value, Value> &pointers;
  ArrayRef<ReductionInfo> reductions;
  /// allocateRowStashes's buffers (null where a reduction stashes nothing).
  ArrayRef<Value> stashBuffers;
  ValueRange yielded;
  ArrayRef<unsigned> domainResults, rowResults;
  ArrayRef<Value> outputs;
  ArrayRef<std::pair<Value, Type>> prefetched;
  unsigned prefetchPass;
  Value begin, end;
};

/// The pass that stores a row's results over it: `stashes` are the stashed
/// operands' row buffers (at -lo), `outputs` the domain results' buffers.
FailureOr<PeeledLoop> emitStorePass(OpBuilder &b, Location loc,
                                    const RowKernel &k, Value lo, Value hi,
                                    const DenseMap<Value, Value> &seeds,
                                    ArrayRef<std::pair<Value, Value>> stashes,
                                    ArrayRef<Value> outputs, bool streaming) {
  // Lanes never leave their row; with rows a multiple of the width they
  // also stay inside a width-aligned block.
  int64_t block =
      k.rowLength % k.width == 0 ? k.width : std::max<int64_t>(1, k.rowLength);
  return emitPeeledLoop(
      b, loc, lo, hi, k.width, block, k.pointers, seeds, {}, {},
      [&](RegionEmitter &e, Index index, ValueRange) {
        e.streamingStores = streaming;
        for (auto [value, base] : stashes)
          e.stash(value, base);
        if (k.prefetchPass == kStorePass)
          prefetchAhead(e, index, k.prefetched, k.rowLength);
        if (k.prefetchPass == kSharedPrefetchPass)
          prefetchShare(e, index, lo, k.prefetched, k.rowLength, 1);
        return storeAndCombine(e, index, k.yielded, k.domainResults, outputs,
                               {}, {});
      });
}

/// One row per iteration: the passes of emitRowPasses, then a pass that
/// stores the results over the row, then the row's own results. Without
/// `mayStream` (misaligned outputs, known) no store bypasses the caches.
LogicalResult emitRows(OpBuilder &b, Location loc, const RowKernel &k,
                       bool mayStream = true) {
  auto rowLoop =
      scf::ForOp::create(b, loc, k.begin, k.end, i64Constant(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  Value row = rowLoop.getInductionVar();
  Value lo =
      arith::MulIOp::create(b, loc, row, i64Constant(b, loc, k.rowLength));
  Value hi =
      arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, k.rowLength));
  DenseMap<Value, Value> seeds;
  SmallVector<std::pair<Value, Value>> written;
  if (failed(emitRowPasses(b, loc, k.width, k.rowLength, lo, hi, k.pointers,
                           k.reductions, k.stashBuffers, seeds, written,
                           k.prefetched, k.prefetchPass)))
    return failure();
  if (!k.domainResults.empty()) {
    SmallVector<Value> domainValues,
        domainOutputs = outputsOf(k.outputs, k.domainResults);
    for (unsigned r : k.domainResults)
      domainValues.push_back(k.yielded[r]);
    // Rows of a multiple of the width start at multiples of it.
    if (failed(emitStoreLoop(b, loc,
                             mayStream && k.rowLength % k.width == 0 &&
                                 streamsOutputs(domainValues),
                             domainOutputs, [&](bool streaming) {
                               return emitStorePass(b, loc, k, lo, hi, seeds,
                                                    written, domainOutputs,
                                                    streaming);
                             })))
      return failure();
  }
  return storeSeededResults<RegionEmitter>(
      b, loc, 1, k.pointers, seeds, {Index::Uniform, row}, k.yielded,
      k.rowResults, outputsOf(k.outputs, k.rowResults));
}

/// Whether a row kernel stores each row's results during the next row's
/// last pass (emitPipelinedRows): two reductions, the second's pass costly
/// (softmax's exp: it prefetches the next row), rows of whole vectors with
/// streaming stores, f32 reductions (their results are carried from row to
/// row), two rows of its stashes (`stashed`: rowStashes) within
/// 2 x kRowStashBytes of stack (the most an unpipelined kernel's two take),
/// and stored values computed elementwise from the stashed operands, the
/// reductions' results and constants (broadcast), at their own positions: no
/// input read, and no transpose, slice or gather, which would read other
/// positions (the row before the call's first, out of its bounds).
bool pipelinesStores(const RowKernel &k, ArrayRef<Value> domainValues,
                     ArrayRef<bool> stashed) {
  if (k.reductions.size() != 2 || k.prefetchPass != 1 ||
      k.rowLength % k.width != 0 || !streamsOutputs(domainValues))
    return false;
  DenseSet<Value> kept;
  for (auto [r, stash] : llvm::zip(k.reductions, stashed)) {
    auto reduce = fd::ReduceOp(r.op);
    if (!r.accumulator.isF32() || !elementTypeOf(reduce.getResult()).isF32())
      return false;
    if (stash)
      kept.insert(reduce.getOperand());
  }
  if (2 * int64_t(kept.size()) * k.rowLength * 4 > 2 * kRowStashBytes)
    return false;
  auto known = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def &&
           (isa<fd::ReduceOp>(def) || def->hasTrait<OpTrait::ConstantLike>());
  };
  SmallVector<Value> work(domainValues);
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (kept.contains(v) || known(v) || !seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (auto broadcast = dyn_cast_or_null<fd::BroadcastOp>(def)) {
      if (!known(broadcast.getOperand()))
        return false;
      continue;
    }
    if (!def || !def->hasTrait<OpTrait::Elementwise>())
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// emitRows with each row's stores made during the next row's last pass
/// (pipelinesStores), its stashes in two halves of their buffers by the
/// row's parity; the last row's stores after the loop. Softmax's exp pass
/// computes, and its streaming stores went out in a burst of their own after
/// it; during it they go out beside its prefetches of the next row. A C loop
/// of each form, 4096x4096 f32, 2 threads, alternating: 0.92-0.94 of the
/// time (a burst in the max pass instead: 1.08-1.17).
LogicalResult emitPipelinedRows(OpBuilder &b, Location loc,
                                const RowKernel &k) {
  auto c = [&](int64_t value) { return i64Constant(b, loc, value); };
  int64_t length = k.rowLength;
  // Each stashed operand's buffer `offset` elements on.
  auto stashesAt = [&](OpBuilder &nb, Value offset) {
    SmallVector<std::pair<Value, Value>> stashes;
    for (auto [r, buffer] : llvm::zip(k.reductions, k.stashBuffers)) {
      Value operand = fd::ReduceOp(r.op).getOperand();
      stashes.push_back(
          {operand,
           buffer ? Value(LLVM::GEPOp::create(
                        nb, loc, LLVM::LLVMPointerType::get(nb.getContext()),
                        computeType(elementTypeOf(operand)), buffer,
                        ValueRange{offset}))
                  : Value()});
    }
    return stashes;
  };
  // `row`'s half of the buffers: the first for even rows.
  auto halfOf = [&](OpBuilder &nb, Value row) {
    return arith::MulIOp::create(
        nb, loc, arith::AndIOp::create(nb, loc, row, c(1)), c(length));
  };
  // The stashes of `row`'s half at -lo, which `row`'s positions index.
  auto stashesOf = [&](OpBuilder &nb, Value row, Value lo) {
    SmallVector<std::pair<Value, Value>> stashes;
    for (auto [operand, base] :
         stashesAt(nb, arith::SubIOp::create(nb, loc, halfOf(nb, row), lo)))
      if (base)
        stashes.push_back({operand, base});
    return stashes;
  };
  auto seedsOf = [&](ValueRange values) {
    DenseMap<Value, Value> seeds;
    for (auto [r, value] : llvm::zip(k.reductions, values))
      seeds[fd::ReduceOp(r.op).getResult()] = value;
    return seeds;
  };
  SmallVector<Value> domainOutputs = outputsOf(k.outputs, k.domainResults);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> init(k.reductions.size(), zero);
  bool broken = false;
  auto rowLoop = scf::ForOp::create(
      b, loc, k.begin, k.end, c(1), init,
      [&](OpBuilder &nb, Location, Value row, ValueRange before) {
        Value lo = arith::MulIOp::create(nb, loc, row, c(length));
        Value hi = arith::AddIOp::create(nb, loc, lo, c(length));
        Value previousLo = arith::SubIOp::create(nb, loc, lo, c(length));
        SmallVector<std::pair<Value, Value>> previous = stashesOf(
            nb, arith::AddIOp::create(nb, loc, row, c(1)), previousLo);
        // The first row of a call has no row before: these stores go to its
        // own row, which the next row's pass (or the stores after the loop)
        // then overwrites.
        Value shift = arith::SelectOp::create(
            nb, loc,
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, row,
                                  k.begin),
            c(length), c(0));
        SmallVector<Value> shifted;
        for (auto [output, r] : llvm::zip(domainOutputs, k.domainResults))
          shifted.push_back(LLVM::GEPOp::create(
              nb, loc, LLVM::LLVMPointerType::get(nb.getContext()),
              storageType(elementTypeOf(k.yielded[r])), output,
              ValueRange{shift}));
        DenseMap<Value, Value> seedsBefore = seedsOf(before);
        // The row before's stores of an iteration's vectors, together at its
        // end (one after each vector took 1.1-1.2 of the time).
        auto storeBefore = [&](OpBuilder &sb, Index first, unsigned steps) {
          RegionEmitter store(sb, loc, k.width, k.pointers);
          store.streamingStores = true;
          for (auto [value, known] : seedsBefore)
            store.seed(value, known);
          for (auto [value, base] : previous)
            store.stash(value, base);
          for (unsigned step = 0; step < steps; ++step) {
            Index at{Index::Contiguous,
                     arith::SubIOp::create(sb, loc, first.value,
                                           c(length - int64_t(step) * k.width)),
                     first.block};
            if (failed(storeAndCombine(store, at, k.yielded, k.domainResults,
                                       shifted, {}, {})))
              return failure();
          }
          return success();
        };
        SmallVector<Value> halves;
        for (auto [operand, base] : stashesAt(nb, halfOf(nb, row)))
          halves.push_back(base);
        DenseMap<Value, Value> seeds;
        SmallVector<std::pair<Value, Value>> written;
        SmallVector<Value> next;
        if (failed(emitRowPasses(nb, loc, k.width, length, lo, hi, k.pointers,
                                 k.reductions, halves, seeds, written,
                                 k.prefetched, k.prefetchPass, {},
                                 storeBefore)) ||
            failed(storeSeededResults<RegionEmitter>(
                nb, loc, 1, k.pointers, seeds, {Index::Uniform, row}, k.yielded,
                k.rowResults, outputsOf(k.outputs, k.rowResults))))
          broken = true;
        for (const ReductionInfo &r : k.reductions)
          next.push_back(broken ? zero
                                : seeds.lookup(fd::ReduceOp(r.op).getResult()));
        scf::YieldOp::create(nb, loc, next);
      });
  if (broken)
    return failure();
  // The last row's stores.
  auto last = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k.begin, k.end),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(last.thenBlock()->getTerminator());
  Value row = arith::SubIOp::create(b, loc, k.end, c(1));
  Value lo = arith::MulIOp::create(b, loc, row, c(length));
  Value hi = arith::AddIOp::create(b, loc, lo, c(length));
  return failure(
      failed(emitStorePass(b, loc, k, lo, hi, seedsOf(rowLoop.getResults()),
                           stashesOf(b, row, lo), domainOutputs,
                           /*streaming=*/true)));
}

/// One row per iteration: a vectorized pass over the row per reduction (in
/// order, so a reduction may use an earlier one, as softmax's sum uses its
/// max), then a last pass that stores the results over the row. The row is
/// re-read from cache by each pass.
FailureOr<FusionKernels> emitRowReduction(fd::FusionOp fusion, ModuleOp module,
                                          StringRef prefix, unsigned width) {
  FailureOr<ReductionSchedule<fd::RowSchedule>> schedule = classifySchedule(
      fusion, fd::analyzeRowReduction(fusion, fd::ScheduleTarget::host(width)),
      "row_reduction", classifyReduction);
  if (failed(schedule))
    return failure();
  SmallVector<ReductionInfo> &reductions = schedule->infos;
  int64_t rows = schedule->rows, rowLength = schedule->rowLength;
  ArrayRef<unsigned> domainResults = schedule->domainResults;

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_rows").str();
  HostKernel kernel =
      openKernel(b, module, loc, name, fusion, schedule->yielded.size());
  const DenseMap<Value, Value> &pointers = kernel.pointers;
  ArrayRef<Value> outputs = kernel.outputs;
  SmallVector<Value> domainValues;
  for (unsigned r : domainResults)
    domainValues.push_back(schedule->yielded[r]);
  // A pass over a row after the first prefetches the next one
  // (prefetchAhead), so that the memory works while the passes read the row
  // from cache: the second pass where it computes more than cheap
  // arithmetic (softmax's exp), else the store pass, where the streaming stores
  // go out (layernorm's second pass is two instructions a vector, and its burst
  // of prefetches left the memory idle through the store pass; 4096 x 4096, AMD
  // EPYC Zen 4, 2 threads, 6 alternating passes, median of medians: 4.27
  // -> 3.79 ms; softmax's exp pass, prefetching in its store pass instead: 3.53
  // -> 4.85 ms). Where the cheap pass is the second of two, it and the store
  // pass each prefetch half the next row (prefetchShare): layernorm's kernel
  // took 0.83-0.84 of the time of the store pass alone prefetching (one
  // process, 150 alternating runs, 3 rounds; softmax's exp pass sharing with
  // its store pass took 1.09-1.10 of its time). A row read by one pass alone (a
  // matrix-vector product's weight row) prefetches the next one in that pass:
  // mobilenet_v2's 1000 x 1280 classifier, whose 5 MB of weights the rest of
  // the model evicts from the cores' caches, ran at half the bandwidth without.
  SmallVector<std::pair<Value, Type>> prefetched =
      domainAlignedInputs(fusion, pointers, rows * rowLength);
  unsigned prefetchPass = 1;
  if (reductions.size() == 1)
    prefetchPass = domainResults.empty() ? 0 : kStorePass;
  else if (!domainResults.empty() &&
           computesCheaply(fd::ReduceOp(reductions[1].op).getOperand()))
    prefetchPass = reductions.size() == 2 ? kSharedPrefetchPass : kStorePass;
  RowKernel k{
      width,       rowLength,         pointers,      reductions,
      {},          schedule->yielded, domainResults, schedule->rowResults,
      outputs,     prefetched,        prefetchPass,  kernel.begin(),
      kernel.end()};
  bool pipelined = pipelinesStores(
      k, domainValues, rowStashes(reductions, domainValues, rowLength));
  // Pipelined, two rows in each buffer: the row's and the row before's.
  SmallVector<Value> stashBuffers = allocateRowStashes(
      b, loc, reductions, domainValues, rowLength, pipelined ? 2 : 1);
  k.stashBuffers = stashBuffers;
  if (!pipelined) {
    if (failed(emitRows(b, loc, k)))
      return failure();
  } else {
    // Misaligned outputs take no streaming stores: emitRows's loop.
    auto branch = scf::IfOp::create(
        b, loc, outputsAligned(b, loc, outputsOf(outputs, domainResults)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    if (failed(emitPipelinedRows(b, loc, k)))
      return failure();
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    if (failed(emitRows(b, loc, k, /*mayStream=*/false)))
      return failure();
  }

  KernelPlan plan = kernelPlan(name, "", ScheduleKind::RowReduction,
                               fusion.getInputs().size(), outputs.size());
  plan.launch.iterations = rows;
  plan.launch.grain =
      std::max<int64_t>(1, kRowGrainElements / std::max<int64_t>(1, rowLength));
  return singleKernel(std::move(plan));
}

} // namespace

FailureOr<FusionKernels> emitHostKernels(fd::FusionOp fusion, ModuleOp module,
                                         StringRef namePrefix,
                                         unsigned vectorWidth) {
  // An argmax or argmin scans its axis in order, as a column reduction does
  // (with columns of one element when the axis is the last).
  if (!fusion.getBody().getOps<fd::ArgMaxOp>().empty() ||
      !fusion.getBody().getOps<fd::ArgMinOp>().empty())
    return emitHostColumnReduction(fusion, module, namePrefix, vectorWidth);
  switch (fusion.getKind()) {
  case fd::ScheduleKind::pointwise:
    return emitPointwise(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::full_reduction:
    return emitFullReduction(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::row_reduction:
    return emitRowReduction(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::column_reduction:
    return emitHostColumnReduction(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::matmul:
    return emitHostMatmul(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::window_reduction: {
    FailureOr<fd::WindowSchedule> schedule = fd::analyzeWindowReduction(
        fusion, fd::ScheduleTarget::host(vectorWidth));
    if (failed(schedule))
      return failure();
    return emitPointwise(fusion, module, namePrefix, vectorWidth,
                         ScheduleKind::WindowReduction,
                         windowRowLength(*schedule, vectorWidth));
  }
  case fd::ScheduleKind::scatter:
    return emitHostScatter(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::attention:
    return emitHostAttention(fusion, module, namePrefix, vectorWidth);
  case fd::ScheduleKind::horizontal:
    return emitHostHorizontal(fusion, module, namePrefix, vectorWidth);
  }
  llvm_unreachable("every schedule kind has a host code generator");
}

} // namespace fuse
