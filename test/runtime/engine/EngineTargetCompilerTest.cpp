//===- EngineTargetCompilerTest.cpp - TargetDispatchCompiler in a Session -===//
//
// The engine on the host with TargetDispatchCompiler injected: host targets
// go to HostCompiler (values checked against std::exp), other targets are
// errors that name them, the GPU compiler is never made for a host
// session, and a kept weight is packed once.
//
//===----------------------------------------------------------------------===//

#include "compiler/TargetCompiler.h"

#include "compiler/host/HostCompiler.h"
#include "runtime/engine/Engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace fuse::engine {
namespace {

/// A host session whose blocks `compiler` compiles; its warnings go to
/// `onWarning` where one is given.
Expected<Session>
openHostSession(TargetDispatchCompiler &compiler,
                std::function<void(const std::string &)> onWarning = nullptr) {
  SessionOptions options;
  options.device = DeviceChoice::Host;
  options.compiler = &compiler;
  options.onWarning = std::move(onWarning);
  return Session::open(options);
}

/// Draws `count` values in [-1, 1), each one a float, from `random`.
std::vector<double> randomValues(std::mt19937 &random, std::int64_t count) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double &x : values)
    x = uniform(random);
  return values;
}

TEST(EngineTargetCompilerTest, HostTargetsGoToTheHostCompiler) {
  TargetDispatchCompiler compiler;
  std::vector<std::string> warnings;
  Expected<Session> session = openHostSession(
      compiler, [&](const std::string &w) { warnings.push_back(w); });
  if (!session.ok())
    GTEST_SKIP() << session.message();

  const std::int64_t n = 37;
  std::vector<double> values(n);
  for (std::int64_t i = 0; i < n; ++i)
    values[i] = -1.0 + 0.05 * double(i);
  Tensor x = session->upload(TensorType{ElementType::F32, {n}}, values);
  Tensor z = exp(x) + fullLike(x, 1.0);
  Expected<std::vector<double>> result = z.readDoubles();
  ASSERT_TRUE(result.ok()) << result.message();
  ASSERT_EQ(result->size(), std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i)
    EXPECT_NEAR((*result)[i], std::exp(float(values[i])) + 1.0,
                1e-5 * (std::exp(values[i]) + 1.0))
        << i;
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(session->counters().fallbacks, 0u);
  EXPECT_NE(compiler.hostCompiler(), nullptr);
  EXPECT_EQ(compiler.gpuCompiler(), nullptr);
}

/// free_handle's other half: a block whose input no handle refers to any
/// more writes its same-typed output in place over the input's buffer (host
/// kernels, same-shape elementwise); an input still referenced never is.
TEST(EngineTargetCompilerTest, DroppedInputsAreWrittenInPlace) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();

  // Several scheduling grains of the pointwise kernel, and a scalar tail.
  const std::int64_t n = 10003;
  TensorType type{ElementType::F32, {n}};
  std::vector<double> values(n);
  for (std::int64_t i = 0; i < n; ++i)
    values[i] = -2.0 + 4.0 * double(i) / double(n);
  auto expectNear = [&](const Tensor &t, auto reference) {
    Expected<std::vector<double>> got = t.readDoubles();
    ASSERT_TRUE(got.ok()) << got.message();
    ASSERT_EQ(got->size(), std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
      double want = reference(double(float(values[i])));
      ASSERT_NEAR((*got)[i], want, 1e-5 * std::max(1.0, std::abs(want))) << i;
    }
  };
  auto inPlace = [&] { return session->counters().inPlaceOutputs; };

  // y = exp(x) with x dropped before the sync: y takes x's buffer.
  Tensor x = session->upload(type, values);
  Tensor y = exp(x);
  x = Tensor();
  expectNear(y, [](double v) { return std::exp(v); });
  EXPECT_EQ(inPlace(), 1u);

  // z = y + 1 with y still referenced: a fresh buffer, y unchanged.
  Tensor z = y + fullLike(y, 1.0);
  expectNear(z, [](double v) { return std::exp(v) + 1.0; });
  EXPECT_EQ(inPlace(), 1u);
  expectNear(y, [](double v) { return std::exp(v); });

  // y dropped, then w = y * 2 (recorded before the drop): in place.
  Tensor w = y * fullLike(y, 2.0);
  y = Tensor();
  expectNear(w, [](double v) { return 2.0 * std::exp(v); });
  EXPECT_EQ(inPlace(), 2u);
  expectNear(z, [](double v) { return std::exp(v) + 1.0; });

  // A second handle keeps the input alive: never in place.
  Tensor zCopy = z;
  Tensor negated = -z;
  z = Tensor();
  expectNear(negated, [](double v) { return -(std::exp(v) + 1.0); });
  EXPECT_EQ(inPlace(), 2u);
  expectNear(zCopy, [](double v) { return std::exp(v) + 1.0; });

  // Not elementwise (a reduction): never in place, even when dropped.
  Tensor total = reduce(ReduceKind::Sum, reshape(w, {n, 1}), {1});
  w = Tensor();
  expectNear(total, [](double v) { return 2.0 * std::exp(v); });
  EXPECT_EQ(inPlace(), 2u);
}

