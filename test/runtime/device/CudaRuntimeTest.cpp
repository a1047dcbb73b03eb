//===- CudaRuntimeTest.cpp - CudaRuntime against the fake or a real driver ===//
//
// Every test runs against the fake driver (FUSE_CUDA_DRIVER, set by CTest) on
// every machine. Built by bench/gpu/build-runtime-tests.sh and run on a
// machine with a GPU without FUSE_CUDA_DRIVER, the same binary uses the
// system's libcuda.so.1: the tests that steer the fake (held streams,
// injected failures, the launch log) skip, and the rest run on the device,
// where kernels execute and their results are compared with the reference
// runtime.
//
// The shared suite (DeviceRuntimeTest.cpp), built into this binary too, runs
// the interface's semantics on this runtime, over the fake or on the device;
// what is here is the CUDA runtime's own: driver calls, pools, modules, PTX
// and cubin kernels, failures of driver entry points.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"
#include "RuntimeCalls.h"

#include "runtime/cache/SymbolicBundle.h"
#include "runtime/device/CudaRuntime.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"
#include "runtime/device/RunBundle.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <unistd.h>

using namespace fuse;
using namespace fuse::device;
using namespace std::chrono_literals;

namespace {

using test::bytesOf;
using test::fromBytes;
using test::toBytes;

std::vector<float> randomFloats(uint64_t seed, size_t count) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> value(0.5f, 2.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = value(engine);
  return values;
}

class CudaRuntimeTest : public ::testing::Test, protected test::RuntimeCalls {
protected:
  void SetUp() override {
    fake = test::fakeDriver();
    if (fake) {
      fake->reset();
      contextRefs = fake->primaryContextRefs();
      return;
    }
    // The real driver: without one there is nothing to test here.
    DeviceResult<std::unique_ptr<CudaRuntime>> probe = CudaRuntime::create();
    if (!probe.ok())
      GTEST_SKIP() << probe.error().message;
  }

  void TearDown() override {
    if (fake) {
      fake->reset();
      // Whatever a test made, it released: no memory, stream, event or
      // module of the fake outlives the runtimes.
      EXPECT_EQ(fake->liveAllocations(), 0);
      EXPECT_EQ(fake->liveStreams(), 0);
      EXPECT_EQ(fake->liveEvents(), 0);
      EXPECT_EQ(fake->liveModules(), 0);
      EXPECT_EQ(fake->primaryContextRefs(), contextRefs);
    }
  }

  std::unique_ptr<CudaRuntime> make(uint64_t budget = 64 << 20,
                                    uint64_t block = 1 << 20) {
    CudaRuntime::Options options;
    options.memoryBudgetBytes = budget;
    options.poolBlockBytes = block;
    DeviceResult<std::unique_ptr<CudaRuntime>> runtime =
        CudaRuntime::create(options);
    EXPECT_TRUE(runtime.ok()) << runtime.error().message;
    return runtime.ok() ? std::move(*runtime) : nullptr;
  }

  Fence submit(DeviceRuntime &runtime, Stream &stream, CommandBatch batch) {
    SubmitResult submitted = runtime.submit(stream, std::move(batch));
    EXPECT_TRUE(submitted.submitted()) << submitted.error().message;
    return submitted.submitted() ? submitted.fence() : Fence();
  }

  TerminalReceipt wait(DeviceRuntime &runtime, const Fence &fence) {
    DeviceResult<TerminalReceipt> receipt = runtime.waitFence(fence, 10s);
    EXPECT_TRUE(receipt.ok()) << receipt.error().message;
    return receipt.ok() ? *receipt
                        : TerminalReceipt(FailedButQuiescent{receipt.error()});
  }

  void run(DeviceRuntime &runtime, Stream &stream, CommandBatch batch) {
    TerminalReceipt receipt =
        wait(runtime, submit(runtime, stream, std::move(batch)));
    EXPECT_TRUE(std::holds_alternative<Succeeded>(receipt))
        << std::get<FailedButQuiescent>(receipt).error.message;
  }

  static std::string failureOf(const TerminalReceipt &receipt) {
    const auto *failed = std::get_if<FailedButQuiescent>(&receipt);
    return failed ? failed->error.message : "";
  }

  const test::FakeDriver *fake = nullptr;
  int contextRefs = 0;
};

#define FAKE_ONLY()                                                            \
  if (!fake)                                                                   \
  GTEST_SKIP() << "steers the fake driver"

//===----------------------------------------------------------------------===//
// Loading the driver
//===----------------------------------------------------------------------===//

// Runs everywhere, with or without a driver.
// Runs everywhere, with or without a driver.
TEST(CudaRuntimeWithoutDriver, IsAClearErrorAndOtherRuntimesWork) {
  CudaRuntime::Options options;
  options.driverPath = "/nonexistent/libcuda.so.1";
  DeviceResult<std::unique_ptr<CudaRuntime>> runtime =
      CudaRuntime::create(options);
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.error().code, ErrorCode::Unsupported);
  EXPECT_NE(runtime.error().message.find(
                "no CUDA driver (/nonexistent/libcuda.so.1 not found)"),
            std::string::npos)
      << runtime.error().message;

  HostRuntime host(HostRuntime::Options{1 << 20, 2});
  ReferenceRuntime reference;
  for (DeviceRuntime *other : std::vector<DeviceRuntime *>{&host, &reference}) {
    Stream stream = *other->createStream();
    AllocationPermit permit = *other->reserve(4);
    Buffer buffer = *other->allocate(permit, 4);
    CommandBatch batch;
    batch.add(*other->encodeUpload(bytesOf({1, 2, 3, 4}), buffer, 0));
    SubmitResult submitted = other->submit(stream, std::move(batch));
    ASSERT_TRUE(submitted.submitted());
    ASSERT_TRUE(other->waitFence(submitted.fence(), 10s).ok());
    EXPECT_EQ(other->readback(stream, buffer, 0, 4).value(),
              bytesOf({1, 2, 3, 4}));
  }
}

TEST_F(CudaRuntimeTest, DescribesTheDevice) {
  auto runtime = make(1 << 20);
  ASSERT_TRUE(runtime);
  const DeviceDescriptor &descriptor = runtime->descriptor();
  EXPECT_EQ(descriptor.kind, DeviceKind::Cuda);
  EXPECT_TRUE(descriptor.target.starts_with("sm_")) << descriptor.target;
  EXPECT_TRUE(descriptor.name.starts_with("cuda ")) << descriptor.name;
  EXPECT_EQ(descriptor.memoryBudgetBytes, uint64_t(1) << 20);
  EXPECT_GE(descriptor.computeUnits, 1u);
  if (fake) {
    EXPECT_EQ(runtime->driverPath(), test::fakeDriverPath());
    EXPECT_EQ(descriptor.target, "sm_90");
    EXPECT_EQ(descriptor.name, "cuda Fake CUDA Device");
    EXPECT_EQ(descriptor.computeUnits, 132u);
    // Without a budget: 90% of the device's memory.
    fake->setTotalMemory(1000 << 10);
    DeviceResult<std::unique_ptr<CudaRuntime>> whole = CudaRuntime::create();
    fake->setTotalMemory(uint64_t(1) << 30);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ((*whole)->descriptor().memoryBudgetBytes, 900u << 10);
  }
}

