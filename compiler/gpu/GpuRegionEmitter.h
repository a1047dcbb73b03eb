//===- GpuRegionEmitter.h - Region values on the GPU ------------*- C++ -*-===//
//
// The part of GPU code generation that every schedule shares: the region
// emitter of RegionEmitter.h over global pointers (address space 1), whose
// aligned contiguous indices load and store 128 bits at once, with what
// only the GPU has: a matmul pulled at an index (its dot product per
// element), math.exp/log and libdevice's atan, tan and fmod, and abs
// without math.absi. Plus the kernel scaffolding: a gpu.func per kernel
// with bare global pointers, grid- and block-stride loops, block
// reductions (in GpuRegionEmitter.cpp). Included only by the GPU code
// generator's .cpp files (GpuKernelEmitter.cpp, GpuMatmulEmitter.cpp,
// GpuAttentionEmitter.cpp, GpuScatterEmitter.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_GPUREGIONEMITTER_H
#define FUSE_COMPILER_GPUREGIONEMITTER_H

#include "compiler/common/ReductionLowering.h"
#include "compiler/common/RegionEmitter.h"
#include "compiler/gpu/GpuKernelEmitter.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fuse::ptx {

namespace fd = mlir::fuse;

/// NVPTX's global address space: loads and stores become `ld.global` /
/// `st.global` instead of generic accesses.
inline constexpr unsigned kGlobalAddressSpace = 1;
/// NVPTX's shared (per-block) address space.
inline constexpr unsigned kSharedAddressSpace = 3;
inline constexpr unsigned kWarpSize = 32;

/// Emits region values at an index, with one vector width (1: scalars).
class RegionEmitter
    : public codegen::TargetRegionEmitter<RegionEmitter, fd::MatmulOp> {
public:
  using TargetRegionEmitter::TargetRegionEmitter;
  static constexpr const char *kTarget = "GPU";
  static constexpr unsigned kAddressSpace = kGlobalAddressSpace;

private:
  friend TargetRegionEmitter;

  /// index * stride on i64 scalars or vectors alike.
  mlir::Value scaled(mlir::Value x, int64_t stride);

  /// The matmul's value at `index` of its result: a dot product over K
  /// whose operands are emitted (prologue included) at their own positions.
  /// When the lanes lie in one row of the result, the lhs element is one
  /// load broadcast to every lane and the rhs is contiguous (one 128-bit
  /// load when aligned, unless transposed); otherwise both are gathers.
  mlir::FailureOr<mlir::Value> emitOwnOp(fd::MatmulOp op, codegen::Index index);

  /// exp, log and sigmoid through math.exp and math.log; atan, pow, tan and
  /// fuse.rem's remf (fmod, exact) become libdevice calls (__nv_atanf,
  /// __nv_powf, __nv_tanf, __nv_fmodf).
  mlir::Value lowerTargetFloatOp(mlir::Operation *op, mlir::StringRef name,
                                 mlir::ArrayRef<mlir::Value> x,
                                 mlir::Type compute) override;

  /// max(x, -x) wraps the minimum to itself, as math.absi (which has no
  /// NVVM lowering) would.
  mlir::Value lowerTargetIntegerOp(mlir::Operation *op, mlir::StringRef name,
                                   mlir::ArrayRef<mlir::Value> x,
                                   mlir::Type operandElement) override;
};

mlir::FailureOr<codegen::ReductionInfo>
classifyReduction(fd::ReduceOp reduce, mlir::StringRef schedule);

mlir::Value i64Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

mlir::Value asI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index);

mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);

mlir::Value blockId(mlir::OpBuilder &b, mlir::Location loc);

mlir::Value blockDim(mlir::OpBuilder &b, mlir::Location loc);

mlir::Value gridDim(mlir::OpBuilder &b, mlir::Location loc);

/// A kernel's pointers: the fusion's inputs by region argument, then its
/// outputs and the scratch buffer.
struct KernelPointers {
  mlir::gpu::GPUFuncOp func;
  mlir::DenseMap<mlir::Value, mlir::Value> inputs;
  mlir::SmallVector<mlir::Value> outputs;
  mlir::Value scratch;
};

/// A `gpu.module` named `<name>_module` holding the kernel `gpu.func @name`
/// with `numInputs` read-only pointers, then `numOutputs` written ones, then
/// a scratch pointer when `scratch` is set: read-only too when
/// `scratchReadOnly`, then the error record (KernelAbi.h) when the fusion
/// has checked ops (gathers, scatters), whose slots `inputs` maps by each
/// op's result.
/// Every pointer is noalias: bindings never overlap. The builder is left at
/// the start of the body.
KernelPointers createKernel(mlir::OpBuilder &b, mlir::ModuleOp module,
                            fd::FusionOp fusion, mlir::StringRef name,
                            unsigned numOutputs, bool scratch,
                            bool scratchReadOnly, unsigned blockSize);

/// Loop-carried values (reduction accumulators) are threaded through.
using StepBody =
    mlir::function_ref<mlir::FailureOr<mlir::SmallVector<mlir::Value>>(
        RegionEmitter &, codegen::Index, mlir::ValueRange carried)>;

