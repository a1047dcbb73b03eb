//===- RegionEmitter.cpp - Region values at an index, host and GPU --------===//

#include "compiler/common/RegionEmitter.h"

#include "dialect/FuseDims.h"
#include "runtime/ir/CheckedInt.h"

#include "mlir/IR/Matchers.h"

namespace fuse {
namespace codegen {

using namespace mlir;

Im2colGeometry::Im2colGeometry(fd::Im2colOp im2col)
    : window(im2col.getWindow()), strides(im2col.getStrides()),
      dilations(im2col.getDilations()), pads(im2col.getPads()),
      in(shapeOf(im2col.getOperand())), n(window.size()), first(in.size() - n),
      out(n) {
  for (int64_t d = 0; d < n; ++d) {
    out[d] = ::fuse::poolOutputSize(in[first + d], window[d], strides[d],
                                    dilations[d], pads[d], pads[n + d],
                                    /*ceilMode=*/false);
    positions *= out[d];
    offsets *= window[d];
    inInner *= in[first + d];
  }
}

Value Im2colGeometry::windowCoordinate(
    OpBuilder &b, Location loc, int64_t d, Value o, Value w,
    llvm::function_ref<Value(int64_t)> constant) const {
  return arith::AddIOp::create(
      b, loc,
      arith::SubIOp::create(
          b, loc, arith::MulIOp::create(b, loc, o, constant(strides[d])),
          constant(pads[d])),
      arith::MulIOp::create(b, loc, w, constant(dilations[d])));
}

void RegionEmitterBase::storeStash(Value computed, Value base, Index index) {
  Type element = getElementTypeOrSelf(computed.getType());
  Value address = LLVM::GEPOp::create(b, loc, base.getType(), element, base,
                                      ValueRange{index.value});
  LLVM::StoreOp::create(b, loc, computed, address,
                        element.getIntOrFloatBitWidth() / 8);
}

FailureOr<Value> RegionEmitterBase::emit(Value value, Index index) {
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

LogicalResult RegionEmitterBase::emitStore(Value value, Value base,
                                           Index index) {
  FailureOr<Value> computed = emit(value, index);
  if (failed(computed))
    return failure();
  store(*computed, elementTypeOf(value), base, index);
  return success();
}

void RegionEmitterBase::store(Value computed, Type element, Value base,
                              Index index, unsigned lanes) {
  Value stored = toStorage(computed, element);
  Type storage = storageType(element);
  if (index.kind == Index::Lanes) {
    for (unsigned lane = 0; lane < (lanes ? lanes : width); ++lane) {
      Value position = vector::ExtractOp::create(b, loc, index.value,
                                                 ArrayRef<int64_t>{lane});
      Value laneValue =
          vector::ExtractOp::create(b, loc, stored, ArrayRef<int64_t>{lane});
      Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                          ValueRange{position});
      LLVM::StoreOp::create(b, loc, laneValue, address, storageBytes(element));
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

Value RegionEmitterBase::loadFirstLanes(Value base, Type element,
                                        Value position, unsigned lanes) {
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

Value RegionEmitterBase::lanePositions(Index index) {
  auto type = VectorType::get({width}, b.getI64Type());
  if (index.kind == Index::Lanes)
    return index.value;
  Value base = vector::BroadcastOp::create(b, loc, type, index.value);
  if (index.kind == Index::Uniform)
    return base;
  return arith::AddIOp::create(b, loc, base, laneSteps());
}

FunctionOpInterface RegionEmitterBase::dimsKernel() {
  for (auto &entry : argPointers)
    if (FunctionOpInterface kernel = dimsKernelOf(entry.second))
      return kernel;
  return nullptr;
}

Index RegionEmitterBase::mapIndex(Index index, const AffineIndexMap &given) {
  AffineIndexMap withKernel;
  if (given.runtimeDims)
    if (mlir::FunctionOpInterface kernel = dimsKernel()) {
      withKernel = given;
      withKernel.kernel = kernel;
    }
  const AffineIndexMap &map = withKernel.kernel ? withKernel : given;
  bool allZero =
      llvm::all_of(map.multipliers, [](int64_t m) { return m == 0; });
  if (allZero)
    return {Index::Uniform, i64(map.offset)};
  int64_t block = index.block;
  // A row and a column (Index::split) that the map's dims split at: the
  // row's terms once, from the row alone (in a runtime-dims matmul, its
  // quotients by runtime sizes out of the loop over k). Where the map keeps
  // the split (splitExtentAfter), the position it gives is split too, so
  // that the next map on the way to a load (a mask's broadcasts) also takes
  // its row's terms from the row alone.
  std::optional<SplitMap> split;
  if (index.hasSplit() && index.kind != Index::Lanes &&
      (index.kind != Index::Contiguous || index.splitExtent % block == 0))
    split = splitMapAt(map, index.splitExtent);
  SplitPosition splitAt;
  auto apply = [&](Value inner) {
    if (!split)
      return applyMap(*this, inner, map);
    if (isa<VectorType>(inner.getType()))
      inner = arith::AddIOp::create(
          b, loc,
          vector::BroadcastOp::create(b, loc,
                                      VectorType::get({width}, b.getI64Type()),
                                      index.splitInner),
          laneSteps());
    else
      inner = index.splitInner;
    splitAt = applySplitMap(*this, index.splitOuter, inner, index.splitExtent,
                            *split);
    return splitAt.position;
  };
  // `mapped` with the split of its position, where it has a scalar one.
  auto withSplit = [&](Index mapped) {
    if (!splitAt.outer || isa<VectorType>(splitAt.inner.getType()) ||
        mapped.kind == Index::Lanes)
      return mapped;
    return Index::split(mapped, splitAt.outer, splitAt.inner, splitAt.extent);
  };
  if (index.kind != Index::Contiguous)
    return withSplit({index.kind, apply(index.value)});
  // Trailing dims (size-1 dims skipped) that keep a unit-stride run, and
  // trailing dims that the map ignores.
  int64_t contiguousRun = 1, uniformRun = 1;
  bool contiguousOpen = true, uniformOpen = true;
  bool outerAligned = map.offset % width == 0;
  // Whether the run holding the lanes' block starts at a multiple of the
  // block in the operand too, so that the lanes stay inside one aligned
  // block there. A slice of rows of 31 (a relative shift's) moves a block
  // of 16 off it: a later map that splits the operand's rows at 16 must
  // not take the lanes for one run.
  const bool blockKnown = block != Index::kUnalignedBlock;
  bool blockStays = blockKnown && map.offset % block == 0;
  int64_t elements = 1;
  // With runtime dims: a dim (its dims array index) in each run, if any.
  std::optional<unsigned> contiguousDim, uniformDim;
  auto runtimeDimIn = [&](int64_t size) -> std::optional<unsigned> {
    RuntimeFactors factors = runtimeFactors(map.runtimeDims, size);
    if (factors.dims.empty())
      return std::nullopt;
    return factors.dims.front();
  };
  for (int64_t d = int64_t(map.resultShape.size()) - 1; d >= 0; --d) {
    int64_t size = map.resultShape[d];
    if (size == 1)
      continue;
    elements *= size;
    if (contiguousOpen && map.multipliers[d] == contiguousRun) {
      contiguousRun *= size;
      if (!contiguousDim)
        contiguousDim = runtimeDimIn(size);
    } else {
      contiguousOpen = false;
      outerAligned = outerAligned && map.multipliers[d] % width == 0;
      blockStays = blockStays && map.multipliers[d] % block == 0;
    }
    if (uniformOpen && map.multipliers[d] == 0) {
      uniformRun *= size;
      if (!uniformDim)
        uniformDim = runtimeDimIn(size);
    } else {
      uniformOpen = false;
    }
  }
  if (blockKnown ? contiguousRun % block == 0 : contiguousRun == elements)
    return withSplit(
        {Index::Contiguous, apply(index.value),
         blockStays ? block : Index::kUnalignedBlock,
         index.aligned && outerAligned && contiguousRun % width == 0});
  if (blockKnown ? uniformRun % block == 0 : uniformRun == elements)
    return withSplit({Index::Uniform, apply(index.value)});
  // A version of the kernel that runs where the dim is a multiple of the
  // block: the run, a multiple of the dim, is whole blocks there.
  if (blockKnown && assumedMultiples && withKernel.kernel) {
    if (contiguousDim) {
      assumedMultiples->insert({*contiguousDim, block});
      // The dims the version assumes multiples of the block make the
      // multipliers past the run multiples too; an offset that is not one
      // still moves the lanes off the block.
      return withSplit(
          {Index::Contiguous, apply(index.value),
           map.offset % block == 0 ? block : Index::kUnalignedBlock});
    }
    if (uniformDim) {
      assumedMultiples->insert({*uniformDim, block});
      return withSplit({Index::Uniform, apply(index.value)});
    }
  }
  Value base = vector::BroadcastOp::create(
      b, loc, VectorType::get({width}, b.getI64Type()), index.value);
  Value lanes = arith::AddIOp::create(b, loc, base, laneSteps());
  return {Index::Lanes, apply(lanes)};
}

void RegionEmitterBase::reportOutOfRange(Value slot, Value inRange, Value key) {
  Type i64Type = b.getI64Type();
  auto vector = dyn_cast<VectorType>(inRange.getType());
  Value allInside = inRange;
  if (vector)
    allInside = vector::ReductionOp::create(b, loc, vector::CombiningKind::AND,
                                            inRange);
  Value outside = arith::XOrIOp::create(
      b, loc, allInside,
      arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  auto report = scf::IfOp::create(b, loc, outside, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(report.thenBlock()->getTerminator());
  Value value = key;
  if (vector) {
    Value lowest = constantVector(i64Type, std::numeric_limits<int64_t>::min());
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

LogicalResult RegionEmitterBase::emitScatterStep(fd::ScatterOp scatter,
                                                 Value out, Index rowIndex,
                                                 Index updateIndex) {
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

FailureOr<std::pair<Value, Value>>
RegionEmitterBase::emitScatterRow(fd::ScatterOp scatter, Value q) {
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

std::pair<Value, Value>
RegionEmitterBase::wrapIndex(Value key, int64_t dim, Value result,
                             function_ref<Value(int64_t)> c) {
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key, c(0));
  Value wrapped = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, key, c(dim)), key);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, wrapped, c(dim));
  if (Value slot = argPointers.lookup(result))
    reportOutOfRange(slot, inRange, key);
  return {wrapped, inRange};
}

unsigned RegionEmitterBase::alignmentOf(Type element, Index index) const {
  if (width != 1 && index.kind == Index::Contiguous && index.aligned)
    return width * storageBytes(element);
  return storageBytes(element);
}

FailureOr<Value>
RegionEmitterBase::start(Value value, Index index, SmallVector<Pending> &stack,
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
    Value address = LLVM::GEPOp::create(b, loc, base.getType(), element, base,
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
  if (auto concat = dyn_cast<fd::ConcatOp>(op))
    return rememberEmitted(value, index, emitConcat(concat, index));
  if (auto iota = dyn_cast<fd::IotaOp>(op))
    return rememberEmitted(value, index, emitIota(iota, index));
  if (auto dimValue = dyn_cast<fd::DimValueOp>(op))
    return rememberEmitted(value, index, emitDimValue(dimValue));
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

std::optional<int64_t> RegionEmitterBase::im2colOffsetOf(fd::SliceOp slice) {
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

Value RegionEmitterBase::positionsOf(Index index) {
  if (width != 1)
    return lanePositions(index);
  if (index.kind == Index::Lanes)
    return vector::ExtractOp::create(b, loc, index.value, ArrayRef<int64_t>{0});
  return index.value;
}

std::optional<RegionEmitterBase::RowOffset>
RegionEmitterBase::rowOffsetOf(Value position) {
  APInt value;
  int64_t offset = 0;
  if (auto add = position.getDefiningOp<arith::AddIOp>()) {
    if (!matchPattern(add.getRhs(), m_ConstantInt(&value)))
      return std::nullopt;
    offset = value.getSExtValue();
    position = add.getLhs();
  }
  auto mul = position.getDefiningOp<arith::MulIOp>();
  if (!mul || !matchPattern(mul.getRhs(), m_ConstantInt(&value)))
    return std::nullopt;
  int64_t length = value.getSExtValue();
  if (length <= 0 || offset < 0 || offset >= length)
    return std::nullopt;
  return RowOffset{mul.getLhs(), length, offset};
}

Value RegionEmitterBase::divideIndex(Value x, int64_t d) {
  if (d == 1)
    return x;
  if (std::optional<RowOffset> r = rowOffsetOf(x)) {
    // (row * L + c) / d: row * (L / d) + c / d, or row / (d / L) (c < L).
    if (r->length % d == 0)
      return arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, r->row, i64(r->length / d)),
          i64(r->offset / d));
    if (d % r->length == 0)
      return divideIndex(r->row, d / r->length);
  }
  return arith::DivUIOp::create(b, loc, x, i64(d));
}

Value RegionEmitterBase::remainderIndex(Value x, int64_t d) {
  if (std::optional<RowOffset> r = rowOffsetOf(x)) {
    // (row * L + c) % d: c % d, or (row % (d / L)) * L + c (c < L).
    if (r->length % d == 0)
      return i64(r->offset % d);
    if (d % r->length == 0)
      return arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, remainderIndex(r->row, d / r->length),
                                i64(r->length)),
          i64(r->offset));
  }
  return arith::RemUIOp::create(b, loc, x, i64(d));
}

SmallVector<Value>
RegionEmitterBase::rowLaneCoordinates(const RowOffset &r, size_t k,
                                      ArrayRef<int64_t> sizes, Type indexType) {
  const size_t n = sizes.size();
  SmallVector<Value> coordinates(n);
  auto vectorType = VectorType::get({width}, indexType);
  int64_t inner = 1;
  for (size_t d = k; d-- > 0;) {
    Value q = divideIndex(r.row, inner);
    Value c = d == 0 ? q : remainderIndex(q, sizes[d]);
    if (indexType != b.getI64Type())
      c = arith::TruncIOp::create(b, loc, indexType, c);
    coordinates[d] = vector::BroadcastOp::create(b, loc, vectorType, c);
    inner *= sizes[d];
  }
  inner = 1;
  for (size_t d = n; d-- > k;) {
    SmallVector<APInt> lanes;
    for (unsigned j = 0; j < width; ++j)
      lanes.push_back(APInt(indexType.getIntOrFloatBitWidth(),
                            uint64_t((r.offset + j) / inner % sizes[d])));
    coordinates[d] = arith::ConstantOp::create(
        b, loc, vectorType, DenseElementsAttr::get(vectorType, lanes));
    inner *= sizes[d];
  }
  return coordinates;
}

SmallVector<Value> RegionEmitterBase::laneCoordinates(Index index,
                                                      ArrayRef<int64_t> sizes,
                                                      Type indexType) {
  const size_t n = sizes.size();
  if (width != 1 && index.kind == Index::Contiguous)
    if (std::optional<RowOffset> r = rowOffsetOf(index.value)) {
      int64_t rowInner = 1;
      size_t k = n;
      while (k > 1 && rowInner < r->length)
        rowInner *= sizes[--k];
      if (rowInner == r->length && r->offset + int64_t(width) <= r->length)
        return rowLaneCoordinates(*r, k, sizes, indexType);
    }
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
  coordinates[n - 1] = arith::AddIOp::create(b, loc, coordinates[n - 1], steps);
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

FailureOr<Value> RegionEmitterBase::emitPool(fd::PoolOp pool, Index index) {
  if (Value runs = emitPoolRuns(pool, index))
    return runs;
  ArrayRef<int64_t> window = pool.getWindow(), strides = pool.getStrides(),
                    dilations = pool.getDilations(), pads = pool.getPads();
  ArrayRef<int64_t> in = shapeOf(pool.getOperand()),
                    out = shapeOf(pool.getResult());
  int64_t n = window.size(), first = in.size() - n;
  Type element = elementTypeOf(pool.getResult());
  Type compute = computeType(element);
  Type i1Type = b.getI1Type();
  Type indexType = windowIndexType(pool.getOperand(), pool.getResult(), window,
                                   strides, dilations, pads);
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
        compute, isUnsignedElement(element)
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

FailureOr<Value> RegionEmitterBase::emitIm2col(fd::Im2colOp im2col, Index index,
                                               std::optional<int64_t> offset) {
  Im2colGeometry g(im2col);
  int64_t lastOut = g.out.back();
  auto operand = dyn_cast<BlockArgument>(im2col.getOperand());
  Value operandPointer = operand ? argPointers.lookup(operand) : Value();
  Type element = elementTypeOf(im2col.getOperand());
  int64_t stride = g.strides.back();
  bool vectorLoads = maskedVectorLoads() && width > 1 &&
                     index.kind == Index::Contiguous && operandPointer &&
                     storageType(element).getIntOrFloatBitWidth() >= 32;
  // Rows narrower than a vector (a decode and a load per lane measured
  // 3-10x slower; rows of a vector or more keep their runs, which measured
  // as fast or faster).
  if (vectorLoads && lastOut < int64_t(width)) {
    if (offset)
      return emitIm2colAtOffset(im2col, index, i64(*offset), operandPointer);
    // A vector inside one row of the [leading, K, P] result (a pack
    // kernel's or a window kernel's by rows) is the slice at that row's k.
    if (index.block > 0 && g.positions % index.block == 0) {
      Value row = arith::DivUIOp::create(b, loc, index.value, i64(g.positions));
      Value k = arith::RemUIOp::create(b, loc, row, i64(g.offsets));
      Value leading = arith::DivUIOp::create(b, loc, row, i64(g.offsets));
      Value p = arith::RemUIOp::create(b, loc, index.value, i64(g.positions));
      Value q = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, leading, i64(g.positions)), p);
      return emitIm2colAtOffset(im2col, {Index::Contiguous, q, index.block}, k,
                                operandPointer);
    }
  }
  if (!vectorLoads || stride > 2 || lastOut < int64_t(width))
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
  Value fits =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, rowLeft, lanes);
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

RegionEmitterBase::Im2colLanes
RegionEmitterBase::im2colLanes(fd::Im2colOp im2col, Index index,
                               bool withWindow) {
  Im2colLanes lanes{Im2colGeometry(im2col), {}, {}};
  const Im2colGeometry &g = lanes.g;
  lanes.indexType = windowIndexType(im2col.getOperand(), im2col.getResult(),
                                    g.window, g.strides, g.dilations, g.pads);
  SmallVector<int64_t> sizes{numElementsOf(im2col.getResult()) /
                             (g.positions * g.offsets)};
  if (withWindow)
    sizes.append(g.window.begin(), g.window.end());
  sizes.append(g.out.begin(), g.out.end());
  lanes.coordinates = laneCoordinates(index, sizes, lanes.indexType);
  return lanes;
}

bool RegionEmitterBase::isShifted(const Im2colGeometry &g) {
  for (int64_t d = 0; d < g.n; ++d)
    if (g.strides[d] != 1 || g.out[d] != g.in[g.first + d])
      return false;
  return true;
}

Value RegionEmitterBase::emitIm2colAtOffset(fd::Im2colOp im2col, Index index,
                                            Value offset,
                                            Value operandPointer) {
  // [leading, output dims...]: each lane's output coordinates, whose
  // strided and shifted copies say which lanes lie inside the input.
  Im2colLanes lanes = im2colLanes(im2col, index, /*withWindow=*/false);
  ArrayRef<Value> coordinates = lanes.coordinates;
  return loadIm2colAtOffset(im2col, lanes.g, lanes.indexType, coordinates[0],
                            coordinates.drop_front(), index.value, offset,
                            operandPointer, Value());
}

bool RegionEmitterBase::readsIm2colSlices(fd::Im2colOp im2col) {
  auto operand = dyn_cast<BlockArgument>(im2col.getOperand());
  return maskedVectorLoads() && width > 1 && operand &&
         argPointers.lookup(operand) &&
         storageType(elementTypeOf(im2col.getOperand()))
                 .getIntOrFloatBitWidth() >= 32;
}

Value RegionEmitterBase::emitIm2colSlice(fd::Im2colOp im2col, Value leading,
                                         Value offset, Value position,
                                         unsigned valid) {
  Im2colGeometry g(im2col);
  Type indexType = windowIndexType(im2col.getOperand(), im2col.getResult(),
                                   g.window, g.strides, g.dilations, g.pads);
  SmallVector<Value> out = laneCoordinates(
      {Index::Contiguous, position, int64_t(width)}, g.out, indexType);
  Value lead = leading;
  if (indexType != b.getI64Type())
    lead = arith::TruncIOp::create(b, loc, indexType, lead);
  lead = vector::BroadcastOp::create(b, loc, vectorOf(indexType), lead);
  Value flat = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, leading, i64(g.positions)),
      position);
  Value lanes;
  if (valid)
    lanes = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, laneSteps(),
        vector::BroadcastOp::create(
            b, loc, VectorType::get({width}, b.getI64Type()), i64(valid)));
  auto operand = cast<BlockArgument>(im2col.getOperand());
  return loadIm2colAtOffset(im2col, g, indexType, lead, out, flat, offset,
                            argPointers.lookup(operand), lanes,
                            /*runs=*/true);
}

Value RegionEmitterBase::loadIm2colAtOffset(fd::Im2colOp im2col,
                                            const Im2colGeometry &g,
                                            Type indexType, Value leading,
                                            ArrayRef<Value> out, Value position,
                                            Value offset, Value operandPointer,
                                            Value lanes, bool runs) {
  auto cI = [&](int64_t v) { return indexConstant(indexType, v); };
  const bool shifted = isShifted(g);
  // Constant lanes in a few output rows: a run per row (before the lanes'
  // positions below, which the pieces do not use).
  if (!shifted && !lanes && !(runs && stridedRun(g, width, lanes)))
    if (Value pieces = loadIm2colPieces(g, elementTypeOf(im2col.getOperand()),
                                        leading, out, offset, operandPointer))
      return pieces;
  // A packer's vector across output rows: a run per row it can cover
  // (before the lanes' positions and masks below, which it does not use).
  if (runs && !stridedRun(g, width, lanes) && readsRowPieces(g, width))
    return loadRowPieces(g, elementTypeOf(im2col.getOperand()), indexType,
                         leading, out, offset, operandPointer, lanes);
  Value inside = lanes, base;
  if (!shifted)
    base = arith::MulIOp::create(b, loc, leading, cI(g.inInner));
  // The offset's shift along each dim (scalar i64; constants fold).
  Value delta = i64(0);
  int64_t inStride = 1, windowInner = 1;
  // For stridedRun: the last dim's input coordinate of lane 0's window
  // offset, and whether the other dims lie inside the input.
  Value lastInput, rowInside = lanes;
  for (int64_t d = g.n - 1; d >= 0; --d) {
    Value w = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, offset, i64(windowInner)),
        i64(g.window[d]));
    windowInner *= g.window[d];
    Value shift = arith::SubIOp::create(
        b, loc, arith::MulIOp::create(b, loc, w, i64(g.dilations[d])),
        i64(g.pads[d]));
    delta = arith::AddIOp::create(
        b, loc, delta, arith::MulIOp::create(b, loc, shift, i64(inStride)));
    if (indexType != b.getI64Type())
      shift = arith::TruncIOp::create(b, loc, indexType, shift);
    Value o = out[d];
    if (g.strides[d] != 1)
      o = arith::MulIOp::create(b, loc, o, cI(g.strides[d]));
    Value c = arith::AddIOp::create(
        b, loc, o,
        vector::BroadcastOp::create(b, loc, vectorOf(indexType), shift));
    // 0 <= c < in as one unsigned compare.
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                     cI(g.in[g.first + d]));
    inside = inside ? Value(arith::AndIOp::create(b, loc, inside, in)) : in;
    if (d == g.n - 1)
      lastInput = c;
    else
      rowInside =
          rowInside ? Value(arith::AndIOp::create(b, loc, rowInside, in)) : in;
    if (!shifted)
      base = arith::AddIOp::create(
          b, loc, base, arith::MulIOp::create(b, loc, o, cI(inStride)));
    inStride *= g.in[g.first + d];
  }
  Type element = elementTypeOf(im2col.getOperand());
  Type storage = storageType(element);
  auto type = cast<VectorType>(vectorOf(storage));
  Value zeros = arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(storage)));
  if (shifted) {
    // The input and output positions share their strides, so lane j
    // reads the index's position j plus delta.
    Value at = arith::AddIOp::create(b, loc, position, delta);
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage,
                                        operandPointer, ValueRange{at});
    Value loaded = LLVM::MaskedLoadOp::create(b, loc, type, address, inside,
                                              zeros, storageBytes(element));
    return toCompute(loaded, element);
  }
  if (runs && stridedRun(g, width, lanes))
    return loadStridedRun(g, element, base, delta, lastInput, rowInside,
                          operandPointer, indexType);
  // Lane j reads its own base plus delta (the base is the same ops at
  // every offset, which CSE merges).
  if (indexType != b.getI64Type())
    delta = arith::TruncIOp::create(b, loc, indexType, delta);
  Value at = arith::AddIOp::create(
      b, loc, base,
      vector::BroadcastOp::create(b, loc, vectorOf(indexType), delta));
  Value addresses =
      LLVM::GEPOp::create(b, loc, LLVM::getVectorType(pointerType(), width),
                          storage, operandPointer, ValueRange{at});
  Value loaded = LLVM::masked_gather::create(
      b, loc, type, addresses, inside, ValueRange{zeros},
      b.getI32IntegerAttr(int32_t(storageBytes(element))));
  return toCompute(loaded, element);
}

