//===- GpuScatterEmitter.cpp - GPU scatter kernels ------------------------===//
//
// A scatter (Ops.def) views its data as [N, inner] and its updates as
// [count, inner]. Each thread owns columns of inner (a grid-stride loop;
// neighbouring threads read and write neighbouring elements): it copies its
// column of the data down the rows, then applies the updates in index
// order, each index checked (an index outside the rows is reported in the
// error record and writes nothing). Only the owner writes a column, so no
// atomics are needed and every column sees its updates in index order: of
// duplicate indices the last wins (reduction none), and add/mul/max/min
// apply every update in order, as the reference runtime does.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/ScatterKernel.h"
#include "compiler/gpu/GpuRegionEmitter.h"

using namespace mlir;

namespace fuse::ptx {

using namespace codegen;

namespace {

/// Most blocks of a scatter kernel; beyond, each thread takes more columns.
constexpr int64_t kMaxScatterBlocks = 4096;

} // namespace

FailureOr<FusionKernels> emitScatter(fd::FusionOp fusion, ModuleOp module,
                                     StringRef prefix) {
  FailureOr<ScatterKernel> kernel = scatterKernel(fusion, prefix);
  if (failed(kernel))
    return failure();
  auto &[scatter, rows, inner, count, name] = *kernel;
  Location loc = scatter.getLoc();
  OpBuilder b(module.getContext());
  KernelPointers pointers =
      createKernel(b, module, fusion, name, /*numOutputs=*/1,
                   /*scratch=*/false, /*scratchReadOnly=*/false, kGpuBlockSize);
  Value out = pointers.outputs.front();
  Value thread = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId(b, loc), blockDim(b, loc)),
      threadId(b, loc));
  Value threads =
      arith::MulIOp::create(b, loc, gridDim(b, loc), blockDim(b, loc));
  bool failedBody = false;
  scf::ForOp::create(
      b, loc, thread, i64Constant(b, loc, inner), threads, ValueRange{},
      [&](OpBuilder &cb, Location cloc, Value column, ValueRange) {
        auto c = [&](int64_t v) { return i64Constant(cb, cloc, v); };
        // The data's column, down the rows.
        scf::ForOp::create(
            cb, cloc, c(0), c(rows), c(1), ValueRange{},
            [&](OpBuilder &rb, Location rloc, Value r, ValueRange) {
              RegionEmitter e(rb, rloc, 1, pointers.inputs);
              Value at = arith::AddIOp::create(
                  rb, rloc,
                  arith::MulIOp::create(rb, rloc, r,
                                        i64Constant(rb, rloc, inner)),
                  column);
              failedBody |= failed(
                  e.emitStore(scatter.getData(), out, {Index::Uniform, at}));
              scf::YieldOp::create(rb, rloc);
            });
        // The updates of the column, in index order.
        scf::ForOp::create(
            cb, cloc, c(0), c(count), c(1), ValueRange{},
            [&](OpBuilder &ub, Location uloc, Value q, ValueRange) {
              RegionEmitter e(ub, uloc, 1, pointers.inputs);
              FailureOr<std::pair<Value, Value>> row =
                  e.emitScatterRow(scatter, q);
              if (failed(row)) {
                failedBody = true;
                scf::YieldOp::create(ub, uloc);
                return;
              }
              onlyIf(ub, uloc, row->second, [&](OpBuilder &ib) {
                RegionEmitter inside(ib, uloc, 1, pointers.inputs);
                Value innerSize = i64Constant(ib, uloc, inner);
                Value rowAt = arith::AddIOp::create(
                    ib, uloc,
                    arith::MulIOp::create(ib, uloc, row->first, innerSize),
                    column);
                Value updateAt = arith::AddIOp::create(
                    ib, uloc, arith::MulIOp::create(ib, uloc, q, innerSize),
                    column);
                failedBody |= failed(inside.emitScatterStep(
                    scatter, out, {Index::Uniform, rowAt},
                    {Index::Uniform, updateAt}));
              });
              scf::YieldOp::create(ub, uloc);
            });
        scf::YieldOp::create(cb, cloc);
      });
  if (failedBody)
    return failure();

  KernelPlan plan = kernelPlan(name, name + "_module", ScheduleKind::Scatter,
                               fusion.getInputs().size(), /*numResults=*/1);
  plan.launch.gridX = uint32_t(
      std::clamp<int64_t>(ceilDiv(inner, kGpuBlockSize), 1, kMaxScatterBlocks));
  plan.launch.blockX = kGpuBlockSize;
  plan.launch.iterations = inner;
  return singleKernel(std::move(plan));
}

} // namespace fuse::ptx