TEST_F(CudaRuntimeTest, FallsBackToDlsymWithoutCuGetProcAddress) {
  FAKE_ONLY();
  // Another path to the same library, so that the driver is resolved anew
  // (drivers stay loaded by path: a new one each time this test runs).
  static int runs = 0;
  std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("fuse-cuda-test-" + std::to_string(getpid()) + "-" +
       std::to_string(++runs));
  std::filesystem::create_directories(directory);
  std::filesystem::path link = directory / "libcuda.so.1";
  std::filesystem::remove(link);
  std::filesystem::create_symlink(test::fakeDriverPath(), link);
  fake->injectFailure("cuGetProcAddress", 0, 1000, CUDA_ERROR_NOT_FOUND);
  CudaRuntime::Options options;
  options.driverPath = link.string();
  DeviceResult<std::unique_ptr<CudaRuntime>> runtime =
      CudaRuntime::create(options);
  EXPECT_GT(fake->callCount("cuGetProcAddress"), 10);
  fake->reset();
  ASSERT_TRUE(runtime.ok()) << runtime.error().message;
  Stream stream = *(*runtime)->createStream();
  Buffer buffer = allocate(**runtime, 4);
  CommandBatch batch;
  batch.add(
      command((*runtime)->encodeUpload(bytesOf({4, 3, 2, 1}), buffer, 0)));
  run(**runtime, stream, std::move(batch));
  EXPECT_EQ(read(**runtime, stream, buffer), bytesOf({4, 3, 2, 1}));
  std::filesystem::remove_all(directory);
}

TEST_F(CudaRuntimeTest, EveryInitializationCallFailsWithItsName) {
  FAKE_ONLY();
  for (const char *entry :
       {"cuInit", "cuDeviceGet", "cuDeviceGetName", "cuDeviceGetAttribute",
        "cuDeviceTotalMem", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent",
        "cuStreamCreate"}) {
    fake->reset();
    fake->injectFailure(entry, 0, 1, CUDA_ERROR_NO_DEVICE);
    DeviceResult<std::unique_ptr<CudaRuntime>> runtime = CudaRuntime::create();
    ASSERT_FALSE(runtime.ok()) << entry;
    EXPECT_NE(runtime.error().message.find(entry), std::string::npos)
        << runtime.error().message;
    EXPECT_NE(runtime.error().message.find("CUDA_ERROR_NO_DEVICE"),
              std::string::npos)
        << runtime.error().message;
    EXPECT_EQ(fake->primaryContextRefs(), contextRefs) << entry;
  }
  CudaRuntime::Options options;
  options.device = 3;
  DeviceResult<std::unique_ptr<CudaRuntime>> missing =
      CudaRuntime::create(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("CUDA_ERROR_INVALID_DEVICE"),
            std::string::npos)
      << missing.error().message;
}

TEST_F(CudaRuntimeTest, AnUnnamedResultStillSaysItsNumber) {
  FAKE_ONLY();
  fake->injectFailure("cuInit", 0, 1, CUDA_ERROR_NO_DEVICE);
  fake->injectFailure("cuGetErrorName", 0, 1, CUDA_ERROR_INVALID_VALUE);
  DeviceResult<std::unique_ptr<CudaRuntime>> runtime = CudaRuntime::create();
  ASSERT_FALSE(runtime.ok());
  EXPECT_NE(runtime.error().message.find("failed: CUresult 100"),
            std::string::npos)
      << runtime.error().message;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST_F(CudaRuntimeTest, BuffersComeFromPooledBlocks) {
  auto runtime = make(64 << 20, 1 << 20);
  ASSERT_TRUE(runtime);
  {
    std::vector<Buffer> buffers;
    for (int i = 0; i < 100; ++i)
      buffers.push_back(allocate(*runtime, 1000));
    CudaPoolStats stats = runtime->poolStats();
    // 100 buffers of 1000 bytes (1024 with alignment) share one block.
    EXPECT_EQ(stats.driverAllocations, 1u);
    EXPECT_EQ(stats.blocks, 1u);
    EXPECT_EQ(stats.allocatedBytes, 100u * 1024);
    MemoryUsage usage = runtime->memoryUsage();
    EXPECT_EQ(usage.inUseBytes, 100u * 1000);
    EXPECT_EQ(usage.liveBuffers, 100u);
    EXPECT_EQ(usage.pooledBytes, 0u);
    if (fake)
      EXPECT_EQ(fake->callCount("cuMemAlloc"), 1);
    // Freed ranges are reused, coalesced: a buffer as large as 50 of them
    // fits where they were.
    for (int i = 0; i < 50; ++i)
      buffers[size_t(i)] = Buffer();
    Buffer large = allocate(*runtime, 50 * 1024);
    EXPECT_EQ(runtime->poolStats().driverAllocations, 1u);
  }
  MemoryUsage usage = runtime->memoryUsage();
  EXPECT_EQ(usage.inUseBytes, 0u);
  EXPECT_EQ(usage.liveBuffers, 0u);
  EXPECT_EQ(usage.pooledBytes, 1u << 20);
  EXPECT_EQ(runtime->poolStats().allocatedBytes, 0u);
  runtime->memoryCleanup();
  EXPECT_EQ(runtime->memoryUsage().pooledBytes, 0u);
  EXPECT_EQ(runtime->poolStats().blocks, 0u);
  if (fake)
    EXPECT_EQ(fake->liveAllocations(), 0);
}

TEST_F(CudaRuntimeTest, LargeBuffersGetABlockOfTheirOwn) {
  auto runtime = make(64 << 20, 1 << 20);
  ASSERT_TRUE(runtime);
  Buffer small = allocate(*runtime, 4096);
  {
    Buffer large = allocate(*runtime, 3 << 20);
    CudaPoolStats stats = runtime->poolStats();
    EXPECT_EQ(stats.blocks, 2u);
    EXPECT_EQ(stats.blockBytes, (1u << 20) + (3u << 20));
  }
  // Cleanup returns the free block and keeps the one in use.
  EXPECT_EQ(runtime->memoryUsage().pooledBytes, 3u << 20);
  runtime->memoryCleanup();
  EXPECT_EQ(runtime->poolStats().blocks, 1u);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 4096u);
}

