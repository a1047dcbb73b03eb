//===- HostRuntimeTest.cpp - What is particular to the host runtime -------===//
//
// Asynchrony (fences observed while work runs, timeouts, independent
// streams), kernel loading and unloading, chunking, the pooled allocator, and
// agreement with the reference runtime. Tests that need a stream held busy
// block it in the Execute test hook on a latch: no sleeps.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "runtime/Version.h"
#include "runtime/cache/ArenaPlanner.h"
#include "runtime/device/HostAllocator.h"
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <latch>
#include <mutex>
#include <sstream>
#include <thread>

using namespace fuse;
using namespace fuse::device;
using namespace std::chrono_literals;

namespace {

/// Holds the first `count` submissions that start executing until opened.
class StreamGate {
public:
  explicit StreamGate(DeviceRuntime &runtime, int count = 1)
      : reached(count), remaining(count) {
    runtime.setFaultHookForTesting([this](FaultPoint point) {
      if (point == FaultPoint::Execute && remaining.fetch_sub(1) > 0) {
        reached.count_down();
        open.wait();
      }
      if (point == FaultPoint::Wait && indeterminate.load())
        return std::optional<Error>(
            Error{ErrorCode::Injected, "cannot prove completion"});
      if (point == FaultPoint::SubmitAfterEnqueue && afterEnqueue.load())
        return std::optional<Error>(
            Error{ErrorCode::Injected, "lost after enqueue"});
      return std::optional<Error>();
    });
  }

  std::latch reached;
  std::latch open{1};
  std::atomic<int> remaining;
  std::atomic<bool> indeterminate{false};
  std::atomic<bool> afterEnqueue{false};
};

HostRuntime::Options options(unsigned threads = 4) {
  return HostRuntime::Options{64 << 20, threads};
}

Fence submitZero(HostRuntime &runtime, Stream &stream, uint64_t bytes) {
  AllocationPermit permit = std::move(*runtime.reserve(bytes));
  Buffer buffer = *runtime.allocate(permit, bytes);
  CommandBatch batch;
  batch.add(std::move(*runtime.encodeZero(buffer, 0, bytes)));
  SubmitResult submitted = runtime.submit(stream, std::move(batch));
  EXPECT_TRUE(submitted.submitted());
  return submitted.fence();
}

int mappedKernelLibraries() {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);)
    count += line.find("fuse-host-kernels") != std::string::npos;
  return count;
}

TEST(HostRuntime, DescribesItself) {
  HostRuntime runtime(options(3));
  EXPECT_EQ(runtime.descriptor().kind, DeviceKind::Host);
  EXPECT_EQ(runtime.descriptor().computeUnits, 3u);
  EXPECT_EQ(runtime.descriptor().memoryBudgetBytes, uint64_t(64) << 20);
  EXPECT_TRUE(runtime.descriptor().target.starts_with("host-x86-64-v"));
  EXPECT_GT(HostRuntime().descriptor().memoryBudgetBytes, 0u);
}

TEST(HostRuntime, FenceIsPendingWhileWorkRunsAndWaitTimesOut) {
  HostRuntime runtime(options());
  StreamGate gate(runtime);
  Stream stream = *runtime.createStream();
  Fence fence = submitZero(runtime, stream, 4096);
  gate.reached.wait();
  EXPECT_TRUE(std::holds_alternative<FencePending>(runtime.queryFence(fence)));
  StreamState state = runtime.streamState(stream);
  ASSERT_TRUE(std::holds_alternative<StreamSubmitted>(state));
  EXPECT_EQ(std::get<StreamSubmitted>(state).pendingSubmissions, 1u);
  DeviceResult<TerminalReceipt> timedOut = runtime.waitFence(fence, 1ms);
  ASSERT_FALSE(timedOut.ok());
  EXPECT_EQ(timedOut.error().code, ErrorCode::Timeout);
  EXPECT_TRUE(runtime.describeError(timedOut.error()).retryable);
  gate.open.count_down();
  DeviceResult<TerminalReceipt> receipt = runtime.waitFence(fence, 10s);
  ASSERT_TRUE(receipt.ok());
  EXPECT_TRUE(std::holds_alternative<Succeeded>(*receipt));
  EXPECT_TRUE(std::holds_alternative<StreamReady>(runtime.streamState(stream)));
}

TEST(HostRuntime, PendingWorkHoldsItsBuffersUntilTerminal) {
  HostRuntime runtime(options());
  StreamGate gate(runtime);
  Stream stream = *runtime.createStream();
  Fence fence = submitZero(runtime, stream, 8192);
  gate.reached.wait();
  // Every handle is gone; only the pending submission holds the buffer.
  EXPECT_EQ(runtime.memoryUsage().inUseBytes, 8192u);
  gate.open.count_down();
  ASSERT_TRUE(runtime.waitFence(fence, 10s).ok());
  EXPECT_EQ(runtime.memoryUsage().inUseBytes, 0u);
}

