// GPU code generation without a GPU: the structure of the bundles that
// GpuCompiler makes for sm_80 and sm_90 (kernels, entries, launch
// configurations, bindings, memory plan, PTX payloads) and its errors.
// Numerics run where a CUDA runtime is present, not here.

#include "compiler/gpu/GpuCompiler.h"
#include "runtime/cache/SymbolicBundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace fuse {
namespace {

std::string payloadText(const BundleKernel &kernel) {
  return std::string(kernel.payload.begin(), kernel.payload.end());
}

class GpuCodegen : public ::testing::TestWithParam<std::string> {
protected:
  static GpuCompiler &compiler() {
    static GpuCompiler instance;
    return instance;
  }
  Target target() const { return Target{GetParam()}; }
  /// libdevice is needed for exp and friends.
  void requireToolkit() {
    if (compiler().toolkitPath().empty())
      GTEST_SKIP() << "no CUDA toolkit (libdevice) found";
  }
};

TEST_P(GpuCodegen, PointwiseWithBroadcastBias) {
  requireToolkit();
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {4, 1000}}, "x");
  TensorId bias = b.input({ElementType::F32, {1000}}, "bias");
  TensorId y = b.add(x, b.broadcast(bias, {4, 1000}, {1}));
  b.output(b.mul(y, b.tanh(y)), "y");
  CompileDumps dumps;
  Expected<Compilation> compiled =
      compiler().compile(*b.finish(), target(), CompileOptions{}, &dumps);
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  EXPECT_EQ(bundle.target, GetParam());
  ASSERT_EQ(bundle.kernels.size(), 1u);
  const BundleKernel &kernel = bundle.kernels[0];
  EXPECT_EQ(kernel.payloadKind, PayloadKind::PtxText);
  EXPECT_EQ(kernel.schedule, ScheduleKind::Pointwise);
  EXPECT_EQ(kernel.entry, "fuse_k0_pointwise");
  // 4000 elements, 4 per step, 256 threads per block.
  EXPECT_EQ(kernel.launch.blockX, 256u);
  EXPECT_EQ(kernel.launch.gridX, 4u);
  EXPECT_EQ(kernel.launch.sharedMemoryBytes, 0u);
  ASSERT_EQ(kernel.bindings.size(), 3u);
  // The inputs in the fusion's order, then the output.
  EXPECT_EQ(kernel.bindings[0].kind, BindingKind::GraphInput);
  EXPECT_EQ(kernel.bindings[1].kind, BindingKind::GraphInput);
  EXPECT_EQ(kernel.bindings[0].index + kernel.bindings[1].index, 1u);
  EXPECT_EQ(kernel.bindings[2], (KernelBinding{BindingKind::GraphOutput, 0}));
  EXPECT_EQ(bundle.memoryPlan.peakBytes, 0u);
  std::string ptx = payloadText(kernel);
  EXPECT_NE(ptx.find(".entry fuse_k0_pointwise"), std::string::npos);
  EXPECT_NE(ptx.find(".target " + GetParam()), std::string::npos);
  EXPECT_NE(ptx.find("ld.global.nc.v4"), std::string::npos);
  EXPECT_NE(ptx.find("st.global.v4"), std::string::npos);
  EXPECT_EQ(ptx.find(".extern"), std::string::npos);
  ASSERT_EQ(dumps.artifacts.size(), 1u);
  EXPECT_EQ(dumps.artifacts[0].ptx, ptx);
}

