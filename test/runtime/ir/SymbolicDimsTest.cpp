//===- SymbolicDimsTest.cpp - DimExpr, symbolic graphs, bindDims ----------===//

#include "InterpreterTestSupport.h"

#include "runtime/ir/DimExpr.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Interpreter.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <limits>

using namespace fuse;
using namespace fuse::irtest;

namespace {

DimExpr sym(const char *name) { return DimExpr::symbol(name); }
DimExpr num(std::int64_t value) { return DimExpr::constant(value); }
DimExpr add(const DimExpr &a, const DimExpr &b) { return *DimExpr::add(a, b); }
DimExpr sub(const DimExpr &a, const DimExpr &b) { return *DimExpr::sub(a, b); }
DimExpr mul(const DimExpr &a, const DimExpr &b) { return *DimExpr::mul(a, b); }

TEST(DimExpr, CanonicalFormMakesEqualPolynomialsEqual) {
  const DimExpr b = sym("batch"), s = sym("sequence");
  // (b + s) * (b - s) == b*b - s*s, however it was built.
  EXPECT_EQ(mul(add(b, s), sub(b, s)), sub(mul(b, b), mul(s, s)));
  EXPECT_EQ(add(s, b), add(b, s));
  EXPECT_EQ(mul(mul(num(12), s), b), mul(b, mul(s, num(12))));
  // Terms that cancel leave nothing: zero terms are dropped.
  EXPECT_EQ(sub(add(s, num(3)), s), num(3));
  EXPECT_TRUE(sub(s, s).isConstant());
  EXPECT_EQ(sub(s, s), DimExpr());
  EXPECT_NE(add(s, num(1)), s);
  EXPECT_NE(mul(s, s), mul(s, num(2)));
}

TEST(DimExpr, PrintsHigherDegreeFirst) {
  const DimExpr b = sym("batch"), s = sym("sequence");
  EXPECT_EQ(mul(mul(b, s), num(12)).toString(), "batch*sequence*12");
  EXPECT_EQ(sub(s, num(1)).toString(), "sequence-1");
  EXPECT_EQ(sub(num(2), mul(s, num(3))).toString(), "-sequence*3+2");
  EXPECT_EQ(add(mul(s, s), b).toString(), "sequence*sequence+batch");
  EXPECT_EQ(DimExpr().toString(), "0");
  EXPECT_EQ(num(-7).toString(), "-7");
}

TEST(DimExpr, QueriesItsForm) {
  const DimExpr s = sym("s");
  EXPECT_EQ(num(5).constantValue(), 5);
  EXPECT_EQ(s.constantValue(), std::nullopt);
  EXPECT_EQ(s.symbolName(), "s");
  EXPECT_EQ(mul(s, num(2)).symbolName(), std::nullopt);
  EXPECT_TRUE(add(mul(s, num(2)), num(1)).isNonNegative());
  EXPECT_FALSE(sub(s, num(1)).isNonNegative());
  EXPECT_EQ(mul(sym("b"), s).symbols(), (std::vector<std::string>{"b", "s"}));
  EXPECT_EQ(mul(s, num(3)).hash(), mul(num(3), s).hash());
}

TEST(DimExpr, DividesExactlyOrSaysNotRepresentable) {
  const DimExpr b = sym("batch"), s = sym("sequence");
  const DimExpr bs12 = mul(mul(b, s), num(12));
  EXPECT_EQ(*DimExpr::divideExact(bs12, num(4)), mul(mul(b, s), num(3)));
  EXPECT_EQ(*DimExpr::divideExact(bs12, b), mul(s, num(12)));
  EXPECT_EQ(*DimExpr::divideExact(bs12, mul(s, num(6))), mul(b, num(2)));
  // A factor that is not a monomial: (b*s + b) / (s + 1) = b.
  EXPECT_EQ(*DimExpr::divideExact(add(mul(b, s), b), add(s, num(1))), b);
  EXPECT_EQ(*DimExpr::divideExact(num(12), num(-3)), num(-4));

  Expected<DimExpr> odd = DimExpr::divideExact(s, num(2));
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.message().find("not representable"), std::string::npos)
      << odd.message();
  EXPECT_FALSE(DimExpr::divideExact(add(s, num(1)), s).ok());
  EXPECT_FALSE(DimExpr::divideExact(b, s).ok());
  EXPECT_FALSE(DimExpr::divideExact(s, DimExpr()).ok());
  // INT64_MIN / -1 overflows: an error, not a trap (a crafted model's
  // shape arithmetic can reach it).
  const DimExpr lowest = num(std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(DimExpr::divideExact(lowest, num(-1)).ok());
  EXPECT_FALSE(DimExpr::divideExact(mul(s, lowest), num(-1)).ok());
}

TEST(DimExpr, RefusesCoefficientOverflow) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const DimExpr s = sym("s");
  EXPECT_FALSE(DimExpr::add(mul(s, num(big)), s).ok());
  EXPECT_FALSE(DimExpr::mul(mul(s, num(big)), num(2)).ok());
  EXPECT_FALSE(DimExpr::sub(num(-2), num(big)).ok());
  EXPECT_TRUE(DimExpr::add(mul(s, num(big)), mul(s, num(-1))).ok());
}

