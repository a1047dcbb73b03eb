// Host matmul kernels end to end: awkward shapes (sizes that are not
// multiples of the register tile or the vector width), batches with a shared
// weight, transposes as flags and as index maps, head split and merge,
// epilogues and prologues, f16/bf16 storage; then timings of 512^3 f32
// matmuls and a column sum on one core (printed, never asserted).

#include "test/compiler/host/HostCodegenTest.h"

namespace fuse {
namespace {

/// Matmul inputs are drawn from [-1, 1]: the policy's atol (eps * K)
/// assumes terms of order 1.
std::vector<Domain> unitDomains(const Graph &graph) {
  return std::vector<Domain>(graph.inputs.size(), Domain{-1, 1});
}

class HostMatmul : public HostCodegen {
protected:
  void checkUnit(const Graph &graph) { check(graph, unitDomains(graph)); }

  /// Whether the graph just checked packed B in a kernel of its own (a
  /// `_pack` kernel before the `_matmul` one). B of fewer columns than a
  /// vector (8 lanes here, 16 with AVX-512) is read in place.
  void expectPackKernel(bool packed) {
    bool found = false;
    for (const std::string &name : checkedKernels)
      found |= name.ends_with("_pack");
    if (packed)
      EXPECT_TRUE(found) << "no pack kernel";
    else
      EXPECT_FALSE(found) << "a pack kernel";
  }
};

struct MatmulCase {
  std::vector<int64_t> lhs, rhs;
  bool transposeA = false, transposeB = false;
};

TEST_F(HostMatmul, ShapesNotMultiplesOfTheTile) {
  const MatmulCase cases[] = {
      {{1, 1}, {1, 1}},       {{7, 13}, {13, 5}},   {{64, 64}, {64, 64}},
      {{65, 127}, {127, 33}}, {{6, 16}, {16, 32}},  {{13, 3}, {3, 17}},
      {{2, 300}, {300, 1}},   {{1, 40}, {40, 100}}, {{3, 0}, {0, 5}} /* K 0 */,
  };
  for (const MatmulCase &c : cases) {
    SCOPED_TRACE((TensorType{ElementType::F32, c.lhs}.toString() + " x " +
                  TensorType{ElementType::F32, c.rhs}.toString()));
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, c.lhs}, "x");
    TensorId w = b.input({ElementType::F32, c.rhs}, "w");
    b.output(b.matmul(x, w), "y");
    checkUnit(*b.finish());
  }
}

TEST_F(HostMatmul, TransposeFlags) {
  // N of 117 and 125 from 130 rows: B packed, its columns in strips of
  // every width (AVX-512: 64, 32, 16 and single columns; AVX2: 16, 8, 1).
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{7, 13, 5},
                         {65, 127, 33},
                         {16, 32, 48},
                         {130, 20, 117},
                         {130, 9, 125}}) {
    for (int flags = 1; flags < 4; ++flags) {
      bool ta = flags & 1, tb = flags & 2;
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" +
                   std::to_string(n) + " transpose_a " + std::to_string(ta) +
                   " transpose_b " + std::to_string(tb));
      GraphBuilder b;
      TensorId x = b.input(
          {ElementType::F32, ta ? std::vector{k, m} : std::vector{m, k}}, "x");
      TensorId w = b.input(
          {ElementType::F32, tb ? std::vector{n, k} : std::vector{k, n}}, "w");
      b.output(b.matmul(x, w, ta, tb), "y");
      checkUnit(*b.finish());
    }
  }
}

