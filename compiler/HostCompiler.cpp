//===- HostCompiler.cpp - The compiler for host targets -------------------===//

#include "compiler/HostCompiler.h"

#include "compiler/ArenaPlanner.h"
#include "compiler/FusionFrontEnd.h"
#include "compiler/GraphTranslation.h"
#include "compiler/HostKernelEmitter.h"
#include "compiler/HostLinker.h"
#include "compiler/HostObjectEmitter.h"
#include "dialect/FuseOps.h"
#include "passes/Passes.h"
#include "runtime/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>

namespace fd = mlir::fuse;

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

using namespace frontend;

} // namespace

struct HostCompiler::Impl {
  Impl() {
    mlir::DialectRegistry registry;
    registerHostCodegenDialects(registry);
    context.appendDialectRegistry(registry);
    loadTranslationDialects(context);
    context.loadAllAvailableDialects();
    context.disableMultithreading();
  }

  Expected<Compilation> compileModule(mlir::ModuleOp module, const Graph &graph,
                                      bool alreadyFused, const Target &target,
                                      const CompileOptions &options,
                                      HostCompileDumps *dumps,
                                      std::vector<PhaseTiming> phases,
                                      DiagnosticCollector &diagnostics);

  std::mutex mutex;
  mlir::MLIRContext context;
};

HostCompiler::HostCompiler() : impl(std::make_unique<Impl>()) {}
HostCompiler::~HostCompiler() = default;

bool HostCompiler::hasFusionPipeline() {
  registerFusePassesOnce();
  return mlir::PassPipelineInfo::lookup(kFusionPipeline) != nullptr;
}

Expected<Compilation> HostCompiler::compile(const Graph &graph,
                                            const Target &target,
                                            const CompileOptions &options) {
  return compile(graph, target, options, nullptr);
}

Expected<Compilation> HostCompiler::compile(const Graph &graph,
                                            const Target &target,
                                            const CompileOptions &options,
                                            HostCompileDumps *dumps) {
  if (!target.isHost())
    return Status::error("the host compiler cannot compile for target '" +
                         target.name + "'");
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

Expected<Compilation> HostCompiler::compileSource(std::string_view source,
                                                  const Target &target,
                                                  const CompileOptions &options,
                                                  HostCompileDumps *dumps,
                                                  std::string_view sourceName) {
  if (!target.isHost())
    return Status::error("the host compiler cannot compile for target '" +
                         target.name + "'");
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

Expected<Compilation> HostCompiler::Impl::compileModule(
    mlir::ModuleOp module, const Graph &graph, bool alreadyFused,
    const Target &target, const CompileOptions &options,
    HostCompileDumps *dumps, std::vector<PhaseTiming> phases,
    DiagnosticCollector &diagnostics) {
  auto funcs = module.getOps<mlir::func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return Status::error("the module must hold exactly one function");
  mlir::func::FuncOp func = *funcs.begin();

  if (Status status = tagOpIndices(func, graph); !status.ok())
    return status;

  // Fusion.
  auto start = Clock::now();
  if (!alreadyFused)
    if (Status status = fuseModule(module, func, options, diagnostics);
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

  // Code generation: kernel functions for every fusion, in order.
  start = Clock::now();
  mlir::OpBuilder b(&context);
  mlir::OwningOpRef<mlir::ModuleOp> kernelModule =
      mlir::ModuleOp::create(b.getUnknownLoc());
  unsigned width = hostVectorWidth(target);
  std::set<TensorId> written;
  std::vector<std::pair<std::uint32_t, HostFusionKernels>> pending;

  auto addFusion = [&](fd::FusionOp fusion,
                       llvm::ArrayRef<TensorId> inputTensors,
                       llvm::ArrayRef<TensorId> resultTensors,
                       llvm::ArrayRef<KernelBinding> resultBindings,
                       std::vector<std::uint32_t> coveredOps) -> Status {
    std::string prefix = "fuse_k" + std::to_string(bundle.kernels.size());
    mlir::FailureOr<HostFusionKernels> kernels =
        emitHostKernels(fusion, *kernelModule, prefix, width);
    if (mlir::failed(kernels))
      return diagnostics.error("host code generation failed");
    std::optional<std::uint32_t> scratch;
    for (const HostKernelPlan &plan : kernels->kernels) {
      std::uint32_t kernelIndex = std::uint32_t(bundle.kernels.size());
      BundleKernel kernel;
      kernel.name = plan.entry;
      kernel.target = target.name;
      kernel.payloadKind = PayloadKind::HostSharedObject;
      kernel.entry = plan.entry;
      kernel.schedule = plan.schedule;
      kernel.launch = plan.launch;
      kernel.ops = coveredOps;
      for (const HostKernelOperand &operand : plan.operands) {
        switch (operand.kind) {
        case HostKernelOperand::Kind::FusionInput:
          kernel.bindings.push_back(
              buffers.bind(inputTensors[operand.index], kernelIndex));
          break;
        case HostKernelOperand::Kind::FusionResult:
          if (resultBindings.empty()) {
            kernel.bindings.push_back(
                buffers.bind(resultTensors[operand.index], kernelIndex));
          } else {
            kernel.bindings.push_back(resultBindings[operand.index]);
          }
          written.insert(resultTensors[operand.index]);
          break;
        case HostKernelOperand::Kind::Scratch:
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

  if (!bundle.kernels.empty()) {
    start = Clock::now();
    if (mlir::failed(lowerHostKernelsToLLVM(*kernelModule)))
      return diagnostics.error("lowering the host kernels to LLVM failed");
    phases.push_back({"lower", Clock::now() - start});
    if (dumps) {
      llvm::raw_string_ostream os(dumps->llvmDialect);
      kernelModule->print(os);
    }
    Expected<HostObject> object = emitHostObject(
        *kernelModule, target, options.optimizationLevel, dumps != nullptr);
    if (!object.ok())
      return diagnostics.error(object.message());
    phases.push_back({"translate", object->translate});
    phases.push_back({"optimize", object->optimize});
    phases.push_back({"object", object->codegen});
    if (dumps)
      dumps->llvmIR = object->optimizedIR;
    start = Clock::now();
    Expected<std::vector<std::uint8_t>> shared =
        linkHostSharedObject(object->object);
    if (!shared.ok())
      return shared.status();
    phases.push_back({"link", Clock::now() - start});
    for (BundleKernel &kernel : bundle.kernels)
      kernel.payload = *shared;
  }

  if (Status status = verifyBundle(bundle); !status.ok())
    return Status::error("internal error: " + status.message());
  Compilation compilation;
  compilation.bundle = std::move(bundle);
  compilation.phases = std::move(phases);
  compilation.remarks = std::move(diagnostics.remarks);
  compilation.splitFusions = diagnostics.splitFusions;
  return compilation;
}

} // namespace fuse
