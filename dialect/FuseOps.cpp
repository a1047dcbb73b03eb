//===- FuseOps.cpp - Verifiers and type inference of the fuse ops ---------===//
//
// Every verifier message says what is wrong and what was expected; each has a
// case in lit_tests/dialect/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "dialect/FuseDims.h"

#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/WindowShape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// Prints a shape as `[2, 3]`.
struct ShapeStr {
  ArrayRef<int64_t> shape;
};

template <typename Stream> Stream &operator<<(Stream &os, ShapeStr s) {
  os << "[";
  llvm::interleaveComma(s.shape, os);
  os << "]";
  return os;
}

} // namespace

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

namespace {

/// Shapes as the Graph encodes them (runtime/ir/Graph.h): a static dim is
/// its size, a symbolic one the negative code of its polynomial in an
/// op-local table that interns, so the verifiers compare and rearrange
/// symbolic dims exactly as static ones.
class Shapes {
public:
  SmallVector<int64_t> of(RankedTensorType type) {
    SmallVector<int64_t> codes;
    for (unsigned i = 0; i < unsigned(type.getRank()); ++i)
      codes.push_back(dimCode(type, i));
    return codes;
  }
  SmallVector<int64_t> of(Value value) { return of(tensorType(value)); }
  /// The code of dim `index` of a fuse-shaped type: a size >= 0 or a
  /// polynomial that is no constant, so interning cannot fail.
  int64_t dimCode(RankedTensorType type, unsigned index) {
    ::fuse::Expected<int64_t> code = table.intern(dimExpr(type, index));
    assert(code.ok() && "a fuse-shaped type holds no negative constant");
    return code.ok() ? *code : 0;
  }
  /// The code of `expr`, computed from dims: an error when it is a negative
  /// constant (a concat of `sequence - 2` and `1 - sequence` has -1 rows).
  ::fuse::Expected<int64_t> code(const ::fuse::DimExpr &expr) {
    return table.intern(expr);
  }
  ::fuse::DimExpr expr(int64_t code) const { return table.expr(code); }
  std::string str(int64_t code) const { return table.dimString(code); }
  bool isSymbolic(ArrayRef<int64_t> shape) const {
    return llvm::any_of(shape, [](int64_t d) { return d < 0; });
  }
  RankedTensorType typeOf(ArrayRef<int64_t> shape, Type elementType) const {
    SmallVector<::fuse::DimExpr> exprs;
    for (int64_t d : shape)
      exprs.push_back(table.expr(d));
    return tensorTypeOf(exprs, elementType);
  }

private:
  ::fuse::DimTable table;
};

} // namespace

/// The first symbolic dim of `op`'s types, as an error: for the ops whose
/// shapes need static dims (pool, im2col, conv).
static LogicalResult refuseSymbolic(Operation *op) {
  std::string dim = firstSymbolicDim(op);
  if (dim.empty())
    return success();
  return op->emitOpError() << "needs static dims, but " << dim
                           << " is symbolic";
}

static LogicalResult checkResultType(Operation *op, ArrayRef<int64_t> shape,
                                     Type elementType,
                                     const Shapes *shapes = nullptr) {
  RankedTensorType expected = shapes
                                  ? shapes->typeOf(shape, elementType)
                                  : RankedTensorType::get(shape, elementType);
  Type actual = op->getResult(0).getType();
  if (actual != expected)
    return op->emitOpError() << "result type " << actual
                             << " does not match the expected " << expected;
  return success();
}

static LogicalResult checkSameElementType(Operation *op) {
  Type operand = getElementTypeOrSelf(op->getOperand(0).getType());
  Type result = getElementTypeOrSelf(op->getResult(0).getType());
  if (operand != result)
    return op->emitOpError()
           << "result element type " << result
           << " differs from the operand element type " << operand;
  return success();
}

static LogicalResult checkUnsignedFlag(Operation *op, bool isUnsigned) {
  Type elementType = getElementTypeOrSelf(op->getOperand(0).getType());
  if (isUnsigned && !isa<IntegerType>(elementType))
    return op->emitOpError()
           << "'is_unsigned' requires integer operands, but got "
           << elementType;
  return success();
}

/// Checks that `dims` is strictly increasing and within [0, rank).
static LogicalResult checkDimList(Operation *op, StringRef name,
                                  ArrayRef<int64_t> dims, int64_t rank) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank || (i > 0 && d <= dims[i - 1]))
      return op->emitOpError()
             << name << " must be strictly increasing and within [0, " << rank
             << "), but got " << ShapeStr{dims};
  }
  return success();
}

