//===- GpuCompiler.cpp - The compiler for NVIDIA GPU targets --------------===//
//
// The GPU backend of the driver: gpu.module kernels, NVVM, PTX and, where
// ptxas is found, cubins.
//
//===----------------------------------------------------------------------===//

#include "compiler/gpu/GpuCompiler.h"

#include "compiler/common/PrivateFolder.h"
#include "compiler/common/TargetBackend.h"

#include "compiler/common/FusionFrontEnd.h"
#include "compiler/gpu/GpuKernelEmitter.h"
#include "dialect/FuseOps.h"

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
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

namespace fd = mlir::fuse;

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

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

/// Assembles `ptx` for `arch` with `ptxas -v`.
Status assemble(const std::string &ptxas, const std::string &arch,
                KernelArtifacts &artifacts) {
  // PTX, cubin and log in a private folder, removed on every path out (and
  // reclaimed by the next compile if this one is killed).
  Expected<ToolFiles> files = prepareToolFiles(
      "fuse-ptxas-", "ptxas", "kernel.ptx",
      std::span<const std::uint8_t>(
          reinterpret_cast<const std::uint8_t *>(artifacts.ptx.data()),
          artifacts.ptx.size()),
      {"kernel.cubin", "ptxas.log"});
  if (!files.ok())
    return files.status();
  const std::string &ptxPath = files->input;
  const std::string &cubinPath = files->outputs[0];
  const std::string &logPath = files->outputs[1];
  std::string archFlag = "-arch=" + arch;
  llvm::SmallVector<llvm::StringRef> args{ptxas, archFlag,  "-v",
                                          "-o",  cubinPath, ptxPath};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(logPath), llvm::StringRef(logPath)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &message);
  if (auto log = llvm::MemoryBuffer::getFile(logPath))
    artifacts.ptxasLog = (*log)->getBuffer().str();
  if (rc != 0)
    return Status::error("ptxas rejected kernel '" + artifacts.entry + "'" +
                         (message.empty() ? "" : " (" + message + ")") + ": " +
                         artifacts.ptxasLog);
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath, /*IsText=*/false);
  if (!cubin)
    return Status::error("ptxas wrote no cubin for '" + artifacts.entry + "'");
  llvm::StringRef bytes = (*cubin)->getBuffer();
  artifacts.cubin.assign(bytes.begin(), bytes.end());
  return Status::success();
}

} // namespace

class GpuBackend final : public TargetBackend {
public:
  explicit GpuBackend(GpuCompilerConfig config) : config(std::move(config)) {
    toolkit = findToolkit(this->config.toolkitPath);
    if (this->config.runPtxas && !toolkit.empty() &&
        llvm::sys::fs::can_execute(toolkit + "/bin/ptxas"))
      ptxas = toolkit + "/bin/ptxas";
  }

  std::string_view name() const override { return "GPU"; }
  std::string_view scheduleTarget() const override { return "gpu"; }
  bool compiles(const Target &target) const override { return target.isCuda(); }
  void initialize(mlir::MLIRContext &context) override {
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
  }
  /// One gpu.module per kernel.
  void prepareKernelModule(mlir::ModuleOp kernelModule) const override {
    kernelModule->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(),
                          mlir::UnitAttr::get(kernelModule.getContext()));
  }
  PayloadKind payloadKind() const override { return PayloadKind::PtxText; }
  /// Pointwise kernels (gathers and concats among them) and row
  /// reductions compute their extent from dims parameters (KernelAbi.h,
  /// "Runtime dims"); the other schedules need static dims yet.
  bool takesRuntimeDims(fd::ScheduleKind kind) const override {
    return kind == fd::ScheduleKind::pointwise ||
           kind == fd::ScheduleKind::row_reduction;
  }
  std::string_view runtimeDimsKernels() const override {
    return "pointwise kernels (gathers and concats among them) and "
           "row-reduction kernels whose rows alone are symbolic";
  }

  mlir::FailureOr<FusionKernels> emitKernels(mlir::fuse::FusionOp fusion,
                                             mlir::ModuleOp kernelModule,
                                             llvm::StringRef prefix,
                                             const Target &) override {
    return emitGpuKernels(fusion, kernelModule, prefix);
  }

  Status package(mlir::ModuleOp kernelModule,
                 const std::vector<std::string> &moduleOf, const Target &target,
                 const CompileOptions &options, Bundle &bundle,
                 std::vector<PhaseTiming> &phases, KernelReuse &reuse,
                 frontend::DiagnosticCollector &diagnostics,
                 CompileDumps *dumps) override;

  GpuCompilerConfig config;
  std::string toolkit, ptxas;
};

/// NVVM (the target attached to every gpu.module, then the conversions),
/// PTX with libdevice linked, and cubins where ptxas is found.
Status GpuBackend::package(mlir::ModuleOp kernelModule,
                           const std::vector<std::string> &moduleOf,
                           const Target &target, const CompileOptions &options,
                           Bundle &bundle, std::vector<PhaseTiming> &phases,
                           KernelReuse &,
                           frontend::DiagnosticCollector &diagnostics,
                           CompileDumps *dumps) {
  mlir::MLIRContext &context = *kernelModule.getContext();
  auto start = Clock::now();
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
    mlir::populateGpuBreakDownSubgroupReducePatterns(patterns,
                                                     /*maxShuffleBitwidth=*/32);
    mlir::populateGpuLowerSubgroupReduceToShufflePatterns(
        patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
    mlir::populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
    if (mlir::failed(
            mlir::applyPatternsGreedily(kernelModule, std::move(patterns))))
      return diagnostics.error("lowering warp reductions failed");
  }
  if (mlir::failed(lower.run(kernelModule)))
    return diagnostics.error("lowering the GPU kernels to NVVM failed");
  phases.push_back({"lower", Clock::now() - start});
  if (dumps) {
    llvm::raw_string_ostream os(dumps->lowered);
    kernelModule.print(os);
  }

  // PTX, with libdevice linked from the toolkit.
  start = Clock::now();
  mlir::PassManager serialize(&context);
  mlir::GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = toolkit;
  binary.compilationTarget = "isa";
  serialize.addPass(mlir::createGpuModuleToBinaryPass(binary));
  if (mlir::failed(serialize.run(kernelModule)))
    return diagnostics.error("translating the GPU kernels to PTX failed");
  std::map<std::string, std::string> ptxOf;
  for (auto binaryOp : kernelModule.getOps<mlir::gpu::BinaryOp>()) {
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
    KernelArtifacts artifacts;
    artifacts.entry = kernel.entry;
    artifacts.ptx = ptx;
    if (!ptxas.empty()) {
      if (Status status = assemble(ptxas, target.name, artifacts); !status.ok())
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
  return Status::success();
}

GpuCompiler::GpuCompiler(GpuCompilerConfig config)
    : KernelCompiler(std::make_unique<GpuBackend>(std::move(config))),
      gpu(static_cast<GpuBackend *>(&backend())) {}

const std::string &GpuCompiler::toolkitPath() const { return gpu->toolkit; }
bool GpuCompiler::assembles() const { return !gpu->ptxas.empty(); }

} // namespace fuse