TEST_F(HostMatmul, BatchesAndSharedWeights) {
  const MatmulCase cases[] = {
      {{3, 17, 24}, {24, 40}},      // a weight shared by the batch
      {{2, 9, 16}, {2, 16, 23}},    // both batched
      {{5, 8}, {3, 8, 11}},         // a shared lhs
      {{2, 3, 7, 5}, {2, 3, 5, 9}}, // two batch dims
      {{4, 10, 6}, {4, 12, 6}, false, true},
      {{4, 6, 10}, {6, 12}, true, false},
      {{3, 20, 40}, {3, 50, 40}, false, true}, // a panel set per batch
      {{3, 4200}, {37, 4200}, false, true},    // K of 4200, packed
  };
  for (const MatmulCase &c : cases) {
    SCOPED_TRACE((TensorType{ElementType::F32, c.lhs}.toString() + " x " +
                  TensorType{ElementType::F32, c.rhs}.toString()));
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, c.lhs}, "x");
    TensorId w = b.input({ElementType::F32, c.rhs}, "w");
    b.output(b.matmul(x, w, c.transposeA, c.transposeB), "y");
    checkUnit(*b.finish());
  }
}

// B with a prologue (here B + 0.5) is packed into panels by a kernel of its
// own (into the fusion's scratch) from two row blocks of C on, whatever the
// target's speed rule: sizes around the tile and the vector width, primes
// and powers of two, K of one and of more than 4096, N with and without
// one-vector strips, batches that share B and batches of B (a panel set per
// batch), the epilogue after packed panels. The thread pool splits the row
// blocks, so several chunks read the same panels.
TEST_F(HostMatmul, PackedPanelsOfB) {
  const MatmulCase cases[] = {
      {{128, 1}, {1, 17}},         {{128, 64}, {64, 64}},
      {{197, 131}, {131, 67}},     {{128, 256}, {256, 256}},
      {{130, 20}, {20, 7}},        {{131, 33}, {33, 19}},
      {{400, 70}, {70, 40}},       {{773, 29}, {29, 48}},
      {{128, 4096}, {4096, 33}},   {{129, 4097}, {4097, 35}},
      {{2, 130, 24}, {24, 40}},    {{130, 9}, {2, 9, 50}},
      {{3, 129, 16}, {3, 16, 24}},
  };
  for (const MatmulCase &c : cases) {
    SCOPED_TRACE((TensorType{ElementType::F32, c.lhs}.toString() + " x " +
                  TensorType{ElementType::F32, c.rhs}.toString()));
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, c.lhs}, "x");
    TensorId w = b.input({ElementType::F32, c.rhs}, "w");
    TensorId shifted = b.add(w, b.splat({ElementType::F32, c.rhs}, 0.5));
    b.output(b.matmul(x, shifted), "y");
    checkUnit(*b.finish());
    expectPackKernel(c.rhs.back() >= 8);
  }
  for (auto [m, k, n] :
       {std::tuple<int64_t, int64_t, int64_t>{128, 64, 64}, {389, 257, 131}}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {m, k}}, "x");
    TensorId w = b.input({ElementType::F32, {k, n}}, "w");
    TensorId bias = b.input({ElementType::F32, {n}}, "bias");
    TensorId shifted = b.add(w, b.splat({ElementType::F32, {k, n}}, 0.5));
    TensorId y = b.add(b.matmul(x, shifted), b.broadcast(bias, {m, n}, {1}));
    b.output(b.max(y, b.splat({ElementType::F32, {m, n}}, 0.0)), "relu");
    checkUnit(*b.finish());
  }
}

/// B as it is (a kernel input, no prologue) that a kernel before computed
/// (here a matmul of one row block, which packs nothing), with C over 2 MiB
/// (below it the matmul kernel packs B's column groups itself:
/// host-matmul-packed-input.mlir), is packed by a kernel of its own for
/// speed by the target's rule (HostMatmulTarget::packsForSpeed): on every
/// target from 512 rows with N a power of two of at least 1024, and never
/// for 64 rows. The numbers match either way.
TEST_F(HostMatmul, PackingForSpeedFollowsTheTargetsRule) {
  for (auto [m, n, packed] :
       {std::tuple<int64_t, int64_t, bool>{1024, 1024, true},
        {64, 16384, false}}) {
    SCOPED_TRACE("M = " + std::to_string(m) + ", N = " + std::to_string(n));
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {m, 6}}, "x");
    TensorId u = b.input({ElementType::F32, {6, 8}}, "u");
    TensorId v = b.input({ElementType::F32, {8, n}}, "v");
    b.output(b.matmul(x, b.matmul(u, v)), "y");
    checkUnit(*b.finish());
    expectPackKernel(packed);
  }
}

