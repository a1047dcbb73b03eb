// Issue 22, step C: kernels that take symbolic dims at run time on the host.
// A symbolic module compiles once; the bundle is bound (bindBundle) to
// several values of its dims and run, each against the reference
// interpreter on the graph bound to the same values.

#include "SymbolicRun.h"

#include "runtime/cache/BundleSerialization.h"

#include <algorithm>
#include <string>

namespace fuse {
namespace {

/// `text` with every "$T" a rows type over (batch, sequence) and every "$R"
/// its row-reduced type.
std::string source(const std::string &text) {
  return withPlaceholders(
      text, {{"$T", "tensor<?x?x64xf32, #fuse.dims<batch, sequence>>"},
             {"$R", "tensor<?x?x1xf32, #fuse.dims<batch, sequence>>"}});
}

const char *kLayerNormSoftmax = R"(
func.func @rows(%x: $T, %g: tensor<64xf32>, %be: tensor<64xf32>) -> ($T, $T) {
  %mu = fuse.reduce mean %x dims = [2] keep_dims : $T -> $R
  %mub = fuse.broadcast %mu, dims = [0, 1, 2] : $R -> $T
  %d = fuse.sub %x, %mub : $T
  %d2 = fuse.mul %d, %d : $T
  %var = fuse.reduce mean %d2 dims = [2] keep_dims : $T -> $R
  %rs = fuse.rsqrt %var : $R
  %rsb = fuse.broadcast %rs, dims = [0, 1, 2] : $R -> $T
  %n = fuse.mul %d, %rsb : $T
  %gb = fuse.broadcast %g, dims = [2] : tensor<64xf32> -> $T
  %bb = fuse.broadcast %be, dims = [2] : tensor<64xf32> -> $T
  %s = fuse.mul %n, %gb : $T
  %ln = fuse.add %s, %bb : $T
  %t = fuse.tanh %ln : $T
  %mx = fuse.reduce max %t dims = [2] keep_dims : $T -> $R
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2] : $R -> $T
  %sh = fuse.sub %t, %mxb : $T
  %e = fuse.exp %sh : $T
  %sm = fuse.reduce sum %e dims = [2] keep_dims : $T -> $R
  %smb = fuse.broadcast %sm, dims = [0, 1, 2] : $R -> $T
  %p = fuse.div %e, %smb : $T
  return %ln, %p : $T, $T
}
)";

const char *kPointwise = R"(
func.func @pointwise(%x: $T, %b: tensor<64xf32>) -> $T {
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> $T
  %s = fuse.add %x, %bb : $T
  %t = fuse.tanh %s : $T
  %y = fuse.mul %t, %x : $T
  return %y : $T
}
)";

const char *kMatmul = R"(
func.func @matmul(%x: $T, %w: tensor<64x64xf32>) -> $T {
  %m = fuse.matmul %x, %w : $T, tensor<64x64xf32> -> $T
  %t = fuse.tanh %m : $T
  return %t : $T
}
)";

class HostSymbolicDims : public SymbolicRun {
protected:
  Bundle compileOnce(const std::string &text, CompileOptions options = {}) {
    Expected<Compilation> compiled =
        compiler.compileSource(source(text), target, options);
    EXPECT_TRUE(compiled.ok()) << compiled.message();
    if (!compiled.ok())
      return Bundle();
    EXPECT_TRUE(compiled->bundle.isSymbolic());
    return std::move(compiled->bundle);
  }

  using SymbolicRun::checkAt;

  /// checkAt with the dims (batch, sequence).
  void checkAt(const Bundle &bundle, std::int64_t batch,
               std::int64_t sequence) {
    checkAt(bundle, DimBindings{{"batch", batch}, {"sequence", sequence}});
  }

  /// checkAt at batch 1 and every length, then at each (batch, sequence)
  /// of `also`.
  void checkAllLengths(
      const Bundle &bundle,
      std::initializer_list<std::pair<std::int64_t, std::int64_t>> also = {
          {3, 77}, {2, 1}}) {
    for (std::int64_t sequence : {1, 7, 64, 77, 128}) {
      checkAt(bundle, 1, sequence);
      ASSERT_FALSE(HasFatalFailure());
    }
    for (const auto &[batch, sequence] : also)
      checkAt(bundle, batch, sequence);
  }
};

TEST_F(HostSymbolicDims, PointwiseRunsAtEveryLength) {
  Bundle bundle = compileOnce(kPointwise);
  ASSERT_FALSE(HasFailure());
  // Its kernel's count of iterations is a formula over the dims.
  bool symbolicLaunch = false;
  for (const BundleKernel &kernel : bundle.kernels)
    if (kernel.symbolicIterations) {
      EXPECT_EQ(kernel.symbolicIterations->toString(), "batch*sequence*64");
      symbolicLaunch = true;
    }
  EXPECT_TRUE(symbolicLaunch);
  checkAllLengths(bundle);
}

TEST_F(HostSymbolicDims, LayerNormAndSoftmaxRowsRunAtEveryLength) {
  Bundle bundle = compileOnce(kLayerNormSoftmax);
  ASSERT_FALSE(HasFailure());
  bool rows = false;
  for (const BundleKernel &kernel : bundle.kernels)
    if (kernel.schedule == ScheduleKind::RowReduction) {
      rows = true;
      ASSERT_TRUE(kernel.symbolicIterations);
      EXPECT_EQ(kernel.symbolicIterations->toString(), "batch*sequence");
    }
  EXPECT_TRUE(rows);
  checkAllLengths(bundle);
}