// The parser and the ODS type constraints reject a missing or non-tensor
// operand before inference runs on IR text; these errors can only come from
// C++ builders, so invalid.mlir has no case for them. The inferReturnTypes of
// IsInfOp, IsNaNOp and CompareOp (Fuse_BoolResultOfOperandShape in
// FuseOps.td).
static LogicalResult inferPredicateType(std::optional<Location> location,
                                        ValueRange operands,
                                        SmallVectorImpl<Type> &inferred) {
  if (operands.empty())
    return emitOptionalError(location, "expected an operand");
  auto type = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!type)
    return emitOptionalError(location, "expected a ranked tensor operand");
  // The encoding names the symbolic dims: the result has the operand's.
  inferred.push_back(RankedTensorType::get(
      type.getShape(), IntegerType::get(type.getContext(), 1),
      type.getEncoding()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult mlir::fuse::verifySameDims(Operation *op) {
  RankedTensorType first;
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    if (!first) {
      first = tensor;
      return success();
    }
    if (tensor.getShape() == first.getShape() &&
        tensor.getEncoding() == first.getEncoding())
      return success();
    return op->emitOpError()
           << what << " #" << index << " has type " << tensor
           << ", whose dims differ from those of " << first
           << "; an elementwise op's operands and results have one shape";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", unsigned(i))))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", unsigned(i))))
      return failure();
  return success();
}

LogicalResult CompareOp::verify() {
  ComparePredicate predicate = getPredicate();
  bool isUnsigned = predicate == ComparePredicate::ult ||
                    predicate == ComparePredicate::ule ||
                    predicate == ComparePredicate::ugt ||
                    predicate == ComparePredicate::uge;
  Type elementType = tensorType(getLhs()).getElementType();
  if (isUnsigned && !isa<IntegerType>(elementType))
    return emitOpError() << "unsigned predicate '"
                         << stringifyComparePredicate(predicate)
                         << "' requires integer operands, but got "
                         << elementType;
  return success();
}

LogicalResult DivOp::verify() {
  return checkUnsignedFlag(*this, getIsUnsigned());
}

LogicalResult RemOp::verify() {
  return checkUnsignedFlag(*this, getIsUnsigned());
}

// The shapes of select's and cast's operands and result are checked by the
// Elementwise and Fuse_SameDims traits, before these verifiers run.
LogicalResult CastOp::verify() {
  if (failed(checkUnsignedFlag(*this, getIsUnsigned())))
    return failure();
  Type result = getElementTypeOrSelf(getResult().getType());
  if (getSaturate() &&
      !isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
           Float8E5M2FNUZType, Float8E8M0FNUType>(result))
    return emitOpError() << "'saturate' requires an f8 result, but got "
                         << result;
  if (getRoundMode() && !isa<Float8E8M0FNUType>(result))
    return emitOpError()
           << "'round_mode' requires an f8E8M0FNU result, but got " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (failed(checkSameElementType(*this)))
    return failure();
  RankedTensorType operand = tensorType(getOperand());
  RankedTensorType result = tensorType(getResult());
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != operand.getRank())
    return emitOpError() << "dims has " << dims.size()
                         << " entries, expected one per operand dimension ("
                         << operand.getRank() << ")";
  if (failed(checkDimList(*this, "dims", dims, result.getRank())))
    return failure();
  Shapes shapes;
  SmallVector<int64_t> from = shapes.of(operand), to = shapes.of(result);
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t size = from[i];
    if (size != 1 && size != to[d])
      return emitOpError() << "operand dimension " << i << " has size "
                           << shapes.str(size) << ", expected 1 or "
                           << shapes.str(to[d]) << " (result dimension " << d
                           << ")";
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(checkSameElementType(*this)))
    return failure();
  RankedTensorType from = tensorType(getOperand()),
                   to = tensorType(getResult());
  if (!from.hasStaticShape() || !to.hasStaticShape()) {
    // Counts equal as polynomials over the dim symbols.
    ::fuse::DimTable table;
    auto count = [&](RankedTensorType type) {
      SmallVector<::fuse::DimExpr> exprs = shapeExprs(type);
      std::vector<int64_t> codes;
      for (const ::fuse::DimExpr &e : exprs)
        codes.push_back(*table.intern(e));
      return table.product(codes);
    };
    ::fuse::Expected<::fuse::DimExpr> a = count(from), b = count(to);
    if (!a.ok() || !b.ok())
      return emitOpError() << "the element count passes 2^63";
    if (!(*a == *b))
      return emitOpError() << "operand has " << a->toString()
                           << " elements but the result has " << b->toString()
                           << "; reshape keeps the number of elements";
    return success();
  }
  // Counted with CheckedInt: getNumElements wraps (16 x (2^60 + 1) read as
  // 16), and a 0 dim empties a tensor whatever the others hold.
  std::optional<int64_t> operandCount =
      ::fuse::checkedElementCount(tensorType(getOperand()).getShape()).get();
  std::optional<int64_t> resultCount =
      ::fuse::checkedElementCount(tensorType(getResult()).getShape()).get();
  if (!operandCount || !resultCount)
    return emitOpError() << "the " << (operandCount ? "result" : "operand")
                         << " has more elements than an int64 counts";
  int64_t operand = *operandCount, result = *resultCount;
  if (operand != result)
    return emitOpError() << "operand has " << operand
                         << " elements but the result has " << result
                         << "; reshape keeps the number of elements";
  return success();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType operand = tensorType(getOperand());
  ArrayRef<int64_t> permutation = getPermutation();
  int64_t rank = operand.getRank();
  SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(permutation.size()) == rank;
  for (int64_t p : permutation) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return emitOpError() << "permutation " << ShapeStr{permutation}
                         << " is not a permutation of [0, " << rank << ")";
  Shapes shapes;
  SmallVector<int64_t> dims = shapes.of(operand), shape;
  for (int64_t p : permutation)
    shape.push_back(dims[p]);
  return checkResultType(*this, shape, operand.getElementType(), &shapes);
}

