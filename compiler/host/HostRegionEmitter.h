//===- HostRegionEmitter.h - Region values of a fusion at an index -*- C++
//-*-===//
//
// The pieces every host schedule shares (HostKernelEmitter.cpp for pointwise
// and reductions, HostMatmulEmitter.cpp, HostColumnReductionEmitter.cpp):
// the region emitter of RegionEmitter.h over generic pointers, with what
// only the host has: the float ops it lowers
// itself (f64 exp and log, atan, sinh and cosh, the inverse hyperbolics and
// pow as polynomials or identities) so that a kernel calls no libm but fmod
// and the f64 functions without a polynomial of ours (tanh, erf, sin, ...);
// plus the kernel function, its peeled vector loops and reductions.
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOSTREGIONEMITTER_H
#define FUSE_COMPILER_HOSTREGIONEMITTER_H

#include "compiler/common/FusionFrontEnd.h"
#include "compiler/common/ReductionLowering.h"
#include "compiler/common/RegionEmitter.h"
#include "dialect/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <limits>

namespace fuse {
namespace host {

namespace fd = mlir::fuse;

/// Emits region values at an index, with one vector width (1: scalars).
class RegionEmitter : public codegen::TargetRegionEmitter<RegionEmitter> {
public:
  using TargetRegionEmitter::TargetRegionEmitter;
  static constexpr const char *kTarget = "host";
  static constexpr unsigned kAddressSpace = 0;

private:
  bool maskedVectorLoads() const override { return true; }

  friend TargetRegionEmitter;

  /// fuse.rem's arith.remf (the shared lowerFloatRem) becomes a call of
  /// libm's fmod or fmodf per lane. fmod is exact in IEEE arithmetic, and
  /// a - trunc(a/b) b is not once the quotient passes 2^24 (f32) or 2^53
  /// (f64); an exact algorithm of our own would loop over the exponent
  /// difference (up to 2000 steps per lane). So the kernel's shared object
  /// leaves fmod and fmodf undefined and dlopen (RTLD_NOW) binds them to the
  /// libm.so.6 that every program linking the runtime has loaded (libstdc++
  /// needs it); a process without them gets dlopen's "undefined symbol"
  /// error from HostRuntime, not a crash. The other float ops that are the
  /// host's: polynomials and identities (on f32; f64 functions without a
  /// polynomial of ours call libm).
  mlir::Value lowerTargetFloatOp(mlir::Operation *op, mlir::StringRef name,
                                 mlir::ArrayRef<mlir::Value> x,
                                 mlir::Type compute) override;

  /// math.absi; integer pow by squaring.
  mlir::Value lowerTargetIntegerOp(mlir::Operation *op, mlir::StringRef name,
                                   mlir::ArrayRef<mlir::Value> x,
                                   mlir::Type operandElement) override;

  /// (e^x -+ e^-x) / 2; sinh near 0 by its series (no cancellation).
  mlir::Value emitSinhCosh(mlir::Value x, mlir::Type compute, bool isSinh);

  /// Through log1p, accurate near 0 (asinh, atanh) and near 1 (acosh);
  /// log(a) + log(2) where a^2 would overflow.
  mlir::Value emitInverseHyperbolic(mlir::StringRef name, mlir::Value x,
                                    mlir::Type compute);

  /// exp(y log|x|), with the sign of an odd integer power of a negative x,
  /// NaN for a negative x to a non-integer power, x^0 = 1^y = 1 and 0^y
  /// exact, as C's pow.
  mlir::Value emitPowF(mlir::Value x, mlir::Value y, mlir::Type compute);

  /// math.exp, or emitExpF64 on f64 (MLIR's approximations are f32 only).
  mlir::Value emitExp(mlir::Value x);

  /// math.log, or emitLogF64 on f64.
  mlir::Value emitLog(mlir::Value x);

  /// An i64 constant of this emitter's width.
  mlir::Value i64Splat(int64_t value);

  /// 2^e for e in [-1022, 1023], from its bits.
  mlir::Value powerOfTwoF64(mlir::Value e);

  /// exp on f64 in plain vector arithmetic, so that the kernel calls no
  /// libm: x = n ln2 + r with n = round(x / ln2) and ln2 in two parts (the
  /// high part has 21 trailing zero bits, so n * ln2hi is exact), |r| <=
  /// ln2 / 2; e^r by its Taylor polynomial of degree 13 (the next term is
  /// below 5e-18); the scale 2^n in two factors 2^(n/2) 2^(n - n/2), each a
  /// normal number, so that the only rounding is the last product's:
  /// overflow to inf and gradual underflow to 0 come out as IEEE rounds
  /// them. x is clamped to [-746, 710] first (beyond which the result is 0
  /// or inf anyway) and NaN passes through. Within 2 ulp of the exact
  /// result where it is normal (HostMathTest measures it).
  mlir::Value emitExpF64(mlir::Value x);

