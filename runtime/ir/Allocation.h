//===- Allocation.h - Asking for memory a user's input sizes ----*- C++ -*-===//
//
// A size that comes from a user's file or model (a tensor's shape, a file's
// length) may be more than the process can get. Where it is allocated,
// checkAllocatable asks malloc first, which fails softly, so that the answer
// is an error naming what was asked for instead of a crash: in a tool that
// runs under LLVM's InitLLVM a failed operator new never throws, its
// new-handler prints "LLVM ERROR: out of memory" and aborts.
//
// The answer holds for that moment only: it catches what cannot be served at
// all (more than the address space limit, or than memory and swap), not what
// later allocations together exhaust. Plain C++ only: the runtime never
// links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_ALLOCATION_H
#define FUSE_RUNTIME_IR_ALLOCATION_H

#include "runtime/ir/Status.h"

#include <cstdint>
#include <string>

namespace fuse {

/// Success if `bytes` can be allocated now; else "cannot allocate N bytes
/// for `what`".
Status checkAllocatable(std::uint64_t bytes, const std::string &what);

/// Success if `bytes`, held together, fit in the machine's memory and swap
/// (and under the address space limit); else "`what` needs N bytes, more
/// than ...". For a sum of allocations that each pass checkAllocatable:
/// Linux grants each one (it overcommits), and the process is killed when
/// their pages are touched.
Status checkFitsInMemory(std::uint64_t bytes, const std::string &what);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_ALLOCATION_H
