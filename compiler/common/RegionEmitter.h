//===- RegionEmitter.h - Region values at an index, host and GPU -*- C++
//-*-===//
//
// The part of code generation every schedule of both targets shares: a
// region value is emitted "at an index", the flattened position of the
// element in the value's own shape. Elementwise ops pass the index through;
// broadcast, transpose and slice map it to their operand's position through
// an affine map on coordinates (AffineIndexMap.h); reshape keeps it. An
// index is one of
//   Contiguous(o): lanes o, o+1, ..., o+W-1, inside one aligned block;
//   Uniform(s):    every lane reads position s;
//   Lanes(v):      a vector of arbitrary positions (a gather).
// The map of a broadcast or transpose keeps a contiguous index contiguous
// (or makes it uniform) when the lanes of one block stay inside a run of
// dims it does not reorder; only odd shapes fall back to gathers. Values are
// memoized per index, so a value read twice at one index is emitted once.
//
// The targets derive from RegionEmitterBase (HostRegionEmitter.h,
// GpuRegionEmitter.h) for their own ops (the host's concat, the GPU's
// matmul) and element lowerings (ScalarLowering's hooks).
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_REGIONEMITTER_H
#define FUSE_COMPILER_REGIONEMITTER_H

#include "compiler/common/AffineIndexMap.h"
#include "compiler/common/KernelPlan.h"
#include "compiler/common/ScalarLowering.h"
#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/WindowShape.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <limits>
#include <optional>
#include <tuple>

namespace fuse {
namespace codegen {

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
  /// width, so the lanes are one access aligned to their size (the GPU's
  /// 128-bit loads and stores; the host never sets it).
  bool aligned = false;
};

/// The geometry of an im2col: its operand [leading..., spatial...] is read
/// through a window over its last `n` dims (from `first` on), making
/// [leading, K, P]: `offsets` window offsets K by `positions` output
/// positions P (`out` per spatial dim); `inInner` is the spatial size.
struct Im2colGeometry {
  ArrayRef<int64_t> window, strides, dilations, pads, in;
  int64_t n, first;
  SmallVector<int64_t> out;
  int64_t positions = 1, offsets = 1, inInner = 1;

  explicit Im2colGeometry(fd::Im2colOp im2col)
      : window(im2col.getWindow()), strides(im2col.getStrides()),
        dilations(im2col.getDilations()), pads(im2col.getPads()),
        in(shapeOf(im2col.getOperand())), n(window.size()),
        first(in.size() - n), out(n) {
    for (int64_t d = 0; d < n; ++d) {
      out[d] = ::fuse::poolOutputSize(in[first + d], window[d], strides[d],
                                      dilations[d], pads[d], pads[n + d],
                                      /*ceilMode=*/false);
      positions *= out[d];
      offsets *= window[d];
      inInner *= in[first + d];
    }
  }
};

/// Emits region values at an index, with one vector width (1: scalars),
/// reading region arguments through `argPointers` (pointers in address
/// space `addressSpace`).
class RegionEmitterBase : public ScalarLowering {
public:
  RegionEmitterBase(OpBuilder &b, Location loc, unsigned width,
                    StringRef target, unsigned addressSpace,
                    const DenseMap<Value, Value> &argPointers)
      : ScalarLowering(b, loc, width, target), addressSpace(addressSpace),
        argPointers(argPointers) {}

  /// Values that are already known whatever the index (reduction results).
  void seed(Value regionValue, Value computed) {
    seeded[regionValue] = computed;
  }

  /// Values already computed at every index and kept in compute type at
  /// `base` (indexed by the same index as the value).
  void stash(Value regionValue, Value base) { stashed[regionValue] = base; }

