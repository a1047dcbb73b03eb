//===- GpuKernelEmitter.cpp - fuse.fusion -> GPU kernels ------------------===//
//
// A region value is emitted "at an index", as in host code generation: the
// flattened position of the element in the value's own shape. Elementwise
// ops pass the index through; broadcast, transpose and slice map it to their
// operand's position through an affine map on coordinates; reshape keeps it.
// An index is one of
//   Contiguous(o): lanes o, o+1, ..., o+W-1 (aligned: o a multiple of W, so
//                  one 128-bit access);
//   Uniform(s):    every lane reads position s;
//   Lanes(v):      a vector of arbitrary positions (a gather).
// The region emitter is the host emitter's, adapted to global pointers and
// aligned accesses (HostKernelEmitter keeps its own in an anonymous
// namespace); the schedules below are the GPU's own.
//
//===----------------------------------------------------------------------===//

#include "compiler/GpuKernelEmitter.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <limits>
#include <tuple>

using namespace mlir;
namespace fd = mlir::fuse;

namespace fuse {

namespace {

/// NVPTX's global address space: loads and stores become `ld.global` /
/// `st.global` instead of generic accesses.
constexpr unsigned kGlobalAddressSpace = 1;
/// Most blocks of a pointwise kernel; beyond, each thread takes more steps.
constexpr int64_t kMaxPointwiseBlocks = 4096;
/// Blocks of a reduction's partials kernel: fixed by the size alone, so the
/// order of combination (and the result) does not depend on the device.
constexpr int64_t kMaxReductionBlocks = 1024;
/// Vector steps per thread before a reduction takes another block.
constexpr int64_t kReductionStepsPerThread = 4;
/// Most blocks of a row kernel; more rows are taken in a block-stride loop.
constexpr int64_t kMaxRowBlocks = 65535;
constexpr unsigned kWarpSize = 32;
/// Bytes per slot of the scratch partials (f32 and f64 accumulators alike).
constexpr int64_t kScratchSlotBytes = 8;

int64_t numElements(Type type) {
  return cast<RankedTensorType>(type).getNumElements();
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// f16 and bf16 are storage types: arithmetic runs in f32.
Type computeType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

/// How an element sits in memory: i1 as a byte, bf16 as its bits.
Type storageType(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 8);
  if (element.isBF16())
    return IntegerType::get(element.getContext(), 16);
  return element;
}

unsigned storageBytes(Type element) {
  return std::max(1u, storageType(element).getIntOrFloatBitWidth() / 8);
}

/// operand position = offset + sum over result dims d of
/// coord_d(position) * multipliers[d].
struct AffineIndexMap {
  SmallVector<int64_t> resultShape;
  SmallVector<int64_t> multipliers;
  int64_t offset = 0;
};

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

AffineIndexMap broadcastMap(fd::BroadcastOp op) {
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

AffineIndexMap transposeMap(fd::TransposeOp op) {
  AffineIndexMap map;
  map.resultShape.assign(shapeOf(op.getResult()).begin(),
                         shapeOf(op.getResult()).end());
  SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getOperand()));
  for (int64_t source : op.getPermutation())
    map.multipliers.push_back(strides[source]);
  return map;
}

AffineIndexMap sliceMap(fd::SliceOp op) {
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
      int64_t exact = dense.getSplatValue<APInt>().getSExtValue();
      Type type = vectorOf(element);
      TypedAttr attr = b.getIntegerAttr(element, exact);
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
      return emitCompare(compare, x[0], x[1], compute);
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
    if (!isBool) {
      if (name == "add")
        return Value(arith::AddIOp::create(b, loc, x[0], x[1]));
      if (name == "sub")
        return Value(arith::SubIOp::create(b, loc, x[0], x[1]));
      if (name == "mul")
        return Value(arith::MulIOp::create(b, loc, x[0], x[1]));
      if (name == "max")
        return Value(arith::MaxSIOp::create(b, loc, x[0], x[1]));
      if (name == "min")
        return Value(arith::MinSIOp::create(b, loc, x[0], x[1]));
      if (name == "neg")
        return Value(arith::SubIOp::create(b, loc, zero(), x[0]));
      if (name == "abs")
        return Value(math::AbsIOp::create(b, loc, x[0]));
    }
    return unsupported(op, "no GPU lowering of integer " + name.str() + " yet");
  }