TEST_F(CudaRuntimeTest, DeviceOutOfMemoryIsNamedAndChargesNothing) {
  FAKE_ONLY();
  auto runtime = make(64 << 20, 1 << 20);
  ASSERT_TRUE(runtime);
  { Buffer pooled = allocate(*runtime, 16); }
  // The first cuMemAlloc fails: the pool returns its free block and tries
  // again, which fails too.
  fake->injectFailure("cuMemAlloc", 0, 2, CUDA_ERROR_OUT_OF_MEMORY);
  DeviceResult<AllocationPermit> permit = runtime->reserve(2 << 20);
  ASSERT_TRUE(permit.ok());
  DeviceResult<Buffer> buffer = runtime->allocate(*permit, 2 << 20);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.error().code, ErrorCode::OutOfMemory);
  EXPECT_NE(buffer.error().message.find("cuMemAlloc"), std::string::npos);
  EXPECT_NE(buffer.error().message.find("CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << buffer.error().message;
  EXPECT_EQ(permit->remainingBytes(), 2u << 20);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_EQ(runtime->poolStats().blocks, 0u);
  // Once: the retry after releasing the pool's free block succeeds.
  { Buffer pooled = allocate(*runtime, 16); }
  EXPECT_EQ(runtime->poolStats().blocks, 1u);
  fake->injectFailure("cuMemAlloc", 0, 1, CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_TRUE(runtime->allocate(*permit, 2 << 20).ok());
  EXPECT_EQ(runtime->poolStats().blocks, 1u);
  EXPECT_EQ(runtime->poolStats().blockBytes, 2u << 20);
}

TEST_F(CudaRuntimeTest, HandlesOutliveTheRuntime) {
  Buffer buffer;
  Stream stream;
  {
    auto runtime = make();
    ASSERT_TRUE(runtime);
    buffer = allocate(*runtime, 64);
    stream = *runtime->createStream();
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(buffer, 0, 64)));
    run(*runtime, stream, std::move(batch));
  }
  EXPECT_EQ(buffer.size(), 64u);
  if (fake)
    EXPECT_EQ(fake->liveAllocations(), 1);
  buffer = Buffer();
  stream = Stream();
  if (fake) {
    EXPECT_EQ(fake->liveAllocations(), 0);
    EXPECT_EQ(fake->primaryContextRefs(), contextRefs);
  }
}

//===----------------------------------------------------------------------===//
// Copies, ordering, fences
//===----------------------------------------------------------------------===//

// The shared suite checks what the copies do; here, that each command is
// one asynchronous driver call on the stream, and each readback one more.
TEST_F(CudaRuntimeTest, EachCopyCommandIsOneAsyncDriverCall) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 8), b = allocate(*runtime, 8);
  CommandBatch batch;
  batch.add(command(runtime->encodeUpload(std::vector<std::byte>(8), a, 0)));
  batch.add(command(runtime->encodeZero(b, 0, 8)));
  batch.add(command(runtime->encodeCopy(a, b, CopyRegion{2, 0, 6})));
  batch.add(command(runtime->encodeZero(b, 1, 2)));
  run(*runtime, stream, std::move(batch));
  EXPECT_EQ(read(*runtime, stream, b).size(), 8u);
  EXPECT_TRUE(runtime->readback(stream, a, 6, 2).ok());
  EXPECT_EQ(fake->callCount("cuMemcpyHtoDAsync"), 1);
  EXPECT_EQ(fake->callCount("cuMemcpyDtoDAsync"), 1);
  EXPECT_EQ(fake->callCount("cuMemsetD8Async"), 2);
  EXPECT_EQ(fake->callCount("cuMemcpyDtoHAsync"), 2);
}

TEST_F(CudaRuntimeTest, LargeRoundTripThroughTwoBlocks) {
  auto runtime = make(64 << 20, 1 << 20);
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  std::vector<float> values = randomFloats(7, (3 << 20) / 4);
  Buffer a = allocate(*runtime, values.size() * 4);
  Buffer b = allocate(*runtime, values.size() * 4);
  CommandBatch batch;
  batch.add(command(runtime->encodeUpload(toBytes(values), a, 0)));
  batch.add(command(runtime->encodeCopy(a, b, {0, 0, a.size()})));
  run(*runtime, stream, std::move(batch));
  EXPECT_EQ(fromBytes<float>(read(*runtime, stream, b)), values);
}

TEST_F(CudaRuntimeTest, FencesStayPendingUntilTheDeviceCompletes) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  fake->holdStreams(1);
  Fence fence;
  {
    Buffer a = allocate(*runtime, 4096);
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(a, 0, 4096)));
    fence = submit(*runtime, stream, std::move(batch));
  }
  // cuEventQuery answers CUDA_ERROR_NOT_READY: pending, and the batch's
  // buffer stays in use.
  std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(std::holds_alternative<FencePending>(runtime->queryFence(fence)));
  EXPECT_TRUE(
      std::holds_alternative<StreamSubmitted>(runtime->streamState(stream)));
  DeviceResult<TerminalReceipt> timedOut = runtime->waitFence(fence, 30ms);
  ASSERT_FALSE(timedOut.ok());
  EXPECT_EQ(timedOut.error().code, ErrorCode::Timeout);
  EXPECT_TRUE(runtime->describeError(timedOut.error()).retryable);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 4096u);
  EXPECT_GT(fake->callCount("cuEventQuery"), 0);
  EXPECT_GT(fake->queuedOperations(), 0);

  fake->holdStreams(0);
  EXPECT_TRUE(std::holds_alternative<Succeeded>(wait(*runtime, fence)));
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_TRUE(
      std::holds_alternative<StreamReady>(runtime->streamState(stream)));
}

TEST_F(CudaRuntimeTest, FencesCompleteInOrderAsTheDeviceProgresses) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 4);
  fake->holdStreams(1);
  std::vector<Fence> fences;
  for (int round = 1; round <= 3; ++round) {
    CommandBatch batch;
    batch.add(command(
        runtime->encodeUpload(bytesOf({round, round, round, round}), a, 0)));
    fences.push_back(submit(*runtime, stream, std::move(batch)));
  }
  // Each batch is a copy, then its completion event.
  EXPECT_EQ(fake->queuedOperations(), 6);
  for (size_t done = 0; done < fences.size(); ++done) {
    EXPECT_EQ(fake->runQueued(2), 2);
    EXPECT_TRUE(
        std::holds_alternative<Succeeded>(wait(*runtime, fences[done])));
    for (size_t later = done + 1; later < fences.size(); ++later)
      EXPECT_TRUE(std::holds_alternative<FencePending>(
          runtime->queryFence(fences[later])))
          << done << " " << later;
  }
  fake->holdStreams(0);
  EXPECT_EQ(read(*runtime, stream, a), bytesOf({3, 3, 3, 3}));
}

TEST_F(CudaRuntimeTest, ReadbackWaitsForEarlierWork) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 4);
  fake->holdStreams(1);
  CommandBatch batch;
  batch.add(command(runtime->encodeUpload(bytesOf({5, 6, 7, 8}), a, 0)));
  Fence fence = submit(*runtime, stream, std::move(batch));
  std::thread releaser([&] {
    std::this_thread::sleep_for(30ms);
    fake->holdStreams(0);
  });
  EXPECT_EQ(read(*runtime, stream, a), bytesOf({5, 6, 7, 8}));
  releaser.join();
  EXPECT_TRUE(
      std::holds_alternative<FenceTerminal>(runtime->queryFence(fence)));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

TEST_F(CudaRuntimeTest, LoadsPtxAndCachesModulesPerContext) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaMulAddBundle(1000);
  DeviceResult<Executable> first = runtime->load(bundle);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->kernelCount(), 2u);
  DeviceResult<Executable> second = runtime->load(bundle);
  ASSERT_TRUE(second.ok());
  if (fake) {
    // The driver got the PTX text with the entries.
    EXPECT_TRUE(fake->hasPtxEntry("fuse_test_mul_f32"));
    EXPECT_TRUE(fake->hasPtxEntry("fuse_test_add_f32"));
    // Two distinct PTX texts, each JIT-compiled once.
    EXPECT_EQ(fake->callCount("cuModuleLoadDataEx"), 2);
    EXPECT_EQ(fake->liveModules(), 2);
  }
  *first = Executable();
  *second = Executable();
  if (fake)
    EXPECT_EQ(fake->liveModules(), 0);
  // Another runtime has its own cache.
  auto other = make();
  ASSERT_TRUE(other->load(bundle).ok());
}

