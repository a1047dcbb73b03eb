//===- HostBf16Matmul.cpp - Weight matmuls in bf16 products ---------------===//
//
// See HostBf16Matmul.h. Layouts, in bf16 elements (Kp = K rounded up to
// even, P = the packed columns, N rounded up to a vector):
// - B's panels (the pack kernel, once per binding): batch b's strip from
//   column n0, of `sw` columns, starts at b * Kp * P + n0 * Kp; its row p
//   (2 * sw elements) holds B[2p, n0 + j], B[2p + 1, n0 + j] at 2 * j and
//   2 * j + 1, so a vector of 16 columns is 32 consecutive elements. Columns
//   past N repeat column N - 1 and reach no store.
// - A's rows (the matmul kernel, per run, after B's panels at a 64-byte
//   boundary): iteration x's row block has its rows at (x * kRowBlock + i)
//   * Kp, row i of the block being A's row min(block * kRowBlock + i, M - 1);
//   an odd K's last element is 0.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/HostBf16Matmul.h"

using namespace mlir;
using namespace ::fuse::codegen;

namespace fuse::host {

namespace {

/// Output rows per iteration (and per register tile), as the f32 kernel's.
constexpr int64_t kRowBlock = 6;
/// Vectors per column strip: 6 x 4 accumulators, 4 vectors of B's pairs
/// and a broadcast pair of A in the 32 zmm registers.
constexpr int64_t kStripVectors = 4;
/// Multiply-adds per scheduling grain, about.
constexpr int64_t kGrainMacs = int64_t(1) << 20;
/// Elements of B per pack-kernel chunk, about.
constexpr int64_t kPackGrainElements = int64_t(1) << 14;
constexpr const char *kDotIntrinsic = "llvm.x86.avx512bf16.dpbf16ps.512";
/// AMX (CompileOptions::amxTiles): a tile holds up to 16 rows of 64 bytes;
/// an A tile is 16 rows x 32 bf16 of k, a B tile 16 pairs of k x 16
/// columns, a C tile 16 rows x 16 f32 sums. K is padded to kAmxK with
/// zeros (in B's panels and A's rows), so every tile has that shape.
constexpr int64_t kAmxK = 32;
constexpr int64_t kAmxRows = 16;
constexpr int64_t kAmxRowBytes = 64;
/// Row blocks of two A tiles (a 2 x 2 grid of C tiles per pair of column
/// vectors); a matmul of at most 16 rows has one block of M rows.
constexpr int64_t kAmxRowBlock = 2 * kAmxRows;
/// Vectors per column strip on AMX: 8 (128 columns, 4 pairs of B tiles
/// per A row block).
constexpr int64_t kAmxStripVectors = 8;

/// Columns [from, to) in strips of `vectors` vectors; with `valid`, the last
/// vector has only that many lanes in C.
struct Tier {
  int64_t from, to, vectors;
  unsigned valid = 0;
};

class Bf16MatmulBuilder {
public:
  Bf16MatmulBuilder(OpBuilder &b, Location loc, fd::MatmulOp matmul,
                    const Bf16MatmulShape &s, unsigned width, bool amx)
      : b(b), loc(loc), matmul(matmul), s(s), width(width), amx(amx) {}

  int64_t kPairs() const {
    return amx ? llvm::alignTo(s.k, kAmxK) / 2 : (s.k + 1) / 2;
  }
  /// Rows of A per iteration.
  int64_t rowBlock() const {
    if (!amx)
      return kRowBlock;
    return s.m <= kAmxRows ? s.m : kAmxRowBlock;
  }
  int64_t kEven() const { return kPairs() * 2; }
  int64_t packedColumns() const {
    return llvm::divideCeil(s.n, int64_t(width)) * int64_t(width);
  }
  int64_t packedBatches() const { return s.rhsBatched ? s.batch : 1; }
  int64_t rowBlocks() const { return llvm::divideCeil(s.m, rowBlock()); }
  int64_t iterations() const { return s.batch * rowBlocks(); }
  /// Bytes of B's panels, rounded up to 64: A's rows follow.
  int64_t panelBytes() const {
    return llvm::alignTo(packedBatches() * kEven() * packedColumns() * 2, 64);
  }
  int64_t scratchBytes() const {
    return panelBytes() + iterations() * rowBlock() * kEven() * 2;
  }