  FailureOr<Value> emitCompare(fd::CompareOp op, Value lhs, Value rhs,
                               Type compute) {
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
    bool isBool = compute.isInteger(1);
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
    bool readUnsigned = op.getIsUnsigned() || from.isInteger(1);
    if (isa<IntegerType>(fromCompute) && isa<FloatType>(toCompute))
      return readUnsigned ? Value(arith::UIToFPOp::create(b, loc, toType, x))
                          : Value(arith::SIToFPOp::create(b, loc, toType, x));
    if (isa<IntegerType>(fromCompute) && isa<IntegerType>(toCompute)) {
      if (fromBits > toBits)
        return Value(arith::TruncIOp::create(b, loc, toType, x));
      return readUnsigned ? Value(arith::ExtUIOp::create(b, loc, toType, x))
                          : Value(arith::ExtSIOp::create(b, loc, toType, x));
    }
    return unsupported(op, "float to integer casts (saturating) are not "
                           "supported yet");
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

Value combine(OpBuilder &b, Location loc, const ReductionInfo &r, Value acc,
              Value x) {
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

FailureOr<ReductionInfo> classifyReduction(fd::ReduceOp reduce,
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
LogicalResult checkRowwiseUses(Value result, int64_t rows) {
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

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

Value asI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value threadId(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
}

Value blockId(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
}

Value blockDim(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
}

Value gridDim(OpBuilder &b, Location loc) {
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
KernelPointers createKernel(OpBuilder &b, ModuleOp module, fd::FusionOp fusion,
                            StringRef name, unsigned numOutputs, bool scratch,
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
FailureOr<StridedLoop>
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

gpu::AllReduceOperation allReduceKind(vector::CombiningKind kind) {
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
Value reduceBlock(OpBuilder &b, Location loc, const ReductionInfo &r,
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

/// Runs `body` on thread 0 of the block only.
void onFirstThread(OpBuilder &b, Location loc,
                   function_ref<void(OpBuilder &)> body) {
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId(b, loc),
                            i64Constant(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}

Value scratchAddress(OpBuilder &b, Location loc, Value scratch, Type element,
                     Value slot) {
  return LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace),
      element, scratch, ValueRange{slot});
}

LogicalResult checkYields(fd::FusionOp fusion, int64_t domain) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  for (Value value : yield.getValues())
    if (numElements(value.getType()) != domain)
      return fusion.emitOpError()
             << "cannot be generated for the GPU: a pointwise kernel's "
                "results must all have "
             << domain << " elements, one has " << numElements(value.getType());
  return success();
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Pointwise kernels, and matmul kernels in the same form: every output
/// element (4 per step) pulls its dot product through the epilogue's index
/// maps, with the prologue applied on load.
FailureOr<GpuFusionKernels> emitPointwise(fd::FusionOp fusion, ModuleOp module,
                                          StringRef prefix,
                                          ScheduleKind schedule) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  if (yield.getValues().empty())
    return GpuFusionKernels{};
  int64_t domain = numElements(yield.getValues().front().getType());
  if (failed(checkYields(fusion, domain)))
    return failure();
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name =
      (prefix + (schedule == ScheduleKind::Matmul ? "_matmul" : "_pointwise"))
          .str();
  unsigned numResults = yield.getValues().size();
  KernelPointers pointers =
      createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                   /*scratchReadOnly=*/false, kGpuBlockSize);
  Value thread = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId(b, loc), blockDim(b, loc)),
      threadId(b, loc));
  Value threads =
      arith::MulIOp::create(b, loc, gridDim(b, loc), blockDim(b, loc));
  DenseMap<Value, Value> noSeeds;
  FailureOr<StridedLoop> loop =
      emitStridedLoop(b, loc, i64Constant(b, loc, 0), domain, thread, threads,
                      /*vectorize=*/true, /*aligned=*/true, kGpuVectorWidth,
                      pointers.inputs, noSeeds, {}, {},
                      [&](RegionEmitter &e, Index index,
                          ValueRange) -> FailureOr<SmallVector<Value>> {
                        for (auto [value, out] :
                             llvm::zip(yield.getValues(), pointers.outputs)) {
                          FailureOr<Value> computed = e.emit(value, index);
                          if (failed(computed))
                            return failure();
                          e.store(*computed, elementTypeOf(value), out, index);
                        }
                        return SmallVector<Value>{};
                      });
  if (failed(loop))
    return failure();

  GpuKernelPlan plan;
  plan.entry = name;
  plan.module = name + "_module";
  plan.schedule = schedule;
  int64_t steps = std::max<int64_t>(1, ceilDiv(domain, kGpuVectorWidth));
  plan.launch.gridX = uint32_t(std::clamp<int64_t>(
      ceilDiv(steps, kGpuBlockSize), 1, kMaxPointwiseBlocks));
  plan.launch.blockX = kGpuBlockSize;
  plan.launch.iterations = domain;
  for (unsigned i = 0; i < fusion.getInputs().size(); ++i)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionInput, i});
  for (unsigned r = 0; r < numResults; ++r)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionResult, r});
  GpuFusionKernels kernels;
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

FailureOr<GpuFusionKernels>
emitFullReduction(fd::FusionOp fusion, ModuleOp module, StringRef prefix) {
  Block &body = fusion.getBody().front();
  auto yield = cast<fd::YieldOp>(body.getTerminator());
  SmallVector<ReductionInfo> reductions;
  int64_t domain = -1;
  llvm::SetVector<Operation *> afterReduction;
  for (Operation &op : body.without_terminator()) {
    bool dependsOnReduction = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (isa<fd::ReduceOp>(def) || afterReduction.contains(def));
    });
    if (auto reduce = dyn_cast<fd::ReduceOp>(&op)) {
      if (dependsOnReduction)
        return reduce.emitOpError()
               << "cannot be generated for the GPU in a full_reduction "
                  "kernel: it reduces the result of another reduction";
      if (numElements(reduce.getResult().getType()) != 1)
        return reduce.emitOpError()
               << "cannot be generated for the GPU in a full_reduction "
                  "kernel: it does not reduce every element";
      int64_t n = numElements(reduce.getOperand().getType());
      if (domain != -1 && n != domain)
        return reduce.emitOpError()
               << "cannot be generated for the GPU in a full_reduction "
                  "kernel: its operand has "
               << n << " elements, another reduction's " << domain;
      domain = n;
      FailureOr<ReductionInfo> info =
          classifyReduction(reduce, "full_reduction");
      if (failed(info))
        return failure();
      reductions.push_back(*info);
      afterReduction.insert(&op);
      continue;
    }
    if (dependsOnReduction) {
      if (numElements(op.getResult(0).getType()) != 1)
        return op.emitOpError()
               << "cannot be generated for the GPU in a full_reduction "
                  "kernel: it uses a reduction's result over "
               << numElements(op.getResult(0).getType())
               << " elements (reduce-then-broadcast is a row kernel)";
      afterReduction.insert(&op);
    }
  }
  if (reductions.empty())
    return fusion.emitOpError()
           << "cannot be generated for the GPU as a full_reduction kernel: "
              "it has no fuse.reduce";

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  unsigned numInputs = fusion.getInputs().size();
  int64_t partials =
      std::clamp<int64_t>(ceilDiv(domain, kGpuBlockSize * kGpuVectorWidth *
                                              kReductionStepsPerThread),
                          1, kMaxReductionBlocks);
  // Results over the whole domain are stored by the partials kernel, the
  // others (one element) by the finishing kernel.
  SmallVector<unsigned> domainResults, scalarResults;
  for (auto [r, value] : llvm::enumerate(yield.getValues())) {
    Operation *def = value.getDefiningOp();
    bool after = def && afterReduction.contains(def);
    if (!after && numElements(value.getType()) == domain && domain != 1)
      domainResults.push_back(r);
    else if (numElements(value.getType()) == 1)
      scalarResults.push_back(r);
    else
      return fusion.emitOpError()
             << "cannot be generated for the GPU as a full_reduction "
                "kernel: result "
             << r << " has neither one element nor the reduced domain's";
  }

  GpuFusionKernels kernels;
  kernels.scratchBytes =
      uint64_t(partials) * reductions.size() * kScratchSlotBytes;

  // Partials: block p reduces its grid-stride share into slot p.
  {
    std::string name = (prefix + "_partials").str();
    KernelPointers pointers = createKernel(
        b, module, fusion, name, domainResults.size(), /*scratch=*/true,
        /*scratchReadOnly=*/false, kGpuBlockSize);
    Value thread = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, blockId(b, loc), blockDim(b, loc)),
        threadId(b, loc));
    Value threads =
        arith::MulIOp::create(b, loc, gridDim(b, loc), blockDim(b, loc));
    SmallVector<Value> vectorInit, scalarInit;
    {
      RegionEmitter vectorConstants(b, loc, kGpuVectorWidth, pointers.inputs);
      RegionEmitter scalarConstants(b, loc, 1, pointers.inputs);
      for (const ReductionInfo &r : reductions) {
        vectorInit.push_back(
            vectorConstants.constant(r.accumulator, r.identity));
        scalarInit.push_back(
            scalarConstants.constant(r.accumulator, r.identity));
      }
    }
    DenseMap<Value, Value> noSeeds;
    FailureOr<StridedLoop> loop = emitStridedLoop(
        b, loc, i64Constant(b, loc, 0), domain, thread, threads,
        /*vectorize=*/true, /*aligned=*/true, kGpuVectorWidth, pointers.inputs,
        noSeeds, vectorInit, scalarInit,
        [&](RegionEmitter &e, Index index,
            ValueRange carried) -> FailureOr<SmallVector<Value>> {
          for (auto [k, r] : llvm::enumerate(domainResults)) {
            Value value = yield.getValues()[r];
            FailureOr<Value> computed = e.emit(value, index);
            if (failed(computed))
              return failure();
            e.store(*computed, elementTypeOf(value), pointers.outputs[k],
                    index);
          }
          SmallVector<Value> next;
          for (auto [r, acc] : llvm::zip(reductions, carried)) {
            FailureOr<Value> x = e.emit(r.op.getOperand(), index);
            if (failed(x))
              return failure();
            next.push_back(combine(b, loc, r, acc, *x));
          }
          return next;
        });
    if (failed(loop))
      return failure();
    Value block = blockId(b, loc);
    for (auto [i, r] : llvm::enumerate(reductions)) {
      Value total = reduceBlock(b, loc, r, loop->vectorResults[i],
                                loop->scalarResults[i]);
      onFirstThread(b, loc, [&](OpBuilder &then) {
        Value slot = arith::AddIOp::create(
            then, loc, block, i64Constant(then, loc, int64_t(i) * partials));
        LLVM::StoreOp::create(
            then, loc, total,
            scratchAddress(then, loc, pointers.scratch, r.accumulator, slot),
            storageBytes(r.accumulator));
      });
    }
    GpuKernelPlan plan;
    plan.entry = name;
    plan.module = name + "_module";
    plan.schedule = ScheduleKind::FullReduction;
    plan.launch.gridX = uint32_t(partials);
    plan.launch.blockX = kGpuBlockSize;
    plan.launch.iterations = domain;
    for (unsigned i = 0; i < numInputs; ++i)
      plan.operands.push_back({GpuKernelOperand::Kind::FusionInput, i});
    for (unsigned r : domainResults)
      plan.operands.push_back({GpuKernelOperand::Kind::FusionResult, r});
    plan.operands.push_back({GpuKernelOperand::Kind::Scratch, 0});
    kernels.kernels.push_back(std::move(plan));
  }

  // Finishing: one block combines the slots (always in the same tree), then
  // thread 0 computes the ops after the reductions on one element.
  {
    std::string name = (prefix + "_finish").str();
    KernelPointers pointers = createKernel(
        b, module, fusion, name, scalarResults.size(), /*scratch=*/true,
        /*scratchReadOnly=*/true, kGpuBlockSize);
    Value thread = threadId(b, loc);
    Value threads = blockDim(b, loc);
    DenseMap<Value, Value> seeds;
    for (auto [i, r] : llvm::enumerate(reductions)) {
      RegionEmitter constants(b, loc, 1, pointers.inputs);
      Value init = constants.constant(r.accumulator, r.identity);
      Value base = i64Constant(b, loc, int64_t(i) * partials);
      auto loop = scf::ForOp::create(
          b, loc, arith::AddIOp::create(b, loc, base, thread),
          arith::AddIOp::create(b, loc, base, i64Constant(b, loc, partials)),
          threads, ValueRange{init},
          [&](OpBuilder &nested, Location nestedLoc, Value slot,
              ValueRange acc) {
            Value partial = LLVM::LoadOp::create(
                nested, nestedLoc, r.accumulator,
                scratchAddress(nested, nestedLoc, pointers.scratch,
                               r.accumulator, slot),
                storageBytes(r.accumulator));
            scf::YieldOp::create(
                nested, nestedLoc,
                combine(nested, nestedLoc, r, acc[0], partial));
          });
      Value total = gpu::AllReduceOp::create(
          b, loc, loop.getResult(0),
          gpu::AllReduceOperationAttr::get(b.getContext(),
                                           allReduceKind(r.combining)),
          /*uniform=*/true);
      if (r.op.getKind() == fd::ReduceKind::mean)
        total = arith::DivFOp::create(
            b, loc, total, constants.constant(r.accumulator, double(domain)));
      seeds[r.op.getResult()] = total;
    }
    bool failedBody = false;
    onFirstThread(b, loc, [&](OpBuilder &then) {
      RegionEmitter e(then, loc, 1, pointers.inputs);
      for (auto [value, known] : seeds)
        e.seed(value, known);
      Index zero{Index::Uniform, i64Constant(then, loc, 0)};
      for (auto [k, r] : llvm::enumerate(scalarResults)) {
        Value value = yield.getValues()[r];
        FailureOr<Value> computed = e.emit(value, zero);
        if (failed(computed)) {
          failedBody = true;
          return;
        }
        e.store(*computed, elementTypeOf(value), pointers.outputs[k], zero);
      }
    });
    if (failedBody)
      return failure();
    GpuKernelPlan plan;
    plan.entry = name;
    plan.module = name + "_module";
    plan.schedule = ScheduleKind::FullReduction;
    plan.launch.gridX = 1;
    plan.launch.blockX = kGpuBlockSize;
    plan.launch.iterations = 1;
    for (unsigned i = 0; i < numInputs; ++i)
      plan.operands.push_back({GpuKernelOperand::Kind::FusionInput, i});
    for (unsigned r : scalarResults)
      plan.operands.push_back({GpuKernelOperand::Kind::FusionResult, r});
    plan.operands.push_back({GpuKernelOperand::Kind::Scratch, 0});
    kernels.kernels.push_back(std::move(plan));
  }
  return kernels;
}

