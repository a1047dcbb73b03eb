//===- DeviceRuntimeTest.cpp - The interface's semantics, per runtime -----===//
//
// Every test here runs on the host and on the reference runtime through the
// DeviceRuntime interface only: the seed semantics (permits, budgets,
// ordering, fences, identity, fault points) must not depend on the backend.
// Where cuda.h was found, FuseCudaTests builds this file again
// (FUSE_DEVICE_SUITE_CUDA) to run them on the CUDA runtime, over the fake
// driver under CTest (FakeCudaDriver.cpp) or on a device
// (bench/gpu/build-runtime-tests.sh). Each runtime launches TestSupport's
// bundles of its own kernels (host kernels, or PTX on CUDA); where they do
// not compute (the fake driver records launches), the tests of results skip.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"
#include "TestSupport.h"

#ifdef FUSE_DEVICE_SUITE_CUDA
#include "CudaTestSupport.h"
#include "runtime/device/CudaRuntime.h"
#else
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"
#endif

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <type_traits>

using namespace fuse;
using namespace fuse::device;
using namespace std::chrono_literals;

namespace {

struct RuntimeKind {
  std::string name;
  std::function<std::unique_ptr<DeviceRuntime>(uint64_t budget)> make;
  /// TestSupport's bundles (out = a + b; out = a * b + c) of kernels it runs.
  std::function<Bundle(int64_t n)> addBundle = test::addBundle,
                                   mulAddBundle = test::mulAddBundle;
  /// Whether its kernels compute (the fake CUDA driver only records them).
  std::function<bool()> computes = [] { return true; };
};

void PrintTo(const RuntimeKind &kind, std::ostream *os) { *os << kind.name; }

std::vector<RuntimeKind> runtimeKinds() {
#ifdef FUSE_DEVICE_SUITE_CUDA
  // The driver FUSE_CUDA_DRIVER names (the fake, under CTest), else the
  // system's.
  return {{"Cuda",
           [](uint64_t budget) -> std::unique_ptr<DeviceRuntime> {
             CudaRuntime::Options options;
             options.memoryBudgetBytes = budget;
             options.poolBlockBytes = 1 << 20;
             DeviceResult<std::unique_ptr<CudaRuntime>> runtime =
                 CudaRuntime::create(options);
             if (!runtime.ok())
               throw std::runtime_error(runtime.error().message);
             return std::move(*runtime);
           },
           test::cudaAddBundle, test::cudaMulAddBundle,
           [] { return test::fakeDriver() == nullptr; }}};
#else
  return {
      {"Host",
       [](uint64_t budget) {
         return std::make_unique<HostRuntime>(HostRuntime::Options{budget, 2});
       }},
      {"Reference",
       [](uint64_t budget) {
         return std::make_unique<ReferenceRuntime>(
             ReferenceRuntime::Options{budget});
       }},
  };
#endif
}

class DeviceRuntimeTest : public ::testing::TestWithParam<RuntimeKind>,
                          protected test::RuntimeCalls {
protected:
#ifdef FUSE_DEVICE_SUITE_CUDA
  void SetUp() override {
    // Without a driver (a machine without a GPU, run outside CTest) there is
    // nothing to test.
    DeviceResult<std::unique_ptr<CudaRuntime>> probe = CudaRuntime::create();
    if (!probe.ok())
      GTEST_SKIP() << probe.error().message;
  }
#endif

  std::unique_ptr<DeviceRuntime> make(uint64_t budget = 1 << 20) {
    return GetParam().make(budget);
  }

  /// Submits and waits; expects success.
  void run(DeviceRuntime &runtime, Stream &stream, CommandBatch batch) {
    SubmitResult submitted = runtime.submit(stream, std::move(batch));
    ASSERT_TRUE(submitted.submitted()) << submitted.error().message;
    DeviceResult<TerminalReceipt> receipt =
        runtime.waitFence(submitted.fence(), 10s);
    ASSERT_TRUE(receipt.ok());
    EXPECT_TRUE(std::holds_alternative<Succeeded>(*receipt));
  }

  /// A hook that injects `error` at `point` while `armed` is set.
  static FaultHook injectAt(FaultPoint point,
                            std::shared_ptr<std::atomic<bool>> armed) {
    return [point, armed](FaultPoint at) -> std::optional<Error> {
      if (at == point && armed->load())
        return Error{ErrorCode::Injected, "injected fault"};
      return std::nullopt;
    };
  }
};

using test::bytesOf;

// Memory without a permit cannot be written down: only a runtime makes
// permits, and a permit cannot be copied to fund two allocations twice.
static_assert(!std::is_default_constructible_v<AllocationPermit>);
static_assert(!std::is_copy_constructible_v<AllocationPermit>);
static_assert(!std::is_copy_constructible_v<Stream>);

TEST_P(DeviceRuntimeTest, AllocatesWithinAPermit) {
  auto runtime = make();
  DeviceResult<AllocationPermit> permit = runtime->reserve(1000);
  ASSERT_TRUE(permit.ok());
  DeviceResult<Buffer> first = runtime->allocate(*permit, 600);
  DeviceResult<Buffer> second = runtime->allocate(*permit, 400);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->size(), 600u);
  EXPECT_EQ(permit->remainingBytes(), 0u);
  DeviceResult<Buffer> third = runtime->allocate(*permit, 1);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code, ErrorCode::OutOfBudget);
  MemoryUsage usage = runtime->memoryUsage();
  EXPECT_EQ(usage.inUseBytes, 1000u);
  EXPECT_EQ(usage.liveBuffers, 2u);
  EXPECT_EQ(usage.reservedBytes, 0u);
}

