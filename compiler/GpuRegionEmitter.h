//===- GpuRegionEmitter.h - Region values at an index, on the GPU -*- C++
//-*-===//
//
// The part of GPU code generation that every schedule shares: a region
// value is emitted "at an index", the flattened position of the element in
// the value's own shape. Elementwise ops pass the index through; broadcast,
// transpose and slice map it to their operand's position through an affine
// map on coordinates; reshape keeps it. An index is one of
//   Contiguous(o): lanes o, o+1, ..., o+W-1 (aligned: o a multiple of W, so
//                  one 128-bit access);
//   Uniform(s):    every lane reads position s;
//   Lanes(v):      a vector of arbitrary positions (a gather).
// Plus the kernel scaffolding: a gpu.func per kernel with bare global
// pointers, grid- and block-stride loops, block reductions.
//
// The emitter follows the host's (HostRegionEmitter.h), adapted to global
// pointers and aligned accesses. Included only by the GPU code generator's
// .cpp files (GpuKernelEmitter.cpp, GpuMatmulEmitter.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_GPUREGIONEMITTER_H
#define FUSE_COMPILER_GPUREGIONEMITTER_H

#include "compiler/GpuKernelEmitter.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace fuse::ptx {

using namespace mlir;
namespace fd = mlir::fuse;

/// NVPTX's global address space: loads and stores become `ld.global` /
/// `st.global` instead of generic accesses.
inline constexpr unsigned kGlobalAddressSpace = 1;
inline constexpr unsigned kWarpSize = 32;

inline int64_t numElements(Type type) {
  return cast<RankedTensorType>(type).getNumElements();
}

inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

inline Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// f16 and bf16 are storage types: arithmetic runs in f32. arith, vector and
/// llvm take signless integers only: the ui types compute in iN, and every
/// lowering where signedness matters asks isUnsignedElement of the fuse type.
inline Type computeType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  if (element.isUnsignedInteger())
    return IntegerType::get(element.getContext(),
                            element.getIntOrFloatBitWidth());
  return element;
}

/// The ui types: every op reads their bits unsigned.
inline bool isUnsignedElement(Type element) {
  return element.isUnsignedInteger();
}

/// How an element sits in memory: i1 as a byte, bf16 as its bits, ui as
/// signless iN.
inline Type storageType(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 8);
  if (element.isBF16())
    return IntegerType::get(element.getContext(), 16);
  if (element.isUnsignedInteger())
    return IntegerType::get(element.getContext(),
                            element.getIntOrFloatBitWidth());
  return element;
}

inline unsigned storageBytes(Type element) {
  return std::max(1u, storageType(element).getIntOrFloatBitWidth() / 8);
}

/// operand position = offset + sum over result dims d of
/// coord_d(position) * multipliers[d].
struct AffineIndexMap {
  SmallVector<int64_t> resultShape;
  SmallVector<int64_t> multipliers;
  int64_t offset = 0;
};

inline SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

inline AffineIndexMap broadcastMap(fd::BroadcastOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  map.multipliers.assign(map.resultShape.size(), 0);
  ArrayRef<int64_t> operandShape = shapeOf(op.getOperand());
  SmallVector<int64_t> strides = rowMajorStrides(operandShape);
  for (auto [i, d] : llvm::enumerate(op.getDims()))
    if (operandShape[i] != 1)
      map.multipliers[d] = strides[i];
  return map;
}

inline AffineIndexMap transposeMap(fd::TransposeOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getOperand()));
  for (int64_t source : op.getPermutation())
    map.multipliers.push_back(strides[source]);
  return map;
}

inline AffineIndexMap sliceMap(fd::SliceOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getOperand()));
  for (size_t d = 0; d < strides.size(); ++d) {
    map.multipliers.push_back(op.getStrides()[d] * strides[d]);
    map.offset += op.getOffsets()[d] * strides[d];
  }
  return map;
}

struct Index {
  enum Kind : uint8_t { Contiguous, Uniform, Lanes };
  Kind kind;
  Value value;
  /// Contiguous: the lanes lie inside one aligned block of this many
  /// elements (the vector width in pointwise kernels, the row in row
  /// kernels); a map keeps them contiguous when the block lies inside one
  /// unit-stride run.
  int64_t block = 1;
  /// Contiguous: the first lane's position is a multiple of the vector
  /// width, so the lanes are one aligned 128-bit access.
  bool aligned = false;
};

/// Emits region values at an index, with one vector width (1: scalars).
class RegionEmitter {
public:
  RegionEmitter(OpBuilder &b, Location loc, unsigned width,
                const DenseMap<Value, Value> &argPointers)
      : b(b), loc(loc), width(width), argPointers(argPointers) {}

  /// Values that are already known whatever the index (reduction results).
  void seed(Value regionValue, Value computed) {
    seeded[regionValue] = computed;
  }

  FailureOr<Value> emit(Value value, Index index) {
    if (Value known = seeded.lookup(value)) {
      if (width == 1 || isa<VectorType>(known.getType()))
        return known;
      Value &splat = seededSplats[value];
      if (!splat)
        splat = vector::BroadcastOp::create(
            b, loc, VectorType::get({width}, known.getType()), known);
      return splat;
    }
    auto key = std::make_tuple(value, index.value, unsigned(index.kind));
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    FailureOr<Value> result = emitUncached(value, index);
    if (succeeded(result))
      memo[key] = *result;
    return result;
  }

  /// The value in its storage type, stored at `index` (Contiguous or
  /// Uniform) of `base`.
  void store(Value computed, Type element, Value base, Index index) {
    Value stored = toStorage(computed, element);
    Type storage = storageType(element);
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                        ValueRange{index.value});
    LLVM::StoreOp::create(b, loc, stored, address, alignmentOf(element, index));
  }

  Type vectorOf(Type element) const {
    return width == 1 ? element : VectorType::get({width}, element);
  }

  Value constant(Type element, double value) {
    Type type = vectorOf(element);
    TypedAttr attr;
    if (isa<FloatType>(element))
      attr = b.getFloatAttr(element, value);
    else
      attr = b.getIntegerAttr(element, int64_t(value));
    if (width != 1)
      attr =
          DenseElementsAttr::get(cast<ShapedType>(type), mlir::Attribute(attr));
    return arith::ConstantOp::create(b, loc, type, attr);
  }

  Value i64(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  }

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