TEST_P(GpuCodegen, FullReductionIsTwoKernelsThroughScratch) {
  requireToolkit();
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {100000}}, "x");
  b.output(b.reduce(ReduceKind::Mean, b.exp(x), {0}), "mean_exp");
  Expected<Compilation> compiled =
      compiler().compile(*b.finish(), target(), CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  ASSERT_EQ(bundle.kernels.size(), 2u);
  const BundleKernel &partials = bundle.kernels[0];
  const BundleKernel &finish = bundle.kernels[1];
  EXPECT_EQ(partials.entry, "fuse_k0_partials");
  EXPECT_EQ(finish.entry, "fuse_k0_finish");
  EXPECT_EQ(partials.schedule, ScheduleKind::FullReduction);
  // ceil(100000 / (256 threads * 4 lanes * 4 steps)) blocks, then one.
  EXPECT_EQ(partials.launch.gridX, 25u);
  EXPECT_EQ(finish.launch.gridX, 1u);
  EXPECT_EQ(finish.launch.blockX, 256u);
  ASSERT_EQ(partials.bindings.size(), 2u);
  EXPECT_EQ(partials.bindings[1].kind, BindingKind::Intermediate);
  ASSERT_EQ(finish.bindings.size(), 3u);
  EXPECT_EQ(finish.bindings[1], (KernelBinding{BindingKind::GraphOutput, 0}));
  EXPECT_EQ(finish.bindings[2], partials.bindings[1]);
  ASSERT_EQ(bundle.memoryPlan.intermediates.size(), 1u);
  EXPECT_GE(bundle.memoryPlan.peakBytes, 25u * 8u);
  EXPECT_EQ(bundle.launchOrder, (std::vector<std::uint32_t>{0, 1}));
  for (const BundleKernel &kernel : bundle.kernels) {
    std::string ptx = payloadText(kernel);
    EXPECT_NE(ptx.find("shfl.sync.bfly"), std::string::npos) << kernel.entry;
    EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << kernel.entry;
  }
}

TEST_P(GpuCodegen, SoftmaxRowsWarpOrBlockPerRow) {
  requireToolkit();
  for (int64_t length : {7, 1000, 4097}) {
    GraphBuilder b;
    std::vector<int64_t> shape = {3, length};
    TensorId x = b.input({ElementType::F32, shape}, "x");
    TensorId m = b.reduce(ReduceKind::Max, x, {1}, true);
    TensorId e = b.exp(b.sub(x, b.broadcast(m, shape, {0, 1})));
    TensorId sum = b.reduce(ReduceKind::Sum, e, {1}, true);
    b.output(b.div(e, b.broadcast(sum, shape, {0, 1})), "softmax");
    Expected<Compilation> compiled =
        compiler().compile(*b.finish(), target(), CompileOptions{});
    ASSERT_TRUE(compiled.ok()) << compiled.message();
    const Bundle &bundle = compiled->bundle;
    ASSERT_EQ(bundle.kernels.size(), 1u) << length;
    const BundleKernel &kernel = bundle.kernels[0];
    EXPECT_EQ(kernel.schedule, ScheduleKind::RowReduction);
    // Short rows: a warp per row, 8 rows per block, shuffles alone; long
    // rows: a block of 256 per row, shuffles and shared memory.
    bool warpPerRow = length < 100;
    EXPECT_EQ(kernel.launch.gridX, warpPerRow ? 1u : 3u) << length;
    EXPECT_EQ(kernel.launch.blockX, 256u) << length;
    std::string ptx = payloadText(kernel);
    EXPECT_NE(ptx.find("shfl.sync.bfly"), std::string::npos);
    EXPECT_EQ(ptx.find("bar.sync") == std::string::npos, warpPerRow) << length;
    // Rows of 1000 start 16-byte aligned; rows of 7 and 4097 do not.
    EXPECT_EQ(ptx.find("ld.global.nc.v4") != std::string::npos, length % 4 == 0)
        << length;
  }
}

