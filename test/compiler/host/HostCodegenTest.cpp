// Host code generation end to end (pointwise and reductions): graphs
// compiled by HostCompiler, run by the HostRuntime through runBundle on fresh
// random inputs (never zeros), compared with the reference interpreter under
// the numerics policy.

#include "test/compiler/host/HostCodegenTest.h"

#include "runtime/cache/ArenaPlanner.h"

#include <cstring>

namespace fuse {
namespace {

/// The row/column shapes every pointwise test runs: sizes not multiples of
/// the vector width, a single element, and a long row.
const std::vector<std::vector<int64_t>> kShapes = {
    {1, 1}, {1, 7}, {3, 1000}, {1, 4097}, {33, 64}, {5, 17}};

Graph gelu(const std::vector<int64_t> &shape, ElementType type) {
  GraphBuilder b;
  TensorType xType{type, shape};
  TensorId x = b.input(xType, "x");
  TensorId bias = b.input({type, {shape.back()}}, "bias");
  TensorId y = b.add(x, b.broadcast(bias, shape, {1}));
  auto c = [&](double v) { return b.splat(xType, v); };
  TensorId inner = b.mul(c(0.7978845608028654),
                         b.add(y, b.mul(c(0.044715), b.mul(y, b.mul(y, y)))));
  TensorId out = b.mul(b.mul(c(0.5), y), b.add(c(1.0), b.tanh(inner)));
  b.output(out, "gelu");
  return *b.finish();
}

TEST_F(HostCodegen, GeluTanhWithBiasBroadcast) {
  for (const auto &shape : kShapes)
    check(gelu(shape, ElementType::F32), {{-4, 4}, {-1, 1}});
}

TEST_F(HostCodegen, MulAddWithBroadcastRowAndColumn) {
  for (const auto &shape : kShapes) {
    GraphBuilder b;
    TensorId a = b.input({ElementType::F32, shape}, "a");
    TensorId m = b.input({ElementType::F32, shape}, "m");
    TensorId row = b.input({ElementType::F32, {shape[1]}}, "row");
    TensorId col = b.input({ElementType::F32, {shape[0], 1}}, "col");
    TensorId y = b.add(b.mul(a, m), b.broadcast(row, shape, {1}));
    TensorId z = b.sub(y, b.broadcast(col, shape, {0, 1}));
    b.output(y, "y");
    b.output(z, "z");
    check(*b.finish());
  }
}

TEST_F(HostCodegen, TransposedOperandIsGathered) {
  GraphBuilder b;
  TensorId a = b.input({ElementType::F32, {13, 9}}, "a");
  TensorId t = b.input({ElementType::F32, {9, 13}}, "t");
  b.output(b.add(a, b.transpose(t, {1, 0})), "y");
  check(*b.finish());
}

TEST_F(HostCodegen, TranscendentalChains) {
  for (int64_t n : {1, 7, 1000, 4097}) {
    GraphBuilder b;
    TensorType type{ElementType::F32, {n}};
    TensorId x = b.input(type, "x");
    TensorId p = b.input(type, "positive");
    b.output(b.exp(x), "exp");
    b.output(b.log(p), "log");
    b.output(b.unary(OpKind::Erf, x), "erf");
    b.output(b.unary(OpKind::Sigmoid, b.exp(x)), "sigmoid_exp");
    b.output(b.tanh(b.log(p)), "tanh_log");
    b.output(b.unary(OpKind::Rsqrt, p), "rsqrt");
    b.output(b.div(b.sqrt(p), x), "sqrt_div");
    b.output(b.max(x, b.neg(x)), "max");
    check(*b.finish(), {{-4, 4}, {0.01, 50}});
  }
}

TEST_F(HostCodegen, F16Inputs) {
  for (const auto &shape : kShapes)
    check(gelu(shape, ElementType::F16), {{-4, 4}, {-1, 1}});
  GraphBuilder b;
  TensorId x = b.input({ElementType::F16, {1001}}, "x");
  TensorId y = b.input({ElementType::BF16, {1001}}, "y");
  TensorId sum =
      b.add(b.cast(x, ElementType::F32), b.cast(y, ElementType::F32));
  b.output(b.exp(sum), "exp");
  b.output(b.cast(sum, ElementType::BF16), "bf16");
  check(*b.finish());
}

/// Float to integer truncates toward zero and saturates; NaN gives 0.
TEST_F(HostCodegen, SaturatingFloatToIntegerCasts) {
  for (int64_t n : {7, 1000}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {n}}, "x");
    TensorId h = b.input({ElementType::F16, {n}}, "h");
    TensorId huge = b.mul(x, b.splat({ElementType::F32, {n}}, 1e10));
    b.output(b.cast(x, ElementType::I8), "i8");
    b.output(b.cast(huge, ElementType::I32), "i32");
    b.output(b.cast(huge, ElementType::I64), "i64");
    b.output(b.cast(b.mul(huge, huge), ElementType::I64), "i64_huge");
    b.output(b.cast(b.sqrt(x), ElementType::I32), "nan_is_zero");
    b.output(b.cast(h, ElementType::I8), "f16_to_i8");
    check(*b.finish(), {{-300, 300}, {-300, 300}});
  }
}