private:
  Type pointerType() {
    return LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace);
  }

  /// 16 bytes for a vector access at an aligned contiguous index, the
  /// element's size otherwise (LLVM then splits the access).
  unsigned alignmentOf(Type element, Index index) const {
    if (width != 1 && index.kind == Index::Contiguous && index.aligned)
      return width * storageBytes(element);
    return storageBytes(element);
  }

  FailureOr<Value> emitUncached(Value value, Index index) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return load(argPointers.lookup(arg), elementTypeOf(arg), index);
    Operation *op = value.getDefiningOp();
    if (auto broadcast = dyn_cast<fd::BroadcastOp>(op))
      return emit(broadcast.getOperand(),
                  mapIndex(index, broadcastMap(broadcast)));
    if (auto transpose = dyn_cast<fd::TransposeOp>(op))
      return emit(transpose.getOperand(),
                  mapIndex(index, transposeMap(transpose)));
    if (auto slice = dyn_cast<fd::SliceOp>(op))
      return emit(slice.getOperand(), mapIndex(index, sliceMap(slice)));
    if (auto reshape = dyn_cast<fd::ReshapeOp>(op))
      return emit(reshape.getOperand(), index);
    if (auto constant = dyn_cast<fd::ConstantOp>(op))
      return emitConstant(constant);
    if (auto matmul = dyn_cast<fd::MatmulOp>(op))
      return emitMatmul(matmul, index);
    if (!op->hasTrait<OpTrait::Elementwise>())
      return unsupported(op, "it is not elementwise and not an index map");
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> emitted = emit(operand, index);
      if (failed(emitted))
        return failure();
      operands.push_back(*emitted);
    }
    return emitElementwise(op, operands);
  }

  LogicalResult unsupported(Operation *op, const Twine &why) {
    auto fusion = op->getParentOfType<fd::FusionOp>();
    std::string kind =
        fusion ? stringifyScheduleKind(fusion.getKind()).str() : "unknown";
    return op->emitOpError() << "cannot be generated for the GPU in a " << kind
                             << " kernel: " << why;
  }

  Value toCompute(Value stored, Type element) {
    if (element.isInteger(1))
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, stored,
                                   constant(b.getI8Type(), 0));
    if (element.isF16())
      return arith::ExtFOp::create(b, loc, vectorOf(b.getF32Type()), stored);
    if (element.isBF16()) {
      Value wide =
          arith::ExtUIOp::create(b, loc, vectorOf(b.getI32Type()), stored);
      Value shifted =
          arith::ShLIOp::create(b, loc, wide, constant(b.getI32Type(), 16));
      return arith::BitcastOp::create(b, loc, vectorOf(b.getF32Type()),
                                      shifted);
    }
    return stored;
  }

  Value toStorage(Value computed, Type element) {
    if (element.isInteger(1))
      return arith::ExtUIOp::create(b, loc, vectorOf(b.getI8Type()), computed);
    if (element.isF16())
      return arith::TruncFOp::create(b, loc, vectorOf(element), computed);
    if (element.isBF16()) {
      // Round to nearest even on the bits; NaN stays a quiet NaN.
      Type i32 = b.getI32Type();
      Value bits = arith::BitcastOp::create(b, loc, vectorOf(i32), computed);
      Value lsb = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, bits, constant(i32, 16)),
          constant(i32, 1));
      Value rounded = arith::AddIOp::create(
          b, loc, bits,
          arith::AddIOp::create(b, loc, lsb, constant(i32, 0x7fff)));
      Value high = arith::ShRUIOp::create(b, loc, rounded, constant(i32, 16));
      Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          computed, computed);
      Value chosen =
          arith::SelectOp::create(b, loc, isNaN, constant(i32, 0x7fc0), high);
      return arith::TruncIOp::create(b, loc, vectorOf(b.getI16Type()), chosen);
    }
    return computed;
  }

  Value scalarLoad(Value base, Type element, Value position) {
    Type storage = storageType(element);
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                        ValueRange{position});
    return LLVM::LoadOp::create(b, loc, storage, address,
                                storageBytes(element));
  }

  Value load(Value base, Type element, Index index) {
    Type storage = storageType(element);
    if (width == 1 || index.kind == Index::Uniform) {
      Value scalar = scalarLoad(base, element, index.value);
      if (width != 1)
        scalar = vector::BroadcastOp::create(b, loc, vectorOf(storage), scalar);
      return toCompute(scalar, element);
    }
    if (index.kind == Index::Contiguous) {
      Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                          ValueRange{index.value});
      Value loaded = LLVM::LoadOp::create(b, loc, vectorOf(storage), address,
                                          alignmentOf(element, index));
      return toCompute(loaded, element);
    }
    SmallVector<Value> lanes;
    for (unsigned lane = 0; lane < width; ++lane) {
      Value position = vector::ExtractOp::create(b, loc, index.value,
                                                 ArrayRef<int64_t>{lane});
      lanes.push_back(scalarLoad(base, element, position));
    }
    Value gathered =
        vector::FromElementsOp::create(b, loc, vectorOf(storage), lanes);
    return toCompute(gathered, element);
  }

  /// offset + sum_d ((x / inner_d) % shape_d) * multipliers[d], on i64
  /// scalars or vectors alike.
  Value applyMap(Value x, const AffineIndexMap &map) {
    Type i64Type = b.getI64Type();
    bool isVector = isa<VectorType>(x.getType());
    auto c = [&](int64_t v) {
      return isVector ? constantVector(i64Type, v) : i64(v);
    };
    Value result;
    int64_t inner = 1;
    int64_t rank = int64_t(map.resultShape.size());
    SmallVector<int64_t> inners(rank, 1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      inners[d] = inner;
      inner *= map.resultShape[d];
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (map.multipliers[d] == 0 || map.resultShape[d] == 1)
        continue;
      Value coord = x;
      if (inners[d] != 1)
        coord = arith::DivUIOp::create(b, loc, coord, c(inners[d]));
      if (inners[d] * map.resultShape[d] != inner)
        coord = arith::RemUIOp::create(b, loc, coord, c(map.resultShape[d]));
      if (map.multipliers[d] != 1)
        coord = arith::MulIOp::create(b, loc, coord, c(map.multipliers[d]));
      result =
          result ? Value(arith::AddIOp::create(b, loc, result, coord)) : coord;
    }
    if (!result)
      return c(map.offset);
    if (map.offset != 0)
      result = arith::AddIOp::create(b, loc, result, c(map.offset));
    return result;
  }

  Value constantVector(Type element, int64_t value) {
    auto type = VectorType::get({width}, element);
    return arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getIntegerAttr(element, value)));
  }

  Index mapIndex(Index index, const AffineIndexMap &map) {
    bool allZero =
        llvm::all_of(map.multipliers, [](int64_t m) { return m == 0; });
    if (allZero)
      return {Index::Uniform, i64(map.offset)};
    int64_t block = index.block;
    if (index.kind != Index::Contiguous)
      return {index.kind, applyMap(index.value, map)};
    // Trailing dims (size-1 dims skipped) that keep a unit-stride run, and
    // trailing dims that the map ignores.
    int64_t contiguousRun = 1, uniformRun = 1;
    bool contiguousOpen = true, uniformOpen = true;
    bool outerAligned = map.offset % width == 0;
    for (int64_t d = int64_t(map.resultShape.size()) - 1; d >= 0; --d) {
      int64_t size = map.resultShape[d];
      if (size == 1)
        continue;
      if (contiguousOpen && map.multipliers[d] == contiguousRun) {
        contiguousRun *= size;
      } else {
        contiguousOpen = false;
        outerAligned = outerAligned && map.multipliers[d] % width == 0;
      }
      if (uniformOpen && map.multipliers[d] == 0)
        uniformRun *= size;
      else
        uniformOpen = false;
    }
    if (contiguousRun % block == 0)
      return {Index::Contiguous, applyMap(index.value, map), block,
              index.aligned && outerAligned && contiguousRun % width == 0};
    if (uniformRun % block == 0)
      return {Index::Uniform, applyMap(index.value, map)};
    Value base = vector::BroadcastOp::create(
        b, loc, VectorType::get({width}, b.getI64Type()), index.value);
    SmallVector<int64_t> steps;
    for (unsigned lane = 0; lane < width; ++lane)
      steps.push_back(lane);
    auto stepType = VectorType::get({width}, b.getI64Type());
    Value step = arith::ConstantOp::create(
        b, loc, stepType, DenseElementsAttr::get(stepType, ArrayRef(steps)));
    Value lanes = arith::AddIOp::create(b, loc, base, step);
    return {Index::Lanes, applyMap(lanes, map)};
  }

  /// index * stride on i64 scalars or vectors alike.
  Value scaled(Value x, int64_t stride) {
    if (stride == 1)
      return x;
    Value c = isa<VectorType>(x.getType())
                  ? constantVector(b.getI64Type(), stride)
                  : i64(stride);
    return arith::MulIOp::create(b, loc, x, c);
  }

  /// The matmul's value at `index` of its result: a dot product over K
  /// whose operands are emitted (prologue included) at their own positions.
  /// When the lanes lie in one row of the result, the lhs element is one
  /// load broadcast to every lane and the rhs is contiguous (one 128-bit
  /// load when aligned, unless transposed); otherwise both are gathers.
  FailureOr<Value> emitMatmul(fd::MatmulOp op, Index index) {
    Type compute = computeType(elementTypeOf(op.getResult()));
    if (!isa<FloatType>(compute))
      return unsupported(op, "integer matmuls are not supported yet");
    ArrayRef<int64_t> c = shapeOf(op.getResult());
    ArrayRef<int64_t> lhs = shapeOf(op.getLhs()), rhs = shapeOf(op.getRhs());
    int64_t m = c[c.size() - 2], n = c.back();
    int64_t k = op.getTransposeA() ? lhs[lhs.size() - 2] : lhs.back();
    // Strides of (batch, i, k) in lhs and (batch, k, j) in rhs; a rank-2
    // operand is shared across the batch.
    int64_t lhsBatch = lhs.size() > 2 ? m * k : 0;
    int64_t lhsI = op.getTransposeA() ? 1 : k,
            lhsK = op.getTransposeA() ? m : 1;
    int64_t rhsBatch = rhs.size() > 2 ? k * n : 0;
    int64_t rhsK = op.getTransposeB() ? 1 : n,
            rhsJ = op.getTransposeB() ? k : 1;

    bool oneRow =
        width != 1 && index.kind == Index::Contiguous && n % index.block == 0;
    // Positions in the result: a scalar (one lane, or the first lane of a
    // row) or one per lane.
    Value position = index.value;
    if (width != 1 && !oneRow) {
      auto laneType = VectorType::get({width}, b.getI64Type());
      if (index.kind == Index::Uniform)
        position = vector::BroadcastOp::create(b, loc, laneType, position);
      if (index.kind == Index::Contiguous)
        position = arith::AddIOp::create(
            b, loc, vector::BroadcastOp::create(b, loc, laneType, position),
            laneSteps());
    }
    bool isVector = isa<VectorType>(position.getType());
    auto c64 = [&](int64_t v) {
      return isVector ? constantVector(b.getI64Type(), v) : i64(v);
    };
    Value batch = arith::DivUIOp::create(b, loc, position, c64(m * n));
    Value i = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, position, c64(n)), c64(m));
    Value j = arith::RemUIOp::create(b, loc, position, c64(n));
    Value lhsBase =
        arith::AddIOp::create(b, loc, scaled(batch, lhsBatch), scaled(i, lhsI));
    Value rhsBase =
        arith::AddIOp::create(b, loc, scaled(batch, rhsBatch), scaled(j, rhsJ));
    Index::Kind lhsKind = isVector ? Index::Lanes : Index::Uniform;
    Index::Kind rhsKind = lhsKind;
    if (oneRow && rhsJ == 1) {
      rhsKind = Index::Contiguous;
    } else if (oneRow) {
      // Transposed rhs: lanes j..j+W-1 are K apart.
      auto laneType = VectorType::get({width}, b.getI64Type());
      rhsBase = arith::AddIOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, laneType, rhsBase),
          scaled(laneSteps(), rhsJ));
      rhsKind = Index::Lanes;
    }
    bool rhsAligned = index.aligned && n % width == 0;

    Value init = constant(compute, 0.0);
    bool failedBody = false;
    auto loop = scf::ForOp::create(
        b, loc, i64(0), i64(k), i64(1), ValueRange{init},
        [&](OpBuilder &nested, Location nestedLoc, Value kk, ValueRange acc) {
          RegionEmitter inner(nested, nestedLoc, width, argPointers);
          for (auto [value, known] : seeded)
            inner.seed(value, known);
          auto at = [&](Value base, int64_t stride) -> Value {
            Value offset = inner.scaled(kk, stride);
            if (isa<VectorType>(base.getType()))
              offset = vector::BroadcastOp::create(nested, nestedLoc,
                                                   base.getType(), offset);
            return arith::AddIOp::create(nested, nestedLoc, base, offset);
          };
          FailureOr<Value> a =
              inner.emit(op.getLhs(), {lhsKind, at(lhsBase, lhsK)});
          FailureOr<Value> bv =
              inner.emit(op.getRhs(),
                         {rhsKind, at(rhsBase, rhsK), index.block, rhsAligned});
          if (failed(a) || failed(bv)) {
            failedBody = true;
            scf::YieldOp::create(nested, nestedLoc, acc);
            return;
          }
          scf::YieldOp::create(
              nested, nestedLoc,
              Value(math::FmaOp::create(nested, nestedLoc, *a, *bv, acc[0])));
        });
    if (failedBody)
      return failure();
    return loop.getResult(0);
  }

  /// [0, 1, ..., W-1] as i64 lanes.
  Value laneSteps() {
    SmallVector<int64_t> steps;
    for (unsigned lane = 0; lane < width; ++lane)
      steps.push_back(lane);
    auto type = VectorType::get({width}, b.getI64Type());
    return arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef(steps)));
  }

  FailureOr<Value> emitConstant(fd::ConstantOp op) {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return unsupported(op, "only splat constants are supported; pass "
                             "dense data as a graph input");
    Type element = elementTypeOf(op.getResult());
    Type compute = computeType(element);
    double value;
    if (isa<FloatType>(element))
      value = dense.getSplatValue<APFloat>().convertToDouble();
    else if (element.isInteger(1))
      value = dense.getSplatValue<bool>() ? 1 : 0;
    else
      value = double(dense.getSplatValue<APInt>().getSExtValue());
    if (isa<IntegerType>(element) && element.getIntOrFloatBitWidth() == 64) {
      // The bits, also for a ui64 above INT64_MAX.
      int64_t exact = dense.getSplatValue<APInt>().getSExtValue();
      Type type = vectorOf(compute);
      TypedAttr attr = b.getIntegerAttr(compute, exact);
      if (width != 1)
        attr = DenseElementsAttr::get(cast<ShapedType>(type),
                                      mlir::Attribute(attr));
      return Value(arith::ConstantOp::create(b, loc, type, attr));
    }
    return constant(compute, value);
  }

  FailureOr<Value> emitElementwise(Operation *op, ArrayRef<Value> x) {
    StringRef name = op->getName().stripDialect();
    Type resultElement = elementTypeOf(op->getResult(0));
    Type operandElement = elementTypeOf(op->getOperand(0));
    Type compute = computeType(operandElement);
    bool isFloat = isa<FloatType>(compute);
    auto one = [&] { return constant(compute, 1.0); };
    auto zero = [&] { return constant(compute, 0.0); };

    if (auto cast = dyn_cast<fd::CastOp>(op))
      return emitCast(cast, x[0]);
    if (auto compare = dyn_cast<fd::CompareOp>(op))
      return emitCompare(compare, x[0], x[1], compute,
                         isUnsignedElement(operandElement));
    if (isa<fd::SelectOp>(op))
      return Value(arith::SelectOp::create(b, loc, x[0], x[1], x[2]));
    (void)resultElement;

    if (isFloat) {
      if (name == "neg")
        return Value(arith::NegFOp::create(b, loc, x[0]));
      if (name == "abs")
        return Value(math::AbsFOp::create(b, loc, x[0]));
      if (name == "exp")
        return Value(math::ExpOp::create(b, loc, x[0]));
      if (name == "log")
        return Value(math::LogOp::create(b, loc, x[0]));
      if (name == "tanh")
        return Value(math::TanhOp::create(b, loc, x[0]));
      if (name == "erf")
        return Value(math::ErfOp::create(b, loc, x[0]));
      if (name == "sin")
        return Value(math::SinOp::create(b, loc, x[0]));
      if (name == "cos")
        return Value(math::CosOp::create(b, loc, x[0]));
      if (name == "sqrt")
        return Value(math::SqrtOp::create(b, loc, x[0]));
      if (name == "rsqrt")
        return Value(arith::DivFOp::create(b, loc, one(),
                                           math::SqrtOp::create(b, loc, x[0])));
      if (name == "reciprocal")
        return Value(arith::DivFOp::create(b, loc, one(), x[0]));
      if (name == "sigmoid") {
        Value e =
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x[0]));
        return Value(arith::DivFOp::create(
            b, loc, one(), arith::AddFOp::create(b, loc, one(), e)));
      }
      if (name == "floor")
        return Value(math::FloorOp::create(b, loc, x[0]));
      if (name == "ceil")
        return Value(math::CeilOp::create(b, loc, x[0]));
      if (name == "round")
        return Value(math::RoundEvenOp::create(b, loc, x[0]));
      if (name == "sign") {
        Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                          x[0], zero());
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          x[0], zero());
        Value inner =
            arith::SelectOp::create(b, loc, neg, constant(compute, -1.0), x[0]);
        return Value(arith::SelectOp::create(b, loc, pos, one(), inner));
      }
      if (name == "isnan")
        return Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                           x[0], x[0]));
      if (name == "isinf")
        return Value(arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ,
            math::AbsFOp::create(b, loc, x[0]),
            constant(compute, std::numeric_limits<double>::infinity())));
      if (name == "add")
        return Value(arith::AddFOp::create(b, loc, x[0], x[1]));
      if (name == "sub")
        return Value(arith::SubFOp::create(b, loc, x[0], x[1]));
      if (name == "mul")
        return Value(arith::MulFOp::create(b, loc, x[0], x[1]));
      if (name == "div")
        return Value(arith::DivFOp::create(b, loc, x[0], x[1]));
      if (name == "max")
        return Value(arith::MaximumFOp::create(b, loc, x[0], x[1]));
      if (name == "min")
        return Value(arith::MinimumFOp::create(b, loc, x[0], x[1]));
      if (name == "atan")
        return Value(math::AtanOp::create(b, loc, x[0]));
      if (name == "tan")
        return Value(math::TanOp::create(b, loc, x[0]));
      if (auto rem = dyn_cast<fd::RemOp>(op))
        return emitFloatRem(rem, x[0], x[1], compute);
      return unsupported(op,
                         "no GPU lowering of f" +
                             std::to_string(compute.getIntOrFloatBitWidth()) +
                             " " + name.str() + " yet");
    }

    bool isBool = compute.isInteger(1);
    if (name == "and")
      return Value(arith::AndIOp::create(b, loc, x[0], x[1]));
    if (name == "or")
      return Value(arith::OrIOp::create(b, loc, x[0], x[1]));
    if (name == "xor")
      return Value(arith::XOrIOp::create(b, loc, x[0], x[1]));
    if (name == "not")
      return Value(arith::XOrIOp::create(b, loc, x[0],
                                         constant(compute, isBool ? 1 : -1)));
    bool isUnsigned = isUnsignedElement(operandElement);
    if (!isBool) {
      if (name == "add")
        return Value(arith::AddIOp::create(b, loc, x[0], x[1]));
      if (name == "sub")
        return Value(arith::SubIOp::create(b, loc, x[0], x[1]));
      if (name == "mul")
        return Value(arith::MulIOp::create(b, loc, x[0], x[1]));
      if (name == "max")
        return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x[0], x[1]))
                          : Value(arith::MaxSIOp::create(b, loc, x[0], x[1]));
      if (name == "min")
        return isUnsigned ? Value(arith::MinUIOp::create(b, loc, x[0], x[1]))
                          : Value(arith::MinSIOp::create(b, loc, x[0], x[1]));
      if (name == "neg")
        return Value(arith::SubIOp::create(b, loc, zero(), x[0]));
      // max(x, -x) wraps the minimum to itself, as math.absi (which has no
      // NVVM lowering) would.
      if (name == "abs")
        return isUnsigned ? x[0]
                          : Value(arith::MaxSIOp::create(
                                b, loc, x[0],
                                arith::SubIOp::create(b, loc, zero(), x[0])));
      if (name == "sign" && isUnsigned)
        return Value(arith::ExtUIOp::create(
            b, loc, x[0].getType(),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x[0],
                                  zero())));
      if (auto div = dyn_cast<fd::DivOp>(op))
        return emitIntDiv(x[0], x[1], compute,
                          isUnsigned || div.getIsUnsigned());
      if (auto rem = dyn_cast<fd::RemOp>(op))
        return emitIntRem(x[0], x[1], compute,
                          isUnsigned || rem.getIsUnsigned(), rem.getFmod());
    }
    return unsupported(op, "no GPU lowering of integer " + name.str() + " yet");
  }

  // The float remainder of HostRegionEmitter.h, with the reference's
  // semantics (runtime/ir/Graph.h). atan, tan and remf (fmod) become
  // libdevice calls (__nv_atanf, __nv_tanf, __nv_fmodf; exact fmod).

  /// fmod, or the floor-mod: a nonzero remainder takes the divisor's sign,
  /// a zero one is a zero of the divisor's sign.
  Value emitFloatRem(fd::RemOp op, Value lhs, Value rhs, Type compute) {
    Value r = arith::RemFOp::create(b, loc, lhs, rhs);
    if (op.getFmod())
      return r;
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
      return Value(arith::CmpFOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0);
    Value signsDiffer =
        arith::XOrIOp::create(b, loc, cmp(arith::CmpFPredicate::OLT, r, zero),
                              cmp(arith::CmpFPredicate::OLT, rhs, zero));
    Value fix = arith::AndIOp::create(
        b, loc, cmp(arith::CmpFPredicate::UNE, r, zero), signsDiffer);
    r = arith::SelectOp::create(b, loc, fix,
                                arith::AddFOp::create(b, loc, r, rhs), r);
    return arith::SelectOp::create(
        b, loc, cmp(arith::CmpFPredicate::OEQ, r, zero),
        math::CopySignOp::create(b, loc, zero, rhs), r);
  }

  FailureOr<Value> emitCompare(fd::CompareOp op, Value lhs, Value rhs,
                               Type compute, bool isUnsigned) {
    StringRef predicate = stringifyComparePredicate(op.getPredicate());
    if (isa<FloatType>(compute)) {
      std::optional<arith::CmpFPredicate> p =
          llvm::StringSwitch<std::optional<arith::CmpFPredicate>>(predicate)
              .Case("eq", arith::CmpFPredicate::OEQ)
              .Case("ne", arith::CmpFPredicate::UNE)
              .Case("lt", arith::CmpFPredicate::OLT)
              .Case("le", arith::CmpFPredicate::OLE)
              .Case("gt", arith::CmpFPredicate::OGT)
              .Case("ge", arith::CmpFPredicate::OGE)
              .Default(std::nullopt);
      if (!p)
        return unsupported(op, "predicate " + predicate.str() + " on floats");
      return Value(arith::CmpFOp::create(b, loc, *p, lhs, rhs));
    }
    // i1 compares as 0 < 1 under every predicate: read it unsigned.
    // i1 compares as 0 < 1 under every predicate, and the ui types compare
    // unsigned: read them unsigned.
    bool isBool = compute.isInteger(1) || isUnsigned;
    auto p = llvm::StringSwitch<arith::CmpIPredicate>(predicate)
                 .Case("eq", arith::CmpIPredicate::eq)
                 .Case("ne", arith::CmpIPredicate::ne)
                 .Case("lt", isBool ? arith::CmpIPredicate::ult
                                    : arith::CmpIPredicate::slt)
                 .Case("le", isBool ? arith::CmpIPredicate::ule
                                    : arith::CmpIPredicate::sle)
                 .Case("gt", isBool ? arith::CmpIPredicate::ugt
                                    : arith::CmpIPredicate::sgt)
                 .Case("ge", isBool ? arith::CmpIPredicate::uge
                                    : arith::CmpIPredicate::sge)
                 .Case("ult", arith::CmpIPredicate::ult)
                 .Case("ule", arith::CmpIPredicate::ule)
                 .Case("ugt", arith::CmpIPredicate::ugt)
                 .Default(arith::CmpIPredicate::uge);
    return Value(arith::CmpIOp::create(b, loc, p, lhs, rhs));
  }

  FailureOr<Value> emitCast(fd::CastOp op, Value x) {
    Type from = elementTypeOf(op.getOperand());
    Type to = elementTypeOf(op.getResult());
    Type fromCompute = computeType(from), toCompute = computeType(to);
    Type toType = vectorOf(toCompute);
    if (to.isInteger(1)) {
      if (isa<FloatType>(fromCompute))
        return Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                           constant(fromCompute, 0)));
      return Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                         constant(fromCompute, 0)));
    }
    if (fromCompute == toCompute)
      return x;
    unsigned fromBits = fromCompute.getIntOrFloatBitWidth();
    unsigned toBits = toCompute.getIntOrFloatBitWidth();
    if (isa<FloatType>(fromCompute) && isa<FloatType>(toCompute))
      return fromBits < toBits
                 ? Value(arith::ExtFOp::create(b, loc, toType, x))
                 : Value(arith::TruncFOp::create(b, loc, toType, x));
    bool readUnsigned =
        op.getIsUnsigned() || from.isInteger(1) || isUnsignedElement(from);
    if (isa<IntegerType>(fromCompute) && isa<FloatType>(toCompute))
      return readUnsigned ? Value(arith::UIToFPOp::create(b, loc, toType, x))
                          : Value(arith::SIToFPOp::create(b, loc, toType, x));
    if (isa<IntegerType>(fromCompute) && isa<IntegerType>(toCompute)) {
      if (fromBits > toBits)
        return Value(arith::TruncIOp::create(b, loc, toType, x));
      return readUnsigned ? Value(arith::ExtUIOp::create(b, loc, toType, x))
                          : Value(arith::ExtSIOp::create(b, loc, toType, x));
    }
    return emitSaturatingCast(x, fromCompute, toCompute, isUnsignedElement(to));
  }

  /// Truncating; a division by 0 is 0 and a signed one by -1 the wrapped
  /// negation (as the reference runtime computes them).
  Value emitIntDiv(Value lhs, Value rhs, Type compute, bool isUnsigned) {
    auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
      return Value(arith::CmpIOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0), one = constant(compute, 1);
    Value byZero = cmp(arith::CmpIPredicate::eq, rhs, zero);
    if (isUnsigned) {
      Value safe = arith::SelectOp::create(b, loc, byZero, one, rhs);
      Value q = arith::DivUIOp::create(b, loc, lhs, safe);
      return arith::SelectOp::create(b, loc, byZero, zero, q);
    }
    Value byMinusOne =
        cmp(arith::CmpIPredicate::eq, rhs, constant(compute, -1));
    Value safe = arith::SelectOp::create(
        b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, rhs);
    Value q = arith::DivSIOp::create(b, loc, lhs, safe);
    q = arith::SelectOp::create(b, loc, byMinusOne,
                                arith::SubIOp::create(b, loc, zero, lhs), q);
    return arith::SelectOp::create(b, loc, byZero, zero, q);
  }

  /// A remainder by 0 (and a signed one by -1) is 0; without `fmod` a signed
  /// result takes the divisor's sign.
  Value emitIntRem(Value lhs, Value rhs, Type compute, bool isUnsigned,
                   bool fmod) {
    auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
      return Value(arith::CmpIOp::create(b, loc, p, l, r));
    };
    Value zero = constant(compute, 0), one = constant(compute, 1);
    Value bad = cmp(arith::CmpIPredicate::eq, rhs, zero);
    if (!isUnsigned)
      bad = arith::OrIOp::create(
          b, loc, bad,
          cmp(arith::CmpIPredicate::eq, rhs, constant(compute, -1)));
    Value safe = arith::SelectOp::create(b, loc, bad, one, rhs);
    Value r;
    if (isUnsigned) {
      r = arith::RemUIOp::create(b, loc, lhs, safe);
    } else {
      r = arith::RemSIOp::create(b, loc, lhs, safe);
      if (!fmod) {
        Value signsDiffer = arith::XOrIOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, r, zero),
            cmp(arith::CmpIPredicate::slt, rhs, zero));
        Value fix = arith::AndIOp::create(
            b, loc, cmp(arith::CmpIPredicate::ne, r, zero), signsDiffer);
        r = arith::SelectOp::create(b, loc, fix,
                                    arith::AddIOp::create(b, loc, r, rhs), r);
      }
    }
    return arith::SelectOp::create(b, loc, bad, zero, r);
  }

  /// Truncates toward zero, saturating at the integer's limits (0 and
  /// 2^n - 1 for a ui type, `isUnsigned`); NaN gives 0. fptosi and fptoui
  /// alone would give poison out of range.
  Value emitSaturatingCast(Value x, Type from, Type to, bool isUnsigned) {
    unsigned bits = to.getIntOrFloatBitWidth();
    double limit = std::ldexp(1.0, int(bits) - (isUnsigned ? 0 : 1));
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
      return Value(arith::CmpFOp::create(b, loc, p, l, r));
    };
    Value tooHigh = cmp(arith::CmpFPredicate::OGE, x, constant(from, limit));
    Value tooLow = cmp(arith::CmpFPredicate::OLT, x,
                       constant(from, isUnsigned ? 0.0 : -limit));
    Value inRange = cmp(arith::CmpFPredicate::ORD, x, x);
    inRange = arith::AndIOp::create(
        b, loc, inRange,
        arith::XOrIOp::create(b, loc,
                              arith::OrIOp::create(b, loc, tooHigh, tooLow),
                              constant(b.getI1Type(), 1)));
    Value safe = arith::SelectOp::create(b, loc, inRange, x, constant(from, 0));
    Value result =
        isUnsigned ? Value(arith::FPToUIOp::create(b, loc, vectorOf(to), safe))
                   : Value(arith::FPToSIOp::create(b, loc, vectorOf(to), safe));
    auto limitConstant = [&](const APInt &value) {
      TypedAttr attr = IntegerAttr::get(to, value);
      if (width != 1)
        attr = DenseElementsAttr::get(cast<ShapedType>(vectorOf(to)),
                                      mlir::Attribute(attr));
      return Value(arith::ConstantOp::create(b, loc, vectorOf(to), attr));
    };
    result = arith::SelectOp::create(
        b, loc, tooHigh,
        limitConstant(isUnsigned ? APInt::getMaxValue(bits)
                                 : APInt::getSignedMaxValue(bits)),
        result);
    return Value(arith::SelectOp::create(
        b, loc, tooLow,
        limitConstant(isUnsigned ? APInt::getZero(bits)
                                 : APInt::getSignedMinValue(bits)),
        result));
  }

  OpBuilder &b;
  Location loc;
  unsigned width;
  const DenseMap<Value, Value> &argPointers;
  DenseMap<Value, Value> seeded, seededSplats;
  DenseMap<std::tuple<Value, Value, unsigned>, Value> memo;
};

