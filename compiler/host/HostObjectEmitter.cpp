//===- HostObjectEmitter.cpp - Host kernels -> object code ----------------===//

#include "compiler/host/HostObjectEmitter.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostMathLowering.h"
#include "compiler/host/KernelObjectCache.h"

#include "dialect/FuseOps.h"
#include "runtime/ir/Sha256.h"

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
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

/// The kernel lowering pipeline after the polynomial approximations: each
/// kernel function on its own (in parallel, where the context has threads),
/// then what works on the whole module.
constexpr const char *kLoweringPipeline =
    "func.func(canonicalize, cse, convert-scf-to-cf, convert-vector-to-llvm, "
    "convert-math-to-llvm, convert-arith-to-llvm), convert-func-to-llvm, "
    "convert-cf-to-llvm, reconcile-unrealized-casts";

/// MLIR has no pass for these: tanh, exp, log, erf, sin, cos... become
/// polynomials in f32 vector arithmetic (math.erf has no LLVM lowering at
/// all, and the others would be one libm call per lane). tan as sin / cos
/// first (MLIR has no approximation of tan itself), whose approximations
/// then apply to the new ops. The host's own lowerings (HostMathLowering.h:
/// exp) take precedence over MLIR's. One kernel function at a time, so that
/// the pass manager runs the kernels in parallel.
class ApproximateMath
    : public mlir::PassWrapper<ApproximateMath,
                               mlir::OperationPass<mlir::func::FuncOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMath)

  explicit ApproximateMath(bool avx512) : avx512(avx512) {}

  llvm::StringRef getArgument() const override {
    return "fuse-host-approximate-math";
  }
  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    mlir::RewritePatternSet set(context);
    mlir::math::populateExpansionPatterns(set, {"tan"});
    populateHostMathPatterns(set, avx512, /*benefit=*/2);
    mlir::populateMathPolynomialApproximationPatterns(set);
    patterns = std::move(set);
    return mlir::success();
  }
  void runOnOperation() override {
    if (mlir::failed(mlir::applyPatternsGreedily(getOperation(), patterns))) {
      getOperation().emitError("polynomial approximation did not converge");
      signalPassFailure();
    }
  }

private:
  bool avx512;
  mlir::FrozenRewritePatternSet patterns;
};

/// Operations from which a kernel module is lowered with threads (a long
/// chain cut into many kernels); a smaller one is lowered on the calling
/// thread alone, as the context was made.
constexpr unsigned kParallelLoweringOps = 4096;

/// Turns the context's multithreading on for the lowering of a module of
/// several large kernels, and off again after it (KernelCompiler's context
/// has it off: compilations run one at a time, mostly of small modules).
class ThreadsForLowering {
public:
  explicit ThreadsForLowering(mlir::ModuleOp module)
      : context(*module.getContext()) {
    if (context.isMultithreadingEnabled())
      return;
    unsigned functions = 0, ops = 0;
    for (mlir::Operation &op : module.getBody()->getOperations())
      if (auto func = mlir::dyn_cast<mlir::func::FuncOp>(op);
          func && !func.isDeclaration()) {
        ++functions;
        func.walk([&](mlir::Operation *) { ++ops; });
      }
    if (functions < 2 || ops < kParallelLoweringOps)
      return;
    context.enableMultithreading();
    enabled = true;
  }
  ~ThreadsForLowering() {
    if (enabled)
      context.disableMultithreading();
  }

private:
  mlir::MLIRContext &context;
  bool enabled = false;
};

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

/// Stores per block that LLVM's dead store elimination takes as candidates
/// (LLVM's default: 5000). A matmul micro-kernel is one block of thousands
/// of vector stores, where the default made DSE half of -O3's time (a
/// horizontal Q/K/V matmul of BERT: 90 of 180 ms). At 50, the optimized IR
/// of each of 159 kernels of BERT, GPT-2, Llama, T5, resnet18, mobilenet_v2
/// and a Whisper encoder was bit for bit the same as at 5000.
constexpr unsigned kDeadStoreCandidatesPerBlock = 50;

