//===- CompilerLibrary.cpp - fuse-run's compiler functions, with MLIR -----===//
//
// libFuseRunCompiler.so: CompilerAccess.h's functions implemented with MLIR
// and the host compiler, and the table that the runtime-only fuse-run loads
// (fuseRunCompilerFunctions). The library also holds all of fuse-run, which
// calls these functions directly.
//
//===----------------------------------------------------------------------===//

#include "CompilerAccess.h"

#include "compiler/common/GraphTranslation.h"
#include "compiler/host/HostCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

extern "C" int fuseRunFullMain(int argc, char **argv);

namespace fuse::run {
namespace {

/// The name of each function argument as written in the source (`%x` ->
/// "x"), read at the argument's location; empty where it cannot be found.
std::vector<std::string> sourceArgumentNames(mlir::ModuleOp module,
                                             llvm::StringRef source) {
  std::vector<std::string> names;
  mlir::func::FuncOp func;
  module.walk([&](mlir::func::FuncOp f) {
    if (!func && !f.isExternal())
      func = f;
  });
  if (!func)
    return names;
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  for (mlir::BlockArgument arg : func.getArguments()) {
    std::string name;
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(arg.getLoc())) {
      unsigned line = loc.getLine(), column = loc.getColumn();
      if (line >= 1 && line <= lines.size() && column >= 1 &&
          column <= lines[line - 1].size() &&
          lines[line - 1][column - 1] == '%') {
        llvm::StringRef rest = lines[line - 1].drop_front(column);
        name = rest.take_while([](char c) {
                     return std::isalnum((unsigned char)c) || c == '_' ||
                            c == '$' || c == '.' || c == '-';
                   })
                   .str();
      }
    }
    names.push_back(name);
  }
  return names;
}

Expected<ParsedSource> parseSourceWithMlir(const std::string &source,
                                           const std::string &path) {
  mlir::MLIRContext context;
  loadTranslationDialects(context);
  context.printOpOnDiagnostic(false);
  std::string diagnosticText;
  llvm::raw_string_ostream diagnosticStream(diagnosticText);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, path), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return Status::error("'" + path + "' does not parse:\n" + diagnosticText);
  mlir::FailureOr<Graph> parsedGraph = moduleToGraph(*module);
  if (mlir::failed(parsedGraph))
    return Status::error("'" + path + "' is not a graph of fuse ops:\n" +
                         diagnosticText);
  ParsedSource parsed;
  parsed.graph = std::move(*parsedGraph);
  module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "fuse.fusion")
      parsed.handFused = true;
  });
  parsed.argumentNames = sourceArgumentNames(*module, source);
  return parsed;
}

Expected<std::string> printGraphWithMlir(const Graph &graph) {
  mlir::MLIRContext context;
  loadTranslationDialects(context);
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> printed =
      graphToModule(context, graph);
  if (mlir::failed(printed))
    return Status::error("the graph does not translate to fuse ops");
  std::string text;
  llvm::raw_string_ostream os(text);
  (*printed)->print(os);
  return text;
}

Expected<Compilation> compileWithHostCompiler(const std::string &source,
                                              const Target &target,
                                              const CompileOptions &options,
                                              BundleCache *cache,
                                              const std::string &path) {
  HostCompiler compiler;
  compiler.keepKernelsIn(cache);
  return compiler.compileSource(source, target, options, nullptr, path);
}

Expected<std::unique_ptr<Compiler>> newHostCompiler() {
  return std::unique_ptr<Compiler>(std::make_unique<HostCompiler>());
}

const CompilerFunctions kFunctions = {
    CompilerFunctions::kVersion, parseSourceWithMlir, printGraphWithMlir,
    compileWithHostCompiler,     newHostCompiler,     fuseRunFullMain};

} // namespace

Status loadCompiler() { return Status::success(); }

Expected<ParsedSource> parseSource(const std::string &source,
                                   const std::string &path) {
  return parseSourceWithMlir(source, path);
}

Expected<std::string> printGraph(const Graph &graph) {
  return printGraphWithMlir(graph);
}

Expected<Compilation> compileHostSource(const std::string &source,
                                        const Target &target,
                                        const CompileOptions &options,
                                        BundleCache *cache,
                                        const std::string &path) {
  return compileWithHostCompiler(source, target, options, cache, path);
}

Expected<std::unique_ptr<Compiler>> makeHostCompiler() {
  return newHostCompiler();
}

void preloadCompiler() {}

void finishPreload() {}

bool compilerLinkedIn() { return true; }

int runFullTool(int argc, char **argv) { return fuseRunFullMain(argc, argv); }

} // namespace fuse::run

extern "C" __attribute__((visibility("default")))
const fuse::run::CompilerFunctions *
fuseRunCompilerFunctions() {
  return &fuse::run::kFunctions;
}
