//===- GpuMatmulEmitter.cpp - GPU matmul kernels with epilogues -----------===//
//
// One `fuse.matmul` per fusion, C[b, m, n] = sum_k A[b, m, k] B[b, k, n],
// with the fusion's other ops as a prologue (inside the operands' subtrees,
// applied as the operands are loaded) and an epilogue (applied to the
// results before the store). A shared-memory tiled kernel where the
// epilogue only moves positions (elementwise ops, reshapes, transposes: head
// splits and merges), the pointwise pull form otherwise.
//
//===----------------------------------------------------------------------===//

#include "compiler/gpu/GpuRegionEmitter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <optional>

using namespace mlir;
using namespace ::fuse::codegen;
namespace fd = mlir::fuse;

namespace fuse::ptx {

namespace {

/// Tile of the tiled matmul: kTileM x kTileN outputs per block, K in steps
/// of kTileK through shared memory; 16 x 16 threads, each with a 4 x 4
/// register tile.
constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 16;
constexpr int64_t kMicroTile = 4;
constexpr int64_t kTilePadding = 4;
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

/// The sizes of a matmul and its operands' element strides: per batch, per
/// row (i) or column (j) of the result, and per step of k.
struct MatmulGeometry {
  int64_t m, n, k, batch;
  int64_t lhsBatch, lhsI, lhsK, rhsBatch, rhsK, rhsJ;

  explicit MatmulGeometry(fd::MatmulOp op) {
    ArrayRef<int64_t> cShape = shapeOf(op.getResult());
    ArrayRef<int64_t> lhs = shapeOf(op.getLhs()), rhs = shapeOf(op.getRhs());
    m = cShape[cShape.size() - 2];
    n = cShape.back();
    k = op.getTransposeA() ? lhs[lhs.size() - 2] : lhs.back();
    batch = numElements(op.getResult().getType()) / std::max<int64_t>(1, m * n);
    lhsBatch = lhs.size() > 2 ? m * k : 0;
    lhsI = op.getTransposeA() ? 1 : k;
    lhsK = op.getTransposeA() ? m : 1;
    rhsBatch = rhs.size() > 2 ? k * n : 0;
    rhsK = op.getTransposeB() ? 1 : n;
    rhsJ = op.getTransposeB() ? k : 1;
  }
};

/// Emits the kernel of emitTiledMatmul: the tile loads, the k loop over the
/// register tile, and the epilogue's stores, each a method.
class TiledMatmulEmitter {
public:
  TiledMatmulEmitter(fd::FusionOp fusion, fd::MatmulOp op,
                     ArrayRef<SmallVector<TransposeStep>> epilogue,
                     ModuleOp module, StringRef prefix)
      : fusion(fusion), op(op), epilogue(epilogue), module(module),
        yield(cast<fd::YieldOp>(fusion.getBody().front().getTerminator())),
        g(op), loc(fusion.getLoc()), b(module.getContext()),
        name((prefix + "_matmul").str()), numResults(yield.getValues().size()),
        f32(b.getF32Type()), vectorType(VectorType::get({kMicroTile}, f32)) {}

  FailureOr<FusionKernels> emit();

private:
  Value c(OpBuilder &builder, int64_t v) {
    return i64Constant(builder, loc, v);
  }
  Value asIndex(OpBuilder &builder, Value v) {
    return arith::IndexCastOp::create(builder, loc, builder.getIndexType(), v);
  }
  Value mul(OpBuilder &builder, Value x, int64_t v) {
    return v == 1
               ? x
               : Value(arith::MulIOp::create(builder, loc, x, c(builder, v)));
  }
  Value add(OpBuilder &builder, Value x, Value y) {
    return arith::AddIOp::create(builder, loc, x, y);
  }
  Value less(OpBuilder &builder, Value x, int64_t v) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, x,
                                 c(builder, v));
  }

