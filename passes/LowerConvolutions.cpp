//===- LowerConvolutions.cpp - fuse.conv as im2col and a matmul -----------===//
//
// The lowering of fuse.conv into ops every code generator runs: the column
// matrix (fuse.im2col, one window_reduction kernel), reshapes, one batched
// matmul, a bias add; until an implicit-GEMM convolution schedule (issues 18
// and 20) reads the columns inside the matmul instead of materializing them.
//
// A depthwise convolution (one input channel per group) is a matmul of one
// row per group: mostly wasted register tiles, and a column matrix as large
// as the window times the input. It lowers instead to a sum over the window
// of the zero-padded input's strided slices, each scaled by its channel's
// weight at that offset: elementwise ops and slices, which fuse into one
// pointwise kernel that reads each input element from cache.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSELOWERCONVOLUTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// Builds the rewritten ops at one insertion point.
struct ConvLowering {
  OpBuilder &b;
  Location loc;
  Type elementType;
  /// Depthwise convolutions as sums of slices (their padding is a concat,
  /// which only host pointwise kernels run).
  bool depthwiseAsSlices;

  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elementType);
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (auto inner = x.getDefiningOp<ReshapeOp>())
      x = inner.getOperand();
    if (cast<RankedTensorType>(x.getType()).getShape() == shape)
      return x;
    return ReshapeOp::create(b, loc, type(shape), x);
  }

  /// `x` with `before[d]` and `after[d]` zeros around spatial dim d.
  Value padWithZeros(Value x, ArrayRef<int64_t> before,
                     ArrayRef<int64_t> after) {
    for (size_t d = 0; d < before.size(); ++d) {
      int64_t axis = int64_t(d) + 2;
      SmallVector<Value> pieces;
      for (int64_t zeros : {before[d], int64_t(-1), after[d]}) {
        if (zeros == -1) {
          pieces.push_back(x);
          continue;
        }
        if (zeros == 0)
          continue;
        SmallVector<int64_t> shape(
            cast<RankedTensorType>(x.getType()).getShape());
        shape[axis] = zeros;
        RankedTensorType zerosType = type(shape);
        pieces.push_back(ConstantOp::create(
            b, loc, zerosType,
            DenseElementsAttr::get(zerosType, b.getZeroAttr(elementType))));
      }
      if (pieces.size() == 1)
        continue;
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(x.getType()).getShape());
      shape[axis] += before[d] + after[d];
      x = ConcatOp::create(b, loc, type(shape), pieces,
                           b.getI64IntegerAttr(axis));
    }
    return x;
  }

  /// A depthwise convolution (group = channels = output channels) as the
  /// sum over window offsets of weight[c, offset] * padded input slice.
  Value lowerDepthwise(ConvOp conv) {
    auto resultType = cast<RankedTensorType>(conv.getResult().getType());
    auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
    const size_t spatial = size_t(resultType.getRank() - 2);
    const int64_t n = resultType.getDimSize(0), c = resultType.getDimSize(1);
    ArrayRef<int64_t> pads = conv.getPads();
    Value padded = padWithZeros(conv.getInput(), pads.take_front(spatial),
                                pads.drop_front(spatial));
    SmallVector<int64_t> kernel(weightType.getShape().drop_front(2));
    SmallVector<int64_t> offset(spatial, 0);
    Value sum;
    while (true) {
      SmallVector<int64_t> offsets{0, 0}, sizes{n, c}, strides{1, 1};
      SmallVector<int64_t> wOffsets{0, 0}, wSizes{c, 1}, ones{1, 1};
      for (size_t d = 0; d < spatial; ++d) {
        offsets.push_back(offset[d] * conv.getDilations()[d]);
        sizes.push_back(resultType.getDimSize(int64_t(d) + 2));
        strides.push_back(conv.getStrides()[d]);
        wOffsets.push_back(offset[d]);
        wSizes.push_back(1);
        ones.push_back(1);
      }
      Value window = SliceOp::create(
          b, loc, resultType, padded, b.getDenseI64ArrayAttr(offsets),
          b.getDenseI64ArrayAttr(sizes), b.getDenseI64ArrayAttr(strides));
      Value w = SliceOp::create(b, loc, type(wSizes), conv.getWeight(),
                                b.getDenseI64ArrayAttr(wOffsets),
                                b.getDenseI64ArrayAttr(wSizes),
                                b.getDenseI64ArrayAttr(ones));
      Value spread = BroadcastOp::create(b, loc, resultType, reshape(w, {c}),
                                         b.getDenseI64ArrayAttr({1}));
      Value term = MulOp::create(b, loc, window, spread);
      sum = sum ? Value(AddOp::create(b, loc, sum, term)) : term;
      // The next offset, the last spatial dim fastest.
      size_t d = spatial;
      while (d > 0 && ++offset[d - 1] == kernel[d - 1])
        offset[--d] = 0;
      if (d == 0)
        return sum;
    }
  }

  Value lower(ConvOp conv) {
    auto inputType = cast<RankedTensorType>(conv.getInput().getType());
    auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
    auto resultType = cast<RankedTensorType>(conv.getResult().getType());
    const size_t spatial = size_t(inputType.getRank() - 2);
    const int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1);
    const int64_t m = weightType.getDimSize(0), g = conv.getGroup();
    SmallVector<int64_t> kernel(weightType.getShape().drop_front(2));
    SmallVector<int64_t> out(resultType.getShape().drop_front(2));
    int64_t positions = 1, offsets = 1;
    for (size_t d = 0; d < spatial; ++d) {
      positions *= out[d];
      offsets *= kernel[d];
    }
    ArrayRef<int64_t> strides = conv.getStrides(),
                      dilations = conv.getDilations();
    if (depthwiseAsSlices && g == c && m == c && c > 1)
      return addBias(conv, lowerDepthwise(conv));

    // The column matrix [N, C, K, P]: one row per channel and window
    // offset, one column per output position. A 1x1 convolution with unit
    // strides and no padding reads the input as it is.
    bool pointwise =
        offsets == 1 &&
        llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
        llvm::all_of(conv.getPads(), [](int64_t p) { return p == 0; });
    Value columns =
        pointwise ? reshape(conv.getInput(), {n, c, 1, positions})
                  : Im2colOp::create(b, loc, type({n, c, offsets, positions}),
                                     conv.getInput(), ArrayRef<int64_t>(kernel),
                                     strides, dilations, conv.getPads())
                        .getResult();
    const int64_t depth = c / g * offsets;
    Value product;
    if (g == 1) {
      Value weight = reshape(conv.getWeight(), {m, depth});
      product = MatmulOp::create(b, loc, type({n, m, positions}), weight,
                                 reshape(columns, {n, depth, positions}));
    } else if (n == 1) {
      Value weight = reshape(conv.getWeight(), {g, m / g, depth});
      product = MatmulOp::create(b, loc, type({g, m / g, positions}), weight,
                                 reshape(columns, {g, depth, positions}));
    } else {
      Value weight = reshape(conv.getWeight(), {g, m / g, depth});
      weight = BroadcastOp::create(b, loc, type({n, g, m / g, depth}), weight,
                                   b.getDenseI64ArrayAttr({1, 2, 3}));
      product = MatmulOp::create(b, loc, type({n, g, m / g, positions}), weight,
                                 reshape(columns, {n, g, depth, positions}));
    }
    return addBias(conv, reshape(product, resultType.getShape()));
  }

  Value addBias(ConvOp conv, Value result) {
    Value bias = conv.getBias();
    if (!bias)
      return result;
    Value spread = BroadcastOp::create(b, loc, result.getType(), bias,
                                       b.getDenseI64ArrayAttr({1}));
    return AddOp::create(b, loc, result, spread);
  }
};

struct LowerConvolutionsPass
    : public fuse::impl::FuseLowerConvolutionsBase<LowerConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (target != "host" && target != "gpu") {
      getOperation().emitError() << "fuse-lower-convolutions: unknown target '"
                                 << target << "'; expected host or gpu";
      return signalPassFailure();
    }
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) { convs.push_back(conv); });
    for (ConvOp conv : convs) {
      OpBuilder builder(conv);
      ConvLowering lowering{
          builder, conv.getLoc(),
          cast<RankedTensorType>(conv.getType()).getElementType(),
          /*depthwiseAsSlices=*/target == "host"};
      conv.getResult().replaceAllUsesWith(lowering.lower(conv));
      conv.erase();
      ++numLowered;
    }
  }
};

} // namespace