/// A weight (B a graph input, read as it is) is packed by a kernel that
/// runs once per binding of the inputs, whatever the target's rule for
/// speed: a prepared bundle's later runs read the packed panels, and
/// binding other weights packs them again. Two weight sets through one
/// bundle give two right answers, and the caller's weights are never
/// written.
TEST_F(HostMatmul, WeightsArePackedOncePerBinding) {
  const int64_t m = 130, k = 64, n = 96;
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {m, k}}, "x");
  TensorId w = b.input({ElementType::F32, {k, n}}, "w");
  TensorId bias = b.input({ElementType::F32, {n}}, "bias");
  TensorId y = b.add(b.matmul(x, w), b.broadcast(bias, {m, n}, {1}));
  b.output(b.max(y, b.splat({ElementType::F32, {m, n}}, 0.0)), "relu");
  Graph graph = *b.finish();
  SCOPED_TRACE("random seed " + std::to_string(seed));
  Expected<Compilation> compiled = compiler.compile(graph, target, {});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  unsigned perBinding = 0;
  for (const BundleKernel &kernel : bundle.kernels)
    if (kernel.perBinding) {
      ++perBinding;
      EXPECT_TRUE(kernel.name.ends_with("_pack")) << kernel.name;
    }
  EXPECT_EQ(perBinding, 1u);
  EXPECT_GE(bundle.memoryPlan.boundBytes, uint64_t(k * n * 4));

  std::vector<HostTensorData> values;
  for (TensorId input : {x, w, bias})
    values.push_back(randomTensor(graph.typeOf(input), Domain{-1, 1}));
  HostTensorData w2 = randomTensor(graph.typeOf(w), Domain{-1, 1});
  HostTensorData x2 = randomTensor(graph.typeOf(x), Domain{-1, 1});
  auto bytes = [](const HostTensorData &data) {
    return std::span<const std::byte>(
        reinterpret_cast<const std::byte *>(data.bytes.data()),
        data.bytes.size());
  };
  // The inputs are read in place (the weights as fuse-run binds them).
  auto owner = std::make_shared<std::vector<HostTensorData>>(values);
  std::vector<device::SharedInput> shared;
  for (const HostTensorData &value : *owner)
    shared.push_back({owner, bytes(value)});
  const std::vector<std::byte> w1Bytes(bytes((*owner)[1]).begin(),
                                       bytes((*owner)[1]).end());

  device::Executable executable = *runtime.load(bundle);
  device::Stream stream = *runtime.createStream();
  device::DeviceResult<device::PreparedBundle> prepared =
      device::PreparedBundle::prepare(
          runtime, bundle, executable, stream,
          std::span<const device::SharedInput>(shared));
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto expectRunMatches = [&](std::vector<HostTensorData> inputs,
                              const std::string &what) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(prepared->run().ok());
    device::DeviceResult<std::vector<TensorBytes>> got =
        prepared->readOutputs();
    ASSERT_TRUE(got.ok()) << got.error().message;
    std::vector<HostTensor> views;
    for (HostTensorData &input : inputs)
      views.push_back(input.view());
    Expected<std::vector<HostTensorData>> want = evaluateGraph(graph, views);
    ASSERT_TRUE(want.ok()) << want.message();
    HostTensor actual{(*want)[0].type, (*got)[0].data()};
    Comparison c = compare(
        (*want)[0].view(), actual,
        toleranceForOutput(graph, graph.outputs[0].tensor, (*want)[0].view()));
    EXPECT_TRUE(c.ok) << c.message;
  };
  expectRunMatches(values, "first run: packs the weight");
  expectRunMatches(values, "second run: reads the packed weight");
  ASSERT_TRUE(prepared->setInput(1, bytes(w2)).ok());
  std::vector<HostTensorData> second = {values[0], w2, values[2]};
  expectRunMatches(second, "other weights: packed again");
  expectRunMatches(second, "other weights, run again");
  ASSERT_TRUE(prepared->setInput(0, bytes(x2)).ok());
  expectRunMatches({x2, w2, values[2]}, "other activations");
  EXPECT_EQ(std::vector<std::byte>(bytes((*owner)[1]).begin(),
                                   bytes((*owner)[1]).end()),
            w1Bytes)
      << "the caller's weights were written";

  device::DeviceStatus wrongSize = prepared->setInput(1, bytes(values[2]));
  ASSERT_FALSE(wrongSize.ok());
  EXPECT_NE(wrongSize.error().message.find("input 1 has 384 bytes"),
            std::string::npos)
      << wrongSize.error().message;
  EXPECT_FALSE(prepared->setInput(3, bytes(values[2])).ok());
}