/// A weight the session keeps (the same storage) is packed once: runs of
/// the same bundle over it skip its pack kernel, and a new weight, or the
/// old one again after it, is packed anew. Values against a reference in
/// double on random inputs, relative tolerance 1e-4 of the row's scale.
TEST(EngineTargetCompilerTest, AKeptWeightIsPackedOnce) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();

  const std::int64_t m = 24, k = 64, n = 96;
  std::mt19937 random(20261205);
  auto values = [&](std::int64_t count) { return randomValues(random, count); };
  TensorType xType{ElementType::F32, {m, k}}, wType{ElementType::F32, {k, n}};
  std::vector<double> w1 = values(k * n), w2 = values(k * n);
  Tensor weight1 = session->upload(wType, w1);
  Tensor weight2 = session->upload(wType, w2);

  // One run of x @ w; returns the kernels it launched.
  auto run = [&](const Tensor &weight, const std::vector<double> &w) {
    std::vector<double> x = values(m * k);
    std::uint64_t before = session->counters().kernelsLaunched;
    Tensor product = matmul(session->upload(xType, x), weight);
    Expected<std::vector<double>> got = product.readDoubles();
    EXPECT_TRUE(got.ok()) << got.message();
    if (!got.ok() || got->size() != std::size_t(m * n))
      return std::uint64_t(0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double want = 0, scale = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          want += x[i * k + p] * w[p * n + j];
          scale += std::abs(x[i * k + p] * w[p * n + j]);
        }
        EXPECT_NEAR((*got)[i * n + j], want, 1e-4 * scale) << i << "," << j;
      }
    return session->counters().kernelsLaunched - before;
  };

  std::uint64_t first = run(weight1, w1);
  ASSERT_GE(first, 2u) << "expected a pack kernel and a matmul";
  EXPECT_EQ(run(weight1, w1), first - 1);
  EXPECT_EQ(run(weight1, w1), first - 1);
  EXPECT_EQ(run(weight2, w2), first);
  EXPECT_EQ(run(weight2, w2), first - 1);
  EXPECT_EQ(run(weight1, w1), first);
  // A weight dropped and a new one uploaded (perhaps at the same address):
  // never taken for the old one.
  weight1 = Tensor();
  std::vector<double> w3 = values(k * n);
  Tensor weight3 = session->upload(wType, w3);
  EXPECT_EQ(run(weight3, w3), first);
  EXPECT_EQ(session->counters().fallbacks, 0u);
}