TEST(DimExpr, EvaluatesWithCheckedArithmetic) {
  const DimExpr b = sym("batch"), s = sym("sequence");
  const DimExpr e = sub(mul(mul(b, s), num(12)), num(5));
  EXPECT_EQ(*e.evaluate({{"batch", 2}, {"sequence", 7}}), 2 * 7 * 12 - 5);
  Expected<std::int64_t> missing = e.evaluate({{"batch", 2}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("'sequence'"), std::string::npos)
      << missing.message();
  Expected<std::int64_t> huge =
      e.evaluate({{"batch", std::int64_t(1) << 40}, {"sequence", 1 << 30}});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.message().find("2^63"), std::string::npos);
}

TEST(DimTable, InternsOneCodePerExpression) {
  DimTable table;
  const std::int64_t s = table.symbol("sequence");
  EXPECT_LT(s, 0);
  EXPECT_EQ(table.symbol("sequence"), s);
  const std::int64_t twice = *table.intern(mul(sym("sequence"), num(2)));
  EXPECT_EQ(*table.intern(add(sym("sequence"), sym("sequence"))), twice);
  EXPECT_NE(twice, s);
  // Constants are their value; a negative one is refused.
  EXPECT_EQ(*table.intern(num(7)), 7);
  EXPECT_FALSE(table.intern(num(-1)).ok());
  // A new symbol inside an expression is declared.
  (void)*table.intern(mul(sym("batch"), sym("sequence")));
  EXPECT_EQ(table.symbols, (std::vector<std::string>{"sequence", "batch"}));
  EXPECT_EQ(table.dimString(twice), "sequence*2");
  EXPECT_EQ(table.dimString(3), "3");
}

/// x: [batch, sequence, 8] f32, with the builder's dims.
struct Symbolic {
  GraphBuilder b;
  std::int64_t batch = b.symbol("batch");
  std::int64_t sequence = b.symbol("sequence");
  TensorId x = b.input({ElementType::F32, {batch, sequence, 8}}, "x");
};

TEST(SymbolicGraph, InfersShapesOverSymbolicDims) {
  Symbolic t;
  GraphBuilder &b = t.b;
  const std::int64_t bs = b.dim(mul(sym("batch"), sym("sequence")));
  TensorId e = b.exp(t.x);
  TensorId flat = b.reshape(e, {bs, 8});
  TensorId back = b.reshape(flat, {t.batch, t.sequence, 2, 4});
  TensorId tr = b.transpose(back, {0, 2, 1, 3});
  TensorId cat = b.concat({t.x, t.x}, 1);
  TensorId red = b.reduce(ReduceKind::Sum, t.x, {1}, true);
  TensorId arg = b.argmax(t.x, 1);
  TensorId w = b.input({ElementType::F32, {8, 5}}, "w");
  TensorId mm = b.matmul(t.x, w);
  TensorId table = b.input({ElementType::F32, {100, 4}}, "table");
  TensorId ids = b.input({ElementType::I64, {t.batch, t.sequence}}, "ids");
  TensorId g = b.gather(table, ids, 0);
  TensorId one = b.input({ElementType::F32, {1, t.sequence, 1}}, "one");
  TensorId wide = b.broadcast(one, {t.batch, t.sequence, 8}, {0, 1, 2});
  TensorId sel =
      b.select(b.compare(ComparePredicate::Lt, t.x, wide), t.x,
               b.splat({ElementType::F32, {t.batch, t.sequence, 8}}, 0.0));
  TensorId c = b.cast(sel, ElementType::F16);
  ASSERT_TRUE(b.status().ok()) << b.status().message();
  const Graph &graph = b.graph();
  EXPECT_EQ(graph.typeString(graph.typeOf(tr)),
            "tensor<?{batch}x2x?{sequence}x4xf32>");
  EXPECT_EQ(graph.typeString(graph.typeOf(cat)),
            "tensor<?{batch}x?{sequence*2}x8xf32>");
  EXPECT_EQ(graph.typeOf(red).shape,
            (std::vector<std::int64_t>{t.batch, 1, 8}));
  EXPECT_EQ(graph.typeOf(arg).shape, (std::vector<std::int64_t>{t.batch, 8}));
  EXPECT_EQ(graph.typeOf(mm).shape,
            (std::vector<std::int64_t>{t.batch, t.sequence, 5}));
  EXPECT_EQ(graph.typeOf(g).shape,
            (std::vector<std::int64_t>{t.batch, t.sequence, 4}));
  EXPECT_EQ(graph.typeOf(c).shape, graph.typeOf(t.x).shape);
  EXPECT_FALSE(graph.typeOf(c).isStatic());
  EXPECT_TRUE(graph.isSymbolic());
  EXPECT_TRUE(validate(graph).ok()) << validate(graph).message();
}