/// Float powers: positive bases, negative bases to integer powers (signed),
/// negative bases to other powers (NaN); |y log x| < 7 keeps exp(y log x)
/// within the transcendental tolerance.
TEST_F(HostCodegen, FloatPower) {
  GraphBuilder b;
  TensorType type{ElementType::F32, {1001}};
  TensorId positive = b.input(type, "positive");
  TensorId negative = b.input(type, "negative");
  TensorId y = b.input(type, "y");
  b.output(b.pow(positive, y), "positive_base");
  b.output(b.pow(negative, b.unary(OpKind::Floor, y)), "integer_powers");
  b.output(b.pow(negative, y), "nan");
  check(*b.finish(), {{0.1, 4}, {-4, -0.1}, {-3, 3}});
}

/// Integer remainders (floor-mod, fmod, unsigned; by 0 and -1) and powers
/// (wrapping, negative exponents) on every integer width.
TEST_F(HostCodegen, IntegerRemainderAndPower) {
  for (ElementType type :
       {ElementType::I8, ElementType::I32, ElementType::I64}) {
    GraphBuilder b;
    TensorType t{type, {1001}};
    TensorId x = b.input(t, "x");
    TensorId y = b.input(t, "y");
    TensorId e = b.input(t, "exponent");
    b.output(b.rem(x, y), "floor_mod");
    b.output(b.rem(x, y, /*fmod=*/true), "fmod");
    b.output(b.rem(x, y, false, /*isUnsigned=*/true), "unsigned");
    b.output(b.binary(OpKind::Pow, y, e), "pow");
    check(*b.finish(), {{-100, 100}, {-4, 4}, {-3, 40}});
  }
}

/// Concatenation inside a kernel along the first, a middle and the last
/// axis, with sizes that split vectors between operands (gathers) and sizes
/// that keep whole vectors in one operand.
TEST_F(HostCodegen, Concat) {
  for (auto [axis, last] : {std::pair<int64_t, int64_t>{0, 33},
                            {1, 33},
                            {2, 33},
                            {0, 32},
                            {1, 64}}) {
    SCOPED_TRACE("axis " + std::to_string(axis) + " last dim " +
                 std::to_string(last));
    GraphBuilder b;
    std::vector<int64_t> shapeA = {3, 5, last}, shapeB = {3, 5, last},
                         shapeC = {3, 5, last};
    shapeA[axis] = 2;
    shapeB[axis] = 7;
    shapeC[axis] = 1;
    TensorId x = b.input({ElementType::F32, shapeA}, "a");
    TensorId y = b.input({ElementType::F32, shapeB}, "b");
    TensorId z = b.input({ElementType::F32, shapeC}, "c");
    TensorId cat = b.concat({x, b.exp(y), z}, axis);
    b.output(b.tanh(cat), "tanh_concat");
    TensorId n = b.input({ElementType::I64, shapeA}, "n");
    TensorId m = b.input({ElementType::I64, shapeB}, "m");
    b.output(b.concat({n, m}, axis), "integers");
    check(*b.finish());
  }
}

TEST_F(HostCodegen, RankZeroAndZeroSized) {
  GraphBuilder b;
  TensorId s = b.input({ElementType::F32, {}}, "s");
  TensorId t = b.input({ElementType::F32, {}}, "t");
  b.output(b.tanh(b.mul(s, t)), "scalar");
  TensorId e = b.input({ElementType::F32, {0, 5}}, "empty");
  b.output(b.exp(e), "empty_exp");
  b.output(b.reduce(ReduceKind::Sum, e, {0, 1}), "empty_sum");
  check(*b.finish());
}