  SmallVector<Tier> tiers() const {
    SmallVector<Tier> result;
    int64_t stripVectors = amx ? kAmxStripVectors : kStripVectors;
    int64_t columns = stripVectors * int64_t(width);
    int64_t to = s.n / columns * columns;
    if (to > 0)
      result.push_back({0, to, stripVectors});
    if (to < s.n)
      result.push_back({to, to + (packedColumns() - to),
                        (packedColumns() - to) / int64_t(width),
                        unsigned((s.n - to) % int64_t(width))});
    return result;
  }

  /// The pack kernel over iterations [begin, end): pair p of batch b is
  /// iteration b * P + p, all packed columns.
  LogicalResult emitPack(Value begin, Value end, Value scratch,
                         const DenseMap<Value, Value> &pointers) {
    auto loop = scf::ForOp::create(b, loc, begin, end, c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value it = loop.getInductionVar();
    Value batch = arith::DivUIOp::create(b, loc, it, c(kPairs()));
    Value pair = arith::RemUIOp::create(b, loc, it, c(kPairs()));
    Value k0 = arith::MulIOp::create(b, loc, pair, c(2));
    Value k1 = arith::AddIOp::create(b, loc, k0, c(1));
    // An odd K's last pair reads row K - 1 twice and zeroes the second.
    Value hasSecond =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k1, c(s.k));
    Value k1Read = arith::MinUIOp::create(b, loc, k1, c(s.k - 1));
    // AMX pads K to kAmxK: pairs past K are zeros.
    Value hasFirst, k0Read = k0;
    if (amx && kEven() > s.k + 1) {
      hasFirst =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k0, c(s.k));
      k0Read = arith::MinUIOp::create(b, loc, k0, c(s.k - 1));
    }
    auto vector16 = VectorType::get({width}, b.getF32Type());
    auto half16 = VectorType::get({width}, b.getBF16Type());
    Value zeros = arith::ConstantOp::create(
        b, loc, vector16, DenseElementsAttr::get(vector16, 0.0f));
    SmallVector<int64_t> interleave;
    for (int64_t l = 0; l < int64_t(width); ++l) {
      interleave.push_back(l);
      interleave.push_back(l + int64_t(width));
    }
    Value batchBase =
        arith::MulIOp::create(b, loc, batch, c(kEven() * packedColumns()));
    for (const Tier &tier : tiers()) {
      int64_t stripWidth = tier.vectors * int64_t(width);
      auto strips =
          scf::ForOp::create(b, loc, c(tier.from), c(tier.to), c(stripWidth));
      OpBuilder::InsertionGuard stripGuard(b);
      b.setInsertionPoint(strips.getBody()->getTerminator());
      Value n0 = strips.getInductionVar();
      Value panel = arith::AddIOp::create(
          b, loc, batchBase, arith::MulIOp::create(b, loc, n0, c(kEven())));
      Value row = arith::AddIOp::create(
          b, loc, panel,
          arith::MulIOp::create(b, loc, pair, c(2 * stripWidth)));
      for (int64_t j = 0; j < tier.vectors; ++j) {
        Value n = arith::AddIOp::create(b, loc, n0, c(j * width));
        unsigned valid = j == tier.vectors - 1 ? tier.valid : 0;
        RegionEmitter e(b, loc, width, pointers);
        FailureOr<Value> first =
            e.emit(matmul.getRhs(), rhsIndex(batch, k0Read, n, valid));
        FailureOr<Value> second =
            e.emit(matmul.getRhs(), rhsIndex(batch, k1Read, n, valid));
        if (failed(first) || failed(second))
          return failure();
        Value secondOrZero =
            arith::SelectOp::create(b, loc, hasSecond, *second, zeros);
        Value firstOrZero =
            hasFirst ? arith::SelectOp::create(b, loc, hasFirst, *first, zeros)
                     : *first;
        Value pairs = vector::ShuffleOp::create(
            b, loc, arith::TruncFOp::create(b, loc, half16, firstOrZero),
            arith::TruncFOp::create(b, loc, half16, secondOrZero), interleave);
        store(pairs, scratch,
              arith::AddIOp::create(b, loc, row, c(2 * j * width)));
      }
    }
    return success();
  }