struct ReductionInfo {
  fd::ReduceOp op;
  Type accumulator;
  vector::CombiningKind combining;
  double identity;
};

inline Value combine(OpBuilder &b, Location loc, const ReductionInfo &r,
                     Value acc, Value x) {
  switch (r.combining) {
  case vector::CombiningKind::ADD:
    return arith::AddFOp::create(b, loc, acc, x);
  case vector::CombiningKind::MUL:
    return arith::MulFOp::create(b, loc, acc, x);
  case vector::CombiningKind::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, acc, x);
  default:
    return arith::MinimumFOp::create(b, loc, acc, x);
  }
}

inline FailureOr<ReductionInfo> classifyReduction(fd::ReduceOp reduce,
                                                  StringRef schedule) {
  Type element = elementTypeOf(reduce.getResult());
  if (!isa<FloatType>(element))
    return reduce.emitOpError()
           << "cannot be generated for the GPU in a " << schedule
           << " kernel: integer reductions are not supported yet";
  ReductionInfo info{reduce, computeType(element), vector::CombiningKind::ADD,
                     0.0};
  switch (reduce.getKind()) {
  case fd::ReduceKind::sum:
  case fd::ReduceKind::mean:
    break;
  case fd::ReduceKind::prod:
    info.combining = vector::CombiningKind::MUL;
    info.identity = 1.0;
    break;
  case fd::ReduceKind::max:
    info.combining = vector::CombiningKind::MAXIMUMF;
    info.identity = -std::numeric_limits<double>::infinity();
    break;
  case fd::ReduceKind::min:
    info.combining = vector::CombiningKind::MINIMUMF;
    info.identity = std::numeric_limits<double>::infinity();
    break;
  }
  return info;
}

