//===- LowerConvolutions.cpp - fuse.conv as im2col and a matmul -----------===//
//
// The lowering of fuse.conv into ops every code generator runs: the column
// matrix (fuse.im2col, one window_reduction kernel), reshapes, one batched
// matmul, a bias add; until an implicit-GEMM convolution schedule (issues 18
// and 20) reads the columns inside the matmul instead of materializing them.
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
    Value result = reshape(product, resultType.getShape());
    if (Value bias = conv.getBias()) {
      SmallVector<int64_t> dims{1};
      Value spread = BroadcastOp::create(b, loc, resultType, bias,
                                         b.getDenseI64ArrayAttr(dims));
      result = AddOp::create(b, loc, result, spread);
    }
    return result;
  }
};

struct LowerConvolutionsPass
    : public fuse::impl::FuseLowerConvolutionsBase<LowerConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) { convs.push_back(conv); });
    for (ConvOp conv : convs) {
      OpBuilder builder(conv);
      ConvLowering lowering{
          builder, conv.getLoc(),
          cast<RankedTensorType>(conv.getType()).getElementType()};
      conv.getResult().replaceAllUsesWith(lowering.lower(conv));
      conv.erase();
      ++numLowered;
    }
  }
};

} // namespace
