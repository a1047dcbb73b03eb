//===- HostBf16Matmul.h - Weight matmuls in bf16 products --------*- C++
//-*-===//
//
// CompileOptions::matmulPrecision bf16 (`--matmul-precision=bf16`): a matmul
// whose B is a bound weight (HostMatmulEmitter's packsOncePerBinding) is two
// kernels. The pack kernel (once per binding) rounds B to bf16 into panels
// of k pairs: per strip of columns, row p holds (B[2p, n], B[2p+1, n]) for
// each column n, the layout vdpbf16ps multiplies; an odd K gets a zero row.
// The matmul kernel first rounds the A rows of its iterations to bf16 into
// the scratch (each element once per run), then runs kRowBlock x 4-vector
// tiles whose k loop is one vdpbf16ps per accumulator per pair of k (a
// broadcast pair of A against a vector of B's pairs), sums in f32, and the
// f32 emitter's epilogue on the sums. Other matmuls stay f32.
//
// With CompileOptions::amxTiles (kMatmulAmxAttr) the matmul kernel is AMX
// tiles instead: K padded to 32 with zeros (in the pack and in A's rows),
// strips of 128 columns, row blocks of two 16-row A tiles (one of M rows
// when M <= 16), and per pair of column vectors a 2 x 2 grid of C tiles
// summed by tdpbf16ps (16 x 16 sums of 32 products each), stored to a stack
// buffer and handed to the same f32 epilogue. The pack's layout is an AMX B
// tile's: 16 pairs of k x 16 columns, 64 bytes a row. The kernel is tagged
// `+avx512bf16+amxbf16`; the host runtime asks the OS for the tile state
// (arch_prctl) before it runs one.
//
// Measured on the 2-core Xeon (Sapphire Rapids class; 2026-12-05, loaded
// machine, fuse-run --profile): relu(x@W+b) 1024^3 f32 17.8 ms, vdpbf16ps
// 35.2, AMX 2.4-2.9; 512x768x3072 f32 30.5, vdpbf16ps 41.1, AMX 3.7-3.9.
// A loop of vdpbf16ps zmm is about 2.4x slower per product than one of
// vfmadd231ps here, so without AMX the mode costs speed.
//
// Internal to compiler/host.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_HOST_HOSTBF16MATMUL_H
#define FUSE_COMPILER_HOST_HOSTBF16MATMUL_H

#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"

namespace fuse::host {

/// Whether the driver asked for bf16 matmuls in `fusion`
/// (kMatmulPrecisionAttr).
bool wantsBf16Matmul(fd::FusionOp fusion);

/// The static sizes of the matmul, batch dims flattened.
struct Bf16MatmulShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool lhsBatched = false, rhsBatched = false;
  bool transposeA = false, transposeB = false;
};

/// The f32 emitter's epilogue on a tile's sums: the kernel's input pointers
/// and outputs, the batch, the tile's rows (clamped to M - 1) and columns
/// (one per vector), the width, the last vector's valid lanes (0: all) and
/// the rows x vectors sums.
using MatmulTileEpilogue = llvm::function_ref<mlir::LogicalResult(
    mlir::OpBuilder &b, const mlir::DenseMap<mlir::Value, mlir::Value> &,
    mlir::ArrayRef<mlir::Value> outputs, mlir::Value batch,
    mlir::ArrayRef<mlir::Value> rows, mlir::ArrayRef<mlir::Value> columns,
    unsigned width, unsigned valid, mlir::ArrayRef<mlir::Value> sums)>;

/// The pack and matmul kernels of `matmul` (f32 operands and result, B a
/// bound weight, `width` 16) in bf16, `numResults` yielded values stored by
/// `epilogue`.
mlir::FailureOr<FusionKernels>
emitHostBf16Matmul(fd::FusionOp fusion, fd::MatmulOp matmul,
                   mlir::ModuleOp module, llvm::StringRef prefix,
                   unsigned width, const Bf16MatmulShape &shape,
                   unsigned numResults, MatmulTileEpilogue epilogue);

} // namespace fuse::host

#endif // FUSE_COMPILER_HOST_HOSTBF16MATMUL_H
