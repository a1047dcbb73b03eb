//===- GraphTest.cpp - Graph builder and type inference -------------------===//

#include "runtime/ir/Graph.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

using namespace fuse;

namespace {

TEST(OpTableTest, MnemonicsRoundTrip) {
  for (OpKind kind : allOpKinds()) {
    std::optional<OpKind> parsed = parseOpKind(mnemonic(kind));
    ASSERT_TRUE(parsed.has_value()) << mnemonic(kind);
    EXPECT_EQ(*parsed, kind);
  }
  EXPECT_FALSE(parseOpKind("frobnicate").has_value());
  EXPECT_EQ(mnemonic(OpKind::Add), "add");
  EXPECT_EQ(mnemonic(OpKind::Matmul), "matmul");
}

TEST(OpTableTest, AttributesFromOpsDef) {
  const AttrSpec *dims = findAttrSpec(OpKind::Reduce, "dims");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->kind, AttrKind::I64Array);
  EXPECT_TRUE(dims->required);
  const AttrSpec *keepDims = findAttrSpec(OpKind::Reduce, "keep_dims");
  ASSERT_NE(keepDims, nullptr);
  EXPECT_FALSE(keepDims->required);
  EXPECT_EQ(opInfo(OpKind::Rem).attributes.size(), 2u);
  EXPECT_EQ(opInfo(OpKind::Add).attributes.size(), 0u);
  EXPECT_EQ(opInfo(OpKind::Concat).numOperands, -1);
  EXPECT_EQ(opInfo(OpKind::Select).numOperands, 3);
  EXPECT_EQ(findAttrSpec(OpKind::Add, "unsigned"), nullptr);
}

TEST(GraphBuilderTest, InfersResultTypes) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2, 3}}, "x");
  TensorId w = b.input({ElementType::F32, {3, 4}}, "w");
  TensorId y = b.matmul(x, w);
  TensorId s = b.reduce(ReduceKind::Sum, b.exp(y), {1}, /*keepDims=*/true);
  TensorId c = b.compare(ComparePredicate::Lt, s, s);
  b.output(c, "c");
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(graph->typeOf(y), (TensorType{ElementType::F32, {2, 4}}));
  EXPECT_EQ(graph->typeOf(s), (TensorType{ElementType::F32, {2, 1}}));
  EXPECT_EQ(graph->typeOf(c), (TensorType{ElementType::I1, {2, 1}}));
  EXPECT_TRUE(validate(*graph).ok()) << validate(*graph).message();
}

TEST(GraphBuilderTest, FirstErrorIsSticky) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2}});
  TensorId y = b.input({ElementType::F32, {3}});
  EXPECT_EQ(b.add(x, y), kInvalidTensor);
  EXPECT_EQ(b.exp(x), kInvalidTensor);
  Expected<Graph> graph = b.finish();
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.message(),
            "op #0 (add): operand 1 has type tensor<3xf32>, expected "
            "tensor<2xf32> (the type of operand 0; there is no implicit "
            "broadcasting)");
}

// cast's f8 attributes are set only where they differ from a plain cast.
TEST(GraphBuilderTest, CastAttributes) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2}});
  TensorId plain = b.cast(x, ElementType::F8E8M0FNU);
  TensorId up = b.cast(x, ElementType::F8E8M0FNU, false,
                       CastOptions{true, E8M0RoundMode::Up});
  TensorId nearest = b.cast(x, ElementType::F8E8M0FNU, false,
                            CastOptions{false, E8M0RoundMode::Nearest});
  b.output(plain);
  b.output(up);
  b.output(nearest);
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_TRUE(graph->ops[0].attributes.empty());
  EXPECT_TRUE(graph->ops[1].getFlag("saturate"));
  EXPECT_EQ(graph->ops[1].findAttr("round_mode"), nullptr);
  EXPECT_FALSE(graph->ops[2].getFlag("saturate"));
  ASSERT_NE(graph->ops[2].findAttr("round_mode"), nullptr);
  EXPECT_EQ(graph->ops[2].findAttr("round_mode")->getEnumName(), "nearest");
  EXPECT_EQ(graph->typeOf(nearest), (TensorType{ElementType::F8E8M0FNU, {2}}));
}

} // namespace