TEST_P(GpuCodegen, MatmulWithBiasEpilogue) {
  requireToolkit();
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {6, 40}}, "x");
  TensorId w = b.input({ElementType::F32, {40, 24}}, "w");
  TensorId bias = b.input({ElementType::F32, {24}}, "bias");
  TensorId y = b.add(b.matmul(x, w), b.broadcast(bias, {6, 24}, {1}));
  b.output(b.tanh(y), "y");
  Expected<Compilation> compiled =
      compiler().compile(*b.finish(), target(), CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  ASSERT_EQ(bundle.kernels.size(), 1u);
  const BundleKernel &kernel = bundle.kernels[0];
  EXPECT_EQ(kernel.schedule, ScheduleKind::Matmul);
  EXPECT_EQ(kernel.entry, "fuse_k0_matmul");
  // One 64 x 64 tile per block: (N tiles, M tiles, batch).
  EXPECT_EQ(kernel.launch.gridX, 1u);
  EXPECT_EQ(kernel.launch.gridY, 1u);
  EXPECT_EQ(kernel.launch.gridZ, 1u);
  EXPECT_EQ(kernel.launch.blockX, 256u);
  EXPECT_EQ(kernel.bindings.size(), 4u);
  std::string ptx = payloadText(kernel);
  EXPECT_NE(ptx.find("fma.rn.f32"), std::string::npos);
  EXPECT_NE(ptx.find("ld.shared.v4"), std::string::npos);
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos);
  EXPECT_EQ(ptx.find(".extern"), std::string::npos);
}

TEST_P(GpuCodegen, ColumnReductionSplitsTheRowsAmongSlices) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {300, 64}}, "x");
  b.output(b.reduce(ReduceKind::Sum, x, {0}), "column_sums");
  Expected<Compilation> compiled =
      compiler().compile(*b.finish(), target(), CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
  const BundleKernel &kernel = compiled->bundle.kernels[0];
  EXPECT_EQ(kernel.schedule, ScheduleKind::ColumnReduction);
  EXPECT_EQ(kernel.entry, "fuse_k0_columns");
  // 64 columns in groups of 4: 2 tiles of 8 groups, each a block of 32
  // slices of the 300 rows (256 threads), whose partials meet in shared
  // memory between barriers.
  EXPECT_EQ(kernel.launch.gridX, 2u);
  EXPECT_EQ(kernel.launch.blockX, 256u);
  std::string ptx = payloadText(kernel);
  EXPECT_NE(ptx.find("ld.global.nc.v4"), std::string::npos);
  EXPECT_NE(ptx.find("st.shared.v4"), std::string::npos);
  EXPECT_NE(ptx.find("ld.shared.v4"), std::string::npos);
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos);
}

TEST_P(GpuCodegen, UnsupportedKernelNamesOpAndSchedule) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {4, 8, 16}}, "x");
  b.output(b.reduce(ReduceKind::Sum, x, {0, 2}), "sums");
  Expected<Compilation> compiled =
      compiler().compile(*b.finish(), target(), CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("fuse.reduce"), std::string::npos)
      << compiled.message();
  EXPECT_NE(compiled.message().find("column_reduction kernel"),
            std::string::npos)
      << compiled.message();
}

TEST_P(GpuCodegen, IntegerMatmulIsAnError) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::I32, {4, 8}}, "x");
  TensorId w = b.input({ElementType::I32, {8, 3}}, "w");
  b.output(b.matmul(x, w), "y");
  Expected<Compilation> compiled =
      compiler().compile(*b.finish(), target(), CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("fuse.matmul"), std::string::npos)
      << compiled.message();
  EXPECT_NE(compiled.message().find("matmul kernel"), std::string::npos)
      << compiled.message();
}