TEST_F(CudaRuntimeTest, LoadRejectsWhatTheDeviceCannotRun) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle host = test::cudaAddBundle(4);
  host.kernels[0].payloadKind = PayloadKind::HostSharedObject;
  DeviceResult<Executable> loaded = runtime->load(host);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::Unsupported);

  Bundle future = test::cudaAddBundle(4);
  future.kernels[0].target = "sm_990";
  loaded = runtime->load(future);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::Incompatible);
  EXPECT_NE(loaded.error().message.find("sm_990"), std::string::npos);

  Bundle cubin = test::cudaAddBundle(4);
  cubin.kernels[0].payloadKind = PayloadKind::Cubin;
  cubin.kernels[0].target = "sm_50";
  loaded = runtime->load(cubin);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::Incompatible);

  Bundle old = test::cudaAddBundle(4);
  old.versionId = "0.0.0-old";
  EXPECT_EQ(runtime->load(old).error().code, ErrorCode::Incompatible);
}

TEST_F(CudaRuntimeTest, InvalidPtxFailsWithTheJitLog) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(4);
  bundle.kernels[0].payload =
      test::bytesOfText(".version 7.0\n.target sm_50\n.address_size 64\n"
                        ".visible .entry fuse_test_add_f32(.param .u64 a)\n{\n"
                        "\tthis is not an instruction;\n\tret;\n");
  DeviceResult<Executable> loaded = runtime->load(bundle);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::KernelLoadFailed);
  EXPECT_NE(loaded.error().message.find("CUDA_ERROR_INVALID_PTX"),
            std::string::npos)
      << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("JIT log: "), std::string::npos)
      << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("fuse_test_add_f32"), std::string::npos)
      << loaded.error().message;
}

TEST_F(CudaRuntimeTest, AMissingEntryIsNamed) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(4);
  bundle.kernels[0].entry = "no_such_kernel";
  DeviceResult<Executable> loaded = runtime->load(bundle);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::KernelLoadFailed);
  EXPECT_NE(loaded.error().message.find("'no_such_kernel'"), std::string::npos);
  EXPECT_NE(loaded.error().message.find("CUDA_ERROR_NOT_FOUND"),
            std::string::npos)
      << loaded.error().message;
  if (fake)
    EXPECT_EQ(fake->liveModules(), 0);
}

TEST_F(CudaRuntimeTest, LaunchesPassDevicePointersInBindingOrder) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(64);
  Executable executable = *runtime->load(bundle);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 256), b = allocate(*runtime, 256),
         out = allocate(*runtime, 512);
  LaunchConfig config = bundle.kernels[0].launch;
  config.gridX = 3;
  config.gridY = 2;
  config.blockX = 64;
  config.sharedMemoryBytes = 1024;
  CommandBatch batch;
  batch.add(command(runtime->encodeLaunch(
      executable, 0, config, {bindWhole(a), bindWhole(b), bindWhole(out)})));
  batch.add(command(runtime->encodeLaunch(
      executable, 0, config,
      {bindWhole(b), bindWhole(a), BufferBinding{out, 256, 256}})));
  run(*runtime, stream, std::move(batch));

  ASSERT_EQ(fake->launchCount(), 2);
  FakeCudaLaunch first{}, second{};
  ASSERT_TRUE(fake->getLaunch(0, &first));
  ASSERT_TRUE(fake->getLaunch(1, &second));
  EXPECT_STREQ(first.name, "fuse_test_add_f32");
  EXPECT_EQ(first.grid[0], 3u);
  EXPECT_EQ(first.grid[1], 2u);
  EXPECT_EQ(first.grid[2], 1u);
  EXPECT_EQ(first.block[0], 64u);
  EXPECT_EQ(first.sharedMemoryBytes, 1024u);
  ASSERT_EQ(first.paramCount, 3);
  EXPECT_EQ(second.params[0], first.params[1]);
  EXPECT_EQ(second.params[1], first.params[0]);
  EXPECT_EQ(second.params[2], first.params[2] + 256);
  EXPECT_NE(first.params[0], first.params[1]);
  EXPECT_EQ(first.stream, second.stream);
}

TEST_F(CudaRuntimeTest, LargeDynamicSharedMemoryIsAskedFor) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(64);
  Executable small = *runtime->load(bundle);
  EXPECT_EQ(fake->callCount("cuFuncSetAttribute"), 0);
  Buffer a = allocate(*runtime, 256);
  Stream stream = *runtime->createStream();
  LaunchConfig config = bundle.kernels[0].launch;
  config.sharedMemoryBytes = 100 * 1024;
  auto launchWith = [&](const Executable &executable) {
    CommandBatch batch;
    batch.add(command(runtime->encodeLaunch(
        executable, 0, config, {bindWhole(a), bindWhole(a), bindWhole(a)})));
    return wait(*runtime, submit(*runtime, stream, std::move(batch)));
  };
  // Without the attribute, the driver refuses the launch.
  EXPECT_NE(
      failureOf(launchWith(small)).find("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
      std::string::npos);
  ASSERT_TRUE(runtime->resetStream(stream).ok());
  small = Executable();
  bundle.kernels[0].launch.sharedMemoryBytes = 100 * 1024;
  Executable large = *runtime->load(bundle);
  EXPECT_EQ(fake->callCount("cuFuncSetAttribute"), 1);
  EXPECT_TRUE(std::holds_alternative<Succeeded>(launchWith(large)));
  fake->injectFailure("cuFuncSetAttribute", 0, 1, CUDA_ERROR_INVALID_VALUE);
  large = Executable();
  DeviceResult<Executable> refused = runtime->load(bundle);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("cuFuncSetAttribute"),
            std::string::npos);
}

TEST_F(CudaRuntimeTest, RunBundleMatchesTheReferenceRuntime) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  const int64_t n = 1003;
  Bundle bundle = test::cudaMulAddBundle(n);
  std::vector<float> a = randomFloats(11, n), b = randomFloats(12, n),
                     c = randomFloats(13, n);
  std::vector<TensorBytes> inputs = {toBytes(a), toBytes(b), toBytes(c)};
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, bundle, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  ASSERT_EQ(outputs->size(), 1u);
  ASSERT_EQ((*outputs)[0].size(), size_t(n) * 4);
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
  EXPECT_EQ(runtime->memoryUsage().reservedBytes, 0u);
  ReferenceRuntime reference;
  DeviceResult<std::vector<TensorBytes>> expected =
      runBundle(reference, bundle, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  if (fake) {
    // Kernels are recorded, not run: the launches are what can be checked.
    ASSERT_EQ(fake->launchCount(), 2);
    FakeCudaLaunch mul{}, add{};
    ASSERT_TRUE(fake->getLaunch(0, &mul));
    ASSERT_TRUE(fake->getLaunch(1, &add));
    EXPECT_STREQ(mul.name, "fuse_test_mul_f32");
    EXPECT_STREQ(add.name, "fuse_test_add_f32");
    EXPECT_EQ(mul.grid[0], 8u);
    EXPECT_EQ(mul.block[0], 128u);
    // The intermediate the first kernel writes is what the second reads.
    EXPECT_EQ(mul.params[2], add.params[0]);
    return;
  }
  std::vector<float> got = fromBytes<float>((*outputs)[0]);
  std::vector<float> want = fromBytes<float>((*expected)[0]);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_NEAR(got[size_t(i)], want[size_t(i)],
                1e-6f * std::fabs(want[size_t(i)]))
        << i;
}

