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
// offsets of the im2col's slice at each offset, scaled by its channel's
// weight there: one window_reduction kernel, which reads the input at each
// offset (the padding a lane mask) and never stores the column matrix.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "dialect/FuseDims.h"
#include "dialect/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

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

  /// A depthwise convolution (group = channels = output channels) as the
  /// sum over window offsets k of weight[c, k] * the im2col's slice at k:
  /// one window_reduction kernel that reads the input at each offset and
  /// never stores the column matrix (the im2col is data movement inside it).
  Value lowerDepthwise(ConvOp conv, ArrayRef<int64_t> kernel, int64_t positions,
                       int64_t offsets) {
    auto resultType = cast<RankedTensorType>(conv.getResult().getType());
    const int64_t n = resultType.getDimSize(0), c = resultType.getDimSize(1);
    Value columns = Im2colOp::create(b, loc, type({n, c, offsets, positions}),
                                     conv.getInput(), kernel, conv.getStrides(),
                                     conv.getDilations(), conv.getPads());
    Value weight = reshape(conv.getWeight(), {c, offsets});
    // Each run of the last window dim (a window row) summed in order,
    // then the rows pairwise: a tree of adds, not a chain of `offsets`
    // (whose latency bounded the host's window kernel); a host window
    // kernel fuses each row's multiplies and adds (contractsProducts).
    // Two sums of as many rows add as soon as both are made (a binary
    // counter), so each sum follows its terms in the block: fuse-form-
    // fusions, pulling producers in reverse block order, holds one subtree
    // at a time, whose inputs stay few (the whole tree's top first took two
    // per row: a 7x7 window's seven rows were more than max-operands).
    const int64_t run = kernel.back();
    auto offsetSlice = [&](Value x, int64_t k) -> Value {
      return SliceOp::create(b, loc, type({n, c, 1, positions}), x,
                             b.getDenseI64ArrayAttr({0, 0, k, 0}),
                             b.getDenseI64ArrayAttr({n, c, 1, positions}),
                             b.getDenseI64ArrayAttr({1, 1, 1, 1}));
    };
    SmallVector<std::pair<Value, int64_t>> sums; // and how many rows each
    for (int64_t k = 0; k < offsets; ++k) {
      Value window = offsetSlice(columns, k);
      Value w = SliceOp::create(
          b, loc, type({c, 1}), weight, b.getDenseI64ArrayAttr({0, k}),
          b.getDenseI64ArrayAttr({c, 1}), b.getDenseI64ArrayAttr({1, 1}));
      Value spread =
          BroadcastOp::create(b, loc, type({n, c, positions}), reshape(w, {c}),
                              b.getDenseI64ArrayAttr({1}));
      Value term =
          MulOp::create(b, loc, reshape(window, {n, c, positions}), spread);
      if (k % run == 0)
        sums.push_back({term, 1});
      else
        sums.back().first = AddOp::create(b, loc, sums.back().first, term);
      if ((k + 1) % run != 0)
        continue;
      while (sums.size() > 1 &&
             sums.back().second == sums[sums.size() - 2].second) {
        auto [value, rows] = sums.pop_back_val();
        sums.back() = {AddOp::create(b, loc, sums.back().first, value),
                       2 * rows};
      }
    }
    while (sums.size() > 1) {
      auto [value, rows] = sums.pop_back_val();
      sums.back().first = AddOp::create(b, loc, sums.back().first, value);
    }
    return reshape(sums.front().first, resultType.getShape());
  }

  /// `conv` without the window offsets that read only padding at every
  /// output position, where there are any: a dilated convolution on a map
  /// smaller than its dilation (DeepLabV3's ASPP, rates 12 to 36 on an 8x8
  /// map: the centre offset alone reads the input) computed each dead
  /// offset's products of zeros. Per spatial dim the live offsets, a
  /// contiguous run, keep their weights (a slice) and the pads shrink so
  /// that every output reads what it read; none where every offset is live,
  /// a dim is not static, the live offsets are not one run (a stride that
  /// skips over the whole map) or the new pads would be negative.
  std::optional<ConvOp> withoutDeadOffsets(ConvOp conv) {
    Type inputType = conv.getInput().getType(),
         resultType = conv.getResult().getType();
    if (!isStaticTensor(inputType) || !isStaticTensor(resultType) ||
        !isStaticTensor(conv.getWeight().getType()))
      return std::nullopt;
    auto input = cast<RankedTensorType>(inputType);
    auto weight = cast<RankedTensorType>(conv.getWeight().getType());
    auto result = cast<RankedTensorType>(resultType);
    const int64_t spatial = input.getRank() - 2;
    ArrayRef<int64_t> strides = conv.getStrides(),
                      dilations = conv.getDilations(), pads = conv.getPads();
    SmallVector<int64_t> first, sizes(weight.getShape()), newPads(pads);
    first.assign(size_t(weight.getRank()), 0);
    bool pruned = false;
    for (int64_t d = 0; d < spatial; ++d) {
      const int64_t in = input.getDimSize(2 + d),
                    out = result.getDimSize(2 + d),
                    taps = weight.getDimSize(2 + d), stride = strides[d],
                    dilation = dilations[d], begin = pads[d];
      auto live = [&](int64_t k) {
        for (int64_t o = 0; o < out; ++o) {
          int64_t at = o * stride + k * dilation - begin;
          if (at >= 0 && at < in)
            return true;
        }
        return false;
      };
      int64_t k0 = 0, k1 = taps - 1;
      while (k0 < taps && !live(k0))
        ++k0;
      while (k1 > k0 && !live(k1))
        --k1;
      if (k0 == taps)
        return std::nullopt;
      for (int64_t k = k0; k <= k1; ++k)
        if (!live(k))
          return std::nullopt;
      if (k0 == 0 && k1 == taps - 1)
        continue;
      const int64_t kept = k1 - k0 + 1, newBegin = begin - k0 * dilation;
      const int64_t newEnd =
          (out - 1) * stride + dilation * (kept - 1) + 1 - in - newBegin;
      if (newBegin < 0 || newEnd < 0)
        return std::nullopt;
      first[size_t(2 + d)] = k0;
      sizes[size_t(2 + d)] = kept;
      newPads[size_t(d)] = newBegin;
      newPads[size_t(spatial + d)] = newEnd;
      pruned = true;
    }
    if (!pruned)
      return std::nullopt;
    Value live = SliceOp::create(
        b, loc, type(sizes), conv.getWeight(), b.getDenseI64ArrayAttr(first),
        b.getDenseI64ArrayAttr(sizes),
        b.getDenseI64ArrayAttr(SmallVector<int64_t>(sizes.size(), 1)));
    return ConvOp::create(b, loc, result, conv.getInput(), live, conv.getBias(),
                          strides, dilations, newPads, conv.getGroup());
  }

  Value lower(ConvOp conv) {
    if (std::optional<ConvOp> pruned = withoutDeadOffsets(conv)) {
      Value lowered = lower(*pruned);
      pruned->erase();
      return lowered;
    }
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
    if (g == c && m == c && c > 1)
      return addBias(conv, lowerDepthwise(conv, kernel, positions, offsets));

    // The column matrix [N, C, K, P]: one row per channel and window
    // offset, one column per output position. A 1x1 convolution with unit
    // strides and no padding reads the input as it is.
    bool pointwise =
        offsets == 1 &&
        llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
        llvm::all_of(conv.getPads(), [](int64_t p) { return p == 0; });
    const int64_t depth = c / g * offsets;
    // In f32 and f64 (a lower precision would round each product where a
    // matmul sums them in f32).
    if (pointwise && positions == 1 && g == 1 &&
        (elementType.isF32() || elementType.isF64()))
      return addBias(conv, lowerFullyConnected(conv, depth));
    Value columns =
        pointwise ? reshape(conv.getInput(), {n, c, 1, positions})
                  : Im2colOp::create(b, loc, type({n, c, offsets, positions}),
                                     conv.getInput(), ArrayRef<int64_t>(kernel),
                                     strides, dilations, conv.getPads())
                        .getResult();
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

  /// A 1x1 convolution of a 1x1 map (a squeeze-and-excitation block's
  /// fully connected layers): out[n, m] = sum_c weight[m, c] * x[n, c], as
  /// a row reduction of the products [N, M, C, 1...] over C into the
  /// result's own shape: no reshape of the weight or the input (a copy
  /// kernel each where the fusion leaves it out) and none after the
  /// reduction (which a row kernel would not take in). As a matmul of one
  /// column, each k was an FMA of a vector with one lane of use:
  /// mobilenet_v3_small's 576 -> 144 -> 576 excitation took 0.03 ms a
  /// layer.
  Value lowerFullyConnected(ConvOp conv, int64_t depth) {
    auto resultType = cast<RankedTensorType>(conv.getResult().getType());
    const int64_t rank = resultType.getRank();
    SmallVector<int64_t> shape(resultType.getShape().take_front(2));
    shape.push_back(depth);
    shape.append(resultType.getShape().drop_front(2).begin(),
                 resultType.getShape().drop_front(2).end());
    // The weight [M, C, 1...] and the input [N, C, 1...] keep their dims in
    // order: dims 1.. and 0, 2...
    SmallVector<int64_t> weightDims, inputDims{0};
    for (int64_t d = 1; d <= rank; ++d)
      weightDims.push_back(d);
    for (int64_t d = 2; d <= rank; ++d)
      inputDims.push_back(d);
    Value spreadWeight =
        BroadcastOp::create(b, loc, type(shape), conv.getWeight(),
                            b.getDenseI64ArrayAttr(weightDims));
    Value spreadInput =
        BroadcastOp::create(b, loc, type(shape), conv.getInput(),
                            b.getDenseI64ArrayAttr(inputDims));
    Value products = MulOp::create(b, loc, spreadWeight, spreadInput);
    return ReduceOp::create(
        b, loc, resultType,
        ReduceKindAttr::get(b.getContext(), ReduceKind::sum), products,
        b.getDenseI64ArrayAttr({2}), /*keep_dims=*/nullptr);
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
    : public mlir::fuse::impl::FuseLowerConvolutionsBase<
          LowerConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
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
          cast<RankedTensorType>(conv.getType()).getElementType()};
      Value lowered = lowering.lower(conv);
      // The op of the conv's result keeps its discardable attributes
      // (fuse.op_index, by which a plan names its kernel's ops); the ops
      // before it compute no value of the graph's.
      if (Operation *def = lowered.getDefiningOp())
        def->setDiscardableAttrs(conv->getDiscardableAttrDictionary());
      conv.getResult().replaceAllUsesWith(lowered);
      conv.erase();
      ++numLowered;
    }
  }
};

} // namespace