/// Every use of a row's reduction result must read it at its own row:
/// elementwise ops over the rows, broadcasts of the rows back over the
/// reduced dims (leading dims kept), reshapes, the yield.
inline LogicalResult checkRowwiseUses(Value result, int64_t rows) {
  for (Operation *user : result.getUsers()) {
    if (isa<fd::YieldOp, fd::ReduceOp>(user))
      continue;
    if (auto broadcast = dyn_cast<fd::BroadcastOp>(user)) {
      ArrayRef<int64_t> dims = broadcast.getDims();
      bool leading = llvm::all_of(llvm::enumerate(dims), [](auto pair) {
        return int64_t(pair.index()) == pair.value();
      });
      if (leading)
        continue;
    } else if (numElements(user->getResult(0).getType()) == rows &&
               (user->hasTrait<OpTrait::Elementwise>() ||
                isa<fd::ReshapeOp>(user))) {
      if (failed(checkRowwiseUses(user->getResult(0), rows)))
        return failure();
      continue;
    }
    return user->emitOpError()
           << "cannot be generated for the GPU in a row_reduction kernel: "
              "it reads a row's reduction other than at its own row";
  }
  return success();
}

inline Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

inline Value asI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

inline Value threadId(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
}

inline Value blockId(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
}

inline Value blockDim(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
}