  /// Stores `computed` (in compute type) where stash() would read it.
  void storeStash(Value computed, Value base, Index index) {
    Type element = getElementTypeOrSelf(computed.getType());
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), element, base,
                                        ValueRange{index.value});
    LLVM::StoreOp::create(b, loc, computed, address,
                          element.getIntOrFloatBitWidth() / 8);
  }

  /// The value at `index`. The region is walked with an explicit stack, so
  /// that a long chain of ops does not deepen the native one; ops are created
  /// in the order of a depth-first walk over the operands.
  FailureOr<Value> emit(Value value, Index index) {
    SmallVector<Pending> stack;
    std::optional<std::pair<Value, Index>> next{{value, index}};
    Value result;
    while (true) {
      if (next) {
        auto [nextValue, nextIndex] = *next;
        next.reset();
        FailureOr<Value> started = start(nextValue, nextIndex, stack, next);
        if (failed(started))
          return failure();
        result = *started; // null: the walk continues on the stack
        if (!result)
          continue;
      }
      if (stack.empty())
        return result;
      Pending &top = stack.back();
      if (result) {
        if (!top.op) {
          result = remember(top.value, top.index, result);
          stack.pop_back();
          continue;
        }
        top.operands.push_back(result);
        result = Value();
      }
      if (top.operands.size() < top.op->getNumOperands()) {
        next = {top.op->getOperand(top.operands.size()), top.index};
        continue;
      }
      FailureOr<Value> computed = emitElementwise(top.op, top.operands);
      if (failed(computed))
        return failure();
      result = remember(top.value, top.index, *computed);
      stack.pop_back();
    }
  }

  /// The region value `value` emitted at `index` and stored there in
  /// `base` (a kernel's output): how every schedule writes its results.
  LogicalResult emitStore(Value value, Value base, Index index) {
    FailureOr<Value> computed = emit(value, index);
    if (failed(computed))
      return failure();
    store(*computed, elementTypeOf(value), base, index);
    return success();
  }

  /// The value in its storage type, stored at `index` of `base`; Lanes
  /// scatter one lane at a time, the first `lanes` of them (all: 0).
  void store(Value computed, Type element, Value base, Index index,
             unsigned lanes = 0) {
    Value stored = toStorage(computed, element);
    Type storage = storageType(element);
    if (index.kind == Index::Lanes) {
      for (unsigned lane = 0; lane < (lanes ? lanes : width); ++lane) {
        Value position = vector::ExtractOp::create(b, loc, index.value,
                                                   ArrayRef<int64_t>{lane});
        Value laneValue =
            vector::ExtractOp::create(b, loc, stored, ArrayRef<int64_t>{lane});
        Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage,
                                            base, ValueRange{position});
        LLVM::StoreOp::create(b, loc, laneValue, address,
                              storageBytes(element));
      }
      return;
    }
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                        ValueRange{index.value});
    if (streamingStores && width != 1 && index.kind == Index::Contiguous) {
      // The kernel checked 64-byte alignment: a wider vector (16 x i64) is
      // stored as 64-byte parts.
      LLVM::StoreOp::create(b, loc, stored, address,
                            std::min(width * storageBytes(element), 64u),
                            /*isVolatile=*/false, /*isNonTemporal=*/true);
      return;
    }
    LLVM::StoreOp::create(b, loc, stored, address, alignmentOf(element, index));
  }

  /// The first `lanes` elements of `base` from `position` (scalar i64), in
  /// compute type, zero in the other lanes, which are never read: one
  /// masked vector load.
  Value loadFirstLanes(Value base, Type element, Value position,
                       unsigned lanes) {
    Type storage = storageType(element);
    auto maskType = VectorType::get({width}, b.getI1Type());
    SmallVector<bool> bits;
    for (unsigned lane = 0; lane < width; ++lane)
      bits.push_back(lane < lanes);
    Value mask = arith::ConstantOp::create(
        b, loc, maskType, DenseElementsAttr::get(maskType, ArrayRef(bits)));
    auto vectorType = cast<VectorType>(vectorOf(storage));
    Value zeros = arith::ConstantOp::create(
        b, loc, vectorType,
        DenseElementsAttr::get(vectorType, b.getZeroAttr(storage)));
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                        ValueRange{position});
    Value loaded = LLVM::MaskedLoadOp::create(b, loc, vectorType, address, mask,
                                              zeros, storageBytes(element));
    return toCompute(loaded, element);
  }

  /// Vector stores at contiguous positions bypass the caches (non-temporal)
  /// and are aligned to their size, at most 64 bytes: set by a host kernel
  /// for outputs far larger than the caches, whose positions are multiples
  /// of the width and whose buffers it has checked are 64-byte aligned
  /// (emitStoreLoop).
  bool streamingStores = false;

  Type pointerType() {
    return LLVM::LLVMPointerType::get(b.getContext(), addressSpace);
  }

  /// Every lane's position as a vector.
  Value lanePositions(Index index) {
    auto type = VectorType::get({width}, b.getI64Type());
    if (index.kind == Index::Lanes)
      return index.value;
    Value base = vector::BroadcastOp::create(b, loc, type, index.value);
    if (index.kind == Index::Uniform)
      return base;
    return arith::AddIOp::create(b, loc, base, laneSteps());
  }

  Index mapIndex(Index index, const AffineIndexMap &map) {
    bool allZero =
        llvm::all_of(map.multipliers, [](int64_t m) { return m == 0; });
    if (allZero)
      return {Index::Uniform, i64(map.offset)};
    int64_t block = index.block;
    if (index.kind != Index::Contiguous)
      return {index.kind, applyMap(*this, index.value, map)};
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
      return {Index::Contiguous, applyMap(*this, index.value, map), block,
              index.aligned && outerAligned && contiguousRun % width == 0};
    if (uniformRun % block == 0)
      return {Index::Uniform, applyMap(*this, index.value, map)};
    Value base = vector::BroadcastOp::create(
        b, loc, VectorType::get({width}, b.getI64Type()), index.value);
    Value lanes = arith::AddIOp::create(b, loc, base, laneSteps());
    return {Index::Lanes, applyMap(*this, lanes, map)};
  }

  /// Where some lane of `inRange` is false: stores one of those lanes'
  /// `key` and a set flag in the error record `slot` (KernelAbi.h), with
  /// relaxed atomic stores (chunks and threads of one launch may race to
  /// it). The common path is one test of the mask (an and-reduction of the
  /// lanes on a vector); the lanes outside are found in the branch.
  void reportOutOfRange(Value slot, Value inRange, Value key) {
    Type i64Type = b.getI64Type();
    auto vector = dyn_cast<VectorType>(inRange.getType());
    Value allInside = inRange;
    if (vector)
      allInside = vector::ReductionOp::create(
          b, loc, vector::CombiningKind::AND, inRange);
    Value outside = arith::XOrIOp::create(
        b, loc, allInside,
        arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    auto report = scf::IfOp::create(b, loc, outside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(report.thenBlock()->getTerminator());
    Value value = key;
    if (vector) {
      Value lowest =
          constantVector(i64Type, std::numeric_limits<int64_t>::min());
      value = vector::ReductionOp::create(
          b, loc, vector::CombiningKind::MAXSI,
          arith::SelectOp::create(b, loc, inRange, lowest, key));
    }
    Value valueSlot = LLVM::GEPOp::create(b, loc, pointerType(), i64Type, slot,
                                          ArrayRef<LLVM::GEPArg>{1});
    LLVM::StoreOp::create(b, loc, value, valueSlot, 8, false, false, false,
                          LLVM::AtomicOrdering::monotonic);
    LLVM::StoreOp::create(b, loc, i64(1), slot, 8, false, false, false,
                          LLVM::AtomicOrdering::monotonic);
  }

  /// One step of a scatter's update loop (Ops.def): row `rowIndex` and
  /// update `updateIndex` (the same lanes of the row, of `updates`) combined
  /// as the scatter's reduction says and stored into `out` at `rowIndex`.
  /// Lanes are contiguous or one (the GPU's scalar loop, the host's tail).
  LogicalResult emitScatterStep(fd::ScatterOp scatter, Value out,
                                Index rowIndex, Index updateIndex) {
    Type element = elementTypeOf(scatter.getData());
    FailureOr<Value> update = emit(scatter.getUpdates(), updateIndex);
    if (failed(update))
      return failure();
    Value combined = *update;
    fd::ScatterReduction reduction = scatter.getReduction();
    if (reduction != fd::ScatterReduction::none) {
      Value row = load(out, element, rowIndex);
      Type compute = computeType(element);
      bool isUnsigned = isUnsignedElement(element);
      using R = fd::ScatterReduction;
      if (isa<FloatType>(compute)) {
        combined = reduction == R::add
                       ? Value(arith::AddFOp::create(b, loc, row, *update))
                   : reduction == R::mul
                       ? Value(arith::MulFOp::create(b, loc, row, *update))
                   : reduction == R::max
                       ? Value(arith::MaximumFOp::create(b, loc, row, *update))
                       : Value(arith::MinimumFOp::create(b, loc, row, *update));
      } else if (compute.isInteger(1)) {
        // i1 sums and maxima are ors, products and minima ands (as the
        // reference runtime's stores of a nonzero value).
        combined = reduction == R::add || reduction == R::max
                       ? Value(arith::OrIOp::create(b, loc, row, *update))
                       : Value(arith::AndIOp::create(b, loc, row, *update));
      } else if (isNarrowInteger(element)) {
        return scatter.emitOpError()
               << "cannot be generated for the " << target << ": reduction "
               << stringifyScatterReduction(reduction) << " of " << element
               << " is not supported";
      } else if (reduction == R::add) {
        combined = arith::AddIOp::create(b, loc, row, *update);
      } else if (reduction == R::mul) {
        combined = arith::MulIOp::create(b, loc, row, *update);
      } else if (reduction == R::max) {
        combined = isUnsigned
                       ? Value(arith::MaxUIOp::create(b, loc, row, *update))
                       : Value(arith::MaxSIOp::create(b, loc, row, *update));
      } else {
        combined = isUnsigned
                       ? Value(arith::MinUIOp::create(b, loc, row, *update))
                       : Value(arith::MinSIOp::create(b, loc, row, *update));
      }
    }
    store(combined, element, out, rowIndex);
    return success();
  }

  /// A scatter's index `q` (a scalar position of its indices) as a row:
  /// wrapped when negative, and whether it lies in [0, N); an index outside
  /// is reported in the error record slot `argPointers` maps the scatter's
  /// result to. Scalar emitters only.
  FailureOr<std::pair<Value, Value>> emitScatterRow(fd::ScatterOp scatter,
                                                    Value q) {
    FailureOr<Value> k = emit(scatter.getIndices(), {Index::Uniform, q});
    if (failed(k))
      return failure();
    Value key = *k;
    Type i64Type = b.getI64Type();
    if (key.getType() != i64Type)
      key = arith::ExtSIOp::create(b, loc, i64Type, key);
    return wrapIndex(key, shapeOf(scatter.getData())[0], scatter.getResult(),
                     [&](int64_t v) { return i64(v); });
  }

protected:
  /// A gather's or scatter's `key` (i64: a scalar, or a vector where `c`
  /// makes vectors) wrapped when negative, and whether it lies in
  /// [0, dim); a key outside is reported in the error record slot
  /// `argPointers` maps `result` to. `c` makes the i64 constants.
  std::pair<Value, Value> wrapIndex(Value key, int64_t dim, Value result,
                                    function_ref<Value(int64_t)> c) {
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key, c(0));
    Value wrapped = arith::SelectOp::create(
        b, loc, negative, arith::AddIOp::create(b, loc, key, c(dim)), key);
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          wrapped, c(dim));
    if (Value slot = argPointers.lookup(result))
      reportOutOfRange(slot, inRange, key);
    return {wrapped, inRange};
  }

  /// An op that is neither elementwise nor an index map, at `index`, where
  /// the target has a lowering of it; a null Value where it has none.
  /// Whether the target loads vectors under a lane mask cheaply (the
  /// host's AVX2/AVX-512 masked moves); the GPU's lanes are threads.
  virtual bool maskedVectorLoads() const { return false; }

  virtual FailureOr<Value> emitTargetOp(Operation *op, Index index) {
    return Value();
  }

  /// An elementwise op on its operands (in their compute types); a target
  /// may refuse some before lowerElementwise.
  virtual FailureOr<Value> emitElementwise(Operation *op, ArrayRef<Value> x) {
    return lowerElementwise(op, x);
  }

  /// The element's size, or the whole vector's at an aligned contiguous
  /// index (LLVM splits an access it cannot prove aligned).
  unsigned alignmentOf(Type element, Index index) const {
    if (width != 1 && index.kind == Index::Contiguous && index.aligned)
      return width * storageBytes(element);
    return storageBytes(element);
  }

  /// A value whose emission waits for its operands: an elementwise op's,
  /// one at a time, or (`op` null) the one an index map or reshape reads.
  struct Pending {
    Value value;
    Index index;
    Operation *op;
    SmallVector<Value> operands;
  };

  /// Starts emitting `value` at `index`: its result when no operand needs
  /// emitting first; else a null Value, with `value` pushed on `stack` and
  /// `next` set when one operand is to be started now.
  FailureOr<Value> start(Value value, Index index, SmallVector<Pending> &stack,
                         std::optional<std::pair<Value, Index>> &next) {
    if (Value known = seeded.lookup(value)) {
      if (width == 1 || isa<VectorType>(known.getType()))
        return known;
      Value &splat = seededSplats[value];
      if (!splat)
        splat = vector::BroadcastOp::create(
            b, loc, VectorType::get({width}, known.getType()), known);
      return splat;
    }
    if (auto it = memo.find(memoKey(value, index)); it != memo.end())
      return it->second;
    if (Value base = stashed.lookup(value);
        base && (index.kind == Index::Contiguous ||
                 (index.kind == Index::Uniform && width == 1))) {
      Type element = computeType(elementTypeOf(value));
      Value address = LLVM::GEPOp::create(b, loc, pointerType(), element, base,
                                          ValueRange{index.value});
      Value loaded = LLVM::LoadOp::create(b, loc, vectorOf(element), address,
                                          element.getIntOrFloatBitWidth() / 8);
      return remember(value, index, loaded);
    }
    if (auto arg = dyn_cast<BlockArgument>(value))
      return remember(value, index,
                      load(argPointers.lookup(arg), elementTypeOf(arg), index));
    Operation *op = value.getDefiningOp();
    auto forward = [&](Value operand, Index operandIndex) {
      stack.push_back({value, index, nullptr, {}});
      next = {operand, operandIndex};
      return Value();
    };
    if (auto broadcast = dyn_cast<fd::BroadcastOp>(op))
      return forward(broadcast.getOperand(),
                     mapIndex(index, broadcastMap(broadcast)));
    if (auto transpose = dyn_cast<fd::TransposeOp>(op))
      return forward(transpose.getOperand(),
                     mapIndex(index, transposeMap(transpose)));
    if (auto slice = dyn_cast<fd::SliceOp>(op)) {
      if (std::optional<int64_t> offset = im2colOffsetOf(slice))
        return rememberEmitted(
            value, index,
            emitIm2col(slice.getOperand().getDefiningOp<fd::Im2colOp>(), index,
                       offset));
      return forward(slice.getOperand(), mapIndex(index, sliceMap(slice)));
    }
    if (auto reshape = dyn_cast<fd::ReshapeOp>(op))
      return forward(reshape.getOperand(), index);
    if (auto constant = dyn_cast<fd::ConstantOp>(op))
      return rememberEmitted(value, index, lowerConstant(constant));
    if (auto pool = dyn_cast<fd::PoolOp>(op))
      return rememberEmitted(value, index, emitPool(pool, index));
    if (auto im2col = dyn_cast<fd::Im2colOp>(op))
      return rememberEmitted(value, index, emitIm2col(im2col, index));
    if (auto gather = dyn_cast<fd::GatherOp>(op))
      return rememberEmitted(value, index, emitGather(gather, index));
    FailureOr<Value> own = emitTargetOp(op, index);
    if (failed(own))
      return failure();
    if (*own)
      return remember(value, index, *own);
    if (!op->hasTrait<OpTrait::Elementwise>())
      return unsupported(op, "it is not elementwise and not an index map");
    stack.push_back({value, index, op, {}});
    return Value();
  }

  /// The window offset k of a slice that takes one k of an im2col's [L...,
  /// K, P] and all the rest, unstrided (its result [L..., 1, P] is indexed
  /// as [L, P]); none for another slice.
  static std::optional<int64_t> im2colOffsetOf(fd::SliceOp slice) {
    auto im2col = slice.getOperand().getDefiningOp<fd::Im2colOp>();
    if (!im2col)
      return std::nullopt;
    ArrayRef<int64_t> shape = shapeOf(im2col.getResult());
    ArrayRef<int64_t> offsets = slice.getOffsets(), sizes = slice.getSizes(),
                      strides = slice.getStrides();
    size_t rank = shape.size();
    for (size_t d = 0; d < rank; ++d) {
      bool kDim = d == rank - 2;
      if ((kDim ? sizes[d] != 1 : sizes[d] != shape[d] || offsets[d] != 0) ||
          (d < strides.size() && strides[d] != 1 && sizes[d] != 1))
        return std::nullopt;
    }
    return offsets[rank - 2];
  }

  /// Every lane's position in vectorOf(i64) (a scalar at width 1).
  Value positionsOf(Index index) {
    if (width != 1)
      return lanePositions(index);
    if (index.kind == Index::Lanes)
      return vector::ExtractOp::create(b, loc, index.value,
                                       ArrayRef<int64_t>{0});
    return index.value;
  }

  /// The coordinates of every lane of `index` in a row-major shape `sizes`
  /// (outermost first; the outermost is not wrapped), as vectors of
  /// `indexType`. A contiguous index whose innermost dim holds at least a
  /// vector is decoded once, for its first lane, with scalar divisions; the
  /// other lanes add 0..W-1 to the innermost coordinate and carry (at most
  /// one per dim) outwards: a compare and two selects per dim instead of a
  /// vector division (which x86 does lane by lane for i64). Else each lane
  /// is decoded.
  SmallVector<Value> laneCoordinates(Index index, ArrayRef<int64_t> sizes,
                                     Type indexType) {
    const size_t n = sizes.size();
    SmallVector<Value> coordinates(n);
    auto cI = [&](int64_t v) { return constant(indexType, double(v)); };
    bool incremental = width != 1 && index.kind == Index::Contiguous &&
                       sizes.back() >= int64_t(width);
    Value position = incremental ? index.value : positionsOf(index);
    // The decode's constants: scalar i64 for the first lane, else lanes.
    auto cP = [&](int64_t v) { return incremental ? i64(v) : cI(v); };
    if (!incremental && indexType != b.getI64Type())
      position = arith::TruncIOp::create(b, loc, vectorOf(indexType), position);
    int64_t inner = 1;
    for (size_t d = n; d-- > 0;) {
      Value q =
          inner == 1
              ? position
              : arith::DivUIOp::create(b, loc, position, cP(inner)).getResult();
      coordinates[d] =
          d == 0 ? q
                 : arith::RemUIOp::create(b, loc, q, cP(sizes[d])).getResult();
      inner *= sizes[d];
    }
    if (!incremental)
      return coordinates;
    for (Value &coordinate : coordinates) {
      if (indexType != b.getI64Type())
        coordinate = arith::TruncIOp::create(b, loc, indexType, coordinate);
      coordinate =
          vector::BroadcastOp::create(b, loc, vectorOf(indexType), coordinate);
    }
    Value steps = laneSteps();
    if (indexType != b.getI64Type())
      steps = arith::TruncIOp::create(b, loc, vectorOf(indexType), steps);
    coordinates[n - 1] =
        arith::AddIOp::create(b, loc, coordinates[n - 1], steps);
    for (size_t d = n - 1; d > 0; --d) {
      Value carry = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          coordinates[d], cI(sizes[d]));
      coordinates[d] = arith::SelectOp::create(
          b, loc, carry,
          arith::SubIOp::create(b, loc, coordinates[d], cI(sizes[d])),
          coordinates[d]);
      coordinates[d - 1] = arith::AddIOp::create(
          b, loc, coordinates[d - 1],
          arith::ExtUIOp::create(b, loc, vectorOf(indexType), carry));
    }
    return coordinates;
  }

  /// A window reduction at `index` (the window_reduction schedule's one
  /// definition, ScheduleLegality.h): the output coordinates of the window
  /// dims are decoded from the position, and each of the window's positions
  /// (unrolled; the schedule bounds their count) is read from the operand at
  /// a gathered index, clamped to 0 where it falls in the padding and masked
  /// out of the combination there.
  FailureOr<Value> emitPool(fd::PoolOp pool, Index index) {
    ArrayRef<int64_t> window = pool.getWindow(), strides = pool.getStrides(),
                      dilations = pool.getDilations(), pads = pool.getPads();
    ArrayRef<int64_t> in = shapeOf(pool.getOperand()),
                      out = shapeOf(pool.getResult());
    int64_t n = window.size(), first = in.size() - n;
    Type element = elementTypeOf(pool.getResult());
    Type compute = computeType(element);
    Type i1Type = b.getI1Type();
    Type indexType = windowIndexType(pool.getOperand(), pool.getResult(),
                                     window, strides, dilations, pads);
    bool isMax = pool.getKind() == fd::ReduceKind::max;
    auto c64 = [&](int64_t v) { return indexConstant(indexType, v); };
    auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
      return arith::CmpIOp::create(b, loc, p, x, y).getResult();
    };
    // Output coordinates of the window dims; the leading dims' offset.
    int64_t outInner = 1, inInner = 1;
    for (int64_t d = 0; d < n; ++d)
      outInner *= out[first + d];
    SmallVector<int64_t> sizes{numElementsOf(pool.getResult()) /
                               std::max<int64_t>(1, outInner)};
    sizes.append(out.begin() + first, out.end());
    SmallVector<Value> coordinates = laneCoordinates(index, sizes, indexType);
    SmallVector<Value> starts(n);
    SmallVector<int64_t> inStrides(n);
    for (int64_t d = n - 1; d >= 0; --d) {
      starts[d] = arith::SubIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, coordinates[1 + d], c64(strides[d])),
          c64(pads[d]));
      inStrides[d] = inInner;
      inInner *= in[first + d];
    }
    Value base = arith::MulIOp::create(b, loc, coordinates[0], c64(inInner));

    Value acc, count = constant(compute, 0.0);
    if (isMax && isa<FloatType>(compute))
      acc = constant(compute, -std::numeric_limits<double>::infinity());
    else if (isMax)
      acc = integerConstant(
          compute,
          isUnsignedElement(element)
              ? APInt::getZero(compute.getIntOrFloatBitWidth())
              : APInt::getSignedMinValue(element.getIntOrFloatBitWidth())
                    .sext(compute.getIntOrFloatBitWidth()));
    else
      acc = constant(compute, 0.0);
    SmallVector<int64_t> offset(n, 0);
    while (true) {
      Value inside = constant(i1Type, 1), counted = constant(i1Type, 1);
      Value at = base;
      for (int64_t d = 0; d < n; ++d) {
        Value c = arith::AddIOp::create(b, loc, starts[d],
                                        c64(offset[d] * dilations[d]));
        // 0 <= c < in, and -begin <= c < in + end, as unsigned compares.
        inside = arith::AndIOp::create(
            b, loc, inside,
            cmp(arith::CmpIPredicate::ult, c, c64(in[first + d])));
        counted = arith::AndIOp::create(
            b, loc, counted,
            cmp(arith::CmpIPredicate::ult,
                arith::AddIOp::create(b, loc, c, c64(pads[d])),
                c64(in[first + d] + pads[d] + pads[n + d])));
        at = arith::AddIOp::create(
            b, loc, at, arith::MulIOp::create(b, loc, c, c64(inStrides[d])));
      }
      FailureOr<Value> x = windowLoad(pool.getOperand(), at, inside, element);
      if (failed(x))
        return failure();
      Value combined;
      if (!isMax)
        combined = arith::AddFOp::create(b, loc, acc, *x);
      else if (isa<FloatType>(compute))
        combined = arith::MaximumFOp::create(b, loc, acc, *x);
      else if (isUnsignedElement(element))
        combined = arith::MaxUIOp::create(b, loc, acc, *x);
      else
        combined = arith::MaxSIOp::create(b, loc, acc, *x);
      acc = arith::SelectOp::create(b, loc, inside, combined, acc);
      if (!isMax)
        count = arith::AddFOp::create(
            b, loc, count,
            arith::SelectOp::create(
                b, loc, pool.getCountIncludePad() ? counted : inside,
                constant(compute, 1.0), constant(compute, 0.0)));
      int64_t d = n - 1;
      while (d >= 0 && ++offset[d] == window[d])
        offset[d--] = 0;
      if (d < 0)
        break;
    }
    return isMax ? acc : arith::DivFOp::create(b, loc, acc, count).getResult();
  }

  /// An im2col at `index` (the window_reduction schedule, one position per
  /// element): the position p and the window offset k are decoded from the
  /// index ([leading, K, P]), and the operand is read at p * stride - begin
  /// + k * dilation per window dim, clamped to 0 in the padding, where the
  /// result is zero. A vector whose lanes stay inside one output row of a
  /// unit-stride last window dim (always when the rows are whole aligned
  /// blocks of the index; else checked per vector) reads consecutive input
  /// positions: one masked vector load (emitIm2colRun) instead of a decode
  /// and a load per lane (emitIm2colGather). With `offset`, the index is
  /// over [leading, P] at that one window offset k (a slice of the im2col
  /// at one k, as a depthwise convolution reads it): the offset's window
  /// coordinates are constants, and the decode of p is the same for every
  /// offset, so the slices share it.
  FailureOr<Value> emitIm2col(fd::Im2colOp im2col, Index index,
                              std::optional<int64_t> offset = std::nullopt) {
    Im2colGeometry g(im2col);
    int64_t lastOut = g.out.back();
    auto operand = dyn_cast<BlockArgument>(im2col.getOperand());
    Value operandPointer = operand ? argPointers.lookup(operand) : Value();
    Type element = elementTypeOf(im2col.getOperand());
    int64_t stride = g.strides.back();
    if (!maskedVectorLoads() || width == 1 || index.kind != Index::Contiguous ||
        !operandPointer || stride > 2 || lastOut < int64_t(width) ||
        storageType(element).getIntOrFloatBitWidth() < 32)
      return emitIm2colGather(im2col, index, offset);
    Value zero = i64(0), lanes = i64(width);
    if (index.block > 0 && lastOut % index.block == 0)
      return emitIm2colRun(im2col, index.value, operandPointer, offset, zero,
                           zero, lanes);
    // The result is [leading, K, P], the output positions P innermost. A
    // vector inside one output row is one run; one that crosses rows is in
    // pieces, one per row: piece i from lane j_i (j_0 = 0, then where each
    // row starts), each a run.
    int64_t positions = shapeOf(im2col.getResult()).back();
    Value column = arith::RemUIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, index.value, i64(positions)),
        i64(lastOut));
    Value rowLeft = arith::SubIOp::create(b, loc, i64(lastOut), column);
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                       rowLeft, lanes);
    Type compute = vectorOf(computeType(elementTypeOf(im2col.getResult())));
    auto branch = scf::IfOp::create(b, loc, TypeRange{compute}, fits,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc,
                         emitIm2colRun(im2col, index.value, operandPointer,
                                       offset, zero, zero, lanes));
    b.setInsertionPointToStart(branch.elseBlock());
    Value from = zero, to = rowLeft;
    Value result = emitIm2colRun(im2col, index.value, operandPointer, offset,
                                 zero, from, to);
    // Rows are at least a vector long (narrower ones, in three or more
    // pieces, measured slower than a gather: 14-wide rows 0.15 -> 0.22 ms).
    int64_t pieces = 1 + (int64_t(width) - 2) / lastOut + 1;
    auto i64Vector = VectorType::get({width}, b.getI64Type());
    for (int64_t i = 1; i < pieces; ++i) {
      from = to;
      to = arith::MinUIOp::create(
          b, loc, lanes, arith::AddIOp::create(b, loc, from, i64(lastOut)));
      // An empty piece (from >= W) reads nothing: its start is clamped to
      // the vector's own so that its decode stays in range.
      Value start = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, from, lanes),
          arith::AddIOp::create(b, loc, index.value, from), index.value);
      Value piece =
          emitIm2colRun(im2col, start, operandPointer, offset, from, from, to);
      Value inPiece = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, laneSteps(),
          vector::BroadcastOp::create(b, loc, i64Vector, from));
      result = arith::SelectOp::create(b, loc, inPiece, piece, result);
    }
    scf::YieldOp::create(b, loc, result);
    return branch.getResult(0);
  }

  /// emitIm2col's lanes [from, to) (scalar i64), which stay inside one
  /// output row: lane j is the element at position `start` + j - `shift`,
  /// decoded once (for `start`); along the last window dim lane j reads
  /// input column lastC + (j - shift) * stride, with stride 1 one masked
  /// vector load, with stride 2 one masked load of twice the lanes and
  /// their even elements. Lanes outside [from, to), and in the padding,
  /// are zero and read nothing.
  Value emitIm2colRun(fd::Im2colOp im2col, Value start, Value operandPointer,
                      std::optional<int64_t> offset, Value shift, Value from,
                      Value to) {
    const Im2colGeometry g(im2col);
    Type element = elementTypeOf(im2col.getOperand());
    auto c64 = [&](int64_t v) { return i64(v); };
    auto divRem64 = [&](Value x, int64_t inner, int64_t size) {
      Value q = arith::DivUIOp::create(b, loc, x, c64(inner));
      return arith::RemUIOp::create(b, loc, q, c64(size)).getResult();
    };
    Value p = arith::RemUIOp::create(b, loc, start, c64(g.positions));
    Value k = offset ? c64(*offset) : divRem64(start, g.positions, g.offsets);
    Value leading = arith::DivUIOp::create(
        b, loc, start, c64(g.positions * (offset ? 1 : g.offsets)));
    Value at = arith::MulIOp::create(b, loc, leading, c64(g.inInner));
    Value inside = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value lastC;
    int64_t outInner = 1, windowInner = 1, inStride = 1;
    for (int64_t d = g.n - 1; d >= 0; --d) {
      Value o = divRem64(p, outInner, g.out[d]);
      Value w = divRem64(k, windowInner, g.window[d]);
      Value c = arith::AddIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc, arith::MulIOp::create(b, loc, o, c64(g.strides[d])),
              c64(g.pads[d])),
          arith::MulIOp::create(b, loc, w, c64(g.dilations[d])));
      if (d == g.n - 1)
        lastC = c;
      else
        inside = arith::AndIOp::create(
            b, loc, inside,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                  c64(g.in[g.first + d])));
      at = arith::AddIOp::create(
          b, loc, at, arith::MulIOp::create(b, loc, c, c64(inStride)));
      outInner *= g.out[d];
      windowInner *= g.window[d];
      inStride *= g.in[g.first + d];
    }
    // Lane j reads column lastC + (j - shift) * stride, inside its row and
    // every other window dim inside; the load touches no other address.
    const int64_t stride = g.strides.back();
    auto i64Vector = VectorType::get({width}, b.getI64Type());
    auto splat = [&](Value x) {
      return vector::BroadcastOp::create(b, loc, i64Vector, x).getResult();
    };
    Value steps = laneSteps();
    Value relative = arith::SubIOp::create(b, loc, steps, splat(shift));
    Value columns = arith::AddIOp::create(
        b, loc, splat(lastC),
        stride == 1
            ? relative
            : arith::MulIOp::create(b, loc, relative, splat(c64(stride)))
                  .getResult());
    auto ult = [&](Value x, Value y) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
          .getResult();
    };
    Value mask = arith::AndIOp::create(
        b, loc, ult(columns, splat(c64(g.in[g.in.size() - 1]))),
        vector::BroadcastOp::create(
            b, loc, VectorType::get({width}, b.getI1Type()), inside));
    mask = arith::AndIOp::create(
        b, loc, mask,
        arith::AndIOp::create(b, loc,
                              arith::CmpIOp::create(b, loc,
                                                    arith::CmpIPredicate::uge,
                                                    steps, splat(from)),
                              ult(steps, splat(to))));
    // The address of lane 0's element (lane `shift` is at `at`).
    at = arith::SubIOp::create(
        b, loc, at, arith::MulIOp::create(b, loc, shift, c64(stride)));
    Type storage = storageType(element);
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage,
                                        operandPointer, ValueRange{at});
    auto zerosOf = [&](VectorType type) {
      return arith::ConstantOp::create(
          b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(storage)));
    };
    if (stride == 1) {
      Value loaded = LLVM::MaskedLoadOp::create(
          b, loc, vectorOf(storage), address, mask,
          zerosOf(cast<VectorType>(vectorOf(storage))), storageBytes(element));
      return toCompute(loaded, element);
    }
    // Stride 2: elements [0, 2W) from lane 0's, lane j's at 2j; the odd
    // ones are masked off.
    auto wide = VectorType::get({2 * int64_t(width)}, storage);
    SmallVector<int32_t> spread, evens;
    for (unsigned e = 0; e < 2 * width; ++e)
      spread.push_back(e % 2 == 0 ? int32_t(e / 2) : int32_t(width));
    for (unsigned j = 0; j < width; ++j)
      evens.push_back(int32_t(2 * j));
    Value none = arith::ConstantOp::create(
        b, loc, VectorType::get({width}, b.getI1Type()),
        DenseElementsAttr::get(VectorType::get({width}, b.getI1Type()), false));
    Value wideMask = LLVM::ShuffleVectorOp::create(b, loc, mask, none, spread);
    Value loaded = LLVM::MaskedLoadOp::create(
        b, loc, wide, address, wideMask, zerosOf(wide), storageBytes(element));
    Value lanesValue =
        LLVM::ShuffleVectorOp::create(b, loc, loaded, loaded, evens);
    return toCompute(lanesValue, element);
  }

  /// emitIm2col lane by lane: each lane's position decoded and loaded.
  FailureOr<Value> emitIm2colGather(fd::Im2colOp im2col, Index index,
                                    std::optional<int64_t> offset) {
    const Im2colGeometry g(im2col);
    Type indexType = windowIndexType(im2col.getOperand(), im2col.getResult(),
                                     g.window, g.strides, g.dilations, g.pads);
    auto cI = [&](int64_t v) { return indexConstant(indexType, v); };
    // [leading, window dims..., output dims...]: the result's [L, K, P]
    // (with `offset`, [leading, output dims...] and constant window dims).
    SmallVector<int64_t> sizes{numElementsOf(im2col.getResult()) /
                               (g.positions * g.offsets)};
    if (!offset)
      sizes.append(g.window.begin(), g.window.end());
    sizes.append(g.out.begin(), g.out.end());
    SmallVector<Value> coordinates = laneCoordinates(index, sizes, indexType);
    const int64_t outFirst = offset ? 1 : 1 + g.n;
    Value at = arith::MulIOp::create(b, loc, coordinates[0], cI(g.inInner));
    Value inside = constant(b.getI1Type(), 1);
    int64_t inStride = 1, windowInner = 1;
    for (int64_t d = g.n - 1; d >= 0; --d) {
      Value o = coordinates[outFirst + d];
      Value w =
          offset ? cI(*offset / windowInner % g.window[d]) : coordinates[1 + d];
      windowInner *= g.window[d];
      Value c = arith::AddIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc, arith::MulIOp::create(b, loc, o, cI(g.strides[d])),
              cI(g.pads[d])),
          arith::MulIOp::create(b, loc, w, cI(g.dilations[d])));
      // 0 <= c < in as one unsigned compare.
      inside = arith::AndIOp::create(
          b, loc, inside,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                cI(g.in[g.first + d])));
      at = arith::AddIOp::create(
          b, loc, at, arith::MulIOp::create(b, loc, c, cI(inStride)));
      inStride *= g.in[g.first + d];
    }
    return windowLoad(im2col.getOperand(), at, inside,
                      elementTypeOf(im2col.getResult()));
  }

  /// The index type of a window kernel's arithmetic: i32 where every
  /// position of its operand and result fits, and so does every coordinate
  /// the window computes (a pad, a stride times an output coordinate, a
  /// dilation times a window offset: a pool dilated by 2^62 over 3 elements
  /// wrapped in i32 and read its padding as elements, issue 19); vector
  /// divisions by a constant then become multiplies (there is no 64-bit
  /// vector multiply-high). Else i64.
  Type windowIndexType(Value operand, Value result, ArrayRef<int64_t> window,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                       ArrayRef<int64_t> pads) {
    constexpr int64_t kNarrowLimit = int64_t(1) << 30;
    bool narrow = numElementsOf(result) < kNarrowLimit &&
                  numElementsOf(operand) < kNarrowLimit;
    ArrayRef<int64_t> out = shapeOf(result);
    const size_t n = window.size();
    for (size_t d = 0; d < n && narrow; ++d) {
      const int64_t outDim = out[out.size() - n + d];
      narrow =
          (CheckedInt(strides[d]) * outDim).saturated() < kNarrowLimit &&
          (CheckedInt(dilations[d]) * window[d]).saturated() < kNarrowLimit &&
          pads[d] < kNarrowLimit && pads[n + d] < kNarrowLimit;
    }
    return narrow ? b.getI32Type() : b.getI64Type();
  }

  /// An integer constant of a window kernel's index type, exact (constant()
  /// goes through a double, which rounds past 2^53).
  Value indexConstant(Type indexType, int64_t value) {
    return integerConstant(
        indexType, APInt(indexType.getIntOrFloatBitWidth(), uint64_t(value),
                         /*isSigned=*/true, /*implicitTrunc=*/true));
  }

  static int64_t numElementsOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getNumElements();
  }

  /// `operand` at positions `at` (in a window kernel's index type) where
  /// `inside`, zero elsewhere, in `resultElement`'s compute type: emitted
  /// at the positions clamped to 0 outside. (An llvm.masked.gather instead
  /// measured no faster on AVX-512 for im2col and pooling, and slower for
  /// other gathered reads: mobilenet_v2 11.7 -> 12.5 ms.)
  FailureOr<Value> windowLoad(Value operand, Value at, Value inside,
                              Type resultElement) {
    Type i64Type = b.getI64Type();
    Type compute = computeType(resultElement);
    Value safe = arith::SelectOp::create(
        b, loc, inside, at, constant(getElementTypeOrSelf(at.getType()), 0.0));
    if (getElementTypeOrSelf(safe.getType()) != i64Type)
      safe = arith::ExtUIOp::create(b, loc, vectorOf(i64Type), safe);
    FailureOr<Value> x = emit(operand, width == 1 ? Index{Index::Uniform, safe}
                                                  : Index{Index::Lanes, safe});
    if (failed(x))
      return failure();
    return arith::SelectOp::create(b, loc, inside, *x, constant(compute, 0.0))
        .getResult();
  }

  /// A gather at `index` (Ops.def; every schedule reads it the same way):
  /// the indices are read at the result position's index coordinates (an
  /// index map: uniform along an embedding's row, so one index per vector),
  /// wrapped when negative, and the data, a kernel input, is loaded at the
  /// position they select (contiguous when the index is uniform and the
  /// result position contiguous). An index outside [-dim, dim) is never
  /// read: the load takes position 0 of the axis instead, and the kernel
  /// reports the index in its error record (KernelAbi.h), whose slot for
  /// this gather `argPointers` maps the gather's result to.
  FailureOr<Value> emitGather(fd::GatherOp gather, Index index) {
    auto data = dyn_cast<BlockArgument>(gather.getData());
    if (!data || !argPointers.lookup(data))
      return unsupported(gather, "its data is computed in the kernel (a "
                                 "gather reads it from memory)");
    ArrayRef<int64_t> dataShape = shapeOf(gather.getData()),
                      indexShape = shapeOf(gather.getIndices()),
                      out = shapeOf(gather.getResult());
    int64_t axis = gather.getAxis(), q = indexShape.size();
    SmallVector<int64_t> dataStrides = rowMajorStrides(dataShape),
                         indexStrides = rowMajorStrides(indexShape);
    // Result coordinates -> the indices' position, and -> the data's
    // position without the axis' term.
    AffineIndexMap indexMap, baseMap;
    indexMap.resultShape.assign(out.begin(), out.end());
    baseMap.resultShape.assign(out.begin(), out.end());
    indexMap.multipliers.assign(out.size(), 0);
    baseMap.multipliers.assign(out.size(), 0);
    for (int64_t d = 0; d < axis; ++d)
      baseMap.multipliers[d] = dataStrides[d];
    for (int64_t j = 0; j < q; ++j)
      indexMap.multipliers[axis + j] = indexStrides[j];
    for (int64_t d = axis + 1; d < int64_t(dataShape.size()); ++d)
      baseMap.multipliers[d - 1 + q] = dataStrides[d];
    Index at = mapIndex(index, indexMap);
    FailureOr<Value> k = emit(gather.getIndices(), at);
    if (failed(k))
      return failure();
    // One index for every lane: a scalar.
    bool uniform = at.kind == Index::Uniform;
    Value key = *k;
    if (uniform && width != 1)
      key = vector::ExtractOp::create(b, loc, key, ArrayRef<int64_t>{0});
    Type i64Type = b.getI64Type();
    Type keyType = uniform ? i64Type : vectorOf(i64Type);
    if (getElementTypeOrSelf(key.getType()) != i64Type)
      key = arith::ExtSIOp::create(b, loc, keyType, key);
    auto c64 = [&](int64_t v) {
      return uniform || width == 1 ? i64(v) : constantVector(i64Type, v);
    };
    auto [wrapped, inRange] =
        wrapIndex(key, dataShape[axis], gather.getResult(), c64);
    Value safe = arith::SelectOp::create(b, loc, inRange, wrapped, c64(0));
    Value offset = arith::MulIOp::create(b, loc, safe, c64(dataStrides[axis]));
    Index base = mapIndex(index, baseMap);
    Index position;
    if (width == 1) {
      Value start = base.value;
      if (base.kind == Index::Lanes)
        start = vector::ExtractOp::create(b, loc, start, ArrayRef<int64_t>{0});
      position = {Index::Uniform, arith::AddIOp::create(b, loc, start, offset)};
    } else if (uniform && base.kind != Index::Lanes) {
      position = {base.kind, arith::AddIOp::create(b, loc, base.value, offset),
                  base.block, base.aligned && dataStrides[axis] % width == 0};
    } else {
      Value lanes = lanePositions(base);
      if (uniform)
        offset = vector::BroadcastOp::create(b, loc, vectorOf(i64Type), offset);
      position = {Index::Lanes, arith::AddIOp::create(b, loc, lanes, offset)};
    }
    return load(argPointers.lookup(data), elementTypeOf(data), position);
  }

  static std::tuple<Value, Value, unsigned> memoKey(Value value, Index index) {
    return std::make_tuple(value, index.value, unsigned(index.kind));
  }

  /// An op's own lowering, remembered where it succeeded.
  FailureOr<Value> rememberEmitted(Value value, Index index,
                                   FailureOr<Value> emitted) {
    if (failed(emitted))
      return failure();
    return remember(value, index, *emitted);
  }

  Value remember(Value value, Index index, Value computed) {
    memo[memoKey(value, index)] = computed;
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

  unsigned addressSpace;
  const DenseMap<Value, Value> &argPointers;
  DenseMap<Value, Value> seeded, seededSplats, stashed;
  DenseMap<std::tuple<Value, Value, unsigned>, Value> memo;
};