/// A slice dim where the operand's dim or the size is symbolic (the size
/// is then -1, the result's dim): as the Graph checks it (runtime/ir/
/// Verifier.cpp, checkSymbolicSliceDim), the dim is taken whole, or with
/// stride 1 a part that fits for every value of the dims; on a static dim a
/// symbolic size is checked once the dims are bound.
static LogicalResult checkSymbolicSliceDim(SliceOp op, int64_t i) {
  RankedTensorType operand = tensorType(op.getOperand()),
                   result = tensorType(op.getResult());
  int64_t offset = op.getOffsets()[i], stride = op.getStrides()[i];
  ::fuse::DimExpr dim = dimExpr(operand, unsigned(i));
  ::fuse::DimExpr size = op.getSizes()[i] == -1
                             ? dimExpr(result, unsigned(i))
                             : ::fuse::DimExpr::constant(op.getSizes()[i]);
  if (dim.isConstant())
    return success();
  if (size == dim && offset == 0 && stride == 1)
    return success();
  ::fuse::Expected<::fuse::DimExpr> room =
      ::fuse::DimExpr::sub(dim, ::fuse::DimExpr::constant(offset));
  if (room.ok())
    room = ::fuse::DimExpr::sub(*room, size);
  if (stride == 1 && room.ok() && room->isNonNegative())
    return success();
  return op.emitOpError() << "dimension " << i << " is symbolic ("
                          << dim.toString()
                          << "): a slice takes it whole, or with stride 1 a "
                             "part that fits for every value of the dims; "
                             "offset "
                          << offset << ", size " << size.toString()
                          << " and stride " << stride << " do not";
}

