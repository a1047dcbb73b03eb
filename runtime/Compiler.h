//===- Compiler.h - How the runtime reaches a compiler ----------*- C++ -*-===//
//
// The engine compiles a graph on a cache miss through this interface; the
// compiler library (compiler/, MLIR) implements it and is injected at run
// time. The runtime declares it so that it never includes a compiler header
// and never links MLIR or LLVM: a runtime-only program simply has no
// Compiler and runs what the cache holds.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_COMPILER_H
#define FUSE_RUNTIME_COMPILER_H

#include "runtime/cache/Bundle.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/Status.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace fuse {

/// How matmul products are computed. F32: in f32 (the default, the reference's
/// arithmetic). Bf16 (opt-in, `--matmul-precision=bf16`): a matmul whose B is
/// a bound weight has A and B rounded to bf16 (8 bits of mantissa, round to
/// nearest even) and their products summed in f32 by AVX-512 BF16 dot
/// products (vdpbf16ps); other matmuls stay f32. Only host targets with
/// AVX-512 (host-x86-64-v4) accept it, and such a bundle runs only on a CPU
/// with AVX-512 BF16.
enum class MatmulPrecision : std::uint8_t { F32 = 0, Bf16 = 1 };

/// "f32" or "bf16".
inline const char *matmulPrecisionName(MatmulPrecision precision) {
  return precision == MatmulPrecision::Bf16 ? "bf16" : "f32";
}

/// Options that change what the compiler emits; they are part of the cache
/// key, so two option sets that emit the same code should compare equal.
struct CompileOptions {
  /// 0-3, as for a C compiler.
  int optimizationLevel = 3;
  /// Fuse into as few kernels as the cost model allows; off: one kernel per
  /// op, for debugging and for checking fusion itself.
  bool enableFusion = true;
  /// Record why each fusion decision was made (`--fuse-explain`).
  bool explain = false;
  /// Tiered kernels: a kernel its compiler has not compiled before gets a
  /// quick LLVM pipeline (about a quarter of the time, slower code); one it
  /// compiled quickly before is compiled again at optimizationLevel. For
  /// loops that compile a new graph at each step (a decoder's generation):
  /// the kernels that depend on the step's shapes are used once each, the
  /// others from the second step on at full speed. Compilers without a
  /// kernel cache ignore it.
  bool tieredKernels = false;
  /// MatmulPrecision::Bf16: weight matmuls in bf16 with f32 sums.
  MatmulPrecision matmulPrecision = MatmulPrecision::F32;
  /// With matmulPrecision Bf16: the bf16 matmuls run on AMX tiles
  /// (tdpbf16ps, 16x16 sums of 32 products per instruction) instead of
  /// AVX-512 BF16 dot products: the same bf16 products, summed in f32 in
  /// another order. host-x86-64-v4 only; such kernels run only on a CPU
  /// with AMX-BF16 (device::hostSupportsAmxBf16). Off by default: the
  /// driver turns it on where the CPU that will run the bundle has AMX.
  bool amxTiles = false;
  bool operator==(const CompileOptions &) const = default;
};

struct PhaseTiming {
  /// "import", "fusion", "codegen", "link", ...
  std::string phase;
  std::chrono::nanoseconds duration{0};
};

/// Kernels whose machine code a compilation made, and kernels whose code it
/// took from those its compiler made before (by content, across bundles:
/// the host compiler's kernels compiled one per part). Zero where a
/// compiler keeps no such memory.
struct KernelReuse {
  std::uint32_t compiled = 0;
  std::uint32_t reused = 0;
  /// Of `compiled`, those given the quick pipeline (tieredKernels).
  std::uint32_t quick = 0;
};

struct Compilation {
  Bundle bundle;
  KernelReuse kernels;
  /// In the order the phases ran.
  std::vector<PhaseTiming> phases;
  /// Fusion remarks, when CompileOptions::explain is set.
  std::vector<std::string> remarks;
};

class BundleCache;

class Compiler {
public:
  virtual ~Compiler() = default;

  /// Keeps the machine code of single kernels in `cache`'s directory as well
  /// as in memory, so that another process compiles only kernels no process
  /// compiled before (null: in memory only). Compilers that keep no kernels
  /// ignore it.
  virtual void keepKernelsIn(BundleCache * /*cache*/) {}

  /// Compiles a canonical, valid graph for `target`; the bundle's versionId
  /// is fuse::versionId(). Fails with a message that names the op and the
  /// reason when something cannot be compiled for the target.
  virtual Expected<Compilation> compile(const Graph &graph,
                                        const Target &target,
                                        const CompileOptions &options) = 0;
};

/// Any graph as one reference bundle (makeReferenceBundle): what a session
/// on the reference runtime compiles with, where the graph itself is the
/// program (tools, examples and tests that check against the reference).
class ReferenceCompiler final : public Compiler {
public:
  Expected<Compilation> compile(const Graph &graph, const Target &target,
                                const CompileOptions &) override {
    Compilation compilation;
    compilation.bundle = makeReferenceBundle(graph);
    compilation.bundle.target = target.name;
    return compilation;
  }
};

} // namespace fuse

#endif // FUSE_RUNTIME_COMPILER_H
