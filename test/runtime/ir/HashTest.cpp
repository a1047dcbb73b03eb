//===- HashTest.cpp - SHA-256, canonical form and graph hashing -----------===//

#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Sha256.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <set>

using namespace fuse;

namespace {

std::string hex(const Sha256::Digest &digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::uint8_t byte : digest) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 0xf];
  }
  return text;
}

// FIPS 180-4 example vectors.
TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(hex(Sha256::hash("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(Sha256::hash("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(Sha256::hash(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, StreamingEqualsOneShot) {
  const std::string text(1000, 'a');
  Sha256 hasher;
  for (std::size_t i = 0; i < text.size(); i += 7)
    hasher.update(std::string_view(text).substr(i, 7));
  EXPECT_EQ(hasher.finish(), Sha256::hash(text));
}

TEST(Hash128Test, HexRoundTrip) {
  const Hash128 hash{0x0123456789abcdefu, 0xfedcba9876543210u};
  EXPECT_EQ(hash.toHex(), "0123456789abcdeffedcba9876543210");
  EXPECT_EQ(Hash128::fromHex(hash.toHex()), hash);
  EXPECT_FALSE(Hash128::fromHex("0123").has_value());
  EXPECT_FALSE(Hash128::fromHex("0123456789abcdeffedcba987654321g"));
}

const TensorType kF32x23{ElementType::F32, {2, 3}};

Graph finished(GraphBuilder &builder) {
  Expected<Graph> graph = builder.finish();
  if (!graph.ok()) {
    ADD_FAILURE() << graph.message();
    return Graph();
  }
  return graph.take();
}

Graph addExpGraph() {
  GraphBuilder b;
  TensorId x = b.input(kF32x23, "x");
  TensorId y = b.input(kF32x23, "y");
  b.output(b.exp(b.add(x, y)), "z");
  return finished(b);
}

// The hash is a contract with the cache on disk: a change of encoding must
// be deliberate (and change the "fuse.graph.v1" tag).
TEST(GraphHashTest, StableValue) {
  EXPECT_EQ(hashGraph(addExpGraph()).toHex(),
            "7124b2e414338da727a7187c110d6393");
}

TEST(GraphHashTest, IndependentOfTensorIds) {
  // The same computation recorded with ids in another order: the exp
  // result is tensor 0, the add result tensor 3, inputs 2 and 1.
  Graph g;
  g.tensors = {{kF32x23, ""}, {kF32x23, "y"}, {kF32x23, "x"}, {kF32x23, ""}};
  g.inputs = {2, 1};
  g.ops = {{OpKind::Add, {2, 1}, {3}, {}}, {OpKind::Exp, {3}, {0}, {}}};
  g.outputs = {{0, "z"}};
  ASSERT_TRUE(validate(g).ok()) << validate(g).message();
  EXPECT_EQ(hashGraph(g), hashGraph(addExpGraph()));
  EXPECT_EQ(canonicalize(g), canonicalize(addExpGraph()));
}

TEST(GraphHashTest, IndependentOfNames) {
  GraphBuilder b;
  TensorId x = b.input(kF32x23, "first");
  TensorId y = b.input(kF32x23, "second");
  b.output(b.exp(b.add(x, y)), "result");
  EXPECT_EQ(hashGraph(finished(b)), hashGraph(addExpGraph()));
}

TEST(GraphHashTest, InputOrderMatters) {
  GraphBuilder b;
  TensorId x = b.input(kF32x23);
  TensorId y = b.input(kF32x23);
  b.output(b.exp(b.add(y, x)));
  EXPECT_NE(hashGraph(finished(b)), hashGraph(addExpGraph()));
}

// One minimal valid graph per op kind.
Graph graphWith(OpKind kind) {
  GraphBuilder b;
  const TensorType f32{ElementType::F32, {2, 3}};
  const TensorType i32{ElementType::I32, {2, 3}};
  const OpInfo &info = opInfo(kind);
  TensorId result = kInvalidTensor;
  if (info.form != OpForm::Structured) {
    const TensorType &type = info.typeRule == TypeRule::Integer ? i32 : f32;
    std::vector<TensorId> operands;
    for (int i = 0; i < info.numOperands; ++i)
      operands.push_back(b.input(type));
    result = b.op(kind, operands);
  } else {
    TensorId x = b.input(f32);
    switch (kind) {
    case OpKind::Compare:
      result = b.compare(ComparePredicate::Lt, x, b.input(f32));
      break;
    case OpKind::Select:
      result = b.select(b.input({ElementType::I1, {2, 3}}), x, b.input(f32));
      break;
    case OpKind::Cast:
      result = b.cast(x, ElementType::F16);
      break;
    case OpKind::Constant:
      result = b.splat(f32, 1.0);
      break;
    case OpKind::Broadcast:
      result = b.broadcast(x, {4, 2, 3}, {1, 2});
      break;
    case OpKind::Reshape:
      result = b.reshape(x, {3, 2});
      break;
    case OpKind::Transpose:
      result = b.transpose(x, {1, 0});
      break;
    case OpKind::Slice:
      result = b.slice(x, {0, 0}, {1, 3}, {1, 1});
      break;
    case OpKind::Concat:
      result = b.concat({x, x}, 0);
      break;
    case OpKind::Reduce:
      result = b.reduce(ReduceKind::Sum, x, {1});
      break;
    case OpKind::ArgMax:
      result = b.argmax(x, 1);
      break;
    case OpKind::ArgMin:
      result = b.argmin(x, 1);
      break;
    case OpKind::Matmul:
      result = b.matmul(x, b.input({ElementType::F32, {3, 2}}));
      break;
    case OpKind::Pool:
      result = b.pool(ReduceKind::Max, x, {{2}, {1}, {1}, {0, 0}});
      break;
    case OpKind::Im2col:
      result = b.im2col(x, {{2}, {1}, {1}, {0, 0}});
      break;
    case OpKind::Conv:
      result = b.conv(b.reshape(x, {1, 2, 3}),
                      b.input({ElementType::F32, {4, 2, 2}}), kInvalidTensor,
                      {1}, {1}, {0, 0});
      break;
    case OpKind::Gather:
      result = b.gather(x, b.input({ElementType::I64, {4}}), 1);
      break;
    case OpKind::Scatter:
      result = b.scatter(x, b.input({ElementType::I64, {1}}),
                         b.input({ElementType::F32, {1, 3}}));
      break;
    case OpKind::Iota:
      result = b.iota({ElementType::F32, {2, 3}}, 0);
      break;
    case OpKind::DimValue:
      result = b.dimValue({ElementType::F32, {2, 3}}, 2);
      break;
    default:
      break;
    }
  }
  b.output(result);
  Expected<Graph> graph = b.finish();
  EXPECT_TRUE(graph.ok()) << mnemonic(kind) << ": " << graph.message();
  EXPECT_NE(result, kInvalidTensor) << mnemonic(kind);
  return graph.ok() ? graph.take() : Graph();
}

TEST(GraphHashTest, EveryOpKindChangesIt) {
  std::set<Hash128> hashes;
  for (OpKind kind : allOpKinds())
    EXPECT_TRUE(hashes.insert(hashGraph(graphWith(kind))).second)
        << mnemonic(kind) << " hashes like another op";
  EXPECT_EQ(hashes.size(), allOpKinds().size());
}

TEST(GraphHashTest, EveryElementTypeChangesIt) {
  std::set<Hash128> hashes;
  for (ElementType type : allElementTypes()) {
    GraphBuilder b;
    TensorId x = b.input({type, {4}});
    b.output(b.reshape(x, {2, 2}));
    EXPECT_TRUE(hashes.insert(hashGraph(finished(b))).second)
        << elementTypeName(type);
  }
}

TEST(GraphHashTest, EveryShapeChangesIt) {
  const std::vector<std::vector<std::int64_t>> shapes = {
      {}, {0}, {1}, {6}, {2, 3}, {3, 2}, {1, 6}, {6, 1}, {2, 3, 1}, {1, 2, 3}};
  std::set<Hash128> hashes;
  for (const auto &shape : shapes) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, shape});
    b.output(b.neg(x));
    EXPECT_TRUE(hashes.insert(hashGraph(finished(b))).second);
  }
}

Graph reduceGraph(ReduceKind kind, std::vector<std::int64_t> dims,
                  bool keepDims) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {2, 3, 4}});
  b.output(b.reduce(kind, x, std::move(dims), keepDims));
  return finished(b);
}