TEST(HostRuntime, FailureAfterEnqueueHoldsResourcesUntilQuiescent) {
  HostRuntime runtime(options());
  StreamGate gate(runtime);
  Stream stream = *runtime.createStream();
  Fence running = submitZero(runtime, stream, 4096);
  gate.reached.wait();
  gate.afterEnqueue = true;
  Fence lost = submitZero(runtime, stream, 4096);
  gate.afterEnqueue = false;
  EXPECT_TRUE(
      std::holds_alternative<StreamFailed>(runtime.streamState(stream)));
  EXPECT_TRUE(std::holds_alternative<FencePending>(runtime.queryFence(lost)));
  EXPECT_EQ(runtime.memoryUsage().inUseBytes, 8192u);
  EXPECT_FALSE(runtime.resetStream(stream).ok());
  gate.open.count_down();
  DeviceResult<TerminalReceipt> receipt = runtime.waitFence(lost, 10s);
  ASSERT_TRUE(receipt.ok());
  ASSERT_TRUE(std::holds_alternative<FailedButQuiescent>(*receipt));
  EXPECT_EQ(std::get<FailedButQuiescent>(*receipt).error.message,
            "lost after enqueue");
  EXPECT_EQ(runtime.memoryUsage().inUseBytes, 0u);
  EXPECT_TRUE(runtime.resetStream(stream).ok());
  EXPECT_TRUE(runtime.waitFence(running, 10s).ok());
}

TEST(HostRuntime, IndeterminateAnswersReleaseNothing) {
  HostRuntime runtime(options());
  StreamGate gate(runtime);
  Stream stream = *runtime.createStream();
  Fence fence = submitZero(runtime, stream, 4096);
  gate.reached.wait();
  gate.indeterminate = true;
  EXPECT_EQ(runtime.waitFence(fence, 10s).error().code,
            ErrorCode::Indeterminate);
  EXPECT_TRUE(
      std::holds_alternative<FenceIndeterminate>(runtime.queryFence(fence)));
  EXPECT_EQ(runtime.memoryUsage().inUseBytes, 4096u);
  gate.indeterminate = false;
  gate.open.count_down();
  EXPECT_TRUE(runtime.waitFence(fence, 10s).ok());
  EXPECT_EQ(runtime.memoryUsage().inUseBytes, 0u);
}

TEST(HostRuntime, StreamsAreIndependent) {
  HostRuntime runtime(options(2));
  StreamGate gate(runtime);
  Stream blocked = *runtime.createStream();
  Stream free = *runtime.createStream();
  Fence held = submitZero(runtime, blocked, 4096);
  gate.reached.wait();
  // The other stream completes a kernel launch while the first is held.
  std::vector<float> a = test::randomFloats(3, 100),
                     b = test::randomFloats(4, 100);
  Bundle bundle = test::addBundle(100);
  Executable executable = *runtime.load(bundle);
  DeviceResult<std::vector<TensorBytes>> out =
      runBundle(runtime, bundle, executable, free,
                std::vector<TensorBytes>{test::toBytes(a), test::toBytes(b)});
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(test::fromBytes<float>((*out)[0])[7], a[7] + b[7]);
  EXPECT_TRUE(std::holds_alternative<FencePending>(runtime.queryFence(held)));
  gate.open.count_down();
  EXPECT_TRUE(runtime.waitFence(held, 10s).ok());
}

TEST(HostRuntime, SubmitReturnsBeforeTheWorkIsDone) {
  HostRuntime runtime(options());
  StreamGate gate(runtime, 3);
  Stream stream = *runtime.createStream();
  std::vector<Fence> fences;
  for (int i = 0; i < 3; ++i)
    fences.push_back(submitZero(runtime, stream, 4096));
  // Only the first has started; the queue holds the others in order.
  EXPECT_EQ(
      std::get<StreamSubmitted>(runtime.streamState(stream)).pendingSubmissions,
      3u);
  gate.open.count_down();
  ASSERT_TRUE(runtime.synchronize(stream).ok());
  for (const Fence &fence : fences)
    EXPECT_TRUE(
        std::holds_alternative<FenceTerminal>(runtime.queryFence(fence)));
}

TEST(HostRuntime, KernelsMatchTheReferenceRuntime) {
  HostRuntime host(options());
  ReferenceRuntime reference;
  for (int64_t n : {1, 7, 8, 1000, 4099}) {
    std::vector<TensorBytes> inputs;
    for (int i = 0; i < 3; ++i)
      inputs.push_back(test::toBytes(test::randomFloats(100 * n + i, n)));
    Bundle bundle = test::mulAddBundle(n);
    DeviceResult<std::vector<TensorBytes>> fromHost =
        runBundle(host, bundle, inputs);
    DeviceResult<std::vector<TensorBytes>> fromReference =
        runBundle(reference, makeReferenceBundle(bundle.graph), inputs);
    ASSERT_TRUE(fromHost.ok()) << fromHost.error().message;
    ASSERT_TRUE(fromReference.ok()) << fromReference.error().message;
    // One f32 rounding per op on both sides: bit-identical.
    EXPECT_EQ(*fromHost, *fromReference) << n;
  }
}