/// The compiler's PTX: the fake driver checks that each module is PTX with
/// the entry and that the launch passes one device pointer per `.param`; a
/// GPU runs it, and the results match the reference runtime's.
TEST_F(CudaRuntimeTest, CompiledKernelsMatchTheReferenceRuntime) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  for (const Bundle &bundle :
       {test::compiledSoftmaxBundle(), test::compiledGeluBundle(),
        test::compiledAttentionBundle()}) {
    const BundleKernel &kernel = bundle.kernels[0];
    SCOPED_TRACE(kernel.entry);
    std::vector<TensorBytes> inputs;
    for (std::size_t i = 0; i < bundle.inputs.size(); ++i) {
      std::vector<float> x = randomFloats(
          21 + i, bundle.graph.typeOf(bundle.inputs[i]).numElements());
      for (size_t j = 0; j < x.size(); j += 3)
        x[j] = -x[j];
      inputs.push_back(toBytes(x));
    }
    ReferenceRuntime reference;
    DeviceResult<std::vector<TensorBytes>> expected =
        runBundle(reference, bundle, inputs);
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    DeviceResult<Executable> executable = runtime->load(bundle);
    ASSERT_TRUE(executable.ok()) << executable.error().message;
    if (fake)
      EXPECT_TRUE(fake->hasPtxEntry(kernel.entry.c_str()));
    int launchesBefore = fake ? fake->launchCount() : 0;
    Stream stream = *runtime->createStream();
    DeviceResult<std::vector<TensorBytes>> outputs =
        runBundle(*runtime, bundle, *executable, stream, inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().message;
    if (fake) {
      ASSERT_EQ(fake->launchCount(), launchesBefore + 1);
      FakeCudaLaunch launch{};
      ASSERT_TRUE(fake->getLaunch(launchesBefore, &launch));
      EXPECT_EQ(launch.name, kernel.entry);
      EXPECT_EQ(launch.paramCount, int(kernel.bindings.size()));
      EXPECT_EQ(launch.grid[0], kernel.launch.gridX);
      EXPECT_EQ(launch.block[0], kernel.launch.blockX);
      continue;
    }
    std::vector<float> got = fromBytes<float>((*outputs)[0]);
    std::vector<float> want = fromBytes<float>((*expected)[0]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f + 1e-5f * std::fabs(want[i])) << i;
  }
}

/// Issue 22: one symbolic bundle (the compiler's tanh over symbolic batch
/// and sequence, its dims by value after its bindings) bound to two sets of
/// values: the first binding is loaded, the second rebound from it (the
/// same module). Each launch gets its binding's grid and, after its two
/// pointers, the values of batch and sequence; on a GPU each run matches
/// the reference runtime.
TEST_F(CudaRuntimeTest, ASymbolicBundleLaunchesWithEachBindingsDimsAndGrid) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle symbolic = test::compiledSymbolicTanhBundle();
  ASSERT_TRUE(symbolic.isSymbolic());
  Stream stream = *runtime->createStream();
  std::optional<Executable> first;
  struct Binding {
    int64_t batch, sequence;
    uint32_t grid;
  };
  // 2*3*64 elements: one block; 5*307*64 = 98240: 96 blocks of 1024.
  for (const Binding &binding :
       {Binding{2, 3, 1}, Binding{5, 307, 96}, Binding{2, 3, 1}}) {
    SCOPED_TRACE(std::to_string(binding.batch) + "x" +
                 std::to_string(binding.sequence));
    Expected<Bundle> bound = bindBundle(
        symbolic, {{"batch", binding.batch}, {"sequence", binding.sequence}});
    ASSERT_TRUE(bound.ok()) << bound.message();
    const BundleKernel &kernel = bound->kernels[0];
    EXPECT_EQ(kernel.launch.gridX, binding.grid);
    EXPECT_EQ(kernel.dimValues,
              (std::vector<int64_t>{binding.batch, binding.sequence}));
    DeviceResult<Executable> executable =
        first ? runtime->rebind(*first, *bound) : runtime->load(*bound);
    ASSERT_TRUE(executable.ok()) << executable.error().message;
    if (!first)
      first = *executable;
    std::vector<float> x =
        randomFloats(31, size_t(binding.batch * binding.sequence * 64));
    for (size_t j = 0; j < x.size(); j += 3)
      x[j] = -4 * x[j];
    std::vector<TensorBytes> inputs = {toBytes(x)};
    int launchesBefore = fake ? fake->launchCount() : 0;
    int modulesBefore = fake ? fake->callCount("cuModuleLoadDataEx") : 0;
    DeviceResult<std::vector<TensorBytes>> outputs =
        runBundle(*runtime, *bound, *executable, stream, inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().message;
    if (fake) {
      // The rebound executable loads no module again.
      EXPECT_EQ(fake->callCount("cuModuleLoadDataEx"), modulesBefore);
      ASSERT_EQ(fake->launchCount(), launchesBefore + 1);
      FakeCudaLaunch launch{};
      ASSERT_TRUE(fake->getLaunch(launchesBefore, &launch));
      EXPECT_EQ(launch.name, kernel.entry);
      EXPECT_EQ(launch.grid[0], binding.grid);
      EXPECT_EQ(launch.block[0], 256u);
      ASSERT_EQ(launch.paramCount, 4);
      EXPECT_EQ(launch.pointerMask, 0x3u);
      EXPECT_NE(launch.params[0], launch.params[1]);
      EXPECT_EQ(launch.params[2], uint64_t(binding.batch));
      EXPECT_EQ(launch.params[3], uint64_t(binding.sequence));
      continue;
    }
    ReferenceRuntime reference;
    DeviceResult<std::vector<TensorBytes>> expected =
        runBundle(reference, makeReferenceBundle(bound->graph), inputs);
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    std::vector<float> got = fromBytes<float>((*outputs)[0]);
    std::vector<float> want = fromBytes<float>((*expected)[0]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-6f + 1e-5f * std::fabs(want[i])) << i;
  }
}

/// The ids of compiledComputedGatherBundle: index ids[i] + 90 inside
/// [-100, 100) (negative ones among them), but for `bad` at `at`.
std::vector<int64_t> computedGatherIds(std::optional<int64_t> bad = {},
                                       size_t at = 200) {
  std::vector<int64_t> ids(256);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = int64_t(i * 37 % 200) - 190;
  if (bad)
    ids[at] = *bad;
  return ids;
}

