//===- BundleSerializationTest.cpp - Bundle <-> bytes ---------------------===//

#include "CacheTestSupport.h"

#include "runtime/cache/BundleFile.h"
#include "runtime/cache/BundleSerialization.h"

#include <gtest/gtest.h>

using namespace fuse;
using namespace fuse::test;

namespace {

/// Every field of every struct set to something other than its default,
/// and every attribute kind present. Not a valid program: serialization
/// must carry whatever it is given.
Bundle makeFullBundle() {
  Bundle bundle;
  Graph &graph = bundle.graph;
  graph.tensors = {{{ElementType::F16, {2, 3}}, "x"},
                   {{ElementType::I64, {4}}, "y"},
                   {{ElementType::BF16, {}}, "z"}};
  graph.inputs = {0, 1};
  Op op;
  op.kind = OpKind::Reduce;
  op.operands = {0, 1};
  op.results = {2};
  DenseValue dense;
  dense.elementType = ElementType::I32;
  dense.shape = {2};
  dense.bytes = {1, 2, 3, 4, 5, 6, 7, 8};
  dense.splat = true;
  op.attributes.emplace("a_i64", Attribute::i64(-7));
  op.attributes.emplace("b_array", Attribute::i64Array({3, -1, 5}));
  op.attributes.emplace("c_f64", Attribute::f64(2.5));
  op.attributes.emplace("d_flag", Attribute::flag(true));
  op.attributes.emplace("e_enum", Attribute::enumName("max"));
  op.attributes.emplace("f_type", Attribute::elementType(ElementType::I1));
  op.attributes.emplace("g_dense", Attribute::dense(dense));
  graph.ops = {op};
  graph.outputs = {{2, "result"}};

  bundle.target = "sm_90";
  bundle.versionId = "0123456789abcdef0123456789abcdef";
  BundleKernel kernel;
  kernel.name = "k0";
  kernel.target = "sm_90";
  kernel.payloadKind = PayloadKind::PtxText;
  std::string ptx = ".version 8.0\n.entry k0() { ret; }\n";
  kernel.payload.assign(ptx.begin(), ptx.end());
  kernel.entry = "k0";
  kernel.schedule = ScheduleKind::ColumnReduction;
  kernel.launch = {2, 3, 4, 5, 6, 7, 1024, 99, 8, 1};
  kernel.bindings = {{BindingKind::Intermediate, 3},
                     {BindingKind::GraphOutput, 1}};
  kernel.ops = {0, 4};
  kernel.checkedOps = {4, 0};
  kernel.perBinding = true;
  kernel.bindingInputs = {1, 0};
  BundleKernel second = kernel;
  second.name = "k1";
  second.payloadKind = PayloadKind::Cubin;
  second.payload = {0, 255, 17};
  second.schedule = ScheduleKind::Matmul;
  bundle.kernels = {kernel, second};
  bundle.launchOrder = {1, 0};
  bundle.memoryPlan.intermediates = {{2, 128, 64}};
  bundle.memoryPlan.peakBytes = 4096;
  bundle.memoryPlan.boundBytes = 1024;
  bundle.aliases = {{1, 2}};
  bundle.inputs = {0, 1};
  bundle.outputs = {2};
  bundle.boundDims.dims.symbols = {"batch", "sequence"};
  bundle.boundDims.dims.exprs = {DimExpr::symbol("sequence")};
  bundle.boundDims.values = {3, 77};
  bundle.boundDims.axes = {{0, 1, -1}};
  return bundle;
}

TEST(CacheBundleSerialization, FullBundleHasNoDefaultField) {
  // Guards the round-trip tests: a field left at its default would pass
  // even if serialization dropped it.
  Bundle full = makeFullBundle();
  Bundle empty;
  EXPECT_NE(full.graph.tensors, empty.graph.tensors);
  EXPECT_NE(full.target, empty.target);
  EXPECT_NE(full.versionId, empty.versionId);
  EXPECT_NE(full.launchOrder, empty.launchOrder);
  EXPECT_NE(full.memoryPlan.peakBytes, empty.memoryPlan.peakBytes);
  EXPECT_NE(full.aliases, empty.aliases);
  EXPECT_NE(full.kernels[0].checkedOps, BundleKernel().checkedOps);
  EXPECT_NE(full.kernels[0].perBinding, BundleKernel().perBinding);
  EXPECT_NE(full.kernels[0].bindingInputs, BundleKernel().bindingInputs);
  EXPECT_NE(full.memoryPlan.boundBytes, empty.memoryPlan.boundBytes);
  EXPECT_NE(full.boundDims.dims, empty.boundDims.dims);
  EXPECT_NE(full.boundDims.values, empty.boundDims.values);
  EXPECT_NE(full.boundDims.axes, empty.boundDims.axes);
  const LaunchConfig defaults;
  const LaunchConfig &launch = full.kernels[0].launch;
  EXPECT_NE(launch.gridX, defaults.gridX);
  EXPECT_NE(launch.gridY, defaults.gridY);
  EXPECT_NE(launch.gridZ, defaults.gridZ);
  EXPECT_NE(launch.blockX, defaults.blockX);
  EXPECT_NE(launch.blockY, defaults.blockY);
  EXPECT_NE(launch.blockZ, defaults.blockZ);
  EXPECT_NE(launch.sharedMemoryBytes, defaults.sharedMemoryBytes);
  EXPECT_NE(launch.iterations, defaults.iterations);
  EXPECT_NE(launch.grain, defaults.grain);
  EXPECT_NE(launch.chunksPerWorker, defaults.chunksPerWorker);
  EXPECT_EQ(full.graph.ops[0].attributes.size(),
            std::variant_size_v<Attribute::Storage>);
}

TEST(CacheBundleSerialization, RoundTripsEveryField) {
  Bundle full = makeFullBundle();
  std::vector<std::uint8_t> bytes = serializeBundle(full);
  Expected<Bundle> back = deserializeBundle(bytes);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(*back, full);
}

TEST(CacheBundleSerialization, RoundTripsThroughTheFileFormat) {
  Bundle full = makeFullBundle();
  BundleKey key;
  key.graphHash = {1, 2};
  key.target = "sm_90";
  key.versionId = full.versionId;
  key.options = {1, false, true};
  Expected<BundleFileContents> back =
      decodeBundleFile(encodeBundleFile(key, full));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->bundle, full);
  EXPECT_EQ(back->key, key);
}