TEST(HostRuntime, ChunksStartOnMultiplesOfTheGrain) {
  HostRuntime runtime(options(4));
  const int64_t n = 1003, grain = 16;
  GraphBuilder builder;
  TensorId x = builder.input({ElementType::I64, {n}});
  builder.output(builder.neg(x));
  Bundle bundle;
  bundle.graph = *builder.finish();
  bundle.target = test::hostTarget();
  bundle.versionId = versionId();
  bundle.inputs = bundle.graph.inputs;
  bundle.outputs = {bundle.graph.outputs[0].tensor};
  bundle.kernels.push_back(test::hostKernel("fuse_test_record_chunks",
                                            {{BindingKind::GraphOutput, 0}},
                                            {0}, n, grain));
  bundle.launchOrder = {0};
  DeviceResult<std::vector<TensorBytes>> out =
      runBundle(runtime, bundle, std::vector<TensorBytes>{TensorBytes(n * 8)});
  ASSERT_TRUE(out.ok()) << out.error().message;
  std::vector<int64_t> begins = test::fromBytes<int64_t>((*out)[0]);
  int64_t chunks = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(begins[i] % grain, 0) << i;
    ASSERT_LE(begins[i], i);
    chunks += begins[i] == i;
  }
  EXPECT_GT(chunks, 1);
}

TEST(HostRuntime, LibraryStaysLoadedUntilItsLastFenceIsTerminal) {
  int before = mappedKernelLibraries();
  HostRuntime runtime(options());
  Stream stream = *runtime.createStream();
  Bundle bundle = test::addBundle(4);
  Fence fence;
  StreamGate gate(runtime);
  {
    Executable executable = *runtime.load(bundle);
    EXPECT_GT(mappedKernelLibraries(), before);
    AllocationPermit permit = std::move(*runtime.reserve(48));
    Buffer a = *runtime.allocate(permit, 16), b = *runtime.allocate(permit, 16),
           c = *runtime.allocate(permit, 16);
    CommandBatch batch;
    batch.add(std::move(
        *runtime.encodeLaunch(executable, 0, bundle.kernels[0].launch,
                              {bindWhole(a), bindWhole(b), bindWhole(c)})));
    SubmitResult submitted = runtime.submit(stream, std::move(batch));
    ASSERT_TRUE(submitted.submitted());
    fence = submitted.fence();
  }
  gate.reached.wait();
  EXPECT_GT(mappedKernelLibraries(), before);
  gate.open.count_down();
  ASSERT_TRUE(runtime.waitFence(fence, 10s).ok());
  EXPECT_EQ(mappedKernelLibraries(), before);
}

TEST(HostRuntime, RejectsBundlesItCannotRun) {
  HostRuntime runtime(options());
  Bundle ptx = test::addBundle(4);
  ptx.kernels[0].payloadKind = PayloadKind::PtxText;
  EXPECT_EQ(runtime.load(ptx).error().code, ErrorCode::Unsupported);

  Bundle gpu = test::addBundle(4);
  gpu.kernels[0].target = "sm_90";
  EXPECT_EQ(runtime.load(gpu).error().code, ErrorCode::Incompatible);

  Bundle stale = test::addBundle(4);
  stale.versionId = "00000000000000000000000000000000";
  DeviceResult<Executable> staleLoad = runtime.load(stale);
  ASSERT_FALSE(staleLoad.ok());
  EXPECT_EQ(staleLoad.error().code, ErrorCode::Incompatible);
  EXPECT_NE(staleLoad.error().message.find(versionId()), std::string::npos);

  Bundle missing = test::addBundle(4);
  missing.kernels[0].entry = "no_such_kernel";
  DeviceResult<Executable> missingLoad = runtime.load(missing);
  ASSERT_FALSE(missingLoad.ok());
  EXPECT_EQ(missingLoad.error().code, ErrorCode::KernelLoadFailed);
  EXPECT_NE(missingLoad.error().message.find("no_such_kernel"),
            std::string::npos);

  Bundle garbage = test::addBundle(4);
  garbage.kernels[0].payload = {1, 2, 3, 4};
  EXPECT_EQ(runtime.load(garbage).error().code, ErrorCode::KernelLoadFailed);

  Bundle broken = test::addBundle(4);
  broken.kernels[0].bindings[2].index = 5;
  EXPECT_EQ(runtime.load(broken).error().code, ErrorCode::InvalidArgument);

  if (!hostSupports(HostIsaLevel::X86_64_V4)) {
    Bundle v4 = test::addBundle(4);
    v4.kernels[0].target = "host-x86-64-v4";
    EXPECT_EQ(runtime.load(v4).error().code, ErrorCode::Incompatible);
  }
}