  /// The matmul kernel over iterations [begin, end) (row blocks of all
  /// batches): their rows of A to bf16, then the strips of each tier over
  /// them.
  LogicalResult emitMatmul(Value begin, Value end, Value scratch,
                           const DenseMap<Value, Value> &pointers,
                           ArrayRef<Value> outputs,
                           MatmulTileEpilogue epilogue) {
    Value rowsOfA = LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), b.getI8Type(),
        scratch, ValueRange{c(panelBytes())});
    if (failed(emitConvertA(begin, end, rowsOfA, pointers)))
      return failure();
    // AMX: the C tiles go through this buffer to the epilogue one row
    // tile (at most kAmxRows rows of 2 vectors) at a time; allocated once,
    // outside the loops.
    Value tileSums;
    if (amx) {
      auto f32 = b.getF32Type();
      tileSums = LLVM::AllocaOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()), f32,
          c(kAmxRows * 2 * int64_t(width)), 64);
    }
    for (const Tier &tier : tiers()) {
      int64_t stripWidth = tier.vectors * int64_t(width);
      auto strips =
          scf::ForOp::create(b, loc, c(tier.from), c(tier.to), c(stripWidth));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(strips.getBody()->getTerminator());
      Value n0 = strips.getInductionVar();
      auto blocks = scf::ForOp::create(b, loc, begin, end, c(1));
      b.setInsertionPoint(blocks.getBody()->getTerminator());
      if (amx ? failed(emitAmxTiles(blocks.getInductionVar(), n0, tier, scratch,
                                    rowsOfA, tileSums, pointers, outputs,
                                    epilogue))
              : failed(emitTile(blocks.getInductionVar(), n0, tier, scratch,
                                rowsOfA, pointers, outputs, epilogue)))
        return failure();
    }
    return success();
  }