inline Value gridDim(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
}

/// A kernel's pointers: the fusion's inputs by region argument, then its
/// outputs and the scratch buffer.
struct KernelPointers {
  gpu::GPUFuncOp func;
  DenseMap<Value, Value> inputs;
  SmallVector<Value> outputs;
  Value scratch;
};

/// A `gpu.module` named `<name>_module` holding the kernel `gpu.func @name`
/// with `numInputs` read-only pointers, then `numOutputs` written ones, then
/// a scratch pointer when `scratch` is set: read-only too when
/// `scratchReadOnly`. Every pointer is noalias: bindings never overlap. The
/// builder is left at the start of the body.
inline KernelPointers createKernel(OpBuilder &b, ModuleOp module,
                                   fd::FusionOp fusion, StringRef name,
                                   unsigned numOutputs, bool scratch,
                                   bool scratchReadOnly, unsigned blockSize) {
  Location loc = fusion.getLoc();
  MLIRContext *context = b.getContext();
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, (name + "_module").str());
  b.setInsertionPointToStart(gpuModule.getBody());
  unsigned numInputs = fusion.getInputs().size();
  unsigned count = numInputs + numOutputs + (scratch ? 1 : 0);
  Type ptr = LLVM::LLVMPointerType::get(context, kGlobalAddressSpace);
  SmallVector<Type> types(count, ptr);
  auto func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(blockSize), 1, 1}));
  for (unsigned i = 0; i < count; ++i) {
    func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                    b.getUnitAttr());
    bool readOnly =
        i < numInputs || (scratch && scratchReadOnly && i + 1 == count);
    if (readOnly)
      func.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(),
                      b.getUnitAttr());
  }
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(&entry);
  KernelPointers pointers;
  pointers.func = func;
  for (BlockArgument arg : fusion.getBody().front().getArguments())
    pointers.inputs[arg] = entry.getArgument(arg.getArgNumber());
  for (unsigned k = 0; k < numOutputs; ++k)
    pointers.outputs.push_back(entry.getArgument(numInputs + k));
  if (scratch)
    pointers.scratch = entry.getArgument(count - 1);
  return pointers;
}

