//===- Allocation.cpp - Asking for memory a user's input sizes ------------===//

#include "runtime/ir/Allocation.h"

#include <cstdlib>
#include <sys/resource.h>

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

} // namespace fuse