TEST_F(HostCodegen, SumOfSquaresAndMeanOfExp) {
  for (int64_t n : {1, 7, 1000, 4097, 100003}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {n}}, "x");
    b.output(b.reduce(ReduceKind::Sum, b.mul(x, x), {0}), "sum_of_squares");
    b.output(b.reduce(ReduceKind::Mean, b.exp(x), {0}), "mean_of_exp");
    b.output(b.reduce(ReduceKind::Max, x, {0}, true), "max");
    check(*b.finish(), {{-1, 1}});
  }
  GraphBuilder b;
  TensorId x = b.input({ElementType::F16, {37, 129}}, "x");
  TensorId s = b.reduce(ReduceKind::Sum, b.mul(x, x), {0, 1});
  b.output(b.sqrt(s), "norm");
  check(*b.finish(), {{-1, 1}});
}

/// Rows of 1, 7, 31, 1000 and 4097 elements (not multiples of the vector
/// width), and an empty row.
const std::vector<int64_t> kRowLengths = {1, 7, 31, 1000, 4097};

TEST_F(HostCodegen, SoftmaxAndLogSoftmaxRows) {
  for (int64_t length : kRowLengths) {
    GraphBuilder b;
    std::vector<int64_t> shape = {3, length};
    TensorId x = b.input({ElementType::F32, shape}, "x");
    TensorId m = b.reduce(ReduceKind::Max, x, {1}, true);
    TensorId e = b.exp(b.sub(x, b.broadcast(m, shape, {0, 1})));
    TensorId sum = b.reduce(ReduceKind::Sum, e, {1}, true);
    b.output(b.div(e, b.broadcast(sum, shape, {0, 1})), "softmax");
    TensorId shifted = b.sub(x, b.broadcast(m, shape, {0, 1}));
    b.output(b.sub(shifted, b.broadcast(b.log(sum), shape, {0, 1})),
             "log_softmax");
    check(*b.finish(), {{-8, 8}});
  }
}

/// Softmax keeps each row's exponentials in a row buffer on the stack for
/// the store pass (in f32 for f16 rows); rows longer than the buffer allows
/// compute them again.
TEST_F(HostCodegen, SoftmaxRowsOfF16AndRowsTooLongToKeep) {
  for (auto [type, length] : {std::pair{ElementType::F16, int64_t(100)},
                              std::pair{ElementType::F32, int64_t(16400)}}) {
    GraphBuilder b;
    std::vector<int64_t> shape = {2, length};
    TensorId x = b.input({type, shape}, "x");
    TensorId m = b.reduce(ReduceKind::Max, x, {1}, true);
    TensorId e = b.exp(b.sub(x, b.broadcast(m, shape, {0, 1})));
    TensorId sum = b.reduce(ReduceKind::Sum, e, {1}, true);
    b.output(b.div(e, b.broadcast(sum, shape, {0, 1})), "softmax");
    check(*b.finish(), {{-8, 8}});
  }
}

TEST_F(HostCodegen, LayerNormAndRmsNormRows) {
  for (int64_t length : kRowLengths) {
    GraphBuilder b;
    std::vector<int64_t> shape = {5, length};
    TensorId x = b.input({ElementType::F32, shape}, "x");
    TensorId gamma = b.input({ElementType::F32, {length}}, "gamma");
    TensorId beta = b.input({ElementType::F32, {length}}, "beta");
    TensorId mean = b.reduce(ReduceKind::Mean, x, {1}, true);
    TensorId xc = b.sub(x, b.broadcast(mean, shape, {0, 1}));
    TensorId var = b.reduce(ReduceKind::Mean, b.mul(xc, xc), {1}, true);
    TensorId inv = b.unary(
        OpKind::Rsqrt, b.add(var, b.splat({ElementType::F32, {5, 1}}, 1e-5)));
    TensorId y = b.add(b.mul(b.mul(xc, b.broadcast(inv, shape, {0, 1})),
                             b.broadcast(gamma, shape, {1})),
                       b.broadcast(beta, shape, {1}));
    b.output(y, "layernorm");
    TensorId ms = b.reduce(ReduceKind::Mean, b.mul(x, x), {1});
    TensorId rms = b.unary(OpKind::Rsqrt, ms);
    b.output(b.mul(x, b.broadcast(rms, shape, {0})), "rmsnorm");
    b.output(ms, "mean_square");
    check(*b.finish());
  }
}