// The kernel error channel (KernelAbi.h): the compiled kernel checks an
// index it computes and writes its error record, one parameter after its
// bindings; the runtime zeroes the record before the batch, reads it once
// the batch is over and fails the fence, naming the kernel, the op and the
// index as the reference runtime does. On the fake the kernel does not run:
// the fake writes the record as the kernel would.
TEST_F(CudaRuntimeTest, AComputedGatherIndexOutsideItsAxisFailsTheRun) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::compiledComputedGatherBundle();
  std::vector<float> line = randomFloats(5, 100);
  std::vector<TensorBytes> inputs = {toBytes(line),
                                     toBytes(computedGatherIds(10))};
  ReferenceRuntime reference;
  DeviceResult<std::vector<TensorBytes>> expected =
      runBundle(reference, bundle, inputs);
  ASSERT_FALSE(expected.ok());
  EXPECT_NE(expected.error().message.find(
                "op #2 (gather): index 100 (element 200 of the indices) is "
                "out of range for dim 0 of size 100 of tensor<100xf32> "
                "(valid: -100 to 99)"),
            std::string::npos)
      << expected.error().message;

  if (fake)
    fake->reportFromKernel("fuse_k0_pointwise", 1, 100);
  int launchesBefore = fake ? fake->launchCount() : 0;
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, bundle, inputs);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.error().code, ErrorCode::KernelFailed);
  EXPECT_NE(outputs.error().message.find(
                "kernel fuse_k0_pointwise: op #2 (gather): index 100 is out "
                "of range for dim 0 of size 100 of tensor<100xf32> (valid: "
                "-100 to 99)"),
            std::string::npos)
      << outputs.error().message;
  if (fake) {
    ASSERT_EQ(fake->launchCount(), launchesBefore + 1);
    FakeCudaLaunch launch{};
    ASSERT_TRUE(fake->getLaunch(launchesBefore, &launch));
    ASSERT_EQ(launch.paramCount, 4);
    for (int i = 0; i < 3; ++i)
      EXPECT_NE(launch.params[3], launch.params[i]);
  }
  // The record lives only as long as its batch.
  EXPECT_EQ(runtime->poolStats().allocatedBytes, 0u);
}

TEST_F(CudaRuntimeTest, AComputedGatherIndexInsideItsAxisRunsAsTheReference) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::compiledComputedGatherBundle();
  std::vector<float> line = randomFloats(6, 100);
  // The first run fails (index -101): the next one reuses the record's
  // memory, which the runtime must zero again.
  if (fake)
    fake->reportFromKernel("fuse_k0_pointwise", 1, -101);
  ASSERT_FALSE(runBundle(*runtime, bundle,
                         std::vector<TensorBytes>{
                             toBytes(line), toBytes(computedGatherIds(-191))})
                   .ok());
  if (fake)
    fake->reset();
  std::vector<TensorBytes> inputs = {toBytes(line),
                                     toBytes(computedGatherIds())};
  ReferenceRuntime reference;
  DeviceResult<std::vector<TensorBytes>> expected =
      runBundle(reference, bundle, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, bundle, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  if (!fake)
    EXPECT_EQ((*outputs)[0], (*expected)[0]);
}

// The shared suite checks the timing modes; here, that each timed launch
// reads one elapsed time from the driver.
TEST_F(CudaRuntimeTest, KernelTimingReadsOneElapsedTimePerLaunch) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(64);
  Executable executable = *runtime->load(bundle);
  Stream stream = *runtime->createStream();
  Buffer x = allocate(*runtime, 256), out = allocate(*runtime, 256);
  runtime->setTimingMode(TimingMode::Kernel);
  CommandBatch batch;
  for (int i = 0; i < 3; ++i)
    batch.add(command(
        runtime->encodeLaunch(executable, 0, bundle.kernels[0].launch,
                              {bindWhole(x), bindWhole(x), bindWhole(out)})));
  Fence fence = submit(*runtime, stream, std::move(batch));
  EXPECT_TRUE(std::holds_alternative<Succeeded>(wait(*runtime, fence)));
  DeviceResult<SubmissionTiming> timing = runtime->submissionTiming(fence);
  ASSERT_TRUE(timing.ok());
  EXPECT_EQ(timing->launches.size(), 3u);
  EXPECT_EQ(fake->callCount("cuEventElapsedTime"), 3);
}

