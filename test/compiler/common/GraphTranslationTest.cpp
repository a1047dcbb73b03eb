// Graph -> fuse dialect -> text -> fuse dialect -> Graph gives the same
// Graph, for every op of the op table; bad functions get clear errors.

#include "compiler/common/GraphTranslation.h"
#include "ExampleGraphs.h"
#include "runtime/ir/GraphHash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace fuse {
namespace {

struct Translator {
  Translator() { loadTranslationDialects(context); }

  /// Graph -> module -> printed text -> parsed module -> Graph.
  mlir::FailureOr<Graph> roundTrip(const Graph &graph, std::string *text) {
    auto module = graphToModule(context, graph);
    if (mlir::failed(module))
      return mlir::failure();
    llvm::raw_string_ostream os(*text);
    // Locations carry the names of intermediates.
    (*module)->print(os, mlir::OpPrintingFlags().enableDebugInfo());
    mlir::OwningOpRef<mlir::ModuleOp> parsed =
        mlir::parseSourceString<mlir::ModuleOp>(*text, &context);
    if (!parsed)
      return mlir::failure();
    return moduleToGraph(*parsed);
  }

  /// moduleToGraph on `source`; the diagnostics land in `errors`.
  mlir::FailureOr<Graph> fromText(const std::string &source,
                                  std::string &errors) {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      errors += d.str() + "\n";
      return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> parsed =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    if (!parsed)
      return mlir::failure();
    return moduleToGraph(*parsed);
  }

