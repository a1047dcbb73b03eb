//===- AffineIndexMap.h - An index map's position arithmetic -*- C++ -*-===//
//
// Broadcast, transpose and slice read their operand at a position that is an
// affine function of the result element's coordinates. The host and GPU
// region emitters both map indices through it; what they make of a
// contiguous index (blocks, alignment) stays with each.
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_AFFINEINDEXMAP_H
#define FUSE_COMPILER_AFFINEINDEXMAP_H

#include "compiler/common/KernelPlan.h"
#include "compiler/common/ScalarLowering.h"

namespace fuse {
namespace codegen {

/// operand position = offset + sum over result dims d of
/// coord_d(position) * multipliers[d].
struct AffineIndexMap {
  mlir::SmallVector<int64_t> resultShape;
  mlir::SmallVector<int64_t> multipliers;
  int64_t offset = 0;
};

inline mlir::SmallVector<int64_t>
rowMajorStrides(mlir::ArrayRef<int64_t> shape) {
  mlir::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// In a fusion emitted for runtime dims (kRuntimeDimsAttr), `map` with each
/// run of adjacent result dims that the operand reads contiguously (a dim's
/// multiplier the next one's times its size) merged into one: the same
/// positions, with no quotient or remainder by a size within the run.
/// Elsewhere `map` as it is.
inline AffineIndexMap mergedForRuntimeDims(mlir::Operation *op,
                                           AffineIndexMap map) {
  auto fusion = op->getParentOfType<fd::FusionOp>();
  if (!fusion || !fusion->hasAttr(kRuntimeDimsAttr))
    return map;
  AffineIndexMap merged;
  merged.offset = map.offset;
  for (size_t d = 0; d < map.resultShape.size(); ++d) {
    if (!merged.resultShape.empty() &&
        merged.multipliers.back() == map.multipliers[d] * map.resultShape[d]) {
      merged.resultShape.back() *= map.resultShape[d];
      merged.multipliers.back() = map.multipliers[d];
      continue;
    }
    merged.resultShape.push_back(map.resultShape[d]);
    merged.multipliers.push_back(map.multipliers[d]);
  }
  return merged;
}

inline AffineIndexMap broadcastMap(fd::BroadcastOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  map.multipliers.assign(map.resultShape.size(), 0);
  mlir::ArrayRef<int64_t> operandShape = shapeOf(op.getOperand());
  mlir::SmallVector<int64_t> strides = rowMajorStrides(operandShape);
  for (auto [i, d] : llvm::enumerate(op.getDims()))
    if (operandShape[i] != 1)
      map.multipliers[d] = strides[i];
  return mergedForRuntimeDims(op, std::move(map));
}

inline AffineIndexMap transposeMap(fd::TransposeOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  mlir::SmallVector<int64_t> strides =
      rowMajorStrides(shapeOf(op.getOperand()));
  for (int64_t source : op.getPermutation())
    map.multipliers.push_back(strides[source]);
  return mergedForRuntimeDims(op, std::move(map));
}

inline AffineIndexMap sliceMap(fd::SliceOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  mlir::SmallVector<int64_t> strides =
      rowMajorStrides(shapeOf(op.getOperand()));
  for (size_t d = 0; d < strides.size(); ++d) {
    map.multipliers.push_back(op.getStrides()[d] * strides[d]);
    map.offset += op.getOffsets()[d] * strides[d];
  }
  return mergedForRuntimeDims(op, std::move(map));
}

/// offset + sum_d ((x / inner_d) % shape_d) * multipliers[d], on i64
/// scalars or vectors (of the lowering's width) alike.
inline mlir::Value applyMap(ScalarLowering &s, mlir::Value x,
                            const AffineIndexMap &map) {
  mlir::OpBuilder &b = s.builder();
  mlir::Location loc = s.location();
  mlir::Type i64Type = b.getI64Type();
  bool isVector = mlir::isa<mlir::VectorType>(x.getType());
  auto c = [&](int64_t v) {
    return isVector ? s.constantVector(i64Type, v) : s.i64(v);
  };
  mlir::Value result;
  int64_t inner = 1;
  int64_t rank = int64_t(map.resultShape.size());
  mlir::SmallVector<int64_t> inners(rank, 1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    inners[d] = inner;
    inner *= map.resultShape[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (map.multipliers[d] == 0 || map.resultShape[d] == 1)
      continue;
    mlir::Value coord = x;
    if (inners[d] != 1)
      coord = mlir::arith::DivUIOp::create(b, loc, coord, c(inners[d]));
    if (inners[d] * map.resultShape[d] != inner)
      coord =
          mlir::arith::RemUIOp::create(b, loc, coord, c(map.resultShape[d]));
    if (map.multipliers[d] != 1)
      coord = mlir::arith::MulIOp::create(b, loc, coord, c(map.multipliers[d]));
    result =
        result ? mlir::Value(mlir::arith::AddIOp::create(b, loc, result, coord))
               : coord;
  }
  if (!result)
    return c(map.offset);
  if (map.offset != 0)
    result = mlir::arith::AddIOp::create(b, loc, result, c(map.offset));
  return result;
}

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_AFFINEINDEXMAP_H