/// Sets LLVM's options that make our kernels compile faster, each only where
/// the process has not set it (a tool's command line).
void limitLlvmSearches() {
  llvm::DenseMap<llvm::StringRef, llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  auto found = options.find("dse-memoryssa-defs-per-block-limit");
  if (found == options.end() || found->second->getNumOccurrences() > 0)
    return;
  static_cast<llvm::cl::opt<unsigned> *>(found->second)
      ->setValue(kDeadStoreCandidatesPerBlock);
}

void initializeX86Once() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    limitLlvmSearches();
  });
}

/// LLVM instructions from which a kernel counts as huge (a chain of hundreds
/// of ops; the largest kernel of the tests and examples has far fewer).
constexpr unsigned kHugeKernelInstructions = 2048;

/// Whether `function` is a huge kernel: one the kernel emitter made from a
/// huge fusion, or one of kHugeKernelInstructions or more.
bool isHuge(const llvm::Function &function) {
  return function.hasFnAttribute(kHugeKernelAttribute) ||
         function.getInstructionCount() >= kHugeKernelInstructions;
}

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
  bool huge = isHuge(function);
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

/// Whether `function` calls an AMX tile intrinsic (llvm.x86.tile*,
/// llvm.x86.tdp*: a bf16 matmul on AMX tiles, tagged `+amxbf16`).
static bool callsAmxTiles(const llvm::Function &function) {
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block)
      if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction))
        if (const llvm::Function *callee = call->getCalledFunction();
            callee && (callee->getName().starts_with("llvm.x86.tile") ||
                       callee->getName().starts_with("llvm.x86.tdp")))
          return true;
  return false;
}

/// Whether `function` calls an llvm.x86.avx512bf16.* intrinsic or rounds
/// to bfloat (which without AVX-512 BF16 is a libcall the kernels' shared
/// object cannot resolve).
static bool callsAvx512Bf16(const llvm::Function &function) {
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block) {
      if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction))
        if (const llvm::Function *callee = call->getCalledFunction();
            callee && callee->getName().starts_with("llvm.x86.avx512bf16."))
          return true;
      if (llvm::isa<llvm::FPTruncInst>(instruction) &&
          instruction.getType()->getScalarType()->isBFloatTy())
        return true;
    }
  return false;
}

mlir::LogicalResult lowerHostKernelsToLLVM(mlir::ModuleOp module,
                                           const Target &target) {
  registerPassesOnce();
  ThreadsForLowering threads(module);
  // The module is verified once, when lowered, not after each of the
  // pipeline's passes (that was a third of the lowering's time on a
  // 20,000-op chain: 3.6-4.6 s, now 2.6-3.0 s under a load average of 3).
  mlir::PassManager approximate(module.getContext());
  approximate.enableVerifier(false);
  approximate.addNestedPass<mlir::func::FuncOp>(
      std::make_unique<ApproximateMath>(hostHasAvx512(target)));
  if (mlir::failed(approximate.run(module)))
    return mlir::failure();
  if (mlir::failed(lowerF64MathToLibm(module)))
    return module.emitError("an f64 math op did not become a libm call");
  mlir::PassManager pm(module.getContext());
  // --mlir-print-ir-after-all and friends, where a tool registered them.
  // Fails, changing nothing, where no tool registered the options.
  (void)mlir::applyPassManagerCLOptions(pm);
  if (mlir::failed(mlir::parsePassPipeline(kLoweringPipeline, pm)))
    return module.emitError("the host lowering pipeline does not parse");
  pm.enableVerifier(false);
  if (mlir::failed(pm.run(module)))
    return mlir::failure();
  return mlir::verify(module);
}

