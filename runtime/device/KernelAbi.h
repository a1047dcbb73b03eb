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
/// record at `buffers[-1]`.
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
/// kernels are compiled so that their code does not depend on those values
/// at all: the symbolic dims of such a kernel are outer dims, every stride
/// and inner extent it uses is static, and only the size of its iteration
/// space (a pointwise kernel's elements, a row kernel's rows, a matmul's
/// rows of C over all batches, in whole row blocks a grain) grows with
/// them. So the dims reach a kernel through `begin` and `end` alone, and the
/// calling convention above is unchanged: no dims array, no extra argument.
/// The bundle records each such kernel's iteration count as a polynomial
/// over the dims (BundleKernel::symbolicIterations), evaluated when a run
/// binds the dims; the compiler proves the independence by emitting the
/// kernel at two different values of the dims and requiring the same code
/// (KernelCompiler.cpp, "Symbolic fusions"), and refuses, naming the dim,
/// a schedule whose code depends on a dim's value (a matmul's N, a row
/// length, a broadcast's stride over a symbolic dim): the caller then binds
/// that dim before compiling. Kernels that read a dim's value as data
/// (strides over a symbolic dim) would take the values as an int64 array
/// beside the error record; none does yet.

namespace fuse {

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
  int64_t grain = 1;

  friend bool operator==(const LaunchConfig &, const LaunchConfig &) = default;
};

} // namespace fuse

#endif // FUSE_RUNTIME_DEVICE_KERNELABI_H