Value RegionEmitterBase::loadIm2colPieces(const Im2colGeometry &g, Type element,
                                          Value leading, ArrayRef<Value> out,
                                          Value offset, Value operandPointer) {
  const int64_t n = g.n, stride = g.strides.empty() ? 0 : g.strides.back();
  APInt offsetValue;
  auto broadcast = leading.getDefiningOp<vector::BroadcastOp>();
  if (width <= 1 || n < 1 || stride < 1 || stride > kMaxRunStride ||
      !broadcast || !matchPattern(offset, m_ConstantInt(&offsetValue)))
    return {};
  // Every lane's output coordinates, constants.
  SmallVector<SmallVector<int64_t>> lanesOut(n);
  for (int64_t d = 0; d < n; ++d) {
    DenseIntElementsAttr attr;
    if (!matchPattern(out[d], m_Constant(&attr)) ||
        attr.getNumElements() != int64_t(width))
      return {};
    for (const APInt &v : attr.getValues<APInt>())
      lanesOut[d].push_back(v.getSExtValue());
  }
  // The offset's window coordinates, and each lane's input coordinates.
  SmallVector<int64_t> w(n), inStrides(n);
  int64_t windowInner = 1, inStride = 1, k = offsetValue.getSExtValue();
  for (int64_t d = n - 1; d >= 0; --d) {
    w[d] = k / windowInner % g.window[d];
    windowInner *= g.window[d];
    inStrides[d] = inStride;
    inStride *= g.in[g.first + d];
  }
  auto input = [&](int64_t d, unsigned j) {
    return lanesOut[d][j] * g.strides[d] + w[d] * g.dilations[d] - g.pads[d];
  };
  auto inside = [&](int64_t d, unsigned j) {
    int64_t c = input(d, j);
    return c >= 0 && c < g.in[g.first + d];
  };
  // Pieces: runs of lanes in one output row (the same coordinates but the
  // last), each lane `stride` input elements after the one before it.
  SmallVector<std::pair<unsigned, unsigned>> pieces;
  for (unsigned j = 0; j < width; ++j) {
    bool sameRow = j > 0;
    for (int64_t d = 0; sameRow && d + 1 < n; ++d)
      sameRow = lanesOut[d][j] == lanesOut[d][j - 1];
    if (sameRow && lanesOut[n - 1][j] == lanesOut[n - 1][j - 1] + 1)
      pieces.back().second = j + 1;
    else
      pieces.push_back({j, j + 1});
  }
  if (int64_t(pieces.size()) > kMaxIm2colPieces)
    return {};
  Type storage = storageType(element);
  auto type = cast<VectorType>(vectorOf(storage));
  const int64_t wide = int64_t(width) * stride;
  auto wideType = VectorType::get({wide}, storage);
  auto maskType = VectorType::get({wide}, b.getI1Type());
  Value scalarLeading = broadcast.getSource();
  if (scalarLeading.getType() != b.getI64Type())
    scalarLeading =
        arith::ExtUIOp::create(b, loc, b.getI64Type(), scalarLeading);
  Value planeBase =
      arith::MulIOp::create(b, loc, scalarLeading, i64(g.inInner));
  Value result = arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(storage)));
  Value wideZeros = arith::ConstantOp::create(
      b, loc, wideType,
      DenseElementsAttr::get(wideType, b.getZeroAttr(storage)));
  for (auto [from, to] : pieces) {
    bool rowInside = true;
    int64_t rowStart = 0;
    for (int64_t d = 0; d + 1 < n; ++d) {
      rowInside = rowInside && inside(d, from);
      rowStart += input(d, from) * inStrides[d];
    }
    // Element e of the run is lane e / stride's input where e % stride is
    // 0: the run starts `stride` x `from` elements before lane from's.
    SmallVector<bool> mask(wide, false), inPiece(width, false);
    bool any = false;
    for (unsigned j = from; j < to; ++j) {
      inPiece[j] = true;
      if (rowInside && inside(n - 1, j))
        mask[j * stride] = any = true;
    }
    if (!any)
      continue; // Its lanes are all padding: zeros.
    int64_t runStart = rowStart + input(n - 1, from) - stride * int64_t(from);
    Value address = LLVM::GEPOp::create(
        b, loc, pointerType(), storage, operandPointer,
        ValueRange{arith::AddIOp::create(b, loc, planeBase, i64(runStart))});
    Value run = LLVM::MaskedLoadOp::create(
        b, loc, wideType, address,
        arith::ConstantOp::create(b, loc, maskType,
                                  DenseElementsAttr::get(maskType, mask)),
        wideZeros, storageBytes(element));
    Value piece = run;
    if (stride > 1) {
      SmallVector<int64_t> picks;
      for (int64_t lane = 0; lane < int64_t(width); ++lane)
        picks.push_back(lane * stride);
      piece = vector::ShuffleOp::create(b, loc, run, run, picks);
    }
    auto laneMask = VectorType::get({width}, b.getI1Type());
    result = arith::SelectOp::create(
        b, loc,
        arith::ConstantOp::create(b, loc, laneMask,
                                  DenseElementsAttr::get(laneMask, inPiece)),
        piece, result);
  }
  return toCompute(result, element);
}