/// A decoder step's attention for callSymbolic: a cache of `past` rows per
/// head grown by `sequence` new ones (concat), and each new row's
/// softmax-weighted sum over all past + sequence rows; `heads` 0 drops the
/// heads dim.
Expected<Graph> cacheStep(std::int64_t heads) {
  GraphBuilder b;
  const std::int64_t past = b.symbol("past"), sequence = b.symbol("sequence");
  const std::int64_t keys = b.dim(
      *DimExpr::add(DimExpr::symbol("past"), DimExpr::symbol("sequence")));
  auto shape = [&](std::int64_t rows, std::int64_t last) {
    return heads ? std::vector<std::int64_t>{heads, rows, last}
                 : std::vector<std::int64_t>{rows, last};
  };
  const std::int64_t axis = heads ? 1 : 0, rowAxis = heads ? 2 : 1;
  TensorId cache = b.input({ElementType::F32, shape(past, 8)}, "cache");
  TensorId fresh = b.input({ElementType::F32, shape(sequence, 8)}, "new");
  TensorId grown = b.concat({cache, fresh}, axis);
  TensorId scores = b.matmul(fresh, grown, false, true);
  TensorId top = b.reduce(ReduceKind::Max, scores, {rowAxis}, true);
  TensorId e = b.exp(b.sub(scores, b.broadcastTo(top, shape(sequence, keys))));
  TensorId total = b.reduce(ReduceKind::Sum, e, {rowAxis}, true);
  TensorId weights = b.div(e, b.broadcastTo(total, shape(sequence, keys)));
  b.output(grown, "present");
  b.output(b.matmul(weights, grown), "mixed");
  return b.finish();
}

