//===- FoldMatmulTransposes.cpp - Matmul operands through their flags ----===//
//
// matmul(A, transpose(X)) with the last two dims swapped is matmul(A, X)
// with transpose_b flipped. A scale between the transpose and the matmul (a
// splat constant, as exported attention scales K) moves before the
// transpose first. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSEFOLDMATMULTRANSPOSES
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// X's value as `transpose` reads it with its last two dims swapped:
/// transpose(X, P) is that value transposed by swapping its last two dims.
/// Only where P puts X's innermost dim second to last (the matmul would
/// read X's contiguous rows across its columns); null otherwise. X itself
/// where the rest of P keeps X's dims in place, else a new transpose of X
/// created before `transpose` (which stands for it in the plan: where the
/// old transpose has other users, both carry its fuse.op_index).
Value unswapped(OpBuilder &b, TransposeOp transpose) {
  SmallVector<int64_t> permutation(transpose.getPermutation());
  const int64_t rank = permutation.size();
  if (rank < 2 || permutation[rank - 2] != rank - 1)
    return Value();
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  Value x = transpose.getOperand();
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, rank)))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(transpose);
  auto moved = TransposeOp::create(b, transpose.getLoc(),
                                   permutedType(type, permutation), x,
                                   b.getDenseI64ArrayAttr(permutation));
  // It stands for the old transpose in the plan (fuse.op_index).
  moved->setDiscardableAttrs(transpose->getDiscardableAttrDictionary());
  return moved;
}

/// The splat constant `v` is, or null.
ConstantOp splatConstant(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return nullptr;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat() ? constant : nullptr;
}

/// How B operand `v` reads a transpose that swaps X's last two dims
/// (unswapped() reads X the other way): `v` is the transpose itself, or a
/// binary op (used only there) of the transpose (used only by it) and a
/// splat: a constant of static shape, or a rank-0 constant broadcast (used
/// only by it).
struct FoldableRhs {
  TransposeOp transpose;
  /// The binary op, null where `v` is the transpose; the transpose's side.
  Operation *op = nullptr;
  unsigned side = 0;
  ConstantOp constant, scalar;
  BroadcastOp spread;
};

/// Whether the transpose swaps X's last two dims (unswapped() reads X).
bool swapsLastDims(TransposeOp transpose) {
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  const int64_t rank = permutation.size();
  return rank >= 2 && permutation[rank - 2] == rank - 1;
}

std::optional<FoldableRhs> foldableRhs(Value v) {
  if (auto transpose = v.getDefiningOp<TransposeOp>()) {
    if (!swapsLastDims(transpose))
      return std::nullopt;
    return FoldableRhs{transpose};
  }
  Operation *op = v.getDefiningOp();
  if (!op || !v.hasOneUse() || !isa<MulOp, DivOp, AddOp, SubOp>(op))
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    Value inner = op->getOperand(side);
    Value scale = op->getOperand(1 - side);
    ConstantOp constant = splatConstant(scale);
    // A splat of symbolic shape is a rank-0 constant broadcast (issue 22).
    auto spread = scale.getDefiningOp<BroadcastOp>();
    ConstantOp scalar = spread && spread.getDims().empty() && scale.hasOneUse()
                            ? splatConstant(spread.getOperand())
                            : nullptr;
    auto transpose = inner.getDefiningOp<TransposeOp>();
    if ((!constant && !scalar) || !transpose || !inner.hasOneUse())
      continue;
    if (constant &&
        !cast<RankedTensorType>(transpose.getType()).hasStaticShape())
      continue;
    if (!swapsLastDims(transpose))
      continue;
    return FoldableRhs{transpose, op, side, constant, scalar, spread};
  }
  return std::nullopt;
}

/// `v` with its last two dims swapped, where foldableRhs() matches it: the
/// unswapped transpose, or the binary op rebuilt on it (leaving the old op
/// and transpose unused). Null otherwise.
Value untransposed(OpBuilder &b, Value v) {
  std::optional<FoldableRhs> match = foldableRhs(v);
  if (!match)
    return Value();
  Value x = unswapped(b, match->transpose);
  if (!match->op)
    return x;
  Operation *op = match->op;
  auto type = cast<RankedTensorType>(x.getType());
  auto resultType = RankedTensorType::get(
      type.getShape(), cast<RankedTensorType>(v.getType()).getElementType(),
      type.getEncoding());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op);
  Operation *splat;
  if (ConstantOp scalar = match->scalar) {
    splat = BroadcastOp::create(
        b, match->spread.getLoc(),
        RankedTensorType::get(
            type.getShape(),
            cast<RankedTensorType>(scalar.getType()).getElementType(),
            type.getEncoding()),
        scalar, b.getDenseI64ArrayAttr({}));
    splat->setDiscardableAttrs(match->spread->getDiscardableAttrDictionary());
  } else {
    ConstantOp constant = match->constant;
    auto constantType = RankedTensorType::get(
        type.getShape(),
        cast<RankedTensorType>(constant.getType()).getElementType());
    splat = ConstantOp::create(
        b, constant.getLoc(),
        cast<DenseElementsAttr>(constant.getValue()).reshape(constantType));
    splat->setDiscardableAttrs(constant->getDiscardableAttrDictionary());
  }
  SmallVector<Value, 2> operands(2);
  operands[match->side] = x;
  operands[1 - match->side] = splat->getResult(0);
  Operation *moved = b.create(op->getLoc(), op->getName().getIdentifier(),
                              operands, TypeRange{resultType}, op->getAttrs());
  return moved->getResult(0);
}

/// `op` when nothing uses it, and then the transposes and constants it
/// used that nothing else uses.
void eraseIfDead(Operation *op) {
  if (!op || !op->use_empty())
    return;
  SmallVector<Operation *, 2> producers;
  for (Value v : op->getOperands())
    if (Operation *producer = v.getDefiningOp();
        producer && isa<TransposeOp, ConstantOp, BroadcastOp>(producer))
      producers.push_back(producer);
  op->erase();
  for (Operation *producer : producers)
    eraseIfDead(producer);
}

struct FoldMatmulTransposesPass
    : public fuse::impl::FuseFoldMatmulTransposesBase<
          FoldMatmulTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
    SmallVector<MatmulOp> matmuls;
    getOperation().walk([&](MatmulOp matmul) {
      if (matmul->getParentOfType<FusionOp>())
        matmuls.push_back(matmul);
    });
    // B only: the attention schedule reads A (Q) without transpose_a, and
    // the kinds of the fusions are already chosen.
    for (MatmulOp matmul : matmuls) {
      OpBuilder b(matmul);
      Value x = untransposed(b, matmul.getRhs());
      if (!x)
        continue;
      Operation *old = matmul.getRhs().getDefiningOp();
      matmul->setOperand(1, x);
      matmul.setTransposeB(!matmul.getTransposeB());
      eraseIfDead(old);
      ++numFolded;
    }
  }
};

} // namespace

Operation *mlir::fuse::transposeFoldedIntoRhs(Value rhs) {
  std::optional<FoldableRhs> match = foldableRhs(rhs);
  return match ? match->transpose.getOperation() : nullptr;
}