bool RegionEmitterBase::readsRowPieces(const Im2colGeometry &g,
                                       unsigned width) {
  if (width <= 1 || g.n != 2 || isShifted(g))
    return false;
  int64_t stride = g.strides[1], outWidth = g.out[1];
  return stride >= 1 && stride <= kMaxRunStride && outWidth >= 1 &&
         llvm::divideCeil(outWidth - 1 + int64_t(width), outWidth) <=
             kMaxIm2colPieces;
}

Value RegionEmitterBase::loadRowPieces(const Im2colGeometry &g, Type element,
                                       Type indexType, Value leading,
                                       ArrayRef<Value> out, Value offset,
                                       Value operandPointer, Value lanes) {
  const int64_t stride = g.strides[1], outWidth = g.out[1];
  const int64_t inHeight = g.in[g.first], inWidth = g.in[g.first + 1];
  const int64_t wide = int64_t(width) * stride;
  auto lane0 = [&](Value v) {
    Value x =
        vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0}).getResult();
    if (x.getType() != b.getI64Type())
      x = arith::ExtUIOp::create(b, loc, b.getI64Type(), x);
    return x;
  };
  auto mul = [&](Value x, int64_t v) {
    return arith::MulIOp::create(b, loc, x, i64(v)).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  // Lane 0's output row and column, and the offset's window coordinates.
  Value row0 = lane0(out[0]), column0 = lane0(out[1]);
  Value kh = arith::DivUIOp::create(b, loc, offset, i64(g.window[1]));
  Value kw = arith::RemUIOp::create(b, loc, offset, i64(g.window[1]));
  Value plane = mul(lane0(leading), g.inInner);
  // The input column of output column 0 at this offset.
  Value columnShift =
      arith::SubIOp::create(b, loc, mul(kw, g.dilations[1]), i64(g.pads[1]));
  auto vectorType = [&](int64_t n) { return VectorType::get({n}, indexType); };
  auto iota = [&](int64_t n) {
    SmallVector<mlir::Attribute> steps;
    for (int64_t i = 0; i < n; ++i)
      steps.push_back(b.getIntegerAttr(indexType, i));
    return arith::ConstantOp::create(
               b, loc, vectorType(n),
               DenseElementsAttr::get(cast<ShapedType>(vectorType(n)), steps))
        .getResult();
  };
  auto splat = [&](Value scalar, int64_t n) {
    if (scalar.getType() != indexType)
      scalar = arith::TruncIOp::create(b, loc, indexType, scalar);
    return vector::BroadcastOp::create(b, loc, vectorType(n), scalar)
        .getResult();
  };
  auto below = [&](Value x, int64_t bound, int64_t n) {
    return arith::CmpIOp::create(
               b, loc, arith::CmpIPredicate::ult, x,
               vector::BroadcastOp::create(
                   b, loc, vectorType(n),
                   arith::ConstantOp::create(
                       b, loc, b.getIntegerAttr(indexType, bound))))
        .getResult();
  };
  Value elements = iota(wide), laneIndex = iota(width);
  // Element e of a run holds lane e / stride where e % stride is 0.
  SmallVector<bool> kept(wide, false);
  SmallVector<int64_t> picks, laneOfElement;
  for (int64_t e = 0; e < wide; ++e) {
    kept[e] = e % stride == 0;
    laneOfElement.push_back(e / stride);
  }
  for (int64_t lane = 0; lane < int64_t(width); ++lane)
    picks.push_back(lane * stride);
  auto maskType = VectorType::get({wide}, b.getI1Type());
  Value keptMask = arith::ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, kept));
  Value wideLanes =
      lanes ? vector::ShuffleOp::create(b, loc, lanes, lanes, laneOfElement)
                  .getResult()
            : Value();
  Type storage = storageType(element);
  auto type = cast<VectorType>(vectorOf(storage));
  auto wideType = VectorType::get({wide}, storage);
  Value wideZeros = arith::ConstantOp::create(
      b, loc, wideType,
      DenseElementsAttr::get(wideType, b.getZeroAttr(storage)));
  Value result = arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(storage)));
  int64_t pieces = llvm::divideCeil(outWidth - 1 + int64_t(width), outWidth);
  for (int64_t p = 0; p < pieces; ++p) {
    // Piece p: the lanes in output row row0 + p, lanes j with
    // column0 + j - p * outWidth in [0, outWidth); lane j's input column is
    // (column0 + j - p * outWidth) * stride + columnShift.
    Value inputRow = arith::SubIOp::create(
        b, loc,
        add(mul(add(row0, i64(p)), g.strides[0]), mul(kh, g.dilations[0])),
        i64(g.pads[0]));
    Value rowInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            inputRow, i64(inHeight));
    // The first lane of the piece, relative (may be negative).
    Value firstLane = arith::SubIOp::create(b, loc, i64(p * outWidth), column0);
    // The input column of element 0 of the run: lane 0's, virtually.
    Value column = add(
        mul(arith::SubIOp::create(b, loc, column0, i64(p * outWidth)), stride),
        columnShift);
    Value runStart = add(add(plane, mul(inputRow, inWidth)), column);
    // The run's elements that a lane of this piece reads inside the input.
    Value inside = arith::AndIOp::create(
        b, loc, keptMask,
        below(add(elements, splat(column, wide)), inWidth, wide));
    Value pieceElements =
        below(arith::SubIOp::create(b, loc, elements,
                                    splat(mul(firstLane, stride), wide)),
              outWidth * stride, wide);
    inside = arith::AndIOp::create(b, loc, inside, pieceElements);
    inside = arith::AndIOp::create(
        b, loc, inside,
        vector::BroadcastOp::create(b, loc, maskType, rowInside));
    if (wideLanes)
      inside = arith::AndIOp::create(b, loc, inside, wideLanes);
    Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage,
                                        operandPointer, ValueRange{runStart});
    Value run = LLVM::MaskedLoadOp::create(b, loc, wideType, address, inside,
                                           wideZeros, storageBytes(element));
    Value piece =
        stride > 1
            ? vector::ShuffleOp::create(b, loc, run, run, picks).getResult()
            : run;
    Value pieceLanes =
        below(arith::SubIOp::create(b, loc, laneIndex, splat(firstLane, width)),
              outWidth, width);
    result = arith::SelectOp::create(b, loc, pieceLanes, piece, result);
  }
  return toCompute(result, element);
}