TEST(GraphHashTest, EveryAttributeValueChangesIt) {
  std::set<Hash128> hashes;
  auto distinct = [&](const Graph &graph) {
    EXPECT_TRUE(validate(graph).ok()) << validate(graph).message();
    return hashes.insert(hashGraph(graph)).second;
  };
  // Enum, I64Array and Bool attributes.
  for (ReduceKind kind : {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max,
                          ReduceKind::Min, ReduceKind::Mean})
    EXPECT_TRUE(distinct(reduceGraph(kind, {1}, false)));
  EXPECT_TRUE(distinct(reduceGraph(ReduceKind::Sum, {0}, false)));
  EXPECT_TRUE(distinct(reduceGraph(ReduceKind::Sum, {0, 1}, false)));
  EXPECT_TRUE(distinct(reduceGraph(ReduceKind::Sum, {}, false)));
  EXPECT_TRUE(distinct(reduceGraph(ReduceKind::Sum, {1}, true)));
  for (int p = 0; p < 10; ++p) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::I32, {4}});
    b.output(b.compare(static_cast<ComparePredicate>(p), x, x));
    EXPECT_TRUE(distinct(finished(b))) << p;
  }
  // I64.
  for (std::int64_t axis : {0, 1}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2, 2}});
    b.output(b.concat({x, x}, axis));
    EXPECT_TRUE(distinct(finished(b)));
  }
  // Flags on binary ops.
  for (int flags = 0; flags < 4; ++flags) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::I32, {4}});
    b.output(b.rem(x, x, flags & 1, flags & 2));
    EXPECT_TRUE(distinct(finished(b))) << flags;
  }
  for (int flags = 0; flags < 4; ++flags) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2, 2}});
    b.output(b.matmul(x, x, flags & 1, flags & 2));
    EXPECT_TRUE(distinct(finished(b))) << flags;
  }
  for (bool selectLast : {false, true}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2, 2}});
    b.output(b.argmax(x, 0, false, selectLast));
    EXPECT_TRUE(distinct(finished(b)));
  }
  // Slice offsets, sizes and strides.
  for (auto [offset, size, stride] :
       {std::tuple{0, 2, 1}, {1, 2, 1}, {0, 3, 1}, {0, 2, 2}}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {6}});
    b.output(b.slice(x, {offset}, {size}, {stride}));
    EXPECT_TRUE(distinct(finished(b)));
  }
  for (auto permutation : {std::vector<std::int64_t>{0, 1, 2},
                           std::vector<std::int64_t>{2, 1, 0}}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2, 2, 2}});
    b.output(b.transpose(x, permutation));
    EXPECT_TRUE(distinct(finished(b)));
  }
  for (auto dims :
       {std::vector<std::int64_t>{0}, std::vector<std::int64_t>{1}}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2}});
    b.output(b.broadcast(x, {2, 2}, dims));
    EXPECT_TRUE(distinct(finished(b)));
  }
  // Dense constants, splat and full, by value.
  const TensorType f32x2{ElementType::F32, {2}};
  for (double value : {0.0, -0.0, 1.0, 2.0}) {
    GraphBuilder b;
    b.output(b.splat(f32x2, value));
    EXPECT_TRUE(distinct(finished(b))) << value;
  }
  {
    GraphBuilder b;
    const double values[] = {1.0, 2.0};
    b.output(b.constant(DenseValue::fromDoubles(f32x2, values)));
    EXPECT_TRUE(distinct(finished(b)));
  }
}