TEST_F(HostSymbolicDims, OneBundleServesTwoLengthsWithoutCompiling) {
  Bundle bundle = compileOnce(kLayerNormSoftmax);
  ASSERT_FALSE(HasFailure());
  Expected<Bundle> at7 = bindBundle(bundle, {{"batch", 1}, {"sequence", 7}});
  Expected<Bundle> at77 = bindBundle(bundle, {{"batch", 1}, {"sequence", 77}});
  ASSERT_TRUE(at7.ok()) << at7.message();
  ASSERT_TRUE(at77.ok()) << at77.message();
  ASSERT_EQ(at7->kernels.size(), bundle.kernels.size());
  for (size_t k = 0; k < bundle.kernels.size(); ++k) {
    // The same compiled code and entry, other iteration counts.
    EXPECT_EQ(at7->kernels[k].payload, bundle.kernels[k].payload);
    EXPECT_EQ(at77->kernels[k].payload, bundle.kernels[k].payload);
    EXPECT_EQ(at7->kernels[k].entry, at77->kernels[k].entry);
    if (bundle.kernels[k].symbolicIterations)
      EXPECT_EQ(at77->kernels[k].launch.iterations,
                11 * at7->kernels[k].launch.iterations);
  }
  EXPECT_FALSE(at7->isSymbolic());
  EXPECT_TRUE(verifyBundle(*at77).ok());
  // While an executable of one binding is held, each length binds and
  // loads the bundle (runBundle) and finds the shared object open.
  std::uint64_t opened = runtime.librariesOpenedForTesting();
  device::DeviceResult<device::Executable> held = runtime.load(*at7);
  ASSERT_TRUE(held.ok()) << held.error().message;
  checkAt(bundle, 1, 7);
  checkAt(bundle, 1, 77);
  checkAt(bundle, 2, 5);
  EXPECT_EQ(runtime.librariesOpenedForTesting() - opened, 1u);
}

/// Without fusion, each op a kernel of its own: intermediates in the arena,
/// broadcasts and reductions alone.
CompileOptions unfused() {
  CompileOptions options;
  options.enableFusion = false;
  return options;
}

// A second binding takes the first one's loaded code (DeviceRuntime::
// rebind): no library is opened, and what depends on the sizes is the new
// binding's. Code that is not the same is loaded as load does.
TEST_F(HostSymbolicDims, RebindSharesTheLoadedCode) {
  Bundle bundle = compileOnce(kLayerNormSoftmax, unfused());
  ASSERT_FALSE(HasFailure());
  Expected<Bundle> at7 = bindBundle(bundle, {{"batch", 1}, {"sequence", 7}});
  Expected<Bundle> at77 = bindBundle(bundle, {{"batch", 2}, {"sequence", 77}});
  ASSERT_TRUE(at7.ok()) << at7.message();
  ASSERT_TRUE(at77.ok()) << at77.message();
  device::DeviceResult<device::Executable> held = runtime.load(*at7);
  ASSERT_TRUE(held.ok()) << held.error().message;
  std::uint64_t opened = runtime.librariesOpenedForTesting();
  device::DeviceResult<device::Executable> rebound =
      runtime.rebind(*held, *at77);
  ASSERT_TRUE(rebound.ok()) << rebound.error().message;
  EXPECT_EQ(runtime.librariesOpenedForTesting(), opened);
  // It runs the second binding as a fresh load of it does, and its
  // bindings are the second binding's: the first's buffers are too small.
  std::vector<device::TensorBytes> inputs, smaller;
  for (TensorId input : at77->graph.inputs) {
    HostTensorData value = randomTensor(at77->graph.typeOf(input), Domain{});
    const auto *p = reinterpret_cast<const std::byte *>(value.bytes.data());
    inputs.emplace_back(p, p + value.bytes.size());
  }
  for (TensorId input : at7->graph.inputs)
    smaller.push_back(
        device::TensorBytes(std::size_t(at7->graph.typeOf(input).byteSize())));
  device::Stream stream = *runtime.createStream();
  auto viaRebind = device::runBundle(runtime, *at77, *rebound, stream, inputs);
  ASSERT_TRUE(viaRebind.ok()) << viaRebind.error().message;
  auto viaLoad = device::runBundle(runtime, *at77, inputs);
  ASSERT_TRUE(viaLoad.ok()) << viaLoad.error().message;
  EXPECT_EQ(*viaRebind, *viaLoad);
  EXPECT_FALSE(
      device::runBundle(runtime, *at7, *rebound, stream, smaller).ok());
  EXPECT_TRUE(device::runBundle(runtime, *at7, *held, stream, smaller).ok());

  // Payloads that are not the loaded ones (equal bytes, copied): loaded as
  // load does, which finds the library open by its bytes.
  Bundle other = *at77;
  for (BundleKernel &kernel : other.kernels)
    kernel.payload = other.kernels[0].payload.bytes();
  device::DeviceResult<device::Executable> reloaded =
      runtime.rebind(*held, other);
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  EXPECT_EQ(runtime.librariesOpenedForTesting(), opened);
  auto viaReload = device::runBundle(runtime, other, *reloaded, stream, inputs);
  ASSERT_TRUE(viaReload.ok()) << viaReload.error().message;
  EXPECT_EQ(*viaReload, *viaLoad);
  // A symbolic bundle is refused as load refuses it.
  EXPECT_FALSE(runtime.rebind(*held, bundle).ok());
}

