// Issue 22: attention and gather with runtime dims on the host. An
// attention whose sequence (query rows and keys) is symbolic reads the
// sequence's value from its dims array (KernelAbi.h, "Runtime dims"); one
// bundle is bound (bindBundle) to several lengths and run, each against the
// reference interpreter on the graph bound to the same length.

#include "SymbolicRun.h"

#include "runtime/cache/BundleSerialization.h"

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>

namespace fuse {
namespace {

/// `text` with "$Q" a [2 batch, 4 heads, sequence, 32] type, "$S" the
/// scores' [2, 4, sequence, sequence], "$R" their row-reduced type, "$M"
/// a mask of the scores' shape.
std::string source(const std::string &text) {
  return withPlaceholders(
      text, {{"$Q", "tensor<2x4x?x32xf32, #fuse.dims<sequence>>"},
             {"$S", "tensor<2x4x?x?xf32, #fuse.dims<sequence, sequence>>"},
             {"$R", "tensor<2x4x?x1xf32, #fuse.dims<sequence>>"},
             {"$M", "tensor<2x4x?x?xi1, #fuse.dims<sequence, sequence>>"}});
}

/// Three attentions over one Q, K, V: (a) scaled, no mask; (b) a padding
/// mask [batch, 1, 1, keys] added, as BERT's export has it; (c) an additive
/// causal mask [queries, keys] given as an input, as decoders take it.
const char *kAttention = R"(
func.func @attention(%q: $Q, %k: $Q, %v: $Q,
                     %pad: tensor<2x1x1x?xf32, #fuse.dims<sequence>>,
                     %causal: tensor<?x?xf32, #fuse.dims<sequence, sequence>>)
    -> ($Q, $Q, $Q) {
  %s = fuse.matmul %q, %k transpose_b : $Q, $Q -> $S
  %c = fuse.constant dense<0.17> : tensor<f32>
  %cb = fuse.broadcast %c, dims = [] : tensor<f32> -> $S
  %t = fuse.mul %s, %cb : $S
  %mx = fuse.reduce max %t dims = [3] keep_dims : $S -> $R
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2, 3] : $R -> $S
  %d = fuse.sub %t, %mxb : $S
  %e = fuse.exp %d : $S
  %sm = fuse.reduce sum %e dims = [3] keep_dims : $S -> $R
  %smb = fuse.broadcast %sm, dims = [0, 1, 2, 3] : $R -> $S
  %p = fuse.div %e, %smb : $S
  %a = fuse.matmul %p, %v : $S, $Q -> $Q

  %s2 = fuse.matmul %q, %k transpose_b : $Q, $Q -> $S
  %t2 = fuse.mul %s2, %cb : $S
  %pb = fuse.broadcast %pad, dims = [0, 1, 2, 3] : tensor<2x1x1x?xf32, #fuse.dims<sequence>> -> $S
  %u2 = fuse.add %t2, %pb : $S
  %mx2 = fuse.reduce max %u2 dims = [3] keep_dims : $S -> $R
  %mxb2 = fuse.broadcast %mx2, dims = [0, 1, 2, 3] : $R -> $S
  %d2 = fuse.sub %u2, %mxb2 : $S
  %e2 = fuse.exp %d2 : $S
  %sm2 = fuse.reduce sum %e2 dims = [3] keep_dims : $S -> $R
  %smb2 = fuse.broadcast %sm2, dims = [0, 1, 2, 3] : $R -> $S
  %p2 = fuse.div %e2, %smb2 : $S
  %b = fuse.matmul %p2, %v : $S, $Q -> $Q

  %s3 = fuse.matmul %q, %k transpose_b : $Q, $Q -> $S
  %t3 = fuse.mul %s3, %cb : $S
  %cm = fuse.broadcast %causal, dims = [2, 3] : tensor<?x?xf32, #fuse.dims<sequence, sequence>> -> $S
  %u3 = fuse.add %t3, %cm : $S
  %mx3 = fuse.reduce max %u3 dims = [3] keep_dims : $S -> $R
  %mxb3 = fuse.broadcast %mx3, dims = [0, 1, 2, 3] : $R -> $S
  %d3 = fuse.sub %u3, %mxb3 : $S
  %e3 = fuse.exp %d3 : $S
  %sm3 = fuse.reduce sum %e3 dims = [3] keep_dims : $S -> $R
  %smb3 = fuse.broadcast %sm3, dims = [0, 1, 2, 3] : $R -> $S
  %p3 = fuse.div %e3, %smb3 : $S
  %o = fuse.matmul %p3, %v : $S, $Q -> $Q
  return %a, %b, %o : $Q, $Q, $Q
}
)";

/// Attention as PyTorch's scaled_dot_product_attention exports it with
/// its K already transposed ([batch, heads, depth, keys]: BERT's QKV
/// projection stores K so) and a boolean padding mask: masked scores are
/// -inf and P is select(isnan(P), 0, P): a key is kept where `pad` > 0.
/// The test masks batch element 1 entirely (its every row's sum is 0), so
/// its output is 0, not NaN.
const char *kGuardedAttention = R"(
func.func @guarded(%q: $Q, %kt: tensor<2x4x32x?xf32, #fuse.dims<sequence>>,
                   %v: $Q, %pad: tensor<2x1x1x?xf32, #fuse.dims<sequence>>)
    -> $Q {
  %s = fuse.matmul %q, %kt : $Q, tensor<2x4x32x?xf32, #fuse.dims<sequence>> -> $S
  %c = fuse.constant dense<0.17> : tensor<f32>
  %cb = fuse.broadcast %c, dims = [] : tensor<f32> -> $S
  %t = fuse.mul %s, %cb : $S
  %z = fuse.constant dense<0.0> : tensor<f32>
  %zp = fuse.broadcast %z, dims = [] : tensor<f32> -> tensor<2x1x1x?xf32, #fuse.dims<sequence>>
  %m = fuse.compare gt, %pad, %zp : tensor<2x1x1x?xf32, #fuse.dims<sequence>>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<2x1x1x?xi1, #fuse.dims<sequence>> -> $M
  %ninf = fuse.constant dense<0xFF800000> : tensor<f32>
  %nb = fuse.broadcast %ninf, dims = [] : tensor<f32> -> $S
  %u = fuse.select %mb, %t, %nb : $M, $S
  %mx = fuse.reduce max %u dims = [3] keep_dims : $S -> $R
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2, 3] : $R -> $S
  %d = fuse.sub %u, %mxb : $S
  %e = fuse.exp %d : $S
  %sm = fuse.reduce sum %e dims = [3] keep_dims : $S -> $R
  %smb = fuse.broadcast %sm, dims = [0, 1, 2, 3] : $R -> $S
  %p = fuse.div %e, %smb : $S
  %nan = fuse.isnan %p : $S
  %zs = fuse.broadcast %z, dims = [] : tensor<f32> -> $S
  %g = fuse.select %nan, %zs, %p : $M, $S
  %o = fuse.matmul %g, %v : $S, $Q -> $Q
  return %o : $Q
}
)";