bool RegionEmitterBase::stridedRun(const Im2colGeometry &g, unsigned width,
                                   Value lanes) {
  if (width <= 1 || lanes || g.n < 1)
    return false;
  int64_t stride = g.strides[g.n - 1];
  return stride > 1 && stride <= kMaxRunStride &&
         g.out[g.n - 1] % int64_t(width) == 0;
}

Value RegionEmitterBase::loadStridedRun(const Im2colGeometry &g, Type element,
                                        Value base, Value delta,
                                        Value lastInput, Value rowInside,
                                        Value operandPointer, Type indexType) {
  int64_t stride = g.strides[g.n - 1];
  int64_t wide = int64_t(width) * stride;
  auto lane0 = [&](Value v) {
    return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0})
        .getResult();
  };
  // Lane 0's position, and the input coordinate of element 0 of the run
  // along the last dim; element i lies at that coordinate plus i.
  if (indexType != b.getI64Type())
    delta = arith::TruncIOp::create(b, loc, indexType, delta);
  Value at = arith::AddIOp::create(b, loc, lane0(base), delta);
  if (indexType != b.getI64Type())
    at = arith::ExtSIOp::create(b, loc, b.getI64Type(), at);
  auto wideIndex = VectorType::get({wide}, indexType);
  SmallVector<mlir::Attribute> stepAttrs;
  for (int64_t i = 0; i < wide; ++i)
    stepAttrs.push_back(b.getIntegerAttr(indexType, i));
  Value iota = arith::ConstantOp::create(
      b, loc, wideIndex, DenseElementsAttr::get(wideIndex, stepAttrs));
  Value x = arith::AddIOp::create(
      b, loc, iota,
      vector::BroadcastOp::create(b, loc, wideIndex, lane0(lastInput)));
  Value inside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, x,
      vector::BroadcastOp::create(
          b, loc, wideIndex,
          arith::ConstantOp::create(b, loc,
                                    b.getIntegerAttr(indexType, g.in.back()))));
  if (rowInside)
    inside = arith::AndIOp::create(
        b, loc, inside,
        vector::BroadcastOp::create(
            b, loc, VectorType::get({wide}, b.getI1Type()), lane0(rowInside)));
  Type storage = storageType(element);
  auto wideType = VectorType::get({wide}, storage);
  Value zeros = arith::ConstantOp::create(
      b, loc, wideType,
      DenseElementsAttr::get(wideType, b.getZeroAttr(storage)));
  Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage,
                                      operandPointer, ValueRange{at});
  Value run = LLVM::MaskedLoadOp::create(b, loc, wideType, address, inside,
                                         zeros, storageBytes(element));
  SmallVector<int64_t> picks;
  for (int64_t lane = 0; lane < int64_t(width); ++lane)
    picks.push_back(lane * stride);
  Value loaded = vector::ShuffleOp::create(b, loc, run, run, picks);
  return toCompute(loaded, element);
}