TEST_F(HostSymbolicDims, UnfusedOpsRunAtEveryLength) {
  Bundle bundle = compileOnce(kLayerNormSoftmax, unfused());
  ASSERT_FALSE(HasFailure());
  EXPECT_GT(bundle.kernels.size(), 10u);
  EXPECT_FALSE(bundle.memoryPlan.symbolicSlices.empty());
  checkAllLengths(bundle);
}

TEST_F(HostSymbolicDims, SerializationRoundTripsTheSymbolicFields) {
  Bundle bundle = compileOnce(kLayerNormSoftmax, unfused());
  ASSERT_FALSE(HasFailure());
  Expected<Bundle> read = deserializeBundle(serializeBundle(bundle));
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(*read, bundle);
  EXPECT_TRUE(read->isSymbolic());
  EXPECT_FALSE(read->memoryPlan.symbolicSlices.empty());
  checkAt(*read, 2, 7);
}

TEST_F(HostSymbolicDims, VerifyBundleChecksTheSymbolicFields) {
  Bundle bundle = compileOnce(kLayerNormSoftmax, unfused());
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(verifyBundle(bundle).ok());
  Bundle badCount = bundle;
  for (BundleKernel &kernel : badCount.kernels)
    if (kernel.symbolicIterations)
      kernel.symbolicIterations = DimExpr::symbol("length");
  Status status = verifyBundle(badCount);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not a count over the graph's dims"),
            std::string::npos)
      << status.message();
  Bundle badSlices = bundle;
  ASSERT_FALSE(badSlices.memoryPlan.symbolicSlices.empty());
  badSlices.memoryPlan.symbolicSlices.pop_back();
  EXPECT_FALSE(verifyBundle(badSlices).ok());
  // A runtime loads only bound bundles.
  device::DeviceResult<device::Executable> loaded = runtime.load(bundle);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("bind them first"), std::string::npos);
}

TEST_F(HostSymbolicDims, InputsThatDisagreeAboutADimAreRefused) {
  Bundle bundle = compileOnce(kPointwise);
  ASSERT_FALSE(HasFailure());
  std::vector<std::vector<std::int64_t>> shapes = {{1, 7, 64}, {64}};
  Expected<DimBindings> dims = dimsFromInputShapes(bundle.graph, shapes);
  ASSERT_TRUE(dims.ok()) << dims.message();
  EXPECT_EQ(dims->at("sequence"), 7);
  shapes = {{1, 7, 64}, {65}};
  dims = dimsFromInputShapes(bundle.graph, shapes);
  ASSERT_FALSE(dims.ok());
  EXPECT_NE(dims.message().find("the model fixes it to 64"), std::string::npos)
      << dims.message();
  shapes = {{1, -3, 64}, {64}};
  dims = dimsFromInputShapes(bundle.graph, shapes);
  ASSERT_FALSE(dims.ok());
  EXPECT_NE(dims.message().find("not a possible size"), std::string::npos)
      << dims.message();
  // Two inputs that each name `sequence` disagree.
  Expected<Compilation> two = compiler.compileSource(
      source("func.func @two(%x: $T, %y: $T) -> $T {\n"
             "  %s = fuse.add %x, %y : $T\n  return %s : $T\n}\n"),
      target, CompileOptions{});
  ASSERT_TRUE(two.ok()) << two.message();
  shapes = {{1, 7, 64}, {1, 8, 64}};
  std::vector<TensorBytes> bytes(2, TensorBytes(7 * 64 * 4));
  bytes[1].resize(8 * 64 * 4);
  device::DeviceResult<std::vector<TensorBytes>> run =
      device::runBundle(runtime, two->bundle, bytes, shapes);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("disagree about dim 'sequence'"),
            std::string::npos)
      << run.error().message;
}

/// The matmul kernel of `bundle` (the one that is not a pack kernel).
const BundleKernel *matmulKernel(const Bundle &bundle) {
  for (const BundleKernel &kernel : bundle.kernels)
    if (kernel.schedule == ScheduleKind::Matmul && !kernel.perBinding)
      return &kernel;
  return nullptr;
}

TEST_F(HostSymbolicDims, AMatmulOnSymbolicRowsRunsAtEveryLength) {
  Bundle bundle = compileOnce(kMatmul);
  ASSERT_FALSE(HasFailure());
  const BundleKernel *matmul = matmulKernel(bundle);
  ASSERT_TRUE(matmul);
  ASSERT_TRUE(matmul->symbolicIterations);
  // A row of C (all batches) an iteration, whole row blocks a grain.
  EXPECT_EQ(matmul->symbolicIterations->toString(), "batch*sequence");
  EXPECT_EQ(matmul->launch.grain % 6, 0);
  checkAllLengths(bundle);
}