LogicalResult SliceOp::verify() {
  RankedTensorType operand = tensorType(getOperand());
  RankedTensorType resultType = tensorType(getResult());
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes(),
                    strides = getStrides();
  int64_t rank = operand.getRank();
  if (static_cast<int64_t>(offsets.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return emitOpError() << "offsets, sizes and strides need one entry per "
                            "dimension ("
                         << rank << "), but have " << offsets.size() << ", "
                         << sizes.size() << " and " << strides.size();
  if (resultType.getRank() != rank)
    return emitOpError() << "result rank " << resultType.getRank()
                         << " differs from the operand's " << rank;
  Shapes shapes;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (strides[i] < 1)
      return emitOpError() << "stride of dimension " << i << " is "
                           << strides[i] << ", expected at least 1";
    // A size of -1 is the result's symbolic dim i.
    bool symbolicSize = sizes[i] == -1 && resultType.isDynamicDim(i);
    if (offsets[i] < 0 || (sizes[i] < 0 && !symbolicSize))
      return emitOpError() << "offset and size of dimension " << i
                           << " must not be negative, but are " << offsets[i]
                           << " and " << sizes[i]
                           << (sizes[i] == -1
                                   ? " (a size of -1 names the result's "
                                     "symbolic dim, but it is static)"
                                   : "");
    shape.push_back(symbolicSize ? shapes.dimCode(resultType, unsigned(i))
                                 : sizes[i]);
    if (symbolicSize || operand.isDynamicDim(i)) {
      if (failed(checkSymbolicSliceDim(*this, i)))
        return failure();
      continue;
    }
    // The last index read, offset + (size - 1) * stride, must be in bounds;
    // counted with CheckedInt so that huge attributes cannot overflow.
    int64_t dimSize = operand.getDimSize(i);
    std::optional<int64_t> last =
        ((::fuse::CheckedInt(sizes[i]) - 1) * strides[i] + offsets[i]).get();
    if (sizes[i] > 0 && (!last || *last >= dimSize))
      return emitOpError() << "slice of dimension " << i << " (offset "
                           << offsets[i] << ", size " << sizes[i] << ", stride "
                           << strides[i] << ") reads past its size " << dimSize;
  }
  return checkResultType(*this, shape, operand.getElementType(), &shapes);
}

/// The shape of a window op's operand with each of its `window.size()`
/// trailing dims replaced by the window's output size, or an error at `op`.
static FailureOr<SmallVector<int64_t>>
windowedShape(Operation *op, RankedTensorType operand, ArrayRef<int64_t> window,
              ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
              ArrayRef<int64_t> pads, bool ceilMode) {
  int64_t n = static_cast<int64_t>(window.size()), rank = operand.getRank();
  if (n == 0 || n > rank)
    return op->emitOpError()
           << "window " << ShapeStr{window} << " has " << n
           << " dimensions, expected 1 to the operand's rank " << rank;
  if (static_cast<int64_t>(strides.size()) != n ||
      static_cast<int64_t>(dilations.size()) != n ||
      static_cast<int64_t>(pads.size()) != 2 * n)
    return op->emitOpError()
           << "strides, dilations and pads need " << n << ", " << n << " and "
           << 2 * n << " entries, but have " << strides.size() << ", "
           << dilations.size() << " and " << pads.size();
  SmallVector<int64_t> shape(operand.getShape());
  for (int64_t d = 0; d < n; ++d) {
    if (window[d] < 1 || strides[d] < 1 || dilations[d] < 1)
      return op->emitOpError()
             << "window dimension " << d << " has window " << window[d]
             << ", stride " << strides[d] << " and dilation " << dilations[d]
             << ", expected each at least 1";
    if (pads[d] < 0 || pads[n + d] < 0)
      return op->emitOpError()
             << "window dimension " << d << " has pads " << pads[d] << " and "
             << pads[n + d] << ", expected at least 0";
    int64_t dim = rank - n + d;
    int64_t size =
        ::fuse::poolOutputSize(shape[dim], window[d], strides[d], dilations[d],
                               pads[d], pads[n + d], ceilMode);
    if (size < 1)
      return op->emitOpError()
             << "window dimension " << d << ": a window of " << window[d]
             << " with dilation " << dilations[d]
             << " does not fit in the padded size "
             << (::fuse::CheckedInt(shape[dim]) + pads[d] + pads[n + d])
                    .saturated();
    shape[dim] = size;
  }
  return shape;
}

LogicalResult PoolOp::verify() {
  if (failed(refuseSymbolic(*this)))
    return failure();
  RankedTensorType operand = tensorType(getOperand());
  if (getKind() != ReduceKind::max && getKind() != ReduceKind::mean)
    return emitOpError() << "kind " << stringifyReduceKind(getKind())
                         << " is not one of max, mean";
  if (getKind() == ReduceKind::mean &&
      !isa<FloatType>(operand.getElementType()))
    return emitOpError() << "a mean pool needs a float operand, got "
                         << operand.getElementType();
  FailureOr<SmallVector<int64_t>> shape =
      windowedShape(*this, operand, getWindow(), getStrides(), getDilations(),
                    getPads(), getCeilMode());
  if (failed(shape))
    return failure();
  return checkResultType(*this, *shape, operand.getElementType());
}

LogicalResult Im2colOp::verify() {
  if (failed(refuseSymbolic(*this)))
    return failure();
  RankedTensorType operand = tensorType(getOperand());
  ArrayRef<int64_t> window = getWindow();
  FailureOr<SmallVector<int64_t>> windowed =
      windowedShape(*this, operand, window, getStrides(), getDilations(),
                    getPads(), /*ceilMode=*/false);
  if (failed(windowed))
    return failure();
  size_t leading = windowed->size() - window.size();
  SmallVector<int64_t> shape(windowed->begin(), windowed->begin() + leading);
  ::fuse::CheckedInt offsets = 1, positions = 1;
  for (size_t d = 0; d < window.size(); ++d) {
    offsets *= window[d];
    positions *= (*windowed)[leading + d];
  }
  if (!offsets.ok() || !positions.ok())
    return emitOpError() << "the window's offsets or positions pass 2^63";
  shape.push_back(*offsets.get());
  shape.push_back(*positions.get());
  return checkResultType(*this, shape, operand.getElementType());
}

LogicalResult ConcatOp::verify() {
  OperandRange operands = getOperands();
  if (operands.empty())
    return emitOpError() << "needs at least one operand";
  RankedTensorType first = tensorType(operands[0]);
  int64_t rank = first.getRank();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << rank;
  Shapes shapes;
  SmallVector<int64_t> shape = shapes.of(first);
  ::fuse::CheckedInt concatenated = first.getDimSize(axis);
  ::fuse::DimExpr symbolicSum = shapes.expr(shape[axis]);
  bool symbolic = llvm::any_of(operands, [&](Value v) {
    auto type = tensorType(v);
    return axis < type.getRank() && type.isDynamicDim(axis);
  });
  for (auto [i, value] : llvm::enumerate(operands.drop_front())) {
    RankedTensorType type = tensorType(value);
    if (type.getRank() != rank ||
        type.getElementType() != first.getElementType())
      return emitOpError() << "operand " << i + 1 << " has type " << type
                           << ", expected rank " << rank << " and element type "
                           << first.getElementType();
    SmallVector<int64_t> dims = shapes.of(type);
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && dims[d] != shape[d])
        return emitOpError()
               << "operand " << i + 1 << " has size " << shapes.str(dims[d])
               << " in dimension " << d << ", but operand 0 has "
               << shapes.str(shape[d]) << "; only dimension " << axis
               << " (the axis) may differ";
    }
    if (!symbolic) {
      concatenated += type.getDimSize(axis);
      continue;
    }
    ::fuse::Expected<::fuse::DimExpr> sum =
        ::fuse::DimExpr::add(symbolicSum, shapes.expr(dims[axis]));
    if (!sum.ok())
      return emitOpError() << sum.status().message();
    symbolicSum = *sum;
  }
  if (symbolic) {
    ::fuse::Expected<int64_t> code = shapes.code(symbolicSum);
    if (!code.ok())
      return emitOpError() << "the operands' sizes in dimension " << axis
                           << " (the axis) add up to " << symbolicSum.toString()
                           << ", expected a size (>= 0) or a symbolic dim";
    shape[axis] = *code;
    return checkResultType(*this, shape, first.getElementType(), &shapes);
  }
  std::optional<int64_t> size = concatenated.get();
  if (!size)
    return emitOpError() << "the operands' sizes in dimension " << axis
                         << " (the axis) add up past 2^63";
  shape[axis] = *size;
  return checkResultType(*this, shape, first.getElementType(), &shapes);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The shape left after reducing `dims` of `shape`.