TEST(SymbolicGraph, SlicesWhatFitsForEveryValue) {
  Symbolic t;
  GraphBuilder &b = t.b;
  // Whole symbolic dims, and a symbolic size on a static dim (checked when
  // bound).
  TensorId whole = b.slice(t.x, {0, 0, 2}, {t.batch, t.sequence, 3}, {1, 1, 2});
  TensorId table = b.input({ElementType::F32, {1, 512}}, "positions");
  TensorId part = b.slice(table, {0, 0}, {1, t.sequence}, {1, 1});
  // sequence + 1 rows, of which the last sequence fit.
  TensorId head = b.input({ElementType::F32, {t.batch, 1, 8}}, "head");
  TensorId y = b.concat({head, t.x}, 1);
  TensorId tail = b.slice(y, {0, 1, 0}, {t.batch, t.sequence, 8}, {1, 1, 1});
  ASSERT_TRUE(b.status().ok()) << b.status().message();
  EXPECT_EQ(b.graph().typeOf(whole).shape,
            (std::vector<std::int64_t>{t.batch, t.sequence, 3}));
  EXPECT_EQ(b.graph().typeOf(part).shape,
            (std::vector<std::int64_t>{1, t.sequence}));
  EXPECT_EQ(b.graph().typeOf(tail).shape, b.graph().typeOf(t.x).shape);
}

TEST(SymbolicGraph, RefusesWhatItCannotProve) {
  auto refused = [](auto build, const char *expected) {
    Symbolic t;
    build(t);
    ASSERT_FALSE(t.b.status().ok()) << expected;
    EXPECT_NE(t.b.status().message().find(expected), std::string::npos)
        << t.b.status().message();
  };
  // A reshape whose counts differ for some values.
  refused(
      [](Symbolic &t) {
        t.b.reshape(t.x, {t.batch, t.sequence, 4});
      },
      "equal for every value");
  // A slice of a symbolic dim that may not fit.
  refused(
      [](Symbolic &t) {
        t.b.slice(t.x, {0, 1, 0}, {t.batch, t.sequence, 8}, {1, 1, 1});
      },
      "is symbolic (sequence)");
  refused(
      [](Symbolic &t) {
        t.b.slice(t.x, {0, 0, 0}, {t.batch, 3, 8}, {1, 1, 1});
      },
      "a slice takes it whole");
  // Elementwise operands of different symbolic dims.
  refused(
      [](Symbolic &t) {
        TensorId y =
            t.b.input({ElementType::F32, {t.sequence, t.batch, 8}}, "y");
        t.b.add(t.x, y);
      },
      "no implicit broadcasting");
  // A broadcast from a symbolic dim to another.
  refused(
      [](Symbolic &t) {
        t.b.broadcast(t.x, {t.batch, t.batch, 8}, {0, 1, 2});
      },
      "cannot broadcast");
  // Ops that need static dims say so.
  refused(
      [](Symbolic &t) {
        GraphBuilder::PoolWindow window{{2}, {2}, {1}, {0, 0}};
        t.b.pool(ReduceKind::Max, t.x, window);
      },
      "pool needs static dims");
  refused(
      [](Symbolic &t) {
        TensorId w = t.b.input({ElementType::F32, {4, 8, 3}}, "w");
        t.b.conv(t.x, w, kInvalidTensor, {1}, {1}, {0, 0});
      },
      "conv needs static dims");
  // A full constant of symbolic shape, and a dim code the graph lacks.
  refused(
      [](Symbolic &t) {
        t.b.constant(DenseValue::fromInts({ElementType::I64, {2}}, {{1, 2}}));
        DenseValue v = DenseValue::fromInts({ElementType::I64, {1}}, {{1}});
        v.shape = {t.sequence};
        t.b.constant(v);
      },
      "only a splat may have symbolic dims");
  refused([](Symbolic &t) { t.b.reshape(t.x, {-40}); },
          "not a symbolic dim of the graph");
}