/// A transposed B is packed from two row blocks of C on (M > 6): with one,
/// each element of B is read once, in place (an M = 1 classifier).
TEST_F(HostMatmul, OneRowBlockReadsTransposedBInPlace) {
  for (int64_t m : {1, 6, 7}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {m, 70}}, "x");
    TensorId w = b.input({ElementType::F32, {37, 70}}, "w");
    b.output(b.matmul(x, w, false, true), "y");
    checkUnit(*b.finish());
    expectPackKernel(m > 6);
  }
}

TEST_F(HostMatmul, ReluBiasAndResidualEpilogues) {
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {7, 13, 5},
                         {64, 64, 64},
                         {65, 127, 33}}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {m, k}}, "x");
    TensorId w = b.input({ElementType::F32, {k, n}}, "w");
    TensorId bias = b.input({ElementType::F32, {n}}, "bias");
    TensorId residual = b.input({ElementType::F32, {m, n}}, "residual");
    TensorId y = b.add(b.matmul(x, w), b.broadcast(bias, {m, n}, {1}));
    b.output(b.max(y, b.splat({ElementType::F32, {m, n}}, 0.0)), "relu");
    b.output(b.add(y, residual), "residual");
    checkUnit(*b.finish());
  }
}

TEST_F(HostMatmul, EpilogueAfterAReshapeThenTransposedStore) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {10, 24}}, "x");
  TensorId w = b.input({ElementType::F32, {24, 48}}, "w");
  TensorId r = b.input({ElementType::F32, {10, 3, 16}}, "residual");
  TensorId y = b.add(b.reshape(b.matmul(x, w), {10, 3, 16}), r);
  b.output(b.transpose(y, {1, 0, 2}), "heads");
  checkUnit(*b.finish());
}

/// A prologue on a batched B (an elementwise op, then a transpose): computed
/// once per element by the pack kernel, a panel set per batch.
TEST_F(HostMatmul, PrologueOnBatchedRhsIsPacked) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {3, 20, 16}}, "x");
  TensorId w = b.input({ElementType::F32, {3, 50, 16}}, "w");
  TensorId s = b.input({ElementType::F32, {3, 50, 16}}, "scale");
  b.output(b.matmul(x, b.transpose(b.mul(w, s), {0, 2, 1})), "y");
  checkUnit(*b.finish());
}

TEST_F(HostMatmul, ElementwisePrologueAndTransposedOperand) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {19, 21}}, "x");
  TensorId wt = b.input({ElementType::F32, {35, 21}}, "w_transposed");
  TensorId lhs = b.tanh(b.mul(x, b.splat({ElementType::F32, {19, 21}}, 1.5)));
  b.output(b.matmul(lhs, b.transpose(wt, {1, 0})), "y");
  checkUnit(*b.finish());
}