/// Tile of the tiled matmul: kTileM x kTileN outputs per block, K in steps
/// of kTileK through shared memory; 16 x 16 threads, each with a 4 x 4
/// register tile.
constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 16;
constexpr int64_t kMicroTile = 4;
constexpr int64_t kMaxGridYZ = 65535;

/// One transpose on the way from the matmul's result to a yielded value.
struct TransposeStep {
  SmallVector<int64_t> operandShape, resultShape, permutation;
  bool operator==(const TransposeStep &) const = default;
};

/// Where an element of the matmul's result lands in a value that depends on
/// it: through elementwise ops and reshapes it keeps its flattened
/// position, through a transpose it moves. Per yielded value, the
/// transposes in order; none when the epilogue cannot be applied to the
/// register tile (a broadcast or slice of the result, or two operands of one
/// op that see it at different positions).
FailureOr<SmallVector<SmallVector<TransposeStep>>>
epilogueMaps(fd::FusionOp fusion, fd::MatmulOp matmul) {
  DenseMap<Value, SmallVector<TransposeStep>> maps;
  maps[matmul.getResult()] = {};
  for (Operation &op : fusion.getBody().front().without_terminator()) {
    if (&op == matmul.getOperation())
      continue;
    std::optional<SmallVector<TransposeStep>> seen;
    for (Value operand : op.getOperands()) {
      auto it = maps.find(operand);
      if (it == maps.end())
        continue;
      if (seen && *seen != it->second)
        return failure();
      seen = it->second;
    }
    if (!seen)
      continue;
    if (auto transpose = dyn_cast<fd::TransposeOp>(op)) {
      TransposeStep step;
      step.operandShape.assign(shapeOf(transpose.getOperand()).begin(),
                               shapeOf(transpose.getOperand()).end());
      step.resultShape.assign(shapeOf(transpose.getResult()).begin(),
                              shapeOf(transpose.getResult()).end());
      step.permutation.assign(transpose.getPermutation().begin(),
                              transpose.getPermutation().end());
      seen->push_back(std::move(step));
    } else if (!op.hasTrait<OpTrait::Elementwise>() &&
               !isa<fd::ReshapeOp>(op)) {
      return failure();
    }
    maps[op.getResult(0)] = *seen;
  }
  SmallVector<SmallVector<TransposeStep>> result;
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  for (Value value : yield.getValues())
    result.push_back(maps.lookup(value));
  return result;
}