TEST(SymbolicGraph, StaticGraphsDoNotChange) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2, 3}}, "x");
  b.output(b.concat({x, x}, 0), "y");
  Graph graph = *b.finish();
  EXPECT_FALSE(graph.isSymbolic());
  EXPECT_TRUE(graph.dims.empty());
  // Without a table, a negative dim is still an error.
  EXPECT_FALSE(checkTensorType({ElementType::F32, {-1, 3}}, "t").ok());
  Expected<Graph> same = bindDims(graph, {});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, graph);
  EXPECT_FALSE(bindDims(graph, {{"sequence", 4}}).ok());
}

/// x [batch, sequence, 8] -> reshape [batch*sequence, 8] -> + iota over
/// the rows (f32) -> concat with x's first row along the rows.
Graph symbolicExample() {
  Symbolic t;
  GraphBuilder &b = t.b;
  const std::int64_t rows = b.dim(mul(sym("batch"), sym("sequence")));
  TensorId flat = b.reshape(t.x, {rows, 8});
  TensorId index = b.iota({ElementType::F32, {rows, 8}}, 0);
  TensorId count = b.dimValue({ElementType::F32, {rows, 8}}, t.sequence);
  TensorId sum = b.add(b.add(flat, index), count);
  TensorId head = b.input({ElementType::F32, {1, 8}}, "head");
  b.output(b.concat({sum, head}, 0), "y");
  EXPECT_TRUE(b.status().ok()) << b.status().message();
  return b.graph();
}

TEST(BindDims, MakesTheStaticGraphOfTheValues) {
  Graph graph = symbolicExample();
  ASSERT_TRUE(validate(graph).ok()) << validate(graph).message();
  Expected<Graph> bound = bindDims(graph, {{"batch", 2}, {"sequence", 3}});
  ASSERT_TRUE(bound.ok()) << bound.message();
  EXPECT_FALSE(bound->isSymbolic());
  EXPECT_TRUE(validate(*bound).ok());
  EXPECT_EQ(bound->typeOf(bound->inputs[0]).shape,
            (std::vector<std::int64_t>{2, 3, 8}));
  EXPECT_EQ(bound->typeOf(bound->outputs[0].tensor).shape,
            (std::vector<std::int64_t>{7, 8}));
  for (const Op &op : bound->ops)
    EXPECT_FALSE(isBindTimeOp(op.kind)) << mnemonic(op.kind);
  EXPECT_EQ(bound->tensors[bound->inputs[0]].name, "x");

  std::vector<double> xs(48);
  for (std::size_t i = 0; i < xs.size(); ++i)
    xs[i] = double(i) * 0.5;
  HostTensorData x = f32({2, 3, 8}, xs);
  HostTensorData head = f32({1, 8}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<HostTensor> views{x.view(), head.view()};
  Expected<std::vector<HostTensorData>> out = evaluateGraph(*bound, views);
  ASSERT_TRUE(out.ok()) << out.message();
  std::vector<double> y = out->front().toDoubles();
  ASSERT_EQ(y.size(), 56u);
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t c = 0; c < 8; ++c)
      EXPECT_EQ(y[r * 8 + c], xs[r * 8 + c] + double(r) + 3.0);
  for (std::size_t c = 0; c < 8; ++c)
    EXPECT_EQ(y[48 + c], double(c + 1));

  // The symbolic graph itself is refused by the interpreter.
  Expected<std::vector<HostTensorData>> refused = evaluateGraph(graph, views);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("bindDims"), std::string::npos);
}