/// Attention with its queries and keys separate dims (a decoder's step
/// over its cache): "$Q" a [2, 4, queries, 32] type, "$K" a [2, 4, keys,
/// 32] one, "$S" the scores'. (a) A padding mask [batch, 1, 1, keys] and a
/// causal mask [queries, keys] added; (b) K by columns, a boolean padding
/// mask and the softmax's guard, as kGuardedAttention.
const char *kCrossAttention = R"(
func.func @cross(%q: $Q, %k: $K, %v: $K, %kt: $T,
                 %pad: tensor<2x1x1x?xf32, #fuse.dims<keys>>,
                 %causal: tensor<?x?xf32, #fuse.dims<queries, keys>>)
    -> ($Q, $Q) {
  %s = fuse.matmul %q, %k transpose_b : $Q, $K -> $S
  %c = fuse.constant dense<0.17> : tensor<f32>
  %cb = fuse.broadcast %c, dims = [] : tensor<f32> -> $S
  %t = fuse.mul %s, %cb : $S
  %pb = fuse.broadcast %pad, dims = [0, 1, 2, 3] : tensor<2x1x1x?xf32, #fuse.dims<keys>> -> $S
  %cm = fuse.broadcast %causal, dims = [2, 3] : tensor<?x?xf32, #fuse.dims<queries, keys>> -> $S
  %u0 = fuse.add %t, %pb : $S
  %u = fuse.add %u0, %cm : $S
  %mx = fuse.reduce max %u dims = [3] keep_dims : $S -> $R
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2, 3] : $R -> $S
  %d = fuse.sub %u, %mxb : $S
  %e = fuse.exp %d : $S
  %sm = fuse.reduce sum %e dims = [3] keep_dims : $S -> $R
  %smb = fuse.broadcast %sm, dims = [0, 1, 2, 3] : $R -> $S
  %p = fuse.div %e, %smb : $S
  %a = fuse.matmul %p, %v : $S, $K -> $Q

  %s2 = fuse.matmul %q, %kt : $Q, $T -> $S
  %t2 = fuse.mul %s2, %cb : $S
  %z = fuse.constant dense<0.0> : tensor<f32>
  %zp = fuse.broadcast %z, dims = [] : tensor<f32> -> tensor<2x1x1x?xf32, #fuse.dims<keys>>
  %m = fuse.compare gt, %pad, %zp : tensor<2x1x1x?xf32, #fuse.dims<keys>>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<2x1x1x?xi1, #fuse.dims<keys>> -> $M
  %ninf = fuse.constant dense<0xFF800000> : tensor<f32>
  %nb = fuse.broadcast %ninf, dims = [] : tensor<f32> -> $S
  %u2 = fuse.select %mb, %t2, %nb : $M, $S
  %mx2 = fuse.reduce max %u2 dims = [3] keep_dims : $S -> $R
  %mxb2 = fuse.broadcast %mx2, dims = [0, 1, 2, 3] : $R -> $S
  %d2 = fuse.sub %u2, %mxb2 : $S
  %e2 = fuse.exp %d2 : $S
  %sm2 = fuse.reduce sum %e2 dims = [3] keep_dims : $S -> $R
  %smb2 = fuse.broadcast %sm2, dims = [0, 1, 2, 3] : $R -> $S
  %p2 = fuse.div %e2, %smb2 : $S
  %nan = fuse.isnan %p2 : $S
  %zs = fuse.broadcast %z, dims = [] : tensor<f32> -> $S
  %g = fuse.select %nan, %zs, %p2 : $M, $S
  %o = fuse.matmul %g, %v : $S, $K -> $Q
  return %a, %o : $Q, $Q
}
)";

