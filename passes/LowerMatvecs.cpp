//===- LowerMatvecs.cpp - Few-row matmuls with B^T as row reductions ------===//
//
// C[m, n] = sum_k A[m, k] B^T[n, k] for a handful of rows m (a classifier at
// batch 1, a decoder step): the matmul schedules vectorize over C's columns
// n, so each vector of B^T is a gather of lanes K elements apart, once per
// k (resnet18's and mobilenet_v2's 1x512x1000 and 1x1280x1000 classifiers
// took 0.35 ms, 10 GB/s). As the sum over k of A[m, k] * B^T[n, k], the rows
// (m, n) of K contiguous elements are a row reduction that reads B^T once,
// a vector at a time (0.37 -> 0.04 ms for 1x1280x1000 plus bias, fuse-run
// --bench on 2 AVX-512 cores); the epilogue follows the reduction as it
// followed the matmul.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSELOWERMATVECS
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// Most rows of C (all batches) lowered: each row reads all of B^T again.
constexpr int64_t kMaxRows = 4;

/// The rewritten value of `matmul`, or null when it is not a few-row
/// matmul with a transposed, unbatched B in f32 or f64.
Value lowerMatvec(OpBuilder &b, MatmulOp matmul) {
  auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(matmul.getRhs().getType());
  auto resultType = cast<RankedTensorType>(matmul.getResult().getType());
  Type element = resultType.getElementType();
  // Lower precisions round each product where a matmul accumulates in f32.
  if (!matmul.getTransposeB() || matmul.getTransposeA() ||
      rhsType.getRank() != 2 || !(element.isF32() || element.isF64()) ||
      !lhsType.hasStaticShape() || !resultType.hasStaticShape())
    return Value();
  const int64_t rows = lhsType.getNumElements() / lhsType.getShape().back();
  const int64_t n = rhsType.getDimSize(0), k = rhsType.getDimSize(1);
  if (rows > kMaxRows || rows == 0 || n == 0 || k == 0)
    return Value();
  // A [..., M, K] and B [N, K] broadcast to [..., M, N, K]: the sums over
  // the last dim are C [..., M, N] as it is (no reshape, which a row
  // reduction kernel would not take in).
  Location loc = matmul.getLoc();
  const int64_t rank = lhsType.getRank();
  SmallVector<int64_t> shape(lhsType.getShape().drop_back());
  shape.append({n, k});
  auto productType = RankedTensorType::get(shape, element);
  SmallVector<int64_t> lhsDims;
  for (int64_t d = 0; d + 1 < rank; ++d)
    lhsDims.push_back(d);
  lhsDims.push_back(rank);
  Value spreadA = BroadcastOp::create(b, loc, productType, matmul.getLhs(),
                                      b.getDenseI64ArrayAttr(lhsDims));
  Value spreadB = BroadcastOp::create(b, loc, productType, matmul.getRhs(),
                                      b.getDenseI64ArrayAttr({rank - 1, rank}));
  Value products = MulOp::create(b, loc, spreadA, spreadB);
  return ReduceOp::create(b, loc, resultType,
                          ReduceKindAttr::get(b.getContext(), ReduceKind::sum),
                          products, b.getDenseI64ArrayAttr({rank}),
                          /*keep_dims=*/nullptr);
}

struct LowerMatvecsPass
    : public fuse::impl::FuseLowerMatvecsBase<LowerMatvecsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
    SmallVector<MatmulOp> matmuls;
    getOperation().walk([&](MatmulOp matmul) { matmuls.push_back(matmul); });
    for (MatmulOp matmul : matmuls) {
      OpBuilder builder(matmul);
      Value lowered = lowerMatvec(builder, matmul);
      if (!lowered)
        continue;
      // The reduce is the matmul's result: it keeps the matmul's discardable
      // attributes (fuse.op_index, by which a plan names its kernel's ops).
      lowered.getDefiningOp()->setDiscardableAttrs(
          matmul->getDiscardableAttrDictionary());
      matmul.getResult().replaceAllUsesWith(lowered);
      matmul.erase();
      ++numLowered;
    }
  }
};

} // namespace
