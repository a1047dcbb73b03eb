//===- HostScatterEmitter.cpp - Host scatter kernels ----------------------===//
//
// A scatter (Ops.def) views its data as [N, inner] and its updates as
// [count, inner]. One iteration is one column of inner; a chunk of columns
// copies its columns of the data row by row (vectors along the row
// segment; a single column, as one run of vectors down it), then applies
// the updates in index order, each index checked
// (an index outside the rows is reported in the error record and writes
// nothing) and its row segment combined with the update's. Each chunk owns
// its columns, so chunks run in parallel and every column sees its updates
// in index order: of duplicate indices the last wins (reduction none), and
// add/mul/max/min apply every update in order, as the reference runtime
// does.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/ScatterKernel.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"

using namespace mlir;
using namespace ::fuse::codegen;
using namespace ::fuse::host;

namespace fuse {

namespace {

/// Columns per scheduling grain: whole vectors, and enough row segments per
/// chunk to be worth a thread.
constexpr int64_t kScatterGrainElements = 4096;

} // namespace

FailureOr<FusionKernels> emitHostScatter(fd::FusionOp fusion, ModuleOp module,
                                         StringRef namePrefix, unsigned width) {
  FailureOr<codegen::ScatterKernel> kernel =
      codegen::scatterKernel(fusion, namePrefix);
  if (failed(kernel))
    return failure();
  auto &[scatter, rows, inner, count, name] = *kernel;
  Location loc = scatter.getLoc();
  OpBuilder b(module.getContext());
  HostKernel opened = openKernel(b, module, loc, name, fusion, 1);
  const DenseMap<Value, Value> &pointers = opened.pointers;
  Value out = opened.outputs.front();
  Value begin = opened.begin(), end = opened.end();
  DenseMap<Value, Value> noSeeds;
  auto c = [&](int64_t v) { return i64Constant(b, loc, v); };
  bool failedBody = false;

  auto copy = [&](OpBuilder &nested, Location nestedLoc, Value from, Value to) {
    FailureOr<PeeledLoop> copied = emitPeeledLoop(
        nested, nestedLoc, from, to, width, width, pointers, noSeeds, {}, {},
        [&](RegionEmitter &e, Index index,
            ValueRange) -> FailureOr<SmallVector<Value>> {
          if (failed(e.emitStore(scatter.getData(), out, index)))
            return failure();
          return SmallVector<Value>();
        });
    failedBody |= failed(copied);
  };
  if (inner == 1) {
    // One column (ScatterElements' flattened data): one chunk, which copies
    // the whole column as one run of vectors.
    copy(b, loc, c(0), c(rows));
  } else {
    // The data, row by row, over this chunk's columns.
    scf::ForOp::create(
        b, loc, c(0), c(rows), c(1), ValueRange{},
        [&](OpBuilder &nested, Location nestedLoc, Value r, ValueRange) {
          Value base = arith::MulIOp::create(
              nested, nestedLoc, r, i64Constant(nested, nestedLoc, inner));
          copy(nested, nestedLoc,
               arith::AddIOp::create(nested, nestedLoc, base, begin),
               arith::AddIOp::create(nested, nestedLoc, base, end));
          scf::YieldOp::create(nested, nestedLoc);
        });
  }

  // The updates, in index order.
  scf::ForOp::create(
      b, loc, c(0), c(count), c(1), ValueRange{},
      [&](OpBuilder &nested, Location nestedLoc, Value q, ValueRange) {
        RegionEmitter scalar(nested, nestedLoc, 1, pointers);
        FailureOr<std::pair<Value, Value>> row =
            scalar.emitScatterRow(scatter, q);
        if (failed(row)) {
          failedBody = true;
          scf::YieldOp::create(nested, nestedLoc);
          return;
        }
        auto inside = scf::IfOp::create(nested, nestedLoc, row->second,
                                        /*withElseRegion=*/false);
        {
          OpBuilder::InsertionGuard guard(nested);
          nested.setInsertionPoint(inside.thenBlock()->getTerminator());
          Value rowBase =
              arith::MulIOp::create(nested, nestedLoc, row->first,
                                    i64Constant(nested, nestedLoc, inner));
          Value updateBase = arith::MulIOp::create(
              nested, nestedLoc, q, i64Constant(nested, nestedLoc, inner));
          FailureOr<PeeledLoop> updated = emitPeeledLoop(
              nested, nestedLoc, begin, end, width, width, pointers, noSeeds,
              {}, {},
              [&](RegionEmitter &e, Index index,
                  ValueRange) -> FailureOr<SmallVector<Value>> {
                auto at = [&](Value base) {
                  return Index{index.kind,
                               arith::AddIOp::create(nested, nestedLoc, base,
                                                     index.value),
                               index.block};
                };
                if (failed(e.emitScatterStep(scatter, out, at(rowBase),
                                             at(updateBase))))
                  return failure();
                return SmallVector<Value>();
              });
          failedBody |= failed(updated);
        }
        scf::YieldOp::create(nested, nestedLoc);
      });
  if (failedBody)
    return failure();

  KernelPlan plan = kernelPlan(name, "", ScheduleKind::Scatter,
                               fusion.getInputs().size(), /*numResults=*/1);
  plan.launch.iterations = inner;
  int64_t grain = std::max<int64_t>(
      kScatterGrainElements / std::max<int64_t>(rows + count, 1), 1);
  plan.launch.grain = (grain + width - 1) / width * width;
  return singleKernel(std::move(plan));
}

} // namespace fuse