/// An embedding lookup: a static table, batch * sequence ids.
const char *kGather = R"(
func.func @embed(%table: tensor<1000x64xf32>,
                 %ids: tensor<?x?xi64, #fuse.dims<batch, sequence>>)
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %e = fuse.gather %table[%ids] axis = 0 : tensor<1000x64xf32>, tensor<?x?xi64, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %e : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
)";

/// A gather from a table whose rows are a dim (a decoder's flattened mask,
/// batch x total_sequence rows): the index's wrap and bound read the rows
/// from the dims array. Indices in [-1, 1]: negative ones count from the
/// end.
const char *kTableGather = R"(
func.func @table(%table: tensor<?x4xf32, #fuse.dims<rows>>,
                 %ids: tensor<?x?xi64, #fuse.dims<batch, sequence>>)
    -> tensor<?x?x4xf32, #fuse.dims<batch, sequence>> {
  %e = fuse.gather %table[%ids] axis = 0 : tensor<?x4xf32, #fuse.dims<rows>>, tensor<?x?xi64, #fuse.dims<batch, sequence>> -> tensor<?x?x4xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %e : tensor<?x?x4xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x4xf32, #fuse.dims<batch, sequence>>
}
)";

class HostSymbolicAttention : public SymbolicRun {
protected:
  Bundle compileOnce(const std::string &text) {
    Expected<Compilation> compiled =
        compiler.compileSource(text, target, CompileOptions{});
    EXPECT_TRUE(compiled.ok()) << compiled.message();
    if (!compiled.ok())
      return Bundle();
    EXPECT_TRUE(compiled->bundle.isSymbolic());
    return std::move(compiled->bundle);
  }
};

TEST_F(HostSymbolicAttention, OneBundleRunsEveryLength) {
  Bundle bundle = compileOnce(source(kAttention));
  ASSERT_FALSE(HasFailure());
  // Three attention kernels, each reading the sequence from its dims array
  // and running a query row per iteration.
  int attention = 0;
  for (const BundleKernel &kernel : bundle.kernels) {
    if (kernel.schedule != ScheduleKind::Attention)
      continue;
    ++attention;
    EXPECT_EQ(kernel.runtimeDims, std::vector<std::string>{"sequence"});
    EXPECT_TRUE(kernel.dimValues.empty());
    ASSERT_TRUE(kernel.symbolicIterations);
    EXPECT_EQ(kernel.symbolicIterations->toString(), "sequence*8");
  }
  EXPECT_EQ(attention, 3);
  for (std::int64_t sequence : {1, 7, 64, 77, 128}) {
    checkAt(bundle, {{"sequence", sequence}});
    ASSERT_FALSE(HasFatalFailure());
  }
}