TEST(BindDims, NamesWhatIsWrong) {
  Graph graph = symbolicExample();
  auto message = [&](DimBindings values) {
    Expected<Graph> bound = bindDims(graph, values);
    return bound.ok() ? std::string("(bound)") : bound.message();
  };
  EXPECT_NE(message({{"batch", 2}}).find("dim 'sequence' has no value"),
            std::string::npos);
  EXPECT_NE(message({{"batch", 2}, {"sequence", -1}}).find("'sequence'"),
            std::string::npos);
  EXPECT_NE(
      message({{"batch", 2}, {"sequence", 3}, {"heads", 4}}).find("'heads'"),
      std::string::npos);
  EXPECT_NE(message({{"batch", std::int64_t(1) << 40},
                     {"sequence", std::int64_t(1) << 30}})
                .find("2^63"),
            std::string::npos);
}

TEST(BindDims, ChecksAStaticDimsSymbolicSlice) {
  GraphBuilder b;
  const std::int64_t s = b.symbol("sequence");
  TensorId table = b.input({ElementType::F32, {1, 16}}, "positions");
  b.output(b.slice(table, {0, 0}, {1, s}, {1, 1}), "y");
  Graph graph = *b.finish();
  ASSERT_TRUE(bindDims(graph, {{"sequence", 16}}).ok());
  Expected<Graph> tooLong = bindDims(graph, {{"sequence", 17}});
  ASSERT_FALSE(tooLong.ok());
  EXPECT_NE(tooLong.message().find("too small"), std::string::npos)
      << tooLong.message();
  EXPECT_NE(tooLong.message().find("binding sequence=17: op #0 (slice)"),
            std::string::npos)
      << tooLong.message();
}

TEST(SymbolicGraph, HashCoversTheDims) {
  const Hash128 symbolic = hashGraph(symbolicExample());
  EXPECT_EQ(hashGraph(symbolicExample()), symbolic);
  Graph bound = *bindDims(symbolicExample(), {{"batch", 2}, {"sequence", 3}});
  EXPECT_NE(hashGraph(bound), symbolic);

  // Another name for a symbol, or another expression, is another graph.
  auto expOf = [](const char *name, std::int64_t factor) {
    GraphBuilder b;
    const std::int64_t d = b.dim(mul(sym(name), num(factor)));
    b.output(b.exp(b.input({ElementType::F32, {d, 4}})));
    return hashGraph(b.graph());
  };
  EXPECT_EQ(expOf("s", 2), expOf("s", 2));
  EXPECT_NE(expOf("s", 2), expOf("u", 2));
  EXPECT_NE(expOf("s", 2), expOf("s", 3));

  // The codes' order is not part of the identity: the same graph with its
  // symbols interned the other way round hashes alike.
  GraphBuilder b1, b2;
  const std::int64_t s1 = b1.symbol("s"), t1 = b1.symbol("t");
  const std::int64_t t2 = b2.symbol("t"), s2 = b2.symbol("s");
  b1.output(b1.exp(b1.input({ElementType::F32, {s1, t1}})));
  b2.output(b2.exp(b2.input({ElementType::F32, {s2, t2}})));
  EXPECT_NE(b1.graph().dims, b2.graph().dims);
  EXPECT_EQ(hashGraph(b1.graph()), hashGraph(b2.graph()));
  EXPECT_EQ(canonicalize(canonicalize(b2.graph())), canonicalize(b2.graph()));
}

TEST(Iota, GivesCoordinatesAlongItsAxis) {
  GraphBuilder b;
  b.output(b.iota({ElementType::I64, {2, 3}}, 1), "columns");
  b.output(b.iota({ElementType::F32, {2, 3}}, 0), "rows");
  b.output(b.dimValue({ElementType::I32, {2}}, 7), "seven");
  Graph graph = *b.finish();
  Expected<std::vector<HostTensorData>> out =
      evaluateGraph(graph, std::span<const HostTensor>());
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ((*out)[0].toInts(), (std::vector<std::int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ((*out)[1].toDoubles(), (std::vector<double>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ((*out)[2].toInts(), (std::vector<std::int64_t>{7, 7}));

  GraphBuilder bad;
  bad.iota({ElementType::I1, {2}}, 0);
  EXPECT_FALSE(bad.status().ok());
  GraphBuilder axis;
  axis.iota({ElementType::I64, {2}}, 1);
  EXPECT_FALSE(axis.status().ok());
  GraphBuilder code;
  code.dimValue({ElementType::I64, {}}, -3);
  EXPECT_FALSE(code.status().ok());
}

} // namespace