/// A transformer's linear layer: a token batch (batch x sequence rows) times
/// a weight, plus a bias, then GELU (erf), all in the matmul's epilogue.
const char *kLinearGelu = R"(
func.func @linear(%x: tensor<?x?x256xf32, #fuse.dims<batch, sequence>>,
                  %w: tensor<256x1024xf32>, %bias: tensor<1024xf32>)
    -> tensor<?x?x1024xf32, #fuse.dims<batch, sequence>> {
  %m = fuse.matmul %x, %w : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>, tensor<256x1024xf32> -> $Y
  %bb = fuse.broadcast %bias, dims = [2] : tensor<1024xf32> -> $Y
  %h = fuse.add %m, %bb : $Y
  %half = fuse.constant dense<0.5> : tensor<f32>
  %hb = fuse.broadcast %half, dims = [] : tensor<f32> -> $Y
  %r = fuse.constant dense<0.707106769> : tensor<f32>
  %rb = fuse.broadcast %r, dims = [] : tensor<f32> -> $Y
  %one = fuse.constant dense<1.0> : tensor<f32>
  %ob = fuse.broadcast %one, dims = [] : tensor<f32> -> $Y
  %s = fuse.mul %h, %rb : $Y
  %e = fuse.erf %s : $Y
  %e1 = fuse.add %e, %ob : $Y
  %hh = fuse.mul %h, %hb : $Y
  %g = fuse.mul %hh, %e1 : $Y
  return %g : $Y
}
)";

std::string linearGelu() {
  return withPlaceholders(
      kLinearGelu,
      {{"$Y", "tensor<?x?x1024xf32, #fuse.dims<batch, sequence>>"}});
}