TEST_F(HostCodegen, RowReductionsOfF16AndEmptyRows) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F16, {4, 3, 37}}, "x");
  b.output(b.reduce(ReduceKind::Sum, b.exp(x), {1, 2}), "sum_exp");
  b.output(b.reduce(ReduceKind::Min, x, {2}, true), "min");
  TensorId e = b.input({ElementType::F32, {3, 0}}, "empty_rows");
  b.output(b.reduce(ReduceKind::Sum, e, {1}), "empty_sum");
  check(*b.finish());
}

/// Pools read by runs (PoolRuns.cpp: a masked vector load per window
/// offset, twice the lanes at stride 2) at both widths: rows of 8 to 29
/// (AVX2 runs from 8, AVX-512 from 16; narrower rows gather), max and mean
/// with and without the padding counted, ceil mode, and a ui32 max over
/// values past 2^31 (an unsigned compare; the padding's identity 0).
TEST_F(HostCodegen, PoolsReadByRunsAtBothWidths) {
  for (Target each : {hostTarget(), Target{"host-x86-64-v3"}}) {
    target = each;
    SCOPED_TRACE(target.name);
    for (int64_t side : {16, 31, 58}) {
      GraphBuilder b;
      TensorId x = b.input({ElementType::F32, {2, 3, side, side}}, "x");
      b.output(
          b.pool(ReduceKind::Max, x, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}),
          "stem");
      TensorId same =
          b.pool(ReduceKind::Max, x, {{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}});
      b.output(
          b.max(same, b.splat({ElementType::F32, {2, 3, side, side}}, 0.0)),
          "same_relu");
      b.output(b.pool(ReduceKind::Mean, x,
                      {{2, 3}, {2, 2}, {1, 1}, {0, 1, 1, 1}, true, false}),
               "mean_ceil");
      b.output(b.pool(ReduceKind::Mean, x,
                      {{3, 3}, {2, 1}, {1, 2}, {1, 2, 1, 2}, false, true}),
               "mean_counting_pads");
      check(*b.finish(), {{-100, 100}});
    }
    GraphBuilder b;
    TensorId u = b.input({ElementType::UI32, {3, 70}}, "u");
    b.output(b.pool(ReduceKind::Max, u, {{3}, {2}, {1}, {1, 1}}), "unsigned");
    check(*b.finish(), {{1, 4.2e9}});
  }
}

TEST_F(HostCodegen, WithoutFusionEveryOpIsAKernel) {
  CompileOptions options;
  options.enableFusion = false;
  check(gelu({9, 100}, ElementType::F32), {{-4, 4}, {-1, 1}}, options);
}

TEST_F(HostCodegen, OutputsThatAreInputsOrRepeatedAreCopied) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {10}}, "x");
  TensorId e = b.exp(x);
  b.output(e, "e");
  b.output(x, "x_again");
  b.output(e, "e_again");
  check(*b.finish());
}

TEST_F(HostCodegen, UnsupportedKernelNamesOpAndSchedule) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::I32, {4, 8}}, "x");
  TensorId w = b.input({ElementType::I32, {8, 3}}, "w");
  b.output(b.matmul(x, w), "y");
  Expected<Compilation> compiled =
      compiler.compile(*b.finish(), target, CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("fuse.matmul"), std::string::npos)
      << compiled.message();
  EXPECT_NE(compiled.message().find("matmul kernel"), std::string::npos)
      << compiled.message();
}

TEST_F(HostCodegen, NotAHostTarget) {
  GraphBuilder b;
  b.output(b.exp(b.input({ElementType::F32, {4}})));
  Expected<Compilation> compiled =
      compiler.compile(*b.finish(), Target{"sm_90"}, CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("sm_90"), std::string::npos);
}

