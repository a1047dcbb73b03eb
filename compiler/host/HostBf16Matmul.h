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
// Measured on the 2-core Xeon (Sapphire Rapids class, AMX and AVX-512 BF16;
// 2026-12-05, loaded machine, fuse-run --profile 20, 3 alternating rounds):
// relu(x@W+b) 512x768x3072 f32 41-45 ms, bf16 53-58; 1024^3 f32 25-32,
// bf16 44-57. A loop of 24 independent vdpbf16ps zmm takes 4-5x the time of
// one of vfmadd231ps zmm here (twice the products each): about 2.4x fewer
// products per second, so on this CPU the mode costs speed and buys none.
// OpenVINO's bf16 uses AMX (tdpbf16ps); B's panels here (pairs of k
// interleaved per column) are the layout an AMX B tile takes, so a tile
// kernel could reuse this pack.
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