TEST_F(HostSymbolicDims, ALinearLayerWithBiasAndGeluRunsFromOneBundle) {
  Expected<Compilation> compiled =
      compiler.compileSource(linearGelu(), target, CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  ASSERT_TRUE(bundle.isSymbolic());
  // One fusion: the weight's pack kernel (once per binding) and the matmul
  // with its epilogue, whose iterations are the rows times the parts of a
  // row that the threads share (N = 1024: several).
  ASSERT_EQ(bundle.kernels.size(), 2u);
  EXPECT_TRUE(bundle.kernels[0].perBinding);
  EXPECT_FALSE(bundle.kernels[0].symbolicIterations);
  const BundleKernel *matmul = matmulKernel(bundle);
  ASSERT_TRUE(matmul);
  ASSERT_TRUE(matmul->symbolicIterations);
  const std::string formula = matmul->symbolicIterations->toString();
  ASSERT_TRUE(formula.starts_with("batch*sequence*")) << formula;
  const std::int64_t parts = std::stoll(formula.substr(15));
  EXPECT_GE(parts, 2);
  for (std::int64_t sequence : {1, 7, 64, 77, 128, 384}) {
    Expected<Bundle> at =
        bindBundle(bundle, {{"batch", 1}, {"sequence", sequence}});
    ASSERT_TRUE(at.ok()) << at.message();
    // The same code, iterations the rows' parts.
    EXPECT_EQ(at->kernels[1].payload, bundle.kernels[1].payload);
    EXPECT_EQ(at->kernels[1].launch.iterations, sequence * parts);
    checkAt(bundle, 1, sequence);
    ASSERT_FALSE(HasFatalFailure());
  }
  checkAt(bundle, 3, 77);
  checkAt(bundle, 2, 1);
  checkAt(bundle, 5, 13);
}

/// relu(x @ w) with x a tensor<?{tokens}x48xf32> (rank 2: M itself
/// symbolic) and w a 48 x `n` weight.
std::string tokensMatmul(int n) {
  std::string w = "tensor<48x" + std::to_string(n) + "xf32>";
  std::string c = "tensor<?x" + std::to_string(n) + "xf32, #fuse.dims<tokens>>";
  return "func.func @m(%x: tensor<?x48xf32, #fuse.dims<tokens>>, %w: " + w +
         ") -> " + c +
         " {\n  %m = fuse.matmul %x, %w : tensor<?x48xf32, "
         "#fuse.dims<tokens>>, " +
         w + " -> " + c +
         "\n  %z = fuse.constant dense<0.0> : tensor<f32>\n"
         "  %zb = fuse.broadcast %z, dims = [] : tensor<f32> -> " +
         c + "\n  %r = fuse.max %m, %zb : " + c + "\n  return %r : " + c +
         "\n}\n";
}

TEST_F(HostSymbolicDims, AMatmulOnOneSymbolicDimOfRowsRunsAtEveryLength) {
  // N = 37: a strip of vectors whose last has a few valid lanes (on AVX2 and
  // AVX-512), B packed; N = 5: less than a vector, B read in place.
  for (int n : {37, 5}) {
    SCOPED_TRACE("N " + std::to_string(n));
    Expected<Compilation> compiled =
        compiler.compileSource(tokensMatmul(n), target, CompileOptions{});
    ASSERT_TRUE(compiled.ok()) << compiled.message();
    const BundleKernel *matmul = matmulKernel(compiled->bundle);
    ASSERT_TRUE(matmul);
    ASSERT_TRUE(matmul->symbolicIterations);
    EXPECT_EQ(matmul->symbolicIterations->toString(), "tokens");
    EXPECT_EQ(compiled->bundle.kernels.size(), n == 5 ? 1u : 2u);
    for (std::int64_t tokens : {1, 5, 6, 7, 77, 128})
      checkAt(compiled->bundle, DimBindings{{"tokens", tokens}});
  }
}

/// A column mean over 600 rows (enough for bands of rows at fixed shapes)
/// and a column max over 20, each of a symbolic batch: mean pooling over a
/// sequence.
const char *kColumnMeans = R"(
func.func @pool(%x: tensor<?x600x40xf32, #fuse.dims<batch>>,
                %y: tensor<?x20x40xf32, #fuse.dims<batch>>)
    -> (tensor<?x40xf32, #fuse.dims<batch>>, tensor<?x40xf32, #fuse.dims<batch>>) {
  %m = fuse.reduce mean %x dims = [1] : tensor<?x600x40xf32, #fuse.dims<batch>> -> tensor<?x40xf32, #fuse.dims<batch>>
  %n = fuse.reduce max %y dims = [1] : tensor<?x20x40xf32, #fuse.dims<batch>> -> tensor<?x40xf32, #fuse.dims<batch>>
  return %m, %n : tensor<?x40xf32, #fuse.dims<batch>>, tensor<?x40xf32, #fuse.dims<batch>>
}
)";

// A column reduction whose outer dim is symbolic runs from one bundle: its
// kernel is not split into bands of rows (the bands' partial rows would be
// placed by the outer size, which the code would then depend on).
TEST_F(HostSymbolicDims, ColumnReductionsOverASymbolicBatchRunAtEveryBatch) {
  Expected<Compilation> compiled =
      compiler.compileSource(kColumnMeans, target, CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  ASSERT_TRUE(compiled->bundle.isSymbolic());
  for (const BundleKernel &kernel : compiled->bundle.kernels) {
    EXPECT_EQ(kernel.schedule, ScheduleKind::ColumnReduction);
    ASSERT_TRUE(kernel.symbolicIterations) << kernel.entry;
  }
  for (std::int64_t batch : {1, 2, 5})
    checkAt(compiled->bundle, DimBindings{{"batch", batch}});
}

/// Two linear layers on one input: a horizontal fusion of two matmuls
/// (with their packs).
const char *kTwoLinear = R"(
func.func @two(%x: $T, %w1: tensor<64x96xf32>, %b1: tensor<96xf32>,
               %w2: tensor<64x32xf32>)
    -> (tensor<?x?x96xf32, #fuse.dims<batch, sequence>>,
        tensor<?x?x32xf32, #fuse.dims<batch, sequence>>) {
  %m1 = fuse.matmul %x, %w1 : $T, tensor<64x96xf32> -> tensor<?x?x96xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %b1, dims = [2] : tensor<96xf32> -> tensor<?x?x96xf32, #fuse.dims<batch, sequence>>
  %y1 = fuse.add %m1, %bb : tensor<?x?x96xf32, #fuse.dims<batch, sequence>>
  %m2 = fuse.matmul %x, %w2 : $T, tensor<64x32xf32> -> tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  %y2 = fuse.tanh %m2 : tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  return %y1, %y2 : tensor<?x?x96xf32, #fuse.dims<batch, sequence>>,
                    tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
}
)";

TEST_F(HostSymbolicDims, AHorizontalFusionOfMatmulsRunsAtEveryLength) {
  Bundle bundle = compileOnce(kTwoLinear);
  ASSERT_FALSE(HasFailure());
  // With runtime dims each member's pack is a launch of its own (a
  // constant count, once per binding), and both matmuls over rows are one
  // launch, laid end to end at offsets read from the dims array.
  ASSERT_EQ(bundle.kernels.size(), 3u);
  int rows = 0;
  for (const BundleKernel &kernel : bundle.kernels) {
    EXPECT_EQ(kernel.schedule, ScheduleKind::Horizontal);
    if (kernel.symbolicIterations) {
      EXPECT_EQ(kernel.symbolicIterations->toString(), "batch*sequence*2");
      ++rows;
    } else {
      EXPECT_TRUE(kernel.perBinding);
    }
  }
  EXPECT_EQ(rows, 1);
  checkAllLengths(bundle);
}

/// A transformer's Q, K and V projections with the head split in their
/// epilogues: C[b, s, h*d] stored to [b, h, s, d] (K to [b, h, d, s]), a
/// store stride over s that is S * D (K's lanes S apart). V has 3 heads of
/// 12 (a head narrower than a vector). One horizontal fusion of three
/// matmuls whose epilogues read S from the dims array.
const char *kHeadSplit = R"(
func.func @qkv(%x: $T, %wq: tensor<64x64xf32>, %bq: tensor<64xf32>,
               %wk: tensor<64x64xf32>, %bk: tensor<64xf32>,
               %wv: tensor<64x36xf32>)
    -> (tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>,
        tensor<?x4x16x?xf32, #fuse.dims<batch, sequence>>,
        tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>) {
  %q = fuse.matmul %x, %wq : $T, tensor<64x64xf32> -> $T
  %bqb = fuse.broadcast %bq, dims = [2] : tensor<64xf32> -> $T
  %qa = fuse.add %q, %bqb : $T
  %qr = fuse.reshape %qa : $T -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %qt = fuse.transpose %qr, permutation = [0, 2, 1, 3] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>
  %k = fuse.matmul %x, %wk : $T, tensor<64x64xf32> -> $T
  %bkb = fuse.broadcast %bk, dims = [2] : tensor<64xf32> -> $T
  %ka = fuse.add %k, %bkb : $T
  %kr = fuse.reshape %ka : $T -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %kt = fuse.transpose %kr, permutation = [0, 2, 3, 1] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x16x?xf32, #fuse.dims<batch, sequence>>
  %v = fuse.matmul %x, %wv : $T, tensor<64x36xf32> -> tensor<?x?x36xf32, #fuse.dims<batch, sequence>>
  %vr = fuse.reshape %v : tensor<?x?x36xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x3x12xf32, #fuse.dims<batch, sequence>>
  %vt = fuse.transpose %vr, permutation = [0, 2, 1, 3] : tensor<?x?x3x12xf32, #fuse.dims<batch, sequence>> -> tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>
  return %qt, %kt, %vt : tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>,
                         tensor<?x4x16x?xf32, #fuse.dims<batch, sequence>>,
                         tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>
}
)";