static SmallVector<int64_t>
reducedShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims, bool keepDims) {
  SmallVector<int64_t> result;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
      result.push_back(size);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

LogicalResult ReduceOp::verify() {
  RankedTensorType operand = tensorType(getOperand());
  ArrayRef<int64_t> dims = getDims();
  if (failed(checkDimList(*this, "dims", dims, operand.getRank())))
    return failure();
  ReduceKind kind = getKind();
  if (kind == ReduceKind::max || kind == ReduceKind::min) {
    for (int64_t d : dims)
      if (operand.getDimSize(d) == 0)
        return emitOpError()
               << "'" << stringifyReduceKind(kind) << "' over dimension " << d
               << " of size 0 has no value; max and min need at "
                  "least one element";
  }
  Shapes shapes;
  return checkResultType(*this,
                         reducedShape(shapes.of(operand), dims, getKeepDims()),
                         operand.getElementType(), &shapes);
}

template <typename ArgOp> static LogicalResult verifyArgOp(ArgOp op) {
  RankedTensorType operand = tensorType(op.getOperand());
  int64_t axis = op.getAxis();
  if (axis < 0 || axis >= operand.getRank())
    return op.emitOpError() << "axis " << axis << " is out of range for rank "
                            << operand.getRank();
  if (operand.getDimSize(axis) == 0)
    return op.emitOpError() << "axis " << axis << " has size 0: no index to "
                            << "return";
  Shapes shapes;
  return checkResultType(
      op, reducedShape(shapes.of(operand), {axis}, op.getKeepDims()),
      IntegerType::get(op.getContext(), 64), &shapes);
}

LogicalResult ArgMaxOp::verify() { return verifyArgOp(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgOp(*this); }

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOpError() << "operands must have rank at least 2, but have "
                            "ranks "
                         << lhs.getRank() << " and " << rhs.getRank();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "operand element types differ: "
                         << lhs.getElementType() << " and "
                         << rhs.getElementType();
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  Shapes shapes;
  SmallVector<int64_t> ls = shapes.of(lhs), rs = shapes.of(rhs);
  int64_t m = ls[getTransposeA() ? lr - 1 : lr - 2];
  int64_t kl = ls[getTransposeA() ? lr - 2 : lr - 1];
  int64_t kr = rs[getTransposeB() ? rr - 1 : rr - 2];
  int64_t n = rs[getTransposeB() ? rr - 2 : rr - 1];
  if (kl != kr)
    return emitOpError() << "contraction sizes differ: lhs has K = "
                         << shapes.str(kl)
                         << ", rhs has K = " << shapes.str(kr);
  ArrayRef<int64_t> lb = ArrayRef<int64_t>(ls).drop_back(2);
  ArrayRef<int64_t> rb = ArrayRef<int64_t>(rs).drop_back(2);
  if (!lb.empty() && !rb.empty() && lb != rb)
    return emitOpError() << "batch dimensions "
                         << ShapeStr{lhs.getShape().drop_back(2)} << " and "
                         << ShapeStr{rhs.getShape().drop_back(2)}
                         << " differ; they must be equal, or one operand "
                            "rank 2";
  SmallVector<int64_t> shape(lb.empty() ? rb : lb);
  shape.push_back(m);
  shape.push_back(n);
  return checkResultType(*this, shape, lhs.getElementType(), &shapes);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::verify() {
  if (failed(refuseSymbolic(*this)))
    return failure();
  RankedTensorType input = tensorType(getInput()),
                   weight = tensorType(getWeight());
  Type elementType = input.getElementType();
  if (weight.getElementType() != elementType ||
      (getBias() && tensorType(getBias()).getElementType() != elementType))
    return emitOpError() << "operand element types differ: the input has "
                         << elementType
                         << ", the weight and bias must have it too";
  int64_t rank = input.getRank();
  if (rank != 3 && rank != 4)
    return emitOpError() << "input must have rank 3 or 4 ([N, C, spatial...] "
                            "with 1 or 2 spatial dims), but has rank "
                         << rank;
  if (weight.getRank() != rank)
    return emitOpError() << "weight must have the input's rank " << rank
                         << ", but has rank " << weight.getRank();
  size_t spatial = size_t(rank - 2);
  ArrayRef<int64_t> strides = getStrides(), dilations = getDilations(),
                    pads = getPads();
  if (strides.size() != spatial || dilations.size() != spatial)
    return emitOpError() << "strides and dilations must have one entry per "
                            "spatial dim ("
                         << spatial << "), but have " << strides.size()
                         << " and " << dilations.size();
  if (pads.size() != 2 * spatial)
    return emitOpError() << "pads must have a begin and an end pad per "
                            "spatial dim ("
                         << 2 * spatial << " entries), but has " << pads.size();
  if (llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }))
    return emitOpError() << "strides " << ShapeStr{strides} << " and dilations "
                         << ShapeStr{dilations} << " must be >= 1";
  if (llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return emitOpError() << "pads " << ShapeStr{pads} << " must be >= 0";
  int64_t channels = input.getDimSize(1), filters = weight.getDimSize(0);
  int64_t group = getGroup();
  if (group < 1 || channels % group != 0 || filters % group != 0)
    return emitOpError() << "group " << group << " must be >= 1 and divide the "
                         << channels << " input channels and the " << filters
                         << " output channels";
  if ((::fuse::CheckedInt(weight.getDimSize(1)) * group).get() != channels)
    return emitOpError() << "weight dim 1 is " << weight.getDimSize(1)
                         << ", expected " << channels / group
                         << " (input channels per group)";
  if (getBias() &&
      tensorType(getBias()).getShape() != ArrayRef<int64_t>{filters})
    return emitOpError() << "bias must have shape [" << filters
                         << "] (one per output channel), but has "
                         << ShapeStr{tensorType(getBias()).getShape()};
  SmallVector<int64_t> shape{input.getDimSize(0), filters};
  for (size_t d = 0; d < spatial; ++d) {
    int64_t kernel = weight.getDimSize(2 + d);
    std::optional<int64_t> padded =
        (::fuse::CheckedInt(input.getDimSize(2 + d)) + pads[d] +
         pads[spatial + d])
            .get();
    std::optional<int64_t> span =
        (::fuse::CheckedInt(dilations[d]) * (::fuse::CheckedInt(kernel) - 1) +
         1)
            .get();
    if (!padded || !span)
      return emitOpError() << "spatial dim " << d
                           << ": the padded input or the dilated kernel "
                              "passes 2^63 (pads "
                           << ShapeStr{pads} << ", dilations "
                           << ShapeStr{dilations} << ", kernel " << kernel
                           << ")";
    if (kernel < 1 || *padded < *span)
      return emitOpError() << "spatial dim " << d << ": the padded input ("
                           << *padded
                           << ") is smaller than the dilated kernel (" << *span
                           << ")";
    shape.push_back((*padded - *span) / strides[d] + 1);
  }
  return checkResultType(*this, shape, elementType);
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  RankedTensorType data = tensorType(getData()),
                   indices = tensorType(getIndices());
  int64_t axis = getAxis(), rank = data.getRank();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range [0, " << rank
                         << ") for data of rank " << rank;
  if (!indices.getElementType().isSignlessInteger(32) &&
      !indices.getElementType().isSignlessInteger(64))
    return emitOpError() << "indices must be i32 or i64, but are "
                         << indices.getElementType();
  Shapes shapes;
  SmallVector<int64_t> dataShape = shapes.of(data);
  SmallVector<int64_t> shape(ArrayRef<int64_t>(dataShape).take_front(axis));
  llvm::append_range(shape, shapes.of(indices));
  llvm::append_range(shape, ArrayRef<int64_t>(dataShape).drop_front(axis + 1));
  return checkResultType(*this, shape, data.getElementType(), &shapes);
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

LogicalResult ScatterOp::verify() {
  RankedTensorType data = tensorType(getData()),
                   indices = tensorType(getIndices()),
                   updates = tensorType(getUpdates());
  if (failed(refuseSymbolic(*this)))
    return failure();
  if (data.getRank() < 1)
    return emitOpError() << "data must have rank >= 1, but is " << data;
  if (!indices.getElementType().isSignlessInteger(32) &&
      !indices.getElementType().isSignlessInteger(64))
    return emitOpError() << "indices must be i32 or i64, but are "
                         << indices.getElementType();
  SmallVector<int64_t> shape(indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front());
  if (updates.getShape() != ArrayRef<int64_t>(shape) ||
      updates.getElementType() != data.getElementType())
    return emitOpError() << "updates must be "
                         << RankedTensorType::get(shape, data.getElementType())
                         << " (the indices' shape, then the data's dims after "
                            "the first), but are "
                         << updates;
  return checkResultType(*this, data.getShape(), data.getElementType());
}

//===----------------------------------------------------------------------===//
// Ops of symbolic dims
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank();
  // The attribute is an i64 that ODS hands out unsigned: read it signed so
  // that a negative axis is reported as written.
  auto axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range [0, " << rank
                         << ") for a result of rank " << rank;
  return success();
}

LogicalResult DimValueOp::verify() {
  if (getDim().size() != 1)
    return emitOpError() << "dim names " << getDim().size()
                         << " dims, expected one";
  ::fuse::DimExpr dim = dimsEntry(getDim(), 0);
  if (!canBeSize(dim))
    return emitOpError() << "dim is " << dim.toString()
                         << ", expected a size (>= 0) or a symbolic dim";
  return success();
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

LogicalResult FusionOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments, expected one per input ("
                         << getInputs().size() << ")";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), getInputs()))) {
    auto [argType, input] = pair;
    if (argType != input.getType())
      return emitOpError() << "body argument " << i << " has type " << argType
                           << ", but input " << i << " has type "
                           << input.getType();
  }
  // The generic verifier has already checked that the block ends with a
  // terminator, so `back()` exists.
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError() << "body must end with fuse.yield, but ends with '"
                         << body.back().getName() << "'";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "body yields " << yield.getValues().size()
                         << " values, expected one per result ("
                         << getNumResults() << ")";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), getResultTypes()))) {
    auto [yielded, result] = pair;
    if (yielded != result)
      return emitOpError() << "yielded value " << i << " has type " << yielded
                           << ", but result " << i << " has type " << result;
  }
  if (getKind() != ScheduleKind::horizontal)
    return success();
  // Independent member kernels and nothing else.
  for (Operation &op : body.without_terminator()) {
    auto member = dyn_cast<FusionOp>(op);
    if (!member || member.getKind() == ScheduleKind::horizontal)
      return emitOpError() << "of kind horizontal holds only fuse.fusion "
                              "members that are not horizontal, not '"
                           << op.getName() << "'";
    for (Value input : member.getInputs())
      if (!isa<BlockArgument>(input))
        return emitOpError() << "of kind horizontal has a member that reads "
                                "another member's result; members must be "
                                "independent";
  }
  if (body.without_terminator().empty())
    return emitOpError() << "of kind horizontal has no members";
  return success();
}