/// callSymbolic (issue 22): one compile serves every length of a decoder
/// step's attention; each call's outputs are checked against a loop here.
TEST(EngineTargetCompilerTest, ASymbolicGraphCompilesOnceForEveryLength) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();
  const std::int64_t heads = 2, width = 8;
  Expected<Graph> graph = cacheStep(heads);
  ASSERT_TRUE(graph.ok()) << graph.message();

  std::mt19937 rng(22);
  auto values = [&](std::int64_t count) { return randomValues(rng, count); };
  for (auto [p, s] : {std::pair<std::int64_t, std::int64_t>{0, 5},
                      {5, 1},
                      {6, 1},
                      {31, 1},
                      {7, 3}}) {
    SCOPED_TRACE("past " + std::to_string(p) + ", sequence " +
                 std::to_string(s));
    std::vector<double> c = values(heads * p * width),
                        n = values(heads * s * width);
    std::vector<Tensor> inputs{
        session->upload(TensorType{ElementType::F32, {heads, p, width}}, c),
        session->upload(TensorType{ElementType::F32, {heads, s, width}}, n)};
    bool refused = true;
    Expected<std::vector<Tensor>> outputs =
        callSymbolic(*session, *graph, inputs, &refused);
    ASSERT_TRUE(outputs.ok()) << outputs.message();
    EXPECT_FALSE(refused);
    ASSERT_EQ(outputs->size(), 2u);
    EXPECT_EQ((*outputs)[0].type(),
              (TensorType{ElementType::F32, {heads, p + s, width}}));
    Expected<std::vector<double>> present = (*outputs)[0].readDoubles();
    Expected<std::vector<double>> mixed = (*outputs)[1].readDoubles();
    ASSERT_TRUE(present.ok() && mixed.ok());
    for (std::int64_t h = 0; h < heads; ++h) {
      // Head h's rows: its cache, then its new rows.
      std::vector<double> rows(c.begin() + h * p * width,
                               c.begin() + (h + 1) * p * width);
      rows.insert(rows.end(), n.begin() + h * s * width,
                  n.begin() + (h + 1) * s * width);
      for (std::size_t k = 0; k < rows.size(); ++k)
        EXPECT_EQ(float((*present)[h * (p + s) * width + k]), float(rows[k]))
            << h << ", " << k;
      for (std::int64_t i = 0; i < s; ++i) {
        const double *q = &n[(h * s + i) * width];
        std::vector<double> e(static_cast<std::size_t>(p + s));
        double top = -INFINITY, sum = 0;
        for (std::int64_t j = 0; j < p + s; ++j) {
          double dot = 0;
          for (std::int64_t d = 0; d < width; ++d)
            dot += q[d] * rows[j * width + d];
          e[j] = dot;
          top = std::max(top, dot);
        }
        for (double &x : e)
          sum += (x = std::exp(x - top));
        for (std::int64_t d = 0; d < width; ++d) {
          double want = 0;
          for (std::int64_t j = 0; j < p + s; ++j)
            want += e[j] / sum * rows[j * width + d];
          EXPECT_NEAR((*mixed)[(h * s + i) * width + d], want, 1e-5)
              << h << ", " << i << ", " << d;
        }
      }
    }
  }
  EXPECT_EQ(session->counters().compilations, 1u);
  EXPECT_EQ(session->counters().fallbacks, 0u);

  // Inputs that do not fit the graph are errors that name the input.
  Tensor flat = session->upload(TensorType{ElementType::F32, {8}},
                                std::vector<double>(8, 1.0));
  std::vector<Tensor> wrongRank{flat, flat};
  Expected<std::vector<Tensor>> wrong =
      callSymbolic(*session, *graph, wrongRank);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("('cache') is a tensor<8xf32>"),
            std::string::npos)
      << wrong.message();
  std::vector<Tensor> one{flat};
  Expected<std::vector<Tensor>> count = callSymbolic(*session, *graph, one);
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.message().find("takes 2 inputs, given 1"), std::string::npos)
      << count.message();

  // Prepared once (keyed once), it finds the bundle compiled above; a graph
  // prepared for another session, or never prepared, is refused.
  Expected<SymbolicGraph> prepared = prepareSymbolic(*session, *graph);
  ASSERT_TRUE(prepared.ok()) << prepared.message();
  std::vector<Tensor> step{
      session->upload(TensorType{ElementType::F32, {heads, 9, width}},
                      std::vector<double>(heads * 9 * width, 0.5)),
      session->upload(TensorType{ElementType::F32, {heads, 1, width}},
                      std::vector<double>(heads * width, 0.25))};
  Expected<std::vector<Tensor>> viaPrepared =
      callSymbolic(*session, *prepared, step);
  ASSERT_TRUE(viaPrepared.ok()) << viaPrepared.message();
  EXPECT_EQ((*viaPrepared)[0].type(),
            (TensorType{ElementType::F32, {heads, 10, width}}));
  EXPECT_EQ(session->counters().compilations, 1u);
  Expected<Session> other = openHostSession(compiler);
  ASSERT_TRUE(other.ok()) << other.message();
  Expected<std::vector<Tensor>> elsewhere =
      callSymbolic(*other, *prepared, step);
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_NE(elsewhere.message().find("prepared for another session"),
            std::string::npos)
      << elsewhere.message();
  Expected<std::vector<Tensor>> unprepared =
      callSymbolic(*session, SymbolicGraph(), step);
  ASSERT_FALSE(unprepared.ok());
  EXPECT_NE(unprepared.message().find("not prepared"), std::string::npos)
      << unprepared.message();
}