/// The position after `steps` of position `p` (i64).
Value forwardPosition(OpBuilder &b, Location loc, Value p,
                      ArrayRef<TransposeStep> steps) {
  for (const TransposeStep &step : steps) {
    SmallVector<int64_t> inStrides = rowMajorStrides(step.operandShape);
    SmallVector<int64_t> outStrides = rowMajorStrides(step.resultShape);
    Value q;
    for (size_t d = 0; d < step.resultShape.size(); ++d) {
      int64_t source = step.permutation[d];
      if (step.operandShape[source] == 1)
        continue;
      Value coord = arith::DivUIOp::create(
          b, loc, p, i64Constant(b, loc, inStrides[source]));
      if (source != 0)
        coord = arith::RemUIOp::create(
            b, loc, coord, i64Constant(b, loc, step.operandShape[source]));
      coord = arith::MulIOp::create(b, loc, coord,
                                    i64Constant(b, loc, outStrides[d]));
      q = q ? Value(arith::AddIOp::create(b, loc, q, coord)) : coord;
    }
    p = q ? q : i64Constant(b, loc, 0);
  }
  return p;
}

/// A shared-memory tiled matmul with its prologue applied on load (the
/// operands are emitted element by element into the tiles, zero outside
/// the matrix) and its epilogue applied to the register tile before the
/// store: a row of 4 at a time where positions are kept, element by element
/// at the moved position after transposes. Grid: (N tiles, M tiles, batch).
FailureOr<GpuFusionKernels>
emitTiledMatmul(fd::FusionOp fusion, fd::MatmulOp op,
                ArrayRef<SmallVector<TransposeStep>> epilogue, ModuleOp module,
                StringRef prefix) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  ArrayRef<int64_t> cShape = shapeOf(op.getResult());
  ArrayRef<int64_t> lhs = shapeOf(op.getLhs()), rhs = shapeOf(op.getRhs());
  int64_t m = cShape[cShape.size() - 2], n = cShape.back();
  int64_t k = op.getTransposeA() ? lhs[lhs.size() - 2] : lhs.back();
  int64_t batch =
      numElements(op.getResult().getType()) / std::max<int64_t>(1, m * n);
  int64_t lhsBatch = lhs.size() > 2 ? m * k : 0;
  int64_t lhsI = op.getTransposeA() ? 1 : k, lhsK = op.getTransposeA() ? m : 1;
  int64_t rhsBatch = rhs.size() > 2 ? k * n : 0;
  int64_t rhsK = op.getTransposeB() ? 1 : n, rhsJ = op.getTransposeB() ? k : 1;

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  MLIRContext *context = module.getContext();
  std::string name = (prefix + "_matmul").str();
  unsigned numResults = yield.getValues().size();
  int64_t threads = (kTileM / kMicroTile) * (kTileN / kMicroTile);
  KernelPointers pointers =
      createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                   /*scratchReadOnly=*/false, unsigned(threads));
  Type f32 = b.getF32Type();
  auto tileType = MemRefType::get(
      {kTileK, kTileM}, f32, MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
  Value lhsTile = pointers.func.addWorkgroupAttribution(tileType, loc);
  Value rhsTile = pointers.func.addWorkgroupAttribution(tileType, loc);

  auto c = [&](OpBuilder &builder, int64_t v) {
    return i64Constant(builder, loc, v);
  };
  auto asIndex = [&](OpBuilder &builder, Value v) -> Value {
    return arith::IndexCastOp::create(builder, loc, builder.getIndexType(), v);
  };
  auto mul = [&](OpBuilder &builder, Value x, int64_t v) -> Value {
    return v == 1
               ? x
               : Value(arith::MulIOp::create(builder, loc, x, c(builder, v)));
  };
  auto add = [&](OpBuilder &builder, Value x, Value y) -> Value {
    return arith::AddIOp::create(builder, loc, x, y);
  };
  auto less = [&](OpBuilder &builder, Value x, int64_t v) -> Value {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, x,
                                 c(builder, v));
  };
  Value tid = threadId(b, loc);
  Value tx = arith::RemUIOp::create(b, loc, tid, c(b, kTileN / kMicroTile));
  Value ty = arith::DivUIOp::create(b, loc, tid, c(b, kTileN / kMicroTile));
  Value i0 =
      mul(b, asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)),
          kTileM);
  Value j0 = mul(b, blockId(b, loc), kTileN);
  Value bz = asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  Value lhsBase = mul(b, bz, lhsBatch);
  Value rhsBase = mul(b, bz, rhsBatch);

  auto vectorType = VectorType::get({kMicroTile}, f32);
  Value zeros = arith::ConstantOp::create(
      b, loc, vectorType, DenseElementsAttr::get(vectorType, 0.0f));
  SmallVector<Value> init(kMicroTile, zeros);
  bool failedBody = false;

  // Loads one element of an operand (its prologue applied), zero outside.
  auto loadElement = [&](OpBuilder &builder, Value operand, Value inBounds,
                         Value position) -> Value {
    auto ifOp = scf::IfOp::create(builder, loc, TypeRange{f32}, inBounds,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(ifOp.thenBlock());
      RegionEmitter e(builder, loc, 1, pointers.inputs);
      FailureOr<Value> value = e.emit(operand, {Index::Uniform, position});
      Value result;
      if (failed(value)) {
        failedBody = true;
        result =
            arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(0));
      } else {
        result = *value;
        if (result.getType() != f32)
          result = arith::ExtFOp::create(builder, loc, f32, result);
      }
      scf::YieldOp::create(builder, loc, result);
      builder.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(builder, loc,
                           Value(arith::ConstantOp::create(
                               builder, loc, builder.getF32FloatAttr(0))));
    }
    return ifOp.getResult(0);
  };

  auto kLoop = scf::ForOp::create(
      b, loc, c(b, 0), c(b, k), c(b, kTileK), init,
      [&](OpBuilder &nb, Location, Value k0, ValueRange acc) {
        // The tiles: threads x 4 elements each, consecutive threads along
        // k for the lhs and along n for the rhs (coalesced when those are
        // the operands' contiguous dims).
        for (int64_t q = 0; q < kTileM * kTileK / threads; ++q) {
          Value e = add(nb, tid, c(nb, q * threads));
          Value r = arith::DivUIOp::create(nb, loc, e, c(nb, kTileK));
          Value kk = arith::RemUIOp::create(nb, loc, e, c(nb, kTileK));
          Value i = add(nb, i0, r), kg = add(nb, k0, kk);
          Value inBounds =
              arith::AndIOp::create(nb, loc, less(nb, i, m), less(nb, kg, k));
          Value position =
              add(nb, lhsBase, add(nb, mul(nb, i, lhsI), mul(nb, kg, lhsK)));
          Value value = loadElement(nb, op.getLhs(), inBounds, position);
          memref::StoreOp::create(nb, loc, value, lhsTile,
                                  ValueRange{asIndex(nb, kk), asIndex(nb, r)});
        }
        for (int64_t q = 0; q < kTileN * kTileK / threads; ++q) {
          Value e = add(nb, tid, c(nb, q * threads));
          Value kk = arith::DivUIOp::create(nb, loc, e, c(nb, kTileN));
          Value col = arith::RemUIOp::create(nb, loc, e, c(nb, kTileN));
          Value j = add(nb, j0, col), kg = add(nb, k0, kk);
          Value inBounds =
              arith::AndIOp::create(nb, loc, less(nb, j, n), less(nb, kg, k));
          Value position =
              add(nb, rhsBase, add(nb, mul(nb, kg, rhsK), mul(nb, j, rhsJ)));
          Value value = loadElement(nb, op.getRhs(), inBounds, position);
          memref::StoreOp::create(
              nb, loc, value, rhsTile,
              ValueRange{asIndex(nb, kk), asIndex(nb, col)});
        }
        gpu::BarrierOp::create(nb, loc);
        Value row = asIndex(nb, mul(nb, ty, kMicroTile));
        Value column = asIndex(nb, mul(nb, tx, kMicroTile));
        auto inner = scf::ForOp::create(
            nb, loc, c(nb, 0), c(nb, kTileK), c(nb, 1), acc,
            [&](OpBuilder &ib, Location, Value kk, ValueRange tile) {
              Value kIndex = asIndex(ib, kk);
              Value a = vector::LoadOp::create(ib, loc, vectorType, lhsTile,
                                               ValueRange{kIndex, row}, false,
                                               llvm::MaybeAlign(16));
              Value bv = vector::LoadOp::create(ib, loc, vectorType, rhsTile,
                                                ValueRange{kIndex, column},
                                                false, llvm::MaybeAlign(16));
              SmallVector<Value> next;
              for (int64_t r = 0; r < kMicroTile; ++r) {
                Value ar = vector::BroadcastOp::create(
                    ib, loc, vectorType,
                    vector::ExtractOp::create(ib, loc, a,
                                              ArrayRef<int64_t>{r}));
                next.push_back(math::FmaOp::create(ib, loc, ar, bv, tile[r]));
              }
              scf::YieldOp::create(ib, loc, next);
            });
        // The next step overwrites the tiles.
        gpu::BarrierOp::create(nb, loc);
        scf::YieldOp::create(nb, loc, inner.getResults());
      });
  if (failedBody)
    return failure();

  // Epilogue: each row of the register tile, 4 adjacent outputs.
  Value jFirst = add(b, j0, mul(b, tx, kMicroTile));
  for (int64_t r = 0; r < kMicroTile; ++r) {
    Value i = add(b, i0, add(b, mul(b, ty, kMicroTile), c(b, r)));
    Value accRow = kLoop.getResult(r);
    Value rowPosition = add(b, mul(b, bz, m * n), mul(b, i, n));
    auto rowIf = scf::IfOp::create(b, loc, less(b, i, m), false);
    OpBuilder rb = OpBuilder::atBlockBegin(rowIf.thenBlock());
    // Yielded values at the matmul's own positions: 4 outputs at a time
    // when the row allows; transposed ones (head splits and merges): one by
    // one, each at its moved position.
    auto storeAt = [&](OpBuilder &builder, unsigned width, Value seed,
                       Index index, bool transposed) {
      RegionEmitter e(builder, loc, width, pointers.inputs);
      e.seed(op.getResult(), seed);
      for (auto [value, out, steps] :
           llvm::zip(yield.getValues(), pointers.outputs, epilogue)) {
        if (steps.empty() == transposed)
          continue;
        Index at = index;
        if (transposed)
          at.value = forwardPosition(builder, loc, index.value, steps);
        FailureOr<Value> computed = e.emit(value, at);
        if (failed(computed)) {
          failedBody = true;
          return;
        }
        e.store(*computed, elementTypeOf(value), out, at);
      }
    };
    bool anyTransposed = llvm::any_of(
        epilogue, [](const auto &steps) { return !steps.empty(); });
    bool anyInPlace =
        llvm::any_of(epilogue, [](const auto &steps) { return steps.empty(); });
    if (anyInPlace && n % kMicroTile == 0) {
      // Then j < n means j + 3 < n, and the 4 outputs are 16-byte aligned.
      auto colIf = scf::IfOp::create(rb, loc, less(rb, jFirst, n), false);
      OpBuilder cb = OpBuilder::atBlockBegin(colIf.thenBlock());
      storeAt(cb, kMicroTile, accRow,
              {Index::Contiguous, add(cb, rowPosition, jFirst), kMicroTile,
               /*aligned=*/true},
              /*transposed=*/false);
    }
    if (anyTransposed || n % kMicroTile != 0) {
      for (int64_t col = 0; col < kMicroTile; ++col) {
        Value j = add(rb, jFirst, c(rb, col));
        auto colIf = scf::IfOp::create(rb, loc, less(rb, j, n), false);
        OpBuilder cb = OpBuilder::atBlockBegin(colIf.thenBlock());
        Value lane =
            vector::ExtractOp::create(cb, loc, accRow, ArrayRef<int64_t>{col});
        Index at{Index::Uniform, add(cb, rowPosition, j)};
        if (anyInPlace && n % kMicroTile != 0)
          storeAt(cb, 1, lane, at, /*transposed=*/false);
        if (anyTransposed)
          storeAt(cb, 1, lane, at, /*transposed=*/true);
      }
    }
  }
  if (failedBody)
    return failure();

  GpuKernelPlan plan;
  plan.entry = name;
  plan.module = name + "_module";
  plan.schedule = ScheduleKind::Matmul;
  plan.launch.gridX = uint32_t(ceilDiv(n, kTileN));
  plan.launch.gridY = uint32_t(ceilDiv(m, kTileM));
  plan.launch.gridZ = uint32_t(batch);
  plan.launch.blockX = uint32_t(threads);
  plan.launch.iterations = batch * m * n;
  for (unsigned i = 0; i < fusion.getInputs().size(); ++i)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionInput, i});
  for (unsigned r = 0; r < numResults; ++r)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionResult, r});
  GpuFusionKernels kernels;
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

