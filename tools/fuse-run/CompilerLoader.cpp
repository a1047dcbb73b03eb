//===- CompilerLoader.cpp - fuse-run's compiler functions, loaded ---------===//
//
// The runtime-only fuse-run's side of CompilerAccess.h: the compiler library
// is loaded (dlopen) the first time a function needs it, from
// $FUSE_RUN_COMPILER_LIBRARY if set, else from the lib directory beside the
// executable's bin directory (the build tree's layout and an install's).
//
//===----------------------------------------------------------------------===//

#include "CompilerAccess.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace fuse::run {
namespace {

constexpr const char *kLibraryName = "libFuseRunCompiler.so";

/// $FUSE_RUN_COMPILER_LIBRARY, else EXE_DIR/../lib/libFuseRunCompiler.so.
std::string libraryPath() {
  if (const char *given = std::getenv("FUSE_RUN_COMPILER_LIBRARY");
      given && *given)
    return given;
  char exe[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (length <= 0)
    return kLibraryName;
  std::string path(exe, std::size_t(length));
  std::size_t slash = path.rfind('/');
  path.resize(slash == std::string::npos ? 0 : slash);
  return path + "/../lib/" + kLibraryName;
}

/// The library's table, loaded once (never unloaded: the objects it makes
/// live as long as the process).
Expected<const CompilerFunctions *> functions() {
  static Expected<const CompilerFunctions *> loaded =
      []() -> Expected<const CompilerFunctions *> {
    std::string path = libraryPath();
    std::string prefix = "cannot load the compiler library '" + path + "' (";
    std::string suffix =
        "): fuse-run needs it to compile a model that is not in the bundle "
        "cache, to read a .mlir model, for --generate and for LLVM's own "
        "options; it is built beside libFuseRuntime.so (or set "
        "FUSE_RUN_COMPILER_LIBRARY to its path)";
    // Lazy binding: of the library's and LLVM's and MLIR's function symbols
    // (some 83,000 relocations with RTLD_NOW) only those a compile calls are
    // looked up, when first called: 32,000 fewer lookups, the load 67 -> 43
    // ms (medians of 8, a loaded 2-core VM), time that a cold start's
    // preload otherwise takes from the ONNX import beside it. A symbol
    // missing from a mismatched libLLVM would then stop the process at its
    // first call instead of failing here; the version check below still
    // refuses another build of fuse-run's library.
    void *handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!handle)
      return Status::error(prefix + dlerror() + suffix);
    using Entry = const CompilerFunctions *(*)();
    auto entry =
        reinterpret_cast<Entry>(dlsym(handle, "fuseRunCompilerFunctions"));
    if (!entry)
      return Status::error(prefix + "it has no fuseRunCompilerFunctions" +
                           suffix);
    const CompilerFunctions *table = entry();
    if (!table || table->version != CompilerFunctions::kVersion)
      return Status::error(prefix + "it is from another build of fuse-run" +
                           suffix);
    return table;
  }();
  return loaded;
}

/// The thread preloadCompiler started; joined by finishPreload.
std::thread preloading;

} // namespace

void preloadCompiler() {
  if (!preloading.joinable())
    preloading = std::thread([] { (void)functions(); });
}

void finishPreload() {
  if (preloading.joinable())
    preloading.join();
}

Status loadCompiler() {
  Expected<const CompilerFunctions *> table = functions();
  return table.ok() ? Status::success() : table.status();
}

Expected<ParsedSource> parseSource(const std::string &source,
                                   const std::string &path) {
  Expected<const CompilerFunctions *> table = functions();
  if (!table.ok())
    return table.status();
  return (*table)->parseSource(source, path);
}

Expected<std::string> printGraph(const Graph &graph) {
  Expected<const CompilerFunctions *> table = functions();
  if (!table.ok())
    return table.status();
  return (*table)->printGraph(graph);
}

Expected<Compilation> compileHostSource(const std::string &source,
                                        const Target &target,
                                        const CompileOptions &options,
                                        BundleCache *cache,
                                        const std::string &path) {
  Expected<const CompilerFunctions *> table = functions();
  if (!table.ok())
    return table.status();
  return (*table)->compileHostSource(source, target, options, cache, path);
}

Expected<std::unique_ptr<Compiler>> makeHostCompiler() {
  Expected<const CompilerFunctions *> table = functions();
  if (!table.ok())
    return table.status();
  return (*table)->makeHostCompiler();
}

bool compilerLinkedIn() { return false; }

int runFullTool(int argc, char **argv) {
  Expected<const CompilerFunctions *> table = functions();
  if (!table.ok()) {
    std::fprintf(stderr, "fuse-run: error: %s\n", table.message().c_str());
    return 2;
  }
  return (*table)->fullMain(argc, argv);
}

} // namespace fuse::run
