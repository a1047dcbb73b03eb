//===- ReferenceRuntimeTest.cpp - Reference execution of bundles ----------===//
//
// Graphs run on the reference runtime through makeReferenceBundle and
// runBundle, against values computed by hand; bundles of several kernels
// with intermediates in the arena; and the counters of snapshot().
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "runtime/device/ReferenceRuntime.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace fuse;
using namespace fuse::device;

namespace {

std::vector<TensorBytes> run(ReferenceRuntime &runtime, const Graph &graph,
                             std::vector<TensorBytes> inputs) {
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(runtime, makeReferenceBundle(graph), inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.error().message;
  return outputs.ok() ? *outputs : std::vector<TensorBytes>{};
}

TEST(ReferenceRuntime, ElementwiseFloatGraph) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorType type{ElementType::F32, {4}};
  TensorId a = builder.input(type), b = builder.input(type);
  TensorId sum = builder.add(a, b);
  builder.output(builder.mul(sum, builder.exp(b)));
  builder.output(sum);
  std::vector<float> x = {1.5f, -2.0f, 0.25f, 3.0f};
  std::vector<float> y = {0.5f, 1.0f, -0.25f, -1.0f};
  std::vector<TensorBytes> out =
      run(runtime, *builder.finish(), {test::toBytes(x), test::toBytes(y)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> product = test::fromBytes<float>(out[0]);
  std::vector<float> sums = test::fromBytes<float>(out[1]);
  std::vector<float> expectedSums = {2.0f, -1.0f, 0.0f, 2.0f};
  EXPECT_EQ(sums, expectedSums);
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(product[i], expectedSums[i] * std::exp(y[i])) << i;
}

TEST(ReferenceRuntime, ReductionAndMatmul) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorId a = builder.input({ElementType::F32, {2, 3}});
  TensorId b = builder.input({ElementType::F32, {3, 2}});
  builder.output(builder.matmul(a, b));
  builder.output(builder.reduce(ReduceKind::Sum, a, {1}));
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> y = {7, 8, 9, 10, 11, 12};
  std::vector<TensorBytes> out =
      run(runtime, *builder.finish(), {test::toBytes(x), test::toBytes(y)});
  ASSERT_EQ(out.size(), 2u);
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154].
  EXPECT_EQ(test::fromBytes<float>(out[0]),
            (std::vector<float>{58, 64, 139, 154}));
  EXPECT_EQ(test::fromBytes<float>(out[1]), (std::vector<float>{6, 15}));
}

TEST(ReferenceRuntime, IntegersAreExact) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorType type{ElementType::I32, {4}};
  TensorId a = builder.input(type), b = builder.input(type);
  builder.output(builder.div(a, b));
  builder.output(builder.add(a, b));
  std::vector<int32_t> x = {7, -7, INT32_MAX, 5};
  std::vector<int32_t> y = {2, 2, 1, 0};
  std::vector<TensorBytes> out =
      run(runtime, *builder.finish(), {test::toBytes(x), test::toBytes(y)});
  ASSERT_EQ(out.size(), 2u);
  // Truncating division, 0 for division by zero, wrap-around on overflow.
  EXPECT_EQ(test::fromBytes<int32_t>(out[0]),
            (std::vector<int32_t>{3, -3, INT32_MAX, 0}));
  EXPECT_EQ(test::fromBytes<int32_t>(out[1]),
            (std::vector<int32_t>{9, -5, INT32_MIN, 5}));
}