TEST_F(HostSymbolicAttention, KByColumnsAndASoftmaxGuardRunFromOneBundle) {
  Bundle bundle = compileOnce(source(kGuardedAttention));
  ASSERT_FALSE(HasFailure());
  int attention = 0;
  for (const BundleKernel &kernel : bundle.kernels)
    attention += kernel.schedule == ScheduleKind::Attention &&
                 kernel.runtimeDims == std::vector<std::string>{"sequence"};
  EXPECT_EQ(attention, 1);
  // 1 key, part of a tile, one tile and a half, and several tiles.
  // Batch element 1's pad is -1 at every key: its rows have no key.
  auto maskSecond = [](std::vector<HostTensorData> &inputs) {
    HostTensorData &pad = inputs[3];
    auto *values = reinterpret_cast<float *>(pad.bytes.data());
    const std::int64_t keys = pad.type.shape[3];
    for (std::int64_t j = 0; j < keys; ++j)
      values[keys + j] = -1.0f;
  };
  for (std::int64_t sequence : {1, 7, 64, 100, 300}) {
    checkAt(bundle, {{"sequence", sequence}}, {}, maskSecond);
    ASSERT_FALSE(HasFatalFailure());
  }
}

// The keys on both sides of the whole-row bound (runtimeAttention's
// kMaxWholeRowKeys, 2048 keys with 32 elements per row: whole rows of
// scores on the stack at most, an online softmax over tiles past it), a
// query or several blocks of them. Pad is -1 (masked) at every key of batch
// element 1 in the guarded attention: its rows are 0, not NaN; the causal
// mask is -1e9 past the query's position.
TEST_F(HostSymbolicAttention, WholeRowsAndTilesOfKeysMatchTheReference) {
  Bundle bundle = compileOnce(withPlaceholders(
      kCrossAttention,
      {{"$Q", "tensor<2x4x?x32xf32, #fuse.dims<queries>>"},
       {"$K", "tensor<2x4x?x32xf32, #fuse.dims<keys>>"},
       {"$T", "tensor<2x4x32x?xf32, #fuse.dims<keys>>"},
       {"$S", "tensor<2x4x?x?xf32, #fuse.dims<queries, keys>>"},
       {"$R", "tensor<2x4x?x1xf32, #fuse.dims<queries>>"},
       {"$M", "tensor<2x4x?x?xi1, #fuse.dims<queries, keys>>"}}));
  ASSERT_FALSE(HasFailure());
  int attention = 0;
  for (const BundleKernel &kernel : bundle.kernels)
    attention += kernel.schedule == ScheduleKind::Attention;
  EXPECT_EQ(attention, 2);
  auto masks = [](std::vector<HostTensorData> &inputs) {
    HostTensorData &pad = inputs[4], &causal = inputs[5];
    auto *values = reinterpret_cast<float *>(pad.bytes.data());
    const std::int64_t keys = pad.type.shape[3];
    for (std::int64_t j = 0; j < keys; ++j)
      values[keys + j] = -1.0f;
    auto *c = reinterpret_cast<float *>(causal.bytes.data());
    const std::int64_t queries = causal.type.shape[0];
    for (std::int64_t i = 0; i < queries; ++i)
      for (std::int64_t j = std::max<std::int64_t>(0, keys - queries + i + 1);
           j < keys; ++j)
        c[i * keys + j] = -1e9f;
  };
  for (auto [queries, keys] : {std::pair<std::int64_t, std::int64_t>{1, 1},
                               {5, 70},
                               {150, 130},
                               {3, 2047},
                               {40, 2048},
                               {40, 2049},
                               {1, 2100},
                               {7, 3001}}) {
    checkAt(bundle, {{"queries", queries}, {"keys", keys}}, {}, masks);
    ASSERT_FALSE(HasFatalFailure());
  }
}