TEST_F(CudaRuntimeTest, LoadsAndLaunchesACubinFromPtxas) {
#ifndef FUSE_PTXAS_PATH
  GTEST_SKIP() << "ptxas was not found when the tests were configured";
#else
  if (!std::filesystem::exists(FUSE_PTXAS_PATH))
    GTEST_SKIP() << FUSE_PTXAS_PATH << " is not on this machine";
  auto runtime = make();
  ASSERT_TRUE(runtime);
  std::string target = runtime->descriptor().target;
  std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("fuse-cuda-cubin-" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  std::filesystem::path ptx = directory / "add.ptx",
                        cubin = directory / "add.cubin";
  { std::ofstream(ptx) << test::binaryPtx("fuse_test_add_f32", "add", 64); }
  std::string command = std::string(FUSE_PTXAS_PATH) + " -arch=" + target +
                        " " + ptx.string() + " -o " + cubin.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream file(cubin, std::ios::binary);
  std::vector<uint8_t> image((std::istreambuf_iterator<char>(file)), {});
  std::filesystem::remove_all(directory);

  Bundle bundle = test::cudaAddBundle(64);
  bundle.kernels[0].payloadKind = PayloadKind::Cubin;
  bundle.kernels[0].target = target;
  bundle.kernels[0].payload = image;
  std::vector<float> a = randomFloats(3, 64), b = randomFloats(4, 64);
  std::vector<TensorBytes> inputs = {toBytes(a), toBytes(b)};
  DeviceResult<std::vector<TensorBytes>> outputs =
      runBundle(*runtime, bundle, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  if (fake) {
    ASSERT_EQ(fake->launchCount(), 1);
    FakeCudaLaunch launch{};
    ASSERT_TRUE(fake->getLaunch(0, &launch));
    EXPECT_STREQ(launch.name, "fuse_test_add_f32");
    EXPECT_EQ(launch.paramCount, -1);
    return;
  }
  std::vector<float> out = fromBytes<float>((*outputs)[0]);
  for (size_t i = 0; i < 64; ++i)
    ASSERT_EQ(out[i], a[i] + b[i]) << i;
#endif
}

//===----------------------------------------------------------------------===//
// Failures
//===----------------------------------------------------------------------===//

TEST_F(CudaRuntimeTest, AKernelFailureFailsItsStreamOnly) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(64);
  Executable executable = *runtime->load(bundle);
  Buffer a = allocate(*runtime, 256), b = allocate(*runtime, 256),
         out = allocate(*runtime, 256);
  auto launch = [&] {
    return command(
        runtime->encodeLaunch(executable, 0, bundle.kernels[0].launch,
                              {bindWhole(a), bindWhole(b), bindWhole(out)}));
  };
  Stream failing = *runtime->createStream();
  Stream healthy = *runtime->createStream();
  fake->failKernel("fuse_test_add_f32", CUDA_ERROR_LAUNCH_FAILED);
  CommandBatch batch;
  batch.add(launch());
  TerminalReceipt receipt =
      wait(*runtime, submit(*runtime, failing, std::move(batch)));
  ASSERT_TRUE(std::holds_alternative<FailedButQuiescent>(receipt));
  const Error &error = std::get<FailedButQuiescent>(receipt).error;
  EXPECT_EQ(error.code, ErrorCode::KernelFailed);
  EXPECT_NE(error.message.find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos)
      << error.message;
  EXPECT_EQ(runtime->describeError(error).code, "kernel failed");

  StreamState state = runtime->streamState(failing);
  ASSERT_TRUE(std::holds_alternative<StreamFailed>(state));
  EXPECT_NE(std::get<StreamFailed>(state).reason.message.find(
                "CUDA_ERROR_LAUNCH_FAILED"),
            std::string::npos);
  EXPECT_EQ(runtime->synchronize(failing).error().code,
            ErrorCode::StreamFailed);
  CommandBatch refused;
  refused.add(command(runtime->encodeZero(a, 0, 4)));
  SubmitResult again = runtime->submit(failing, std::move(refused));
  ASSERT_FALSE(again.submitted());
  EXPECT_EQ(again.error().code, ErrorCode::StreamFailed);

  // Another stream keeps working.
  CommandBatch other;
  other.add(command(runtime->encodeUpload(bytesOf({9, 9, 9, 9}), a, 0)));
  run(*runtime, healthy, std::move(other));
  EXPECT_EQ(runtime->readback(healthy, a, 0, 4).value(), bytesOf({9, 9, 9, 9}));

  // So does the failed one, once reset, and later runtimes.
  fake->reset();
  ASSERT_TRUE(runtime->resetStream(failing).ok());
  CommandBatch retry;
  retry.add(launch());
  run(*runtime, failing, std::move(retry));
  auto later = make();
  Stream stream = *later->createStream();
  Buffer c = allocate(*later, 4);
  CommandBatch work;
  work.add(command(later->encodeZero(c, 0, 4)));
  run(*later, stream, std::move(work));
}

TEST_F(CudaRuntimeTest, SubmissionsQueuedBehindAFailureFailToo) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(64);
  Executable executable = *runtime->load(bundle);
  Buffer a = allocate(*runtime, 256);
  Stream stream = *runtime->createStream();
  fake->failKernel("fuse_test_add_f32", CUDA_ERROR_ILLEGAL_ADDRESS);
  fake->holdStreams(1);
  CommandBatch first;
  first.add(command(
      runtime->encodeLaunch(executable, 0, bundle.kernels[0].launch,
                            {bindWhole(a), bindWhole(a), bindWhole(a)})));
  Fence failed = submit(*runtime, stream, std::move(first));
  CommandBatch second;
  second.add(command(runtime->encodeZero(a, 0, 4)));
  Fence behind = submit(*runtime, stream, std::move(second));
  fake->holdStreams(0);
  EXPECT_NE(
      failureOf(wait(*runtime, failed)).find("CUDA_ERROR_ILLEGAL_ADDRESS"),
      std::string::npos);
  EXPECT_NE(failureOf(wait(*runtime, behind)).find("an earlier submission"),
            std::string::npos);
  EXPECT_EQ(runtime->memoryUsage().liveBuffers, 1u);
}

// The shared suite rejects another CUDA runtime's objects; so are another
// backend's.
TEST_F(CudaRuntimeTest, BuffersOfAnotherBackendAreRejected) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  HostRuntime host(HostRuntime::Options{1 << 20, 2});
  Buffer mine = allocate(*runtime, 8);
  Buffer hosts = allocate(host, 8);
  EXPECT_EQ(runtime->encodeZero(hosts, 0, 8).error().code,
            ErrorCode::WrongRuntime);
  EXPECT_EQ(runtime->encodeCopy(mine, hosts, {0, 0, 8}).error().code,
            ErrorCode::WrongRuntime);
}

TEST_F(CudaRuntimeTest, EventCreationFailureIsDefinitelyNotSubmitted) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  fake->injectFailure("cuEventCreate", 0, 1, CUDA_ERROR_OUT_OF_MEMORY);
  SubmitResult submitted = [&] {
    Buffer a = allocate(*runtime, 4096);
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(a, 0, 4096)));
    return runtime->submit(stream, std::move(batch));
  }();
  ASSERT_FALSE(submitted.submitted());
  EXPECT_NE(submitted.error().message.find("cuEventCreate"), std::string::npos);
  EXPECT_NE(submitted.error().message.find("CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos);
  EXPECT_EQ(fake->callCount("cuMemsetD8Async"), 0);
  EXPECT_TRUE(
      std::holds_alternative<StreamReady>(runtime->streamState(stream)));
  // The returned batch is all that holds the buffer.
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 4096u);
  CommandBatch batch = std::move(submitted.notSubmitted().batch);
  // It may be submitted again.
  run(*runtime, stream, std::move(batch));
  EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
}

/// A failure at each entry point that submission uses: the work that may
/// have reached the device holds its buffers until its fence is terminal.
TEST_F(CudaRuntimeTest, PossiblySubmittedWorkHoldsItsResourcesUntilTerminal) {
  FAKE_ONLY();
  struct Case {
    const char *entry;
    int skip;
  };
  // The batch: upload, copy, zero, launch; then the completion event.
  for (Case c : {Case{"cuMemcpyHtoDAsync", 0}, Case{"cuMemcpyDtoDAsync", 0},
                 Case{"cuMemsetD8Async", 0}, Case{"cuLaunchKernel", 0},
                 Case{"cuEventRecord", 0}, Case{"cuCtxSetCurrent", 0}}) {
    SCOPED_TRACE(c.entry);
    fake->reset();
    auto runtime = make();
    ASSERT_TRUE(runtime);
    Bundle bundle = test::cudaAddBundle(64);
    Executable executable = *runtime->load(bundle);
    Stream stream = *runtime->createStream();
    Fence fence;
    {
      Buffer a = allocate(*runtime, 256), b = allocate(*runtime, 256);
      // The stream's thread has started once a submission completed.
      CommandBatch first;
      first.add(command(runtime->encodeZero(a, 0, 256)));
      run(*runtime, stream, std::move(first));
      CommandBatch batch;
      batch.add(
          command(runtime->encodeUpload(std::vector<std::byte>(256), a, 0)));
      batch.add(command(runtime->encodeCopy(a, b, {0, 0, 256})));
      batch.add(command(runtime->encodeZero(b, 0, 16)));
      batch.add(command(
          runtime->encodeLaunch(executable, 0, bundle.kernels[0].launch,
                                {bindWhole(a), bindWhole(b), bindWhole(b)})));
      fake->holdStreams(1);
      fake->injectFailure(c.entry, c.skip, 1, CUDA_ERROR_INVALID_VALUE);
      SubmitResult submitted = runtime->submit(stream, std::move(batch));
      ASSERT_TRUE(submitted.submitted()) << submitted.error().message;
      fence = submitted.fence();
    }
    // Work before the failing call may be queued on the device: nothing is
    // released while it is.
    if (c.entry != std::string("cuMemcpyHtoDAsync") &&
        c.entry != std::string("cuCtxSetCurrent")) {
      std::this_thread::sleep_for(10ms);
      EXPECT_TRUE(
          std::holds_alternative<FencePending>(runtime->queryFence(fence)));
      EXPECT_EQ(runtime->memoryUsage().inUseBytes, 512u);
    }
    fake->holdStreams(0);
    TerminalReceipt receipt = wait(*runtime, fence);
    std::string failure = failureOf(receipt);
    EXPECT_NE(failure.find(c.entry), std::string::npos) << failure;
    EXPECT_NE(failure.find("CUDA_ERROR_INVALID_VALUE"), std::string::npos)
        << failure;
    EXPECT_EQ(runtime->memoryUsage().inUseBytes, 0u);
    EXPECT_TRUE(
        std::holds_alternative<StreamFailed>(runtime->streamState(stream)));
    // Reset, the stream works again.
    ASSERT_TRUE(runtime->resetStream(stream).ok());
    Buffer c2 = allocate(*runtime, 4);
    CommandBatch batch;
    batch.add(command(runtime->encodeZero(c2, 0, 4)));
    run(*runtime, stream, std::move(batch));
  }
}