/// Tiled where the epilogue only moves positions (elementwise ops, reshapes,
/// transposes) and the grid fits; the pull form otherwise (f64, more than
/// one matmul, a broadcast or slice of the result).
FailureOr<GpuFusionKernels> emitMatmul(fd::FusionOp fusion, ModuleOp module,
                                       StringRef prefix) {
  auto matmuls = fusion.getBody().front().getOps<fd::MatmulOp>();
  if (std::distance(matmuls.begin(), matmuls.end()) == 1) {
    fd::MatmulOp op = *matmuls.begin();
    auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
    int64_t size = numElements(op.getResult().getType());
    ArrayRef<int64_t> shape = shapeOf(op.getResult());
    int64_t m = shape[shape.size() - 2], n = shape.back();
    bool fits = m * n > 0 && size / (m * n) <= kMaxGridYZ &&
                ceilDiv(m, kTileM) <= kMaxGridYZ;
    bool sameDomain = llvm::all_of(yield.getValues(), [&](Value v) {
      return numElements(v.getType()) == size;
    });
    FailureOr<SmallVector<SmallVector<TransposeStep>>> epilogue =
        epilogueMaps(fusion, op);
    if (fits && sameDomain &&
        computeType(elementTypeOf(op.getResult())).isF32() &&
        succeeded(epilogue))
      return emitTiledMatmul(fusion, op, *epilogue, module, prefix);
  }
  return emitPointwise(fusion, module, prefix, ScheduleKind::Matmul);
}