TEST_F(HostCodegen, BundleRecordsKernelsPlanAndTimings) {
  CompileOptions options;
  options.enableFusion = false;
  Expected<Compilation> compiled =
      compiler.compile(gelu({4, 64}, ElementType::F32), target, options);
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  EXPECT_TRUE(verifyBundle(bundle).ok());
  EXPECT_GT(bundle.kernels.size(), 1u);
  for (const BundleKernel &kernel : bundle.kernels) {
    EXPECT_EQ(kernel.payloadKind, PayloadKind::HostSharedObject);
    EXPECT_EQ(kernel.payload, bundle.kernels.front().payload);
    EXPECT_EQ(kernel.launch.grain % 16, 0);
  }
  // Intermediates whose live ranges overlap never share bytes, and the arena
  // is smaller than all of them side by side (reuse after last use).
  uint64_t total = 0;
  for (const ArenaSlice &slice : bundle.memoryPlan.intermediates)
    total += slice.bytes;
  EXPECT_GT(bundle.memoryPlan.intermediates.size(), 2u);
  EXPECT_LT(bundle.memoryPlan.peakBytes, total);
  std::vector<std::string> phases;
  for (const PhaseTiming &phase : compiled->phases)
    phases.push_back(phase.phase);
  EXPECT_EQ(phases, (std::vector<std::string>{"import", "fusion", "codegen",
                                              "lower", "translate", "optimize",
                                              "object", "link"}));
}

TEST(ArenaPlanner, ReusesBytesAfterLastUse) {
  std::vector<ArenaRequest> requests = {
      {0, 100, 0, 1}, {1, 100, 1, 2}, {2, 100, 2, 3}, {3, 10, 3, 3}};
  MemoryPlan plan = planArena(requests);
  ASSERT_EQ(plan.intermediates.size(), 4u);
  EXPECT_EQ(plan.intermediates[0].offset, 0u);
  EXPECT_EQ(plan.intermediates[1].offset, 128u);
  EXPECT_EQ(plan.intermediates[2].offset, 0u);
  EXPECT_EQ(plan.intermediates[3].offset, 128u);
  EXPECT_EQ(plan.peakBytes, 228u);
}

TEST(ArenaPlanner, PlacesBoundRequestsFirstAndNeverReusesThem) {
  // Requests 1 and 3 are bound (a weight's packing): they come first, end to
  // end, and request 2, which starts after request 1's last use, does not
  // take its bytes.
  std::vector<ArenaRequest> requests = {{0, 100, 0, 1},
                                        {1, 70, 0, 0, /*bound=*/true},
                                        {2, 100, 1, 2},
                                        {3, 30, 2, 2, /*bound=*/true}};
  MemoryPlan plan = planArena(requests);
  ASSERT_EQ(plan.intermediates.size(), 4u);
  EXPECT_EQ(plan.intermediates[1].offset, 0u);
  EXPECT_EQ(plan.intermediates[3].offset, 128u);
  EXPECT_EQ(plan.intermediates[0].offset, 192u);
  EXPECT_EQ(plan.intermediates[2].offset, 320u);
  EXPECT_EQ(plan.peakBytes, 420u);
  EXPECT_EQ(plan.boundBytes, 192u);
  // The bound offsets do not depend on the other slices' sizes (a symbolic
  // bundle's bindings place a weight's packing alike).
  requests[0].bytes = 100000;
  requests[2].bytes = 7;
  MemoryPlan larger = planArena(requests);
  EXPECT_EQ(larger.intermediates[1], plan.intermediates[1]);
  EXPECT_EQ(larger.intermediates[3], plan.intermediates[3]);
  EXPECT_EQ(larger.boundBytes, plan.boundBytes);
  EXPECT_GT(larger.peakBytes, 100000u);
  // A bound request of a later boundOrder follows the others, whatever its
  // place among the requests.
  requests[1].boundOrder = 1;
  MemoryPlan varying = planArena(requests);
  EXPECT_EQ(varying.intermediates[3].offset, 0u);
  EXPECT_EQ(varying.intermediates[1].offset, 64u);
  EXPECT_EQ(varying.boundBytes, 192u);
  // No bound request: no bound part.
  EXPECT_EQ(planArena(std::vector<ArenaRequest>{{0, 100, 0, 1}}).boundBytes,
            0u);
}