/// A read through a map in the prologue: attention's heads merged
/// ([H, S, D] read as [S, H * D]) into the output projection with a
/// residual, with head sizes of whole vectors, of less than a step of the
/// unrolled k loop, and of odd lengths; and a batched A read transposed
/// ([B, K, M] as [B, M, K]). A's row terms are computed once per row
/// (Index::split), its k terms once per k.
TEST_F(HostMatmul, MapsOnAInThePrologue) {
  for (auto [heads, seq, headDim] :
       {std::tuple<int64_t, int64_t, int64_t>{4, 128, 64},
        {3, 13, 3},
        {2, 9, 16},
        {5, 20, 7}}) {
    int64_t hidden = heads * headDim;
    GraphBuilder b;
    TensorId o = b.input({ElementType::F32, {1, heads, seq, headDim}}, "o");
    TensorId w = b.input({ElementType::F32, {hidden, hidden}}, "w");
    TensorId r = b.input({ElementType::F32, {1, seq, hidden}}, "residual");
    TensorId merged = b.reshape(b.transpose(o, {0, 2, 1, 3}), {1, seq, hidden});
    TensorId y = b.add(r, b.matmul(merged, w));
    b.output(y, "y");
    b.output(b.mul(y, y), "y_squared");
    checkUnit(*b.finish());
  }
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {3, 21, 19}}, "x");
  TensorId w = b.input({ElementType::F32, {3, 21, 35}}, "w");
  b.output(b.matmul(b.transpose(x, {0, 2, 1}), w), "y");
  checkUnit(*b.finish());
}

/// Attention's head split and merge: Q, K and V projections with the heads
/// split in the epilogue, Q K^T scaled, softmax, P V with the heads merged.
/// With `keysTransposed` K^T is a transpose of the split K, not the matmul's
/// transpose_b.
Graph attention(int64_t seq, int64_t heads, int64_t headDim, ElementType type,
                bool keysTransposed = false) {
  int64_t hidden = heads * headDim;
  GraphBuilder b;
  TensorId x = b.input({type, {seq, hidden}}, "x");
  auto project = [&](const char *name) {
    TensorId w = b.input({type, {hidden, hidden}}, name);
    TensorId bias = b.input({type, {hidden}}, std::string(name) + "_bias");
    TensorId y = b.add(b.matmul(x, w), b.broadcast(bias, {seq, hidden}, {1}));
    return b.transpose(b.reshape(y, {seq, heads, headDim}), {1, 0, 2});
  };
  TensorId q = project("wq"), k = project("wk"), v = project("wv");
  std::vector<int64_t> scoreShape = {heads, seq, seq};
  TensorId s = b.mul(keysTransposed ? b.matmul(q, b.transpose(k, {0, 2, 1}))
                                    : b.matmul(q, k, false, true),
                     b.splat({type, scoreShape}, 1.0 / std::sqrt(headDim)));
  TensorId mx = b.reduce(ReduceKind::Max, s, {2}, true);
  TensorId e = b.exp(b.sub(s, b.broadcast(mx, scoreShape, {0, 1, 2})));
  TensorId sum = b.reduce(ReduceKind::Sum, e, {2}, true);
  TensorId p = b.div(e, b.broadcast(sum, scoreShape, {0, 1, 2}));
  TensorId o = b.matmul(p, v);
  b.output(b.reshape(b.transpose(o, {1, 0, 2}), {seq, hidden}), "o");
  return *b.finish();
}

/// Weights scaled by 1/sqrt(hidden), as in a trained model: scores of order
/// 1. With order-1 weights the scores reach tens, the softmax amplifies
/// their f32 rounding beyond the policy's first-order tolerance.
std::vector<Domain> attentionDomains(int64_t hidden) {
  double scale = 1.0 / std::sqrt(double(hidden));
  std::vector<Domain> domains = {{-1, 1}};
  for (int projection = 0; projection < 3; ++projection) {
    domains.push_back({-scale, scale});
    domains.push_back({-0.1, 0.1});
  }
  return domains;
}

