//===- fuse-compile.cpp - Compile a graph for the host
//---------------------===//
//
//   fuse-compile GRAPH.mlir --target=host|host-x86-64-v3|host-x86-64-v4
//                -o DIR [--timings] [--emit=fused|kernels|llvm-dialect|llvm]
//                [--no-fusion] [-O0..3] [--mlir-print-ir-after-all ...]
//
// Writes DIR/kernels.so (the bundle's shared object) and DIR/bundle.txt (its
// kernels, bindings, launch configurations and memory plan). `--emit` prints
// an intermediate form on stdout instead (for lit tests). Exits non-zero
// with a message for a missing or malformed file, an unknown target or an op
// the host code generator cannot compile.
//
//===----------------------------------------------------------------------===//

#include "compiler/HostCompiler.h"
#include "runtime/device/HostIsa.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace fuse;

namespace {

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<graph.mlir>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string>
    targetName("target",
               llvm::cl::desc("host, host-x86-64-v3 or host-x86-64-v4"),
               llvm::cl::init("host"));
llvm::cl::opt<std::string> outputDir("o", llvm::cl::desc("Output directory"),
                                     llvm::cl::value_desc("dir"));
llvm::cl::opt<bool> timings("timings",
                            llvm::cl::desc("Print the time of each phase"));
llvm::cl::opt<bool> noFusion("no-fusion", llvm::cl::desc("One kernel per op"));
llvm::cl::opt<unsigned> optLevel("O", llvm::cl::desc("Optimization level"),
                                 llvm::cl::Prefix, llvm::cl::init(3));
llvm::cl::opt<std::string>
    emit("emit",
         llvm::cl::desc("Print an intermediate form: fused, kernels, "
                        "llvm-dialect or llvm"),
         llvm::cl::init(""));

int fail(const std::string &message) {
  llvm::errs() << "fuse-compile: error: " << message << "\n";
  return 1;
}

const char *bindingKindName(BindingKind kind) {
  switch (kind) {
  case BindingKind::GraphInput:
    return "input";
  case BindingKind::GraphOutput:
    return "output";
  case BindingKind::Intermediate:
    return "arena";
  }
  return "?";
}

void printSummary(const Compilation &compilation, llvm::raw_ostream &os) {
  const Bundle &bundle = compilation.bundle;
  os << "target " << bundle.target << "\nversion " << bundle.versionId
     << "\nkernels " << bundle.kernels.size() << "\n";
  for (std::uint32_t k : bundle.launchOrder) {
    const BundleKernel &kernel = bundle.kernels[k];
    os << "kernel " << k << " " << kernel.entry << " schedule "
       << scheduleKindName(kernel.schedule) << " iterations "
       << kernel.launch.iterations << " grain " << kernel.launch.grain
       << "\n  ops";
    for (std::uint32_t op : kernel.ops)
      os << " " << op << ":" << mnemonic(bundle.graph.ops[op].kind);
    os << "\n  bindings";
    for (const KernelBinding &binding : kernel.bindings)
      os << " " << bindingKindName(binding.kind) << "#" << binding.index << "(%"
         << boundTensor(bundle, binding) << ")";
    os << "\n";
  }
  os << "arena " << bundle.memoryPlan.peakBytes << " bytes\n";
  for (std::size_t i = 0; i < bundle.memoryPlan.intermediates.size(); ++i) {
    const ArenaSlice &slice = bundle.memoryPlan.intermediates[i];
    os << "  arena#" << i << " tensor %" << slice.tensor << " offset "
       << slice.offset << " bytes " << slice.bytes << "\n";
  }
  if (!bundle.kernels.empty())
    os << "shared object " << bundle.kernels.front().payload.size()
       << " bytes\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // IR dumps after each pass (--mlir-print-ir-after-all, ...).
  mlir::registerPassManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Fuse: compile a graph for the host\n");
  // lld, linking in process, resets every llvm::cl option: read them now.
  const std::string input = inputFile, outDir = outputDir, emitKind = emit;
  const bool printTimings = timings, fusion = !noFusion;
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
  if (!target->isHost())
    return fail("fuse-compile compiles for the host only so far; target '" +
                name + "' is not host, host-x86-64-v3 or host-x86-64-v4");
  if (emitKind.empty() && outDir.empty())
    return fail("no output directory: give -o DIR (or --emit=...)");
  if (!emitKind.empty() && emitKind != "fused" && emitKind != "kernels" &&
      emitKind != "llvm-dialect" && emitKind != "llvm")
    return fail("unknown --emit=" + emitKind +
                "; expected fused, kernels, llvm-dialect or llvm");

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(input);
  if (!file)
    return fail("cannot read '" + input + "': " + file.getError().message());

  CompileOptions options;
  options.optimizationLevel = level;
  options.enableFusion = fusion;
  HostCompiler compiler;
  HostCompileDumps dumps;
  Expected<Compilation> compilation = compiler.compileSource(
      (*file)->getBuffer().str(), *target, options, &dumps, input);
  // What was made before a failure helps to see why.
  if (emitKind == "fused")
    llvm::outs() << dumps.fused;
  else if (emitKind == "kernels")
    llvm::outs() << dumps.kernels;
  else if (emitKind == "llvm-dialect")
    llvm::outs() << dumps.llvmDialect;
  else if (emitKind == "llvm")
    llvm::outs() << dumps.llvmIR;
  if (!compilation.ok())
    return fail(input + ": " + compilation.message());

  if (!outDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
      return fail("cannot create '" + outDir + "': " + ec.message());
    const Bundle &bundle = compilation->bundle;
    if (!bundle.kernels.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream so(outDir + "/kernels.so", ec);
      if (ec)
        return fail("cannot write kernels.so: " + ec.message());
      const auto &payload = bundle.kernels.front().payload;
      so.write(reinterpret_cast<const char *>(payload.data()), payload.size());
    }
    std::error_code ec;
    llvm::raw_fd_ostream summary(outDir + "/bundle.txt", ec);
    if (ec)
      return fail("cannot write bundle.txt: " + ec.message());
    printSummary(*compilation, summary);
  }
  if (printTimings) {
    double total = 0;
    for (const PhaseTiming &phase : compilation->phases) {
      double ms = double(phase.duration.count()) / 1e6;
      total += ms;
      llvm::errs() << llvm::format("%-10s %8.2f ms\n", phase.phase.c_str(), ms);
    }
    llvm::errs() << llvm::format("%-10s %8.2f ms\n", "total", total);
  }
  return 0;
}