/// Max relative error of a unary op over a grid of its domain, against the
/// f64 function, for the polynomial approximations.
double maxRelativeError(HostCompiler &compiler, device::HostRuntime &runtime,
                        OpKind kind, double lo, double hi,
                        double (*exact)(double), double floor) {
  const int64_t n = 200001;
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {n}}, "x");
  b.output(b.unary(kind, x), "y");
  Expected<Compilation> compiled =
      compiler.compile(*b.finish(), hostTarget(), CompileOptions{});
  EXPECT_TRUE(compiled.ok()) << compiled.message();
  if (!compiled.ok())
    return 1;
  std::vector<float> xs(n);
  for (int64_t i = 0; i < n; ++i)
    xs[i] = float(lo + (hi - lo) * double(i) / double(n - 1));
  TensorBytes input(n * sizeof(float));
  std::memcpy(input.data(), xs.data(), input.size());
  std::vector<TensorBytes> inputs{input};
  auto outputs = device::runBundle(runtime, compiled->bundle, inputs);
  EXPECT_TRUE(outputs.ok());
  if (!outputs.ok())
    return 1;
  const float *ys = reinterpret_cast<const float *>((*outputs)[0].data());
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double want = exact(double(xs[i]));
    if (std::abs(want) < floor)
      continue;
    worst = std::max(worst, std::abs(double(ys[i]) - want) / std::abs(want));
  }
  return worst;
}

TEST(HostApproximations, ErrorAgainstF64IsBounded) {
  HostCompiler compiler;
  device::HostRuntime runtime;
  struct Case {
    const char *name;
    OpKind kind;
    double lo, hi, bound;
    double (*exact)(double);
  };
  // f32 rounding alone is 6e-8; the bounds allow a few ulp.
  const Case cases[] = {
      {"exp", OpKind::Exp, -87, 88, 5e-7, [](double x) { return std::exp(x); }},
      {"tanh", OpKind::Tanh, -10, 10, 5e-7,
       [](double x) { return std::tanh(x); }},
      {"erf", OpKind::Erf, -4, 4, 1e-6, [](double x) { return std::erf(x); }},
      {"log", OpKind::Log, 1e-3, 1e3, 5e-7,
       [](double x) { return std::log(x); }},
      {"asin", OpKind::Asin, -1, 1, 1e-6,
       [](double x) { return std::asin(x); }},
      {"acos", OpKind::Acos, -1, 1, 1e-6,
       [](double x) { return std::acos(x); }},
      {"sinh", OpKind::Sinh, -10, 10, 1e-6,
       [](double x) { return std::sinh(x); }},
      {"cosh", OpKind::Cosh, -10, 10, 1e-6,
       [](double x) { return std::cosh(x); }},
      {"asinh", OpKind::Asinh, -1e3, 1e3, 1e-6,
       [](double x) { return std::asinh(x); }},
      {"acosh", OpKind::Acosh, 1, 1e3, 1e-6,
       [](double x) { return std::acosh(x); }},
      {"atanh", OpKind::Atanh, -0.999, 0.999, 1e-6,
       [](double x) { return std::atanh(x); }},
  };
  for (const Case &c : cases) {
    double error =
        maxRelativeError(compiler, runtime, c.kind, c.lo, c.hi, c.exact, 1e-6);
    std::printf("max relative error of %s over [%g, %g]: %.3g\n", c.name, c.lo,
                c.hi, error);
    EXPECT_LE(error, c.bound) << c.name;
  }
}

/// Runs the one-kernel bundle of a one-input graph with its output bound at
/// `offset` bytes into its buffer (4: misaligned for every vector store),
/// launched as `launch` says (null: as compiled), on 2 threads whatever the
/// machine (a launch is one call on one).
std::vector<float> runWithOutputAt(const Bundle &bundle,
                                   const std::vector<float> &input,
                                   uint64_t offset,
                                   const LaunchConfig *launch = nullptr) {
  uint64_t bytes = input.size() * 4;
  device::HostRuntime::Options options;
  options.threads = 2;
  device::HostRuntime runtime(options);
  device::Executable executable = *runtime.load(bundle);
  device::Stream stream = *runtime.createStream();
  device::AllocationPermit permit = std::move(*runtime.reserve(2 * bytes + 64));
  device::Buffer in = *runtime.allocate(permit, bytes);
  device::Buffer out = *runtime.allocate(permit, bytes + 64);
  device::CommandBatch batch;
  batch.add(std::move(*runtime.encodeUpload(
      std::span(reinterpret_cast<const std::byte *>(input.data()), bytes), in,
      0)));
  std::vector<device::BufferBinding> bindings;
  for (const KernelBinding &binding : bundle.kernels[0].bindings)
    bindings.push_back(binding.kind == BindingKind::GraphInput
                           ? device::BufferBinding{in, 0, bytes}
                           : device::BufferBinding{out, offset, bytes});
  batch.add(std::move(*runtime.encodeLaunch(
      executable, 0, launch ? *launch : bundle.kernels[0].launch, bindings)));
  device::SubmitResult submitted = runtime.submit(stream, std::move(batch));
  EXPECT_TRUE(submitted.submitted());
  EXPECT_TRUE(
      runtime.waitFence(submitted.fence(), std::chrono::minutes(1)).ok());
  std::vector<std::byte> result = *runtime.readback(stream, out, offset, bytes);
  std::vector<float> y(input.size());
  std::memcpy(y.data(), result.data(), bytes);
  return y;
}