  void createKernelAndTiles();
  void emitThreadCoordinates();
  Value loadElement(OpBuilder &builder, Value operand, Value inBounds,
                    Value position);
  /// One operand's tile: the operand, its shared tile, its batch's base,
  /// the block's first row (lhs) or column (rhs) and the tile's size along
  /// it, the result's rows or columns, the strides along that dim and along
  /// k, and whether consecutive threads go along that dim (else along k).
  struct TileOperand {
    Value operand, tile, base, origin;
    int64_t size, bound, strideOther, strideK;
    bool alongOther;
  };
  void loadTiles(OpBuilder &nb, Value k0);
  void loadTile(OpBuilder &nb, Value k0, const TileOperand &t);
  scf::ForOp multiplyTiles(OpBuilder &nb, ValueRange acc);
  scf::ForOp emitKLoop();
  void storeAt(OpBuilder &builder, unsigned width, Value seed, Index index,
               bool transposed);
  void storeRow(int64_t r, Value accRow, Value jFirst);
  KernelPlan plan();

  fd::FusionOp fusion;
  fd::MatmulOp op;
  ArrayRef<SmallVector<TransposeStep>> epilogue;
  ModuleOp module;
  fd::YieldOp yield;
  MatmulGeometry g;
  Location loc;
  OpBuilder b;
  std::string name;
  unsigned numResults;
  int64_t threads = (kTileM / kMicroTile) * (kTileN / kMicroTile);
  Type f32;
  VectorType vectorType;
  KernelPointers pointers;
  Value lhsTile, rhsTile;
  /// The thread (tid; tx, ty in the 16 x 16 grid of register tiles), the
  /// block's first output row and column, the batch and its operand bases.
  Value tid, tx, ty, i0, j0, bz, lhsBase, rhsBase;
  bool failedBody = false;
};

void TiledMatmulEmitter::createKernelAndTiles() {
  pointers = createKernel(b, module, fusion, name, numResults,
                          /*scratch=*/false, /*scratchReadOnly=*/false,
                          unsigned(threads));
  // The lhs tile is stored transposed (k-major) by threads that walk k:
  // 4 floats of padding per row spread their stores over the banks (2-way
  // instead of 16-way conflicts) and keep rows 16-byte aligned.
  auto workgroup = gpu::AddressSpaceAttr::get(module.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto lhsTileType = MemRefType::get({kTileK, kTileM + kTilePadding}, f32,
                                     MemRefLayoutAttrInterface{}, workgroup);
  auto rhsTileType = MemRefType::get({kTileK, kTileN}, f32,
                                     MemRefLayoutAttrInterface{}, workgroup);
  lhsTile = pointers.func.addWorkgroupAttribution(lhsTileType, loc);
  rhsTile = pointers.func.addWorkgroupAttribution(rhsTileType, loc);
}

void TiledMatmulEmitter::emitThreadCoordinates() {
  tid = threadId(b, loc);
  tx = arith::RemUIOp::create(b, loc, tid, c(b, kTileN / kMicroTile));
  ty = arith::DivUIOp::create(b, loc, tid, c(b, kTileN / kMicroTile));
  i0 = mul(b, asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)),
           kTileM);
  j0 = mul(b, blockId(b, loc), kTileN);
  bz = asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  lhsBase = mul(b, bz, g.lhsBatch);
  rhsBase = mul(b, bz, g.rhsBatch);
}

/// Loads one element of an operand (its prologue applied), zero outside.
Value TiledMatmulEmitter::loadElement(OpBuilder &builder, Value operand,
                                      Value inBounds, Value position) {
  auto ifOp = scf::IfOp::create(builder, loc, TypeRange{f32}, inBounds,
                                /*withElseRegion=*/true);
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
  return ifOp.getResult(0);
}

/// The tiles: threads x 4 elements each, consecutive threads along k for the
/// lhs and along n for the rhs (coalesced when those are the operands'
/// contiguous dims).
void TiledMatmulEmitter::loadTiles(OpBuilder &nb, Value k0) {
  loadTile(nb, k0,
           {op.getLhs(), lhsTile, lhsBase, i0, kTileM, g.m, g.lhsI, g.lhsK,
            /*alongOther=*/false});
  loadTile(nb, k0,
           {op.getRhs(), rhsTile, rhsBase, j0, kTileN, g.n, g.rhsJ, g.rhsK,
            /*alongOther=*/true});
}