private:
  Value c(int64_t value) { return i64Constant(b, loc, value); }

  void store(Value x, Value base, Value index) {
    Value address =
        LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                            b.getBF16Type(), base, ValueRange{index});
    LLVM::StoreOp::create(b, loc, x, address, 2);
  }

  /// B[batch, k, n .. n + width) in the rhs value's shape; lanes from
  /// `valid` on read lane valid - 1's element.
  Index rhsIndex(Value batch, Value k, Value n, unsigned valid) {
    Value base = s.rhsBatched
                     ? Value(arith::MulIOp::create(b, loc, batch, c(s.k * s.n)))
                     : c(0);
    if (s.transposeB) {
      Value position = arith::AddIOp::create(
          b, loc, base,
          arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, n, c(s.k)), k));
      return {Index::Lanes, clampedLanes(b, loc, position, width, valid, s.k)};
    }
    Value position = arith::AddIOp::create(
        b, loc, base,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, k, c(s.n)),
                              n));
    if (valid)
      return {Index::Lanes, clampedLanes(b, loc, position, width, valid, 1)};
    return {Index::Contiguous, position,
            s.n % int64_t(width) == 0 ? int64_t(width) : s.n};
  }

  /// The index of A[batch, m, k] in the lhs value's shape.
  Value lhsPosition(Value batch, Value m, Value k) {
    Value inner =
        s.transposeA ? arith::AddIOp::create(
                           b, loc, arith::MulIOp::create(b, loc, k, c(s.m)), m)
                     : arith::AddIOp::create(
                           b, loc, arith::MulIOp::create(b, loc, m, c(s.k)), k);
    if (!s.lhsBatched)
      return inner;
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, batch, c(s.m * s.k)), inner);
  }

  /// The rows of A of iterations [begin, end) to bf16 (vcvtneps2bf16), a
  /// vector of k at a time along a row (A not transposed), the rest one by
  /// one.
  LogicalResult emitConvertA(Value begin, Value end, Value rowsOfA,
                             const DenseMap<Value, Value> &pointers) {
    auto loop = scf::ForOp::create(b, loc, begin, end, c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value it = loop.getInductionVar();
    Value batch = arith::DivUIOp::create(b, loc, it, c(rowBlocks()));
    Value m0 = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, it, c(rowBlocks())),
        c(rowBlock()));
    auto rows = scf::ForOp::create(b, loc, c(0), c(rowBlock()), c(1));
    b.setInsertionPoint(rows.getBody()->getTerminator());
    Value i = rows.getInductionVar();
    Value row = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, m0, i), c(s.m - 1));
    Value slot = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, it, c(rowBlock())), i),
        c(kEven()));
    int64_t vectorEnd =
        s.transposeA ? 0 : s.k / int64_t(width) * int64_t(width);
    if (vectorEnd > 0) {
      auto ks = scf::ForOp::create(b, loc, c(0), c(vectorEnd), c(width));
      OpBuilder::InsertionGuard kGuard(b);
      b.setInsertionPoint(ks.getBody()->getTerminator());
      Value k = ks.getInductionVar();
      RegionEmitter e(b, loc, width, pointers);
      FailureOr<Value> a = e.emit(
          matmul.getLhs(), {Index::Contiguous, lhsPosition(batch, row, k),
                            s.k % int64_t(width) == 0 ? int64_t(width) : s.k});
      if (failed(a))
        return failure();
      store(arith::TruncFOp::create(
                b, loc, VectorType::get({width}, b.getBF16Type()), *a),
            rowsOfA, arith::AddIOp::create(b, loc, slot, k));
    }
    if (vectorEnd < s.k) {
      auto ks = scf::ForOp::create(b, loc, c(vectorEnd), c(s.k), c(1));
      OpBuilder::InsertionGuard kGuard(b);
      b.setInsertionPoint(ks.getBody()->getTerminator());
      Value k = ks.getInductionVar();
      RegionEmitter e(b, loc, 1, pointers);
      FailureOr<Value> a =
          e.emit(matmul.getLhs(), {Index::Uniform, lhsPosition(batch, row, k)});
      if (failed(a))
        return failure();
      store(arith::TruncFOp::create(b, loc, b.getBF16Type(), *a), rowsOfA,
            arith::AddIOp::create(b, loc, slot, k));
    }
    Value zero = arith::ConstantOp::create(
        b, loc, b.getBF16Type(), b.getFloatAttr(b.getBF16Type(), 0.0));
    if (kEven() == s.k + 1) {
      store(zero, rowsOfA, arith::AddIOp::create(b, loc, slot, c(s.k)));
    } else if (kEven() > s.k) {
      auto pad = scf::ForOp::create(b, loc, c(s.k), c(kEven()), c(1));
      OpBuilder::InsertionGuard padGuard(b);
      b.setInsertionPoint(pad.getBody()->getTerminator());
      store(zero, rowsOfA,
            arith::AddIOp::create(b, loc, slot, pad.getInductionVar()));
    }
    return success();
  }

  /// The tile of iteration `it`'s row block and the strip from `n0`: rows x
  /// vectors f32 accumulators, one vdpbf16ps each per pair of k, then the
  /// epilogue.
  LogicalResult emitTile(Value it, Value n0, const Tier &tier, Value panels,
                         Value rowsOfA, const DenseMap<Value, Value> &pointers,
                         ArrayRef<Value> outputs, MatmulTileEpilogue epilogue) {
    Value batch = arith::DivUIOp::create(b, loc, it, c(rowBlocks()));
    Value m0 = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, it, c(rowBlocks())),
        c(kRowBlock));
    int64_t rows = rowBlocks() == 1 ? s.m : kRowBlock;
    bool clamp = rowBlocks() != 1 && s.m % kRowBlock != 0;
    int64_t stripWidth = tier.vectors * int64_t(width);
    SmallVector<Value> rowIndex, colIndex, rowSlots;
    for (int64_t i = 0; i < rows; ++i) {
      Value row = arith::AddIOp::create(b, loc, m0, c(i));
      if (clamp && i != 0)
        row = arith::MinUIOp::create(b, loc, row, c(s.m - 1));
      rowIndex.push_back(row);
      // A's row i as pairs (i32 elements).
      rowSlots.push_back(arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, it, c(kRowBlock)), c(i)),
          c(kPairs())));
    }
    for (int64_t j = 0; j < tier.vectors; ++j)
      colIndex.push_back(arith::AddIOp::create(b, loc, n0, c(j * width)));
    Value panel = arith::MulIOp::create(b, loc, n0, c(kEven()));
    if (s.rhsBatched)
      panel = arith::AddIOp::create(
          b, loc, panel,
          arith::MulIOp::create(b, loc, batch, c(kEven() * packedColumns())));
    auto f32Vector = VectorType::get({width}, b.getF32Type());
    auto pairVector = VectorType::get({2 * width}, b.getBF16Type());
    auto i32Vector = VectorType::get({width}, b.getI32Type());
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    Value zero = arith::ConstantOp::create(
        b, loc, f32Vector, DenseElementsAttr::get(f32Vector, 0.0f));
    SmallVector<Value> init(rows * tier.vectors, zero);
    auto kLoop = scf::ForOp::create(
        b, loc, c(0), c(kPairs()), c(1), init,
        [&](OpBuilder &nb, Location, Value p, ValueRange acc) {
          SmallVector<Value> bs;
          Value row = arith::AddIOp::create(
              nb, loc, panel,
              arith::MulIOp::create(nb, loc, p,
                                    i64Constant(nb, loc, 2 * stripWidth)));
          for (int64_t j = 0; j < tier.vectors; ++j) {
            Value address = LLVM::GEPOp::create(
                nb, loc, ptr, nb.getBF16Type(), panels,
                ValueRange{arith::AddIOp::create(
                    nb, loc, row, i64Constant(nb, loc, 2 * j * width))});
            bs.push_back(LLVM::LoadOp::create(nb, loc, pairVector, address, 2));
          }
          SmallVector<Value> next;
          for (int64_t i = 0; i < rows; ++i) {
            Value address = LLVM::GEPOp::create(
                nb, loc, ptr, nb.getI32Type(), rowsOfA,
                ValueRange{arith::AddIOp::create(nb, loc, rowSlots[i], p)});
            Value pairOfA =
                LLVM::LoadOp::create(nb, loc, nb.getI32Type(), address, 4);
            Value a = vector::BitCastOp::create(
                nb, loc, pairVector,
                vector::BroadcastOp::create(nb, loc, i32Vector, pairOfA));
            for (int64_t j = 0; j < tier.vectors; ++j)
              next.push_back(
                  LLVM::CallIntrinsicOp::create(
                      nb, loc, f32Vector, nb.getStringAttr(kDotIntrinsic),
                      ValueRange{acc[i * tier.vectors + j], a, bs[j]})
                      .getResult(0));
          }
          scf::YieldOp::create(nb, loc, next);
        });
    return epilogue(b, pointers, outputs, batch, rowIndex, colIndex, width,
                    tier.valid, SmallVector<Value>(kLoop.getResults()));
  }

  /// AMX tiles' intrinsics (LLVM's `.internal` forms, whose shapes LLVM's
  /// tile configuration pass reads): rows and bytes per row are constants.
  Value tileShape(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI16Type(),
                                     b.getI16IntegerAttr(value));
  }
  Value tileCall(StringRef name, Type result, ValueRange operands) {
    if (!result) {
      LLVM::CallIntrinsicOp::create(b, loc, b.getStringAttr(name), operands);
      return Value();
    }
    return LLVM::CallIntrinsicOp::create(b, loc, result, b.getStringAttr(name),
                                         operands)
        .getResult(0);
  }
  Value bytePointer(Value base, Value elementOffset, Type element) {
    return LLVM::GEPOp::create(b, loc,
                               LLVM::LLVMPointerType::get(b.getContext()),
                               element, base, ValueRange{elementOffset});
  }

  /// The tiles of iteration `it`'s row block (one or two A tiles of 16
  /// rows) and the strip from `n0`, by pairs of column vectors: a grid of
  /// C tiles summed over k in kAmxK steps (tdpbf16ps), stored to
  /// `tileSums` and handed to the epilogue a row tile at a time.
  LogicalResult emitAmxTiles(Value it, Value n0, const Tier &tier, Value panels,
                             Value rowsOfA, Value tileSums,
                             const DenseMap<Value, Value> &pointers,
                             ArrayRef<Value> outputs,
                             MatmulTileEpilogue epilogue) {
    Value batch = arith::DivUIOp::create(b, loc, it, c(rowBlocks()));
    Value m0 = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, it, c(rowBlocks())),
        c(rowBlock()));
    int64_t tileRows = std::min(rowBlock(), kAmxRows);
    int64_t rowTiles = rowBlock() / tileRows;
    bool clamp = s.m % rowBlock() != 0;
    int64_t stripWidth = tier.vectors * int64_t(width);
    Value panel = arith::MulIOp::create(b, loc, n0, c(kEven()));
    if (s.rhsBatched)
      panel = arith::AddIOp::create(
          b, loc, panel,
          arith::MulIOp::create(b, loc, batch, c(kEven() * packedColumns())));
    Value firstRowOfA =
        arith::MulIOp::create(b, loc, it, c(rowBlock() * kEven()));
    auto amxType = LLVM::LLVMX86AMXType::get(b.getContext());
    auto bf16 = b.getBF16Type();
    auto f32 = b.getF32Type();
    auto f32Vector = VectorType::get({width}, f32);
    int64_t sumsRow = 2 * int64_t(width);
    for (int64_t j0 = 0; j0 < tier.vectors; j0 += 2) {
      int64_t cols = std::min<int64_t>(2, tier.vectors - j0);
      SmallVector<Value> init;
      for (int64_t t = 0; t < rowTiles * cols; ++t)
        init.push_back(
            tileCall("llvm.x86.tilezero.internal", amxType,
                     {tileShape(tileRows), tileShape(kAmxRowBytes)}));
      auto kLoop = scf::ForOp::create(b, loc, c(0), c(kEven()), c(kAmxK), init);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(kLoop.getBody());
        Value k = kLoop.getInductionVar();
        SmallVector<Value> as, bs, next;
        for (int64_t r = 0; r < rowTiles; ++r) {
          Value offset = arith::AddIOp::create(
              b, loc, firstRowOfA,
              arith::AddIOp::create(b, loc, c(r * kAmxRows * kEven()), k));
          as.push_back(
              tileCall("llvm.x86.tileloadd64.internal", amxType,
                       {tileShape(tileRows), tileShape(kAmxRowBytes),
                        bytePointer(rowsOfA, offset, bf16), c(2 * kEven())}));
        }
        // Pair row k / 2 of the strip, column vector j0 + jj.
        Value pairRow = arith::AddIOp::create(
            b, loc, panel, arith::MulIOp::create(b, loc, k, c(stripWidth)));
        for (int64_t jj = 0; jj < cols; ++jj)
          bs.push_back(
              tileCall("llvm.x86.tileloadd64.internal", amxType,
                       {tileShape(kAmxRows), tileShape(kAmxRowBytes),
                        bytePointer(panels,
                                    arith::AddIOp::create(
                                        b, loc, pairRow,
                                        c(2 * (j0 + jj) * int64_t(width))),
                                    bf16),
                        c(4 * stripWidth)}));
        for (int64_t r = 0; r < rowTiles; ++r)
          for (int64_t jj = 0; jj < cols; ++jj)
            next.push_back(tileCall(
                "llvm.x86.tdpbf16ps.internal", amxType,
                {tileShape(tileRows), tileShape(kAmxRowBytes),
                 tileShape(kAmxRowBytes),
                 kLoop.getRegionIterArgs()[r * cols + jj], as[r], bs[jj]}));
        scf::YieldOp::create(b, loc, next);
      }
      for (int64_t r = 0; r < rowTiles; ++r) {
        for (int64_t jj = 0; jj < cols; ++jj)
          tileCall("llvm.x86.tilestored64.internal", Type(),
                   {tileShape(tileRows), tileShape(kAmxRowBytes),
                    bytePointer(tileSums, c(jj * int64_t(width)), f32),
                    c(4 * sumsRow), kLoop.getResult(r * cols + jj)});
        SmallVector<Value> rows, columns, sums;
        for (int64_t i = 0; i < tileRows; ++i) {
          Value row = arith::AddIOp::create(b, loc, m0, c(r * kAmxRows + i));
          if (clamp && r * kAmxRows + i != 0)
            row = arith::MinUIOp::create(b, loc, row, c(s.m - 1));
          rows.push_back(row);
          for (int64_t jj = 0; jj < cols; ++jj)
            sums.push_back(LLVM::LoadOp::create(
                b, loc, f32Vector,
                bytePointer(tileSums, c(i * sumsRow + jj * int64_t(width)),
                            f32),
                4));
        }
        for (int64_t jj = 0; jj < cols; ++jj)
          columns.push_back(
              arith::AddIOp::create(b, loc, n0, c((j0 + jj) * int64_t(width))));
        unsigned valid = j0 + cols == tier.vectors ? tier.valid : 0;
        if (failed(epilogue(b, pointers, outputs, batch, rows, columns, width,
                            valid, sums)))
          return failure();
      }
    }
    return success();
  }

  OpBuilder &b;
  Location loc;
  fd::MatmulOp matmul;
  const Bf16MatmulShape &s;
  unsigned width;
  bool amx;
};

} // namespace