TEST(CacheBundleSerialization, JsonNamesFieldsAndShowsPtx) {
  std::string json = bundleToJson(makeFullBundle());
  for (const char *expected :
       {"\"versionId\": \"0123456789abcdef0123456789abcdef\"",
        "\"kind\": \"reduce\"", "\"schedule\": \"column-reduction\"",
        "\"payloadKind\": \"cubin\"", ".entry k0()", "\"payloadSha256\"",
        "\"peakBytes\": 4096", "\"elementType\": \"f16\""})
    EXPECT_NE(json.find(expected), std::string::npos)
        << "missing " << expected << " in\n"
        << json;
}

TEST(CacheBundleSerialization, HugeCountIsAnErrorNotAnAllocation) {
  std::vector<std::uint8_t> bytes = serializeBundle(makeFullBundle());
  // The payload starts with the tensor count of the graph (8 bytes).
  for (int i = 0; i < 8; ++i)
    bytes[i] = i == 7 ? 0x10 : 0;
  Expected<Bundle> back = deserializeBundle(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("exceeds"), std::string::npos)
      << back.message();
}

TEST(CacheBundleSerialization, TruncatedAndExtendedPayloadsFail) {
  std::vector<std::uint8_t> bytes = serializeBundle(makeFullBundle());
  std::vector<std::uint8_t> shorter(bytes.begin(), bytes.end() - 3);
  EXPECT_FALSE(deserializeBundle(shorter).ok());
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(0);
  Expected<Bundle> back = deserializeBundle(longer);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("after the bundle"), std::string::npos);
}

// The kernels of a host bundle share one shared object: the binary form
// stores each distinct payload once and gives every kernel its own back.
TEST(CacheBundleSerialization, SharedPayloadsAreStoredOnce) {
  Bundle bundle = makeFullBundle();
  std::vector<std::uint8_t> shared(20000);
  for (std::size_t i = 0; i < shared.size(); ++i)
    shared[i] = std::uint8_t(i * 7 + 3);
  BundleKernel kernel = bundle.kernels[0];
  kernel.payload = shared;
  bundle.kernels.assign(6, kernel);
  // One that differs: its own copy is changed, the others keep theirs.
  bundle.kernels[3].payload.edit().back() ^= 1;
  EXPECT_TRUE(bundle.kernels[2].payload.sameBytes(bundle.kernels[4].payload));
  EXPECT_FALSE(bundle.kernels[3].payload.sameBytes(bundle.kernels[4].payload));
  EXPECT_EQ(bundle.kernels[4].payload.bytes(), shared);
  EXPECT_NE(bundle.kernels[3].payload, bundle.kernels[4].payload);
  bundle.launchOrder = {0, 1, 2, 3, 4, 5};
  std::vector<std::uint8_t> bytes = serializeBundle(bundle);
  EXPECT_LT(bytes.size(), 2 * shared.size() + 4096);
  EXPECT_GT(bytes.size(), 2 * shared.size());
  Expected<Bundle> back = deserializeBundle(bytes);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(*back, bundle);
  // Read back, the kernels that name one payload share its bytes (a copy
  // of the bundle copies no code).
  EXPECT_TRUE(back->kernels[0].payload.sameBytes(back->kernels[5].payload));
  EXPECT_FALSE(back->kernels[0].payload.sameBytes(back->kernels[3].payload));
}

// The last four bytes are the payload index of the last kernel.
TEST(CacheBundleSerialization, PayloadIndexOutOfRangeFails) {
  std::vector<std::uint8_t> bytes = serializeBundle(makeFullBundle());
  bytes[bytes.size() - 4] = 9;
  Expected<Bundle> back = deserializeBundle(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("kernel 1 names payload 9 of 2"),
            std::string::npos)
      << back.message();
}

TEST(CacheBundleSerialization, UnknownOpNameFails) {
  Bundle full = makeFullBundle();
  std::vector<std::uint8_t> bytes = serializeBundle(full);
  // "reduce" is the only op mnemonic; spell it "reducf".
  std::string text(bytes.begin(), bytes.end());
  std::size_t at = text.find("reduce");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 5] = 'f';
  Expected<Bundle> back = deserializeBundle(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("unknown op 'reducf'"), std::string::npos)
      << back.message();
}

} // namespace