Value RegionEmitterBase::emitIm2colRun(fd::Im2colOp im2col, Value start,
                                       Value operandPointer,
                                       std::optional<int64_t> offset,
                                       Value shift, Value from, Value to) {
  const Im2colGeometry g(im2col);
  Type element = elementTypeOf(im2col.getOperand());
  auto c64 = [&](int64_t v) { return i64(v); };
  auto divRem64 = [&](Value x, int64_t inner, int64_t size) {
    return remainderIndex(divideIndex(x, inner), size);
  };
  Value p = remainderIndex(start, g.positions);
  Value k = offset ? c64(*offset) : divRem64(start, g.positions, g.offsets);
  Value leading = divideIndex(start, g.positions * (offset ? 1 : g.offsets));
  Value at = arith::MulIOp::create(b, loc, leading, c64(g.inInner));
  Value inside = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value lastC;
  int64_t outInner = 1, windowInner = 1, inStride = 1;
  for (int64_t d = g.n - 1; d >= 0; --d) {
    Value o = divRem64(p, outInner, g.out[d]);
    Value w = divRem64(k, windowInner, g.window[d]);
    Value c = g.windowCoordinate(b, loc, d, o, w, c64);
    if (d == g.n - 1)
      lastC = c;
    else
      inside = arith::AndIOp::create(
          b, loc, inside,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                c64(g.in[g.first + d])));
    at = arith::AddIOp::create(b, loc, at,
                               arith::MulIOp::create(b, loc, c, c64(inStride)));
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
      stride == 1 ? relative
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
  at = arith::SubIOp::create(b, loc, at,
                             arith::MulIOp::create(b, loc, shift, c64(stride)));
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

FailureOr<Value>
RegionEmitterBase::emitIm2colGather(fd::Im2colOp im2col, Index index,
                                    std::optional<int64_t> offset) {
  // [leading, window dims..., output dims...]: the result's [L, K, P]
  // (with `offset`, [leading, output dims...] and constant window dims).
  Im2colLanes lanes = im2colLanes(im2col, index, /*withWindow=*/!offset);
  const Im2colGeometry &g = lanes.g;
  Type indexType = lanes.indexType;
  const SmallVector<Value> &coordinates = lanes.coordinates;
  auto cI = [&](int64_t v) { return indexConstant(indexType, v); };
  const int64_t outFirst = offset ? 1 : 1 + g.n;
  Value at = arith::MulIOp::create(b, loc, coordinates[0], cI(g.inInner));
  Value inside = constant(b.getI1Type(), 1);
  int64_t inStride = 1, windowInner = 1;
  for (int64_t d = g.n - 1; d >= 0; --d) {
    Value o = coordinates[outFirst + d];
    Value w =
        offset ? cI(*offset / windowInner % g.window[d]) : coordinates[1 + d];
    windowInner *= g.window[d];
    Value c = g.windowCoordinate(b, loc, d, o, w, cI);
    // 0 <= c < in as one unsigned compare.
    inside = arith::AndIOp::create(
        b, loc, inside,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                              cI(g.in[g.first + d])));
    at = arith::AddIOp::create(b, loc, at,
                               arith::MulIOp::create(b, loc, c, cI(inStride)));
    inStride *= g.in[g.first + d];
  }
  return windowLoad(im2col.getOperand(), at, inside,
                    elementTypeOf(im2col.getResult()));
}

