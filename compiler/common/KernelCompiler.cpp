//===- KernelCompiler.cpp - The one compiler driver -----------------------===//

#include "compiler/common/KernelCompiler.h"

#include "compiler/common/ArenaPlanner.h"
#include "compiler/common/FusionFrontEnd.h"
#include "compiler/common/GraphTranslation.h"
#include "compiler/common/TargetBackend.h"
#include "dialect/FuseOps.h"
#include "passes/Passes.h"
#include "runtime/ir/GraphHash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace fd = mlir::fuse;

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

using namespace frontend;

} // namespace

struct KernelCompiler::Impl {
  explicit Impl(std::unique_ptr<TargetBackend> backend)
      : backend(std::move(backend)) {
    this->backend->initialize(context);
    context.disableMultithreading();
  }

  Status checkTarget(const Target &target) const {
    if (backend->compiles(target))
      return Status::success();
    return Status::error("the " + std::string(backend->name()) +
                         " compiler cannot compile for target '" + target.name +
                         "'");
  }

  Expected<Compilation> compileModule(mlir::ModuleOp module, const Graph &graph,
                                      bool alreadyFused, const Target &target,
                                      const CompileOptions &options,
                                      CompileDumps *dumps,
                                      std::vector<PhaseTiming> phases,
                                      DiagnosticCollector &diagnostics);

  std::unique_ptr<TargetBackend> backend;
  std::mutex mutex;
  mlir::MLIRContext context;
};

KernelCompiler::KernelCompiler(std::unique_ptr<TargetBackend> backend)
    : impl(std::make_unique<Impl>(std::move(backend))) {}
KernelCompiler::~KernelCompiler() = default;

TargetBackend &KernelCompiler::backend() { return *impl->backend; }

Expected<Compilation> KernelCompiler::compile(const Graph &graph,
                                              const Target &target,
                                              const CompileOptions &options) {
  return compile(graph, target, options, nullptr);
}

Expected<Compilation> KernelCompiler::compile(const Graph &graph,
                                              const Target &target,
                                              const CompileOptions &options,
                                              CompileDumps *dumps) {
  if (Status status = impl->checkTarget(target); !status.ok())
    return status;
  std::lock_guard lock(impl->mutex);
  DiagnosticCollector diagnostics(impl->context);
  auto start = Clock::now();
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      graphToModule(impl->context, graph);
  if (mlir::failed(module))
    return diagnostics.error(
        "the graph does not translate to the fuse dialect");
  std::vector<PhaseTiming> phases{{"import", Clock::now() - start}};
  return impl->compileModule(**module, graph, /*alreadyFused=*/false, target,
                             options, dumps, std::move(phases), diagnostics);
}

Expected<Compilation>
KernelCompiler::compileSource(std::string_view source, const Target &target,
                              const CompileOptions &options,
                              CompileDumps *dumps,
                              std::string_view sourceName) {
  if (Status status = impl->checkTarget(target); !status.ok())
    return status;
  std::lock_guard lock(impl->mutex);
  DiagnosticCollector diagnostics(impl->context);
  auto start = Clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          llvm::StringRef(source.data(), source.size()), &impl->context,
          llvm::StringRef(sourceName.data(), sourceName.size()));
  if (!module)
    return diagnostics.error("the source does not parse");
  mlir::FailureOr<Graph> graph = moduleToGraph(*module);
  if (mlir::failed(graph))
    return diagnostics.error("the module is not a graph of fuse ops");
  bool fused = false;
  module->walk([&](fd::FusionOp) { fused = true; });
  std::vector<PhaseTiming> phases{{"import", Clock::now() - start}};
  return impl->compileModule(*module, *graph, fused, target, options, dumps,
                             std::move(phases), diagnostics);
}