/// A column reduction views its operand as [outer, reduced, inner] (the
/// reduced dims consecutive) and reduces the middle.
struct ColumnLayout {
  int64_t outer = 1, reduced = 1, inner = 1;
  /// The operand's kept dims of size other than 1, in order.
  SmallVector<int64_t> keptSizes;
};

LogicalResult unsupportedColumns(Operation *op, const Twine &why) {
  return op->emitOpError()
         << "cannot be generated for the GPU in a column_reduction kernel: "
         << why;
}

FailureOr<ColumnLayout> columnLayout(fd::ReduceOp reduce) {
  ArrayRef<int64_t> shape = shapeOf(reduce.getOperand());
  ArrayRef<int64_t> dims = reduce.getDims();
  ColumnLayout layout;
  if (dims.empty() || dims.back() - dims.front() + 1 != int64_t(dims.size()))
    return unsupportedColumns(reduce, "its reduced dims are not consecutive");
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (d < dims.front())
      layout.outer *= shape[d];
    else if (d <= dims.back())
      layout.reduced *= shape[d];
    else
      layout.inner *= shape[d];
    if ((d < dims.front() || d > dims.back()) && shape[d] != 1)
      layout.keptSizes.push_back(shape[d]);
  }
  return layout;
}

SmallVector<int64_t> withoutOnes(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes;
  for (int64_t size : shape)
    if (size != 1)
      sizes.push_back(size);
  return sizes;
}

/// A column's reduction must be read at its own column: by elementwise ops
/// and reshapes over the per-column values, by broadcasts back over the
/// reduced dims, by the yield.
LogicalResult checkColumnwiseUses(Value result, const ColumnLayout &layout,
                                  ArrayRef<int64_t> domainShape) {
  for (Operation *user : result.getUsers()) {
    if (isa<fd::YieldOp, fd::ReduceOp>(user))
      continue;
    if (auto broadcast = dyn_cast<fd::BroadcastOp>(user)) {
      ArrayRef<int64_t> operandShape = shapeOf(broadcast.getOperand());
      SmallVector<int64_t> targets;
      for (auto [i, d] : llvm::enumerate(broadcast.getDims()))
        if (operandShape[i] != 1)
          targets.push_back(domainShape.size() > size_t(d) ? domainShape[d]
                                                           : -1);
      if (shapeOf(broadcast.getResult()) == domainShape &&
          withoutOnes(operandShape) == layout.keptSizes &&
          targets == layout.keptSizes)
        continue;
    } else if (numElements(user->getResult(0).getType()) ==
                   layout.outer * layout.inner &&
               (user->hasTrait<OpTrait::Elementwise>() ||
                isa<fd::ReshapeOp>(user))) {
      if (failed(checkColumnwiseUses(user->getResult(0), layout, domainShape)))
        return failure();
      continue;
    }
    return unsupportedColumns(
        user, "it reads a column's reduction other than at its own column");
  }
  return success();
}