/// Loop-carried values (reduction accumulators) are threaded through.
using StepBody = function_ref<FailureOr<SmallVector<Value>>(
    RegionEmitter &, Index, ValueRange carried)>;

struct StridedLoop {
  SmallVector<Value> vectorResults, scalarResults;
};

/// Positions [lo, lo + length) shared among `threads` threads, this one
/// being `thread`: a loop of W-wide steps over the W-aligned part (when
/// `vectorize`), each thread taking every `threads`-th step, then a scalar
/// loop over the rest. `aligned`: lo is a multiple of W.
inline FailureOr<StridedLoop>
emitStridedLoop(OpBuilder &b, Location loc, Value lo, int64_t length,
                Value thread, Value threads, bool vectorize, bool aligned,
                int64_t block, const DenseMap<Value, Value> &pointers,
                const DenseMap<Value, Value> &seeds, ValueRange vectorInit,
                ValueRange scalarInit, StepBody body) {
  int64_t vectorLength =
      vectorize ? length / kGpuVectorWidth * kGpuVectorWidth : 0;
  Value vectorEnd =
      arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, vectorLength));
  Value end = arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, length));
  StridedLoop result;
  bool failedBody = false;
  auto makeLoop = [&](Value from, Value to, unsigned w, ValueRange init) {
    Value width = i64Constant(b, loc, w);
    Value first = arith::AddIOp::create(
        b, loc, from, arith::MulIOp::create(b, loc, thread, width));
    Value step = arith::MulIOp::create(b, loc, threads, width);
    auto loop = scf::ForOp::create(
        b, loc, first, to, step, init,
        [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
          RegionEmitter emitter(nested, nestedLoc, w, pointers);
          for (auto [value, known] : seeds)
            emitter.seed(value, known);
          Index index{w == 1 ? Index::Uniform : Index::Contiguous, iv, block,
                      aligned};
          FailureOr<SmallVector<Value>> next = body(emitter, index, args);
          if (failed(next)) {
            failedBody = true;
            scf::YieldOp::create(nested, nestedLoc, args);
            return;
          }
          scf::YieldOp::create(nested, nestedLoc, *next);
        });
    return SmallVector<Value>(loop.getResults());
  };
  if (vectorLength > 0)
    result.vectorResults = makeLoop(lo, vectorEnd, kGpuVectorWidth, vectorInit);
  else
    result.vectorResults.assign(vectorInit.begin(), vectorInit.end());
  if (vectorLength < length)
    result.scalarResults = makeLoop(vectorEnd, end, 1, scalarInit);
  else
    result.scalarResults.assign(scalarInit.begin(), scalarInit.end());
  if (failedBody)
    return failure();
  return result;
}

