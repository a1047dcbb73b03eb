//===- fuse-compile.cpp - Compile a graph for the host or a GPU -----------===//
//
//   fuse-compile GRAPH.mlir
//                --target=host|host-x86-64-v3|host-x86-64-v4|sm_80|sm_90
//                -o DIR [--timings] [--no-fusion] [-O0..3]
//                [--emit=fused|kernels|llvm-dialect|llvm|nvvm|ptx]
//                [--mlir-print-ir-after-all ...]
//
// Host: writes DIR/kernels.so (the bundle's shared object). GPU: writes
// DIR/ENTRY.ptx per kernel and DIR/ENTRY.cubin where ptxas ran. Both write
// DIR/bundle.txt (kernels, bindings, launch configurations, memory plan).
// `--emit` prints an intermediate form on stdout instead (for lit tests;
// `nvvm` and `ptx` for GPU targets). Exits non-zero with a message for a
// missing or malformed file, an unknown target or an op the code generator
// cannot compile.
//
//===----------------------------------------------------------------------===//

#include "compiler/gpu/GpuCompiler.h"
#include "compiler/host/HostCompiler.h"
#include "runtime/cache/ArenaFormula.h"
#include "runtime/device/HostIsa.h"
#include "runtime/ir/RegularFile.h"
#include "tools/HelpCategories.h"
#include "tools/InputNesting.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

using namespace fuse;

