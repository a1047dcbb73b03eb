//===- GpuKernelEmitter.h - fuse.fusion -> GPU kernels ----------*- C++ -*-===//
//
// Builds the GPU kernels of one `fuse.fusion` as `gpu.func`s, each in a
// `gpu.module` of its own, in upstream dialects (scf, arith, math, vector,
// gpu, llvm for memory access) with the GPU kernel ABI of
// runtime/device/KernelAbi.h: bare global pointers in binding order, inputs
// marked noalias and readonly (so reads become `ld.global.nc`).
//
// - pointwise: a grid-stride loop of 4 elements per step with 128-bit
//   accesses where the operand is contiguous and 16-byte aligned, then a
//   scalar tail;
// - full reduction: a partials kernel (a fixed number of blocks, each
//   reducing its grid-stride share with warp shuffles and shared memory into
//   one slot of scratch) and a one-block finishing kernel that combines the
//   slots in order: the result never depends on the device;
// - row reduction (softmax, layernorm): one block per long row (shuffles
//   and shared memory), one warp per short row (8 per block, shuffles
//   alone), a pass over the row per reduction, then the stores;
// - column reduction: one thread per 4 adjacent columns (coalesced rows),
//   a pass down the rows per reduction, then the stores;
// - matmul: a shared-memory tiled kernel (64 x 64 outputs per block, a
//   4 x 4 register tile per thread) with the prologue applied on load and
//   the epilogue before the store (at moved positions after a head split or
//   merge); f64, several matmuls or a broadcast result take the pointwise
//   form, each output pulling its dot product through the index maps;
// - attention (GpuAttentionEmitter.cpp): one block per batch element and
//   block of query rows, its rows of scores in shared memory (a warp per
//   row runs the softmax's passes), then P V.
// Broadcasts, transposes, slices and reshapes are index maps on the loads,
// never materialized.
//
// Kernels assume 16-byte aligned bindings that never overlap (runtime
// allocations and arena slices are).
//
// It must never produce a wrong kernel silently: an op or a schedule it
// cannot generate is an error at the op's location that names both.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_GPUKERNELEMITTER_H
#define FUSE_COMPILER_GPUKERNELEMITTER_H

#include "compiler/common/KernelEmitterDecls.h"

namespace fuse {

/// Elements per thread and step of the vector loops: 128 bits of f32.
inline constexpr unsigned kGpuVectorWidth = 4;
/// Threads per block of pointwise and reduction kernels.
inline constexpr unsigned kGpuBlockSize = 256;

/// Appends one `gpu.module` per kernel of `fusion` to `module` (which must
/// carry `gpu.container_module`), names starting with `namePrefix`. Fails
/// with an error at the offending op.
mlir::FailureOr<FusionKernels> emitGpuKernels(mlir::fuse::FusionOp fusion,
                                              mlir::ModuleOp module,
                                              llvm::StringRef namePrefix);

} // namespace fuse

#endif // FUSE_COMPILER_GPUKERNELEMITTER_H