/// A decoder step's projection: x @ w plus the rows of a position table at
/// each new token's position (past + i, up to `rows` - 1), over `batch`
/// sentences; the result is also appended to a cache of `past` rows
/// (doubled), and the doubled cache summed. w's
/// packing depends on the weight alone; the gathered rows on the table
/// and the past length.
Expected<Graph> positionedProjection(std::int64_t batch, std::int64_t rows) {
  GraphBuilder b;
  const std::int64_t past = b.symbol("past");
  const std::int64_t sequence = b.symbol("sequence");
  TensorId x = b.input({ElementType::F32, {batch, sequence, 64}}, "x");
  TensorId w = b.input({ElementType::F32, {64, 96}}, "w");
  TensorId table = b.input({ElementType::F32, {rows, 96}}, "table");
  TensorId cache = b.input({ElementType::F32, {batch, past, 96}}, "cache");
  TensorId start =
      b.broadcastTo(b.dimValue({ElementType::I64, {}}, past), {sequence});
  TensorId positions =
      b.min(b.add(b.iota({ElementType::I64, {sequence}}, 0), start),
            b.broadcastTo(b.splat({ElementType::I64, {}}, double(rows - 1)),
                          {sequence}));
  TensorId embedded = b.gather(table, positions, 0);
  const std::int64_t tokens = b.dim(
      *DimExpr::mul(DimExpr::constant(batch), DimExpr::symbol("sequence")));
  TensorId product =
      b.reshape(b.matmul(b.reshape(x, {tokens, 64}), w), {batch, sequence, 96});
  TensorId y =
      b.add(product, b.broadcastTo(b.reshape(embedded, {1, sequence, 96}),
                                   {batch, sequence, 96}));
  // The cache doubled, read by two fusions: an intermediate that grows with
  // the past, so that the arena of a longer past outgrows an earlier one.
  TensorId doubled = b.add(cache, cache);
  b.output(y, "y");
  b.output(b.concat({doubled, y}, 1), "present");
  b.output(b.reduce(ReduceKind::Sum, doubled, {2}), "total");
  return b.finish();
}

/// A symbolic graph's next binding (a decoder's next step) takes the arena
/// its last call kept: a weight's packing is not run again while the same
/// weight is bound, what depends on the dims (the gathered rows, a
/// per-binding kernel too) is, and every call's values are right (checked
/// against a loop here: stale rows would be wrong).
TEST(EngineTargetCompilerTest, TheNextStepKeepsThePackedWeights) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();
  const std::int64_t batch = 2, rows = 40;
  Expected<Graph> graph = positionedProjection(batch, rows);
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::mt19937 random(20261205);
  auto values = [&](std::int64_t count) { return randomValues(random, count); };
  std::vector<double> w1 = values(64 * 96), w2 = values(64 * 96),
                      t = values(rows * 96);
  Tensor weight1 = session->upload({ElementType::F32, {64, 96}}, w1);
  Tensor weight2 = session->upload({ElementType::F32, {64, 96}}, w2);
  Tensor table = session->upload({ElementType::F32, {rows, 96}}, t);
  // One call at (past, sequence); returns the kernels it launched.
  auto call = [&](std::int64_t past, std::int64_t sequence,
                  const Tensor &weight, const std::vector<double> &w) {
    SCOPED_TRACE("past " + std::to_string(past) + ", sequence " +
                 std::to_string(sequence));
    std::vector<double> x = values(batch * sequence * 64),
                        c = values(batch * past * 96);
    std::vector<Tensor> inputs{
        session->upload({ElementType::F32, {batch, sequence, 64}}, x), weight,
        table, session->upload({ElementType::F32, {batch, past, 96}}, c)};
    std::uint64_t before = session->counters().kernelsLaunched;
    Expected<std::vector<Tensor>> y = callSymbolic(*session, *graph, inputs);
    EXPECT_TRUE(y.ok()) << y.message();
    if (!y.ok())
      return std::uint64_t(0);
    Expected<std::vector<double>> got = (*y)[0].readDoubles();
    Expected<std::vector<double>> present = (*y)[1].readDoubles();
    const std::size_t count = std::size_t(batch * sequence * 96);
    EXPECT_TRUE(got.ok() && got->size() == count && present.ok());
    if (!got.ok() || got->size() != count || !present.ok())
      return std::uint64_t(0);
    for (std::int64_t r = 0; r < batch * sequence; ++r)
      for (std::int64_t j = 0; j < 96; ++j) {
        std::int64_t position = std::min(past + r % sequence, rows - 1);
        double want = t[position * 96 + j], scale = 1;
        for (std::int64_t p = 0; p < 64; ++p) {
          want += x[r * 64 + p] * w[p * 96 + j];
          scale += std::abs(x[r * 64 + p] * w[p * 96 + j]);
        }
        EXPECT_NEAR((*got)[r * 96 + j], want, 1e-5 * scale) << r << "," << j;
        // The cache (doubled) grown by the row.
        std::int64_t row =
            (r / sequence) * (past + sequence) + past + r % sequence;
        EXPECT_EQ((*present)[row * 96 + j], (*got)[r * 96 + j]);
      }
    Expected<std::vector<double>> total = (*y)[2].readDoubles();
    EXPECT_TRUE(total.ok() && total->size() == std::size_t(batch * past));
    for (std::int64_t i = 0; i < batch * past * 96; ++i) {
      std::int64_t row = i / (past * 96) * (past + sequence) + i / 96 % past;
      EXPECT_EQ((*present)[row * 96 + i % 96], 2 * c[i]) << i;
    }
    for (std::int64_t row = 0; total.ok() && row < batch * past; ++row) {
      double want = 0;
      for (std::int64_t j = 0; j < 96; ++j)
        want += 2 * c[row * 96 + j];
      EXPECT_NEAR((*total)[row], want, 1e-4) << row;
    }
    return session->counters().kernelsLaunched - before;
  };
  std::uint64_t prompt = call(0, 5, weight1, w1);
  // The first step's rows differ from the prompt's (its matmul scratch too):
  // it packs w again, into an arena with room to grow.
  EXPECT_EQ(call(5, 1, weight1, w1), prompt);
  std::uint64_t step = call(6, 1, weight1, w1);
  EXPECT_LT(step, prompt) << "the packing of w ran again";
  EXPECT_EQ(call(7, 1, weight1, w1), step);
  // A past that outgrows the arena (and its room to grow): the packed w is
  // copied into the new arena, not packed again.
  EXPECT_EQ(call(45, 1, weight1, w1), step);
  EXPECT_EQ(call(300, 1, weight1, w1), step);
  // Another weight: packed again, then kept.
  EXPECT_EQ(call(46, 1, weight2, w2), prompt);
  EXPECT_EQ(call(47, 1, weight2, w2), step);
  EXPECT_EQ(session->counters().compilations, 1u);
  EXPECT_EQ(session->counters().fallbacks, 0u);
  // Without declared ranges, the longer pasts outgrew the kept arena.
  EXPECT_GT(session->counters().arenasOutgrown, 0u);
}