/// A target's region emitter (`Derived`: HostRegionEmitter.h's,
/// GpuRegionEmitter.h's): RegionEmitterBase with the target's name
/// (`Derived::kTarget`) and address space (`Derived::kAddressSpace`), made
/// as every schedule makes one, and the one op only that target lowers
/// (`OwnOp`: the host's concat, the GPU's matmul) emitted by
/// `Derived::emitOwnOp`.
template <class Derived, class OwnOp>
class TargetRegionEmitter : public RegionEmitterBase {
public:
  TargetRegionEmitter(OpBuilder &b, Location loc, unsigned width,
                      const DenseMap<Value, Value> &argPointers)
      : RegionEmitterBase(b, loc, width, Derived::kTarget,
                          Derived::kAddressSpace, argPointers) {}

private:
  FailureOr<Value> emitTargetOp(Operation *op, Index index) override {
    if (auto own = dyn_cast<OwnOp>(op))
      return static_cast<Derived *>(this)->emitOwnOp(own, index);
    return Value();
  }
};

/// The buffers of `results` in their order, from a kernel's `outputs` (one
/// per result of the fusion).
inline SmallVector<Value> outputsOf(ArrayRef<Value> outputs,
                                    ArrayRef<unsigned> results) {
  SmallVector<Value> selected;
  for (unsigned r : results)
    selected.push_back(outputs[r]);
  return selected;
}