/// Whether `a` and `b` are made by two ops that differ in their
/// discardable attributes alone: the same op on the same operands. The
/// compiler tags each op with the graph op it stands for (fuse.op_index),
/// which keeps CSE from merging two such copies (two convolutions' reshapes
/// of one pooled map).
static bool sameComputation(Value a, Value b) {
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  return x && y && x != y && x->getNumResults() == 1 && isMemoryEffectFree(x) &&
         OperationEquivalence::isEquivalentTo(
             x, y, OperationEquivalence::exactValueMatch,
             /*markEquivalent=*/nullptr,
             OperationEquivalence::Flags(
                 OperationEquivalence::IgnoreLocations |
                 OperationEquivalence::IgnoreDiscardableAttrs));
}

/// A fusion that yields one value more than once (copies of a head-split
/// transpose, made for each consumer, that all joined one matmul epilogue),
/// or two values that one op on the same operands makes (sameComputation),
/// or reads one input more than once, does it once: the duplicate results
/// are the first's, the duplicate block arguments the first's. Each result
/// is a stored tensor, so a duplicate costs a write (resnet50's max pool
/// wrote its map twice, once per 1x1 convolution that reads it).
LogicalResult FusionOp::canonicalize(FusionOp op, PatternRewriter &rewriter) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  llvm::DenseMap<Value, unsigned> firstResult, firstInput;
  SmallVector<unsigned> resultOf;
  SmallVector<Value> yielded, inputs;
  for (Value value : yield.getValues()) {
    auto [it, inserted] = firstResult.try_emplace(value, yielded.size());
    if (inserted) {
      auto same = llvm::find_if(
          yielded, [&](Value first) { return sameComputation(value, first); });
      if (same != yielded.end()) {
        it->second = unsigned(same - yielded.begin());
        resultOf.push_back(it->second);
        continue;
      }
      yielded.push_back(value);
    }
    resultOf.push_back(it->second);
  }
  for (Value input : op.getInputs())
    if (firstInput.try_emplace(input, inputs.size()).second)
      inputs.push_back(input);
  if (yielded.size() == op.getNumResults() &&
      inputs.size() == op.getInputs().size())
    return failure();
  SmallVector<Type> types;
  for (Value value : yielded)
    types.push_back(value.getType());
  auto fused =
      FusionOp::create(rewriter, op.getLoc(), types, op.getKind(), inputs);
  fused->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getBody(), fused.getBody(),
                              fused.getBody().end());
  // The argument of a repeated input reads the first's; then it goes.
  SmallVector<unsigned> repeated;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    unsigned first =
        unsigned(llvm::find(op.getInputs(), input) - op.getInputs().begin());
    if (first == i)
      continue;
    rewriter.replaceAllUsesWith(body.getArgument(i), body.getArgument(first));
    repeated.push_back(unsigned(i));
  }
  for (unsigned i : llvm::reverse(repeated))
    body.eraseArgument(i);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<YieldOp>(yield, yielded);
  SmallVector<Value> results;
  for (unsigned r : resultOf)
    results.push_back(fused.getResult(r));
  rewriter.replaceOp(op, results);
  return success();
}

#define GET_OP_CLASSES
#include "dialect/FuseOps.cpp.inc"
