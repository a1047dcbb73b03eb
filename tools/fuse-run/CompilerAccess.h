//===- CompilerAccess.h - What fuse-run needs of the compiler ---*- C++ -*-===//
//
// Everything fuse-run does with MLIR and the host compiler, behind plain
// functions of runtime types. fuse-run itself links only the runtime and
// LLVM's Support library (statically), so a warm start (an ONNX model whose
// bundle is in the cache) never maps libLLVM or libMLIR: their dynamic
// linking and static constructors cost more than the rest of the start-up.
// The compiler library (libFuseRunCompiler.so, next to the runtime library)
// implements these functions with MLIR; fuse-run loads it the first time
// one is called: on a cache miss, for a .mlir model and for --generate. The
// same library holds all of fuse-run (fuseRunFullMain), for the command
// lines that name LLVM's own options (--help, --help-hidden, backend
// options such as --x86-asm-syntax), which only libLLVM knows.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_COMPILERACCESS_H
#define FUSE_TOOLS_FUSE_RUN_COMPILERACCESS_H

#include "runtime/Compiler.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace fuse {

class BundleCache;

namespace run {

/// A function of fuse ops as the compiler library read it.
struct ParsedSource {
  Graph graph;
  /// It holds fuse.fusion ops: its kernels are the ones written.
  bool handFused = false;
  /// The name of each function argument as written in the source (`%x` ->
  /// "x"); empty where it cannot be found.
  std::vector<std::string> argumentNames;
};

/// Loads the compiler library if it is not loaded (a no-op where it is
/// linked in); fails with its path and why it does not load.
Status loadCompiler();

/// The compiler library's functions; they load it on first use and fail
/// as loadCompiler does when it does not load.
Expected<ParsedSource> parseSource(const std::string &source,
                                   const std::string &path);
/// `graph` printed as a function of fuse ops.
Expected<std::string> printGraph(const Graph &graph);
/// The host compiler's bundle for `source` (kernels kept in `cache`).
Expected<Compilation> compileHostSource(const std::string &source,
                                        const Target &target,
                                        const CompileOptions &options,
                                        BundleCache *cache,
                                        const std::string &path);
Expected<std::unique_ptr<Compiler>> makeHostCompiler();

/// The table the compiler library exports (as fuseRunCompilerFunctions);
/// kVersion changes with its layout.
struct CompilerFunctions {
  static constexpr int kVersion = 1;
  int version;
  Expected<ParsedSource> (*parseSource)(const std::string &,
                                        const std::string &);
  Expected<std::string> (*printGraph)(const Graph &);
  Expected<Compilation> (*compileHostSource)(const std::string &,
                                             const Target &,
                                             const CompileOptions &,
                                             BundleCache *,
                                             const std::string &);
  Expected<std::unique_ptr<Compiler>> (*makeHostCompiler)();
  /// All of fuse-run, with every LLVM option registered.
  int (*fullMain)(int argc, char **argv);
};

/// Starts loading the compiler library on another thread, for a run that
/// will certainly compile: the load (libLLVM's and libMLIR's linking and
/// static constructors) overlaps the model's import. A no-op where it is
/// linked in or already loading.
void preloadCompiler();
/// Waits for a load that preloadCompiler started (before the process
/// exits: a thread may not be left inside the dynamic loader).
void finishPreload();

/// Whether this program is fuse-run with the compiler linked in (the
/// compiler library's copy), rather than the runtime-only executable.
bool compilerLinkedIn();

/// The runtime-only executable: runs fuse-run inside the compiler library
/// (for command lines that name options it does not know itself), or
/// fails with the library's path and why it did not load.
int runFullTool(int argc, char **argv);

} // namespace run
} // namespace fuse

#endif // FUSE_TOOLS_FUSE_RUN_COMPILERACCESS_H