namespace {

/// A module's object code, optimized IR (when asked for) and phase times.
struct CompiledPart {
  std::vector<std::uint8_t> object;
  std::string optimizedIR;
  std::chrono::nanoseconds optimize{0}, codegen{0};
};

Expected<std::unique_ptr<llvm::TargetMachine>>
createMachine(const Target &target, int optimizationLevel,
              bool quickCodegen = false) {
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
  if (quickCodegen)
    codegenLevel = llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, cpuOf(target), "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, codegenLevel));
  if (!machine)
    return Status::error("LLVM has no target machine for " + target.name);
  return machine;
}

/// The optimization pipeline of huge kernels (kHugeKernelAttribute): the
/// kernel emitter's straight-line vector code needs little more than common
/// subexpressions, one round of peepholes and loop-invariant code motion;
/// LLVM's -O2/-O3 pipelines took 3x the time on a chain's kernels (InstCombine
/// to a fixed point, unrolling analyses, SLP), for object code of the same
/// size (within 1%) and speed (bench/chain_graph.py 2000: 8 kernels, 3.4 ms
/// a run either way).
constexpr const char *kHugeKernelPipeline =
    "function(early-cse<memssa>,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "simplifycfg,loop-mssa(licm),gvn)";

/// The optimization pipeline of every other kernel, at any level from 1:
/// the kernel emitter's code is vectorized, tiled and unrolled where it pays
/// already, so LLVM's -O3 pipeline (loop and SLP vectorizers, dead-store
/// elimination, induction-variable rewriting, the inliner, InstCombine to a
/// fixed point) mostly looked for work it did not find: 0.22 s of CPU for
/// llama's 14 distinct kernels (opt-22 on their IR), this 0.09 s, and in
/// dead-store elimination alone 0.10 s for BERT's K projection, whose
/// transposed store is 512 scalar stores. Measured on an AMD EPYC (Zen 4),
/// 2 cores, fuse-run --json, min of 3 cold compiles, -O3 / this: bert 425 /
/// 299 ms, llama 405 / 299 ms; run times of bert, gpt2, llama and t5enc
/// (fuse-run --bench 300, 3 alternating passes) and of the matmul, MLP,
/// encoder-layer, softmax, layernorm, GELU and sum workloads (fuse-bench, 4-6
/// alternating passes, min) within noise of -O3's, none slower by more than
/// 1-3%. Loop rotation keeps the loops' exit test at the bottom; LLVM's
/// unroller, tried after it, cost 40 ms more of compiling for no measured
/// gain. One round of InstCombine, told not to verify that it reached a
/// fixed point: LLVM 22 otherwise aborts the process where one round leaves
/// more to combine (an attention kernel's head split and merge did).
constexpr const char *kKernelPipeline =
    "function(sroa,early-cse<memssa>,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "simplifycfg,loop(loop-rotate),loop-mssa(licm),gvn,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,simplifycfg)";

