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

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_HOSTISA_H