TEST_P(DeviceRuntimeTest, AllocationNeedsThisRuntimesPermit) {
  auto runtime = make();
  auto other = make();
  DeviceResult<AllocationPermit> foreign = other->reserve(64);
  ASSERT_TRUE(foreign.ok());
  DeviceResult<Buffer> buffer = runtime->allocate(*foreign, 64);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.error().code, ErrorCode::WrongRuntime);
  // A permit moved away from is spent.
  DeviceResult<AllocationPermit> permit = runtime->reserve(64);
  AllocationPermit taken = std::move(*permit);
  EXPECT_FALSE(runtime->allocate(*permit, 64).ok());
  EXPECT_TRUE(runtime->allocate(taken, 64).ok());
}

TEST_P(DeviceRuntimeTest, BudgetExhaustionGrantsNothing) {
  auto runtime = make(4096);
  DeviceResult<AllocationPermit> tooMuch = runtime->reserve(4097);
  ASSERT_FALSE(tooMuch.ok());
  EXPECT_EQ(tooMuch.error().code, ErrorCode::OutOfBudget);
  EXPECT_NE(tooMuch.error().message.find("4097"), std::string::npos);
  EXPECT_EQ(runtime->memoryUsage().reservedBytes, 0u);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  {
    DeviceResult<AllocationPermit> all = runtime->reserve(4096);
    ASSERT_TRUE(all.ok());
    EXPECT_FALSE(runtime->reserve(1).ok());
    Buffer buffer = *runtime->allocate(*all, 1000);
    EXPECT_EQ(runtime->memoryUsage().reservedBytes, 3096u);
  }
  // The unused part and the buffer are both back.
  EXPECT_EQ(runtime->memoryUsage().reservedBytes, 0u);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_TRUE(runtime->reserve(4096).ok());
}

TEST_P(DeviceRuntimeTest, UploadCopyZeroReadbackRoundTrip) {
  auto runtime = make();
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 8);
  Buffer b = allocate(*runtime, 8);
  std::vector<std::byte> data = bytesOf({1, 2, 3, 4, 5, 6, 7, 8});
  CommandBatch batch;
  batch.add(command(runtime->encodeUpload(data, a, 0)));
  // Fresh memory is not zero on every backend (CUDA).
  batch.add(command(runtime->encodeZero(b, 6, 2)));
  batch.add(command(runtime->encodeCopy(a, b, CopyRegion{2, 0, 6})));
  batch.add(command(runtime->encodeZero(b, 1, 2)));
  run(*runtime, stream, std::move(batch));
  EXPECT_EQ(read(*runtime, stream, a), data);
  EXPECT_EQ(read(*runtime, stream, b), bytesOf({3, 0, 0, 6, 7, 8, 0, 0}));
  DeviceResult<std::vector<std::byte>> part =
      runtime->readback(stream, a, 6, 2);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(*part, bytesOf({7, 8}));
}