TEST(ReferenceRuntime, AnInputMayBeAnOutput) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorId a = builder.input({ElementType::I64, {2}});
  builder.output(a);
  builder.output(builder.neg(a));
  std::vector<TensorBytes> out = run(
      runtime, *builder.finish(), {test::toBytes(std::vector<int64_t>{4, -9})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(test::fromBytes<int64_t>(out[0]), (std::vector<int64_t>{4, -9}));
  EXPECT_EQ(test::fromBytes<int64_t>(out[1]), (std::vector<int64_t>{-4, 9}));
}

TEST(ReferenceRuntime, ExecutesEachKernelsOpsWithIntermediatesInTheArena) {
  ReferenceRuntime runtime;
  const int64_t n = 5;
  // Payloads are ignored: the covered ops are interpreted.
  Bundle bundle = test::mulAddBundle(n);
  std::vector<float> a = test::randomFloats(1, n), b = test::randomFloats(2, n),
                     c = test::randomFloats(3, n);
  DeviceResult<std::vector<TensorBytes>> out =
      runBundle(runtime, bundle,
                std::vector<TensorBytes>{test::toBytes(a), test::toBytes(b),
                                         test::toBytes(c)});
  ASSERT_TRUE(out.ok()) << out.error().message;
  std::vector<float> result = test::fromBytes<float>((*out)[0]);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(result[i], a[i] * b[i] + c[i]);
  ReferenceSnapshot snapshot = runtime.snapshot();
  EXPECT_EQ(snapshot.launches, 2u);
  EXPECT_EQ(snapshot.opsExecuted, 2u);
  EXPECT_EQ(snapshot.submissions, 1u);
  // Three inputs, one output, one arena.
  EXPECT_EQ(snapshot.allocations, 5u);
  EXPECT_EQ(snapshot.allocatedBytes, uint64_t(4 * n * 4 + 64 + n * 4));
  // Uploads, then two launches.
  EXPECT_EQ(snapshot.commands, 5u);
}

TEST(ReferenceRuntime, AnAliasedOutputIsWrittenInPlace) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorType type{ElementType::F32, {3}};
  TensorId a = builder.input(type), b = builder.input(type);
  builder.output(builder.add(a, b));
  Bundle bundle = makeReferenceBundle(*builder.finish());
  bundle.aliases.push_back({0, 0});
  ASSERT_TRUE(verifyBundle(bundle).ok());
  DeviceResult<std::vector<TensorBytes>> out = runBundle(
      runtime, bundle,
      std::vector<TensorBytes>{test::toBytes(std::vector<float>{1, 2, 3}),
                               test::toBytes(std::vector<float>{4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(test::fromBytes<float>((*out)[0]), (std::vector<float>{5, 7, 9}));
  // Two buffers, not three.
  EXPECT_EQ(runtime.snapshot().allocations, 2u);
}

TEST(ReferenceRuntime, APreparedBundleUploadsOnceAndRunsRepeatedly) {
  ReferenceRuntime runtime;
  const int64_t n = 5;
  Bundle bundle = test::mulAddBundle(n);
  std::vector<float> a = test::randomFloats(1, n), b = test::randomFloats(2, n),
                     c = test::randomFloats(3, n);
  std::vector<TensorBytes> inputs{test::toBytes(a), test::toBytes(b),
                                  test::toBytes(c)};
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  DeviceResult<PreparedBundle> prepared =
      PreparedBundle::prepare(runtime, bundle, executable, stream, inputs);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  EXPECT_EQ(runtime.snapshot().launches, 0u);
  for (int run = 0; run < 3; ++run)
    ASSERT_TRUE(prepared->run().ok());
  DeviceResult<std::vector<TensorBytes>> out = prepared->readOutputs();
  ASSERT_TRUE(out.ok()) << out.error().message;
  std::vector<float> result = test::fromBytes<float>((*out)[0]);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(result[i], a[i] * b[i] + c[i]);
  ReferenceSnapshot snapshot = runtime.snapshot();
  EXPECT_EQ(snapshot.launches, 6u);
  // One submission of the uploads, then one per run.
  EXPECT_EQ(snapshot.submissions, 4u);
  // Three uploads in all, then two launches per run.
  EXPECT_EQ(snapshot.commands, 3u + 3u * 2u);
}

TEST(ReferenceRuntime, APreparedBundleRunsPerBindingKernelsOncePerBinding) {
  ReferenceRuntime runtime;
  const int64_t n = 5;
  // a * b reads inputs only: it runs once per binding, its product kept in
  // the arena's bound part (here the whole arena).
  Bundle bundle = test::mulAddBundle(n);
  bundle.kernels[0].perBinding = true;
  bundle.kernels[0].bindingInputs = {0, 1};
  bundle.memoryPlan.boundBytes = bundle.memoryPlan.peakBytes;
  ASSERT_TRUE(verifyBundle(bundle).ok());
  std::vector<float> a = test::randomFloats(1, n), b = test::randomFloats(2, n),
                     c = test::randomFloats(3, n),
                     a2 = test::randomFloats(4, n),
                     c2 = test::randomFloats(5, n);
  std::vector<TensorBytes> inputs{test::toBytes(a), test::toBytes(b),
                                  test::toBytes(c)};
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  DeviceResult<PreparedBundle> prepared =
      PreparedBundle::prepare(runtime, bundle, executable, stream, inputs);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto expectResult = [&](const std::vector<float> &first,
                          const std::vector<float> &last) {
    DeviceResult<std::vector<TensorBytes>> out = prepared->readOutputs();
    ASSERT_TRUE(out.ok()) << out.error().message;
    std::vector<float> result = test::fromBytes<float>((*out)[0]);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(result[i], first[i] * b[i] + last[i]);
  };
  for (int run = 0; run < 3; ++run)
    ASSERT_TRUE(prepared->run().ok());
  expectResult(a, c);
  // Both kernels on the first run, the add alone on the next two.
  EXPECT_EQ(runtime.snapshot().launches, 4u);
  // Another a: the product is computed again on the next run only.
  ASSERT_TRUE(prepared->setInput(0, test::toBytes(a2)).ok());
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE(prepared->run().ok());
  expectResult(a2, c);
  EXPECT_EQ(runtime.snapshot().launches, 7u);
  // Another c, which the product does not read: the add alone runs.
  ASSERT_TRUE(prepared->setInput(2, test::toBytes(c2)).ok());
  ASSERT_TRUE(prepared->run().ok());
  expectResult(a2, c2);
  EXPECT_EQ(runtime.snapshot().launches, 8u);
  // Errors leave the binding as it was.
  DeviceStatus wrong =
      prepared->setInput(0, test::toBytes(std::vector<float>{1}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message,
            "input 0 has 4 bytes, its type tensor<5xf32> needs 20");
  DeviceStatus missing = prepared->setInput(3, test::toBytes(a2));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "input 3 does not exist; the bundle takes 3");
}

TEST(ReferenceRuntime, APerBindingKernelNeedsABoundPartAndUnwrittenInputs) {
  Bundle bundle = test::mulAddBundle(5);
  bundle.kernels[0].perBinding = true;
  bundle.kernels[0].bindingInputs = {0, 1};
  Status status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("runs once per binding, but the arena has "
                                  "no bound part"),
            std::string::npos)
      << status.message();
  bundle.memoryPlan.boundBytes = bundle.memoryPlan.peakBytes + 1;
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("larger than the arena's"), std::string::npos)
      << status.message();
  bundle.memoryPlan.boundBytes = bundle.memoryPlan.peakBytes;
  bundle.kernels[0].bindingInputs = {};
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("names no input it reads"), std::string::npos)
      << status.message();
  // One that reads no graph input (an iota of a symbolic dim) names none.
  Bundle readsNoInput = bundle;
  for (KernelBinding &binding : readsNoInput.kernels[0].bindings)
    if (binding.kind == BindingKind::GraphInput)
      binding = {BindingKind::Intermediate, 0};
  status = verifyBundle(readsNoInput);
  EXPECT_TRUE(status.ok()) << status.message();
  bundle.kernels[0].bindingInputs = {0, 3};
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("reads input 3, which is out of range"),
            std::string::npos)
      << status.message();
  bundle.kernels[0].bindingInputs = {0, 1};
  bundle.kernels[1].bindingInputs = {2};
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("but runs on every run"), std::string::npos)
      << status.message();
  bundle.kernels[1].bindingInputs = {};
  bundle.kernels[1].dimsDependent = true;
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("depending on the dims once per binding, "
                                  "but runs on every run"),
            std::string::npos)
      << status.message();
  bundle.kernels[1].dimsDependent = false;
  // The product's slice (20 bytes from 64) would cross the end of a bound
  // part (the arena's first bytes) of 70.
  bundle.memoryPlan.boundBytes = 70;
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("crosses out of the bound part at byte 70"),
            std::string::npos)
      << status.message();
  bundle.memoryPlan.boundBytes = bundle.memoryPlan.peakBytes;
  bundle.aliases.push_back({0, 1});
  status = verifyBundle(bundle);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(
                "runs once per binding but reads input 1, which a run writes "
                "in place"),
            std::string::npos)
      << status.message();
}

