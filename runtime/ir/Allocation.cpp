//===- Allocation.cpp - Asking for memory a user's input sizes ------------===//

#include "runtime/ir/Allocation.h"

#include <algorithm>
#include <cstdlib>
#include <sys/resource.h>
#include <sys/sysinfo.h>

namespace fuse {

// Called through a volatile pointer: a compiler may otherwise drop a malloc
// whose result is only freed, and assume it succeeded.
static void *(*volatile tryMalloc)(std::size_t) = std::malloc;

/// More than a process's address space (47 bits on x86-64 and AArch64):
/// refused without asking malloc, which under AddressSanitizer aborts on a
/// size it cannot serve.
static constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t(1) << 47;

Status checkAllocatable(std::uint64_t bytes, const std::string &what) {
  auto cannot = [&] {
    return Status::error("cannot allocate " + std::to_string(bytes) +
                         " bytes for " + what);
  };
  if (bytes == 0)
    return Status::success();
  struct rlimit limit;
  if (bytes >= kAddressSpaceBytes ||
      (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
       bytes >= std::uint64_t(limit.rlim_cur)))
    return cannot();
  void *probe = tryMalloc(std::size_t(bytes));
  if (!probe)
    return cannot();
  std::free(probe);
  return Status::success();
}

Status checkFitsInMemory(std::uint64_t bytes, const std::string &what) {
  std::uint64_t room = kAddressSpaceBytes;
  const char *bound = "the address space";
  struct sysinfo info;
  if (::sysinfo(&info) == 0) {
    std::uint64_t memory =
        (std::uint64_t(info.totalram) + std::uint64_t(info.totalswap)) *
        std::max<std::uint64_t>(info.mem_unit, 1);
    if (memory < room) {
      room = memory;
      bound = "this machine's memory and swap";
    }
  }
  struct rlimit limit;
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      std::uint64_t(limit.rlim_cur) < room) {
    room = std::uint64_t(limit.rlim_cur);
    bound = "the address space limit (ulimit -v)";
  }
  if (bytes <= room)
    return Status::success();
  return Status::error(what + " needs " + std::to_string(bytes) +
                       " bytes, more than " + bound + " (" +
                       std::to_string(room) + " bytes)");
}

} // namespace fuse