TEST_P(DeviceRuntimeTest, EncodingChecksRanges) {
  auto runtime = make();
  Buffer a = allocate(*runtime, 8);
  std::vector<std::byte> nine(9);
  EXPECT_EQ(runtime->encodeUpload(nine, a, 0).error().code,
            ErrorCode::InvalidArgument);
  EXPECT_FALSE(runtime->encodeZero(a, 4, 5).ok());
  EXPECT_FALSE(runtime->encodeCopy(a, a, CopyRegion{0, 2, 4}).ok());
  EXPECT_TRUE(runtime->encodeCopy(a, a, CopyRegion{0, 4, 4}).ok());
  Stream stream = *runtime->createStream();
  EXPECT_FALSE(runtime->readback(stream, a, 7, 2).ok());
  SubmitResult empty = runtime->submit(stream, CommandBatch());
  ASSERT_FALSE(empty.submitted());
  EXPECT_EQ(empty.error().code, ErrorCode::InvalidArgument);
}

TEST_P(DeviceRuntimeTest, CommandsRunInOrderWithinAndAcrossBatches) {
  auto runtime = make();
  Stream stream = *runtime->createStream();
  Buffer work = allocate(*runtime, 4);
  Buffer first = allocate(*runtime, 4);
  Buffer second = allocate(*runtime, 4);
  std::vector<Fence> fences;
  // Nothing waits between the batches: only the stream orders them.
  for (int round = 0; round < 20; ++round) {
    CommandBatch batch;
    batch.add(command(
        runtime->encodeUpload(bytesOf({round, round, round, round}), work, 0)));
    batch.add(command(
        runtime->encodeCopy(work, round % 2 ? second : first, {0, 0, 4})));
    batch.add(command(runtime->encodeZero(work, 0, 2)));
    SubmitResult submitted = runtime->submit(stream, std::move(batch));
    ASSERT_TRUE(submitted.submitted());
    fences.push_back(submitted.fence());
  }
  ASSERT_TRUE(runtime->synchronize(stream).ok());
  for (const Fence &fence : fences)
    EXPECT_TRUE(
        std::holds_alternative<FenceTerminal>(runtime->queryFence(fence)));
  EXPECT_EQ(read(*runtime, stream, first), bytesOf({18, 18, 18, 18}));
  EXPECT_EQ(read(*runtime, stream, second), bytesOf({19, 19, 19, 19}));
  EXPECT_EQ(read(*runtime, stream, work), bytesOf({0, 0, 19, 19}));
  EXPECT_TRUE(
      std::holds_alternative<StreamReady>(runtime->streamState(stream)));
}

