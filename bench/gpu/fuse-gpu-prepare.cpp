//===- fuse-gpu-prepare.cpp - The benchmark graphs as GPU bundles ---------===//
//
//   fuse-gpu-prepare OUT_DIR [--target sm_90] [--check-mlir FILE.mlir]...
//
// Runs on a machine with the compiler (LLVM/MLIR, and ptxas for cubins):
// compiles every workload of bench/Workloads.h with the GpuCompiler, at the
// issue's sizes into OUT_DIR/time/NAME.fusebundle and at the small ones into
// OUT_DIR/check/NAME.fusebundle (small enough for the reference runtime to
// check on the GPU machine), and writes OUT_DIR/workloads.jsonl: one record
// per workload (shapes, bytes, params for the PyTorch peers; "unsupported"
// with the compiler's reason where the GPU code generator cannot compile
// it). Each --check-mlir file (a function of fuse ops: lit tests' graphs,
// such as the attention spellings) is compiled into
// OUT_DIR/check/STEM.fusebundle too, to be checked against the reference
// beside the workloads; it must compile. fuse-gpu-bench runs the bundles with
// the runtime alone.
//
//===----------------------------------------------------------------------===//

#include "bench/BenchSupport.h"
#include "bench/Workloads.h"

#include "compiler/gpu/GpuCompiler.h"
#include "runtime/cache/BundleFile.h"
#include "runtime/cache/BundleKey.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

using namespace fuse;
using namespace fuse::bench;

namespace {

Status writeBundle(const std::filesystem::path &path, const Bundle &bundle,
                   const Target &target, const CompileOptions &options) {
  BundleKey key = BundleKey::make(bundle.graph, target.name, options);
  std::vector<std::uint8_t> bytes = encodeBundleFile(key, bundle);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
  if (!out)
    return Status::error("cannot write '" + path.string() + "'");
  return Status::success();
}

} // namespace

int main(int argc, char **argv) {
  std::string outDir, targetName = "sm_90";
  std::vector<std::string> checkFiles;
  const char *usage = "usage: fuse-gpu-prepare OUT_DIR [--target sm_90] "
                      "[--check-mlir FILE.mlir]...\n";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--target" && i + 1 < argc)
      targetName = argv[++i];
    else if (arg == "--check-mlir" && i + 1 < argc)
      checkFiles.push_back(argv[++i]);
    else if (outDir.empty() && !arg.empty() && arg[0] != '-')
      outDir = arg;
    else {
      std::cerr << usage;
      return 2;
    }
  }
  if (outDir.empty()) {
    std::cerr << usage;
    return 2;
  }
  Expected<Target> target = Target::parse(targetName);
  if (!target.ok()) {
    std::cerr << "fuse-gpu-prepare: error: " << target.message() << "\n";
    return 2;
  }
  std::filesystem::path root(outDir);
  std::filesystem::create_directories(root / "time");
  std::filesystem::create_directories(root / "check");
  std::ofstream index(root / "workloads.jsonl");

  CompileOptions options;
  std::vector<Workload> full = makeWorkloads(false);
  std::vector<Workload> small = makeWorkloads(true);
  int failures = 0;
  for (std::size_t w = 0; w < full.size(); ++w) {
    JsonObject record;
    record.str("record", "workload")
        .str("name", full[w].name)
        .str("title", full[w].title)
        .str("bound", boundName(full[w].bound));
    std::string shapes = "[";
    for (std::size_t i = 0; i < full[w].inputShapes.size(); ++i)
      shapes += (i ? ", " : "") + shapeJson(full[w].inputShapes[i]);
    record.raw("input_shapes", shapes + "]");
    JsonObject params;
    for (const auto &[key, value] : full[w].params)
      params.num(key, double(value));
    record.raw("params", params.toString());

    std::string status = "ok";
    for (const auto &[workload, folder] :
         {std::pair{&full[w], "time"}, std::pair{&small[w], "check"}}) {
      std::cerr << "fuse-gpu-prepare: " << workload->name << " ("
                << workload->title << ") for " << target->name << "...\n";
      GpuCompiler compiler;
      Expected<Compilation> compiled = compiler.compileSource(
          workload->mlir, *target, options, nullptr, workload->name + ".mlir");
      if (!compiled.ok()) {
        status = "unsupported";
        record.str("reason", firstLine(compiled.message()));
        break;
      }
      Status written =
          writeBundle(root / folder / (workload->name + ".fusebundle"),
                      compiled->bundle, *target, options);
      if (!written.ok()) {
        std::cerr << "fuse-gpu-prepare: error: " << written.message() << "\n";
        ++failures;
        status = "error";
        break;
      }
      if (std::string(folder) == "time")
        record.num("kernels", double(compiled->bundle.kernels.size()));
    }
    index << record.str("status", status).toString() << "\n";
  }
  for (const std::string &file : checkFiles) {
    std::filesystem::path path(file);
    std::cerr << "fuse-gpu-prepare: " << file << " for " << target->name
              << "...\n";
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::cerr << "fuse-gpu-prepare: error: cannot read '" << file << "'\n";
      ++failures;
      continue;
    }
    GpuCompiler compiler;
    Expected<Compilation> compiled = compiler.compileSource(
        text, *target, options, nullptr, path.filename().string());
    Status written =
        compiled.ok() ? writeBundle(root / "check" /
                                        (path.stem().string() + ".fusebundle"),
                                    compiled->bundle, *target, options)
                      : compiled.status();
    if (!written.ok()) {
      std::cerr << "fuse-gpu-prepare: error: " << file << ": "
                << written.message() << "\n";
      ++failures;
    }
  }
  std::cerr << "fuse-gpu-prepare: wrote " << root.string() << "\n";
  return failures ? 1 : 0;
}
