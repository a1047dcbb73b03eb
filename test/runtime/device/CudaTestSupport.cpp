//===- CudaTestSupport.cpp - Bundles and the fake driver for CUDA tests ---===//

#include "CudaTestSupport.h"

#include "runtime/Version.h"
#include "runtime/device/CudaRuntime.h"

#include <cstdlib>
#include <dlfcn.h>
#include <stdexcept>

namespace fuse::test {

std::string fakeDriverPath() {
  const char *path = std::getenv(device::CudaRuntime::DriverPathVariable);
  return path ? path : "";
}

const FakeDriver *fakeDriver() {
  static const FakeDriver *driver = []() -> const FakeDriver * {
    std::string path = fakeDriverPath();
    if (path.empty())
      return nullptr;
    // The same library CudaRuntime loads: one instance of the fake.
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw std::runtime_error("cannot load the fake driver " + path + ": " +
                               dlerror());
    auto *fake = new FakeDriver;
    auto get = [&](auto &member, const char *name) {
      void *symbol = dlsym(handle, name);
      if (!symbol)
        throw std::runtime_error(path + " is not the fake driver: no " + name);
      member =
          reinterpret_cast<std::remove_reference_t<decltype(member)>>(symbol);
    };
    get(fake->reset, "fakeCudaReset");
    get(fake->injectFailure, "fakeCudaInjectFailure");
    get(fake->failKernel, "fakeCudaFailKernel");
    get(fake->reportFromKernel, "fakeCudaReportFromKernel");
    get(fake->holdStreams, "fakeCudaHoldStreams");
    get(fake->queuedOperations, "fakeCudaQueuedOperations");
    get(fake->runQueued, "fakeCudaRunQueued");
    get(fake->launchCount, "fakeCudaLaunchCount");
    get(fake->getLaunch, "fakeCudaGetLaunch");
    get(fake->callCount, "fakeCudaCallCount");
    get(fake->liveAllocationBytes, "fakeCudaLiveAllocationBytes");
    get(fake->liveAllocations, "fakeCudaLiveAllocations");
    get(fake->liveStreams, "fakeCudaLiveStreams");
    get(fake->liveEvents, "fakeCudaLiveEvents");
    get(fake->liveModules, "fakeCudaLiveModules");
    get(fake->primaryContextRefs, "fakeCudaPrimaryContextRefs");
    get(fake->hasPtxEntry, "fakeCudaHasPtxEntry");
    get(fake->setTotalMemory, "fakeCudaSetTotalMemory");
    return fake;
  }();
  return driver;
}

std::string binaryPtx(const std::string &entry, const std::string &op,
                      std::int64_t n) {
  std::string p = entry + "_param_";
  return ".version 7.0\n"
         ".target sm_50\n"
         ".address_size 64\n"
         "\n"
         ".visible .entry " +
         entry +
         "(\n"
         "\t.param .u64 " +
         p + "0,\n\t.param .u64 " + p + "1,\n\t.param .u64 " + p +
         "2\n"
         ")\n"
         "{\n"
         "\t.reg .pred %p<2>;\n"
         "\t.reg .b32 %r<5>;\n"
         "\t.reg .f32 %f<4>;\n"
         "\t.reg .b64 %rd<11>;\n"
         "\n"
         "\tld.param.u64 %rd1, [" +
         p + "0];\n\tld.param.u64 %rd2, [" + p + "1];\n\tld.param.u64 %rd3, [" +
         p +
         "2];\n"
         "\tmov.u32 %r1, %ctaid.x;\n"
         "\tmov.u32 %r2, %ntid.x;\n"
         "\tmov.u32 %r3, %tid.x;\n"
         "\tmad.lo.s32 %r4, %r1, %r2, %r3;\n"
         "\tsetp.ge.s32 %p1, %r4, " +
         std::to_string(n) +
         ";\n"
         "\t@%p1 bra $L__done;\n"
         "\tcvta.to.global.u64 %rd4, %rd1;\n"
         "\tmul.wide.s32 %rd5, %r4, 4;\n"
         "\tadd.s64 %rd6, %rd4, %rd5;\n"
         "\tcvta.to.global.u64 %rd7, %rd2;\n"
         "\tadd.s64 %rd8, %rd7, %rd5;\n"
         "\tld.global.f32 %f1, [%rd6];\n"
         "\tld.global.f32 %f2, [%rd8];\n"
         "\t" +
         op +
         ".f32 %f3, %f1, %f2;\n"
         "\tcvta.to.global.u64 %rd9, %rd3;\n"
         "\tadd.s64 %rd10, %rd9, %rd5;\n"
         "\tst.global.f32 [%rd10], %f3;\n"
         "$L__done:\n"
         "\tret;\n"
         "}\n";
}

std::vector<std::uint8_t> bytesOfText(const std::string &text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

static BundleKernel ptxKernel(const std::string &entry, const std::string &op,
                              std::vector<KernelBinding> bindings,
                              std::vector<std::uint32_t> ops, std::int64_t n) {
  BundleKernel kernel;
  kernel.name = entry;
  kernel.target = "sm_50";
  kernel.payloadKind = PayloadKind::PtxText;
  kernel.payload = bytesOfText(binaryPtx(entry, op, n));
  kernel.entry = entry;
  kernel.schedule = ScheduleKind::Pointwise;
  kernel.launch.gridX = std::uint32_t((n + 127) / 128);
  kernel.launch.blockX = 128;
  kernel.bindings = std::move(bindings);
  kernel.ops = std::move(ops);
  return kernel;
}

/// The PTX kernels over f32[n].
static TestKernelMaker ptxKernels(std::int64_t n) {
  return [n](std::string entry, std::vector<KernelBinding> bindings,
             std::vector<std::uint32_t> ops) {
    std::string op = entry == "fuse_test_add_f32" ? "add" : "mul";
    return ptxKernel(entry, op, std::move(bindings), std::move(ops), n);
  };
}

Bundle cudaAddBundle(std::int64_t n) {
  return addBundleOf("sm_50", n, ptxKernels(n));
}

Bundle cudaMulAddBundle(std::int64_t n) {
  return mulAddBundleOf("sm_50", n, 256, ptxKernels(n));
}

static Bundle compiledBundle(const Graph &graph, const std::string &entry,
                             const char *ptx, ScheduleKind schedule,
                             std::uint32_t grid, std::uint32_t block) {
  Bundle bundle = bundleOf(graph, "sm_80");
  BundleKernel kernel;
  kernel.name = entry;
  kernel.target = "sm_80";
  kernel.payloadKind = PayloadKind::PtxText;
  kernel.payload = bytesOfText(ptx);
  kernel.entry = entry;
  kernel.schedule = schedule;
  kernel.launch.gridX = grid;
  kernel.launch.blockX = block;
  kernel.bindings = {{BindingKind::GraphInput, 0},
                     {BindingKind::GraphOutput, 0}};
  for (std::uint32_t op = 0; op < graph.ops.size(); ++op)
    kernel.ops.push_back(op);
  bundle.kernels.push_back(std::move(kernel));
  bundle.launchOrder = {0};
  return bundle;
}

Bundle compiledSoftmaxBundle() {
  static const char *ptx =
#include "CompiledSoftmaxSm80.inc"
      ;
  GraphBuilder builder;
  TensorId x = builder.input(TensorType{ElementType::F32, {32, 256}}, "x");
  TensorId m = builder.reduce(ReduceKind::Max, x, {1}, true);
  TensorId d = builder.sub(x, builder.broadcast(m, {32, 256}, {0, 1}));
  TensorId e = builder.exp(d);
  TensorId s = builder.reduce(ReduceKind::Sum, e, {1}, true);
  builder.output(builder.div(e, builder.broadcast(s, {32, 256}, {0, 1})), "y");
  return compiledBundle(*builder.finish(), "fuse_k0_rows", ptx,
                        ScheduleKind::RowReduction, 32, 64);
}

Bundle compiledGeluBundle() {
  static const char *ptx =
#include "CompiledGeluSm80.inc"
      ;
  GraphBuilder builder;
  TensorType type{ElementType::F32, {32, 256}};
  TensorId x = builder.input(type, "x");
  TensorId half = builder.splat(type, 0.5);
  TensorId one = builder.splat(type, 1.0);
  TensorId c0 = builder.splat(type, 0.044715);
  TensorId c1 = builder.splat(type, 0.797884583);
  TensorId x3 = builder.mul(builder.mul(x, x), x);
  TensorId t2 = builder.mul(builder.add(x, builder.mul(x3, c0)), c1);
  TensorId t4 = builder.add(builder.tanh(t2), one);
  builder.output(builder.mul(builder.mul(x, t4), half), "y");
  return compiledBundle(*builder.finish(), "fuse_k0_pointwise", ptx,
                        ScheduleKind::Pointwise, 8, 256);
}

Bundle compiledComputedGatherBundle() {
  static const char *ptx =
#include "CompiledComputedGatherSm80.inc"
      ;
  GraphBuilder builder;
  TensorId line = builder.input(TensorType{ElementType::F32, {100}}, "line");
  TensorType idsType{ElementType::I64, {256}};
  TensorId ids = builder.input(idsType, "ids");
  TensorId index = builder.add(ids, builder.splat(idsType, 90));
  builder.output(builder.gather(line, index, 0), "picks");
  Bundle bundle = compiledBundle(*builder.finish(), "fuse_k0_pointwise", ptx,
                                 ScheduleKind::Pointwise, 1, 256);
  BundleKernel &kernel = bundle.kernels[0];
  kernel.bindings = {{BindingKind::GraphInput, 1},
                     {BindingKind::GraphInput, 0},
                     {BindingKind::GraphOutput, 0}};
  kernel.checkedOps = {2};
  return bundle;
}

Bundle compiledAttentionBundle() {
  static const char *ptx =
#include "CompiledAttentionSm80.inc"
      ;
  GraphBuilder builder;
  TensorId q = builder.input(TensorType{ElementType::F32, {2, 24, 16}}, "q");
  TensorId k = builder.input(TensorType{ElementType::F32, {2, 20, 16}}, "k");
  TensorId v = builder.input(TensorType{ElementType::F32, {2, 20, 16}}, "v");
  TensorId s = builder.matmul(q, k, /*transposeA=*/false, /*transposeB=*/true);
  TensorType scores{ElementType::F32, {2, 24, 20}};
  TensorId t = builder.mul(s, builder.splat(scores, 0.25));
  TensorId m = builder.reduce(ReduceKind::Max, t, {2}, true);
  TensorId e =
      builder.exp(builder.sub(t, builder.broadcast(m, {2, 24, 20}, {0, 1, 2})));
  TensorId l = builder.reduce(ReduceKind::Sum, e, {2}, true);
  TensorId p = builder.div(e, builder.broadcast(l, {2, 24, 20}, {0, 1, 2}));
  builder.output(builder.matmul(p, v), "o");
  Bundle bundle = compiledBundle(*builder.finish(), "fuse_k0_attention", ptx,
                                 ScheduleKind::Attention, 4, 256);
  bundle.kernels[0].bindings = {{BindingKind::GraphInput, 0},
                                {BindingKind::GraphInput, 1},
                                {BindingKind::GraphInput, 2},
                                {BindingKind::GraphOutput, 0}};
  return bundle;
}

Bundle compiledSymbolicTanhBundle() {
  static const char *ptx =
#include "CompiledSymbolicTanhSm80.inc"
      ;
  GraphBuilder builder;
  TensorId x = builder.input(TensorType{ElementType::F32, {1, 1, 64}}, "x");
  builder.output(builder.tanh(x), "y");
  Graph graph = *builder.finish();
  // Its first two dims symbolic.
  std::int64_t batch = graph.dims.symbol("batch");
  std::int64_t sequence = graph.dims.symbol("sequence");
  for (Tensor &tensor : graph.tensors) {
    tensor.type.shape[0] = batch;
    tensor.type.shape[1] = sequence;
  }
  Bundle bundle = compiledBundle(graph, "fuse_k0_pointwise", ptx,
                                 ScheduleKind::Pointwise, 4096, 256);
  BundleKernel &kernel = bundle.kernels[0];
  kernel.launch.grain = 1024;
  kernel.runtimeDims = {"batch", "sequence"};
  kernel.symbolicIterations = *DimExpr::mul(
      *DimExpr::mul(DimExpr::symbol("batch"), DimExpr::symbol("sequence")),
      DimExpr::constant(64));
  return bundle;
}

} // namespace fuse::test
