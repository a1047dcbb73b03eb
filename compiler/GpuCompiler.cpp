//===- GpuCompiler.cpp - The compiler for NVIDIA GPU targets --------------===//
//
// Import and fusion as in HostCompiler (whose helpers are private to it),
// then GPU kernels, NVVM, PTX and, where ptxas is found, cubins.
//
//===----------------------------------------------------------------------===//

#include "compiler/GpuCompiler.h"

#include "compiler/ArenaPlanner.h"
#include "compiler/FusionFrontEnd.h"
#include "compiler/GpuKernelEmitter.h"
#include "compiler/GraphTranslation.h"
#include "dialect/FuseOps.h"
#include "passes/Passes.h"
#include "runtime/Version.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace fd = mlir::fuse;

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

using namespace frontend;

/// $CUDA_HOME, then /usr/local/cuda: the first that holds libdevice.
std::string findToolkit(const std::string &configured) {
  std::vector<std::string> candidates;
  if (!configured.empty())
    candidates.push_back(configured);
  if (const char *home = std::getenv("CUDA_HOME"))
    candidates.push_back(home);
  candidates.push_back("/usr/local/cuda");
  for (const std::string &path : candidates)
    if (llvm::sys::fs::exists(path + "/nvvm/libdevice/libdevice.10.bc"))
      return path;
  return configured;
}

/// A temporary file that is removed when it goes out of scope.
struct TempFile {
  explicit TempFile(llvm::StringRef suffix) {
    llvm::SmallString<128> buffer;
    if (!llvm::sys::fs::createTemporaryFile("fuse-gpu", suffix, buffer))
      path = std::string(buffer);
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  std::string path;
};

/// Assembles `ptx` for `arch` with `ptxas -v`.
Status assemble(const std::string &ptxas, const std::string &arch,
                GpuKernelArtifacts &artifacts) {
  TempFile ptxFile("ptx"), cubinFile("cubin"), logFile("log");
  if (ptxFile.path.empty() || cubinFile.path.empty() || logFile.path.empty())
    return Status::error("cannot create temporary files for ptxas");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxFile.path, ec);
    if (ec)
      return Status::error("cannot write " + ptxFile.path + ": " +
                           ec.message());
    os << artifacts.ptx;
  }
  std::string archFlag = "-arch=" + arch;
  llvm::SmallVector<llvm::StringRef> args{ptxas, archFlag,       "-v",
                                          "-o",  cubinFile.path, ptxFile.path};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt,
                                                llvm::StringRef(logFile.path),
                                                llvm::StringRef(logFile.path)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &message);
  if (auto log = llvm::MemoryBuffer::getFile(logFile.path))
    artifacts.ptxasLog = (*log)->getBuffer().str();
  if (rc != 0)
    return Status::error("ptxas rejected kernel '" + artifacts.entry + "'" +
                         (message.empty() ? "" : " (" + message + ")") + ": " +
                         artifacts.ptxasLog);
  auto cubin = llvm::MemoryBuffer::getFile(cubinFile.path, /*IsText=*/false);
  if (!cubin)
    return Status::error("ptxas wrote no cubin for '" + artifacts.entry + "'");
  llvm::StringRef bytes = (*cubin)->getBuffer();
  artifacts.cubin.assign(bytes.begin(), bytes.end());
  return Status::success();
}

} // namespace

struct GpuCompiler::Impl {
  explicit Impl(GpuCompilerConfig config) : config(std::move(config)) {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::registerAllToLLVMIRTranslations(registry);
    mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    context.appendDialectRegistry(registry);
    // The dialects the kernel emitter builds in.
    context.loadDialect<fd::FuseDialect, mlir::func::FuncDialect,
                        mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                        mlir::arith::ArithDialect, mlir::math::MathDialect,
                        mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                        mlir::vector::VectorDialect>();
    context.disableMultithreading();
    toolkit = findToolkit(this->config.toolkitPath);
    if (this->config.runPtxas && !toolkit.empty() &&
        llvm::sys::fs::can_execute(toolkit + "/bin/ptxas"))
      ptxas = toolkit + "/bin/ptxas";
  }