/// One thread per group of 4 adjacent columns (single columns when the
/// kept inner size is not a multiple of 4), in a grid-stride loop over the
/// groups: a pass down the reduced rows per reduction, in order, with one
/// accumulator per column (adjacent threads read adjacent 16-byte pieces of
/// a row: coalesced, no shuffles), then a pass that stores the results over
/// the whole domain, then the per-column results.
FailureOr<GpuFusionKernels>
emitColumnReduction(fd::FusionOp fusion, ModuleOp module, StringRef prefix) {
  Block &body = fusion.getBody().front();
  auto yield = cast<fd::YieldOp>(body.getTerminator());
  SmallVector<ReductionInfo> reductions;
  std::optional<ColumnLayout> layout;
  SmallVector<int64_t> domainShape;
  for (auto reduce : body.getOps<fd::ReduceOp>()) {
    FailureOr<ColumnLayout> own = columnLayout(reduce);
    if (failed(own))
      return failure();
    if (layout &&
        (own->outer != layout->outer || own->reduced != layout->reduced ||
         own->inner != layout->inner))
      return unsupportedColumns(reduce,
                                "its columns differ from another reduction's");
    layout = *own;
    domainShape.assign(shapeOf(reduce.getOperand()).begin(),
                       shapeOf(reduce.getOperand()).end());
    FailureOr<ReductionInfo> info =
        classifyReduction(reduce, "column_reduction");
    if (failed(info) ||
        failed(checkColumnwiseUses(reduce.getResult(), *layout, domainShape)))
      return failure();
    reductions.push_back(*info);
  }
  if (reductions.empty())
    return fusion.emitOpError()
           << "cannot be generated for the GPU as a column_reduction "
              "kernel: it has no fuse.reduce";
  int64_t outer = layout->outer, reduced = layout->reduced,
          inner = layout->inner;
  int64_t domain = outer * reduced * inner, columns = outer * inner;

  SmallVector<unsigned> domainResults, columnResults;
  for (auto [r, value] : llvm::enumerate(yield.getValues())) {
    int64_t n = numElements(value.getType());
    if (n == domain && reduced != 1)
      domainResults.push_back(r);
    else if (n == columns)
      columnResults.push_back(r);
    else
      return fusion.emitOpError()
             << "cannot be generated for the GPU as a column_reduction "
                "kernel: result "
             << r << " has " << n << " elements, neither " << columns
             << " columns nor " << domain << " elements";
  }

  unsigned width = inner % kGpuVectorWidth == 0 ? kGpuVectorWidth : 1;
  int64_t groupsPerOuter = inner / width;
  int64_t groups = outer * groupsPerOuter;
  // Few columns: a smaller block, so that its threads have work.
  unsigned blockSize = unsigned(std::clamp<int64_t>(
      ceilDiv(groups, kWarpSize) * kWarpSize, kWarpSize, kGpuBlockSize));

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_columns").str();
  unsigned numResults = yield.getValues().size();
  KernelPointers pointers =
      createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                   /*scratchReadOnly=*/false, blockSize);
  auto c = [&](OpBuilder &builder, int64_t value) {
    return i64Constant(builder, loc, value);
  };
  Value thread = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId(b, loc), blockDim(b, loc)),
      threadId(b, loc));
  Value threads =
      arith::MulIOp::create(b, loc, gridDim(b, loc), blockDim(b, loc));
  auto groupLoop = scf::ForOp::create(b, loc, thread, c(b, groups), threads);
  b.setInsertionPoint(groupLoop.getBody()->getTerminator());
  Value group = groupLoop.getInductionVar();
  Value o = arith::DivUIOp::create(b, loc, group, c(b, groupsPerOuter));
  Value column = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, group, c(b, groupsPerOuter)),
      c(b, width));
  Value domainBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, c(b, reduced * inner)), column);
  Value columnPosition = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, c(b, inner)), column);
  auto indexAt = [&](Value position) -> Index {
    if (width == 1)
      return {Index::Uniform, position};
    return {Index::Contiguous, position, int64_t(width), /*aligned=*/true};
  };

  DenseMap<Value, Value> seeds;
  bool failedBody = false;
  // A loop down the reduced rows; `body` gets the row's index.
  auto rowLoop =
      [&](ValueRange init,
          function_ref<SmallVector<Value>(RegionEmitter &, Index, ValueRange)>
              step) {
        return scf::ForOp::create(
            b, loc, c(b, 0), c(b, reduced), c(b, 1), init,
            [&](OpBuilder &nested, Location nestedLoc, Value r,
                ValueRange acc) {
              RegionEmitter e(nested, nestedLoc, width, pointers.inputs);
              for (auto [value, known] : seeds)
                e.seed(value, known);
              Value position = arith::AddIOp::create(
                  nested, nestedLoc, domainBase,
                  arith::MulIOp::create(nested, nestedLoc, r,
                                        c(nested, inner)));
              SmallVector<Value> next = step(e, indexAt(position), acc);
              if (next.size() != acc.size()) {
                failedBody = true;
                next.assign(acc.begin(), acc.end());
              }
              scf::YieldOp::create(nested, nestedLoc, next);
            });
      };
  for (ReductionInfo &r : reductions) {
    RegionEmitter constants(b, loc, width, pointers.inputs);
    Value init = constants.constant(r.accumulator, r.identity);
    auto loop = rowLoop(
        ValueRange{init}, [&](RegionEmitter &e, Index index, ValueRange acc) {
          FailureOr<Value> x = e.emit(r.op.getOperand(), index);
          if (failed(x))
            return SmallVector<Value>{};
          return SmallVector<Value>{
              combine(e.builder(), e.location(), r, acc[0], *x)};
        });
    if (failedBody)
      return failure();
    Value result = loop.getResult(0);
    if (r.op.getKind() == fd::ReduceKind::mean)
      result = arith::DivFOp::create(
          b, loc, result, constants.constant(r.accumulator, double(reduced)));
    seeds[r.op.getResult()] = result;
  }
  if (!domainResults.empty()) {
    rowLoop(ValueRange{}, [&](RegionEmitter &e, Index index, ValueRange) {
      for (unsigned r : domainResults) {
        Value value = yield.getValues()[r];
        FailureOr<Value> computed = e.emit(value, index);
        if (failed(computed)) {
          failedBody = true;
          break;
        }
        e.store(*computed, elementTypeOf(value), pointers.outputs[r], index);
      }
      return SmallVector<Value>{};
    });
    if (failedBody)
      return failure();
  }
  {
    RegionEmitter e(b, loc, width, pointers.inputs);
    for (auto [value, known] : seeds)
      e.seed(value, known);
    Index index = indexAt(columnPosition);
    for (unsigned r : columnResults) {
      Value value = yield.getValues()[r];
      FailureOr<Value> computed = e.emit(value, index);
      if (failed(computed))
        return failure();
      e.store(*computed, elementTypeOf(value), pointers.outputs[r], index);
    }
  }

  GpuKernelPlan plan;
  plan.entry = name;
  plan.module = name + "_module";
  plan.schedule = ScheduleKind::ColumnReduction;
  plan.launch.gridX = uint32_t(
      std::clamp<int64_t>(ceilDiv(groups, blockSize), 1, kMaxPointwiseBlocks));
  plan.launch.blockX = blockSize;
  plan.launch.iterations = groups;
  for (unsigned i = 0; i < fusion.getInputs().size(); ++i)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionInput, i});
  for (unsigned r = 0; r < numResults; ++r)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionResult, r});
  GpuFusionKernels kernels;
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

