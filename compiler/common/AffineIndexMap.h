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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace fuse {
namespace codegen {

/// operand position = offset + sum over result dims d of
/// coord_d(position) * multipliers[d].
struct AffineIndexMap {
  mlir::SmallVector<int64_t> resultShape;
  mlir::SmallVector<int64_t> multipliers;
  int64_t offset = 0;
  /// In a fusion emitted for runtime dims: its kRuntimeDimsAttr (each dim's
  /// representative value), whose sizes applyMap reads from the kernel's
  /// dims array (runtimeSize).
  mlir::DictionaryAttr runtimeDims;
  /// With runtimeDims: the host kernel being built, whose dims array
  /// applyMap reads (RegionEmitterBase::mapIndex sets it).
  mlir::func::FuncOp kernel;
};

/// The position of the dims array among a host kernel's buffers
/// (KernelAbi.h, "Runtime dims").
inline constexpr int32_t kDimsArrayBuffer = -2;

/// Entry `index` of host kernel `func`'s dims array,
/// `((int64_t *)buffers[-2])[index]`, loaded once at the start of the
/// function (so that it dominates every use, and the loop bodies being
/// built need not be in the function yet).
inline mlir::Value loadRuntimeDim(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::func::FuncOp func, unsigned index) {
  mlir::Block &entry = func.getBody().front();
  mlir::Value buffers = func.getArgument(0);
  auto isGep = [](mlir::Operation &op, mlir::Value base, int32_t at) {
    auto gep = mlir::dyn_cast<mlir::LLVM::GEPOp>(op);
    return gep && gep.getBase() == base &&
           gep.getRawConstantIndices() == llvm::ArrayRef<int32_t>{at} &&
           gep->hasOneUse() &&
           mlir::isa<mlir::LLVM::LoadOp>(*gep->user_begin());
  };
  mlir::Value array;
  for (mlir::Operation &op : entry)
    if (isGep(op, buffers, kDimsArrayBuffer))
      array = op.user_begin()->getResult(0);
  if (array)
    for (mlir::Operation &op : entry)
      if (isGep(op, array, int32_t(index)))
        return op.user_begin()->getResult(0);
  mlir::OpBuilder::InsertionGuard guard(b);
  auto ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());
  if (!array) {
    b.setInsertionPointToStart(&entry);
    mlir::Value slot = mlir::LLVM::GEPOp::create(
        b, loc, ptr, ptr, buffers,
        llvm::ArrayRef<mlir::LLVM::GEPArg>{kDimsArrayBuffer});
    array = mlir::LLVM::LoadOp::create(b, loc, ptr, slot, 8);
  }
  b.setInsertionPointAfter(array.getDefiningOp());
  mlir::Value at = mlir::LLVM::GEPOp::create(
      b, loc, ptr, b.getI64Type(), array,
      llvm::ArrayRef<mlir::LLVM::GEPArg>{int32_t(index)});
  return mlir::LLVM::LoadOp::create(b, loc, b.getI64Type(), at, 8);
}

/// The host kernel function whose entry block defines `pointer` (a buffer's
/// pointer that the kernel loaded); null elsewhere (a GPU kernel).
inline mlir::func::FuncOp hostKernelOf(mlir::Value pointer) {
  mlir::Operation *def = pointer ? pointer.getDefiningOp() : nullptr;
  auto func = def ? def->getParentOfType<mlir::func::FuncOp>() : nullptr;
  if (!func || func.getNumArguments() != 3 ||
      !mlir::isa<mlir::LLVM::LLVMPointerType>(func.getArgument(0).getType()))
    return nullptr;
  return func;
}

/// Whether host kernel `func` reads its dims array.
inline bool readsDimsArray(mlir::func::FuncOp func) {
  bool reads = false;
  func.walk([&](mlir::LLVM::GEPOp gep) {
    if (gep.getBase() != func.getArgument(0))
      return;
    for (int32_t index : gep.getRawConstantIndices())
      reads |= index == kDimsArrayBuffer;
  });
  return reads;
}

/// The index in `dims` (kRuntimeDimsAttr, sorted by name) of the dim whose
/// representative value is `value`, if any.
inline std::optional<unsigned> runtimeDimIndex(mlir::DictionaryAttr dims,
                                               int64_t value) {
  if (!dims)
    return std::nullopt;
  for (auto [i, entry] : llvm::enumerate(dims))
    if (mlir::cast<mlir::IntegerAttr>(entry.getValue()).getInt() == value)
      return unsigned(i);
  return std::nullopt;
}

/// `value`, a size or stride of a fusion bound to representative values of
/// its dims (`dims`), as a constant times the dims it is a product of, the
/// dims read from the kernel's dims array: the same code at every value of
/// the dims. A value that no dim divides (or outside a host kernel) is a
/// constant, which the compiler's second emission at other values then
/// finds changed where it was a dim's after all.
inline mlir::Value runtimeSize(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::DictionaryAttr dims,
                               mlir::func::FuncOp func, int64_t value) {
  auto constant = [&](int64_t v) -> mlir::Value {
    return mlir::arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  if (!dims || value == 0 || !func)
    return constant(value);
  mlir::Value product;
  int64_t rest = value;
  for (auto [i, entry] : llvm::enumerate(dims)) {
    int64_t dim = mlir::cast<mlir::IntegerAttr>(entry.getValue()).getInt();
    while (dim > 1 && rest % dim == 0) {
      rest /= dim;
      mlir::Value loaded = loadRuntimeDim(b, loc, func, unsigned(i));
      product = product ? mlir::Value(mlir::arith::MulIOp::create(
                              b, loc, product, loaded))
                        : loaded;
    }
  }
  if (!product)
    return constant(value);
  if (rest != 1)
    product = mlir::arith::MulIOp::create(b, loc, product, constant(rest));
  return product;
}

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
  merged.runtimeDims =
      fusion->getAttrOfType<mlir::DictionaryAttr>(kRuntimeDimsAttr);
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
  auto c = [&](int64_t v) -> mlir::Value {
    if (!map.runtimeDims)
      return isVector ? s.constantVector(i64Type, v) : s.i64(v);
    mlir::Value size = runtimeSize(b, loc, map.runtimeDims, map.kernel, v);
    if (!isVector)
      return size;
    return mlir::vector::BroadcastOp::create(
        b, loc,
        mlir::VectorType::get(
            mlir::cast<mlir::VectorType>(x.getType()).getShape(), i64Type),
        size);
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