/// y = softmax(x) over the last dim of x, a matrix of `type`.
void addSoftmaxRows(GraphBuilder &g, TensorId x, const TensorType &type) {
  TensorId e = g.exp(g.sub(
      x, g.broadcast(g.reduce(ReduceKind::Max, x, {1}), type.shape, {0})));
  g.output(
      g.div(e, g.broadcast(g.reduce(ReduceKind::Sum, e, {1}), type.shape, {0})),
      "y");
}

/// Softmax over each row of `columns` of `input`, in f64.
std::vector<double> softmaxRowsOf(const std::vector<float> &input,
                                  int64_t columns) {
  std::vector<double> y(input.size());
  for (size_t r = 0; r < input.size() / size_t(columns); ++r) {
    const float *row = &input[r * columns];
    double max = *std::max_element(row, row + columns), sum = 0;
    for (int64_t c = 0; c < columns; ++c)
      sum += std::exp(double(row[c]) - max);
    for (int64_t c = 0; c < columns; ++c)
      y[r * columns + c] = std::exp(double(row[c]) - max) / sum;
  }
  return y;
}

// An output of 32 MiB or more is written with streaming (non-temporal)
// stores when its address is 64-byte aligned, and with cached stores when it
// is not (a binding at an odd offset): both give the same right answer, for
// a pointwise kernel and for a row kernel's store pass (softmax rows).
TEST_F(HostCodegen, StreamingStoresForLargeOutputsAlignedOrNot) {
  const int64_t rows = 4096, columns = 2048; // 32 MiB of f32
  TensorType type{ElementType::F32, {rows, columns}};
  std::vector<float> input(static_cast<size_t>(rows * columns));
  std::uniform_real_distribution<float> dist(-2, 2);
  for (float &v : input)
    v = dist(rng);
  for (bool softmax : {false, true}) {
    SCOPED_TRACE(softmax ? "softmax rows" : "x * x + 1");
    GraphBuilder g;
    TensorId x = g.input(type, "x");
    if (softmax)
      addSoftmaxRows(g, x, type);
    else
      g.output(g.add(g.mul(x, x), g.splat(type, 1.0)), "y");
    Bundle bundle;
    ASSERT_NO_FATAL_FAILURE(compileOneKernel(g, bundle));
    std::vector<double> expected = softmaxRowsOf(input, columns);
    if (!softmax)
      for (size_t i = 0; i < input.size(); ++i)
        expected[i] = double(input[i]) * input[i] + 1.0;
    for (uint64_t offset : {uint64_t(0), uint64_t(4)}) {
      SCOPED_TRACE("output at offset " + std::to_string(offset));
      std::vector<float> y = runWithOutputAt(bundle, input, offset);
      int64_t wrong = 0;
      for (size_t i = 0; i < y.size(); ++i)
        wrong += std::abs(y[i] - expected[i]) > 1e-5 * std::abs(expected[i]);
      EXPECT_EQ(wrong, 0);
    }
  }
}

