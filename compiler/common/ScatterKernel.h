//===- ScatterKernel.h - What scatter kernels read --------------*- C++ -*-===//
//
// A scatter kernel (HostScatterEmitter.cpp, GpuScatterEmitter.cpp) computes
// one fuse.scatter and yields it. Its data is viewed as [rows, inner] and its
// updates as [count, inner]; both targets check that shape and read those
// sizes here, then lay the loops out their own way.
//
// Internal to compiler/: it includes MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_COMMON_SCATTERKERNEL_H
#define FUSE_COMPILER_COMMON_SCATTERKERNEL_H

#include "dialect/FuseOps.h"

#include <cstdint>
#include <string>

namespace fuse::codegen {

/// A scatter kernel's one scatter and its sizes: the data's rows (its first
/// dim), the elements of a row (`inner`) and the updates' rows (`count`, the
/// indices' elements); the kernel's name (`<prefix>_scatter`).
struct ScatterKernel {
  mlir::fuse::ScatterOp scatter;
  int64_t rows = 0, inner = 1, count = 1;
  std::string name;
};

/// The scatter of `fusion` and the kernel named from `prefix`, or an error on
/// the fusion unless it computes exactly one fuse.scatter and yields it.
mlir::FailureOr<ScatterKernel> scatterKernel(mlir::fuse::FusionOp fusion,
                                             llvm::StringRef prefix);

} // namespace fuse::codegen

#endif // FUSE_COMPILER_COMMON_SCATTERKERNEL_H
