//===- HostIsa.cpp - Which x86-64 ISA levels this CPU runs ----------------===//

#include "runtime/device/HostIsa.h"

#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif

namespace fuse::device {

#if defined(__x86_64__)
namespace {
struct CpuidBits {
  uint32_t leaf1Ecx = 0, leaf7Ebx = 0, leaf7Edx = 0, leaf7Sub1Eax = 0,
           extEcx = 0;
  uint64_t xcr0 = 0;
};

CpuidBits readCpuid() {
  CpuidBits bits;
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    bits.leaf1Ecx = ecx;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    bits.leaf7Ebx = ebx;
    bits.leaf7Edx = edx;
  }
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx))
    bits.leaf7Sub1Eax = eax;
  if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx))
    bits.extEcx = ecx;
  // The OS must save the vector registers across context switches, or
  // using them corrupts state even where cpuid lists them.
  constexpr uint32_t osxsave = 1u << 27;
  if (bits.leaf1Ecx & osxsave) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    bits.xcr0 = (uint64_t(hi) << 32) | lo;
  }
  return bits;
}

bool all(uint64_t value, uint64_t mask) { return (value & mask) == mask; }

const CpuidBits &cpuidBits() {
  static const CpuidBits bits = readCpuid();
  return bits;
}
} // namespace

bool hostSupportsAvx512Bf16() {
  // Leaf 7 subleaf 1 EAX: AVX512_BF16 5.
  return hostSupports(HostIsaLevel::X86_64_V4) &&
         all(cpuidBits().leaf7Sub1Eax, 1u << 5);
}

/// Linux keeps AMX's tile data (XTILEDATA, XCR0 bit 18) off for a process
/// until it asks: arch_prctl(ARCH_REQ_XCOMP_PERM, 18), once, for all its
/// threads. Without it the first tile instruction raises SIGILL.
static bool requestAmxPermission() {
#if defined(__linux__)
  constexpr long kReqXcompPerm = 0x1023;
  constexpr long kXtileData = 18;
  static const bool granted =
      syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
  return granted;
#else
  return false;
#endif
}

bool hostSupportsAmxBf16() {
  // Leaf 7 EDX: AMX-BF16 22, AMX-TILE 24. XCR0: XTILECFG 17, XTILEDATA 18.
  return hostSupportsAvx512Bf16() &&
         all(cpuidBits().leaf7Edx, (1u << 22) | (1u << 24)) &&
         all(cpuidBits().xcr0, (uint64_t(1) << 17) | (uint64_t(1) << 18)) &&
         requestAmxPermission();
}

bool hostSupports(HostIsaLevel level) {
  const CpuidBits &bits = cpuidBits();
  // Leaf 1 ECX: SSE3 0, SSSE3 9, CX16 13, SSE4.1 19, SSE4.2 20, POPCNT 23.
  // Extended ECX: LAHF/SAHF 0.
  bool v2 = all(bits.leaf1Ecx, (1u << 0) | (1u << 9) | (1u << 13) | (1u << 19) |
                                   (1u << 20) | (1u << 23)) &&
            all(bits.extEcx, 1u << 0);
  if (level == HostIsaLevel::X86_64_V2)
    return v2;
  // Leaf 1 ECX: FMA 12, MOVBE 22, OSXSAVE 27, AVX 28, F16C 29. Leaf 7 EBX:
  // BMI1 3, AVX2 5, BMI2 8. Extended ECX: LZCNT 5. XCR0: SSE and AVX state.
  bool v3 = v2 &&
            all(bits.leaf1Ecx, (1u << 12) | (1u << 22) | (1u << 27) |
                                   (1u << 28) | (1u << 29)) &&
            all(bits.leaf7Ebx, (1u << 3) | (1u << 5) | (1u << 8)) &&
            all(bits.extEcx, 1u << 5) && all(bits.xcr0, 0x6);
  if (level == HostIsaLevel::X86_64_V3)
    return v3;
  // Leaf 7 EBX: AVX512F 16, DQ 17, CD 28, BW 30, VL 31. XCR0: opmask and
  // ZMM state.
  return v3 &&
         all(bits.leaf7Ebx,
             (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31)) &&
         all(bits.xcr0, 0xe6);
}
#else
bool hostSupports(HostIsaLevel) { return false; }
bool hostSupportsAvx512Bf16() { return false; }
bool hostSupportsAmxBf16() { return false; }
#endif

std::optional<HostIsaLevel> bestHostIsaLevel() {
  for (HostIsaLevel level : {HostIsaLevel::X86_64_V4, HostIsaLevel::X86_64_V3,
                             HostIsaLevel::X86_64_V2})
    if (hostSupports(level))
      return level;
  return std::nullopt;
}

std::string hostTargetName(HostIsaLevel level) {
  switch (level) {
  case HostIsaLevel::X86_64_V2:
    return "host-x86-64-v2";
  case HostIsaLevel::X86_64_V3:
    return "host-x86-64-v3";
  case HostIsaLevel::X86_64_V4:
    return "host-x86-64-v4";
  }
  return "host";
}

std::optional<HostIsaLevel> parseHostTarget(std::string_view target) {
  for (HostIsaLevel level : {HostIsaLevel::X86_64_V2, HostIsaLevel::X86_64_V3,
                             HostIsaLevel::X86_64_V4})
    if (target == hostTargetName(level))
      return level;
  return std::nullopt;
}

std::optional<HostKernelIsa> parseHostKernelTarget(std::string_view target) {
  HostKernelIsa isa{HostIsaLevel::X86_64_V2};
  if (target.ends_with(kAmxBf16Suffix)) {
    target.remove_suffix(kAmxBf16Suffix.size());
    isa.amxBf16 = true;
    if (!target.ends_with(kAvx512Bf16Suffix))
      return std::nullopt;
  }
  if (target.ends_with(kAvx512Bf16Suffix)) {
    target.remove_suffix(kAvx512Bf16Suffix.size());
    isa.avx512Bf16 = true;
  }
  std::optional<HostIsaLevel> level = parseHostTarget(target);
  if (!level || (isa.avx512Bf16 && *level != HostIsaLevel::X86_64_V4))
    return std::nullopt;
  isa.level = *level;
  return isa;
}

bool hostSupports(const HostKernelIsa &isa) {
  return hostSupports(isa.level) &&
         (!isa.avx512Bf16 || hostSupportsAvx512Bf16()) &&
         (!isa.amxBf16 || hostSupportsAmxBf16());
}

} // namespace fuse::device