struct StridedLoop {
  mlir::SmallVector<mlir::Value> vectorResults, scalarResults;
};

/// Positions [lo, lo + length) shared among `threads` threads, this one
/// being `thread`: a loop of W-wide steps over the W-aligned part (when
/// `vectorize`), each thread taking every `threads`-th step, then a scalar
/// loop over the rest. `aligned`: lo is a multiple of W.
mlir::FailureOr<StridedLoop> emitStridedLoop(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, int64_t length,
    mlir::Value thread, mlir::Value threads, bool vectorize, bool aligned,
    int64_t block, const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
    const mlir::DenseMap<mlir::Value, mlir::Value> &seeds,
    mlir::ValueRange vectorInit, mlir::ValueRange scalarInit, StepBody body);

/// As above, over [lo, lo + lengthValue): `length` is its value at the
/// representative values of the fusion's dims where `lengthValue` reads
/// them (extentValue), else the constant `lengthValue` is.
mlir::FailureOr<StridedLoop> emitStridedLoop(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, int64_t length,
    mlir::Value lengthValue, mlir::Value thread, mlir::Value threads,
    bool vectorize, bool aligned, int64_t block,
    const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
    const mlir::DenseMap<mlir::Value, mlir::Value> &seeds,
    mlir::ValueRange vectorInit, mlir::ValueRange scalarInit, StepBody body);

/// `extent` (a kernel's elements or rows) of `fusion` at the representative
/// values of its dims: in a fusion emitted for runtime dims, a constant
/// times the dims it is a product of, read from `func`'s dims parameters
/// (codegen::runtimeSize); else the constant.
mlir::Value extentValue(mlir::OpBuilder &b, mlir::Location loc,
                        fd::FusionOp fusion, mlir::gpu::GPUFuncOp func,
                        int64_t extent);

/// The blocks of a launch over `iterations` items, `perBlock` a block, at
/// most `maxBlocks`, set in `launch`: in a fusion emitted for runtime dims
/// the most blocks, with `perBlock` as the launch's grain, from which
/// bindBundle computes the grid of the bound iterations (KernelAbi.h,
/// gpuGridBlocks).
void setGrid(LaunchConfig &launch, fd::FusionOp fusion, int64_t iterations,
             int64_t perBlock, uint32_t maxBlocks);

mlir::gpu::AllReduceOperation allReduceKind(mlir::vector::CombiningKind kind);

/// The thread's vector and scalar accumulators combined, then combined
/// across the block (warp shuffles, then shared memory between warps).
mlir::Value reduceBlock(mlir::OpBuilder &b, mlir::Location loc,
                        const codegen::ReductionInfo &r, mlir::Value vectorAcc,
                        mlir::Value scalarAcc);

/// As reduceBlock, across one warp only (shuffles, no shared memory, no
/// barrier): `gpu.subgroup_reduce`, which GpuCompiler lowers to shuffles
/// before NVVM. 32-bit accumulators only.
mlir::Value reduceWarp(mlir::OpBuilder &b, mlir::Location loc,
                       const codegen::ReductionInfo &r, mlir::Value vectorAcc,
                       mlir::Value scalarAcc);

/// Runs `body` where `condition` holds.
void onlyIf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value condition,
            mlir::function_ref<void(mlir::OpBuilder &)> body);

/// Runs `body` on thread 0 of the block only.
void onFirstThread(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::function_ref<void(mlir::OpBuilder &)> body);

mlir::Value scratchAddress(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value scratch, mlir::Type element,
                           mlir::Value slot);

/// A block's static shared memory: a global `name` of `type` (16-byte
/// aligned) in the kernel's module, and its address at the start of `func`.
mlir::Value sharedBuffer(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Operation *func, mlir::StringRef name,
                         mlir::Type type);

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Pointwise kernels, and matmul kernels in the same form: every output
/// element (4 per step) pulls its value (a matmul's dot product included)
/// through the index maps, with a matmul's prologue applied on load.
mlir::FailureOr<FusionKernels> emitPointwise(fd::FusionOp fusion,
                                             mlir::ModuleOp module,
                                             mlir::StringRef prefix,
                                             ScheduleKind schedule);

/// Matmul fusions (GpuMatmulEmitter.cpp).
mlir::FailureOr<FusionKernels>
emitMatmul(fd::FusionOp fusion, mlir::ModuleOp module, mlir::StringRef prefix);

/// Attention fusions (GpuAttentionEmitter.cpp).
mlir::FailureOr<FusionKernels> emitAttention(fd::FusionOp fusion,
                                             mlir::ModuleOp module,
                                             mlir::StringRef prefix);

/// Scatter fusions (GpuScatterEmitter.cpp).
mlir::FailureOr<FusionKernels>
emitScatter(fd::FusionOp fusion, mlir::ModuleOp module, mlir::StringRef prefix);

} // namespace fuse::ptx

#endif // FUSE_COMPILER_GPUREGIONEMITTER_H