/// Declared dim ranges (prepareSymbolic): a binding outside one is refused
/// before anything runs, naming the dim, its value and the range; the
/// first binding's arena is sized for the largest values, so that the
/// steps of a growing past never outgrow it (and every value is right).
TEST(EngineTargetCompilerTest, DeclaredDimRangesBoundTheCallsAndTheArena) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();
  const std::int64_t batch = 2, rows = 40;
  Expected<Graph> graph = positionedProjection(batch, rows);
  ASSERT_TRUE(graph.ok()) << graph.message();
  // Ranges that name no dim, or are no ranges, are refused.
  for (const auto &[ranges, says] :
       std::vector<std::pair<DimRanges, std::string>>{
           {{{"length", {1, 4}}}, "has no dim 'length'; its dims are: "},
           {{{"past", {9, 4}}}, "past=9..4: its low end is above"},
           {{{"past", {-1, 4}}}, "never negative"}}) {
    Expected<SymbolicGraph> refused = prepareSymbolic(*session, *graph, ranges);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find(says), std::string::npos)
        << refused.message();
  }
  Expected<SymbolicGraph> prepared = prepareSymbolic(
      *session, *graph, {{"past", {0, 300}}, {"sequence", {1, 5}}});
  ASSERT_TRUE(prepared.ok()) << prepared.message();
  std::mt19937 random(20261206);
  std::vector<double> w = randomValues(random, 64 * 96),
                      t = randomValues(random, rows * 96);
  Tensor weight = session->upload({ElementType::F32, {64, 96}}, w);
  Tensor table = session->upload({ElementType::F32, {rows, 96}}, t);
  auto call = [&](std::int64_t past, std::int64_t sequence) {
    SCOPED_TRACE("past " + std::to_string(past));
    std::vector<double> x = randomValues(random, batch * sequence * 64);
    std::vector<Tensor> inputs{
        session->upload({ElementType::F32, {batch, sequence, 64}}, x), weight,
        table,
        session->upload({ElementType::F32, {batch, past, 96}},
                        randomValues(random, batch * past * 96))};
    Expected<std::vector<Tensor>> y = callSymbolic(*session, *prepared, inputs);
    if (!y.ok())
      return y.status();
    Expected<std::vector<double>> got = (*y)[0].readDoubles();
    EXPECT_TRUE(got.ok());
    for (std::int64_t r = 0; got.ok() && r < batch * sequence; ++r)
      for (std::int64_t j = 0; j < 96; ++j) {
        std::int64_t position = std::min(past + r % sequence, rows - 1);
        double want = t[position * 96 + j], scale = 1;
        for (std::int64_t p = 0; p < 64; ++p) {
          want += x[r * 64 + p] * w[p * 96 + j];
          scale += std::abs(x[r * 64 + p] * w[p * 96 + j]);
        }
        EXPECT_NEAR((*got)[r * 96 + j], want, 1e-5 * scale) << r << "," << j;
      }
    return Status::success();
  };
  for (auto [past, sequence] : std::vector<std::pair<int, int>>{
           {0, 5}, {5, 1}, {6, 1}, {7, 1}, {45, 1}, {300, 1}}) {
    Status status = call(past, sequence);
    EXPECT_TRUE(status.ok()) << status.message();
  }
  EXPECT_EQ(session->counters().arenasOutgrown, 0u);
  std::uint64_t launched = session->counters().kernelsLaunched;
  Status outside = call(301, 1);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.message().find("dim 'past' is 301, outside its declared "
                                   "range past=0..300"),
            std::string::npos)
      << outside.message();
  EXPECT_EQ(session->counters().kernelsLaunched, launched);
  EXPECT_EQ(session->counters().compilations, 1u);
}