TEST_F(HostSymbolicDims, AHeadSplitInALinearLayersEpilogueRunsFromOneBundle) {
  Bundle bundle = compileOnce(kHeadSplit);
  ASSERT_FALSE(HasFailure());
  // The three matmuls over rows are one launch.
  int rows = 0;
  for (const BundleKernel &kernel : bundle.kernels)
    if (kernel.symbolicIterations) {
      EXPECT_EQ(kernel.symbolicIterations->toString(), "batch*sequence*3");
      ++rows;
    }
  EXPECT_EQ(rows, 1);
  for (std::int64_t sequence : {1, 7, 64, 77, 128}) {
    Expected<Bundle> at =
        bindBundle(bundle, {{"batch", 2}, {"sequence", sequence}});
    ASSERT_TRUE(at.ok()) << at.message();
    // The same code at every length.
    for (size_t k = 0; k < bundle.kernels.size(); ++k)
      EXPECT_EQ(at->kernels[k].payload, bundle.kernels[k].payload);
    checkAt(bundle, 2, sequence);
    ASSERT_FALSE(HasFatalFailure());
  }
  checkAt(bundle, 1, 13);
}

/// Attention's output projection: the heads [b, h, s, d] merged back to
/// [b, s, h * d] (a transpose and a reshape on A, which the matmul reads
/// through quotients by the runtime sequence) plus the residual. Heads of
/// 16 (K 64) and of 12 (K 36, a head narrower than a vector).
const char *kHeadMerge = R"(
func.func @merge(%a: tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>,
                 %w: tensor<64x64xf32>, %r: $T,
                 %a3: tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>,
                 %w3: tensor<36x64xf32>) -> ($T, $T) {
  %t = fuse.transpose %a, permutation = [0, 2, 1, 3] : tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %m = fuse.reshape %t : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> $T
  %c = fuse.matmul %m, %w : $T, tensor<64x64xf32> -> $T
  %o = fuse.add %c, %r : $T
  %t3 = fuse.transpose %a3, permutation = [0, 2, 1, 3] : tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x3x12xf32, #fuse.dims<batch, sequence>>
  %m3 = fuse.reshape %t3 : tensor<?x?x3x12xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x36xf32, #fuse.dims<batch, sequence>>
  %c3 = fuse.matmul %m3, %w3 : tensor<?x?x36xf32, #fuse.dims<batch, sequence>>, tensor<36x64xf32> -> $T
  %o3 = fuse.tanh %c3 : $T
  return %o, %o3 : $T, $T
}
)";

TEST_F(HostSymbolicDims, AHeadMergeOnALinearLayersInputRunsFromOneBundle) {
  Bundle bundle = compileOnce(kHeadMerge);
  ASSERT_FALSE(HasFailure());
  for (std::int64_t sequence : {1, 2, 7, 64, 77, 128}) {
    Expected<Bundle> at =
        bindBundle(bundle, {{"batch", 3}, {"sequence", sequence}});
    ASSERT_TRUE(at.ok()) << at.message();
    for (size_t k = 0; k < bundle.kernels.size(); ++k)
      EXPECT_EQ(at->kernels[k].payload, bundle.kernels[k].payload);
    checkAt(bundle, 3, sequence);
    ASSERT_FALSE(HasFatalFailure());
  }
  checkAt(bundle, 1, 13);
}

/// A transpose of [b, s, 3] to [b, 3, s]: every coordinate a quotient or a
/// remainder by a runtime size (3 * S, S), which kernels take as a multiply
/// and a shift (AffineIndexMap.h, runtimeDivisor).
const char *kTransposeRows = R"(
func.func @transpose(%x: tensor<?x?x3xf32, #fuse.dims<batch, sequence>>)
    -> tensor<?x3x?xf32, #fuse.dims<batch, sequence>> {
  %t = fuse.transpose %x, permutation = [0, 2, 1] : tensor<?x?x3xf32, #fuse.dims<batch, sequence>> -> tensor<?x3x?xf32, #fuse.dims<batch, sequence>>
  %y = fuse.tanh %t : tensor<?x3x?xf32, #fuse.dims<batch, sequence>>
  return %y : tensor<?x3x?xf32, #fuse.dims<batch, sequence>>
}
)";

TEST_F(HostSymbolicDims, QuotientsByRuntimeSizesAreExactAtLargePositions) {
  Bundle bundle = compileOnce(kTransposeRows);
  ASSERT_FALSE(HasFailure());
  EXPECT_TRUE(std::any_of(
      bundle.kernels.begin(), bundle.kernels.end(),
      [](const BundleKernel &k) { return !k.runtimeDims.empty(); }));
  // Divisors of one, powers of two and their neighbours, and a million
  // and more: positions past 2^22 (a shift too short for them, as in a
  // 16-bit scheme, would misplace them).
  for (std::int64_t sequence :
       {1, 2, 3, 63, 64, 65, 127, 128, 129, 4095, 4096, 1000003, 1048577}) {
    checkAt(bundle, 2, sequence);
    ASSERT_FALSE(HasFatalFailure());
  }
}

