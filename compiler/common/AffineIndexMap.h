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
#include "mlir/Interfaces/FunctionInterfaces.h"

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
  /// With runtimeDims: the kernel being built, whose dims array (host) or
  /// dims parameters (GPU) applyMap reads (RegionEmitterBase::mapIndex
  /// sets it).
  mlir::FunctionOpInterface kernel;
};

/// The position of the dims array among a host kernel's buffers
/// (KernelAbi.h, "Runtime dims").
inline constexpr int32_t kDimsArrayBuffer = -2;

/// The attribute of a GPU kernel (gpu.func) that takes the dims of its
/// fusion's kRuntimeDimsAttr as i64 parameters by value, in that order
/// (KernelAbi.h, "Runtime dims"): an I64IntegerAttr, the index of its first
/// dims parameter. A host kernel never carries it.
inline constexpr const char *kDimsParameterAttr = "fuse.dims_parameter";

/// Entry `index` of the dims of kernel `func`: on the GPU (a kernel with
/// kDimsParameterAttr) its parameter; on the host its dims array's,
/// `((int64_t *)buffers[-2])[index]`, loaded once at the start of the
/// function (so that it dominates every use, and the loop bodies being
/// built need not be in the function yet).
inline mlir::Value loadRuntimeDim(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::FunctionOpInterface func,
                                  unsigned index) {
  if (auto first = func->getAttrOfType<mlir::IntegerAttr>(kDimsParameterAttr))
    return func.getArgument(unsigned(first.getInt()) + index);
  mlir::Block &entry = func.getFunctionBody().front();
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

/// The kernel that takes dims and whose entry block defines `pointer`: a
/// host kernel function that loaded the buffer's pointer, or a GPU kernel
/// with dims parameters (kDimsParameterAttr) that takes it as a parameter
/// (or computes it from one: its error record's slots); null elsewhere.
inline mlir::FunctionOpInterface dimsKernelOf(mlir::Value pointer) {
  if (!pointer)
    return nullptr;
  mlir::Operation *def = pointer.getDefiningOp();
  mlir::Operation *parent =
      def ? def->getParentOp()
          : mlir::cast<mlir::BlockArgument>(pointer).getOwner()->getParentOp();
  auto kernel = mlir::dyn_cast_or_null<mlir::FunctionOpInterface>(parent);
  if (kernel && kernel->hasAttr(kDimsParameterAttr))
    return kernel;
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

/// The dims (their indices in `dims`, kRuntimeDimsAttr) whose
/// representative values `value` is a product of, a dim as often as it
/// divides, and the constant `rest` left; no dims where none divides.
struct RuntimeFactors {
  mlir::SmallVector<unsigned> dims;
  int64_t rest = 1;
};
inline RuntimeFactors runtimeFactors(mlir::DictionaryAttr dims, int64_t value) {
  RuntimeFactors factors;
  factors.rest = value;
  if (!dims || value == 0)
    return factors;
  for (auto [i, entry] : llvm::enumerate(dims)) {
    int64_t dim = mlir::cast<mlir::IntegerAttr>(entry.getValue()).getInt();
    while (dim > 1 && factors.rest % dim == 0) {
      factors.rest /= dim;
      factors.dims.push_back(unsigned(i));
    }
  }
  return factors;
}

/// The product of `factors`' dims, loaded from kernel `func`'s dims
/// (loadRuntimeDim), times its rest, built at b's insertion point.
inline mlir::Value runtimeProduct(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::FunctionOpInterface func,
                                  const RuntimeFactors &factors) {
  mlir::Value product;
  for (unsigned index : factors.dims) {
    mlir::Value loaded = loadRuntimeDim(b, loc, func, index);
    product =
        product
            ? mlir::Value(mlir::arith::MulIOp::create(b, loc, product, loaded))
            : loaded;
  }
  if (factors.rest != 1)
    product = mlir::arith::MulIOp::create(
        b, loc, product,
        mlir::arith::ConstantOp::create(b, loc,
                                        b.getI64IntegerAttr(factors.rest)));
  return product;
}

/// `value`, a size or stride of a fusion bound to representative values of
/// its dims (`dims`), as a constant times the dims it is a product of, the
/// dims read from the kernel's dims array: the same code at every value of
/// the dims. A value that no dim divides (or outside a host kernel) is a
/// constant, which the compiler's second emission at other values then
/// finds changed where it was a dim's after all.
inline mlir::Value runtimeSize(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::DictionaryAttr dims,
                               mlir::FunctionOpInterface func, int64_t value) {
  RuntimeFactors factors = runtimeFactors(dims, value);
  if (!func || factors.dims.empty())
    return mlir::arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  return runtimeProduct(b, loc, func, factors);
}

/// Positions that a kernel reading its dims array divides by a runtime size
/// are below 2^kRuntimeDivisionBits (bindBundle refuses a tensor of
/// kMaxRuntimeDimsElements elements or more: a vector's lanes past a
/// tensor's end stay below): the quotient is then a multiply and a shift
/// (runtimeDivisor), exact.
inline constexpr int64_t kRuntimeDivisionBits = 31;

/// A runtime size `divisor` (a product of dims, runtimeSize) with the
/// multiplier and shift that divide by it: x / divisor = (x * magic) >>
/// shift for 0 <= x < 2^31. With L = ceil(log2 d) for d = min(max(divisor,
/// 1), 2^31), shift = 31 + L and magic = ceil(2^shift / d): magic * d =
/// 2^shift + e with 0 <= e < d <= 2^L, so x * magic / 2^shift = x / d +
/// x * e / (d * 2^shift), whose second term is below 1 / d (x * e <
/// 2^(31 + L)) and so never reaches the next multiple of 1 / d: the floors
/// agree. magic < 2^32 (d > 2^(L - 1)), so x * magic < 2^63. A divisor of
/// 2^31 or more gives 0, as x / divisor does; 0 (a kernel that runs no
/// iteration) divides as 1. Built once, in the kernel's entry block after
/// the dims it reads, so that a loop never divides by a runtime value (a
/// 64-bit division, scalarized on vectors, 20 to 90 cycles).
struct RuntimeDivisor {
  mlir::Value divisor, magic, shift;
};
inline RuntimeDivisor runtimeDivisor(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::FunctionOpInterface func,
                                     const RuntimeFactors &factors) {
  mlir::OpBuilder::InsertionGuard guard(b);
  mlir::Block &entry = func.getFunctionBody().front();
  // Load the dims first (loadRuntimeDim puts each at the entry's start),
  // then build after the last of them; a GPU kernel's dims are parameters,
  // which the entry's start follows.
  mlir::Operation *last = nullptr;
  bool parameters = false;
  for (unsigned index : factors.dims) {
    mlir::Operation *load = loadRuntimeDim(b, loc, func, index).getDefiningOp();
    parameters |= !load;
    if (load && (!last || last->isBeforeInBlock(load)))
      last = load;
  }
  assert((parameters || (last && last->getBlock() == &entry)) &&
         "a runtime divisor of no dim");
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(&entry);
  auto c = [&](int64_t v) -> mlir::Value {
    return mlir::arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  RuntimeDivisor result;
  result.divisor = runtimeProduct(b, loc, func, factors);
  mlir::Value d = mlir::arith::MinUIOp::create(
      b, loc, mlir::arith::MaxUIOp::create(b, loc, result.divisor, c(1)),
      c(int64_t(1) << kRuntimeDivisionBits));
  mlir::Value log = mlir::arith::SubIOp::create(
      b, loc, c(64),
      mlir::math::CountLeadingZerosOp::create(
          b, loc, mlir::arith::SubIOp::create(b, loc, d, c(1))));
  result.shift =
      mlir::arith::AddIOp::create(b, loc, log, c(kRuntimeDivisionBits));
  mlir::Value power = mlir::arith::ShLIOp::create(b, loc, c(1), result.shift);
  result.magic = mlir::arith::AddIOp::create(
      b, loc,
      mlir::arith::DivUIOp::create(
          b, loc, mlir::arith::SubIOp::create(b, loc, power, c(1)), d),
      c(1));
  return result;
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

/// Builds the terms of applyMap: quotients and remainders by a map's sizes
/// (constants, or runtime sizes divided through a RuntimeDivisor), products
/// and sums, on i64 scalars or vectors of the lowering's width.
class MapArithmetic {
public:
  MapArithmetic(ScalarLowering &s, const AffineIndexMap &map)
      : s(s), b(s.builder()), loc(s.location()), map(map) {}

  /// A size or stride `v` of the map (runtimeSize), of `like`'s type.
  mlir::Value size(int64_t v, mlir::Value like) {
    if (!map.runtimeDims)
      return isVector(like) ? s.constantVector(b.getI64Type(), v) : s.i64(v);
    return splat(runtimeSize(b, loc, map.runtimeDims, map.kernel, v), like);
  }

  mlir::Value divide(mlir::Value x, int64_t v) {
    if (std::optional<RuntimeDivisor> d = divisor(v))
      return quotient(x, *d);
    return mlir::arith::DivUIOp::create(b, loc, x, size(v, x));
  }

  mlir::Value remainder(mlir::Value x, int64_t v) {
    if (std::optional<RuntimeDivisor> d = divisor(v))
      return mlir::arith::SubIOp::create(
          b, loc, x,
          mlir::arith::MulIOp::create(b, loc, quotient(x, *d),
                                      splat(d->divisor, x)));
    return mlir::arith::RemUIOp::create(b, loc, x, size(v, x));
  }

  /// sum over result dims d in [from, to) of ((x / (inners[d] / scale)) %
  /// shape[d]) * multipliers[d], the remainder skipped where x / ... is
  /// below shape[d] (`bound`, x's bound times scale, is inners[d] *
  /// shape[d]); null where no dim contributes.
  mlir::Value terms(mlir::Value x, int64_t from, int64_t to, int64_t scale,
                    int64_t bound, mlir::ArrayRef<int64_t> inners) {
    mlir::Value result;
    for (int64_t d = from; d < to; ++d) {
      if (map.multipliers[d] == 0 || map.resultShape[d] == 1)
        continue;
      mlir::Value coord = x;
      if (inners[d] != scale)
        coord = divide(coord, inners[d] / scale);
      if (inners[d] * map.resultShape[d] != bound)
        coord = remainder(coord, map.resultShape[d]);
      if (map.multipliers[d] != 1)
        coord = mlir::arith::MulIOp::create(b, loc, coord,
                                            size(map.multipliers[d], coord));
      result =
          result
              ? mlir::Value(mlir::arith::AddIOp::create(b, loc, result, coord))
              : coord;
    }
    return result;
  }

  mlir::Value splat(mlir::Value scalar, mlir::Value like) {
    auto vector = mlir::dyn_cast<mlir::VectorType>(like.getType());
    if (!vector || isVector(scalar))
      return scalar;
    return mlir::vector::BroadcastOp::create(
        b, loc, mlir::VectorType::get(vector.getShape(), b.getI64Type()),
        scalar);
  }

  static bool isVector(mlir::Value v) {
    return mlir::isa<mlir::VectorType>(v.getType());
  }

private:
  /// A runtime size's divisor (runtimeDivisor); none for a constant.
  std::optional<RuntimeDivisor> divisor(int64_t v) {
    if (!map.runtimeDims || !map.kernel)
      return std::nullopt;
    RuntimeFactors factors = runtimeFactors(map.runtimeDims, v);
    if (factors.dims.empty())
      return std::nullopt;
    return runtimeDivisor(b, loc, map.kernel, factors);
  }

  mlir::Value quotient(mlir::Value x, const RuntimeDivisor &d) {
    return mlir::arith::ShRUIOp::create(
        b, loc, mlir::arith::MulIOp::create(b, loc, x, splat(d.magic, x)),
        splat(d.shift, x));
  }

  ScalarLowering &s;
  mlir::OpBuilder &b;
  mlir::Location loc;
  const AffineIndexMap &map;
};

/// The product of the map's result dims from each dim on (its inner dims'
/// sizes: a position's coordinate along d is (x / inners[d]) % shape[d]),
/// and the product of all of them.
inline mlir::SmallVector<int64_t> mapInners(const AffineIndexMap &map,
                                            int64_t &total) {
  int64_t rank = int64_t(map.resultShape.size());
  mlir::SmallVector<int64_t> inners(rank, 1);
  total = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    inners[d] = total;
    total *= map.resultShape[d];
  }
  return inners;
}

/// offset + sum_d ((x / inner_d) % shape_d) * multipliers[d], on i64
/// scalars or vectors (of the lowering's width) alike.
inline mlir::Value applyMap(ScalarLowering &s, mlir::Value x,
                            const AffineIndexMap &map) {
  MapArithmetic arithmetic(s, map);
  mlir::OpBuilder &b = s.builder();
  int64_t total;
  mlir::SmallVector<int64_t> inners = mapInners(map, total);
  mlir::Value result =
      arithmetic.terms(x, 0, int64_t(map.resultShape.size()), 1, total, inners);
  if (!result)
    return arithmetic.size(map.offset, x);
  if (map.offset != 0)
    result = mlir::arith::AddIOp::create(b, s.location(), result,
                                         arithmetic.size(map.offset, result));
  return result;
}

/// A map split at `extent` (Index::split): `map`, with the dim that holds
/// the boundary cut in two where the boundary lies inside it (a run of dims
/// that mergedForRuntimeDims merged: [.., M*N] at N is [.., M, N]), and its
/// first dim whose sizes from it on multiply to `extent` (the rank where
/// `extent` is 1 and no dim is left). A position outer * extent + inner with
/// inner < extent then has its coordinates along the dims before `dim` from
/// `outer` alone and along the others from `inner` alone.
struct SplitMap {
  AffineIndexMap map;
  int64_t dim;
};

inline std::optional<SplitMap> splitMapAt(const AffineIndexMap &map,
                                          int64_t extent) {
  int64_t total;
  mlir::SmallVector<int64_t> inners = mapInners(map, total);
  const int64_t rank = int64_t(inners.size());
  for (int64_t d = 0; d < rank; ++d)
    if (inners[d] * map.resultShape[d] == extent)
      return SplitMap{map, d};
  if (extent == 1)
    return SplitMap{map, rank};
  for (int64_t d = 0; d < rank; ++d) {
    int64_t whole = inners[d] * map.resultShape[d];
    if (extent <= inners[d] || extent >= whole || extent % inners[d] != 0 ||
        whole % extent != 0)
      continue;
    const int64_t low = extent / inners[d];
    SplitMap split{map, d + 1};
    AffineIndexMap &m = split.map;
    m.resultShape[d] = map.resultShape[d] / low;
    m.resultShape.insert(m.resultShape.begin() + d + 1, low);
    m.multipliers[d] = map.multipliers[d] * low;
    m.multipliers.insert(m.multipliers.begin() + d + 1, map.multipliers[d]);
    return split;
  }
  return std::nullopt;
}

/// Where the positions a split map gives are themselves split (outer' *
/// extent' + inner', inner' < extent'): its inner dims read a run of
/// extent' consecutive positions (or none: extent' 1), and its outer dims'
/// multipliers and its offset are multiples of extent'. extent', if so.
inline std::optional<int64_t> splitExtentAfter(const SplitMap &split) {
  const AffineIndexMap &map = split.map;
  int64_t run = 1;
  for (int64_t d = int64_t(map.resultShape.size()) - 1; d >= split.dim; --d) {
    if (map.resultShape[d] == 1 || map.multipliers[d] == 0)
      continue;
    if (map.multipliers[d] != run)
      return std::nullopt;
    run *= map.resultShape[d];
  }
  for (int64_t d = 0; d < split.dim; ++d)
    if (map.resultShape[d] != 1 && map.multipliers[d] % run != 0)
      return std::nullopt;
  if (map.offset % run != 0)
    return std::nullopt;
  return run;
}

/// A split map applied at outer * extent + inner: the position (`inner`'s
/// type), and where splitExtentAfter holds, the position's own split
/// (scalars where `inner` is one).
struct SplitPosition {
  mlir::Value position;
  mlir::Value outer, inner;
  int64_t extent = 0;
};

/// applyMap at outer * extent + inner, inner < extent (a row and a column
/// of a matrix that the map reads, splitMapAt finds the dims that split
/// there): the outer dims' terms from `outer` (a scalar, the same for every
/// lane and, in a matmul, every k: the quotients by runtime sizes leave the
/// inner loops), the inner dims' from `inner` (scalar or vector), summed.
inline SplitPosition applySplitMap(ScalarLowering &s, mlir::Value outer,
                                   mlir::Value inner, int64_t extent,
                                   const SplitMap &split) {
  const AffineIndexMap &map = split.map;
  MapArithmetic arithmetic(s, map);
  mlir::OpBuilder &b = s.builder();
  mlir::Location loc = s.location();
  int64_t total;
  mlir::SmallVector<int64_t> inners = mapInners(map, total);
  const int64_t rank = int64_t(map.resultShape.size());
  mlir::Value innerTerms =
      arithmetic.terms(inner, split.dim, rank, 1, extent, inners);
  SplitPosition result;
  if (std::optional<int64_t> after = splitExtentAfter(split)) {
    // The outer terms over extent', from the multipliers over extent'.
    AffineIndexMap reduced = map;
    for (int64_t d = 0; d < split.dim; ++d)
      reduced.multipliers[d] /= *after;
    MapArithmetic outerArithmetic(s, reduced);
    mlir::Value outerTerms =
        outerArithmetic.terms(outer, 0, split.dim, extent, total, inners);
    result.outer = outerTerms;
    if (map.offset != 0 || !outerTerms) {
      mlir::Value offset = outerArithmetic.size(map.offset / *after, outer);
      result.outer = outerTerms ? mlir::Value(mlir::arith::AddIOp::create(
                                      b, loc, outerTerms, offset))
                                : offset;
    }
    result.inner = innerTerms ? innerTerms : arithmetic.size(0, inner);
    result.extent = *after;
    mlir::Value base = result.outer;
    if (*after != 1)
      base = mlir::arith::MulIOp::create(b, loc, base,
                                         arithmetic.size(*after, base));
    result.position = mlir::arith::AddIOp::create(
        b, loc, arithmetic.splat(base, result.inner), result.inner);
    return result;
  }
  mlir::Value outerTerms =
      arithmetic.terms(outer, 0, split.dim, extent, total, inners);
  mlir::Value position = innerTerms;
  if (outerTerms)
    position =
        position
            ? mlir::Value(mlir::arith::AddIOp::create(
                  b, loc, arithmetic.splat(outerTerms, position), position))
            : arithmetic.splat(outerTerms, inner);
  if (!position)
    position = arithmetic.size(map.offset, inner);
  else if (map.offset != 0)
    position = mlir::arith::AddIOp::create(
        b, loc, position, arithmetic.size(map.offset, position));
  result.position = position;
  return result;
}

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_AFFINEINDEXMAP_H