  /// log on f64 in plain vector arithmetic: x = 2^k m with m in
  /// [sqrt(1/2), sqrt(2)) from the bits (subnormals scaled by 2^54 first);
  /// log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.172, by its
  /// series 2s (1 + s^2/3 + ... + s^20/21) (the next term is below 1e-18);
  /// k ln2 with ln2 in two parts. log(0) = -inf, log of a negative number
  /// NaN, log(inf) = inf, NaN passes through.
  mlir::Value emitLogF64(mlir::Value x);

  /// atan as Cephes' atanf: |x| reduced below tan(pi/8) through
  /// atan(x) = pi/4 + atan((x - 1) / (x + 1)) and pi/2 + atan(-1/x), then
  /// an odd polynomial of degree 9 (peak relative error 1.9e-7 in f32).
  /// MLIR's math.atan approximation measured 3.9e-6 (33 ulp), outside the
  /// transcendental tolerance of 8 ulp. atan(+-inf) = +-pi/2; NaN passes.
  mlir::Value emitAtan(mlir::Value x, mlir::Type compute);
};

/// `void name(!llvm.ptr buffers, i64 begin, i64 end)` with an entry block;
/// the builder is left at its start.
mlir::func::FuncOp createKernelFunc(mlir::OpBuilder &b, mlir::ModuleOp module,
                                    mlir::Location loc, mlir::StringRef name);

mlir::Value bufferPointer(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value buffers, int32_t i);

mlir::Value i64Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// A vector<width x i64> of position + min(lane, valid - 1) * step for each
/// lane (valid 0: all lanes, position + lane * step): the element indices of
/// a gather whose lanes from `valid` on repeat lane valid - 1's element.
mlir::Value clampedLanes(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value position, unsigned width, unsigned valid,
                         int64_t step);

/// [lo, hi) split into a W-step vector loop and a scalar tail; `body` runs at
/// each step with an emitter of the step's width and the step's index.
/// Loop-carried values (reduction accumulators) are threaded through.
/// With `unroll` > 1 the vector loop first steps by unroll * W, running
/// `body` at each of the unroll sub-steps with its own copy of the carried
/// values (independent accumulator chains, so that a reduction does not
/// serialize on the latency of one add), then a W-step loop finishes with
/// the first copy; vectorResults then holds unroll copies of vectorInit's
/// values, copy k at [k * n, (k + 1) * n), for the caller to combine.
/// Without `scalarTail` there is no scalar loop (scalarResults is then
/// scalarInit): for a caller whose [lo, hi) is always whole vectors.
using StepBody =
    mlir::function_ref<mlir::FailureOr<mlir::SmallVector<mlir::Value>>(
        RegionEmitter &, codegen::Index, mlir::ValueRange carried)>;

/// More work at the end of an iteration of the vector loops, after its
/// `steps` sub-steps, the first at `first` (the others a width apart).
using StepsDone = mlir::function_ref<mlir::LogicalResult(
    mlir::OpBuilder &, codegen::Index first, unsigned steps)>;

struct PeeledLoop {
  mlir::SmallVector<mlir::Value> vectorResults, scalarResults;
};

/// `stepsDone`, where given, runs at the end of each iteration of the vector
/// loops (not of the scalar tail).
mlir::FailureOr<PeeledLoop>
emitPeeledLoop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo,
               mlir::Value hi, unsigned width, int64_t block,
               const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
               const mlir::DenseMap<mlir::Value, mlir::Value> &seeds,
               mlir::ValueRange vectorInit, mlir::ValueRange scalarInit,
               StepBody body, unsigned unroll = 1, bool scalarTail = true,
               StepsDone stepsDone = {});

/// The pointers of the fusion's inputs (its region's arguments), and of
/// each checked op's slot in the error record at `buffers[-1]`
/// (KernelAbi.h), by the op's result.
mlir::DenseMap<mlir::Value, mlir::Value> loadInputPointers(mlir::OpBuilder &b,
                                                           mlir::Location loc,
                                                           fd::FusionOp fusion,
                                                           mlir::Value buffers);

/// A kernel function of `fusion` being built: createKernelFunc's function,
/// the pointers of loadInputPointers and of its first outputs (the buffers
/// after the inputs), loaded in that order; the builder is left after them.
struct HostKernel {
  mlir::func::FuncOp func;
  mlir::Value buffers;
  mlir::DenseMap<mlir::Value, mlir::Value> pointers;
  mlir::SmallVector<mlir::Value> outputs;