TEST(ReferenceRuntime, APreparedBundleRestoresInputsItWritesInPlace) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorType type{ElementType::F32, {3}};
  TensorId a = builder.input(type), b = builder.input(type);
  builder.output(builder.add(a, b));
  Bundle bundle = makeReferenceBundle(*builder.finish());
  bundle.aliases.push_back({0, 0});
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<TensorBytes> inputs{test::toBytes(std::vector<float>{1, 2, 3}),
                                  test::toBytes(std::vector<float>{4, 5, 6})};
  DeviceResult<PreparedBundle> prepared =
      PreparedBundle::prepare(runtime, bundle, executable, stream, inputs);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE(prepared->run().ok());
  DeviceResult<std::vector<TensorBytes>> out = prepared->readOutputs();
  ASSERT_TRUE(out.ok()) << out.error().message;
  // Not 9, 12, 15: the second run starts again from the inputs.
  EXPECT_EQ(test::fromBytes<float>((*out)[0]), (std::vector<float>{5, 7, 9}));
}

/// `values` as a SharedInput that owns them.
SharedInput sharedFloats(const std::vector<float> &values) {
  auto bytes = std::make_shared<const TensorBytes>(test::toBytes(values));
  return {bytes, *bytes};
}

TEST(ReferenceRuntime, APreparedBundleReadsSharedInputsInPlace) {
  ReferenceRuntime runtime;
  const int64_t n = 5;
  Bundle bundle = test::mulAddBundle(n);
  std::vector<float> a = test::randomFloats(1, n), b = test::randomFloats(2, n),
                     c = test::randomFloats(3, n);
  std::vector<SharedInput> inputs{sharedFloats(a), sharedFloats(b),
                                  sharedFloats(c)};
  std::weak_ptr<const void> firstOwner = inputs[0].owner;
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  DeviceResult<PreparedBundle> prepared =
      PreparedBundle::prepare(runtime, bundle, executable, stream, inputs);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // The caller lets go of its inputs: the prepared bundle keeps them.
  inputs.clear();
  EXPECT_FALSE(firstOwner.expired());
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE(prepared->run().ok());
  DeviceResult<std::vector<TensorBytes>> out = prepared->readOutputs();
  ASSERT_TRUE(out.ok()) << out.error().message;
  std::vector<float> result = test::fromBytes<float>((*out)[0]);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(result[i], a[i] * b[i] + c[i]);
  ReferenceSnapshot snapshot = runtime.snapshot();
  // The output and the arena only: no buffer, and no upload, per input.
  EXPECT_EQ(snapshot.allocations, 2u);
  EXPECT_EQ(snapshot.commands, 2u * 2u);
  EXPECT_EQ(runtime.memoryUsage().inUseBytes,
            uint64_t(n * 4) + bundle.memoryPlan.peakBytes);
  prepared = DeviceResult<PreparedBundle>(
      Error{ErrorCode::InvalidArgument, "released"});
  EXPECT_TRUE(firstOwner.expired());
}

