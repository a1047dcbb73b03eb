//===- HostObjectEmitter.h - Host kernels -> object code -------*- C++ -*-===//
//
// The second half of host code generation: a module of kernel functions in
// upstream dialects (what HostKernelEmitter builds) is lowered to the LLVM
// dialect, with exp/tanh/erf/log/sin/cos replaced by MLIR's polynomial
// approximations (no libm call is left in a vector loop), translated to
// LLVM IR, optimized for the target's x86-64 ISA level and emitted as one
// relocatable object file.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOSTOBJECTEMITTER_H
#define FUSE_COMPILER_HOSTOBJECTEMITTER_H

#include "runtime/cache/Bundle.h"

#include "mlir/Support/LLVM.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace fuse {

/// The LLVM function attribute of a kernel that HostKernelEmitter made from a
/// huge fusion (a long chain of ops): such kernels are compiled in a module
/// of their own (in parallel parts from two kernels on) with a short
/// optimization pipeline and LLVM's quick code generator
/// (CodeGenOptLevel::None), each about a third of the time of -O3 and
/// Default on a chain's kernels.
inline constexpr const char kHugeKernelAttribute[] = "fuse-huge-kernel";

/// The dialects and LLVM translations that host code generation uses.
void registerHostCodegenDialects(mlir::DialectRegistry &registry);

/// Polynomial approximations (for `target`'s ISA), then the conversions to the
/// LLVM dialect, in place. Fails with diagnostics on the module's context.
mlir::LogicalResult lowerHostKernelsToLLVM(mlir::ModuleOp module,
                                           const Target &target);

class KernelObjectCache;

struct HostObject {
  /// One object file; several when the module was compiled in parts.
  std::vector<std::vector<std::uint8_t>> objects;
  /// The functions renamed for a KernelObjectCache: each kernel compiled in a
  /// part of its own is named after its content, old name -> new name.
  std::map<std::string, std::string> renamed;
  /// Kernels (each with its callees) compiled in parts of their own, and
  /// those of them whose object code came from the KernelObjectCache.
  std::uint32_t kernelsCompiled = 0;
  std::uint32_t kernelsReused = 0;
  /// Of kernelsCompiled, those compiled with the quick pipeline (`tiered`).
  std::uint32_t kernelsQuick = 0;
  /// The optimized LLVM IR, when asked for.
  std::string optimizedIR;
  std::chrono::nanoseconds translate{0}, optimize{0}, codegen{0};
};

/// Translates a module in the LLVM dialect, optimizes it at
/// `optimizationLevel` for `target`'s ISA level and emits ELF objects: one,
/// or for a module of many huge kernels one per part of it, compiled in
/// parallel threads. A module large enough to compile one kernel per part
/// takes each kernel's object from `cache` where it holds one, and stores
/// the others there; those kernels are renamed after their content
/// (HostObject::renamed). With `tiered` (CompileOptions::tieredKernels), a
/// kernel that `cache` holds neither at `optimizationLevel` nor quickly
/// compiled is compiled with the quick pipeline of huge kernels and kept as
/// such; one it holds quickly compiled is compiled at `optimizationLevel`.
Expected<HostObject> emitHostObject(mlir::ModuleOp module, const Target &target,
                                    int optimizationLevel, bool keepIR = false,
                                    KernelObjectCache *cache = nullptr,
                                    bool tiered = false);

} // namespace fuse

#endif // FUSE_COMPILER_HOSTOBJECTEMITTER_H