TEST_P(DeviceRuntimeTest, AFailedStreamDoesNotPoisonAnother) {
  auto runtime = make();
  auto armed = std::make_shared<std::atomic<bool>>(true);
  runtime->setFaultHookForTesting(injectAt(FaultPoint::Execute, armed));
  Stream failing = *runtime->createStream();
  Buffer a = allocate(*runtime, 4);
  CommandBatch batch;
  batch.add(command(runtime->encodeZero(a, 0, 4)));
  SubmitResult submitted = runtime->submit(failing, std::move(batch));
  ASSERT_TRUE(submitted.submitted());
  DeviceResult<TerminalReceipt> receipt =
      runtime->waitFence(submitted.fence(), 10s);
  ASSERT_TRUE(receipt.ok());
  ASSERT_TRUE(std::holds_alternative<FailedButQuiescent>(*receipt));
  EXPECT_EQ(std::get<FailedButQuiescent>(*receipt).error.code,
            ErrorCode::Injected);
  armed->store(false);

  StreamState state = runtime->streamState(failing);
  ASSERT_TRUE(std::holds_alternative<StreamFailed>(state));
  EXPECT_EQ(std::get<StreamFailed>(state).reason.message, "injected fault");
  EXPECT_EQ(runtime->synchronize(failing).error().code,
            ErrorCode::StreamFailed);
  CommandBatch refused;
  refused.add(command(runtime->encodeZero(a, 0, 4)));
  SubmitResult again = runtime->submit(failing, std::move(refused));
  ASSERT_FALSE(again.submitted());
  EXPECT_EQ(again.error().code, ErrorCode::StreamFailed);
  EXPECT_EQ(again.notSubmitted().batch.size(), 1u);

  Stream healthy = *runtime->createStream();
  CommandBatch other;
  other.add(command(runtime->encodeUpload(bytesOf({9, 9, 9, 9}), a, 0)));
  run(*runtime, healthy, std::move(other));
  EXPECT_EQ(read(*runtime, healthy, a), bytesOf({9, 9, 9, 9}));

  ASSERT_TRUE(runtime->resetStream(failing).ok());
  EXPECT_TRUE(
      std::holds_alternative<StreamReady>(runtime->streamState(failing)));
  run(*runtime, failing, std::move(again.notSubmitted().batch));
  EXPECT_EQ(read(*runtime, failing, a), bytesOf({0, 0, 0, 0}));
}

TEST_P(DeviceRuntimeTest, ObjectsOfAnotherInstanceAreRejected) {
  auto runtime = make();
  auto other = make();
  Buffer mine = allocate(*runtime, 8);
  Buffer theirs = allocate(*other, 8);
  Stream myStream = *runtime->createStream();
  Stream theirStream = *other->createStream();
  std::vector<std::byte> data(8, std::byte(1));

  EXPECT_EQ(runtime->encodeUpload(data, theirs, 0).error().code,
            ErrorCode::WrongRuntime);
  EXPECT_EQ(runtime->encodeZero(theirs, 0, 8).error().code,
            ErrorCode::WrongRuntime);
  EXPECT_EQ(runtime->encodeCopy(mine, theirs, {0, 0, 8}).error().code,
            ErrorCode::WrongRuntime);
  EXPECT_EQ(runtime->readback(myStream, theirs, 0, 8).error().code,
            ErrorCode::WrongRuntime);
  DeviceResult<Executable> theirExecutable =
      other->load(GetParam().addBundle(2));
  ASSERT_TRUE(theirExecutable.ok()) << theirExecutable.error().message;
  EXPECT_EQ(
      runtime
          ->encodeLaunch(*theirExecutable, 0, {},
                         {bindWhole(mine), bindWhole(mine), bindWhole(mine)})
          .error()
          .code,
      ErrorCode::WrongRuntime);

  CommandBatch batch;
  batch.add(command(runtime->encodeZero(mine, 0, 8)));
  SubmitResult wrongStream = runtime->submit(theirStream, std::move(batch));
  ASSERT_FALSE(wrongStream.submitted());
  EXPECT_EQ(wrongStream.error().code, ErrorCode::WrongRuntime);
  SubmitResult wrongRuntime =
      other->submit(theirStream, std::move(wrongStream.notSubmitted().batch));
  ASSERT_FALSE(wrongRuntime.submitted());
  EXPECT_EQ(wrongRuntime.error().code, ErrorCode::WrongRuntime);

  SubmitResult submitted =
      runtime->submit(myStream, std::move(wrongRuntime.notSubmitted().batch));
  ASSERT_TRUE(submitted.submitted());
  FenceQuery query = other->queryFence(submitted.fence());
  ASSERT_TRUE(std::holds_alternative<FenceIndeterminate>(query));
  EXPECT_EQ(std::get<FenceIndeterminate>(query).error.code,
            ErrorCode::WrongRuntime);
  EXPECT_EQ(other->waitFence(submitted.fence(), 1s).error().code,
            ErrorCode::WrongRuntime);
  EXPECT_TRUE(
      std::holds_alternative<StreamFailed>(other->streamState(myStream)));
  EXPECT_TRUE(runtime->waitFence(submitted.fence(), 10s).ok());
}