namespace {

llvm::cl::OptionCategory compileCategory("fuse-compile options");
llvm::cl::OptionCategory mlirCategory("MLIR options (IR dumps)");

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<graph.mlir>"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string>
    targetName("target",
               llvm::cl::desc("host, host-x86-64-v3, host-x86-64-v4, sm_80 "
                              "or sm_90"),
               llvm::cl::init("host"), llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string> outputDir("o", llvm::cl::desc("Output directory"),
                                     llvm::cl::value_desc("dir"),
                                     llvm::cl::cat(compileCategory));
llvm::cl::opt<bool> timings("timings",
                            llvm::cl::desc("Print the time of each phase"),
                            llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string> matmulPrecision(
    "matmul-precision",
    llvm::cl::desc("f32 (default) or bf16: matmuls whose B is a weight round "
                   "A and B to bf16 and sum in f32 (AVX-512 BF16, "
                   "host-x86-64-v4)"),
    llvm::cl::value_desc("f32|bf16"), llvm::cl::init("f32"),
    llvm::cl::cat(compileCategory));
llvm::cl::opt<bool>
    amx("amx",
        llvm::cl::desc("With --matmul-precision=bf16: bf16 matmuls on AMX "
                       "tiles (tdpbf16ps; the bundle then runs only on a CPU "
                       "with AMX-BF16)"),
        llvm::cl::cat(compileCategory));
llvm::cl::opt<bool> noFusion("no-fusion", llvm::cl::desc("One kernel per op"),
                             llvm::cl::cat(compileCategory));
llvm::cl::opt<unsigned> optLevel("O", llvm::cl::desc("Optimization level"),
                                 llvm::cl::Prefix, llvm::cl::init(3),
                                 llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string>
    emit("emit",
         llvm::cl::desc("Print an intermediate form: fused, kernels, "
                        "llvm-dialect or llvm (host); fused, kernels, nvvm "
                        "or ptx (GPU)"),
         llvm::cl::init(""), llvm::cl::cat(compileCategory));

llvm::cl::opt<unsigned>
    repeat("repeat",
           llvm::cl::desc("Compile this many times; --timings then shows the "
                          "last (warm) compilation"),
           llvm::cl::init(1), llvm::cl::cat(compileCategory));

int fail(const std::string &message) {
  llvm::errs() << "fuse-compile: error: " << message << "\n";
  return 1;
}

/// The compiler's remarks (a fusion it split to generate it), as notes.
void printRemarks(const Compilation &compilation) {
  for (const std::string &remark : compilation.remarks)
    llvm::errs() << "fuse-compile: note: " << remark << "\n";
}

/// A binding's kind as the summary words it: an intermediate lives in the
/// arena.
std::string_view summaryBindingName(BindingKind kind) {
  return kind == BindingKind::Intermediate ? "arena" : bindingKindName(kind);
}

void printStaticArena(const Bundle &bundle, llvm::raw_ostream &os);

void printSummary(const Compilation &compilation, llvm::raw_ostream &os) {
  const Bundle &bundle = compilation.bundle;
  os << "target " << bundle.target << "\nversion " << bundle.versionId
     << "\nkernels " << bundle.kernels.size() << "\n";
  for (std::uint32_t k : bundle.launchOrder) {
    const BundleKernel &kernel = bundle.kernels[k];
    os << "kernel " << k << " " << kernel.entry << " schedule "
       << scheduleKindName(kernel.schedule);
    if (kernel.payloadKind == PayloadKind::HostSharedObject &&
        kernel.symbolicIterations)
      os << " iterations " << kernel.symbolicIterations->toString() << " grain "
         << kernel.launch.grain;
    else if (kernel.payloadKind == PayloadKind::HostSharedObject)
      os << " iterations " << kernel.launch.iterations << " grain "
         << kernel.launch.grain;
    else if (kernel.symbolicIterations) {
      // A GPU kernel of a symbolic bundle: its grid is bound with the dims
      // (KernelAbi.h, "Runtime dims").
      const LaunchConfig &launch = kernel.launch;
      os << " iterations " << kernel.symbolicIterations->toString()
         << " grid of " << launch.grain << " per block, at most "
         << launch.gridX << " block " << launch.blockX << " shared "
         << launch.sharedMemoryBytes;
    } else {
      const LaunchConfig &launch = kernel.launch;
      os << " grid " << launch.gridX;
      if (launch.gridY != 1 || launch.gridZ != 1)
        os << "x" << launch.gridY << "x" << launch.gridZ;
      os << " block " << launch.blockX << " shared "
         << launch.sharedMemoryBytes;
    }
    if (kernel.payloadKind == PayloadKind::HostSharedObject &&
        kernel.launch.chunksPerWorker)
      os << " chunks per worker " << kernel.launch.chunksPerWorker;
    if (kernel.payloadKind != PayloadKind::HostSharedObject)
      for (size_t i = 0; i < kernel.runtimeDims.size(); ++i)
        os << (i ? "," : " dims ") << kernel.runtimeDims[i];
    if (kernel.perBinding) {
      os << " once per binding";
      for (size_t i = 0; i < kernel.bindingInputs.size(); ++i)
        os << (i ? "," : " of input ") << kernel.bindingInputs[i];
    }
    os << "\n  ops";
    for (std::uint32_t op : kernel.ops)
      os << " " << op << ":" << mnemonic(bundle.graph.ops[op].kind);
    os << "\n  bindings";
    for (const KernelBinding &binding : kernel.bindings)
      os << " " << summaryBindingName(binding.kind) << "#" << binding.index
         << "(%" << boundTensor(bundle, binding) << ")";
    if (!kernel.checkedOps.empty()) {
      os << "\n  error record";
      for (std::uint32_t op : kernel.checkedOps)
        os << " " << op << ":" << mnemonic(bundle.graph.ops[op].kind);
    }
    os << "\n";
  }
  if (bundle.isSymbolic()) {
    // Issue 22: the arena is planned when a run binds the dims; its size
    // as formulas over them (ArenaFormula.h).
    os << "arena planned per binding of the dims";
    if (Expected<ArenaFormula> formula = arenaFormula(bundle.memoryPlan);
        formula.ok())
      os << ": " << describeArenaFormula(*formula, nullptr, {});
    os << "\n";
    for (std::size_t i = 0; i < bundle.memoryPlan.symbolicSlices.size(); ++i) {
      const SymbolicSlice &slice = bundle.memoryPlan.symbolicSlices[i];
      os << "  arena#" << i << " tensor %" << slice.tensor << " bytes "
         << slice.bytes.toString() << "\n";
    }
  } else {
    printStaticArena(bundle, os);
  }
  if (!bundle.kernels.empty() &&
      bundle.kernels.front().payloadKind == PayloadKind::HostSharedObject)
    os << "shared object " << bundle.kernels.front().payload.size()
       << " bytes\n";
}

void printStaticArena(const Bundle &bundle, llvm::raw_ostream &os) {
  os << "arena " << bundle.memoryPlan.peakBytes << " bytes";
  if (bundle.memoryPlan.boundBytes)
    os << ", of it " << bundle.memoryPlan.boundBytes
       << " kept per binding of the inputs";
  os << "\n";
  for (std::size_t i = 0; i < bundle.memoryPlan.intermediates.size(); ++i) {
    const ArenaSlice &slice = bundle.memoryPlan.intermediates[i];
    os << "  arena#" << i << " tensor %" << slice.tensor << " offset "
       << slice.offset << " bytes " << slice.bytes << "\n";
  }
}

void printPhaseTimings(const Compilation &compilation) {
  double total = 0;
  for (const PhaseTiming &phase : compilation.phases) {
    double ms = double(phase.duration.count()) / 1e6;
    total += ms;
    llvm::errs() << llvm::format("%-10s %8.2f ms\n", phase.phase.c_str(), ms);
  }
  llvm::errs() << llvm::format("%-10s %8.2f ms\n", "total", total);
}

/// The module --emit names, if the compile made it (before a failure, it
/// helps to see why): fused or kernels, or `lowered` (the target's name for
/// the lowered module: nvvm, llvm-dialect).
void printEmitted(llvm::StringRef emitKind, const CompileDumps &dumps,
                  llvm::StringRef lowered) {
  if (emitKind == "fused")
    llvm::outs() << dumps.fused;
  else if (emitKind == "kernels")
    llvm::outs() << dumps.kernels;
  else if (emitKind == lowered)
    llvm::outs() << dumps.lowered;
}

/// Into `outDir` (created): the target's kernel files (`writeKernels`
/// answers why it could not, or nothing), then the summary, bundle.txt.
int writeOutputs(
    const std::string &outDir, const Compilation &compilation,
    llvm::function_ref<std::optional<std::string>()> writeKernels) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("cannot create '" + outDir + "': " + ec.message());
  if (std::optional<std::string> error = writeKernels())
    return fail(*error);
  std::error_code ec;
  llvm::raw_fd_ostream summary(outDir + "/bundle.txt", ec);
  if (ec)
    return fail("cannot write bundle.txt: " + ec.message());
  printSummary(compilation, summary);
  return 0;
}

bool writeBytes(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << bytes;
  return true;
}

/// GPU targets: PTX per kernel, cubins where ptxas ran, the summary.
int compileForGpu(const Target &target, const std::string &input,
                  llvm::StringRef source, const CompileOptions &options,
                  const std::string &outDir, const std::string &emitKind,
                  bool printTimings, unsigned times) {
  if (!emitKind.empty() && emitKind != "fused" && emitKind != "kernels" &&
      emitKind != "nvvm" && emitKind != "ptx")
    return fail("unknown --emit=" + emitKind + " for target " + target.name +
                "; expected fused, kernels, nvvm or ptx");
  GpuCompiler compiler;
  CompileDumps dumps;
  Expected<Compilation> compilation = Status::error("not compiled");
  for (unsigned i = 0; i < std::max(1u, times); ++i) {
    dumps = CompileDumps();
    compilation =
        compiler.compileSource(source.str(), target, options, &dumps, input);
  }
  printEmitted(emitKind, dumps, "nvvm");
  if (emitKind == "ptx")
    for (const KernelArtifacts &kernel : dumps.artifacts)
      llvm::outs() << "// kernel " << kernel.entry << "\n" << kernel.ptx;
  if (!compilation.ok())
    return fail(input + ": " + compilation.message());
  printRemarks(*compilation);
  auto writeKernels = [&]() -> std::optional<std::string> {
    for (const KernelArtifacts &kernel : dumps.artifacts) {
      std::string base = outDir + "/" + kernel.entry;
      if (!writeBytes(base + ".ptx", kernel.ptx))
        return "cannot write " + base + ".ptx";
      llvm::StringRef cubin(reinterpret_cast<const char *>(kernel.cubin.data()),
                            kernel.cubin.size());
      if (!cubin.empty() && !writeBytes(base + ".cubin", cubin))
        return "cannot write " + base + ".cubin";
    }
    return std::nullopt;
  };
  if (!outDir.empty())
    if (int status = writeOutputs(outDir, *compilation, writeKernels))
      return status;
  if (printTimings) {
    printPhaseTimings(*compilation);
    for (const KernelArtifacts &kernel : dumps.artifacts)
      if (!kernel.ptxasLog.empty())
        llvm::errs() << kernel.ptxasLog;
  }
  return 0;
}

/// Host targets: the kernels' shared object, the summary.
int compileForHost(const Target &target, const std::string &input,
                   llvm::StringRef source, const CompileOptions &options,
                   const std::string &outDir, const std::string &emitKind,
                   bool printTimings) {
  if (!emitKind.empty() && emitKind != "fused" && emitKind != "kernels" &&
      emitKind != "llvm-dialect" && emitKind != "llvm")
    return fail("unknown --emit=" + emitKind +
                "; expected fused, kernels, llvm-dialect or llvm");
  HostCompiler compiler;
  CompileDumps dumps;
  Expected<Compilation> compilation =
      compiler.compileSource(source.str(), target, options, &dumps, input);
  printEmitted(emitKind, dumps, "llvm-dialect");
  if (emitKind == "llvm")
    llvm::outs() << dumps.llvmIR;
  if (!compilation.ok())
    return fail(input + ": " + compilation.message());
  printRemarks(*compilation);
  // The kernels' one shared object.
  auto writeKernels = [&]() -> std::optional<std::string> {
    const Bundle &bundle = compilation->bundle;
    if (bundle.kernels.empty())
      return std::nullopt;
    std::error_code ec;
    llvm::raw_fd_ostream so(outDir + "/kernels.so", ec);
    if (ec)
      return "cannot write kernels.so: " + ec.message();
    const auto &payload = bundle.kernels.front().payload;
    so.write(reinterpret_cast<const char *>(payload.data()), payload.size());
    return std::nullopt;
  };
  if (!outDir.empty())
    if (int status = writeOutputs(outDir, *compilation, writeKernels))
      return status;
  if (printTimings)
    printPhaseTimings(*compilation);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // IR dumps after each pass (--mlir-print-ir-after-all, ...).
  mlir::registerPassManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  // --help shows this tool's options and MLIR's IR dumps; LLVM's own
  // (backends, code generation) stay under --help-hidden.
  for (auto &[name, option] : llvm::cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
  showOnlyInHelp({&compileCategory, &mlirCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Fuse: compile a graph for the host or "
                                    "a GPU\n");
  // lld, linking in process, resets every llvm::cl option: read them now.
  const std::string input = inputFile, outDir = outputDir, emitKind = emit;
  const bool printTimings = timings, fusion = !noFusion;
  const unsigned times = repeat;
  const std::string precision = matmulPrecision;
  const bool amxTiles = amx;
  const int level = int(optLevel);
  std::string name = targetName;
  if (name == "host") {
    std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
    if (!level || *level == device::HostIsaLevel::X86_64_V2)
      return fail("this CPU supports neither x86-64-v3 nor x86-64-v4; name "
                  "a target with --target=host-x86-64-v3");
    name = device::hostTargetName(*level);
  }
  Expected<Target> target = Target::parse(name);
  if (!target.ok())
    return fail(target.message());
  if (emitKind.empty() && outDir.empty())
    return fail("no output directory: give -o DIR (or --emit=...)");
  // A regular file (not /dev/zero, a FIFO or a directory), bounded, nested
  // no deeper than the parser can take.
  Expected<std::string> file = readRegularFile(input, std::uint64_t(1) << 31);
  if (!file.ok())
    return fail(file.message());
  if (std::optional<std::string> deep = checkMlirNesting(*file))
    return fail("'" + input + "': " + *deep);
  CompileOptions options;
  options.optimizationLevel = level;
  options.enableFusion = fusion;
  if (precision == "bf16")
    options.matmulPrecision = MatmulPrecision::Bf16;
  else if (precision != "f32")
    return fail("unknown --matmul-precision=" + precision +
                "; expected f32 or bf16");
  options.amxTiles = amxTiles;
  if (target->isCuda())
    return compileForGpu(*target, input, *file, options, outDir, emitKind,
                         printTimings, times);
  return compileForHost(*target, input, *file, options, outDir, emitKind,
                        printTimings);
}