Type RegionEmitterBase::windowIndexType(Value operand, Value result,
                                        ArrayRef<int64_t> window,
                                        ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> dilations,
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

Value RegionEmitterBase::indexConstant(Type indexType, int64_t value) {
  return integerConstant(
      indexType, APInt(indexType.getIntOrFloatBitWidth(), uint64_t(value),
                       /*isSigned=*/true, /*implicitTrunc=*/true));
}

FailureOr<Value> RegionEmitterBase::windowLoad(Value operand, Value at,
                                               Value inside,
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

FailureOr<Value> RegionEmitterBase::fromIndexValue(Operation *op, Value x) {
  Type element = elementTypeOf(op->getResult(0));
  Type compute = computeType(element);
  if (x.getType() != vectorOf(b.getI64Type()))
    x = vector::BroadcastOp::create(b, loc, vectorOf(b.getI64Type()), x);
  if (isa<FloatType>(compute) && !isLowPrecisionFloat(element))
    return arith::SIToFPOp::create(b, loc, vectorOf(compute), x).getResult();
  if (!isa<IntegerType>(compute) || isNarrowInteger(element) ||
      element.isInteger(1))
    return unsupported(op, "its element type takes no index value");
  if (compute.getIntOrFloatBitWidth() < 64)
    return arith::TruncIOp::create(b, loc, vectorOf(compute), x).getResult();
  return x;
}

FailureOr<Value> RegionEmitterBase::emitIota(fd::IotaOp op, Index index) {
  AffineIndexMap map;
  ArrayRef<int64_t> shape = shapeOf(op.getResult());
  map.resultShape.assign(shape.begin(), shape.end());
  map.multipliers.assign(shape.size(), 0);
  map.multipliers[op.getAxis()] = 1;
  Index at = mapIndex(index, mergedForRuntimeDims(op, std::move(map)));
  return fromIndexValue(op, positionsOf(at));
}

FailureOr<Value> RegionEmitterBase::emitDimValue(fd::DimValueOp op) {
  ::fuse::DimExpr dim = fd::dimsEntry(op.getDim(), 0);
  if (dim.isConstant())
    return fromIndexValue(
        op, i64(dim.terms().empty() ? 0 : dim.terms().front().coefficient));
  auto fusion = op->getParentOfType<fd::FusionOp>();
  DictionaryAttr dims =
      fusion ? fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr)
             : DictionaryAttr();
  FunctionOpInterface kernel = dimsKernel();
  if (!dims || !kernel)
    return unsupported(op, "no dims array gives its dim's value here");
  Value sum;
  for (const ::fuse::DimExpr::Term &term : dim.terms()) {
    Value product = i64(term.coefficient);
    for (const std::string &symbol : term.symbols) {
      std::optional<unsigned> at;
      for (auto [i, entry] : llvm::enumerate(dims))
        if (entry.getName() == symbol)
          at = unsigned(i);
      if (!at)
        return unsupported(op, "its dim is not among the kernel's dims");
      product = arith::MulIOp::create(b, loc, product,
                                      loadRuntimeDim(b, loc, kernel, *at));
    }
    sum = sum ? Value(arith::AddIOp::create(b, loc, sum, product)) : product;
  }
  return fromIndexValue(op, sum);
}

/// `v`, a size of `op`'s fusion at the representative values of its dims:
/// read from the host kernel's dims array where the fusion is emitted for
/// runtime dims (runtimeSize), else a constant.
static Value sizeValue(OpBuilder &b, Location loc, Operation *op,
                       FunctionOpInterface kernel, int64_t v) {
  auto fusion = op->getParentOfType<fd::FusionOp>();
  DictionaryAttr dims =
      fusion ? fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr)
             : DictionaryAttr();
  return runtimeSize(b, loc, dims, dims ? kernel : FunctionOpInterface(), v);
}

