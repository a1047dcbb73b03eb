//===- HostObjectEmitter.cpp - Host kernels -> object code ----------------===//

#include "compiler/host/HostObjectEmitter.h"

#include "dialect/FuseOps.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <mutex>
#include <thread>

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

/// The kernel lowering pipeline after the polynomial approximations.
constexpr const char *kLoweringPipeline =
    "canonicalize, cse, convert-scf-to-cf, convert-vector-to-llvm, "
    "convert-math-to-llvm, convert-arith-to-llvm, convert-func-to-llvm, "
    "convert-cf-to-llvm, reconcile-unrealized-casts";

/// The f64 math ops the host has no polynomial for (tanh, erf, sin, ...; see
/// HostRegionEmitter.h's lowerTargetFloatOp) become calls of libm, lane by lane
/// (MLIR's math-to-libm patterns, applied to those ops alone: on f32 they would
/// also turn floor or round into calls). Like fmod, the kernel's shared object
/// leaves the symbols undefined and dlopen binds them to the process's
/// libm.so.6 (a process without one gets HostRuntime's "undefined symbol" load
/// error).
mlir::LogicalResult lowerF64MathToLibm(mlir::ModuleOp module) {
  static constexpr llvm::StringLiteral kFunctions[] = {
      "tanh", "erf",  "sin",  "cos",   "tan",   "asin",  "acos",
      "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "powf"};
  auto isF64Function = [](mlir::Operation *op) {
    return mlir::isa_and_nonnull<mlir::math::MathDialect>(op->getDialect()) &&
           llvm::is_contained(kFunctions, op->getName().stripDialect()) &&
           mlir::getElementTypeOrSelf(op->getResult(0).getType()).isF64();
  };
  llvm::SmallVector<mlir::Operation *> ops;
  module.walk([&](mlir::Operation *op) {
    if (isF64Function(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return mlir::success();
  mlir::RewritePatternSet patterns(module.getContext());
  mlir::populateMathToLibmConversionPatterns(patterns);
  mlir::GreedyRewriteConfig config;
  // The scalar ops the vector ones are split into are converted too.
  config.setStrictness(mlir::GreedyRewriteStrictness::ExistingAndNewOps);
  bool changed = false;
  if (mlir::failed(mlir::applyOpPatternsGreedily(ops, std::move(patterns),
                                                 config, &changed)))
    return mlir::failure();
  bool left = false;
  module.walk([&](mlir::Operation *op) { left |= isF64Function(op); });
  return mlir::failure(left);
}

void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerConversionPasses();
    mlir::registerTransformsPasses();
  });
}

void initializeX86Once() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

/// LLVM instructions from which a kernel counts as huge (a chain of hundreds
/// of ops; the largest kernel of the tests and examples has far fewer).
constexpr unsigned kHugeKernelInstructions = 2048;

/// Whether the kernel emitter wrote `function` without vectors.
bool isScalar(const llvm::Function &function) {
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block)
      if (instruction.getType()->isVectorTy())
        return false;
  return true;
}

/// Keeps LLVM's loop vectorizer (and interleaving) off the loops of kernels
/// whose loops are best left as the kernel emitter wrote them:
/// - A huge kernel, whose unrolling is off as well: its main loop is
///   vectorized already, and LLVM's loop vectorizer would only copy the
///   chain twice more into its scalar tail loop (a vector body and an
///   epilogue for at most vector-width - 1 elements), which tripled the code
///   that instruction selection and register allocation then work through.
/// - A kernel written without vectors (an arg reduction over columns, one
///   element per iteration): after LLVM fully unrolls a short inner loop,
///   its outer loop holds a chain of compare-and-select steps, each reading
///   the last one three times, which LLVM 22's loop vectorizer walks without
///   memoizing (vputils::isUniformAcrossVFsAndUFs): an ArgMin over one row
///   of 15 to 32 elements compiled for ever (the structured ONNX fuzzer, seed
///   5877).
void keepLoopsAsWritten(llvm::Function &function) {
  bool huge = function.getInstructionCount() >= kHugeKernelInstructions;
  if (!huge && !isScalar(function))
    return;
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.width", 1);
    llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 1);
    if (huge)
      llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.disable");
  }
}