/// Every schedule on awkward shapes and storage types: odd sizes, size-1,
/// zero-sized and rank-0 tensors, f16 and bf16. Each compiles, and ptxas
/// (when found) accepts every kernel.
TEST_P(GpuCodegen, AwkwardShapesAndHalfTypesCompile) {
  requireToolkit();
  std::vector<std::pair<std::string, Graph>> graphs;
  for (ElementType type : {ElementType::F16, ElementType::BF16}) {
    GraphBuilder b;
    TensorId x = b.input({type, {3, 37}}, "x");
    b.output(b.exp(x), "exp");
    b.output(b.reduce(ReduceKind::Max, x, {1}, true), "row_max");
    b.output(b.reduce(ReduceKind::Sum, x, {0}), "column_sum");
    b.output(b.reduce(ReduceKind::Mean, x, {0, 1}), "mean");
    graphs.emplace_back(std::string(elementTypeName(type)), *b.finish());
  }
  {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {5, 0}}, "empty");
    b.output(b.exp(x), "exp");
    b.output(b.reduce(ReduceKind::Sum, x, {1}), "empty_rows");
    b.output(b.reduce(ReduceKind::Sum, x, {0}), "columns_of_nothing");
    TensorId s = b.input({ElementType::F32, {}}, "scalar");
    b.output(b.tanh(s), "rank0");
    TensorId one = b.input({ElementType::F32, {1, 1}}, "one");
    b.output(b.reduce(ReduceKind::Max, one, {1}), "size1_row");
    graphs.emplace_back("empty, rank 0, size 1", *b.finish());
  }
  {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F16, {7, 33}}, "x");
    TensorId w = b.input({ElementType::F16, {33, 5}}, "w");
    b.output(b.matmul(x, w), "f16_matmul");
    graphs.emplace_back("f16 matmul", *b.finish());
  }
  for (const auto &[name, graph] : graphs) {
    Expected<Compilation> compiled =
        compiler().compile(graph, target(), CompileOptions{});
    ASSERT_TRUE(compiled.ok()) << name << ": " << compiled.message();
    EXPECT_FALSE(compiled->bundle.kernels.empty()) << name;
    for (const BundleKernel &kernel : compiled->bundle.kernels) {
      EXPECT_EQ(kernel.payloadKind, PayloadKind::PtxText) << name;
      EXPECT_GE(kernel.launch.gridX, 1u) << name << " " << kernel.entry;
      EXPECT_GE(kernel.launch.blockX, 32u) << name << " " << kernel.entry;
    }
  }
}

/// atan, tan and fmod through libdevice (no .extern left), the floor-mod,
/// and integer remainders and divisions with their divisors made safe;
/// ptxas, where found, accepts every kernel (compile runs it). Numerics
/// need a GPU and are not checked here.
TEST_P(GpuCodegen, RemaindersDivisionAtanAndTan) {
  requireToolkit();
  for (ElementType type :
       {ElementType::F16, ElementType::F32, ElementType::F64}) {
    GraphBuilder b;
    TensorType t{type, {3, 37}};
    TensorId x = b.input(t, "x");
    TensorId y = b.input(t, "y");
    b.output(b.unary(OpKind::Atan, x), "atan");
    b.output(b.unary(OpKind::Tan, x), "tan");
    b.output(b.rem(x, y, /*fmod=*/true), "fmod");
    b.output(b.rem(x, y), "floor_mod");
    Expected<Compilation> compiled =
        compiler().compile(*b.finish(), target(), CompileOptions{});
    ASSERT_TRUE(compiled.ok())
        << elementTypeName(type) << ": " << compiled.message();
    for (const BundleKernel &kernel : compiled->bundle.kernels)
      EXPECT_EQ(payloadText(kernel).find(".extern"), std::string::npos)
          << elementTypeName(type) << " " << kernel.entry;
  }
  for (ElementType type :
       {ElementType::I8, ElementType::I32, ElementType::I64}) {
    GraphBuilder b;
    TensorType t{type, {3, 37}};
    TensorId x = b.input(t, "x");
    TensorId y = b.input(t, "y");
    b.output(b.div(x, y), "div");
    b.output(b.div(x, y, /*isUnsigned=*/true), "unsigned_div");
    b.output(b.rem(x, y), "floor_mod");
    b.output(b.rem(x, y, /*fmod=*/true), "fmod");
    Expected<Compilation> compiled =
        compiler().compile(*b.finish(), target(), CompileOptions{});
    ASSERT_TRUE(compiled.ok())
        << elementTypeName(type) << ": " << compiled.message();
    std::string ptx = payloadText(compiled->bundle.kernels.at(0));
    EXPECT_NE(ptx.find("div.s"), std::string::npos) << elementTypeName(type);
  }
}