TEST(ReferenceRuntime, ASharedInputWrittenInPlaceIsCopied) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorType type{ElementType::F32, {3}};
  TensorId a = builder.input(type), b = builder.input(type);
  builder.output(builder.add(a, b));
  Bundle bundle = makeReferenceBundle(*builder.finish());
  bundle.aliases.push_back({0, 0});
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<SharedInput> inputs{sharedFloats({1, 2, 3}),
                                  sharedFloats({4, 5, 6})};
  DeviceResult<PreparedBundle> prepared =
      PreparedBundle::prepare(runtime, bundle, executable, stream, inputs);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE(prepared->run().ok());
  DeviceResult<std::vector<TensorBytes>> out = prepared->readOutputs();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(test::fromBytes<float>((*out)[0]), (std::vector<float>{5, 7, 9}));
  // The caller's bytes are never written.
  EXPECT_EQ(test::fromBytes<float>(
                TensorBytes(inputs[0].bytes.begin(), inputs[0].bytes.end())),
            (std::vector<float>{1, 2, 3}));
  // Input 0 has a buffer of its own (the output's); input 1 is borrowed.
  EXPECT_EQ(runtime.snapshot().allocations, 1u);
}

TEST(ReferenceRuntime, BorrowedHostMemoryIsReadOnly) {
  ReferenceRuntime runtime;
  auto owner = std::make_shared<const TensorBytes>(
      test::toBytes(std::vector<float>{1, 2, 3, 4}));
  std::weak_ptr<const TensorBytes> watch = owner;
  DeviceResult<Buffer> borrowed = runtime.borrowHostMemory(owner, *owner);
  ASSERT_TRUE(borrowed.ok()) << borrowed.error().message;
  owner.reset();
  EXPECT_FALSE(watch.expired());
  AllocationPermit permit = std::move(*runtime.reserve(16));
  Buffer own = *runtime.allocate(permit, 16);
  TensorBytes four = test::toBytes(std::vector<float>{9, 9, 9, 9});
  auto expectRefused = [](DeviceResult<Command> refused) {
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(refused.error().message.find("read-only"), std::string::npos)
        << refused.error().message;
  };
  expectRefused(runtime.encodeUpload(four, *borrowed, 0));
  expectRefused(runtime.encodeZero(*borrowed, 0, 16));
  expectRefused(runtime.encodeCopy(own, *borrowed, CopyRegion{0, 0, 16}));
  // Read from it as from any buffer.
  Stream stream = *runtime.createStream();
  CommandBatch batch;
  batch.add(*runtime.encodeCopy(*borrowed, own, CopyRegion{0, 0, 16}));
  ASSERT_TRUE(runtime.submit(stream, std::move(batch)).submitted());
  DeviceResult<std::vector<std::byte>> back =
      runtime.readback(stream, own, 0, 16);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(test::fromBytes<float>(*back), (std::vector<float>{1, 2, 3, 4}));
  ASSERT_FALSE(runtime.borrowHostMemory(nullptr, four).ok());
  borrowed = DeviceResult<Buffer>(Error{ErrorCode::InvalidArgument, "gone"});
  EXPECT_TRUE(watch.expired());
}

