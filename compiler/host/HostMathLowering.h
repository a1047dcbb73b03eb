//===- HostMathLowering.h - The host's own lowering of math ops -*- C++ -*-===//
//
// Math ops that the host lowers itself, before MLIR's polynomial
// approximations would: f32 exp as a range reduction, a degree-5 polynomial
// and a scale by 2^n, which on AVX-512 is one vscalefps (12 vector
// instructions where MLIR's approximation took 24, within 2 ulp of the exact
// result where MLIR's was within 1, and gradual underflow where MLIR's
// stopped at 7e-39).
//
// Internal to compiler/host: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOSTMATHLOWERING_H
#define FUSE_COMPILER_HOSTMATHLOWERING_H

#include "mlir/IR/PatternMatch.h"

namespace fuse {

/// A unit attribute on a math.exp whose argument is at most 0 or NaN
/// (softmax's x - max(x), which the host region emitter recognizes): its
/// lowering leaves out the clamp from above.
inline constexpr char kExpOfNonPositive[] = "fuse.exp_of_nonpositive";

/// Adds the patterns, at `benefit` (above the MLIR approximations' 1, so
/// that they win where both apply); `avx512` for a target that has it.
void populateHostMathPatterns(mlir::RewritePatternSet &patterns, bool avx512,
                              mlir::PatternBenefit benefit);

} // namespace fuse

#endif // FUSE_COMPILER_HOSTMATHLOWERING_H