// A softmax over rows whose output takes streaming stores stores each row
// during the next row's exp pass, and its last row after its loop (the
// kernel's call's rows; emitPipelinedRows): calls of 1, 2, 3 and 5 rows (the
// first row of a call has no row before, whose stores go to its own row
// first), of the compiled chunks, and of all the rows in one call all give
// the right answer, aligned and misaligned (the other loop). Rows of 8192
// (whole unrolled iterations of 4 vectors) and of 2064 (a last vector
// after them), each over 32 MiB of f32.
TEST_F(HostCodegen, SoftmaxRowsStoredDuringTheNextRowOverAnyCall) {
  for (auto [rows, columns] : {std::pair<int64_t, int64_t>{1025, 8192},
                               std::pair<int64_t, int64_t>{4067, 2064}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows of " + std::to_string(columns));
    TensorType type{ElementType::F32, {rows, columns}};
    std::vector<float> input(static_cast<size_t>(rows * columns));
    std::uniform_real_distribution<float> dist(-4, 4);
    for (float &v : input)
      v = dist(rng);
    GraphBuilder g;
    addSoftmaxRows(g, g.input(type, "x"), type);
    Bundle bundle;
    ASSERT_NO_FATAL_FAILURE(compileOneKernel(g, bundle));
    std::vector<double> expected = softmaxRowsOf(input, columns);
    const LaunchConfig compiledLaunch = bundle.kernels[0].launch;
    for (int64_t callRows :
         {int64_t(1), int64_t(2), int64_t(3), int64_t(5), int64_t(0), rows}) {
      LaunchConfig launch = compiledLaunch;
      if (callRows) {
        launch.grain = callRows;
        launch.chunksPerWorker = uint32_t(rows);
      }
      for (uint64_t offset : {uint64_t(0), uint64_t(4)}) {
        if (offset && callRows != 1 && callRows != 0)
          continue;
        SCOPED_TRACE("calls of " + std::to_string(callRows) +
                     " rows (0: as compiled), output at offset " +
                     std::to_string(offset));
        std::vector<float> y = runWithOutputAt(bundle, input, offset, &launch);
        int64_t wrong = 0;
        for (size_t i = 0; i < y.size(); ++i)
          wrong += !(std::abs(y[i] - expected[i]) <= 1e-5 * expected[i]);
        EXPECT_EQ(wrong, 0);
      }
    }
  }
}

// A softmax over rows of [64, 64] stored transposed within the row: each
// stored value reads the exponentials at other positions of the row (not
// the stash), so its rows are stored after their own passes, never during
// the next row's (whose row before, for a call's first row, is out of the
// call's rows, and for the first call out of the input's bounds). Calls of
// 1 row, of the compiled chunks, and of all the rows give the right answer.
TEST_F(HostCodegen, SoftmaxRowsStoredTransposedAfterTheirOwnPasses) {
  const int64_t rows = 2049, side = 64; // over 32 MiB of f32
  TensorType type{ElementType::F32, {rows, side, side}};
  std::vector<float> input(static_cast<size_t>(rows * side * side));
  std::uniform_real_distribution<float> dist(-4, 4);
  for (float &v : input)
    v = dist(rng);
  GraphBuilder g;
  TensorId x = g.input(type, "x");
  TensorId e = g.exp(g.sub(
      x, g.broadcast(g.reduce(ReduceKind::Max, x, {1, 2}), type.shape, {0})));
  g.output(
      g.transpose(g.div(e, g.broadcast(g.reduce(ReduceKind::Sum, e, {1, 2}),
                                       type.shape, {0})),
                  {0, 2, 1}),
      "y");
  Bundle bundle;
  ASSERT_NO_FATAL_FAILURE(compileOneKernel(g, bundle));
  std::vector<double> rowMajor = softmaxRowsOf(input, side * side);
  std::vector<double> expected(rowMajor.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < side; ++i)
      for (int64_t j = 0; j < side; ++j)
        expected[(r * side + i) * side + j] =
            rowMajor[(r * side + j) * side + i];
  LaunchConfig launch = bundle.kernels[0].launch;
  for (int64_t callRows : {int64_t(1), int64_t(0), rows}) {
    SCOPED_TRACE("calls of " + std::to_string(callRows) +
                 " rows (0: as compiled)");
    LaunchConfig call = launch;
    if (callRows) {
      call.grain = callRows;
      call.chunksPerWorker = uint32_t(rows);
    }
    std::vector<float> y = runWithOutputAt(bundle, input, 0, &call);
    int64_t wrong = 0;
    for (size_t i = 0; i < y.size(); ++i)
      wrong += !(std::abs(y[i] - expected[i]) <= 1e-5 * expected[i]);
    EXPECT_EQ(wrong, 0);
  }
}

} // namespace
} // namespace fuse