/// Optimizes `module` at `optimizationLevel` and emits its object code. A
/// module of huge kernels (`huge`) gets kHugeKernelPipeline and LLVM's quick
/// code generator, any other kKernelPipeline.
Expected<CompiledPart> compilePart(llvm::Module &module, const Target &target,
                                   int optimizationLevel, bool keepIR,
                                   bool huge = false) {
  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createMachine(target, optimizationLevel);
  if (!machine.ok())
    return machine.status();
  // Optimizing is not code generation: the first machine's level.
  Expected<std::unique_ptr<llvm::TargetMachine>> codegenMachine =
      createMachine(target, optimizationLevel, /*quickCodegen=*/huge);
  if (!codegenMachine.ok())
    return codegenMachine.status();
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
    llvm::ModulePassManager pipeline;
    if (llvm::Error error = builder.parsePassPipeline(
            pipeline, huge ? kHugeKernelPipeline : kKernelPipeline))
      return Status::error("internal error: the host kernel pipeline does "
                           "not parse: " +
                           llvm::toString(std::move(error)));
    pipeline.run(module, mam);
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
    if ((*codegenMachine)
            ->addPassesToEmitFile(codegen, os, nullptr,
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

/// The parts `module` is compiled in; a module of huge kernels (`huge`) in
/// parallel from two kernels on (each takes a tenth of a second or more).
unsigned partsFor(const llvm::Module &module, bool huge = false) {
  unsigned functions = 0;
  for (const llvm::Function &function : module)
    functions += !function.isDeclaration();
  if (functions < 2 ||
      (!huge && module.getInstructionCount() < kParallelInstructions))
    return 1;
  // At least two parts, so that a machine of one core takes the same path.
  return std::clamp(std::thread::hardware_concurrency(), 2u,
                    std::min(kMaxParallelParts, functions));
}

/// One part of the host kernels to compile in a thread of its own, as
/// bitcode: a module moves between LLVM contexts only so.
struct PartToCompile {
  llvm::SmallVector<char, 0> bitcode;
  /// Huge kernels only (compilePart's `huge`).
  bool huge = false;
  /// Where its object goes in the KernelObjectCache (empty: nowhere), and
  /// the names of its functions.
  std::string cacheKey;
  std::vector<std::string> symbols;
  /// Its place in HostObject::objects, kept for it so that the objects link
  /// in the order of the kernels, whichever came from the cache; none:
  /// appended.
  std::optional<size_t> slot;
};

/// `module` in `parts` parts balanced by size (llvm::SplitModule), added to
/// `toCompile`.
void splitIntoParts(llvm::Module &module, unsigned parts, bool huge,
                    std::vector<PartToCompile> &toCompile) {
  auto add = [&](const llvm::Module &part) {
    PartToCompile &added = toCompile.emplace_back();
    added.huge = huge;
    llvm::raw_svector_ostream os(added.bitcode);
    llvm::WriteBitcodeToFile(part, os);
  };
  if (parts == 1)
    return add(module);
  llvm::SplitModule(module, parts,
                    [&](std::unique_ptr<llvm::Module> part) { add(*part); });
}

/// Gives every local symbol of `module` external linkage and hidden
/// visibility, as llvm::SplitModule does: modules cut from it then share one
/// definition of each across their object files (all linked into one shared
/// object).
void externalizeLocals(llvm::Module &module) {
  auto externalize = [](llvm::GlobalValue &value) {
    if (!value.hasLocalLinkage())
      return;
    if (!value.hasName())
      value.setName("fuse_local");
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::GlobalValue &value : module.global_values())
    externalize(value);
}

/// Moves the kernels of huge fusions (kHugeKernelAttribute) of `module` to
/// a module of their own, returned (none where there is no such kernel):
/// they compile with quick code generation, the rest as before (a kernel
/// huge by its instruction count alone, such as a matmul micro-kernel,
/// stays). Each other symbol keeps its one definition in `module`.
std::unique_ptr<llvm::Module> takeHugeKernels(llvm::Module &module) {
  llvm::SmallPtrSet<const llvm::GlobalValue *, 16> huge;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.hasFnAttribute(kHugeKernelAttribute))
      huge.insert(&function);
  if (huge.empty())
    return nullptr;
  externalizeLocals(module);
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> hugeKernels =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
        return huge.contains(value);
      });
  for (const llvm::GlobalValue *value : huge)
    llvm::cast<llvm::Function>(const_cast<llvm::GlobalValue *>(value))
        ->deleteBody();
  return hugeKernels;
}