/// Element e of the tile's threads x 4 is at (k, other) = (e % kTileK,
/// e / kTileK), or (e / size, e % size) along the other dim; the position's
/// term of the divided coordinate comes first.
void TiledMatmulEmitter::loadTile(OpBuilder &nb, Value k0,
                                  const TileOperand &t) {
  const int64_t divisor = t.alongOther ? t.size : kTileK;
  for (int64_t q = 0; q < t.size * kTileK / threads; ++q) {
    Value e = add(nb, tid, c(nb, q * threads));
    Value quotient = arith::DivUIOp::create(nb, loc, e, c(nb, divisor));
    Value remainder = arith::RemUIOp::create(nb, loc, e, c(nb, divisor));
    Value kk = t.alongOther ? quotient : remainder;
    Value x = t.alongOther ? remainder : quotient;
    Value other = add(nb, t.origin, x), kg = add(nb, k0, kk);
    // One op-creating argument a call (argument order is the compiler's).
    Value kInBounds = less(nb, kg, g.k);
    Value inBounds =
        arith::AndIOp::create(nb, loc, less(nb, other, t.bound), kInBounds);
    auto [first, firstStride] = t.alongOther ? std::pair(kg, t.strideK)
                                             : std::pair(other, t.strideOther);
    auto [second, secondStride] = t.alongOther ? std::pair(other, t.strideOther)
                                               : std::pair(kg, t.strideK);
    Value secondTerm = mul(nb, second, secondStride);
    Value position =
        add(nb, t.base, add(nb, mul(nb, first, firstStride), secondTerm));
    Value value = loadElement(nb, t.operand, inBounds, position);
    memref::StoreOp::create(nb, loc, value, t.tile,
                            ValueRange{asIndex(nb, kk), asIndex(nb, x)});
  }
}

/// The register tile `acc` plus the product of the two loaded tiles.
scf::ForOp TiledMatmulEmitter::multiplyTiles(OpBuilder &nb, ValueRange acc) {
  Value row = asIndex(nb, mul(nb, ty, kMicroTile));
  Value column = asIndex(nb, mul(nb, tx, kMicroTile));
  return scf::ForOp::create(
      nb, loc, c(nb, 0), c(nb, kTileK), c(nb, 1), acc,
      [&](OpBuilder &ib, Location, Value kk, ValueRange tile) {
        Value kIndex = asIndex(ib, kk);
        Value a = vector::LoadOp::create(ib, loc, vectorType, lhsTile,
                                         ValueRange{kIndex, row}, false,
                                         llvm::MaybeAlign(16));
        Value bv = vector::LoadOp::create(ib, loc, vectorType, rhsTile,
                                          ValueRange{kIndex, column}, false,
                                          llvm::MaybeAlign(16));
        SmallVector<Value> next;
        for (int64_t r = 0; r < kMicroTile; ++r) {
          Value ar = vector::BroadcastOp::create(
              ib, loc, vectorType,
              vector::ExtractOp::create(ib, loc, a, ArrayRef<int64_t>{r}));
          next.push_back(math::FmaOp::create(ib, loc, ar, bv, tile[r]));
        }
        scf::YieldOp::create(ib, loc, next);
      });
}

/// K in steps of kTileK: load the tiles, multiply them into the register
/// tile (rows of 4), between barriers.
scf::ForOp TiledMatmulEmitter::emitKLoop() {
  Value zeros = arith::ConstantOp::create(
      b, loc, vectorType, DenseElementsAttr::get(vectorType, 0.0f));
  SmallVector<Value> init(kMicroTile, zeros);
  return scf::ForOp::create(
      b, loc, c(b, 0), c(b, g.k), c(b, kTileK), init,
      [&](OpBuilder &nb, Location, Value k0, ValueRange acc) {
        loadTiles(nb, k0);
        gpu::BarrierOp::create(nb, loc);
        scf::ForOp inner = multiplyTiles(nb, acc);
        // The next step overwrites the tiles.
        gpu::BarrierOp::create(nb, loc);
        scf::YieldOp::create(nb, loc, inner.getResults());
      });
}

/// Yielded values at the matmul's own positions (`transposed` false), or
/// the transposed ones (head splits and merges), each at its moved position.
void TiledMatmulEmitter::storeAt(OpBuilder &builder, unsigned width, Value seed,
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
    if (failed(e.emitStore(value, out, at))) {
      failedBody = true;
      return;
    }
  }
}