TEST(HostRuntime, Bf16KernelsNeedAvx512Bf16) {
  // --matmul-precision=bf16's kernels are tagged `+avx512bf16`, which
  // x86-64-v4 does not include; only an AVX-512 level carries it.
  std::optional<HostKernelIsa> bf16 =
      parseHostKernelTarget("host-x86-64-v4+avx512bf16");
  ASSERT_TRUE(bf16.has_value());
  EXPECT_EQ(bf16->level, HostIsaLevel::X86_64_V4);
  EXPECT_TRUE(bf16->avx512Bf16);
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v4")->avx512Bf16);
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v3+avx512bf16"));
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v4+avx512fp16"));
  EXPECT_EQ(hostSupports(*bf16), hostSupportsAvx512Bf16());
  // A CPU without it refuses the kernel, naming what it needs (the kernel's
  // code itself is plain: the check is the tag's).
  HostRuntime runtime(options());
  Bundle tagged = test::addBundle(4);
  tagged.kernels[0].target = "host-x86-64-v4+avx512bf16";
  DeviceResult<Executable> loaded = runtime.load(tagged);
  if (hostSupportsAvx512Bf16()) {
    EXPECT_TRUE(loaded.ok());
  } else {
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, ErrorCode::Incompatible);
    EXPECT_NE(loaded.error().message.find("+avx512bf16"), std::string::npos);
  }
}

TEST(HostRuntime, AmxKernelsNeedAmxBf16) {
  // A bf16 matmul on AMX tiles is `host-x86-64-v4+avx512bf16+amxbf16`; the
  // AMX tag comes only after the AVX-512 BF16 one.
  std::optional<HostKernelIsa> amx =
      parseHostKernelTarget("host-x86-64-v4+avx512bf16+amxbf16");
  ASSERT_TRUE(amx.has_value());
  EXPECT_EQ(amx->level, HostIsaLevel::X86_64_V4);
  EXPECT_TRUE(amx->avx512Bf16);
  EXPECT_TRUE(amx->amxBf16);
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v4+avx512bf16")->amxBf16);
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v4+amxbf16"));
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v3+avx512bf16+amxbf16"));
  EXPECT_FALSE(parseHostKernelTarget("host-x86-64-v4+amxbf16+avx512bf16"));
  EXPECT_EQ(hostSupports(*amx), hostSupportsAmxBf16());
  if (hostSupportsAmxBf16())
    EXPECT_TRUE(hostSupportsAvx512Bf16());
  HostRuntime runtime(options());
  Bundle tagged = test::addBundle(4);
  tagged.kernels[0].target = "host-x86-64-v4+avx512bf16+amxbf16";
  DeviceResult<Executable> loaded = runtime.load(tagged);
  if (hostSupportsAmxBf16()) {
    EXPECT_TRUE(loaded.ok());
  } else {
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, ErrorCode::Incompatible);
    EXPECT_NE(loaded.error().message.find("+amxbf16"), std::string::npos);
  }
}

TEST(HostRuntime, LaunchChecksItsBindings) {
  HostRuntime runtime(options());
  Bundle bundle = test::addBundle(4);
  Executable executable = *runtime.load(bundle);
  EXPECT_EQ(executable.kernelCount(), 1u);
  AllocationPermit permit = std::move(*runtime.reserve(64));
  Buffer big = *runtime.allocate(permit, 16),
         small = *runtime.allocate(permit, 8);
  LaunchConfig config = bundle.kernels[0].launch;
  EXPECT_FALSE(runtime.encodeLaunch(executable, 1, config, {}).ok());
  EXPECT_FALSE(
      runtime.encodeLaunch(executable, 0, config, {bindWhole(big)}).ok());
  DeviceResult<Command> tooSmall =
      runtime.encodeLaunch(executable, 0, config,
                           {bindWhole(big), bindWhole(big), bindWhole(small)});
  ASSERT_FALSE(tooSmall.ok());
  EXPECT_NE(tooSmall.error().message.find("uses 16"), std::string::npos)
      << tooSmall.error().message;
  EXPECT_FALSE(runtime
                   .encodeLaunch(executable, 0, config,
                                 {bindWhole(big), bindWhole(big),
                                  BufferBinding{big, 8, 16}})
                   .ok());
}

/// The views runBundleGuarded takes of `inputs`.
std::vector<std::span<const std::byte>>
viewsOf(const std::vector<TensorBytes> &inputs) {
  return {inputs.begin(), inputs.end()};
}

std::vector<TensorBytes> mulAddInputs(int64_t n) {
  std::vector<TensorBytes> inputs;
  for (int i = 0; i < 3; ++i)
    inputs.push_back(test::toBytes(test::randomFloats(7 * n + i, n)));
  return inputs;
}

TEST(RunBundleGuarded, ACorrectBundleBreachesNoGuardAndGivesItsOutputs) {
  HostRuntime runtime(options());
  const int64_t n = 1000;
  Bundle bundle = test::mulAddBundle(n);
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<TensorBytes> inputs = mulAddInputs(n);
  DeviceResult<GuardedRun> guarded =
      runBundleGuarded(runtime, bundle, executable, stream, viewsOf(inputs));
  ASSERT_TRUE(guarded.ok()) << guarded.error().message;
  EXPECT_TRUE(guarded->breaches.empty()) << guarded->breaches[0].where;
  // After each of 3 inputs and the output; before and after the product.
  EXPECT_EQ(guarded->guards, 6u);
  DeviceResult<std::vector<TensorBytes>> plain =
      runBundle(runtime, bundle, executable, stream, inputs);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(guarded->outputs, *plain);
}