TEST_F(HostSymbolicAttention, BindingFillsTheDimsArray) {
  Bundle bundle = compileOnce(source(kAttention));
  ASSERT_FALSE(HasFailure());
  Expected<Bundle> at77 = bindBundle(bundle, {{"sequence", 77}});
  ASSERT_TRUE(at77.ok()) << at77.message();
  for (size_t k = 0; k < bundle.kernels.size(); ++k) {
    const BundleKernel &kernel = at77->kernels[k];
    EXPECT_EQ(kernel.payload, bundle.kernels[k].payload);
    EXPECT_EQ(kernel.runtimeDims, bundle.kernels[k].runtimeDims);
    if (!kernel.runtimeDims.empty())
      EXPECT_EQ(kernel.dimValues, std::vector<std::int64_t>{77});
  }
  EXPECT_TRUE(verifyBundle(*at77).ok());
}

TEST_F(HostSymbolicAttention, SerializationRoundTripsTheDimsFields) {
  Bundle bundle = compileOnce(source(kAttention));
  ASSERT_FALSE(HasFailure());
  Expected<Bundle> read = deserializeBundle(serializeBundle(bundle));
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(*read, bundle);
  Expected<Bundle> bound = bindBundle(bundle, {{"sequence", 7}});
  ASSERT_TRUE(bound.ok()) << bound.message();
  Expected<Bundle> boundRead = deserializeBundle(serializeBundle(*bound));
  ASSERT_TRUE(boundRead.ok()) << boundRead.message();
  EXPECT_FALSE(bound->boundDims.empty());
  EXPECT_EQ(*boundRead, *bound);
  bool values = false;
  for (const BundleKernel &kernel : boundRead->kernels)
    values |= kernel.dimValues == std::vector<std::int64_t>{7};
  EXPECT_TRUE(values);
  checkAt(*read, {{"sequence", 7}});
}

/// verifyBundle's message for `bundle` with `mend` applied to each kernel
/// that takes a dims array.
std::string refusal(Bundle bundle,
                    const std::function<void(BundleKernel &)> &mend) {
  for (BundleKernel &kernel : bundle.kernels)
    if (!kernel.runtimeDims.empty())
      mend(kernel);
  Status status = verifyBundle(bundle);
  return status.ok() ? "accepted" : status.message();
}

TEST_F(HostSymbolicAttention, VerifyBundleRefusesABadDimsRecord) {
  Bundle bundle = compileOnce(source(kAttention));
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(verifyBundle(bundle).ok());
  EXPECT_NE(refusal(bundle, [](BundleKernel &k) { k.runtimeDims = {"length"}; })
                .find("which is no dim of the graph"),
            std::string::npos);
  EXPECT_NE(
      refusal(bundle,
              [](BundleKernel &k) { k.runtimeDims.push_back("sequence"); })
          .find("twice"),
      std::string::npos);
  EXPECT_NE(refusal(bundle, [](BundleKernel &k) { k.dimValues = {7}; })
                .find("before its dims are bound"),
            std::string::npos);
  Expected<Bundle> bound = bindBundle(bundle, {{"sequence", 7}});
  ASSERT_TRUE(bound.ok()) << bound.message();
  EXPECT_NE(refusal(*bound, [](BundleKernel &k) { k.dimValues.clear(); })
                .find("0 dim values for 1 dims"),
            std::string::npos);
  EXPECT_NE(refusal(*bound, [](BundleKernel &k) { k.dimValues = {-7}; })
                .find("not a size"),
            std::string::npos);
  EXPECT_NE(refusal(*bound,
                    [](BundleKernel &k) { k.payloadKind = PayloadKind::None; })
                .find("only host and GPU kernels take dims"),
            std::string::npos);
}

/// verifyBundle's message for `bundle`, "accepted" where it passes.
std::string verdict(const Bundle &bundle) {
  Status status = verifyBundle(bundle);
  return status.ok() ? "accepted" : status.message();
}