/// Compiles each part with an LLVM context of its own, on
/// `threadCount` threads (0: one per part) that take the parts in order.
Expected<std::vector<CompiledPart>>
compileParts(const std::vector<PartToCompile> &parts, const Target &target,
             int optimizationLevel, bool keepIR, unsigned threadCount = 0) {
  std::vector<Expected<CompiledPart>> compiled(
      parts.size(), Status::error("the part was not compiled"));
  if (threadCount == 0 || threadCount > parts.size())
    threadCount = unsigned(parts.size());
  std::atomic<size_t> next{0};
  auto compileOne = [&](size_t i) {
    llvm::LLVMContext context;
    const llvm::SmallVector<char, 0> &bitcode = parts[i].bitcode;
    llvm::Expected<std::unique_ptr<llvm::Module>> part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()),
                              "fuse_host_kernels"),
        context);
    if (!part) {
      compiled[i] = Status::error("a part of the host kernels does not "
                                  "read back from bitcode: " +
                                  llvm::toString(part.takeError()));
      return;
    }
    compiled[i] =
        compilePart(**part, target, optimizationLevel, keepIR, parts[i].huge);
  };
  {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < threadCount; ++t)
      threads.emplace_back([&] {
        for (size_t i = next++; i < parts.size(); i = next++)
          compileOne(i);
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

/// Instructions from which a module of two or more kernels is compiled one
/// kernel (with its callees) per part, the parts on all cores: a model's
/// distinct kernels (tens, of some hundred to two thousand instructions
/// each) compile in parallel. Smaller modules (most tests) compile as one.
constexpr unsigned kPerKernelInstructions = 1024;

/// Most threads that compile one module's kernels.
constexpr unsigned kMaxKernelThreads = 16;

/// The kernels of `module` in groups that compile apart: each defined
/// function with the defined functions it calls (a horizontal launch and
/// its parts), largest first by instruction count. Empty where the module
/// holds anything but functions (a global variable would have to be
/// shared between parts) or, unless `cached` (the groups' objects go to a
/// KernelObjectCache), too few instructions or kernels to pay.
std::vector<std::vector<llvm::Function *>> kernelGroups(llvm::Module &module,
                                                        bool cached) {
  if (!module.global_empty() || !module.alias_empty() ||
      !module.ifunc_empty() ||
      (!cached && module.getInstructionCount() < kPerKernelInstructions))
    return {};
  llvm::DenseMap<llvm::Function *, llvm::Function *> leader;
  std::function<llvm::Function *(llvm::Function *)> find =
      [&](llvm::Function *function) {
        llvm::Function *parent = leader.lookup(function);
        if (parent == function)
          return function;
        parent = find(parent);
        leader[function] = parent;
        return parent;
      };
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      leader[&function] = &function;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      for (llvm::User *user : function.users()) {
        auto *instruction = llvm::dyn_cast<llvm::Instruction>(user);
        if (!instruction)
          return {};
        leader[find(instruction->getFunction())] = find(&function);
      }
  std::map<llvm::Function *, std::vector<llvm::Function *>> byLeader;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      byLeader[find(&function)].push_back(&function);
  if (byLeader.empty() || (!cached && byLeader.size() < 2))
    return {};
  std::vector<std::pair<unsigned, std::vector<llvm::Function *>>> sized;
  for (auto &[first, members] : byLeader) {
    unsigned instructions = 0;
    for (llvm::Function *function : members)
      instructions += function->getInstructionCount();
    sized.emplace_back(instructions, std::move(members));
  }
  std::stable_sort(
      sized.begin(), sized.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<std::vector<llvm::Function *>> groups;
  for (auto &entry : sized)
    groups.push_back(std::move(entry.second));
  return groups;
}

/// Drops the declarations of `part` that nothing in it uses: the other
/// kernels of the module it was cut from.
void dropUnusedDeclarations(llvm::Module &part) {
  for (llvm::Function &function : llvm::make_early_inc_range(part))
    if (function.isDeclaration() && function.use_empty())
      function.eraseFromParent();
}

/// The KernelObjectCache key of `part`, whose defined functions are
/// `functions`: the SHA-256 of its bitcode with those named by their place,
/// of the target, the optimization level and the pipelines. Leaves them so
/// named.
std::string contentKey(llvm::Module &part,
                       llvm::ArrayRef<llvm::Function *> functions,
                       const Target &target, int optimizationLevel) {
  for (size_t i = 0; i < functions.size(); ++i)
    functions[i]->setName("fuse_kernel_" + std::to_string(i));
  llvm::SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream os(bitcode);
  llvm::WriteBitcodeToFile(part, os);
  Sha256 hasher;
  // The pipelines too: an object optimized by another is another object.
  hasher.update(target.name + '\n' + std::to_string(optimizationLevel) + '\n' +
                kKernelPipeline + '\n' + kHugeKernelPipeline + '\n');
  hasher.update(std::span(
      reinterpret_cast<const std::uint8_t *>(bitcode.data()), bitcode.size()));
  std::string key;
  for (std::uint8_t byte : hasher.finish())
    key += llvm::formatv("{0:x-2}", byte).str();
  return key;
}

/// The KernelObjectCache key of the quickly compiled object of the kernel
/// whose key at the full level is `key`.
std::string quickKeyOf(const std::string &key) {
  Sha256 hasher;
  hasher.update("quick\n" + key);
  std::string quick;
  for (std::uint8_t byte : hasher.finish())
    quick += llvm::formatv("{0:x-2}", byte).str();
  return quick;
}

/// The names of a cached kernel's functions: each old name without its
/// bundle's kernel number (`fuse_k12_matmul` -> `matmul`), then the key, so
/// that the object links into any bundle and a profile still says what ran.
std::vector<std::string> contentNames(llvm::ArrayRef<std::string> names,
                                      const std::string &key) {
  std::vector<std::string> symbols;
  for (size_t i = 0; i < names.size(); ++i) {
    llvm::StringRef rest(names[i]);
    if (rest.consume_front("fuse_k")) {
      rest = rest.drop_while(llvm::isDigit);
      rest.consume_front("_");
    }
    std::string symbol =
        "fuse_" + rest.str() + (rest.empty() ? "" : "_") + key.substr(0, 16);
    if (i > 0)
      symbol += "_" + std::to_string(i);
    symbols.push_back(std::move(symbol));
  }
  return symbols;
}

/// Each group of `module` (kernelGroups) as a part of its own: a copy of
/// the module with that group's definitions and the rest declared. With a
/// `cache`, each part's functions are named after its content
/// (`object.renamed`), and a part whose object the cache holds (or that an
/// earlier group of the module already is) is not compiled again: the
/// cached object joins `object.objects`.
void splitByKernel(llvm::Module &module,
                   const std::vector<std::vector<llvm::Function *>> &groups,
                   const Target &target, int optimizationLevel,
                   KernelObjectCache *cache, bool tiered, HostObject &object,
                   std::vector<PartToCompile> &toCompile) {
  std::map<std::string, std::vector<std::string>> symbolsOfKey;
  for (const std::vector<llvm::Function *> &group : groups) {
    llvm::SmallPtrSet<const llvm::GlobalValue *, 4> members(group.begin(),
                                                            group.end());
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          return members.contains(value);
        });
    PartToCompile added;
    if (cache) {
      std::vector<std::string> names;
      std::vector<llvm::Function *> functions;
      for (llvm::Function *function : group) {
        names.push_back(function->getName().str());
        functions.push_back(llvm::cast<llvm::Function>(map[function]));
      }
      dropUnusedDeclarations(*part);
      std::string key = contentKey(*part, functions, target, optimizationLevel);
      auto known = symbolsOfKey.find(key);
      KernelObjectCache::Object cached;
      if (known == symbolsOfKey.end() && (cached = cache->lookup(key))) {
        ++object.kernelsReused;
        object.objects.push_back(cached->object);
        known = symbolsOfKey.emplace(key, cached->symbols).first;
      }
      // Tiered: a kernel first seen compiles quickly, under a key of its
      // own; seen quickly compiled before, at the full level (`key`).
      if (tiered && known == symbolsOfKey.end()) {
        std::string quickKey = quickKeyOf(key);
        known = symbolsOfKey.find(quickKey);
        if (known == symbolsOfKey.end() && !cache->lookup(quickKey)) {
          added.huge = true;
          ++object.kernelsQuick;
          key = std::move(quickKey);
        }
      }
      if (known != symbolsOfKey.end()) {
        for (size_t i = 0; i < names.size(); ++i)
          object.renamed[names[i]] = known->second[i];
        continue;
      }
      ++object.kernelsCompiled;
      added.symbols = contentNames(names, key);
      for (size_t i = 0; i < names.size(); ++i) {
        functions[i]->setName(added.symbols[i]);
        object.renamed[names[i]] = added.symbols[i];
      }
      symbolsOfKey.emplace(key, added.symbols);
      added.cacheKey = std::move(key);
      added.slot = object.objects.size();
      object.objects.emplace_back();
    }
    llvm::raw_svector_ostream os(added.bitcode);
    llvm::WriteBitcodeToFile(*part, os);
    toCompile.push_back(std::move(added));
  }
}

bool hasDefinitions(const llvm::Module &module) {
  return llvm::any_of(module, [](const llvm::Function &function) {
    return !function.isDeclaration();
  });
}

} // namespace