/// i16 and the ui types: each compiles to PTX whose division, minimum and
/// comparison take the type's signedness (a ui8 divides as u16, PTX's
/// narrowest division); abs of a ui value folds to the value, and the output
/// it leaves unwritten gets a copy kernel from the input.
TEST_P(GpuCodegen, UnsignedAndI16Pointwise) {
  requireToolkit();
  for (ElementType type :
       {ElementType::UI8, ElementType::UI16, ElementType::UI32,
        ElementType::UI64, ElementType::I16}) {
    SCOPED_TRACE(std::string(elementTypeName(type)));
    GraphBuilder b;
    TensorType t{type, {1024}};
    TensorId x = b.input(t, "x"), y = b.input(t, "y");
    TensorId f = b.input({ElementType::F32, {1024}}, "f");
    b.output(b.div(x, y), "div");
    b.output(b.min(x, y), "min");
    b.output(b.compare(ComparePredicate::Lt, x, y), "lt");
    b.output(b.cast(x, ElementType::F32), "to_f32");
    b.output(b.cast(f, type), "from_f32");
    b.output(b.unary(OpKind::Abs, x), "abs");
    Expected<Compilation> compiled =
        compiler().compile(*b.finish(), target(), CompileOptions{});
    ASSERT_TRUE(compiled.ok()) << compiled.message();
    const Bundle &bundle = compiled->bundle;
    ASSERT_GE(bundle.kernels.size(), 2u);
    std::string ptx;
    for (const BundleKernel &kernel : bundle.kernels)
      ptx += payloadText(kernel);
    bool isUnsigned = type != ElementType::I16;
    unsigned bits = std::max(16u, unsigned(byteSize(type) * 8));
    std::string sign = isUnsigned ? "u" : "s", other = isUnsigned ? "s" : "u";
    std::string width = std::to_string(bits);
    EXPECT_NE(ptx.find("div." + sign + width), std::string::npos) << ptx;
    EXPECT_EQ(ptx.find("div." + other + width), std::string::npos) << ptx;
    // PTX compares 8-bit values in 32 bits.
    std::string compareWidth = type == ElementType::UI8 ? "32" : width;
    EXPECT_NE(ptx.find("setp.lt." + sign + compareWidth), std::string::npos)
        << ptx;
    if (bits >= 32)
      EXPECT_NE(ptx.find("min." + sign + width), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("cvt.rn.f32." + sign), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("cvt.rzi." + sign), std::string::npos) << ptx;
    // Last, the copy of x into the abs output.
    const BundleKernel &copy = bundle.kernels.back();
    ASSERT_EQ(copy.bindings.size(), 2u);
    EXPECT_EQ(copy.bindings[0], (KernelBinding{BindingKind::GraphInput, 0}));
    EXPECT_EQ(copy.bindings[1], (KernelBinding{BindingKind::GraphOutput, 5}));
  }
}