inline gpu::AllReduceOperation allReduceKind(vector::CombiningKind kind) {
  switch (kind) {
  case vector::CombiningKind::ADD:
    return gpu::AllReduceOperation::ADD;
  case vector::CombiningKind::MUL:
    return gpu::AllReduceOperation::MUL;
  case vector::CombiningKind::MAXIMUMF:
    return gpu::AllReduceOperation::MAXIMUMF;
  default:
    return gpu::AllReduceOperation::MINIMUMF;
  }
}

/// The thread's vector and scalar accumulators combined, then combined
/// across the block (warp shuffles, then shared memory between warps).
inline Value reduceBlock(OpBuilder &b, Location loc, const ReductionInfo &r,
                         Value vectorAcc, Value scalarAcc) {
  Value horizontal =
      vector::ReductionOp::create(b, loc, r.combining, vectorAcc);
  Value partial = combine(b, loc, r, horizontal, scalarAcc);
  return gpu::AllReduceOp::create(
      b, loc, partial,
      gpu::AllReduceOperationAttr::get(b.getContext(),
                                       allReduceKind(r.combining)),
      /*uniform=*/true);
}

/// As reduceBlock, across one warp only (shuffles, no shared memory, no
/// barrier): `gpu.subgroup_reduce`, which GpuCompiler lowers to shuffles
/// before NVVM. 32-bit accumulators only.
inline Value reduceWarp(OpBuilder &b, Location loc, const ReductionInfo &r,
                        Value vectorAcc, Value scalarAcc) {
  Value horizontal =
      vector::ReductionOp::create(b, loc, r.combining, vectorAcc);
  Value partial = combine(b, loc, r, horizontal, scalarAcc);
  return gpu::SubgroupReduceOp::create(b, loc, partial,
                                       allReduceKind(r.combining),
                                       /*uniform=*/true);
}