/// The yielded values `results` emitted at `index`, results[k] stored in
/// outputs[k].
inline LogicalResult storeResults(RegionEmitterBase &e, Index index,
                                  ValueRange yielded,
                                  ArrayRef<unsigned> results,
                                  ArrayRef<Value> outputs) {
  for (auto [r, out] : llvm::zip_equal(results, outputs))
    if (failed(e.emitStore(yielded[r], out, index)))
      return failure();
  return success();
}

/// The results a kernel computes once per row, column or fusion, after its
/// reductions: storeResults with a target emitter (`Emitter`) of `width`
/// lanes that knows `seeds` (the reductions' results).
template <class Emitter>
LogicalResult storeSeededResults(OpBuilder &b, Location loc, unsigned width,
                                 const DenseMap<Value, Value> &pointers,
                                 const DenseMap<Value, Value> &seeds,
                                 Index index, ValueRange yielded,
                                 ArrayRef<unsigned> results,
                                 ArrayRef<Value> outputs) {
  Emitter e(b, loc, width, pointers);
  for (auto [value, known] : seeds)
    e.seed(value, known);
  return storeResults(e, index, yielded, results, outputs);
}

/// One step of a schedule's loop over positions: `body` runs at `index`
/// with the loop-carried values and a target emitter (`Emitter`: the
/// host's or the GPU's RegionEmitter) of `width` lanes that knows `seeds`
/// (results of earlier reductions). Returns the values carried on.
template <class Emitter, class Body>
FailureOr<SmallVector<Value>>
runStep(OpBuilder &b, Location loc, unsigned width,
        const DenseMap<Value, Value> &pointers,
        const DenseMap<Value, Value> &seeds, Index index, ValueRange carried,
        Body &&body) {
  Emitter emitter(b, loc, width, pointers);
  for (auto [value, known] : seeds)
    emitter.seed(value, known);
  return body(emitter, index, carried);
}