TEST(ReferenceRuntime, APreparedBundleChecksItsInputs) {
  ReferenceRuntime runtime;
  Bundle bundle = test::mulAddBundle(4);
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<TensorBytes> tooFew{test::toBytes(std::vector<float>{1, 2})};
  DeviceResult<PreparedBundle> prepared =
      PreparedBundle::prepare(runtime, bundle, executable, stream, tooFew);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.error().message.find("takes 3 inputs, got 1"),
            std::string::npos)
      << prepared.error().message;
}

TEST(ReferenceRuntime, FencesAreTerminalOnReturn) {
  ReferenceRuntime runtime;
  Stream stream = *runtime.createStream();
  AllocationPermit permit = std::move(*runtime.reserve(16));
  Buffer buffer = *runtime.allocate(permit, 16);
  CommandBatch batch;
  batch.add(std::move(*runtime.encodeZero(buffer, 0, 16)));
  SubmitResult submitted = runtime.submit(stream, std::move(batch));
  ASSERT_TRUE(submitted.submitted());
  EXPECT_TRUE(std::holds_alternative<FenceTerminal>(
      runtime.queryFence(submitted.fence())));
  EXPECT_EQ(runtime.descriptor().kind, DeviceKind::Reference);
}

TEST(ReferenceRuntime, AFailingEvaluationFailsTheSubmission) {
  ReferenceRuntime runtime;
  GraphBuilder builder;
  TensorType type{ElementType::F32, {2}};
  TensorId a = builder.input(type);
  TensorId e = builder.exp(a);
  builder.output(builder.neg(e));
  Bundle bundle = makeReferenceBundle(*builder.finish());
  // Cover only the second op: its operand has no value.
  bundle.kernels[0].ops = {1};
  DeviceResult<std::vector<TensorBytes>> out = runBundle(
      runtime, bundle,
      std::vector<TensorBytes>{test::toBytes(std::vector<float>{1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::KernelFailed);
  EXPECT_NE(out.error().message.find("reference evaluation failed"),
            std::string::npos);
}

} // namespace