/// The f8 and f4 floats and the narrow integers take the host's codec
/// (LowPrecisionCodec.h, integer bit manipulation only): casts into every
/// format (saturating or not, from f32, f64 and f16, E8M0's round modes),
/// casts out of them, narrow integer arithmetic wrapped to the width, and
/// the reductions and matmul over decoded f8 values each compile, with no
/// f8 type and no call left in the PTX; ptxas, where found, accepts every
/// kernel (compile runs it). No GPU runs here: the numerics are the host's,
/// checked against the reference in HostLowPrecisionCodegenTest.
TEST_P(GpuCodegen, LowPrecisionTypesCompile) {
  requireToolkit();
  const ElementType floats[] = {ElementType::F8E4M3FN,  ElementType::F8E4M3FNUZ,
                                ElementType::F8E5M2,    ElementType::F8E5M2FNUZ,
                                ElementType::F8E8M0FNU, ElementType::F4E2M1FN};
  const ElementType integers[] = {ElementType::I4, ElementType::UI4,
                                  ElementType::I2, ElementType::UI2};
  std::vector<std::pair<std::string, Graph>> graphs;
  for (ElementType type : floats) {
    GraphBuilder b;
    TensorId x = b.input({ElementType::F32, {7, 33}}, "x");
    TensorId d = b.input({ElementType::F64, {7, 33}}, "d");
    TensorId h = b.input({ElementType::F16, {7, 33}}, "h");
    TensorId q = b.input({type, {7, 33}}, "q");
    TensorId w = b.input({ElementType::F32, {33, 5}}, "w");
    // Saturation is for the f8 types, round modes other than up for
    // f8E8M0FNU only.
    bool e8m0 = type == ElementType::F8E8M0FNU;
    bool f4 = type == ElementType::F4E2M1FN;
    auto options = [&](bool saturate, E8M0RoundMode mode) {
      return CastOptions{saturate && !f4, e8m0 ? mode : E8M0RoundMode::Up};
    };
    b.output(b.cast(x, type), "from_f32");
    b.output(b.cast(x, type, false, options(true, E8M0RoundMode::Up)),
             "saturated");
    b.output(b.cast(d, type, false, options(false, E8M0RoundMode::Nearest)),
             "from_f64");
    b.output(b.cast(h, type, false, options(false, E8M0RoundMode::Down)),
             "from_f16");
    TensorId wide = b.cast(q, ElementType::F32);
    b.output(b.cast(q, ElementType::F64), "to_f64");
    b.output(b.cast(q, ElementType::I32), "to_i32");
    b.output(b.cast(b.reduce(ReduceKind::Max, wide, {1}), type), "row_max");
    b.output(b.cast(b.reduce(ReduceKind::Min, wide, {0}), type), "column_min");
    b.output(b.reduce(ReduceKind::Sum, wide, {0, 1}), "sum");
    b.output(b.cast(b.matmul(wide, w), ElementType::F16), "matmul");
    Expected<Graph> graph = b.finish();
    ASSERT_TRUE(graph.ok()) << graph.message();
    graphs.emplace_back(std::string(elementTypeName(type)), *graph);
  }
  for (ElementType type : integers) {
    GraphBuilder b;
    TensorType t{type, {1000}};
    TensorId x = b.input(t, "x"), y = b.input(t, "y");
    TensorId f = b.input({ElementType::F32, {1000}}, "f");
    b.output(b.add(x, y), "add");
    b.output(b.mul(x, y), "mul");
    b.output(b.div(x, y), "div");
    b.output(b.rem(x, y, /*fmod=*/false, /*isUnsigned=*/true), "rem");
    b.output(b.max(x, y), "max");
    b.output(b.compare(ComparePredicate::Lt, x, y), "lt");
    b.output(b.cast(x, ElementType::I32), "to_i32");
    b.output(b.cast(x, ElementType::F32, /*isUnsigned=*/true), "to_f32");
    b.output(b.cast(f, type), "from_f32");
    for (ElementType other : integers)
      if (other != type)
        b.output(b.cast(x, other));
    for (ElementType other : floats)
      b.output(b.cast(x, other));
    Expected<Graph> graph = b.finish();
    ASSERT_TRUE(graph.ok()) << graph.message();
    graphs.emplace_back(std::string(elementTypeName(type)), *graph);
  }
  for (const auto &[name, graph] : graphs) {
    Expected<Compilation> compiled =
        compiler().compile(graph, target(), CompileOptions{});
    ASSERT_TRUE(compiled.ok()) << name << ": " << compiled.message();
    EXPECT_FALSE(compiled->bundle.kernels.empty()) << name;
    for (const BundleKernel &kernel : compiled->bundle.kernels) {
      std::string ptx = payloadText(kernel);
      EXPECT_EQ(ptx.find(".extern"), std::string::npos)
          << name << " " << kernel.entry;
      EXPECT_EQ(ptx.find("f8"), std::string::npos)
          << name << " " << kernel.entry;
    }
  }
}

TEST_P(GpuCodegen, HandWrittenFusionFromSource) {
  const char *source = R"mlir(
func.func @scale(%x: tensor<10xf32>) -> tensor<10xf32> {
  %r = fuse.fusion pointwise (%x) : (tensor<10xf32>) -> tensor<10xf32> {
  ^bb0(%a: tensor<10xf32>):
    %two = fuse.constant dense<2.0> : tensor<10xf32>
    %y = fuse.mul %a, %two : tensor<10xf32>
    fuse.yield %y : tensor<10xf32>
  }
  return %r : tensor<10xf32>
}
)mlir";
  Expected<Compilation> compiled =
      compiler().compileSource(source, target(), CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
  EXPECT_EQ(compiled->bundle.kernels[0].launch.gridX, 1u);
  std::string ptx = payloadText(compiled->bundle.kernels[0]);
  EXPECT_NE(ptx.find(".entry fuse_k0_pointwise"), std::string::npos);
}