TEST(RunBundleGuarded, NamesTheKernelThatWritesPastAnIntermediate) {
  HostRuntime runtime(options());
  const int64_t n = 1000;
  Bundle bundle = test::mulAddBundle(n);
  // The product's kernel runs 3 elements past its tensor: a tail it should
  // have masked.
  bundle.kernels[0].launch.iterations = n + 3;
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<TensorBytes> inputs = mulAddInputs(n);
  DeviceResult<GuardedRun> guarded =
      runBundleGuarded(runtime, bundle, executable, stream, viewsOf(inputs));
  ASSERT_TRUE(guarded.ok()) << guarded.error().message;
  ASSERT_EQ(guarded->breaches.size(), 1u);
  const GuardBreach &breach = guarded->breaches[0];
  EXPECT_TRUE(
      breach.where.starts_with("after intermediate 0 (%3, tensor<1000xf32>)"))
      << breach.where;
  EXPECT_EQ(breach.kernel, "fuse_test_mul_f32");
  EXPECT_EQ(breach.changedBytes, 12u);
}

TEST(RunBundleGuarded, NamesTheKernelThatWritesPastAnOutput) {
  HostRuntime runtime(options());
  const int64_t n = 1000;
  Bundle bundle = test::mulAddBundle(n);
  bundle.kernels[1].launch.iterations = n + 2;
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<TensorBytes> inputs = mulAddInputs(n);
  DeviceResult<GuardedRun> guarded =
      runBundleGuarded(runtime, bundle, executable, stream, viewsOf(inputs));
  ASSERT_TRUE(guarded.ok()) << guarded.error().message;
  ASSERT_EQ(guarded->breaches.size(), 1u);
  EXPECT_TRUE(guarded->breaches[0].where.starts_with("after output 0"))
      << guarded->breaches[0].where;
  EXPECT_EQ(guarded->breaches[0].kernel, "fuse_test_add_f32");
  EXPECT_EQ(guarded->breaches[0].changedBytes, 8u);
}

TEST(RunBundleGuarded, AnIntermediateReadBeforeItIsWrittenIsNaN) {
  HostRuntime runtime(options());
  const int64_t n = 100;
  Bundle bundle = test::mulAddBundle(n);
  bundle.launchOrder = {1}; // the product is never computed
  Executable executable = *runtime.load(bundle);
  Stream stream = *runtime.createStream();
  std::vector<TensorBytes> inputs = mulAddInputs(n);
  DeviceResult<GuardedRun> guarded =
      runBundleGuarded(runtime, bundle, executable, stream, viewsOf(inputs));
  ASSERT_TRUE(guarded.ok()) << guarded.error().message;
  EXPECT_TRUE(guarded->breaches.empty());
  for (float value : test::fromBytes<float>(guarded->outputs[0]))
    ASSERT_TRUE(std::isnan(value));
}

TEST(RunBundleGuarded, ArenaGivesEachIntermediateBytesOfItsOwnBetweenGuards) {
  MemoryPlan plan;
  // Two slices that share bytes (they live at different times), after one
  // of the bound part.
  plan.intermediates = {{5, 64, 100}, {6, 64, 10}, {7, 0, 64}};
  plan.boundBytes = 64;
  plan.peakBytes = 164;
  MemoryPlan guarded = guardedArena(plan);
  ASSERT_EQ(guarded.intermediates.size(), 3u);
  EXPECT_EQ(guarded.intermediates[2].offset, kGuardBytes);
  EXPECT_EQ(guarded.boundBytes, kGuardBytes + 64 + kGuardBytes);
  EXPECT_EQ(guarded.intermediates[0].offset, guarded.boundBytes);
  EXPECT_EQ(guarded.intermediates[1].offset,
            guarded.boundBytes + 128 + kGuardBytes);
  EXPECT_EQ(guarded.peakBytes,
            guarded.intermediates[1].offset + 64 + kGuardBytes);
  for (const ArenaSlice &slice : guarded.intermediates)
    EXPECT_EQ(slice.offset % kArenaAlignment, 0u);
}

TEST(HostRuntime, AllocatorReusesMemory) {
  HostRuntime runtime(options());
  for (int i = 0; i < 10; ++i) {
    AllocationPermit permit = std::move(*runtime.reserve(3 << 20));
    Buffer a = *runtime.allocate(permit, 1 << 20);
    Buffer b = *runtime.allocate(permit, (1 << 20) + 1);
    Buffer c = *runtime.allocate(permit, 100);
  }
  EXPECT_EQ(runtime.mappedBlocksForTesting(), 3u);
  EXPECT_GT(runtime.memoryUsage().pooledBytes, 2u << 20);
  runtime.memoryCleanup();
  EXPECT_EQ(runtime.memoryUsage().pooledBytes, 0u);
  EXPECT_EQ(runtime.mappedBlocksForTesting(), 0u);
}