  Expected<Compilation> compileModule(mlir::ModuleOp module, const Graph &graph,
                                      bool alreadyFused, const Target &target,
                                      const CompileOptions &options,
                                      GpuCompileDumps *dumps,
                                      std::vector<PhaseTiming> phases,
                                      DiagnosticCollector &diagnostics);

  GpuCompilerConfig config;
  std::string toolkit, ptxas;
  std::mutex mutex;
  mlir::MLIRContext context;
};

GpuCompiler::GpuCompiler(GpuCompilerConfig config)
    : impl(std::make_unique<Impl>(std::move(config))) {}
GpuCompiler::~GpuCompiler() = default;

const std::string &GpuCompiler::toolkitPath() const { return impl->toolkit; }
bool GpuCompiler::assembles() const { return !impl->ptxas.empty(); }

Expected<Compilation> GpuCompiler::compile(const Graph &graph,
                                           const Target &target,
                                           const CompileOptions &options) {
  return compile(graph, target, options, nullptr);
}

Expected<Compilation> GpuCompiler::compile(const Graph &graph,
                                           const Target &target,
                                           const CompileOptions &options,
                                           GpuCompileDumps *dumps) {
  if (!target.isCuda())
    return Status::error("the GPU compiler cannot compile for target '" +
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

Expected<Compilation> GpuCompiler::compileSource(std::string_view source,
                                                 const Target &target,
                                                 const CompileOptions &options,
                                                 GpuCompileDumps *dumps,
                                                 std::string_view sourceName) {
  if (!target.isCuda())
    return Status::error("the GPU compiler cannot compile for target '" +
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

Expected<Compilation> GpuCompiler::Impl::compileModule(
    mlir::ModuleOp module, const Graph &graph, bool alreadyFused,
    const Target &target, const CompileOptions &options, GpuCompileDumps *dumps,
    std::vector<PhaseTiming> phases, DiagnosticCollector &diagnostics) {
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

  // Code generation: one gpu.module per kernel, every fusion in order.
  start = Clock::now();
  mlir::OpBuilder b(&context);
  mlir::OwningOpRef<mlir::ModuleOp> kernelModule =
      mlir::ModuleOp::create(b.getUnknownLoc());
  (*kernelModule)
      ->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(),
                b.getUnitAttr());
  std::set<TensorId> written;
  // The gpu.module of each bundle kernel.
  std::vector<std::string> moduleOf;

  auto addFusion = [&](fd::FusionOp fusion,
                       llvm::ArrayRef<TensorId> inputTensors,
                       llvm::ArrayRef<TensorId> resultTensors,
                       llvm::ArrayRef<KernelBinding> resultBindings,
                       std::vector<std::uint32_t> coveredOps) -> Status {
    std::string prefix = "fuse_k" + std::to_string(bundle.kernels.size());
    mlir::FailureOr<GpuFusionKernels> kernels =
        emitGpuKernels(fusion, *kernelModule, prefix);
    if (mlir::failed(kernels))
      return diagnostics.error("GPU code generation for " + target.name +
                               " failed");
    std::optional<std::uint32_t> scratch;
    for (const GpuKernelPlan &plan : kernels->kernels) {
      std::uint32_t kernelIndex = std::uint32_t(bundle.kernels.size());
      BundleKernel kernel;
      kernel.name = plan.entry;
      kernel.target = target.name;
      kernel.payloadKind = PayloadKind::PtxText;
      kernel.entry = plan.entry;
      kernel.schedule = plan.schedule;
      kernel.launch = plan.launch;
      kernel.ops = coveredOps;
      for (const GpuKernelOperand &operand : plan.operands) {
        switch (operand.kind) {
        case GpuKernelOperand::Kind::FusionInput:
          kernel.bindings.push_back(
              buffers.bind(inputTensors[operand.index], kernelIndex));
          break;
        case GpuKernelOperand::Kind::FusionResult:
          if (resultBindings.empty()) {
            kernel.bindings.push_back(
                buffers.bind(resultTensors[operand.index], kernelIndex));
          } else {
            kernel.bindings.push_back(resultBindings[operand.index]);
          }
          written.insert(resultTensors[operand.index]);
          break;
        case GpuKernelOperand::Kind::Scratch:
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

  if (!bundle.kernels.empty()) {
    // NVVM: the target attached to every gpu.module, then the conversions.
    start = Clock::now();
    mlir::PassManager lower(&context);
    (void)mlir::applyPassManagerCLOptions(lower);
    mlir::GpuNVVMAttachTargetOptions attach;
    attach.chip = target.name;
    attach.features = "+ptx80";
    attach.optLevel = unsigned(std::clamp(options.optimizationLevel, 0, 3));
    lower.addPass(mlir::createGpuNVVMAttachTarget(attach));
    mlir::OpPassManager &perModule = lower.nest<mlir::gpu::GPUModuleOp>();
    perModule.addPass(mlir::createSCFToControlFlowPass());
    perModule.addPass(mlir::createConvertGpuOpsToNVVMOps());
    lower.addPass(mlir::createReconcileUnrealizedCastsPass());
    // Warp reductions become shuffles first (convert-gpu-to-nvvm has no
    // lowering of gpu.subgroup_reduce on f32).
    {
      mlir::RewritePatternSet patterns(&context);
      mlir::populateGpuBreakDownSubgroupReducePatterns(
          patterns,
          /*maxShuffleBitwidth=*/32);
      mlir::populateGpuLowerSubgroupReduceToShufflePatterns(
          patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
      mlir::populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
          patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
      if (mlir::failed(
              mlir::applyPatternsGreedily(*kernelModule, std::move(patterns))))
        return diagnostics.error("lowering warp reductions failed");
    }
    if (mlir::failed(lower.run(*kernelModule)))
      return diagnostics.error("lowering the GPU kernels to NVVM failed");
    phases.push_back({"lower", Clock::now() - start});
    if (dumps) {
      llvm::raw_string_ostream os(dumps->nvvm);
      kernelModule->print(os);
    }

    // PTX, with libdevice linked from the toolkit.
    start = Clock::now();
    mlir::PassManager serialize(&context);
    mlir::GpuModuleToBinaryPassOptions binary;
    binary.toolkitPath = toolkit;
    binary.compilationTarget = "isa";
    serialize.addPass(mlir::createGpuModuleToBinaryPass(binary));
    if (mlir::failed(serialize.run(*kernelModule)))
      return diagnostics.error("translating the GPU kernels to PTX failed");
    std::map<std::string, std::string> ptxOf;
    for (auto binaryOp : kernelModule->getOps<mlir::gpu::BinaryOp>()) {
      auto object = mlir::cast<mlir::gpu::ObjectAttr>(
          binaryOp.getObjects().getValue().front());
      ptxOf[binaryOp.getName().str()] = object.getObject().str();
    }
    phases.push_back({"ptx", Clock::now() - start});

    start = Clock::now();
    for (std::size_t k = 0; k < bundle.kernels.size(); ++k) {
      BundleKernel &kernel = bundle.kernels[k];
      const std::string &ptx = ptxOf[moduleOf[k]];
      if (ptx.empty())
        return Status::error("internal error: no PTX for kernel '" +
                             kernel.entry + "'");
      // Without libdevice, math functions stay unresolved calls that the
      // driver cannot link.
      if (llvm::StringRef(ptx).contains(".extern .func"))
        return Status::error(
            "the PTX of kernel '" + kernel.entry +
            "' calls a function that was not linked: libdevice was not found "
            "(set CUDA_HOME to the CUDA toolkit)");
      kernel.payload.assign(ptx.begin(), ptx.end());
      GpuKernelArtifacts artifacts;
      artifacts.entry = kernel.entry;
      artifacts.ptx = ptx;
      if (!ptxas.empty()) {
        if (Status status = assemble(ptxas, target.name, artifacts);
            !status.ok())
          return status;
        if (config.cubinPayload) {
          kernel.payloadKind = PayloadKind::Cubin;
          kernel.payload = artifacts.cubin;
        }
      }
      if (dumps)
        dumps->artifacts.push_back(std::move(artifacts));
    }
    if (!ptxas.empty())
      phases.push_back({"ptxas", Clock::now() - start});
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