/// One block per row (one warp for short rows), rows beyond the grid in a
/// block-stride loop: a pass over the row per reduction, in order (so a
/// reduction may use an earlier one, as softmax's sum uses its max), each
/// combined across the block, then a last pass that stores the results over
/// the row. The passes re-read the row, from L1/L2 after the first.
FailureOr<GpuFusionKernels>
emitRowReduction(fd::FusionOp fusion, ModuleOp module, StringRef prefix) {
  Block &body = fusion.getBody().front();
  auto yield = cast<fd::YieldOp>(body.getTerminator());
  SmallVector<ReductionInfo> reductions;
  int64_t rows = -1, rowLength = -1;
  for (auto reduce : body.getOps<fd::ReduceOp>()) {
    auto type = cast<RankedTensorType>(reduce.getOperand().getType());
    ArrayRef<int64_t> dims = reduce.getDims();
    int64_t rank = type.getRank();
    bool trailing = !dims.empty() && dims.back() == rank - 1 &&
                    dims.front() == rank - int64_t(dims.size());
    if (!trailing)
      return reduce.emitOpError()
             << "cannot be generated for the GPU in a row_reduction kernel: "
                "it does not reduce the trailing dims";
    int64_t length = 1, count = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < rank - int64_t(dims.size()) ? count : length) *= type.getDimSize(d);
    if (rows != -1 && (rows != count || rowLength != length))
      return reduce.emitOpError()
             << "cannot be generated for the GPU in a row_reduction kernel: "
                "its rows differ from another reduction's";
    rows = count;
    rowLength = length;
    FailureOr<ReductionInfo> info = classifyReduction(reduce, "row_reduction");
    if (failed(info) || failed(checkRowwiseUses(reduce.getResult(), rows)))
      return failure();
    reductions.push_back(*info);
  }
  if (reductions.empty())
    return fusion.emitOpError()
           << "cannot be generated for the GPU as a row_reduction kernel: it "
              "has no fuse.reduce";

  SmallVector<unsigned> domainResults, rowResults;
  for (auto [r, value] : llvm::enumerate(yield.getValues())) {
    int64_t n = numElements(value.getType());
    if (n == rows * rowLength && rowLength != 1)
      domainResults.push_back(r);
    else if (n == rows)
      rowResults.push_back(r);
    else
      return fusion.emitOpError()
             << "cannot be generated for the GPU as a row_reduction kernel: "
                "result "
             << r << " has " << n << " elements, neither " << rows
             << " rows nor " << rows * rowLength << " elements";
  }

  // Rows whose length is a multiple of the vector width start aligned and
  // are read 128 bits at a time; others element by element.
  bool vectorize = rowLength % kGpuVectorWidth == 0;
  int64_t steps =
      vectorize ? rowLength / kGpuVectorWidth : std::max<int64_t>(1, rowLength);
  unsigned blockSize = unsigned(std::clamp<int64_t>(
      ceilDiv(steps, kWarpSize) * kWarpSize, kWarpSize, kGpuBlockSize));

  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  std::string name = (prefix + "_rows").str();
  unsigned numResults = yield.getValues().size();
  KernelPointers pointers =
      createKernel(b, module, fusion, name, numResults, /*scratch=*/false,
                   /*scratchReadOnly=*/false, blockSize);
  Value thread = threadId(b, loc);
  Value threads = blockDim(b, loc);
  auto rowLoop = scf::ForOp::create(b, loc, blockId(b, loc),
                                    i64Constant(b, loc, rows), gridDim(b, loc));
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  Value row = rowLoop.getInductionVar();
  Value lo = arith::MulIOp::create(b, loc, row, i64Constant(b, loc, rowLength));
  DenseMap<Value, Value> seeds;
  for (ReductionInfo &r : reductions) {
    RegionEmitter constants(b, loc, kGpuVectorWidth, pointers.inputs);
    RegionEmitter scalarConstants(b, loc, 1, pointers.inputs);
    Value vectorInit = constants.constant(r.accumulator, r.identity);
    Value scalarInit = scalarConstants.constant(r.accumulator, r.identity);
    FailureOr<StridedLoop> loop = emitStridedLoop(
        b, loc, lo, rowLength, thread, threads, vectorize, vectorize,
        kGpuVectorWidth, pointers.inputs, seeds, vectorInit, scalarInit,
        [&](RegionEmitter &e, Index index,
            ValueRange carried) -> FailureOr<SmallVector<Value>> {
          FailureOr<Value> x = e.emit(r.op.getOperand(), index);
          if (failed(x))
            return failure();
          return SmallVector<Value>{combine(b, loc, r, carried[0], *x)};
        });
    if (failed(loop))
      return failure();
    Value result =
        reduceBlock(b, loc, r, loop->vectorResults[0], loop->scalarResults[0]);
    if (r.op.getKind() == fd::ReduceKind::mean)
      result = arith::DivFOp::create(
          b, loc, result,
          scalarConstants.constant(r.accumulator, double(rowLength)));
    seeds[r.op.getResult()] = result;
  }
  if (!domainResults.empty()) {
    FailureOr<StridedLoop> loop = emitStridedLoop(
        b, loc, lo, rowLength, thread, threads, vectorize, vectorize,
        kGpuVectorWidth, pointers.inputs, seeds, {}, {},
        [&](RegionEmitter &e, Index index,
            ValueRange) -> FailureOr<SmallVector<Value>> {
          for (unsigned r : domainResults) {
            Value value = yield.getValues()[r];
            FailureOr<Value> computed = e.emit(value, index);
            if (failed(computed))
              return failure();
            e.store(*computed, elementTypeOf(value), pointers.outputs[r],
                    index);
          }
          return SmallVector<Value>{};
        });
    if (failed(loop))
      return failure();
  }
  bool failedBody = false;
  if (!rowResults.empty())
    onFirstThread(b, loc, [&](OpBuilder &then) {
      RegionEmitter e(then, loc, 1, pointers.inputs);
      for (auto [value, known] : seeds)
        e.seed(value, known);
      Index atRow{Index::Uniform, row};
      for (unsigned r : rowResults) {
        Value value = yield.getValues()[r];
        FailureOr<Value> computed = e.emit(value, atRow);
        if (failed(computed)) {
          failedBody = true;
          return;
        }
        e.store(*computed, elementTypeOf(value), pointers.outputs[r], atRow);
      }
    });
  if (failedBody)
    return failure();
  // The next row's reductions reuse the shared memory of this row's.
  gpu::BarrierOp::create(b, loc);

  GpuKernelPlan plan;
  plan.entry = name;
  plan.module = name + "_module";
  plan.schedule = ScheduleKind::RowReduction;
  plan.launch.gridX = uint32_t(std::clamp<int64_t>(rows, 1, kMaxRowBlocks));
  plan.launch.blockX = blockSize;
  plan.launch.iterations = rows;
  for (unsigned i = 0; i < fusion.getInputs().size(); ++i)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionInput, i});
  for (unsigned r = 0; r < numResults; ++r)
    plan.operands.push_back({GpuKernelOperand::Kind::FusionResult, r});
  GpuFusionKernels kernels;
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

} // namespace

FailureOr<GpuFusionKernels> emitGpuKernels(fd::FusionOp fusion, ModuleOp module,
                                           StringRef namePrefix) {
  switch (fusion.getKind()) {
  case fd::ScheduleKind::pointwise:
    return emitPointwise(fusion, module, namePrefix, ScheduleKind::Pointwise);
  case fd::ScheduleKind::matmul:
    return emitMatmul(fusion, module, namePrefix);
  case fd::ScheduleKind::full_reduction:
    return emitFullReduction(fusion, module, namePrefix);
  case fd::ScheduleKind::row_reduction:
    return emitRowReduction(fusion, module, namePrefix);
  case fd::ScheduleKind::column_reduction:
    return emitColumnReduction(fusion, module, namePrefix);
  default:
    break;
  }
  // Name the op that needs the missing schedule, not a constant before it.
  Operation *anchor = &fusion.getBody().front().front();
  fusion.walk([&](Operation *op) {
    if (isa<fd::MatmulOp, fd::ReduceOp, fd::ArgMaxOp, fd::ArgMinOp>(op) &&
        !isa<fd::MatmulOp, fd::ReduceOp, fd::ArgMaxOp, fd::ArgMinOp>(anchor))
      anchor = op;
  });
  return anchor->emitOpError() << "cannot be generated for the GPU: the "
                               << stringifyScheduleKind(fusion.getKind())
                               << " schedule has no GPU code generator yet";
}

} // namespace fuse