TEST_F(HostSymbolicDims, DimsThatMakeATensorOf2To31ElementsAreRefused) {
  Bundle bundle = compileOnce(kTransposeRows);
  ASSERT_FALSE(HasFailure());
  // 2^16 x 2^14 x 3 floats, past 2^31: the kernels' quotients by runtime
  // sizes are exact only below (KernelAbi.h, "Runtime dims").
  Expected<Bundle> tooLarge =
      bindBundle(bundle, {{"batch", 1 << 16}, {"sequence", 1 << 14}});
  ASSERT_FALSE(tooLarge.ok());
  EXPECT_NE(tooLarge.message().find("elements; kernels that read the dims"),
            std::string::npos)
      << tooLarge.message();
  Expected<Bundle> fits =
      bindBundle(bundle, {{"batch", 1 << 14}, {"sequence", 1 << 14}});
  EXPECT_TRUE(fits.ok()) << fits.message();
}

TEST_F(HostSymbolicDims, AMatmulOnASymbolicColumnDimIsRefusedNamingTheDim) {
  // Attention's scores, q @ k^T: N is the sequence, which the code's
  // strips depend on; B is batched. Only the rows may be symbolic.
  Expected<Compilation> compiled = compiler.compileSource(
      source("func.func @scores(%q: $T, %k: $T) -> "
             "tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>> {\n"
             "  %s = fuse.matmul %q, %k transpose_b : $T, $T -> "
             "tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>>\n"
             "  return %s : "
             "tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>>\n}\n"),
      target, CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("needs a static value of dim"),
            std::string::npos)
      << compiled.message();
  EXPECT_NE(compiled.message().find("'sequence'"), std::string::npos)
      << compiled.message();
  // Bound first, the same module compiles.
  Expected<Compilation> bound = compiler.compileSource(
      "func.func @scores(%q: tensor<1x7x64xf32>, %k: tensor<1x7x64xf32>) -> "
      "tensor<1x7x7xf32> {\n  %s = fuse.matmul %q, %k transpose_b : "
      "tensor<1x7x64xf32>, tensor<1x7x64xf32> -> tensor<1x7x7xf32>\n"
      "  return %s : tensor<1x7x7xf32>\n}\n",
      target, CompileOptions{});
  EXPECT_TRUE(bound.ok()) << bound.message();
}

/// `text` with "$S" square scores over (batch, sequence, sequence), "$I"
/// and "$B" their i64 and i1 twins, "$Q" their row-reduced type; "$K",
/// "$J" and "$C" scores of 64 keys over (batch, sequence) and twins.
std::string squareSource(const std::string &text) {
  const std::string dims = "#fuse.dims<batch, sequence, sequence>>";
  return withPlaceholders(
      text, {{"$S", "tensor<?x?x?xf32, " + dims},
             {"$I", "tensor<?x?x?xi64, " + dims},
             {"$B", "tensor<?x?x?xi1, " + dims},
             {"$Q", "tensor<?x?x1xf32, #fuse.dims<batch, sequence>>"},
             {"$K", "tensor<?x?x64xf32, #fuse.dims<batch, sequence>>"},
             {"$J", "tensor<?x?x64xi64, #fuse.dims<batch, sequence>>"},
             {"$C", "tensor<?x?x64xi1, #fuse.dims<batch, sequence>>"}});
}

// A causal mask as GPT-2's and Llama's dynamic exports build it: the
// positions (Range over the sequence: iotas) compared, the scores above the
// diagonal replaced, then a softmax over each row. The rows here are 64
// keys (a row kernel takes its row length static yet), the query positions
// an iota over the symbolic sequence.
const char *kCausalMask = R"(
func.func @mask(%x: $K) -> $K {
  %r = fuse.iota axis = 1 : $J
  %c = fuse.iota axis = 2 : $J
  %keep = fuse.compare ge, %r, %c : $J
  %neg = fuse.constant dense<-1.0e9> : tensor<1xf32>
  %negb = fuse.broadcast %neg, dims = [2] : tensor<1xf32> -> $K
  %m = fuse.select %keep, %x, %negb : $C, $K
  %mx = fuse.reduce max %m dims = [2] keep_dims : $K -> $Q
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2] : $Q -> $K
  %sh = fuse.sub %m, %mxb : $K
  %e = fuse.exp %sh : $K
  %sm = fuse.reduce sum %e dims = [2] keep_dims : $K -> $Q
  %smb = fuse.broadcast %sm, dims = [0, 1, 2] : $Q -> $K
  %p = fuse.div %e, %smb : $K
  return %p : $K
}
)";