  /// The range of iterations a call runs.
  mlir::Value begin() { return func.getArgument(1); }
  mlir::Value end() { return func.getArgument(2); }
};

HostKernel openKernel(mlir::OpBuilder &b, mlir::ModuleOp module,
                      mlir::Location loc, mlir::StringRef name,
                      fd::FusionOp fusion, unsigned numOutputs);

/// Which reductions of a row kernel keep their operand in a buffer on the
/// stack: an operand that the stores of `storedValues` use again (softmax's
/// exponentials) is kept by its pass and read back from cache, not computed
/// twice (rows up to 64 KiB).
mlir::SmallVector<bool>
rowStashes(mlir::ArrayRef<codegen::ReductionInfo> reductions,
           mlir::ArrayRef<mlir::Value> storedValues, int64_t rowLength);

/// The buffers of rowStashes's reductions (null for the others), `copies`
/// rows each, one after another.
mlir::SmallVector<mlir::Value>
allocateRowStashes(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::ArrayRef<codegen::ReductionInfo> reductions,
                   mlir::ArrayRef<mlir::Value> storedValues, int64_t rowLength,
                   unsigned copies = 1);

/// A row of a row kernel: its index among the rows and its first position
/// (row times the row's length; null: none).
struct RowSplit {
  mlir::Value row, start;
};

/// `index`, a position in `split`'s row of `rowLength` elements (its
/// runtime length where rowLength is a runtime dim's representative value),
/// split into the row and the position in it (Index::split): each map on
/// the way to a load then takes its row's terms, quotients by runtime sizes
/// included, from the row alone, once per row, not per vector. `index`
/// itself where the split has no row.
codegen::Index splitAtRow(mlir::OpBuilder &b, mlir::Location loc,
                          codegen::Index index, RowSplit split,
                          int64_t rowLength);

/// A `prefetchPass` of emitRowPasses: its second pass prefetches the first
/// half of the next row, and the caller's store pass the second half.
inline constexpr unsigned kSharedPrefetchPass = ~1u;

/// The passes of a row kernel over the row [lo, hi) of `rowLength`
/// elements: each reduction in order, its finished value then seeded in
/// `seeds`. Every pass stashes the values of `written` (value, its row
/// buffer at -lo), to which a pass adds its operand where `stashBuffers`
/// has a buffer for it. Pass `prefetchPass` (the second by default)
/// prefetches the next row of the inputs `prefetched` (pointer, element type
/// in memory), which the kernel reads at the row's positions. The last pass
/// runs `lastPassSteps` (where given) at the end of each of its vector
/// iterations (emitPeeledLoop's stepsDone: a row kernel's stores of the row
/// before, emitPipelinedRows).
mlir::LogicalResult emitRowPasses(
    mlir::OpBuilder &b, mlir::Location loc, unsigned width, int64_t rowLength,
    mlir::Value lo, mlir::Value hi,
    const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
    mlir::ArrayRef<codegen::ReductionInfo> reductions,
    mlir::ArrayRef<mlir::Value> stashBuffers,
    mlir::DenseMap<mlir::Value, mlir::Value> &seeds,
    mlir::SmallVectorImpl<std::pair<mlir::Value, mlir::Value>> &written,
    mlir::ArrayRef<std::pair<mlir::Value, mlir::Type>> prefetched = {},
    unsigned prefetchPass = 1, RowSplit split = {},
    StepsDone lastPassSteps = {});

/// The pointers (with their element types in memory) of the fusion's
/// inputs that a kernel reads at the positions of its domain (a row kernel:
/// at the row's own positions): as many elements as the domain, and used by
/// elementwise ops and reductions only (no broadcast, transpose or slice,
/// which read elsewhere).
mlir::SmallVector<std::pair<mlir::Value, mlir::Type>>
domainAlignedInputs(fd::FusionOp fusion,
                    const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
                    int64_t domain);

/// A prefetch (into L2, for reading) of element `position` of `pointer`'s
/// `element`s.
void prefetchElement(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value pointer, mlir::Type element,
                     mlir::Value position);

/// At a vector step, a prefetch (into L2) of the line `distance` elements on
/// in each of `inputs`. A row kernel's passes after the first read the row
/// from cache and compute, and prefetch the next row (`distance`: the row's
/// length): without it, the memory waits while they do. A pointwise kernel
/// over tensors far larger than the caches prefetches kPointwisePrefetch
/// elements ahead (this machine's hardware prefetchers alone left GELU at
/// 62% of the triad, 86% with it). A blocked column reduction prefetches
/// each of its rows kColumnPrefetch elements ahead.
void prefetchAhead(RegionEmitter &e, codegen::Index index,
                   mlir::ArrayRef<std::pair<mlir::Value, mlir::Type>> inputs,
                   int64_t distance);

/// Floats and integers (fuse.reduce takes no i1).
mlir::FailureOr<codegen::ReductionInfo>
classifyReduction(fd::ReduceOp reduce, mlir::StringRef schedule);

} // namespace host
} // namespace fuse

#endif // FUSE_COMPILER_HOSTREGIONEMITTER_H