Expected<Compilation> KernelCompiler::Impl::compileModule(
    mlir::ModuleOp module, const Graph &requested, bool alreadyFused,
    const Target &target, const CompileOptions &options, CompileDumps *dumps,
    std::vector<PhaseTiming> phases, DiagnosticCollector &diagnostics) {
  auto funcs = module.getOps<mlir::func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return Status::error("the module must hold exactly one function");
  mlir::func::FuncOp func = *funcs.begin();

  // No schedule runs a convolution yet (issue 20): fuse-lower-convolutions
  // rewrites each into a matmul first, and the graph compiled is the
  // rewritten one, so that every value a kernel reads or writes is one of
  // its tensors. The bundle holds that graph and the hash of the one asked
  // for (Bundle::sourceGraphHash), which the cache keys.
  mlir::FailureOr<Graph> lowered = mlir::failure();
  bool hasConvolutions = false;
  func.walk([&](fd::ConvOp) { hasConvolutions = true; });
  if (hasConvolutions && !alreadyFused) {
    mlir::PassManager pm(&context);
    fd::FuseLowerConvolutionsOptions convolutions;
    convolutions.target = std::string(backend->scheduleTarget());
    pm.addNestedPass<mlir::func::FuncOp>(
        fd::createFuseLowerConvolutions(convolutions));
    if (mlir::failed(pm.run(module)))
      return diagnostics.error("lowering the convolutions failed");
    lowered = funcToGraph(func);
    if (mlir::failed(lowered))
      return diagnostics.error("the lowered convolutions are not a graph");
  }
  const Graph &graph = mlir::succeeded(lowered) ? *lowered : requested;

  if (Status status = tagOpIndices(func, graph); !status.ok())
    return status;

  // Fusion.
  auto start = Clock::now();
  if (!alreadyFused)
    if (Status status = fuseModule(module, func, options,
                                   backend->scheduleTarget(), diagnostics);
        !status.ok())
      return status;
  phases.push_back({"fusion", Clock::now() - start});
  if (dumps) {
    llvm::raw_string_ostream os(dumps->fused);
    module.print(os);
  }

  // Inputs and outputs live in the caller's buffers, the rest in the arena.
  BufferAssignment buffers(graph);
  Bundle bundle = newBundle(graph, target);
  // The cache keys the graph asked for; the bundle says which that was.
  if (mlir::succeeded(lowered))
    bundle.sourceGraphHash = hashGraph(requested).toHex();

  // Code generation: the kernels of every fusion, in order.
  start = Clock::now();
  mlir::OpBuilder b(&context);
  mlir::OwningOpRef<mlir::ModuleOp> kernelModule =
      mlir::ModuleOp::create(b.getUnknownLoc());
  backend->prepareKernelModule(*kernelModule);
  std::set<TensorId> written;
  // The plan's module of each bundle kernel.
  std::vector<std::string> moduleOf;
  // Kernels that share one module (the host's): each distinct kernel
  // function once, by its text with the symbol name left out. Identical
  // layers of a model make identical kernels; LLVM compiles one of each.
  std::map<std::string, std::string> entryOfText;
  auto sharedEntry = [&](const KernelPlan &plan) -> std::string {
    if (!plan.module.empty())
      return plan.entry;
    auto func = kernelModule->lookupSymbol<mlir::func::FuncOp>(plan.entry);
    if (!func)
      return plan.entry;
    std::string text;
    llvm::raw_string_ostream os(text);
    func.setSymName("kernel");
    func.print(os);
    func.setSymName(plan.entry);
    auto [it, inserted] = entryOfText.try_emplace(std::move(text), plan.entry);
    if (!inserted)
      func.erase();
    return it->second;
  };

  auto addFusion = [&](fd::FusionOp fusion,
                       llvm::ArrayRef<TensorId> inputTensors,
                       llvm::ArrayRef<TensorId> resultTensors,
                       llvm::ArrayRef<KernelBinding> resultBindings,
                       std::vector<std::uint32_t> coveredOps) -> Status {
    std::string prefix = "fuse_k" + std::to_string(bundle.kernels.size());
    mlir::FailureOr<FusionKernels> kernels =
        backend->emitKernels(fusion, *kernelModule, prefix, target);
    if (mlir::failed(kernels))
      return diagnostics.error(std::string(backend->name()) +
                               " code generation for " + target.name +
                               " failed");
    std::optional<std::uint32_t> scratch;
    for (const KernelPlan &plan : kernels->kernels) {
      std::uint32_t kernelIndex = std::uint32_t(bundle.kernels.size());
      BundleKernel kernel;
      kernel.name = plan.entry;
      kernel.target = target.name;
      kernel.payloadKind = backend->payloadKind();
      kernel.entry = sharedEntry(plan);
      kernel.schedule = plan.schedule;
      kernel.launch = plan.launch;
      kernel.ops = coveredOps;
      for (const KernelOperand &operand : plan.operands) {
        switch (operand.kind) {
        case KernelOperand::Kind::FusionInput:
          kernel.bindings.push_back(
              buffers.bind(inputTensors[operand.index], kernelIndex));
          break;
        case KernelOperand::Kind::FusionResult:
          if (resultBindings.empty()) {
            kernel.bindings.push_back(
                buffers.bind(resultTensors[operand.index], kernelIndex));
          } else {
            kernel.bindings.push_back(resultBindings[operand.index]);
          }
          written.insert(resultTensors[operand.index]);
          break;
        case KernelOperand::Kind::Scratch:
          if (!scratch) {
            scratch = std::uint32_t(buffers.requests.size());
            // A slice names a tensor: the fusion's first result stands for
            // its partials (the slice is larger than the tensor).
            TensorId owner = resultTensors.front();
            buffers.requests.push_back(
                {owner,
                 std::max<std::uint64_t>(kernels->scratchBytes,
                                         graph.typeOf(owner).byteSize()),
                 kernelIndex, kernelIndex});
          }
          buffers.use(*scratch, kernelIndex);
          kernel.bindings.push_back({BindingKind::Intermediate, *scratch});
          break;
        }
      }
      bundle.launchOrder.push_back(kernelIndex);
      bundle.kernels.push_back(std::move(kernel));
      moduleOf.push_back(plan.module);
    }
    return Status::success();
  };

  if (Status status = generateKernels(func, graph, *kernelModule, buffers,
                                      written, diagnostics, addFusion);
      !status.ok())
    return status;
  phases.push_back({"codegen", Clock::now() - start});
  if (dumps) {
    llvm::raw_string_ostream os(dumps->kernels);
    kernelModule->print(os);
  }

  bundle.memoryPlan = planArena(buffers.requests);

  if (!bundle.kernels.empty())
    if (Status status =
            backend->package(*kernelModule, moduleOf, target, options, bundle,
                             phases, diagnostics, dumps);
        !status.ok())
      return status;

  if (Status status = verifyBundle(bundle); !status.ok())
    return Status::error("internal error: " + status.message());
  Compilation compilation;
  compilation.bundle = std::move(bundle);
  compilation.phases = std::move(phases);
  compilation.remarks = std::move(diagnostics.remarks);
  return compilation;
}

} // namespace fuse