TEST_P(DeviceRuntimeTest, ErrorsAreDescribed) {
  auto runtime = make(100);
  DeviceResult<AllocationPermit> permit = runtime->reserve(1000);
  ASSERT_FALSE(permit.ok());
  ErrorReport report = runtime->describeError(permit.error());
  EXPECT_EQ(report.code, "out of budget");
  EXPECT_TRUE(report.retryable);
  std::string text = report.toString();
  EXPECT_NE(text.find(runtime->descriptor().name), std::string::npos) << text;
  EXPECT_NE(text.find("cannot grant 1000 bytes"), std::string::npos) << text;
  EXPECT_FALSE(
      runtime->describeError(Error{ErrorCode::WrongRuntime, "x"}).retryable);
}

TEST_P(DeviceRuntimeTest, FaultAtAllocationAllocatesNothing) {
  auto runtime = make();
  auto armed = std::make_shared<std::atomic<bool>>(true);
  runtime->setFaultHookForTesting(injectAt(FaultPoint::Allocate, armed));
  DeviceResult<AllocationPermit> permit = runtime->reserve(64);
  DeviceResult<Buffer> buffer = runtime->allocate(*permit, 64);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.error().code, ErrorCode::Injected);
  EXPECT_EQ(permit->remainingBytes(), 64u);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_EQ(runtime->memoryUsage().liveBuffers, 0u);
}

TEST_P(DeviceRuntimeTest, FaultAtEncodeMakesNoCommand) {
  auto runtime = make();
  Buffer a = allocate(*runtime, 8);
  auto armed = std::make_shared<std::atomic<bool>>(true);
  runtime->setFaultHookForTesting(injectAt(FaultPoint::Encode, armed));
  EXPECT_EQ(runtime->encodeZero(a, 0, 8).error().code, ErrorCode::Injected);
  EXPECT_EQ(runtime->encodeUpload(std::vector<std::byte>(8), a, 0).error().code,
            ErrorCode::Injected);
  EXPECT_EQ(runtime->encodeCopy(a, a, {0, 4, 4}).error().code,
            ErrorCode::Injected);
}

TEST_P(DeviceRuntimeTest, NotSubmittedWorkReleasesItsResources) {
  auto runtime = make();
  auto armed = std::make_shared<std::atomic<bool>>(true);
  runtime->setFaultHookForTesting(
      injectAt(FaultPoint::SubmitBeforeEnqueue, armed));
  Stream stream = *runtime->createStream();
  SubmitResult submitted = [&] {
    Buffer a = allocate(*runtime, 4096);
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(a, 0, 4096)));
    return runtime->submit(stream, std::move(batch));
  }();
  ASSERT_FALSE(submitted.submitted());
  EXPECT_EQ(submitted.error().code, ErrorCode::Injected);
  // The returned batch is all that holds the buffer.
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 4096u);
  submitted.notSubmitted().batch = CommandBatch();
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_TRUE(
      std::holds_alternative<StreamReady>(runtime->streamState(stream)));
}

TEST_P(DeviceRuntimeTest, PossiblySubmittedWorkHoldsItsResourcesUntilTerminal) {
  auto runtime = make();
  auto armed = std::make_shared<std::atomic<bool>>(true);
  runtime->setFaultHookForTesting(
      injectAt(FaultPoint::SubmitAfterEnqueue, armed));
  Stream stream = *runtime->createStream();
  SubmitResult submitted = [&] {
    Buffer a = allocate(*runtime, 4096);
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(a, 0, 4096)));
    return runtime->submit(stream, std::move(batch));
  }();
  // Possibly submitted: a fence, never a NotSubmitted.
  ASSERT_TRUE(submitted.submitted());
  EXPECT_TRUE(
      std::holds_alternative<StreamFailed>(runtime->streamState(stream)) ||
      std::holds_alternative<StreamSubmitted>(runtime->streamState(stream)));
  DeviceResult<TerminalReceipt> receipt =
      runtime->waitFence(submitted.fence(), 10s);
  ASSERT_TRUE(receipt.ok());
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_EQ(runtime->synchronize(stream).error().code, ErrorCode::StreamFailed);
}