/// Runs `body` where `condition` holds.
inline void onlyIf(OpBuilder &b, Location loc, Value condition,
                   function_ref<void(OpBuilder &)> body) {
  auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}

/// Runs `body` on thread 0 of the block only.
inline void onFirstThread(OpBuilder &b, Location loc,
                          function_ref<void(OpBuilder &)> body) {
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId(b, loc),
                            i64Constant(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}

inline Value scratchAddress(OpBuilder &b, Location loc, Value scratch,
                            Type element, Value slot) {
  return LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace),
      element, scratch, ValueRange{slot});
}

inline LogicalResult checkYields(fd::FusionOp fusion, int64_t domain) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  for (Value value : yield.getValues())
    if (numElements(value.getType()) != domain)
      return fusion.emitOpError()
             << "cannot be generated for the GPU: a pointwise kernel's "
                "results must all have "
             << domain << " elements, one has " << numElements(value.getType());
  return success();
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Pointwise kernels, and matmul kernels in the same form: every output
/// element (4 per step) pulls its value (a matmul's dot product included)
/// through the index maps, with a matmul's prologue applied on load.
FailureOr<GpuFusionKernels> emitPointwise(fd::FusionOp fusion, ModuleOp module,
                                          StringRef prefix,
                                          ScheduleKind schedule);

/// Matmul fusions (GpuMatmulEmitter.cpp).
FailureOr<GpuFusionKernels> emitMatmul(fd::FusionOp fusion, ModuleOp module,
                                       StringRef prefix);

} // namespace fuse::ptx

#endif // FUSE_COMPILER_GPUREGIONEMITTER_H
