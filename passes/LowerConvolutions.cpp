//===- LowerConvolutions.cpp - fuse.conv as im2col and a matmul -----------===//
//
// The stand-in lowering of fuse.conv into ops every code generator already
// runs (zero padding by concat, strided slices, reshapes, one batched matmul,
// a bias add), until the implicit-GEMM convolution schedule of issues 18 and
// 20 replaces it. Correct, and slow: it materializes the column matrix.
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
    if (cast<RankedTensorType>(x.getType()).getShape() == shape)
      return x;
    return ReshapeOp::create(b, loc, type(shape), x);
  }
  Value zeros(ArrayRef<int64_t> shape) {
    auto zero = b.getFloatAttr(elementType, 0.0);
    return ConstantOp::create(b, loc,
                              DenseElementsAttr::get(type(shape), zero));
  }
  Value concat(ValueRange parts, int64_t axis) {
    if (parts.size() == 1)
      return parts.front();
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(parts.front().getType()).getShape());
    shape[axis] = 0;
    for (Value part : parts)
      shape[axis] += cast<RankedTensorType>(part.getType()).getDimSize(axis);
    return ConcatOp::create(b, loc, type(shape), parts, axis);
  }

  /// Zeros before and after every spatial dim.
  Value pad(Value x, ArrayRef<int64_t> pads) {
    size_t spatial = pads.size() / 2;
    for (size_t d = 0; d < spatial; ++d) {
      int64_t axis = int64_t(2 + d);
      SmallVector<Value> parts;
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(x.getType()).getShape());
      if (pads[d] > 0) {
        shape[axis] = pads[d];
        parts.push_back(zeros(shape));
      }
      parts.push_back(x);
      if (pads[spatial + d] > 0) {
        shape[axis] = pads[spatial + d];
        parts.push_back(zeros(shape));
      }
      x = concat(parts, axis);
    }
    return x;
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

    Value padded = pad(conv.getInput(), conv.getPads());
    // One strided slice per kernel offset, each [N, C, 1, P], stacked on
    // dim 2: [N, C, K, P].
    SmallVector<Value> patches;
    SmallVector<int64_t> index(spatial, 0);
    for (int64_t k = 0; k < offsets; ++k) {
      SmallVector<int64_t> begin{0, 0}, sizes{n, c}, steps{1, 1};
      for (size_t d = 0; d < spatial; ++d) {
        begin.push_back(index[d] * dilations[d]);
        sizes.push_back(out[d]);
        steps.push_back(strides[d]);
      }
      Value patch = SliceOp::create(
          b, loc, type(sizes), padded, b.getDenseI64ArrayAttr(begin),
          b.getDenseI64ArrayAttr(sizes), b.getDenseI64ArrayAttr(steps));
      patches.push_back(reshape(patch, {n, c, 1, positions}));
      for (size_t d = spatial; d-- > 0;) {
        if (++index[d] < kernel[d])
          break;
        index[d] = 0;
      }
    }
    Value columns = concat(patches, 2);
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