FailureOr<Value> RegionEmitterBase::emitConcat(fd::ConcatOp op, Index index) {
  ArrayRef<int64_t> shape = shapeOf(op.getResult());
  int64_t axis = op.getAxis();
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  bool sharedAxis =
      width == 1 || index.kind == Index::Uniform ||
      (index.kind == Index::Contiguous && inner % index.block == 0);
  Value position = sharedAxis ? index.value : lanePositions(index);
  bool lanes = isa<VectorType>(position.getType());
  Type i64Type = b.getI64Type();
  auto c = [&](int64_t v) {
    return lanes ? constantVector(i64Type, v) : i64(v);
  };
  // Sizes with runtime dims read from the dims array (a decoder's cache:
  // concat(past, new) along past_sequence + sequence).
  auto splat = [&](Value scalar) -> Value {
    return lanes ? Value(vector::BroadcastOp::create(
                       b, loc, VectorType::get({width}, i64Type), scalar))
                 : scalar;
  };
  auto size = [&](int64_t v) {
    return splat(sizeValue(b, loc, op, dimsKernel(), v));
  };
  Value innerSize = size(inner), axisSize = size(shape[axis]);
  Value innerIndex = arith::RemUIOp::create(b, loc, position, innerSize);
  Value row = arith::DivUIOp::create(b, loc, position, innerSize);
  Value coordinate = arith::RemUIOp::create(b, loc, row, axisSize);
  Value outer = arith::DivUIOp::create(b, loc, row, axisSize);
  Value result;
  Value offset = c(0);
  for (Value operand : op.getOperands()) {
    int64_t staticSize = shapeOf(operand)[axis];
    if (staticSize == 0)
      continue;
    Value operandSize = size(staticSize);
    Value local = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, coordinate, offset), c(0));
    local = arith::MinSIOp::create(
        b, loc, local, arith::SubIOp::create(b, loc, operandSize, c(1)));
    Value operandPosition = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, outer, operandSize),
                local),
            innerSize),
        innerIndex);
    Index at{index.kind, operandPosition, index.block};
    if (lanes)
      at = {Index::Lanes, operandPosition};
    FailureOr<Value> value = emit(operand, at);
    if (failed(value))
      return failure();
    if (!result)
      result = *value;
    else
      result = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, coordinate,
                                offset),
          *value, result);
    offset = arith::AddIOp::create(b, loc, offset, operandSize);
  }
  return result;
}