bool wantsBf16Matmul(fd::FusionOp fusion) {
  auto precision = fusion->getAttrOfType<StringAttr>(kMatmulPrecisionAttr);
  return precision && precision.getValue() == "bf16";
}

FailureOr<FusionKernels>
emitHostBf16Matmul(fd::FusionOp fusion, fd::MatmulOp matmul, ModuleOp module,
                   StringRef prefix, unsigned width, const Bf16MatmulShape &s,
                   unsigned numResults, MatmulTileEpilogue epilogue) {
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  unsigned numInputs = fusion.getInputs().size();
  bool amx = fusion->hasAttr(kMatmulAmxAttr);
  FusionKernels kernels;
  {
    std::string name = (prefix + "_bf16pack").str();
    HostKernel pack = openKernel(b, module, loc, name, fusion, 1);
    Bf16MatmulBuilder builder(b, loc, matmul, s, width, amx);
    kernels.scratchBytes = uint64_t(builder.scratchBytes());
    if (failed(builder.emitPack(pack.begin(), pack.end(), pack.outputs.front(),
                                pack.pointers)))
      return failure();
    KernelPlan plan = kernelPlan(name, "", ScheduleKind::Matmul, numInputs,
                                 std::span<const unsigned>(),
                                 /*scratch=*/true);
    plan.perBinding = true;
    // Not for its own instructions (software rounding), for the plan and the
    // runtime: the bundle's weights are bf16.
    plan.targetSuffix = "+avx512bf16";
    plan.bindingReads = {cast<BlockArgument>(matmul.getRhs()).getArgNumber()};
    plan.launch.iterations = builder.packedBatches() * builder.kPairs();
    plan.launch.grain = std::max<int64_t>(
        1,
        kPackGrainElements / std::max<int64_t>(1, 2 * builder.packedColumns()));
    kernels.kernels.push_back(std::move(plan));
  }
  std::string name = (prefix + "_bf16matmul").str();
  HostKernel kernel = openKernel(b, module, loc, name, fusion, numResults);
  Value scratch = bufferPointer(b, loc, kernel.buffers, numInputs + numResults);
  Bf16MatmulBuilder builder(b, loc, matmul, s, width, amx);
  if (failed(builder.emitMatmul(kernel.begin(), kernel.end(), scratch,
                                kernel.pointers, kernel.outputs, epilogue)))
    return failure();
  KernelPlan plan = kernelPlan(name, "", ScheduleKind::Matmul, numInputs,
                               unsigned(kernel.outputs.size()));
  plan.operands.push_back({KernelOperand::Kind::Scratch, 0});
  plan.targetSuffix = amx ? "+avx512bf16+amxbf16" : "+avx512bf16";
  plan.launch.iterations = s.n == 0 ? 0 : builder.iterations();
  plan.launch.grain = std::max<int64_t>(
      1, kGrainMacs / std::max<int64_t>(1, builder.rowBlock() * s.n * s.k));
  kernels.kernels.push_back(std::move(plan));
  return kernels;
}

} // namespace fuse::host