// The mask over square scores, each row over the symbolic sequence of keys:
// its iotas run from the dims array, its softmax's row kernel (a symbolic
// row length) does not yet.
const char *kSquareMask = R"(
func.func @mask(%x: $S) -> $S {
  %r = fuse.iota axis = 1 : $I
  %c = fuse.iota axis = 2 : $I
  %keep = fuse.compare ge, %r, %c : $I
  %neg = fuse.constant dense<-1.0e9> : tensor<1xf32>
  %negb = fuse.broadcast %neg, dims = [2] : tensor<1xf32> -> $S
  %m = fuse.select %keep, %x, %negb : $B, $S
  %mx = fuse.reduce max %m dims = [2] keep_dims : $S -> $Q
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2] : $Q -> $S
  %sh = fuse.sub %m, %mxb : $S
  %e = fuse.exp %sh : $S
  %sm = fuse.reduce sum %e dims = [2] keep_dims : $S -> $Q
  %smb = fuse.broadcast %sm, dims = [0, 1, 2] : $Q -> $S
  %p = fuse.div %e, %smb : $S
  return %p : $S
}
)";

// A dim's value and the positions as data: x + row * sequence, the row an
// iota of f32 and the sequence a dim_value (products exact in f32).
const char *kDimValue = R"(
func.func @ramp(%x: $S) -> $S {
  %r = fuse.iota axis = 1 : $S
  %n = fuse.dim_value {dim = #fuse.dims<sequence>} : tensor<1xf32>
  %nb = fuse.broadcast %n, dims = [2] : tensor<1xf32> -> $S
  %q = fuse.mul %r, %nb : $S
  %y = fuse.add %x, %q : $S
  return %y : $S
}
)";

// A bias over square scores spread over 4 heads, as T5's relative position
// bias is: an output of batch x 4 x sequence^2 floats, 16 MB at the first
// representative values of the dims and 39 MB at the second, past the
// streaming stores' threshold there: a pointwise kernel's code must not
// depend on the output's size (it did, and T5's dynamic export fell back to
// a bound compile).
const char *kHeadsBias = R"(
func.func @bias(%x: $S) -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  %b = fuse.broadcast %x, dims = [0, 2, 3] : $S -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %t = fuse.tanh %b : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  return %t : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
}
)";

/// Whether some kernel of `bundle` reads its dims array.
bool readsDims(const Bundle &bundle) {
  for (const BundleKernel &kernel : bundle.kernels)
    if (!kernel.runtimeDims.empty())
      return true;
  return false;
}

TEST_F(HostSymbolicDims, ACausalMaskFromIotasRunsFromOneBundle) {
  Bundle bundle = compileOnce(squareSource(kCausalMask));
  ASSERT_FALSE(HasFailure());
  EXPECT_TRUE(readsDims(bundle));
  checkAllLengths(bundle, {{3, 5}});
}

TEST_F(HostSymbolicDims, ASoftmaxOverSymbolicKeysIsRefusedNamingTheRowKernel) {
  Expected<Compilation> compiled =
      compiler.compileSource(squareSource(kSquareMask), target, {});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("the row_reduction fusion"),
            std::string::npos)
      << compiled.message();
  EXPECT_EQ(compiled.message().find("as data"), std::string::npos)
      << compiled.message();
}

TEST_F(HostSymbolicDims, ADimValueAndAnIotaAsDataRunFromOneBundle) {
  Bundle bundle = compileOnce(squareSource(kDimValue));
  ASSERT_FALSE(HasFailure());
  EXPECT_TRUE(readsDims(bundle));
  checkAllLengths(bundle, {{2, 9}});
}

// rebindBundle (a decoder's step reuses the binding it drops) writes again
// only what the values decide: the kernels' iteration counts and dims
// arrays, the arena, the shapes and dim_value's attribute must come out as
// a fresh binding's.
TEST_F(HostSymbolicDims, ABindingRewrittenForOtherDimsEqualsAFreshOne) {
  Expected<Compilation> linear =
      compiler.compileSource(linearGelu(), target, CompileOptions{});
  ASSERT_TRUE(linear.ok()) << linear.message();
  Bundle dimValue = compileOnce(squareSource(kDimValue));
  ASSERT_FALSE(HasFailure());
  for (const Bundle *symbolic : {&linear->bundle, &dimValue}) {
    ASSERT_TRUE(symbolic->isSymbolic());
    BindingPlan plan(std::make_shared<const Bundle>(*symbolic));
    Expected<Bundle> first = bindBundle(plan, {{"batch", 1}, {"sequence", 5}});
    ASSERT_TRUE(first.ok()) << first.message();
    Bundle reused = first.take();
    for (auto [batch, sequence] : std::vector<std::pair<int, int>>{
             {1, 6}, {1, 77}, {3, 2}, {2, 128}, {1, 1}, {1, 5}}) {
      DimBindings values{{"batch", batch}, {"sequence", sequence}};
      SCOPED_TRACE(dimBindingsText(values));
      Status rewritten = rebindBundle(plan, values, reused);
      ASSERT_TRUE(rewritten.ok()) << rewritten.message();
      Expected<Bundle> fresh = bindBundle(*symbolic, values);
      ASSERT_TRUE(fresh.ok()) << fresh.message();
      EXPECT_TRUE(reused == *fresh);
      EXPECT_TRUE(verifyBundle(reused).ok());
    }
  }
}

TEST_F(HostSymbolicDims, ALargePointwiseOutputRunsFromOneBundle) {
  Expected<Compilation> compiled =
      compiler.compileSource(squareSource(kHeadsBias), target, {});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  ASSERT_TRUE(compiled->bundle.isSymbolic());
  for (std::int64_t sequence : {1, 7, 77}) {
    checkAt(compiled->bundle, 2, sequence);
    ASSERT_FALSE(HasFatalFailure());
  }
}

} // namespace
} // namespace fuse