  mlir::MLIRContext context;
};

TEST(GraphTranslation, EveryOpRoundTrips) {
  Translator t;
  for (OpKind kind : allOpKinds()) {
    std::vector<Graph> graphs = test::exampleGraphs(kind);
    ASSERT_FALSE(graphs.empty()) << mnemonic(kind) << " has no example";
    for (const Graph &graph : graphs) {
      std::string text;
      mlir::FailureOr<Graph> back = t.roundTrip(graph, &text);
      ASSERT_TRUE(mlir::succeeded(back)) << mnemonic(kind) << "\n" << text;
      EXPECT_EQ(*back, graph) << mnemonic(kind) << "\n" << text;
      EXPECT_NE(text.find("fuse." + std::string(mnemonic(kind))),
                std::string::npos)
          << text;
    }
  }
}

/// Every element type maps to its MLIR type and back (i16 to i16, the ui
/// types to the unsigned ui8 ... ui64), in tensors, in the cast attribute and
/// in dense constants, where a ui64 above INT64_MAX keeps its bits.
TEST(GraphTranslation, EveryElementTypeRoundTrips) {
  Translator t;
  for (ElementType type : allElementTypes()) {
    GraphBuilder b;
    TensorId x = b.input({type, {3}}, "x");
    b.output(b.cast(x, type == ElementType::F32 ? ElementType::UI64
                                                : ElementType::F32),
             "cast");
    b.output(b.cast(b.cast(x, ElementType::F32), type), "cast_back");
    b.output(b.splat({type, {3}}, 1.0), "splat");
    Graph graph = *b.finish();
    std::string text;
    mlir::FailureOr<Graph> back = t.roundTrip(graph, &text);
    ASSERT_TRUE(mlir::succeeded(back)) << elementTypeName(type) << "\n" << text;
    EXPECT_EQ(*back, graph) << text;
    EXPECT_NE(text.find("tensor<3x" + std::string(elementTypeName(type)) + ">"),
              std::string::npos)
        << text;
  }
  GraphBuilder b;
  TensorType ui64{ElementType::UI64, {2}};
  TensorId x = b.input(ui64, "x");
  std::vector<std::int64_t> bits = {-1,
                                    std::numeric_limits<std::int64_t>::min()};
  b.output(b.add(x, b.constant(DenseValue::fromInts(ui64, bits))), "y");
  Graph graph = *b.finish();
  std::string text;
  mlir::FailureOr<Graph> back = t.roundTrip(graph, &text);
  ASSERT_TRUE(mlir::succeeded(back)) << text;
  EXPECT_EQ(*back, graph) << text;
  EXPECT_NE(text.find("[18446744073709551615, 9223372036854775808]"),
            std::string::npos)
      << text;
}

/// A symbolic graph (issue 22) translates both ways: its dims become `?`
/// named by #fuse.dims, iota and dim_value are dialect ops, a slice's
/// symbolic size is -1, and the graph comes back equal (its table in its
/// order) with the same hash.
TEST(GraphTranslation, SymbolicGraphsRoundTrip) {
  Translator t;
  GraphBuilder b;
  const std::int64_t batch = b.symbol("batch"), seq = b.symbol("sequence");
  const std::int64_t flat = b.dim(
      *DimExpr::mul(DimExpr::symbol("batch"), DimExpr::symbol("sequence")));
  TensorId x = b.input({ElementType::F32, {batch, seq, 8}}, "x");
  TensorId w = b.input({ElementType::F32, {8, 8}}, "w");
  TensorId bias = b.input({ElementType::F32, {8}}, "bias");
  // Inputs first: the way back adds the arguments before the ops.
  TensorId head = b.input({ElementType::F32, {batch, 1, 8}}, "head");
  TensorId table = b.input({ElementType::F32, {1, 512}}, "positions");
  TensorId mm = b.matmul(x, w);
  TensorId y = b.tanh(b.add(mm, b.broadcast(bias, {batch, seq, 8}, {2})));
  TensorId r = b.reshape(y, {flat, 8});
  TensorId red = b.reduce(ReduceKind::Max, y, {2}, true);
  TensorId cat = b.concat({head, x}, 1);
  TensorId tail = b.slice(cat, {0, 1, 0}, {batch, seq, 8}, {1, 1, 1});
  TensorId part = b.slice(table, {0, 0}, {1, seq}, {1, 1});
  TensorId positions = b.iota({ElementType::I64, {seq}}, 0);
  TensorId length = b.dimValue({ElementType::I64, {}}, flat);
  // Predicates keep the operand's named dims (i1 of its shape).
  TensorId positive = b.compare(ComparePredicate::Gt, y, mm);
  TensorId nan = b.unary(OpKind::IsNaN, y);
  TensorId chosen = b.select(b.op(OpKind::Or, {positive, nan}), y, mm);
  b.output(r, "r");
  b.output(b.cast(chosen, ElementType::I32), "chosen");
  b.output(red, "red");
  b.output(b.transpose(tail, {1, 0, 2}), "tail");
  b.output(part, "part");
  b.output(positions, "positions");
  b.output(length, "length");
  Graph graph = *b.finish();
  ASSERT_TRUE(graph.isSymbolic());
  std::string text;
  mlir::FailureOr<Graph> back = t.roundTrip(graph, &text);
  ASSERT_TRUE(mlir::succeeded(back)) << text;
  EXPECT_EQ(*back, graph) << text;
  EXPECT_EQ(hashGraph(*back), hashGraph(graph)) << text;
  for (const char *expected :
       {"tensor<?x?x8xf32, #fuse.dims<batch, sequence>>",
        "tensor<?x8xf32, #fuse.dims<batch*sequence>>",
        "tensor<?x?x8xf32, #fuse.dims<batch, sequence + 1>>", "sizes = [1, -1]",
        "fuse.iota axis = 0 : tensor<?xi64, "
        "#fuse.dims<sequence>>",
        "fuse.dim_value {dim = #fuse.dims<batch*sequence>} : tensor<i64>",
        "tensor<?x?x8xi1, #fuse.dims<batch, sequence>>, "
        "tensor<?x?x8xf32, #fuse.dims<batch, sequence>>",
        "to tensor<?x?x8xi32, #fuse.dims<batch, sequence>>",
        "fuse.dim_symbols = [\"batch\", \"sequence\"]"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n"
                                                      << text;

  // Without the function's table the types still name every dim: the graph
  // comes back with its table in order of first use, and the same hash.
  auto module = graphToModule(t.context, graph);
  ASSERT_TRUE(mlir::succeeded(module));
  for (auto func : (*module)->getOps<mlir::func::FuncOp>()) {
    func->removeAttr(kDimSymbolsAttr);
    func->removeAttr(kDimTableAttr);
  }
  mlir::FailureOr<Graph> bare = moduleToGraph(**module);
  ASSERT_TRUE(mlir::succeeded(bare));
  EXPECT_EQ(hashGraph(*bare), hashGraph(graph));
}

/// A splat constant of symbolic shape has no dialect form yet: refused,
/// naming the op and its type.
TEST(GraphTranslation, RefusesASymbolicSplat) {
  mlir::MLIRContext context;
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    errors += d.str() + "\n";
    return mlir::success();
  });
  GraphBuilder b;
  const std::int64_t s = b.symbol("sequence");
  b.output(b.add(b.input({ElementType::F32, {s, 4}}),
                 b.splat({ElementType::F32, {s, 4}}, 1.0)));
  EXPECT_TRUE(mlir::failed(graphToModule(context, *b.finish())));
  EXPECT_NE(errors.find("(constant) is a splat of symbolic shape "
                        "tensor<?{sequence}x4xf32>"),
            std::string::npos)
      << errors;
}

TEST(GraphTranslation, NamesAndOutputsSurvive) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2, 3}}, "x");
  TensorId bias = b.input({ElementType::F32, {3}}, "bias");
  TensorId bb = b.broadcast(bias, {2, 3}, {1});
  TensorId y = b.add(x, bb);
  TensorId e = b.exp(y);
  b.output(e, "e");
  b.output(x, "x_again");
  b.output(e, "e_again");
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  graph->tensors[y].name = "sum";
  Translator t;
  std::string text;
  mlir::FailureOr<Graph> back = t.roundTrip(*graph, &text);
  ASSERT_TRUE(mlir::succeeded(back)) << text;
  EXPECT_EQ(*back, *graph) << text;
  EXPECT_NE(text.find("fuse.name = \"bias\""), std::string::npos) << text;
  EXPECT_NE(text.find("loc(\"sum\")"), std::string::npos) << text;
}