TEST_P(GpuCodegen, CubinPayloadWhereAsked) {
  GpuCompilerConfig config;
  config.cubinPayload = true;
  GpuCompiler cubins(config);
  if (!cubins.assembles())
    GTEST_SKIP() << "no ptxas found";
  GraphBuilder b;
  b.output(b.neg(b.input({ElementType::F32, {100}})));
  Expected<Compilation> compiled =
      cubins.compile(*b.finish(), target(), CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const BundleKernel &kernel = compiled->bundle.kernels.at(0);
  EXPECT_EQ(kernel.payloadKind, PayloadKind::Cubin);
  // An ELF image.
  ASSERT_GE(kernel.payload.size(), 4u);
  EXPECT_EQ(kernel.payload[0], 0x7f);
  EXPECT_EQ(kernel.payload[1], 'E');
}

/// A symbolic softmax over rows of 1000 and a pointwise tail (issue 22):
/// `$T` the rows type over (batch, sequence), `$R` its row-reduced type.
std::string symbolicRows() {
  std::string text = R"mlir(
func.func @rows(%x: $T, %b: tensor<1000xf32>) -> ($T, $T) {
  %bb = fuse.broadcast %b, dims = [2] : tensor<1000xf32> -> $T
  %y = fuse.add %x, %bb : $T
  %t = fuse.tanh %y : $T
  %m = fuse.reduce max %t dims = [2] keep_dims : $T -> $R
  %mb = fuse.broadcast %m, dims = [0, 1, 2] : $R -> $T
  %d = fuse.sub %t, %mb : $T
  %e = fuse.exp %d : $T
  %s = fuse.reduce sum %e dims = [2] keep_dims : $T -> $R
  %sb = fuse.broadcast %s, dims = [0, 1, 2] : $R -> $T
  %p = fuse.div %e, %sb : $T
  return %t, %p : $T, $T
}
)mlir";
  auto replace = [&](const std::string &from, const std::string &to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace("$T", "tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>");
  replace("$R", "tensor<?x?x1xf32, #fuse.dims<batch, sequence>>");
  return text;
}

/// Issue 22: the GPU compiles pointwise and row kernels over symbolic
/// (batch, sequence) once. Each takes the dims by value after its bindings
/// (KernelAbi.h, "Runtime dims"), and its grid is bound with them: the
/// bundle records the most blocks and the iterations per block, and
/// bindBundle gives two bindings their own grids and dims' values with the
/// same PTX.
TEST_P(GpuCodegen, SymbolicRowsAndPointwiseCompileOnce) {
  requireToolkit();
  Expected<Compilation> compiled =
      compiler().compileSource(symbolicRows(), target(), CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  const Bundle &bundle = compiled->bundle;
  ASSERT_TRUE(bundle.isSymbolic());
  bool rows = false, pointwise = false;
  for (const BundleKernel &kernel : bundle.kernels) {
    SCOPED_TRACE(kernel.entry);
    ASSERT_TRUE(kernel.symbolicIterations);
    EXPECT_EQ(kernel.runtimeDims,
              (std::vector<std::string>{"batch", "sequence"}));
    EXPECT_TRUE(kernel.dimValues.empty());
    std::string ptx = payloadText(kernel);
    // Two values after the pointers.
    EXPECT_NE(ptx.find(".param .u64 " + kernel.entry + "_param_" +
                       std::to_string(kernel.bindings.size() + 1) + "\n"),
              std::string::npos)
        << ptx.substr(0, 800);
    if (kernel.schedule == ScheduleKind::RowReduction) {
      rows = true;
      EXPECT_EQ(kernel.symbolicIterations->toString(), "batch*sequence");
      EXPECT_EQ(kernel.launch.gridX, 65535u);
      EXPECT_EQ(kernel.launch.grain, 1);
    } else if (kernel.schedule == ScheduleKind::Pointwise) {
      pointwise = true;
      EXPECT_EQ(kernel.symbolicIterations->toString(), "batch*sequence*1000");
      EXPECT_EQ(kernel.launch.gridX, 4096u);
      EXPECT_EQ(kernel.launch.grain, 1024);
    }
  }
  EXPECT_TRUE(rows);
  // The softmax and its tanh may be one row kernel.
  (void)pointwise;

  for (auto [batch, sequence] : {std::pair<int64_t, int64_t>{2, 3}, {7, 301}}) {
    Expected<Bundle> bound =
        bindBundle(bundle, {{"batch", batch}, {"sequence", sequence}});
    ASSERT_TRUE(bound.ok()) << bound.message();
    for (size_t k = 0; k < bound->kernels.size(); ++k) {
      const BundleKernel &kernel = bound->kernels[k];
      SCOPED_TRACE(kernel.entry + " at " + std::to_string(batch) + "x" +
                   std::to_string(sequence));
      EXPECT_EQ(kernel.dimValues, (std::vector<int64_t>{batch, sequence}));
      EXPECT_TRUE(kernel.payload.sameBytes(bundle.kernels[k].payload));
      EXPECT_EQ(kernel.launch.grain, 1);
      int64_t rowsCount = batch * sequence;
      if (kernel.schedule == ScheduleKind::RowReduction) {
        EXPECT_EQ(kernel.launch.iterations, rowsCount);
        EXPECT_EQ(kernel.launch.gridX, uint32_t(rowsCount));
      } else {
        EXPECT_EQ(kernel.launch.iterations, rowsCount * 1000);
        EXPECT_EQ(kernel.launch.gridX,
                  uint32_t(std::min<int64_t>((rowsCount * 1000 + 1023) / 1024,
                                             4096)));
      }
    }
  }
}

/// Schedules whose GPU kernels take no runtime dims are refused naming the
/// fusion, its schedule and the dims (the engine binds the dims then); so
/// is a row kernel whose row length is the symbolic dim.
TEST_P(GpuCodegen, SymbolicRefusalsNameTheSchedule) {
  requireToolkit();
  const char *matmul = R"mlir(
func.func @mm(%x: tensor<?x64xf32, #fuse.dims<tokens>>, %w: tensor<64x64xf32>)
    -> tensor<?x64xf32, #fuse.dims<tokens>> {
  %m = fuse.matmul %x, %w : tensor<?x64xf32, #fuse.dims<tokens>>, tensor<64x64xf32> -> tensor<?x64xf32, #fuse.dims<tokens>>
  return %m : tensor<?x64xf32, #fuse.dims<tokens>>
}
)mlir";
  Expected<Compilation> compiled =
      compiler().compileSource(matmul, target(), CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find(
                "the matmul fusion fuse_k0 needs a static value of dim "
                "'tokens': the GPU compiler has no matmul kernel that takes "
                "the dims at run time"),
            std::string::npos)
      << compiled.message();

  const char *rowLength = R"mlir(
func.func @sum(%x: tensor<4x?xf32, #fuse.dims<keys>>) -> tensor<4x1xf32> {
  %s = fuse.reduce sum %x dims = [1] keep_dims : tensor<4x?xf32, #fuse.dims<keys>> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}
)mlir";
  compiled = compiler().compileSource(rowLength, target(), CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("fusion fuse_k0 (first op fuse.reduce) "
                                    "needs a static value of dim 'keys'"),
            std::string::npos)
      << compiled.message();
}

TEST_P(GpuCodegen, NotAGpuTarget) {
  GraphBuilder b;
  b.output(b.exp(b.input({ElementType::F32, {4}})));
  Expected<Compilation> compiled = compiler().compile(
      *b.finish(), Target{"host-x86-64-v3"}, CompileOptions{});
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.message().find("host-x86-64-v3"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Targets, GpuCodegen,
                         ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace fuse