TEST_P(DeviceRuntimeTest, IndeterminateWaitReleasesNothingAndLeaksNothing) {
  auto runtime = make();
  auto armed = std::make_shared<std::atomic<bool>>(true);
  runtime->setFaultHookForTesting(injectAt(FaultPoint::Wait, armed));
  Stream stream = *runtime->createStream();
  Fence fence;
  {
    Buffer a = allocate(*runtime, 128);
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(a, 0, 128)));
    SubmitResult submitted = runtime->submit(stream, std::move(batch));
    ASSERT_TRUE(submitted.submitted());
    fence = submitted.fence();
  }
  DeviceResult<TerminalReceipt> waited = runtime->waitFence(fence, 10s);
  ASSERT_FALSE(waited.ok());
  EXPECT_EQ(waited.error().code, ErrorCode::Indeterminate);
  EXPECT_TRUE(
      std::holds_alternative<FenceIndeterminate>(runtime->queryFence(fence)));
  armed->store(false);
  DeviceResult<TerminalReceipt> receipt = runtime->waitFence(fence, 10s);
  ASSERT_TRUE(receipt.ok());
  EXPECT_TRUE(std::holds_alternative<Succeeded>(*receipt));
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_EQ(runtime->memoryUsage().liveBuffers, 0u);
}

TEST_P(DeviceRuntimeTest, TimingModes) {
  auto runtime = make();
  Bundle bundle = GetParam().addBundle(64);
  std::vector<float> a = test::randomFloats(1, 64),
                     b = test::randomFloats(2, 64);
  Executable executable = *runtime->load(bundle);
  Stream stream = *runtime->createStream();
  Buffer x = allocate(*runtime, 256), y = allocate(*runtime, 256),
         out = allocate(*runtime, 256);
  auto submitOnce = [&] {
    CommandBatch batch;
    batch.add(command(runtime->encodeUpload(test::toBytes(a), x, 0)));
    batch.add(command(runtime->encodeUpload(test::toBytes(b), y, 0)));
    for (int i = 0; i < 2; ++i)
      batch.add(command(
          runtime->encodeLaunch(executable, 0, bundle.kernels[0].launch,
                                {bindWhole(x), bindWhole(y), bindWhole(out)})));
    SubmitResult submitted = runtime->submit(stream, std::move(batch));
    EXPECT_TRUE(submitted.submitted());
    EXPECT_TRUE(runtime->waitFence(submitted.fence(), 10s).ok());
    return submitted.fence();
  };
  EXPECT_FALSE(runtime->submissionTiming(submitOnce()).ok());
  runtime->setTimingMode(TimingMode::Completion);
  DeviceResult<SubmissionTiming> completion =
      runtime->submissionTiming(submitOnce());
  ASSERT_TRUE(completion.ok());
  EXPECT_EQ(completion->mode, TimingMode::Completion);
  EXPECT_TRUE(completion->launches.empty());
  runtime->setTimingMode(TimingMode::Kernel);
  DeviceResult<SubmissionTiming> kernel =
      runtime->submissionTiming(submitOnce());
  ASSERT_TRUE(kernel.ok());
  ASSERT_EQ(kernel->launches.size(), 2u);
  EXPECT_GE(kernel->submitToComplete, kernel->launches[0]);
}

TEST_P(DeviceRuntimeTest, RunBundleMatchesTheGraph) {
  if (!GetParam().computes())
    GTEST_SKIP() << "the fake CUDA driver records launches but does not "
                    "compute them: this check needs a GPU";
  auto runtime = make();
  const int64_t n = 1003;
  std::vector<float> a = test::randomFloats(11, n),
                     b = test::randomFloats(12, n),
                     c = test::randomFloats(13, n);
  std::vector<TensorBytes> inputs = {test::toBytes(a), test::toBytes(b),
                                     test::toBytes(c)};
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, GetParam().mulAddBundle(n), inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  std::vector<float> out = test::fromBytes<float>((*outputs)[0]);
  ASSERT_EQ(out.size(), size_t(n));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a[i] * b[i] + c[i]) << i;
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_EQ(runtime->memoryUsage().reservedBytes, 0u);
}