/// `x86-64-v3` from `host-x86-64-v3`.
std::string cpuOf(const Target &target) {
  return target.name.substr(std::string_view("host-").size());
}

} // namespace

void registerHostCodegenDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect, mlir::fuse::FuseDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
}

mlir::LogicalResult lowerHostKernelsToLLVM(mlir::ModuleOp module) {
  registerPassesOnce();
  // MLIR has no pass for these: tanh, exp, log, erf, sin, cos... become
  // polynomials in f32 vector arithmetic (math.erf has no LLVM lowering at
  // all, and the others would be one libm call per lane).
  // tan as sin / cos first (MLIR has no approximation of tan itself), whose
  // approximations then apply to the new ops.
  mlir::RewritePatternSet patterns(module.getContext());
  mlir::math::populateExpansionPatterns(patterns, {"tan"});
  mlir::populateMathPolynomialApproximationPatterns(patterns);
  if (mlir::failed(mlir::applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError("polynomial approximation did not converge");
  if (mlir::failed(lowerF64MathToLibm(module)))
    return module.emitError("an f64 math op did not become a libm call");
  mlir::PassManager pm(module.getContext());
  // --mlir-print-ir-after-all and friends, where a tool registered them.
  // Fails, changing nothing, where no tool registered the options.
  (void)mlir::applyPassManagerCLOptions(pm);
  if (mlir::failed(mlir::parsePassPipeline(kLoweringPipeline, pm)))
    return module.emitError("the host lowering pipeline does not parse");
  return pm.run(module);
}

namespace {

/// A module's object code, optimized IR (when asked for) and phase times.
struct CompiledPart {
  std::vector<std::uint8_t> object;
  std::string optimizedIR;
  std::chrono::nanoseconds optimize{0}, codegen{0};
};

Expected<std::unique_ptr<llvm::TargetMachine>>
createMachine(const Target &target, int optimizationLevel) {
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return Status::error("no LLVM x86-64 target: " + error);
  llvm::CodeGenOptLevel codegenLevel =
      optimizationLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : optimizationLevel == 0 ? llvm::CodeGenOptLevel::None
                               : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, cpuOf(target), "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, codegenLevel));
  if (!machine)
    return Status::error("LLVM has no target machine for " + target.name);
  return machine;
}

/// Optimizes `module` at `optimizationLevel` and emits its object code.
Expected<CompiledPart> compilePart(llvm::Module &module, const Target &target,
                                   int optimizationLevel, bool keepIR) {
  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createMachine(target, optimizationLevel);
  if (!machine.ok())
    return machine.status();
  CompiledPart part;
  auto start = Clock::now();
  if (optimizationLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder builder(machine->get());
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level =
        optimizationLevel >= 3   ? llvm::OptimizationLevel::O3
        : optimizationLevel == 2 ? llvm::OptimizationLevel::O2
                                 : llvm::OptimizationLevel::O1;
    builder.buildPerModuleDefaultPipeline(level).run(module, mam);
  }
  part.optimize = Clock::now() - start;
  if (keepIR) {
    llvm::raw_string_ostream os(part.optimizedIR);
    module.print(os, nullptr);
  }

  start = Clock::now();
  llvm::SmallVector<char, 0> buffer;
  {
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return Status::error("LLVM cannot emit object files for " + target.name);
    codegen.run(module);
  }
  part.codegen = Clock::now() - start;
  part.object.assign(buffer.begin(), buffer.end());
  return part;
}

/// Instructions from which a module's kernels are compiled in parallel, on
/// parts of the module in threads of their own (a long chain cut into many
/// huge kernels); smaller modules compile as one, as before.
constexpr unsigned kParallelInstructions = 8 * kHugeKernelInstructions;
/// Most threads of one compilation.
constexpr unsigned kMaxParallelParts = 8;

unsigned partsFor(const llvm::Module &module) {
  unsigned functions = 0;
  for (const llvm::Function &function : module)
    functions += !function.isDeclaration();
  if (module.getInstructionCount() < kParallelInstructions || functions < 2)
    return 1;
  // At least two parts, so that a machine of one core takes the same path.
  return std::clamp(std::thread::hardware_concurrency(), 2u,
                    std::min(kMaxParallelParts, functions));
}

/// Splits `module` into `parts` modules balanced by size (llvm::SplitModule)
/// and compiles each in a thread with an LLVM context of its own: a module
/// moves between contexts only as bitcode.
Expected<std::vector<CompiledPart>>
compileInParts(llvm::Module &module, unsigned parts, const Target &target,
               int optimizationLevel, bool keepIR) {
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  llvm::SplitModule(module, parts, [&](std::unique_ptr<llvm::Module> part) {
    llvm::raw_svector_ostream os(bitcode.emplace_back());
    llvm::WriteBitcodeToFile(*part, os);
  });
  std::vector<Expected<CompiledPart>> compiled(
      bitcode.size(), Status::error("the part was not compiled"));
  {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < bitcode.size(); ++i)
      threads.emplace_back([&, i] {
        llvm::LLVMContext context;
        llvm::Expected<std::unique_ptr<llvm::Module>> part =
            llvm::parseBitcodeFile(
                llvm::MemoryBufferRef(
                    llvm::StringRef(bitcode[i].data(), bitcode[i].size()),
                    "fuse_host_kernels"),
                context);
        if (!part) {
          compiled[i] = Status::error("a part of the host kernels does not "
                                      "read back from bitcode: " +
                                      llvm::toString(part.takeError()));
          return;
        }
        compiled[i] = compilePart(**part, target, optimizationLevel, keepIR);
      });
    for (std::thread &thread : threads)
      thread.join();
  }
  std::vector<CompiledPart> result;
  for (Expected<CompiledPart> &part : compiled) {
    if (!part.ok())
      return part.status();
    result.push_back(std::move(*part));
  }
  return result;
}

} // namespace

Expected<HostObject> emitHostObject(mlir::ModuleOp module, const Target &target,
                                    int optimizationLevel, bool keepIR) {
  if (!target.isHost())
    return Status::error("target '" + target.name + "' is not a host target");
  initializeX86Once();
  HostObject result;

  auto start = Clock::now();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext, "fuse_host_kernels");
  if (!llvmModule)
    return Status::error("translating the host kernels to LLVM IR failed");
  result.translate = Clock::now() - start;

  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createMachine(target, optimizationLevel);
  if (!machine.ok())
    return machine.status();
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple(llvm::Triple("x86_64-unknown-linux-gnu"));
  for (llvm::Function &function : *llvmModule) {
    if (function.isDeclaration())
      continue;
    function.addFnAttr("target-cpu", cpuOf(target));
    // AVX-512 kernels use 512-bit vectors as written, not split in two.
    if (target.name == "host-x86-64-v4") {
      function.addFnAttr("prefer-vector-width", "512");
      function.addFnAttr("min-legal-vector-width", "512");
    }
    keepLoopsAsWritten(function);
  }

  unsigned parts = partsFor(*llvmModule);
  if (parts == 1) {
    Expected<CompiledPart> part =
        compilePart(*llvmModule, target, optimizationLevel, keepIR);
    if (!part.ok())
      return part.status();
    result.optimize = part->optimize;
    result.codegen = part->codegen;
    result.optimizedIR = std::move(part->optimizedIR);
    result.objects.push_back(std::move(part->object));
    return result;
  }

  // The parts run at once: the phases' times are the longest part's, and
  // the wall time of splitting them off counts as optimizing.
  start = Clock::now();
  Expected<std::vector<CompiledPart>> compiled =
      compileInParts(*llvmModule, parts, target, optimizationLevel, keepIR);
  if (!compiled.ok())
    return compiled.status();
  std::chrono::nanoseconds wall = Clock::now() - start;
  for (CompiledPart &part : *compiled) {
    result.codegen = std::max(result.codegen, part.codegen);
    result.optimizedIR += part.optimizedIR;
    result.objects.push_back(std::move(part.object));
  }
  result.optimize = wall - result.codegen;
  return result;
}

} // namespace fuse