TEST(HostAllocator, SizeClassesArePagesFourPerDoubling) {
  EXPECT_EQ(HostAllocator::sizeClass(1), 4096u);
  EXPECT_EQ(HostAllocator::sizeClass(4096), 4096u);
  EXPECT_EQ(HostAllocator::sizeClass(4097), 8192u);
  EXPECT_EQ(HostAllocator::sizeClass(9 * 4096), 10 * 4096u);
  for (uint64_t bytes = 1; bytes < (uint64_t(1) << 32); bytes = bytes * 3 + 1) {
    uint64_t size = HostAllocator::sizeClass(bytes);
    EXPECT_GE(size, bytes);
    EXPECT_EQ(size % 4096, 0u);
    if (bytes > 4 * 4096)
      EXPECT_LE(size, bytes + bytes / 4 + 4096) << bytes;
  }
  HostAllocator allocator;
  std::byte *block = allocator.allocate(5000);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 4096, 0u);
  allocator.free(block, 5000);
  EXPECT_EQ(allocator.allocate(6000), block);
  allocator.free(block, 6000);
}

namespace {

/// The mapping of this process that holds `address`, as /proc/self/smaps
/// tells it: its range and its VmFlags line; an empty range where none does.
struct Mapping {
  uintptr_t begin = 0, end = 0;
  std::string flags;
};

Mapping mappingOf(const void *address) {
  uintptr_t at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  Mapping found;
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long long begin, end;
    char dash;
    if (line.rfind("VmFlags:", 0) == 0) {
      if (inside)
        return Mapping{found.begin, found.end, line};
      continue;
    }
    std::istringstream header(line);
    if (std::isxdigit(static_cast<unsigned char>(line[0])) &&
        (header >> std::hex >> begin >> dash >> end) && dash == '-') {
      inside = begin <= at && at < end;
      found = Mapping{uintptr_t(begin), uintptr_t(end), ""};
    }
  }
  return Mapping{};
}

bool advisedHuge(const Mapping &mapping) {
  return mapping.flags.find(" hg") != std::string::npos;
}

} // namespace

// Blocks of 2 MiB or more start on a 2 MiB boundary, are their own mapping
// of exactly their size class (the over-allocation for the alignment given
// back), and carry the huge-page advice; smaller ones do not.
TEST(HostAllocator, LargeBlocksAskForHugePages) {
  if (!std::ifstream("/proc/self/smaps"))
    GTEST_SKIP() << "no /proc/self/smaps";
  HostAllocator allocator;
  const uint64_t large = (uint64_t(3) << 20) + 1;
  std::byte *block = allocator.allocate(large);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % HostAllocator::HugePageBytes,
            0u);
  block[0] = std::byte{1};
  block[large - 1] = std::byte{2};
  Mapping mapping = mappingOf(block);
  EXPECT_EQ(mapping.begin, reinterpret_cast<uintptr_t>(block));
  EXPECT_EQ(mapping.end - mapping.begin, HostAllocator::sizeClass(large));
  // A kernel built without transparent huge pages refuses the advice.
  bool kernelHasHugePages =
      bool(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"));
  EXPECT_EQ(advisedHuge(mapping), kernelHasHugePages) << mapping.flags;

  std::byte *small = allocator.allocate(HostAllocator::HugePageBytes / 2);
  ASSERT_NE(small, nullptr);
  EXPECT_FALSE(advisedHuge(mappingOf(small))) << mappingOf(small).flags;

  allocator.free(block, large);
  allocator.free(small, HostAllocator::HugePageBytes / 2);
  allocator.releaseAll();
  EXPECT_EQ(allocator.mappedBlocks(), 0u);
  EXPECT_EQ(mappingOf(block + HostAllocator::PageBytes).end, 0u);
}

// allocateHostBytes (fuse-run's inputs, which the host runtime borrows):
// zeroed; a large array is laid out as the runtime's own blocks are (2 MiB
// aligned, exactly its pages, huge-page advice) and unmapped when its last
// owner lets go; a small one is not advised; 0 bytes is null.
TEST(HostAllocator, HostBytesForBorrowedInputs) {
  if (!std::ifstream("/proc/self/smaps"))
    GTEST_SKIP() << "no /proc/self/smaps";
  EXPECT_EQ(allocateHostBytes(0), nullptr);
  const uint64_t large = (uint64_t(5) << 20) + 3;
  std::shared_ptr<std::byte> block = allocateHostBytes(large);
  ASSERT_NE(block, nullptr);
  std::byte *begin = block.get();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(begin) % HostAllocator::HugePageBytes,
            0u);
  EXPECT_TRUE(std::all_of(begin, begin + large,
                          [](std::byte b) { return b == std::byte{0}; }));
  begin[large - 1] = std::byte{7};
  Mapping mapping = mappingOf(begin);
  EXPECT_EQ(mapping.begin, reinterpret_cast<uintptr_t>(begin));
  EXPECT_EQ(mapping.end - mapping.begin,
            (large + HostAllocator::PageBytes - 1) / HostAllocator::PageBytes *
                HostAllocator::PageBytes);
  bool kernelHasHugePages =
      bool(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"));
  EXPECT_EQ(advisedHuge(mapping), kernelHasHugePages) << mapping.flags;

  std::shared_ptr<std::byte> small =
      allocateHostBytes(HostAllocator::HugePageBytes / 4);
  ASSERT_NE(small, nullptr);
  EXPECT_FALSE(advisedHuge(mappingOf(small.get())))
      << mappingOf(small.get()).flags;

  std::shared_ptr<std::byte> owner = block;
  block.reset();
  EXPECT_EQ(mappingOf(begin).begin, mapping.begin);
  owner.reset();
  EXPECT_EQ(mappingOf(begin + HostAllocator::PageBytes).end, 0u);
}