FailureOr<Value> RegionEmitterBase::emitGather(fd::GatherOp gather,
                                               Index index) {
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
  // With runtime dims, merged as every index map is (and its sizes read
  // from the dims array): an embedding's ids over (batch, sequence).
  indexMap = mergedForRuntimeDims(gather, std::move(indexMap));
  baseMap = mergedForRuntimeDims(gather, std::move(baseMap));
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
  // The axis' size and stride, with runtime dims read from the dims array
  // (a table of batch x total_sequence rows: a decoder's flattened mask).
  auto fusion = gather->getParentOfType<fd::FusionOp>();
  DictionaryAttr dims =
      fusion ? fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr)
             : DictionaryAttr();
  FunctionOpInterface kernel = dimsKernel();
  auto size = [&](int64_t v) -> Value {
    if (!dims || !kernel || v == 0)
      return c64(v);
    Value scalar = runtimeSize(b, loc, dims, kernel, v);
    return uniform || width == 1 ? scalar
                                 : Value(vector::BroadcastOp::create(
                                       b, loc, vectorOf(i64Type), scalar));
  };
  auto [wrapped, inRange] =
      wrapIndex(key, dataShape[axis], gather.getResult(), size);
  Value safe = arith::SelectOp::create(b, loc, inRange, wrapped, c64(0));
  Value offset = arith::MulIOp::create(b, loc, safe, size(dataStrides[axis]));
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

FailureOr<Value> RegionEmitterBase::rememberEmitted(Value value, Index index,
                                                    FailureOr<Value> emitted) {
  if (failed(emitted))
    return failure();
  return remember(value, index, *emitted);
}

Value RegionEmitterBase::scalarLoad(Value base, Type element, Value position) {
  Type storage = storageType(element);
  Value address = LLVM::GEPOp::create(b, loc, pointerType(), storage, base,
                                      ValueRange{position});
  return LLVM::LoadOp::create(b, loc, storage, address, storageBytes(element));
}

Value RegionEmitterBase::load(Value base, Type element, Index index) {
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
    Value position =
        vector::ExtractOp::create(b, loc, index.value, ArrayRef<int64_t>{lane});
    lanes.push_back(scalarLoad(base, element, position));
  }
  Value gathered =
      vector::FromElementsOp::create(b, loc, vectorOf(storage), lanes);
  return toCompute(gathered, element);
}

SmallVector<Value> outputsOf(ArrayRef<Value> outputs,
                             ArrayRef<unsigned> results) {
  SmallVector<Value> selected;
  for (unsigned r : results)
    selected.push_back(outputs[r]);
  return selected;
}

LogicalResult storeResults(RegionEmitterBase &e, Index index,
                           ValueRange yielded, ArrayRef<unsigned> results,
                           ArrayRef<Value> outputs) {
  for (auto [r, out] : llvm::zip_equal(results, outputs))
    if (failed(e.emitStore(yielded[r], out, index)))
      return failure();
  return success();
}

LogicalResult checkYields(fd::FusionOp fusion, int64_t domain,
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

FailureOr<SmallVector<Value>> storeStep(RegionEmitterBase &e, Index index,
                                        ValueRange yielded,
                                        ArrayRef<Value> outputs) {
  for (auto [value, out] : llvm::zip_equal(yielded, outputs))
    if (failed(e.emitStore(value, out, index)))
      return failure();
  return SmallVector<Value>{};
}

bool isBoundFusionInput(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return false;
  auto fusion = dyn_cast<fd::FusionOp>(argument.getOwner()->getParentOp());
  if (!fusion || argument.getArgNumber() >= fusion.getInputs().size())
    return false;
  if (auto bound = fusion->getAttrOfType<DenseBoolArrayAttr>(kBoundInputsAttr))
    return argument.getArgNumber() < bound.size() &&
           bound[argument.getArgNumber()];
  // A member of a horizontal fusion: its input is the outer fusion's.
  return isa<fd::FusionOp>(fusion->getParentOp()) &&
         isBoundFusionInput(fusion.getInputs()[argument.getArgNumber()]);
}

} // namespace codegen
} // namespace fuse
