//===- FuseCache.cpp - Inspect and maintain the bundle cache --------------===//
//
// fuse-cache list | stats | show KEY | verify | clear [--cache-dir DIR]
//
// A runtime-only tool: it links FuseRuntime and never MLIR or LLVM, so it
// works wherever a runtime-only program runs. Exit status: 0 on success, 1
// when the command fails (missing key, unsafe directory, damaged entries
// found by verify), 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/BundleCache.h"
#include "runtime/cache/BundleSerialization.h"

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace fuse;

static int usage(const std::string &problem) {
  std::fprintf(stderr,
               "fuse-cache: %s\n"
               "usage: fuse-cache list | stats | show KEY | verify | clear "
               "[--cache-dir DIR]\n"
               "  the cache is DIR, else $FUSE_CACHE_DIR, else "
               "~/.cache/fuse\n",
               problem.c_str());
  return 2;
}

static int fail(const std::string &message) {
  std::fprintf(stderr, "fuse-cache: error: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  std::vector<std::string> words;
  BundleCacheOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--cache-dir") {
      if (i + 1 == argc)
        return usage("--cache-dir needs a directory");
      options.directory = argv[++i];
    } else if (arg.starts_with("--cache-dir=")) {
      options.directory = arg.substr(12);
    } else if (arg == "-h" || arg == "--help") {
      usage("inspect and maintain the bundle cache");
      return 0;
    } else if (arg.starts_with("-")) {
      return usage("unknown option '" + arg + "'");
    } else {
      words.push_back(arg);
    }
  }
  if (words.empty())
    return usage("no command given");
  const std::string &command = words[0];
  std::size_t wantArgs = command == "show" ? 2 : 1;
  if (command != "list" && command != "stats" && command != "show" &&
      command != "verify" && command != "clear")
    return usage("unknown command '" + command + "'");
  if (words.size() != wantArgs)
    return usage(command == "show" ? "show needs exactly one KEY"
                                   : command + " takes no arguments");

  std::vector<std::string> problems;
  options.onProblem = [&](const std::string &message) {
    problems.push_back(message);
  };
  Expected<std::unique_ptr<BundleCache>> opened = BundleCache::open(options);
  if (!opened.ok())
    return fail(opened.message());
  BundleCache &cache = **opened;

  if (command == "list" || command == "stats") {
    Expected<std::vector<BundleCacheEntry>> entries = cache.list();
    if (!entries.ok())
      return fail(entries.message());
    std::uint64_t total = 0;
    for (const BundleCacheEntry &entry : *entries) {
      total += entry.bytes;
      if (command == "list") {
        char when[32] = "?";
        std::time_t seconds = entry.lastUsed;
        if (const std::tm *local = std::localtime(&seconds))
          std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", local);
        std::printf("%s %10llu  %s\n", entry.keyHex.c_str(),
                    (unsigned long long)entry.bytes, when);
      }
    }
    if (command == "stats")
      std::printf("directory: %s\n", cache.directory().c_str());
    std::printf("entries: %zu\nbytes: %llu\n", entries->size(),
                (unsigned long long)total);
    // The machine code of single kernels kept beside the bundles.
    Expected<std::vector<BundleCacheEntry>> kernels = cache.listKernels();
    if (!kernels.ok())
      return fail(kernels.message());
    std::uint64_t kernelBytes = 0;
    for (const BundleCacheEntry &kernel : *kernels)
      kernelBytes += kernel.bytes;
    std::printf("kernels: %zu\nkernel bytes: %llu\n", kernels->size(),
                (unsigned long long)kernelBytes);
    return 0;
  }

  if (command == "show") {
    auto loaded = cache.load(words[1]);
    if (!loaded.ok())
      return fail(loaded.message());
    std::printf("key: %s\n%s\n%s\n", words[1].c_str(),
                loaded->first.describe().c_str(),
                bundleToJson(loaded->second).c_str());
    return 0;
  }

  if (command == "verify") {
    BundleCacheVerifyReport report = cache.verify();
    for (const std::string &problem : report.problems)
      std::printf("damaged: %s\n", problem.c_str());
    std::printf("verified %zu entries: %zu damaged (removed)\n", report.checked,
                report.problems.size());
    return report.problems.empty() ? 0 : 1;
  }

  if (Status cleared = cache.clear(); !cleared.ok())
    return fail(cleared.message());
  std::printf("cleared %s\n", cache.directory().c_str());
  return 0;
}