TEST(GraphTranslation, FusionRegionsAreFlattened) {
  const std::string source = R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r, %s = fuse.fusion pointwise (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = fuse.exp %a : tensor<4xf32>
    %n = fuse.neg %e : tensor<4xf32>
    fuse.yield %e, %n : tensor<4xf32>, tensor<4xf32>
  }
  %t = fuse.add %r, %s : tensor<4xf32>
  return %t : tensor<4xf32>
})mlir";
  Translator t;
  std::string errors;
  mlir::FailureOr<Graph> graph = t.fromText(source, errors);
  ASSERT_TRUE(mlir::succeeded(graph)) << errors;
  ASSERT_EQ(graph->ops.size(), 3u);
  EXPECT_EQ(graph->ops[0].kind, OpKind::Exp);
  EXPECT_EQ(graph->ops[1].kind, OpKind::Neg);
  EXPECT_EQ(graph->ops[2].kind, OpKind::Add);
  EXPECT_EQ(
      graph->ops[2].operands,
      (std::vector<TensorId>{graph->ops[0].result(), graph->ops[1].result()}));
}

struct BadFunction {
  const char *name;
  const char *source;
  const char *message;
};

void PrintTo(const BadFunction &bad, std::ostream *os) { *os << bad.name; }

class GraphTranslationErrors : public testing::TestWithParam<BadFunction> {};

TEST_P(GraphTranslationErrors, SaysWhatIsWrong) {
  Translator t;
  std::string errors;
  mlir::FailureOr<Graph> graph = t.fromText(GetParam().source, errors);
  EXPECT_TRUE(mlir::failed(graph));
  EXPECT_NE(errors.find(GetParam().message), std::string::npos) << errors;
}

INSTANTIATE_TEST_SUITE_P(
    All, GraphTranslationErrors,
    testing::Values(
        BadFunction{"ForeignOp",
                    R"(func.func private @g(tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
})",
                    "is not a fuse tensor op"},
        BadFunction{"UnsupportedArgumentType",
                    R"(func.func @f(%x: tensor<4xsi16>) -> tensor<4xsi16> {
  return %x : tensor<4xsi16>
})",
                    "expected a tensor of a Fuse element type"},
        BadFunction{"DynamicShape",
                    R"(func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
})",
                    "expected a tensor of a Fuse element type"},
        BadFunction{"NoBody", R"(func.func private @f(%x: tensor<4xf32>))",
                    "holds no function with a body"},
        BadFunction{"TwoFunctions",
                    R"(func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
})",
                    "more than one function"},
        BadFunction{"UnknownAttribute",
                    R"(func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = fuse.exp %x {foo = 1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
})",
                    "attribute 'foo' has no Graph equivalent"}),
    [](const testing::TestParamInfo<BadFunction> &info) {
      return info.param.name;
    });

} // namespace
} // namespace fuse