TEST(HostRuntime, HandlesOutliveTheRuntime) {
  Buffer buffer;
  Fence fence;
  Stream stream;
  {
    HostRuntime runtime(options());
    stream = *runtime.createStream();
    AllocationPermit permit = std::move(*runtime.reserve(64));
    buffer = *runtime.allocate(permit, 64);
    CommandBatch batch;
    batch.add(std::move(*runtime.encodeZero(buffer, 0, 64)));
    SubmitResult submitted = runtime.submit(stream, std::move(batch));
    ASSERT_TRUE(submitted.submitted());
    fence = submitted.fence();
  }
  EXPECT_EQ(buffer.size(), 64u);
  EXPECT_TRUE(fence.valid());
}

// A thread that waits for the result (at least kRunWhileWaiting) runs the
// batch itself when the stream has not started it: no hand-off to the
// stream thread and back. A wait with a shorter deadline leaves it to the
// stream thread.
TEST(HostRuntime, AWaiterForTheResultRunsTheBatchItself) {
  HostRuntime runtime(options(2));
  std::mutex mutex;
  std::vector<std::thread::id> executors;
  runtime.setFaultHookForTesting([&](FaultPoint point) {
    if (point == FaultPoint::Execute) {
      std::lock_guard lock(mutex);
      executors.push_back(std::this_thread::get_id());
    }
    return std::optional<Error>();
  });
  Stream stream = *runtime.createStream();
  auto onThisThread = [&] {
    std::lock_guard lock(mutex);
    return std::count(executors.begin(), executors.end(),
                      std::this_thread::get_id());
  };
  // The stream thread is woken at each submit and may win a race for a
  // batch now and then; the waiter, already running, wins most. On a
  // machine loaded by other processes the stream thread once won all 200
  // (ctest under a load average of 7), so up to five rounds of 200 are
  // tried: where waitFence never runs a batch itself, every round gives 0.
  std::int64_t mostOnThisThread = 0;
  for (int round = 0; round < 5 && mostOnThisThread <= 50; ++round) {
    {
      std::lock_guard lock(mutex);
      executors.clear();
    }
    for (int i = 0; i < 200; ++i)
      ASSERT_TRUE(runtime
                      .waitFence(submitZero(runtime, stream, 4096),
                                 DeviceRuntime::kRunWhileWaiting)
                      .ok());
    mostOnThisThread = std::max<std::int64_t>(mostOnThisThread, onThisThread());
  }
  EXPECT_GT(mostOnThisThread, 50);
  {
    std::lock_guard lock(mutex);
    executors.clear();
  }
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(runtime.waitFence(submitZero(runtime, stream, 4096), 10s).ok());
  EXPECT_EQ(onThisThread(), 0);
  EXPECT_EQ(executors.size(), 50u);
}

// A waiter never runs a batch while an earlier one of its stream runs.
TEST(HostRuntime, AWaiterKeepsTheStreamsOrder) {
  HostRuntime runtime(options(2));
  std::atomic<int> executed{0};
  std::latch reached(1), open(1);
  runtime.setFaultHookForTesting([&](FaultPoint point) {
    if (point == FaultPoint::Execute && executed++ == 0) {
      reached.count_down();
      open.wait();
    }
    return std::optional<Error>();
  });
  Stream stream = *runtime.createStream();
  Fence first = submitZero(runtime, stream, 4096);
  reached.wait();
  Fence second = submitZero(runtime, stream, 4096);
  std::thread waiter([&] {
    EXPECT_TRUE(
        runtime.waitFence(second, DeviceRuntime::kRunWhileWaiting).ok());
  });
  // Time for the waiter to reach its wait (a wrong one would run the second
  // batch now); none for a right one.
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(executed.load(), 1);
  EXPECT_TRUE(std::holds_alternative<FencePending>(runtime.queryFence(second)));
  open.count_down();
  waiter.join();
  EXPECT_TRUE(runtime.waitFence(first, 10s).ok());
  EXPECT_EQ(executed.load(), 2);
}

