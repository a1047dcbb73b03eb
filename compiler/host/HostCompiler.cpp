//===- HostCompiler.cpp - The host backend --------------------------------===//

#include "compiler/host/HostCompiler.h"

#include "compiler/common/GraphTranslation.h"
#include "compiler/common/TargetBackend.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostLinker.h"
#include "compiler/host/HostObjectEmitter.h"
#include "compiler/host/KernelObjectCache.h"

#include "mlir/IR/MLIRContext.h"

#include <chrono>

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

class HostBackend final : public TargetBackend {
public:
  explicit HostBackend(KernelObjectCache &kernelObjects)
      : kernelObjects(kernelObjects) {}

  std::string_view name() const override { return "host"; }
  std::string_view scheduleTarget() const override { return "host"; }
  bool compiles(const Target &target) const override { return target.isHost(); }
  void initialize(mlir::MLIRContext &context) override {
    mlir::DialectRegistry registry;
    registerHostCodegenDialects(registry);
    context.appendDialectRegistry(registry);
    loadTranslationDialects(context);
    context.loadAllAvailableDialects();
  }
  /// bf16 matmuls (vdpbf16ps) need AVX-512: host-x86-64-v4. Its kernels
  /// then need AVX-512 BF16 too, which x86-64-v4 does not include: they are
  /// tagged `+avx512bf16` (KernelPlan::targetSuffix) and the host runtime
  /// refuses them on a CPU without it.
  Status checkOptions(const Target &target,
                      const CompileOptions &options) const override {
    if (options.matmulPrecision == MatmulPrecision::F32 ||
        hostHasAvx512(target))
      return Status::success();
    // amxTiles alone (KernelCompiler checks it goes with bf16) falls here
    // with bf16 on a target without AVX-512, refused as bf16 is.
    return Status::error(
        "--matmul-precision=bf16 needs AVX-512 BF16 (vdpbf16ps), which target "
        "'" +
        target.name +
        "' does not have; compile for host-x86-64-v4 on a CPU with "
        "avx512_bf16, or use --matmul-precision=f32");
  }
  PayloadKind payloadKind() const override {
    return PayloadKind::HostSharedObject;
  }

  mlir::FailureOr<FusionKernels> emitKernels(mlir::fuse::FusionOp fusion,
                                             mlir::ModuleOp kernelModule,
                                             llvm::StringRef prefix,
                                             const Target &target) override {
    return emitHostKernels(fusion, kernelModule, prefix,
                           hostVectorWidth(target));
  }

  /// LLVM dialect, optimized object code for the target's ISA, one shared
  /// object that every kernel of the bundle carries.
  Status package(mlir::ModuleOp kernelModule, const std::vector<std::string> &,
                 const Target &target, const CompileOptions &options,
                 Bundle &bundle, std::vector<PhaseTiming> &phases,
                 KernelReuse &reuse, frontend::DiagnosticCollector &diagnostics,
                 CompileDumps *dumps) override {
    auto start = Clock::now();
    if (mlir::failed(lowerHostKernelsToLLVM(kernelModule, target)))
      return diagnostics.error("lowering the host kernels to LLVM failed");
    phases.push_back({"lower", Clock::now() - start});
    if (dumps) {
      llvm::raw_string_ostream os(dumps->lowered);
      kernelModule.print(os);
    }
    Expected<HostObject> object =
        emitHostObject(kernelModule, target, options.optimizationLevel,
                       dumps != nullptr, &kernelObjects, options.tieredKernels);
    if (!object.ok())
      return diagnostics.error(object.message());
    phases.push_back({"translate", object->translate});
    phases.push_back({"optimize", object->optimize});
    phases.push_back({"object", object->codegen});
    if (dumps)
      dumps->llvmIR = object->optimizedIR;
    start = Clock::now();
    Expected<std::vector<std::uint8_t>> shared =
        linkHostSharedObject(object->objects);
    if (!shared.ok())
      return shared.status();
    phases.push_back({"link", Clock::now() - start});
    // Every kernel's entry is in the one shared object: one payload.
    KernelPayload payload(shared.take());
    for (BundleKernel &kernel : bundle.kernels) {
      kernel.payload = payload;
      if (auto it = object->renamed.find(kernel.entry);
          it != object->renamed.end())
        kernel.entry = it->second;
    }
    reuse.compiled = object->kernelsCompiled;
    reuse.reused = object->kernelsReused;
    reuse.quick = object->kernelsQuick;
    return Status::success();
  }

private:
  /// The kernels this compiler compiled before, for every later bundle.
  KernelObjectCache &kernelObjects;
};

} // namespace

HostCompiler::HostCompiler()
    : HostCompiler(std::make_unique<KernelObjectCache>()) {}

HostCompiler::HostCompiler(std::unique_ptr<KernelObjectCache> kernels)
    : KernelCompiler(std::make_unique<HostBackend>(*kernels)),
      kernelObjects(std::move(kernels)) {}

HostCompiler::~HostCompiler() = default;

void HostCompiler::keepKernelsIn(BundleCache *cache) {
  kernelObjects->setStore(cache);
}

} // namespace fuse