TEST_F(CudaRuntimeTest, CompletionIsProvenDespiteFailingQueries) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 4);
  // cuEventQuery cannot tell: cuStreamSynchronize proves completion, after
  // failing twice itself; the fence is pending meanwhile.
  fake->injectFailure("cuEventQuery", 0, 1, CUDA_ERROR_INVALID_HANDLE);
  fake->injectFailure("cuStreamSynchronize", 0, 2, CUDA_ERROR_UNKNOWN);
  CommandBatch batch;
  batch.add(command(runtime->encodeUpload(bytesOf({1, 2, 3, 4}), a, 0)));
  Fence fence = submit(*runtime, stream, std::move(batch));
  EXPECT_TRUE(std::holds_alternative<Succeeded>(wait(*runtime, fence)));
  EXPECT_EQ(fake->callCount("cuStreamSynchronize"), 3);
  EXPECT_EQ(read(*runtime, stream, a), bytesOf({1, 2, 3, 4}));

  // A device failure that the event reports fails the submission.
  fake->injectFailure("cuEventQuery", 0, 1, CUDA_ERROR_LAUNCH_FAILED);
  CommandBatch failing;
  failing.add(command(runtime->encodeZero(a, 0, 4)));
  std::string failure =
      failureOf(wait(*runtime, submit(*runtime, stream, std::move(failing))));
  EXPECT_NE(failure.find("cuEventQuery"), std::string::npos) << failure;
  EXPECT_NE(failure.find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos);
}

TEST_F(CudaRuntimeTest, FailuresOfOtherEntryPointsAreNamed) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 4);

  fake->injectFailure("cuStreamCreate", 0, 1, CUDA_ERROR_OUT_OF_MEMORY);
  DeviceResult<Stream> noStream = runtime->createStream();
  ASSERT_FALSE(noStream.ok());
  EXPECT_NE(noStream.error().message.find("cuStreamCreate failed: "
                                          "CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << noStream.error().message;

  fake->injectFailure("cuMemcpyDtoHAsync", 0, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
  DeviceResult<std::vector<std::byte>> bytes =
      runtime->readback(stream, a, 0, 4);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("cuMemcpyDtoHAsync"), std::string::npos);
  EXPECT_NE(bytes.error().message.find("CUDA_ERROR_ILLEGAL_ADDRESS"),
            std::string::npos);
  EXPECT_TRUE(runtime->readback(stream, a, 0, 4).ok());

  Bundle bundle = test::cudaAddBundle(4);
  fake->injectFailure("cuModuleLoadDataEx", 0, 1, CUDA_ERROR_NO_BINARY_FOR_GPU);
  DeviceResult<Executable> loaded = runtime->load(bundle);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("CUDA_ERROR_NO_BINARY_FOR_GPU"),
            std::string::npos);
  fake->injectFailure("cuModuleGetFunction", 0, 1, CUDA_ERROR_INVALID_HANDLE);
  loaded = runtime->load(bundle);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("cuModuleGetFunction"),
            std::string::npos);
  EXPECT_EQ(fake->liveModules(), 0);
  EXPECT_TRUE(runtime->load(bundle).ok());

  // A fresh runtime takes its first block: cuCtxSetCurrent first.
  auto fresh = make();
  fake->injectFailure("cuCtxSetCurrent", 0, 1, CUDA_ERROR_INVALID_CONTEXT);
  DeviceResult<AllocationPermit> permit = fresh->reserve(16);
  DeviceResult<Buffer> buffer = fresh->allocate(*permit, 16);
  ASSERT_FALSE(buffer.ok());
  EXPECT_NE(buffer.error().message.find("cuCtxSetCurrent"), std::string::npos);
  EXPECT_EQ(fresh->memoryUsage().inUseBytes, 0u);
}

TEST_F(CudaRuntimeTest, TimingFailuresCostTheTimingNotTheWork) {
  FAKE_ONLY();
  auto runtime = make();
  ASSERT_TRUE(runtime);
  Bundle bundle = test::cudaAddBundle(64);
  Executable executable = *runtime->load(bundle);
  Stream stream = *runtime->createStream();
  Buffer a = allocate(*runtime, 256);
  runtime->setTimingMode(TimingMode::Kernel);
  CommandBatch batch;
  for (int i = 0; i < 3; ++i)
    batch.add(command(
        runtime->encodeLaunch(executable, 0, bundle.kernels[0].launch,
                              {bindWhole(a), bindWhole(a), bindWhole(a)})));
  // The second launch's start event fails to record; the first elapsed
  // time cannot be read.
  fake->injectFailure("cuEventRecord", 2, 1, CUDA_ERROR_INVALID_VALUE);
  fake->injectFailure("cuEventElapsedTime", 0, 1, CUDA_ERROR_INVALID_HANDLE);
  Fence fence = submit(*runtime, stream, std::move(batch));
  EXPECT_TRUE(std::holds_alternative<Succeeded>(wait(*runtime, fence)));
  EXPECT_EQ(fake->launchCount(), 3);
  DeviceResult<SubmissionTiming> timing = runtime->submissionTiming(fence);
  ASSERT_TRUE(timing.ok());
  EXPECT_EQ(timing->launches.size(), 1u);
}

TEST_F(CudaRuntimeTest, StreamsWorkConcurrently) {
  auto runtime = make();
  ASSERT_TRUE(runtime);
  constexpr int streams = 4, rounds = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < streams; ++t)
    threads.emplace_back([&, t] {
      Stream stream = *runtime->createStream();
      Buffer buffer = allocate(*runtime, 64);
      for (int round = 0; round < rounds; ++round) {
        std::vector<std::byte> data(64, std::byte(t * 50 + round));
        CommandBatch batch;
        batch.add(command(runtime->encodeUpload(data, buffer, 0)));
        SubmitResult submitted = runtime->submit(stream, std::move(batch));
        if (!submitted.submitted() ||
            !runtime->waitFence(submitted.fence(), 10s).ok() ||
            runtime->readback(stream, buffer, 0, 64).value() != data)
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
}

} // namespace