TEST(GraphHashTest, OutputsChangeIt) {
  auto build = [](int variant) {
    GraphBuilder b;
    TensorId x = b.input(kF32x23);
    TensorId e = b.exp(x);
    TensorId n = b.neg(x);
    if (variant == 1)
      b.output(e);
    if (variant == 2)
      b.output(n);
    if (variant == 3) {
      b.output(e);
      b.output(n);
    }
    if (variant == 4) {
      b.output(n);
      b.output(e);
    }
    return hashGraph(finished(b));
  };
  std::set<Hash128> hashes;
  for (int variant = 0; variant < 5; ++variant)
    EXPECT_TRUE(hashes.insert(build(variant)).second) << variant;
}

TEST(GraphHashTest, WeightsBakedAsConstantsChangeIt) {
  // A model's weights are graph inputs, so the graph holds no value of
  // theirs (BundleKeyTest checks that other input values keep the key).
  // Baked in as constants, different weights give different hashes.
  auto model = [](std::optional<double> bakedWeight) {
    GraphBuilder b;
    TensorId x = b.input(kF32x23, "x");
    TensorId w =
        bakedWeight ? b.splat(kF32x23, *bakedWeight) : b.input(kF32x23, "w");
    b.output(b.mul(x, w));
    return hashGraph(finished(b));
  };
  EXPECT_NE(model(0.5), model(0.25));
  EXPECT_NE(model(0.5), model(std::nullopt));
}