/// Row `r` of the register tile: 4 outputs at a time where the row allows
/// and positions are kept, else one by one.
void TiledMatmulEmitter::storeRow(int64_t r, Value accRow, Value jFirst) {
  Value i = add(b, i0, add(b, mul(b, ty, kMicroTile), c(b, r)));
  Value rowPosition = add(b, mul(b, bz, g.m * g.n), mul(b, i, g.n));
  auto rowIf = scf::IfOp::create(b, loc, less(b, i, g.m), false);
  OpBuilder rb = OpBuilder::atBlockBegin(rowIf.thenBlock());
  bool anyTransposed =
      llvm::any_of(epilogue, [](const auto &steps) { return !steps.empty(); });
  bool anyInPlace =
      llvm::any_of(epilogue, [](const auto &steps) { return steps.empty(); });
  if (anyInPlace && g.n % kMicroTile == 0) {
    // Then j < n means j + 3 < n, and the 4 outputs are 16-byte aligned.
    auto colIf = scf::IfOp::create(rb, loc, less(rb, jFirst, g.n), false);
    OpBuilder cb = OpBuilder::atBlockBegin(colIf.thenBlock());
    storeAt(cb, kMicroTile, accRow,
            {Index::Contiguous, add(cb, rowPosition, jFirst), kMicroTile,
             /*aligned=*/true},
            /*transposed=*/false);
  }
  if (!anyTransposed && g.n % kMicroTile == 0)
    return;
  for (int64_t col = 0; col < kMicroTile; ++col) {
    Value j = add(rb, jFirst, c(rb, col));
    auto colIf = scf::IfOp::create(rb, loc, less(rb, j, g.n), false);
    OpBuilder cb = OpBuilder::atBlockBegin(colIf.thenBlock());
    Value lane =
        vector::ExtractOp::create(cb, loc, accRow, ArrayRef<int64_t>{col});
    Index at{Index::Uniform, add(cb, rowPosition, j)};
    if (anyInPlace && g.n % kMicroTile != 0)
      storeAt(cb, 1, lane, at, /*transposed=*/false);
    if (anyTransposed)
      storeAt(cb, 1, lane, at, /*transposed=*/true);
  }
}

/// Grid: (N tiles, M tiles, batch).
KernelPlan TiledMatmulEmitter::plan() {
  KernelPlan plan = kernelPlan(name, name + "_module", ScheduleKind::Matmul,
                               fusion.getInputs().size(), numResults);
  plan.launch.gridX = uint32_t(ceilDiv(g.n, kTileN));
  plan.launch.gridY = uint32_t(ceilDiv(g.m, kTileM));
  plan.launch.gridZ = uint32_t(g.batch);
  plan.launch.blockX = uint32_t(threads);
  plan.launch.iterations = g.batch * g.m * g.n;
  return plan;
}

FailureOr<FusionKernels> TiledMatmulEmitter::emit() {
  createKernelAndTiles();
  emitThreadCoordinates();
  scf::ForOp kLoop = emitKLoop();
  if (failedBody)
    return failure();
  // Epilogue: each row of the register tile, 4 adjacent outputs.
  Value jFirst = add(b, j0, mul(b, tx, kMicroTile));
  for (int64_t r = 0; r < kMicroTile; ++r)
    storeRow(r, kLoop.getResult(r), jFirst);
  if (failedBody)
    return failure();
  return singleKernel(plan());
}

/// A shared-memory tiled matmul with its prologue applied on load (the
/// operands are emitted element by element into the tiles, zero outside
/// the matrix) and its epilogue applied to the register tile before the
/// store: a row of 4 at a time where positions are kept, element by element
/// at the moved position after transposes. Grid: (N tiles, M tiles, batch).
FailureOr<FusionKernels>
emitTiledMatmul(fd::FusionOp fusion, fd::MatmulOp op,
                ArrayRef<SmallVector<TransposeStep>> epilogue, ModuleOp module,
                StringRef prefix) {
  return TiledMatmulEmitter(fusion, op, epilogue, module, prefix).emit();
}

} // namespace

/// Tiled where the epilogue only moves positions (elementwise ops, reshapes,
/// transposes) and the grid fits; the pull form otherwise (f64, more than
/// one matmul, a broadcast or slice of the result).
FailureOr<FusionKernels> emitMatmul(fd::FusionOp fusion, ModuleOp module,
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

} // namespace fuse::ptx