/// y0 = data[k0], y1 = data[k1] over data f32[4] and k0, k1 i64[n]: one
/// kernel of the test library that reports both gathers in its error
/// record (checkedOps {0, 1}), its chunks one element each.
Bundle checkedGathersBundle(std::int64_t n) {
  GraphBuilder builder;
  TensorId data = builder.input({ElementType::F32, {4}}, "data");
  TensorId k0 = builder.input({ElementType::I64, {n}}, "k0");
  TensorId k1 = builder.input({ElementType::I64, {n}}, "k1");
  builder.output(builder.gather(data, k0, 0), "y0");
  builder.output(builder.gather(data, k1, 0), "y1");
  Bundle bundle = makeReferenceBundle(*builder.finish());
  bundle.target = test::hostTarget();
  bundle.kernels = {test::hostKernel("fuse_test_checked_gathers",
                                     {{BindingKind::GraphInput, 0},
                                      {BindingKind::GraphInput, 1},
                                      {BindingKind::GraphInput, 2},
                                      {BindingKind::GraphOutput, 0},
                                      {BindingKind::GraphOutput, 1}},
                                     {0, 1}, n, 1)};
  bundle.kernels[0].checkedOps = {0, 1};
  return bundle;
}

template <typename T> std::vector<std::byte> asBytes(std::vector<T> values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// The error channel on the host runtime alone (KernelAbi.h), with a kernel
// written by hand: a record per launch, zeroed, read after the launch; the
// first check that failed names the kernel, its op and the value; a
// failed launch fails its fence and stream, not the runtime.
TEST(HostRuntime, KernelErrorRecordsFailTheirLaunch) {
  HostRuntime runtime;
  Bundle bundle = checkedGathersBundle(5);
  ASSERT_TRUE(verifyBundle(bundle).ok()) << verifyBundle(bundle).message();
  std::vector<std::byte> data = asBytes<float>({10, 20, 30, 40});
  // Through the device API: runBundle would refuse these indices (graph
  // inputs) before the run; here only the kernel checks them.
  Executable executable = *runtime.load(bundle);
  auto run =
      [&](std::vector<int64_t> k0,
          std::vector<int64_t> k1) -> DeviceResult<std::vector<TensorBytes>> {
    Stream stream = *runtime.createStream();
    AllocationPermit permit = *runtime.reserve(16 + 4 * 40 + 2 * 20);
    std::vector<Buffer> buffers;
    for (uint64_t bytes : {16, 40, 40, 20, 20})
      buffers.push_back(*runtime.allocate(permit, bytes));
    CommandBatch batch;
    batch.add(*runtime.encodeUpload(data, buffers[0], 0));
    batch.add(*runtime.encodeUpload(asBytes(k0), buffers[1], 0));
    batch.add(*runtime.encodeUpload(asBytes(k1), buffers[2], 0));
    std::vector<BufferBinding> bindings;
    for (const Buffer &buffer : buffers)
      bindings.push_back({buffer, 0, buffer.size()});
    batch.add(*runtime.encodeLaunch(executable, 0, bundle.kernels[0].launch,
                                    std::move(bindings)));
    SubmitResult submitted = runtime.submit(stream, std::move(batch));
    if (!submitted)
      return submitted.error();
    DeviceResult<TerminalReceipt> receipt =
        runtime.waitFence(submitted.fence(), 10s);
    if (!receipt.ok())
      return receipt.error();
    if (const auto *failed = std::get_if<FailedButQuiescent>(&*receipt))
      return failed->error;
    return std::vector<TensorBytes>{
        *runtime.readback(stream, buffers[3], 0, 20),
        *runtime.readback(stream, buffers[4], 0, 20)};
  };
  // Inside (negative ones wrap): the outputs, no error.
  DeviceResult<std::vector<TensorBytes>> good =
      run({0, 3, -1, -4, 2}, {1, 1, 1, 1, -2});
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ((*good)[0], asBytes<float>({10, 40, 40, 10, 30}));
  EXPECT_EQ((*good)[1], asBytes<float>({20, 20, 20, 20, 30}));
  // The second gather's slot: its op and value.
  DeviceResult<std::vector<TensorBytes>> second =
      run({0, 1, 2, 3, 0}, {0, 1, 9, 1, 1});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::KernelFailed);
  EXPECT_EQ(second.error().message,
            "kernel fuse_test_checked_gathers: op #1 (gather): index 9 is out "
            "of range for dim 0 of size 4 of tensor<4xf32> (valid: -4 to 3)");
  // Both failed: the first slot's is reported.
  DeviceResult<std::vector<TensorBytes>> both =
      run({0, -5, 2, 3, 0}, {0, 1, 4, 1, 1});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message.find("op #0 (gather): index -5 is out"),
            std::string::npos)
      << both.error().message;
  // A fresh record per launch: the same runtime runs good indices again.
  DeviceResult<std::vector<TensorBytes>> again =
      run({1, 1, 1, 1, 1}, {2, 2, 2, 2, 2});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ((*again)[0], asBytes<float>({20, 20, 20, 20, 20}));
}

} // namespace