TEST(GraphHashTest, FalseFlagsEqualAbsentFlags) {
  Graph explicitFalse;
  TensorId x = explicitFalse.addInput({ElementType::F32, {2, 2}});
  AttrMap attributes;
  attributes.emplace("transpose_a", Attribute::flag(false));
  TensorId y = *explicitFalse.addOp(OpKind::Matmul, {x, x}, attributes);
  ASSERT_TRUE(explicitFalse.markOutput(y).ok());

  GraphBuilder b;
  TensorId bx = b.input({ElementType::F32, {2, 2}});
  b.output(b.matmul(bx, bx));
  EXPECT_EQ(hashGraph(explicitFalse), hashGraph(finished(b)));
  EXPECT_TRUE(canonicalize(explicitFalse).ops[0].attributes.empty());
}

TEST(GraphHashTest, UniformFullConstantEqualsSplat) {
  const TensorType type{ElementType::I32, {3}};
  GraphBuilder full, splat;
  const std::int64_t values[] = {7, 7, 7};
  full.output(full.constant(DenseValue::fromInts(type, values)));
  splat.output(splat.splat(type, 7));
  EXPECT_EQ(hashGraph(finished(full)), hashGraph(finished(splat)));
}

TEST(CanonicalizeTest, Idempotent) {
  Graph g;
  g.tensors = {{kF32x23, ""}, {kF32x23, "y"}, {kF32x23, "x"}, {kF32x23, ""}};
  g.inputs = {2, 1};
  AttrMap attributes;
  attributes.emplace("unsigned", Attribute::flag(false));
  g.ops = {{OpKind::Add, {2, 1}, {3}, {}}, {OpKind::Exp, {3}, {0}, {}}};
  g.outputs = {{0, "z"}, {3, "sum"}};
  const Graph once = canonicalize(g);
  EXPECT_EQ(canonicalize(once), once);
  EXPECT_EQ(once.inputs, (std::vector<TensorId>{0, 1}));
  EXPECT_EQ(once.tensors[0].name, "x");
  EXPECT_EQ(once.ops[0].operands, (std::vector<TensorId>{0, 1}));
  EXPECT_EQ(once.ops[0].results, (std::vector<TensorId>{2}));
  EXPECT_EQ(once.ops[1].results, (std::vector<TensorId>{3}));
  EXPECT_EQ(once.outputs[0].tensor, 3);
  EXPECT_EQ(once.outputs[1].tensor, 2);
  EXPECT_TRUE(validate(once).ok());
}

} // namespace