TEST_F(HostSymbolicAttention, VerifyBundleRefusesDimValuesThatDisagree) {
  Bundle bundle = compileOnce(source(kAttention));
  ASSERT_FALSE(HasFailure());
  Expected<Bundle> bound = bindBundle(bundle, {{"sequence", 7}});
  ASSERT_TRUE(bound.ok()) << bound.message();
  ASSERT_EQ(verdict(*bound), "accepted");
  // The bound values are kept, with every axis that was symbolic.
  EXPECT_EQ(bound->boundDims.bindings(), (DimBindings{{"sequence", 7}}));
  EXPECT_FALSE(bound->boundDims.axes.empty());
  std::vector<std::size_t> readers;
  for (std::size_t k = 0; k < bound->kernels.size(); ++k)
    if (!bound->kernels[k].runtimeDims.empty())
      readers.push_back(k);
  ASSERT_GE(readers.size(), 2u);

  // Two kernels that read 'sequence' disagree about it: the second would
  // read 100 keys of K and V, which hold 7.
  Bundle twoValues = *bound;
  twoValues.kernels[readers[1]].dimValues = {100};
  std::string message = verdict(twoValues);
  EXPECT_NE(message.find("reads dim 'sequence' as 100, kernel " +
                         std::to_string(readers[0])),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" as 7"), std::string::npos) << message;

  // Every kernel says 100, the bundle was bound to 7.
  Bundle allKernels = *bound;
  for (std::size_t k : readers)
    allKernels.kernels[k].dimValues = {100};
  message = verdict(allKernels);
  EXPECT_NE(message.find("reads dim 'sequence' as 100, but the bundle is "
                         "bound to 7"),
            std::string::npos)
      << message;

  // Kernels and bound values say 100, the graph's shapes 7.
  Bundle graphDisagrees = allKernels;
  graphDisagrees.boundDims.values = {100};
  message = verdict(graphDisagrees);
  EXPECT_NE(
      message.find("is 7, but its dim sequence is 100 for the bound dims"),
      std::string::npos)
      << message;

  // An input's shape edited: K holds 8 rows, the dims say 7.
  Bundle shapeEdited = *bound;
  std::vector<std::int64_t> &k =
      shapeEdited.graph.tensors[std::size_t(shapeEdited.inputs[1])].type.shape;
  ASSERT_EQ(k[2], 7);
  k[2] = 8;
  message = verdict(shapeEdited);
  EXPECT_NE(message.find("is 8, but its dim sequence is 7"), std::string::npos)
      << message;

  // A record that does not fit its dim table, or is not a size.
  Bundle noValues = *bound;
  noValues.boundDims.values.clear();
  EXPECT_NE(verdict(noValues).find("0 values for 1 dims"), std::string::npos);
  Bundle negative = *bound;
  negative.boundDims.values = {-7};
  EXPECT_NE(verdict(negative).find("is bound to -7, not a size"),
            std::string::npos);
  // A symbolic bundle has no bound values yet.
  Bundle early = bundle;
  early.boundDims = bound->boundDims;
  EXPECT_NE(verdict(early).find("records values its dims are bound to"),
            std::string::npos);
}

TEST_F(HostSymbolicAttention, GatherRunsEveryLength) {
  Bundle bundle = compileOnce(kGather);
  ASSERT_FALSE(HasFailure());
  bool symbolicLaunch = false;
  for (const BundleKernel &kernel : bundle.kernels)
    symbolicLaunch |= bool(kernel.symbolicIterations);
  EXPECT_TRUE(symbolicLaunch);
  std::vector<Domain> domains = {Domain{}, Domain{0, 999}};
  for (std::int64_t sequence : {1, 7, 64, 77, 128}) {
    checkAt(bundle, {{"batch", 2}, {"sequence", sequence}}, domains);
    ASSERT_FALSE(HasFatalFailure());
  }
  checkAt(bundle, {{"batch", 3}, {"sequence", 5}}, domains);
}

TEST_F(HostSymbolicAttention, AGatherFromATableOfRuntimeRowsRunsEveryLength) {
  Bundle bundle = compileOnce(kTableGather);
  ASSERT_FALSE(HasFailure());
  std::vector<Domain> domains = {Domain{}, Domain{-1, 1}};
  for (auto [rows, batch, sequence] :
       {std::tuple<std::int64_t, std::int64_t, std::int64_t>{2, 1, 1},
        {5, 2, 7},
        {77, 1, 64},
        {3, 3, 5}}) {
    checkAt(bundle, {{"rows", rows}, {"batch", batch}, {"sequence", sequence}},
            domains);
    ASSERT_FALSE(HasFatalFailure());
  }
}

} // namespace
} // namespace fuse