/// runStep as the whole body of an scf.for, which yields what it returns:
/// when it fails, the carried values unchanged, and `failedBody` is set (the
/// caller fails once the loop is built).
template <class Emitter, class Body>
void yieldStep(OpBuilder &b, Location loc, unsigned width,
               const DenseMap<Value, Value> &pointers,
               const DenseMap<Value, Value> &seeds, Index index,
               ValueRange carried, Body &&body, bool &failedBody) {
  FailureOr<SmallVector<Value>> next =
      runStep<Emitter>(b, loc, width, pointers, seeds, index, carried, body);
  if (failed(next)) {
    failedBody = true;
    scf::YieldOp::create(b, loc, carried);
    return;
  }
  scf::YieldOp::create(b, loc, *next);
}

/// A pointwise kernel (and the GPU's pull-form matmul) writes every result
/// at the same positions: each must have `domain` elements. The error names
/// `target` ("host", "GPU").
inline LogicalResult checkYields(fd::FusionOp fusion, int64_t domain,
                                 StringRef target) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  for (Value value : yield.getValues())
    if (numElements(value.getType()) != domain)
      return fusion.emitOpError()
             << "cannot be generated for the " << target
             << ": a pointwise kernel's results must all have " << domain
             << " elements, one has " << numElements(value.getType());
  return success();
}

/// A pointwise kernel's frame, for every target: no kernel for a fusion
/// that yields nothing, checkYields, then `emitKernel(builder, location,
/// domain, yielded values)`, the target's kernel.
template <class EmitKernel>
FailureOr<FusionKernels> emitPointwiseKernel(fd::FusionOp fusion,
                                             ModuleOp module, StringRef target,
                                             EmitKernel &&emitKernel) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  if (yield.getValues().empty())
    return FusionKernels{};
  int64_t domain = numElements(yield.getValues().front().getType());
  if (failed(checkYields(fusion, domain, target)))
    return failure();
  OpBuilder b(module.getContext());
  return emitKernel(b, fusion.getLoc(), domain, yield.getValues());
}

/// The step of a pointwise loop: each yielded value stored at `index` in
/// its output (yielded[k] in outputs[k]); nothing carried.
inline FailureOr<SmallVector<Value>> storeStep(RegionEmitterBase &e,
                                               Index index, ValueRange yielded,
                                               ArrayRef<Value> outputs) {
  for (auto [value, out] : llvm::zip_equal(yielded, outputs))
    if (failed(e.emitStore(value, out, index)))
      return failure();
  return SmallVector<Value>{};
}

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_REGIONEMITTER_H
