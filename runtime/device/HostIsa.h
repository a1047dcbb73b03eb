//===- HostIsa.h - Which x86-64 ISA levels this CPU runs --------*- C++ -*-===//
//
// Host bundles are compiled for an ISA level (`host-x86-64-v3`: AVX2, FMA,
// BMI2...; `host-x86-64-v4`: AVX-512 F/BW/CD/DQ/VL). Running one on a CPU
// without those instructions dies with SIGILL, so the host runtime asks
// cpuid (and the OS, through xgetbv, for the register state) before it loads
// a bundle, without any compiler.
//
// Never depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_HOSTISA_H
#define FUSE_RUNTIME_DEVICE_HOSTISA_H

#include <optional>
#include <string>
#include <string_view>

namespace fuse::device {

enum class HostIsaLevel { X86_64_V2, X86_64_V3, X86_64_V4 };

/// True when this CPU and OS can run code built for `level`.
bool hostSupports(HostIsaLevel level);
/// The highest level this CPU supports, if any.
std::optional<HostIsaLevel> bestHostIsaLevel();
/// `host-x86-64-v3` for X86_64_V3, ...
std::string hostTargetName(HostIsaLevel level);
/// The level of a host target name; nothing for other names.
std::optional<HostIsaLevel> parseHostTarget(std::string_view target);

/// AVX-512 BF16 (vdpbf16ps, vcvtne2ps2bf16): cpuid leaf 7 subleaf 1 EAX
/// bit 5, with the AVX-512 register state.
bool hostSupportsAvx512Bf16();

/// AMX with bf16 tiles (tdpbf16ps: Sapphire Rapids and later), the OS
/// saving the tile state, and this process allowed to use it (on Linux the
/// first call asks, arch_prctl ARCH_REQ_XCOMP_PERM; the answer is kept).
bool hostSupportsAmxBf16();

/// What a kernel's target adds to its ISA level: a matmul kernel compiled
/// with CompileOptions::matmulPrecision bf16 is `host-x86-64-v4+avx512bf16`
/// (x86-64-v4 does not include AVX-512 BF16).
inline constexpr std::string_view kAvx512Bf16Suffix = "+avx512bf16";
/// A bf16 matmul on AMX tiles (CompileOptions::amxTiles) is
/// `host-x86-64-v4+avx512bf16+amxbf16`.
inline constexpr std::string_view kAmxBf16Suffix = "+amxbf16";

struct HostKernelIsa {
  HostIsaLevel level;
  bool avx512Bf16 = false;
  bool amxBf16 = false;
};
/// A kernel target: a host target name, optionally with kAvx512Bf16Suffix,
/// then optionally kAmxBf16Suffix (only after kAvx512Bf16Suffix).
std::optional<HostKernelIsa> parseHostKernelTarget(std::string_view target);
/// Whether this CPU runs a kernel of that target.
bool hostSupports(const HostKernelIsa &isa);

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_HOSTISA_H
