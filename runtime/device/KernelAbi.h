//===- KernelAbi.h - How runtimes call compiled kernels ---------*- C++ -*-===//
//
// The calling convention between the compiler's generated kernels and the
// runtimes that launch them, and the launch configuration a bundle records
// for each kernel. The compiler emits code against this header and the
// runtime calls through it, so it is the one place where both sides agree.
//
// It must stay plain C++ (no MLIR, no LLVM): the runtime includes it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_KERNELABI_H
#define FUSE_RUNTIME_DEVICE_KERNELABI_H

#include <cstdint>

extern "C" {
/// A host kernel: `buffers` are bare pointers in the order of the kernel's
/// bindings; the call processes iterations [begin, end) of an iteration space
/// of `LaunchConfig::iterations` items. Chunks of one launch run concurrently
/// on different threads, so a kernel must write only what its chunk owns.
/// A kernel that reports checks (BundleKernel::checkedOps) finds its error
/// record at `buffers[-1]`; one that reads dims at run time
/// (BundleKernel::runtimeDims) finds their values at `buffers[-2]`.
typedef void (*FuseHostKernel)(void **buffers, int64_t begin, int64_t end);
}

/// The error record of one launch: the kernel channel for what only the run
/// can tell (a gather index outside its axis). The runtime owns it, zeroes
/// it before the launch and reads it once the launch is over; a set flag
/// fails the submission (its fence's receipt) with a message naming the
/// kernel, the op and the value. Per entry of BundleKernel::checkedOps, two
/// int64 words: a flag (nonzero: the check failed) and the value that failed
/// it (one of them, where several did). Kernels write both with relaxed
/// atomic stores only on failure, so that the common path costs one compare
/// per checked value; they never read or write out of bounds because of it.
/// Host kernels find the record at `buffers[-1]`; GPU kernels take it as one
/// parameter after their bindings.
inline constexpr unsigned kErrorRecordWordsPerCheck = 2;

/// Runtime dims (issue 22, step C). A bundle compiled from a graph with
/// symbolic dims (batch, sequence) serves every value of them. Its host
/// kernels are compiled so that their code does not depend on those values:
/// where the symbolic dims of a kernel are outer dims and every stride and
/// inner extent it uses is static, only the size of its iteration space (a
/// pointwise kernel's elements, a row kernel's rows, a matmul's rows of C
/// over all batches, in whole row blocks a grain) grows with them, and the
/// dims reach the kernel through `begin` and `end` alone. The bundle
/// records each kernel's iteration count as a polynomial over the dims
/// (BundleKernel::symbolicIterations), evaluated when a run binds the dims.
///
/// A kernel that needs a dim's value as data (an attention's count of keys
/// and query rows, a stride over a symbolic dim in an index map) reads it
/// from its dims array: `buffers[-2]` points to int64 values, one per entry
/// of BundleKernel::runtimeDims in that order, which bindBundle fills
/// (BundleKernel::dimValues) and the runtime passes at every launch; a
/// kernel that takes none finds whatever the runtime puts there and never
/// reads it. The compiler proves that the code depends on the dims only
/// through `begin`, `end` and that array by emitting the kernel at two
/// different values of the dims and requiring the same code
/// (KernelCompiler.cpp, "Symbolic fusions"), and refuses, naming the dim, a
/// schedule whose code still depends on a dim's value (a matmul's N, a row
/// length): the caller then binds that dim before compiling.
///
/// GPU kernels (pointwise, gather and concat, and row reductions whose rows
/// alone are symbolic) take the dims by value: one int64 parameter per
/// entry of BundleKernel::runtimeDims, in that order, after their bindings
/// and their error record; every kernel of a fusion emitted for runtime
/// dims takes all of the fusion's dims. Their loops are grid- and
/// block-stride loops over an extent they compute from the dims, so any
/// grid is correct: a symbolic bundle records in LaunchConfig::gridX the
/// most blocks and in LaunchConfig::grain the iterations per block, and
/// bindBundle sets the grid of the bound iterations (gpuGridBlocks).
///
/// Such a kernel divides positions by runtime sizes with a multiply and a
/// shift, exact below 2^31 (compiler/common/AffineIndexMap.h,
/// runtimeDivisor): bindBundle refuses dims that give a bundle whose kernels
/// read dims a tensor of kMaxRuntimeDimsElements elements or more (the
/// margin covers a vector's lanes past a tensor's end).

namespace fuse {

/// See "Runtime dims" above.
inline constexpr std::int64_t kMaxRuntimeDimsElements =
    (std::int64_t(1) << 31) - (std::int64_t(1) << 16);

/// The blocks of a GPU launch over `iterations` items, `perBlock` a block:
/// at least one, at most `maxBlocks` (the kernels stride over the rest).
inline uint32_t gpuGridBlocks(int64_t iterations, int64_t perBlock,
                              uint32_t maxBlocks) {
  int64_t blocks = perBlock > 0 ? (iterations + perBlock - 1) / perBlock : 1;
  if (blocks < 1)
    return 1;
  return blocks > int64_t(maxBlocks) ? maxBlocks : uint32_t(blocks);
}

/// How a kernel is launched. GPU kernels use the grid, block and shared
/// memory (bare device pointers as parameters, in binding order); host
/// kernels use the iteration count and grain. Plain integers so the bundle
/// serializes field by field.
struct LaunchConfig {
  uint32_t gridX = 1, gridY = 1, gridZ = 1;
  uint32_t blockX = 1, blockY = 1, blockZ = 1;
  uint32_t sharedMemoryBytes = 0;
  /// Host: the size of the iteration space.
  int64_t iterations = 0;
  /// Host: every chunk but the last starts and ends on a multiple of the
  /// grain, so a kernel's vector body and scalar tail split as compiled.
  /// GPU, in a symbolic bundle (see "Runtime dims"): the iterations per
  /// block, gridX the most blocks.
  int64_t grain = 1;
  /// Host: chunks per worker thread (the runtime's ThreadPool); 0 takes the
  /// pool's default, a few for balance. A matmul takes 1: each chunk reads
  /// all of B's panels once more (HostMatmulEmitter.cpp, kChunksPerWorker).
  uint32_t chunksPerWorker = 0;

  friend bool operator==(const LaunchConfig &, const LaunchConfig &) = default;
};

} // namespace fuse

#endif // FUSE_RUNTIME_DEVICE_KERNELABI_H