Expected<HostObject> emitHostObject(mlir::ModuleOp module, const Target &target,
                                    int optimizationLevel, bool keepIR,
                                    KernelObjectCache *cache, bool tiered) {
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
    // A bf16 matmul kernel (HostBf16Matmul.cpp) calls AVX-512 BF16
    // intrinsics, which x86-64-v4 lacks: that function alone gets them (its
    // bundle kernel is tagged `+avx512bf16` for the runtime to check).
    if (callsAmxTiles(function))
      function.addFnAttr("target-features", "+avx512bf16,+amx-tile,+amx-bf16");
    else if (callsAvx512Bf16(function))
      function.addFnAttr("target-features", "+avx512bf16");
    // AVX-512 kernels use 512-bit vectors as written, not split in two.
    if (target.name == "host-x86-64-v4") {
      function.addFnAttr("prefer-vector-width", "512");
      function.addFnAttr("min-legal-vector-width", "512");
    }
    keepLoopsAsWritten(function);
  }

  std::unique_ptr<llvm::Module> hugeKernels = takeHugeKernels(*llvmModule);
  // The IR of a dump is the module's, as one (per-kernel parts print each
  // their own attribute groups).
  std::vector<std::vector<llvm::Function *>> groups;
  if (!keepIR)
    groups = kernelGroups(*llvmModule, cache != nullptr);
  unsigned parts = groups.empty() ? partsFor(*llvmModule) : 0;
  if (!hugeKernels && parts == 1) {
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

  // The parts run at once: the phases share the wall time (splitting them
  // off counts as optimizing).
  start = Clock::now();
  std::vector<PartToCompile> toCompile;
  if (!groups.empty())
    splitByKernel(*llvmModule, groups, target, optimizationLevel, cache,
                  tiered && optimizationLevel > 0, result, toCompile);
  else if (hasDefinitions(*llvmModule))
    splitIntoParts(*llvmModule, parts, /*huge=*/false, toCompile);
  if (hugeKernels)
    splitIntoParts(*hugeKernels, partsFor(*hugeKernels, /*huge=*/true),
                   /*huge=*/true, toCompile);
  // One thread per huge part (as before); per-kernel parts on all cores.
  unsigned threadCount = groups.empty()
                             ? 0
                             : std::clamp(std::thread::hardware_concurrency(),
                                          2u, kMaxKernelThreads);
  Expected<std::vector<CompiledPart>> compiled =
      compileParts(toCompile, target, optimizationLevel, keepIR, threadCount);
  if (!compiled.ok())
    return compiled.status();
  std::chrono::nanoseconds wall = Clock::now() - start;
  std::chrono::nanoseconds optimizing{0}, emitting{0};
  for (size_t i = 0; i < compiled->size(); ++i) {
    CompiledPart &part = (*compiled)[i];
    if (!toCompile[i].cacheKey.empty())
      cache->store(toCompile[i].cacheKey,
                   {part.object, std::move(toCompile[i].symbols)});
    optimizing += part.optimize;
    emitting += part.codegen;
    result.optimizedIR += part.optimizedIR;
    if (toCompile[i].slot)
      result.objects[*toCompile[i].slot] = std::move(part.object);
    else
      result.objects.push_back(std::move(part.object));
  }
  // The wall time, split between the phases as the parts' time was.
  double total = double((optimizing + emitting).count());
  result.codegen = std::chrono::nanoseconds(std::int64_t(
      total > 0 ? double(wall.count()) * double(emitting.count()) / total : 0));
  result.optimize = wall - result.codegen;
  return result;
}

} // namespace fuse