/// Without a heads dim the scores matmul's keys are a symbolic N, which no
/// kernel takes at run time yet: the call says it was refused, so that the
/// caller can bind the dims instead.
TEST(EngineTargetCompilerTest, ARefusedSymbolicGraphSaysSo) {
  TargetDispatchCompiler compiler;
  Expected<Session> session = openHostSession(compiler);
  if (!session.ok())
    GTEST_SKIP() << session.message();
  Expected<Graph> graph = cacheStep(0);
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<Tensor> inputs{
      session->upload(TensorType{ElementType::F32, {3, 8}},
                      std::vector<double>(24, 0.5)),
      session->upload(TensorType{ElementType::F32, {1, 8}},
                      std::vector<double>(8, 0.25))};
  bool refused = false;
  Expected<std::vector<Tensor>> outputs =
      callSymbolic(*session, *graph, inputs, &refused);
  ASSERT_FALSE(outputs.ok());
  EXPECT_TRUE(refused);
  EXPECT_NE(outputs.message().find("needs a static value of dims"),
            std::string::npos)
      << outputs.message();
}

TEST(EngineTargetCompilerTest, OtherTargetsAreErrorsThatNameThem) {
  TargetDispatchCompiler compiler;
  Graph graph;
  Expected<Compilation> compilation =
      compiler.compile(graph, Target{"reference"}, CompileOptions{});
  ASSERT_FALSE(compilation.ok());
  EXPECT_NE(compilation.message().find("'reference'"), std::string::npos)
      << compilation.message();
  EXPECT_EQ(compiler.hostCompiler(), nullptr);
  EXPECT_EQ(compiler.gpuCompiler(), nullptr);
}

} // namespace
} // namespace fuse::engine