// A graph that returns one value twice (`return %y, %y`): both outputs hold
// it, whichever position the kernel writes (here the second; the first once
// read back as zeros, and --check blamed the right answer).
TEST_P(DeviceRuntimeTest, RunBundleReturnsAValueTwice) {
  if (!GetParam().computes())
    GTEST_SKIP() << "the fake CUDA driver records launches but does not "
                    "compute them: this check needs a GPU";
  auto runtime = make();
  const int64_t n = 257;
  std::vector<float> a = test::randomFloats(21, n),
                     b = test::randomFloats(22, n),
                     c = test::randomFloats(23, n);
  Bundle bundle = GetParam().mulAddBundle(n);
  bundle.outputs.push_back(bundle.outputs[0]);
  bundle.graph.outputs.push_back({bundle.outputs[0], "out_again"});
  for (KernelBinding &binding : bundle.kernels[1].bindings)
    if (binding.kind == BindingKind::GraphOutput)
      binding.index = 1;
  std::vector<TensorBytes> inputs = {test::toBytes(a), test::toBytes(b),
                                     test::toBytes(c)};
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, bundle, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  ASSERT_EQ(outputs->size(), 2u);
  for (int k = 0; k < 2; ++k) {
    std::vector<float> out = test::fromBytes<float>((*outputs)[k]);
    ASSERT_EQ(out.size(), size_t(n));
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], a[i] * b[i] + c[i]) << "output " << k << ", " << i;
  }
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
}

// runBundleGuarded on every runtime: its uploads and read-backs at offsets
// past each tensor, an output returned twice (one buffer, no guard of its
// own), nothing left allocated.
TEST_P(DeviceRuntimeTest, RunBundleGuardedBreachesNothingOfACorrectBundle) {
  auto runtime = make();
  const int64_t n = 257;
  std::vector<float> a = test::randomFloats(31, n),
                     b = test::randomFloats(32, n),
                     c = test::randomFloats(33, n);
  Bundle bundle = GetParam().mulAddBundle(n);
  bundle.outputs.push_back(bundle.outputs[0]);
  bundle.graph.outputs.push_back({bundle.outputs[0], "out_again"});
  std::vector<TensorBytes> inputs = {test::toBytes(a), test::toBytes(b),
                                     test::toBytes(c)};
  {
    Executable executable = *runtime->load(bundle);
    Stream stream = *runtime->createStream();
    std::vector<std::span<const std::byte>> views(inputs.begin(), inputs.end());
    DeviceResult<GuardedRun> guarded =
        runBundleGuarded(*runtime, bundle, executable, stream, views);
    ASSERT_TRUE(guarded.ok()) << guarded.error().message;
    EXPECT_TRUE(guarded->breaches.empty()) << guarded->breaches[0].where;
    // 3 inputs, 1 output buffer, before and after the product.
    EXPECT_EQ(guarded->guards, 6u);
    ASSERT_EQ(guarded->outputs.size(), 2u);
    if (GetParam().computes())
      for (int k = 0; k < 2; ++k) {
        std::vector<float> out = test::fromBytes<float>(guarded->outputs[k]);
        ASSERT_EQ(out.size(), size_t(n));
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(out[i], a[i] * b[i] + c[i]) << "output " << k << ", " << i;
      }
  }
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
}

TEST_P(DeviceRuntimeTest, RunBundleChecksItsInputs) {
  auto runtime = make();
  std::vector<TensorBytes> inputs = {TensorBytes(16)};
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, GetParam().addBundle(4), inputs);
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.error().message.find("takes 2 inputs"), std::string::npos);
  inputs.push_back(TensorBytes(12));
  outputs = runBundle(*runtime, GetParam().addBundle(4), inputs);
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.error().message.find("tensor<4xf32>"), std::string::npos)
      << outputs.error().message;
}

INSTANTIATE_TEST_SUITE_P(Runtimes, DeviceRuntimeTest,
                         ::testing::ValuesIn(runtimeKinds()),
                         [](const auto &info) { return info.param.name; });

} // namespace
