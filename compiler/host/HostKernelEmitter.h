//===- HostKernelEmitter.h - fuse.fusion -> host kernel functions -*- C++
//-*-===//
//
// Builds the host kernels of one `fuse.fusion` as `func.func`s in upstream
// dialects (scf, arith, math, vector, llvm for memory access) with the kernel
// ABI of runtime/device/KernelAbi.h: `void k(void **buffers, i64 begin, i64
// end)`. A pointwise fusion is one kernel over the flattened result; a full
// reduction is a partials kernel (one fixed-size chunk per iteration, so the
// result never depends on the thread count) and a one-iteration finishing
// kernel; a row reduction (softmax, layernorm) is one kernel with one row per
// iteration; a column reduction (and any argmax or argmin) one kernel with a
// block of columns per iteration, or, one reduction over 512 rows or more, a
// kernel of partial rows (one band of rows per iteration) and one that
// combines them; a matmul one kernel with a block of output
// rows per iteration, its prologue applied on load and its epilogue before the
// store. Broadcasts, transposes, slices and reshapes inside a region are index
// maps on the loads, never materialized.
//
// It must never produce a wrong kernel silently: an op or a schedule it
// cannot generate is an error at the op's location that names both.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOSTKERNELEMITTER_H
#define FUSE_COMPILER_HOSTKERNELEMITTER_H

#include "compiler/common/KernelEmitterDecls.h"

namespace fuse {

/// Whether a host target has AVX-512 (x86-64-v4: F, VL, DQ, BW).
bool hostHasAvx512(const Target &target);

/// Vector lanes of f32 arithmetic for a host target: 8 for x86-64-v3 (AVX2),
/// 16 for x86-64-v4 (AVX-512). The kernel emitters take it as given: a row
/// kernel of 16 lanes may use AVX-512 instructions.
unsigned hostVectorWidth(const Target &target);

/// An emitter of host kernels: appends the kernels of `fusion` to `module`,
/// their names starting with `namePrefix`, or fails with an error at the
/// offending op.
using HostKernelsEmitter = mlir::FailureOr<FusionKernels>(
    mlir::fuse::FusionOp fusion, mlir::ModuleOp module,
    llvm::StringRef namePrefix, unsigned vectorWidth);

/// Any fusion, by its schedule.
HostKernelsEmitter emitHostKernels;

/// The schedules in files of their own (HostMatmulEmitter.cpp,
/// HostColumnReductionEmitter.cpp, HostScatterEmitter.cpp,
/// HostAttentionEmitter.cpp; HostHorizontalEmitter.cpp: a horizontal
/// fusion's members' kernels, called from one launch function per kernel
/// position), called by emitHostKernels.
HostKernelsEmitter emitHostMatmul, emitHostColumnReduction, emitHostScatter,
    emitHostHorizontal, emitHostAttention;

} // namespace fuse

#endif // FUSE_COMPILER_HOSTKERNELEMITTER_H
