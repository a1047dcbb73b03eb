//===- CudaTestSupport.h - Bundles and the fake driver for CUDA tests -*- C++
//-*-===//
//
// Hand-written PTX kernels in the GPU kernel ABI (bare device pointers in
// binding order), bundles around them, and access to the fake driver's
// test-control API. The tests run against the fake driver when
// FUSE_CUDA_DRIVER names it (CTest sets it) and against the system's driver
// otherwise; `fakeDriver()` is null in the latter case.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_RUNTIME_CUDA_CUDATESTSUPPORT_H
#define FUSE_TEST_RUNTIME_CUDA_CUDATESTSUPPORT_H

#include "FakeCudaDriver.h"
#include "TestSupport.h"

#include "runtime/cache/Bundle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fuse::test {

/// The fake driver's control API, looked up with dlsym.
struct FakeDriver {
  decltype(&fakeCudaReset) reset;
  decltype(&fakeCudaInjectFailure) injectFailure;
  decltype(&fakeCudaFailKernel) failKernel;
  decltype(&fakeCudaReportFromKernel) reportFromKernel;
  decltype(&fakeCudaHoldStreams) holdStreams;
  decltype(&fakeCudaQueuedOperations) queuedOperations;
  decltype(&fakeCudaRunQueued) runQueued;
  decltype(&fakeCudaLaunchCount) launchCount;
  decltype(&fakeCudaGetLaunch) getLaunch;
  decltype(&fakeCudaCallCount) callCount;
  decltype(&fakeCudaLiveAllocationBytes) liveAllocationBytes;
  decltype(&fakeCudaLiveAllocations) liveAllocations;
  decltype(&fakeCudaLiveStreams) liveStreams;
  decltype(&fakeCudaLiveEvents) liveEvents;
  decltype(&fakeCudaLiveModules) liveModules;
  decltype(&fakeCudaPrimaryContextRefs) primaryContextRefs;
  decltype(&fakeCudaHasPtxEntry) hasPtxEntry;
  decltype(&fakeCudaSetTotalMemory) setTotalMemory;
};

/// The fake driver named by FUSE_CUDA_DRIVER, or null (real driver).
const FakeDriver *fakeDriver();
/// The path FUSE_CUDA_DRIVER names, or empty.
std::string fakeDriverPath();

/// PTX of `out[i] = a[i] + b[i]` (entry fuse_test_add_f32) or
/// `out[i] = a[i] * b[i]` (fuse_test_mul_f32) for i < n.
std::string binaryPtx(const std::string &entry, const std::string &op,
                      std::int64_t n);

/// out = a + b over f32[n]: one PTX kernel, 128 threads a block.
Bundle cudaAddBundle(std::int64_t n);
/// out = a * b + c over f32[n]: two PTX kernels and an intermediate in the
/// arena (at offset 256, so a wrong offset shows).
Bundle cudaMulAddBundle(std::int64_t n);

std::vector<std::uint8_t> bytesOfText(const std::string &text);

/// Bundles around PTX that the compiler made (fuse-compile --target=sm_80,
/// kept in CompiledSoftmaxSm80.inc and CompiledGeluSm80.inc) of
/// examples/softmax.mlir (one row-reduction kernel) and examples/gelu.mlir
/// (one pointwise kernel), both over f32[32, 256], with the graph, launch and
/// bindings that fuse-compile reported for them.
Bundle compiledSoftmaxBundle();
Bundle compiledGeluBundle();
/// picks = line[ids + 90] over line f32[100], ids i64[256] (ops: the
/// splat 90, the add, the gather): one pointwise kernel that checks its
/// computed index and takes an error record (CompiledComputedGatherSm80.inc).
Bundle compiledComputedGatherBundle();
/// Attention over q f32[2, 24, 16], k f32[2, 20, 16] (transpose_b) and
/// v f32[2, 20, 16]: scores scaled by 0.25, a softmax over the 20 keys, P V
/// (ops 0-10): one GPU attention kernel, 4 blocks of 256 threads
/// (CompiledAttentionSm80.inc).
Bundle compiledAttentionBundle();
/// y = tanh(x) over f32[batch, sequence, 64], a symbolic bundle (issue 22)
/// around the compiler's pointwise kernel that takes the dims by value after
/// its bindings (CompiledSymbolicTanhSm80.inc): iterations
/// batch*sequence*64, 1024 a block, at most 4096 blocks (KernelAbi.h,
/// "Runtime dims"). Bind it (bindBundle) before loading it.
Bundle compiledSymbolicTanhBundle();

} // namespace fuse::test

#endif // FUSE_TEST_RUNTIME_CUDA_CUDATESTSUPPORT_H
