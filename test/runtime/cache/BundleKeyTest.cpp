//===- BundleKeyTest.cpp - What a cache key depends on --------------------===//

#include "CacheTestSupport.h"

#include "runtime/Version.h"

#include <gtest/gtest.h>

using namespace fuse;
using namespace fuse::test;

namespace {

TEST(CacheBundleKey, HexFormIsStableAndRecognized) {
  BundleKey key = makeKey(makeGraph());
  std::string hex = key.toHex();
  EXPECT_EQ(hex.size(), 64u);
  EXPECT_TRUE(BundleKey::isKeyHex(hex));
  EXPECT_EQ(makeKey(makeGraph()).toHex(), hex);
  EXPECT_FALSE(BundleKey::isKeyHex(hex.substr(1)));
  EXPECT_FALSE(BundleKey::isKeyHex(std::string(64, 'G')));
  EXPECT_EQ(key.versionId, versionId());
}

TEST(CacheBundleKey, EncodingRoundTripsAndRejectsGarbage) {
  BundleKey key = makeKey(makeGraph(), "sm_90", {1, false, true});
  Expected<BundleKey> back = BundleKey::decode(key.encode());
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(*back, key);
  std::vector<std::uint8_t> bytes = key.encode();
  bytes.push_back(0);
  EXPECT_FALSE(BundleKey::decode(bytes).ok());
  bytes.resize(10);
  EXPECT_FALSE(BundleKey::decode(bytes).ok());
}

TEST(CacheBundleKey, GraphChangesTheKey) {
  EXPECT_NE(makeKey(makeGraph(2)).toHex(), makeKey(makeGraph(5)).toHex());
}

TEST(CacheBundleKey, TargetChangesTheKey) {
  EXPECT_NE(makeKey(makeGraph(), "sm_80").toHex(),
            makeKey(makeGraph(), "sm_90").toHex());
}

TEST(CacheBundleKey, VersionIdChangesTheKey) {
  BundleKey key = makeKey(makeGraph());
  BundleKey other = key;
  other.versionId = std::string(32, '0');
  EXPECT_NE(key.toHex(), other.toHex());
}

TEST(CacheBundleKey, OptimizationLevelChangesTheKey) {
  CompileOptions options;
  options.optimizationLevel = 1;
  EXPECT_NE(makeKey(makeGraph()).toHex(),
            makeKey(makeGraph(), kHostTarget, options).toHex());
}

TEST(CacheBundleKey, FusionFlagChangesTheKey) {
  CompileOptions options;
  options.enableFusion = false;
  EXPECT_NE(makeKey(makeGraph()).toHex(),
            makeKey(makeGraph(), kHostTarget, options).toHex());
}

TEST(CacheBundleKey, ExplainFlagChangesTheKey) {
  CompileOptions options;
  options.explain = true;
  EXPECT_NE(makeKey(makeGraph()).toHex(),
            makeKey(makeGraph(), kHostTarget, options).toHex());
}

TEST(CacheBundleKey, TieredKernelsChangeTheKey) {
  CompileOptions options;
  options.tieredKernels = true;
  BundleKey key = makeKey(makeGraph(), kHostTarget, options);
  EXPECT_NE(makeKey(makeGraph()).toHex(), key.toHex());
  Expected<BundleKey> decoded = BundleKey::decode(key.encode());
  ASSERT_TRUE(decoded.ok()) << decoded.message();
  EXPECT_TRUE(decoded->options.tieredKernels);
  EXPECT_EQ(decoded->toHex(), key.toHex());
}

TEST(CacheBundleKey, MatmulPrecisionChangesTheKey) {
  // A bf16 bundle must never answer an f32 request.
  CompileOptions options;
  options.matmulPrecision = MatmulPrecision::Bf16;
  BundleKey key = makeKey(makeGraph(), kHostTarget, options);
  EXPECT_NE(makeKey(makeGraph()).toHex(), key.toHex());
  EXPECT_NE(makeKey(makeGraph()), key);
  Expected<BundleKey> decoded = BundleKey::decode(key.encode());
  ASSERT_TRUE(decoded.ok()) << decoded.message();
  EXPECT_EQ(decoded->options.matmulPrecision, MatmulPrecision::Bf16);
  EXPECT_EQ(decoded->toHex(), key.toHex());
  EXPECT_NE(key.describe().find("matmul=bf16"), std::string::npos);
  // A precision byte this build does not know is malformed (the amx flag
  // follows it).
  std::vector<std::uint8_t> bytes = key.encode();
  bytes[bytes.size() - 2] = 2;
  EXPECT_FALSE(BundleKey::decode(bytes).ok());
}

TEST(CacheBundleKey, AmxTilesChangeTheKey) {
  // A bundle of AMX kernels must never answer a request for AVX-512 BF16
  // ones: a CPU without AMX could not run it.
  CompileOptions bf16;
  bf16.matmulPrecision = MatmulPrecision::Bf16;
  CompileOptions amx = bf16;
  amx.amxTiles = true;
  BundleKey key = makeKey(makeGraph(), kHostTarget, amx);
  EXPECT_NE(makeKey(makeGraph(), kHostTarget, bf16).toHex(), key.toHex());
  Expected<BundleKey> decoded = BundleKey::decode(key.encode());
  ASSERT_TRUE(decoded.ok()) << decoded.message();
  EXPECT_TRUE(decoded->options.amxTiles);
  EXPECT_EQ(decoded->toHex(), key.toHex());
  EXPECT_NE(key.describe().find("amx=on"), std::string::npos);
  std::vector<std::uint8_t> bytes = key.encode();
  bytes.back() = 2;
  EXPECT_FALSE(BundleKey::decode(bytes).ok());
  bytes.pop_back();
  EXPECT_FALSE(BundleKey::decode(bytes).ok());
}

TEST(CacheBundleKey, OtherTensorIdsAndNamesGiveTheSameKey) {
  // makeGraph() recorded with other ids: the result tensors first, the
  // inputs last, and other names.
  Graph reordered;
  TensorType type{ElementType::F32, {2, 3}};
  reordered.tensors = {
      {type, "product"}, {type, "sum"}, {type, "p"}, {type, "q"}, {type, "r"}};
  reordered.inputs = {2, 3, 4};
  reordered.ops = {{OpKind::Add, {2, 3}, {1}, {}},
                   {OpKind::Mul, {1, 4}, {0}, {}}};
  reordered.outputs = {{0, "y"}};
  ASSERT_NE(reordered, makeGraph());
  EXPECT_EQ(makeKey(reordered).toHex(), makeKey(makeGraph()).toHex());
}

TEST(CacheBundleKey, WeightsAreNotPartOfTheKey) {
  // A weight is an input: two models that differ only in the values bound
  // to it are one graph. A constant inside the graph, by contrast, is part
  // of the computation.
  auto withConstant = [](double value) {
    GraphBuilder builder;
    TensorType type{ElementType::F32, {2, 3}};
    TensorId x = builder.input(type, "x");
    TensorId weight = builder.input(type, "weight");
    builder.output(
        builder.add(builder.mul(x, weight), builder.splat(type, value)));
    return builder.finish().take();
  };
  EXPECT_EQ(makeKey(withConstant(1.0)).toHex(),
            makeKey(withConstant(1.0)).toHex());
  EXPECT_NE(makeKey(withConstant(1.0)).toHex(),
            makeKey(withConstant(2.0)).toHex());
}

} // namespace
