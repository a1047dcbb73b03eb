//===- Numerics.h - The numerics policy: tolerances and compare -*- C++ -*-===//
//
// How close a back end's result must be to the reference interpreter's, in
// one place: every numerics test and `fuse-run --check` use these
// tolerances, so a back end passes or fails by one rule.
//
// An element passes when |actual - expected| <= atol + rtol * |expected|;
// NaN matches NaN, an infinity matches the same infinity, integers and
// exact classes must match bit for bit (after reading: -0 == +0).
//
// Classes of ops and why their tolerance is what it is (eps is the machine
// epsilon of the result's element type: 2^-52 f64, 2^-23 f32, 2^-10 f16,
// 2^-7 bf16; tiny is its smallest normal):
//   Exact: integer results, shape ops, compare, select, cast, constant,
//     neg/abs/sign/floor/ceil/round, max/min, isinf/isnan, argmax/argmin,
//     reduce max/min. Every back end can get these exactly, so it must.
//   Elementwise (add, sub, mul, div, reciprocal, sqrt, rem): rtol 2 eps, atol
//     tiny. The reference rounds once from the exact value; a back end that
//     computes f16/bf16 in f32 rounds twice (one more ulp), and flushing
//     subnormals to zero costs up to `tiny`.
//   Transcendental (exp, log, rsqrt, tanh, sigmoid, erf, trigonometric and
//     hyperbolic functions, pow): rtol 8 eps, atol 8 eps. Fast hardware
//     approximations are within a few ulp; the absolute part covers results
//     near a zero of the function (sin(pi)) for inputs of order 1.
//   Reduction (sum, prod, mean over n elements; a mean pool over its window
//     of n positions; a max pool is Exact) and Matmul (over K): rtol
//     2 eps (1 + sqrt(n)), atol eps * n. Rounding errors of an n-term sum
//     grow like sqrt(n) for random data (n in the worst case, which the
//     absolute part bounds for inputs of order 1, as the numerics tests
//     draw them).
// A graph's output gets the sum of the tolerances of the ops it depends on
// (first-order error propagation through a fused chain). The absolute part
// is in units of the output's scale (toleranceForOutput): its largest finite
// magnitude in the reference's result, when that is above 1. Absolute errors
// of sums and matmuls grow with the magnitude of their terms, and a matmul
// chain (an MLP block: outputs of order 50) carries that magnitude into every
// element, those near zero by cancellation included; an `eps * n` fixed for
// terms of order 1 failed correct results on 3 seeds of 10. One more term: a
// cast to a float type of fewer fraction bits (f32 -> f16, f64 -> f32, any
// float -> f8) of a value that is itself inexact adds one ulp of its result
// (rtol eps, atol eps * tiny): an error far below the result's ulp can still
// carry the value across a rounding boundary of the narrow type.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_NUMERICS_H
#define FUSE_RUNTIME_IR_NUMERICS_H

#include "runtime/ir/Graph.h"
#include "runtime/ir/Interpreter.h"

#include <cstdint>
#include <string>

namespace fuse {

enum class NumericClass : std::uint8_t {
  Exact,
  Elementwise,
  Transcendental,
  Reduction,
  Matmul
};

/// The class of an op whose result is a float; ops with an integer result
/// are always Exact (see tolerance()).
NumericClass numericClass(const Op &op);

struct Tolerance {
  double rtol = 0;
  double atol = 0;

  bool isExact() const { return rtol == 0 && atol == 0; }
  Tolerance operator+(const Tolerance &other) const {
    return {rtol + other.rtol, atol + other.atol};
  }
  bool operator==(const Tolerance &) const = default;
};

/// The machine epsilon of a float type: the gap between 1 and the next
/// value. 0 for integers.
double machineEpsilon(ElementType type);

/// `length` is the number of reduced elements (Reduction) or K (Matmul);
/// other classes ignore it. Integer types are always exact.
Tolerance tolerance(NumericClass numericClass, ElementType type,
                    std::int64_t length = 1);

/// The tolerance of one op of a valid graph, at its result's element type.
Tolerance toleranceFor(const Graph &graph, const Op &op);

/// The tolerance of a tensor of a valid graph: the sum over every op it
/// depends on (each op counted once).
Tolerance toleranceForTensor(const Graph &graph, TensorId tensor);

/// The tolerance of a graph output whose reference values are `expected`:
/// toleranceForTensor with the absolute part multiplied by the output's
/// scale (its largest finite magnitude, at least 1). What every comparison
/// of a back end's output with the reference's uses.
///
/// With `bf16Matmuls` (a run compiled with CompileOptions::matmulPrecision
/// bf16), each matmul on the output's path whose B is a graph input (a
/// weight, the matmuls computed in bf16) adds kBf16MatmulTolerance to both
/// parts. Its inputs rounded to bf16 (8 significant bits, unit roundoff
/// u = 2^-8), each product is off by at most 2u = 2^-7 relative; over K
/// products of random signs the error is about 2^-7 sqrt(K) |a||b| / sqrt(3),
/// about 2^-7 of C's typical magnitude, which is at most its largest: 2^-5
/// (4x) in units of the output's scale, per matmul (first-order propagation
/// through a chain, as for the other classes).
Tolerance toleranceForOutput(const Graph &graph, TensorId tensor,
                             const HostTensor &expected,
                             bool bf16Matmuls = false);

/// Per bf16 matmul on an output's path (toleranceForOutput).
inline constexpr double kBf16MatmulTolerance = 1.0 / 32;

/// The matmuls on `tensor`'s path whose B (operand 1) is a graph input.
std::int64_t weightMatmulsOnPath(const Graph &graph, TensorId tensor);

struct Comparison {
  bool ok = true;
  std::int64_t mismatches = 0;
  /// Over elements where both values are finite.
  double maxAbsError = 0;
  /// Over elements where both are finite and the expected value is nonzero.
  double maxRelError = 0;
  /// -1 when every element passes.
  std::int64_t firstMismatch = -1;
  double expectedAtFirstMismatch = 0;
  double actualAtFirstMismatch = 0;
  /// Empty when ok; otherwise names the first mismatch and the error.
  std::string message;
};

/// Compares `count` elements of `type` stored at `expected` and `actual`.
Comparison compare(const void *expected, const void *actual, ElementType type,
                   std::int64_t count, Tolerance tolerance);
/// As above; tensors of different types are a mismatch with a message.
Comparison compare(const HostTensor &expected, const HostTensor &actual,
                   Tolerance tolerance);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_NUMERICS_H