TEST_F(HostMatmul, AttentionHeadSplitAndMerge) {
  check(attention(8, 4, 8, ElementType::F32), attentionDomains(32));
  check(attention(13, 3, 5, ElementType::F32), attentionDomains(15));
  check(attention(64, 4, 32, ElementType::F32), attentionDomains(128));
}

/// The attention kernel's register tiles: 70 keys (a last tile of keys
/// shorter than the others, at 8 and 16 lanes), blocks of query rows that
/// are not whole register tiles, K rows of whole vectors (transposed a
/// square at a time) or K given transposed (copied), at both widths.
TEST_F(HostMatmul, AttentionRegisterTiles) {
  for (Target each : {hostTarget(), Target{"host-x86-64-v3"}}) {
    target = each;
    for (bool keysTransposed : {false, true})
      check(attention(70, 2, 32, ElementType::F32, keysTransposed),
            attentionDomains(64));
  }
}

TEST_F(HostMatmul, F16AndBf16StorageWithF32Accumulation) {
  for (ElementType type : {ElementType::F16, ElementType::BF16}) {
    for (auto [m, k, n] :
         {std::tuple<int64_t, int64_t, int64_t>{7, 13, 5}, {65, 127, 33}}) {
      GraphBuilder b;
      TensorId x = b.input({type, {m, k}}, "x");
      TensorId w = b.input({type, {k, n}}, "w");
      TensorId bias = b.input({type, {n}}, "bias");
      TensorId y = b.add(b.matmul(x, w), b.broadcast(bias, {m, n}, {1}));
      b.output(b.max(y, b.splat({type, {m, n}}, 0.0)), "relu");
      checkUnit(*b.finish());
    }
    check(attention(13, 3, 5, type), attentionDomains(15));
  }
}

/// The last columns as dot products along k (dotTail) at both widths: a
/// convolution onto 7 x 7 maps (49 columns: one dot column after whole
/// vectors, in the same row blocks) of 2 images, with bias and relu and a
/// last row block clamped; a matmul whose B (x * x) the kernel packs, 530
/// columns (2 dot columns).
TEST_F(HostMatmul, DotTailColumnsAtBothWidths) {
  for (Target each : {hostTarget(), Target{"host-x86-64-v3"}}) {
    target = each;
    SCOPED_TRACE(target.name);
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2, 16, 7, 7}}, "x");
    TensorId w = b.input({ElementType::F32, {20, 16, 3, 3}}, "w");
    TensorId bias = b.input({ElementType::F32, {20}}, "bias");
    TensorId y = b.conv(x, w, bias, {1, 1}, {1, 1}, {1, 1, 1, 1});
    b.output(b.max(y, b.splat({ElementType::F32, {2, 20, 7, 7}}, 0.0)),
             "conv_relu");
    TensorId a = b.input({ElementType::F32, {31, 32}}, "a");
    TensorId m = b.input({ElementType::F32, {32, 530}}, "m");
    b.output(b.matmul(a, b.mul(m, m)), "matmul");
    check(*b.finish());
  }
}

/// The 8-lane code (x86-64-v3) runs on any host these tests run on; it has
/// other strips and tails than the 16-lane code.
TEST_F(HostMatmul, EightLaneTarget) {
  target = Target{"host-x86-64-v3"};
  for (bool transposeB : {false, true}) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {2, 65, 127}}, "x");
    TensorId w = b.input(
        {ElementType::F32, transposeB ? std::vector<int64_t>{2, 33, 127}
                                      : std::vector<int64_t>{2, 127, 33}},
        "w");
    b.output(b.matmul(x, w, false, transposeB), "y");
    checkUnit(*b.finish());
  }
  check(attention(13, 3, 5, ElementType::F32), attentionDomains(15));
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {37, 1000}}, "x");
  b.output(b.reduce(ReduceKind::Max, x, {0}), "column_max");
  check(*b.finish());
}

} // namespace
} // namespace fuse
