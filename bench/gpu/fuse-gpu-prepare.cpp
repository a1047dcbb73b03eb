//===- fuse-gpu-prepare.cpp - The benchmark graphs as GPU bundles ---------===//
//
//   fuse-gpu-prepare OUT_DIR [--target sm_90] [--check-mlir FILE.mlir]...
//                    [--check-onnx MODEL.onnx]... [--halve-above BYTES]
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
// beside the workloads; it must compile. Each --check-onnx model (an
// exported Hugging Face model as bench/models/export_hf.py writes it: its
// inputs in MODEL.NAME.npy beside it; an f32 input without one takes random
// values) likewise, with its inputs (the npy files' values, the weights) as
// OUT_DIR/check/STEM.inK.bin, one file per bundle input (STEM.inK.bf16 for an
// f32 input over 64 KiB, or BYTES: its values rounded to bf16, to fit the
// transfer): fuse-gpu-bench runs it on those, not on random values.
// fuse-gpu-bench runs the bundles with the runtime alone.
//
//===----------------------------------------------------------------------===//

#include "bench/BenchSupport.h"
#include "bench/Workloads.h"

#include "compiler/gpu/GpuCompiler.h"
#include "compiler/onnx/OnnxImporter.h"
#include "runtime/cache/BundleFile.h"
#include "runtime/cache/BundleKey.h"
#include "runtime/ir/ElementType.h"
#include "tools/fuse-run/Npy.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

using namespace fuse;
using namespace fuse::bench;

namespace {

Status writeBytes(const std::filesystem::path &path,
                  const std::vector<std::uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
  if (!out)
    return Status::error("cannot write '" + path.string() + "'");
  return Status::success();
}

Status writeBundle(const std::filesystem::path &path, const Bundle &bundle,
                   const Target &target, const CompileOptions &options) {
  BundleKey key = BundleKey::make(bundle.graph, target.name, options);
  return writeBytes(path, encodeBundleFile(key, bundle));
}

/// f32 inputs above this many bytes (the weights; `--halve-above`) travel to
/// the GPU machine as bf16 (the device tool carries at most 64 MiB, and
/// resnet18's weights alone are 45 MiB): both runtimes there run on the
/// same bf16-representable values.
std::size_t halvedAbove = 64 << 10;

/// Each f32 as bf16 (rounded to nearest even), which fuse-gpu-bench widens
/// back to f32.
std::vector<std::uint8_t> toBF16(const std::vector<std::uint8_t> &bytes) {
  std::vector<std::uint8_t> halves(bytes.size() / 2);
  for (std::size_t i = 0; i < bytes.size() / 4; ++i) {
    float value;
    std::memcpy(&value, bytes.data() + 4 * i, 4);
    std::uint16_t half = doubleToBF16(value);
    std::memcpy(halves.data() + 2 * i, &half, 2);
  }
  return halves;
}

/// An exported model into check/STEM.fusebundle and its inputs into
/// check/STEM.inK.bin: the model's inputs from STEM.NAME.npy beside it
/// (their shapes bind its dynamic dims), the weights from the model.
/// A model the importer or the GPU compiler refuses sets `unsupported`.
Status prepareOnnx(const std::filesystem::path &model,
                   const std::filesystem::path &checkDir, const Target &target,
                   const CompileOptions &options, bool &unsupported) {
  std::string stem = model.stem().string();
  onnximport::ImportOptions importOptions;
  std::map<std::string, npy::Array> given;
  std::error_code ec;
  for (const auto &entry :
       std::filesystem::directory_iterator(model.parent_path(), ec)) {
    std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".npy" || file.rfind(stem + ".", 0) != 0)
      continue;
    std::string name =
        file.substr(stem.size() + 1, file.size() - stem.size() - 5);
    if (name == "expected" || name.find('.') != std::string::npos)
      continue;
    Expected<npy::Array> array = npy::read(entry.path().string());
    if (!array.ok())
      return array.status();
    importOptions.inputShapes[name] = array->type.shape;
    given.emplace(name, array.take());
  }
  Expected<onnximport::ImportedModel> imported =
      onnximport::importModelFile(model.string(), importOptions);
  unsupported = !imported.ok();
  if (!imported.ok())
    return imported.status();
  const Graph &graph = imported->graph;
  GpuCompiler compiler;
  Expected<Compilation> compiled = compiler.compile(graph, target, options);
  unsupported = !compiled.ok();
  if (!compiled.ok())
    return compiled.status();
  const Bundle &bundle = compiled->bundle;
  if (bundle.inputs.size() != graph.inputs.size())
    return Status::error(model.string() + ": the bundle has " +
                         std::to_string(bundle.inputs.size()) +
                         " inputs, the imported graph " +
                         std::to_string(graph.inputs.size()));
  for (std::size_t k = 0; k < graph.inputs.size(); ++k) {
    const Tensor &input = graph.tensors[std::size_t(graph.inputs[k])];
    const std::vector<std::uint8_t> *bytes = nullptr;
    std::vector<std::uint8_t> random;
    if (imported->weights[k]) {
      bytes = &imported->weights[k]->bytes;
    } else if (auto it = given.find(input.name); it != given.end()) {
      bytes = &it->second.bytes;
    } else if (input.type.elementType == ElementType::F32) {
      // An f32 input without a file (activations): random values.
      device::TensorBytes values = randomF32(input.type.numElements(), 1 + k);
      random.resize(values.size());
      std::memcpy(random.data(), values.data(), values.size());
      bytes = &random;
    }
    if (!bytes)
      return Status::error(model.string() + ": no " + stem + "." + input.name +
                           ".npy for the model's input '" + input.name + "'");
    if (std::int64_t(bytes->size()) != input.type.byteSize())
      return Status::error(model.string() + ": input '" + input.name +
                           "' has " + std::to_string(bytes->size()) +
                           " bytes, the graph expects " +
                           std::to_string(input.type.byteSize()));
    std::string file = stem + ".in" + std::to_string(k);
    Status written =
        input.type.elementType == ElementType::F32 &&
                bytes->size() > halvedAbove
            ? writeBytes(checkDir / (file + ".bf16"), toBF16(*bytes))
            : writeBytes(checkDir / (file + ".bin"), *bytes);
    if (!written.ok())
      return written;
  }
  std::size_t attention = 0;
  for (const BundleKernel &kernel : bundle.kernels)
    attention += kernel.schedule == ScheduleKind::Attention;
  std::cerr << "fuse-gpu-prepare: " << stem << ": " << bundle.kernels.size()
            << " kernels, " << attention << " attention\n";
  return writeBundle(checkDir / (stem + ".fusebundle"), bundle, target,
                     options);
}

} // namespace

int main(int argc, char **argv) {
  std::string outDir, targetName = "sm_90";
  std::vector<std::string> checkFiles, checkModels;
  const char *usage = "usage: fuse-gpu-prepare OUT_DIR [--target sm_90] "
                      "[--check-mlir FILE.mlir]... "
                      "[--check-onnx MODEL.onnx]... [--halve-above BYTES]\n";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--target" && i + 1 < argc)
      targetName = argv[++i];
    else if (arg == "--check-mlir" && i + 1 < argc)
      checkFiles.push_back(argv[++i]);
    else if (arg == "--check-onnx" && i + 1 < argc)
      checkModels.push_back(argv[++i]);
    else if (arg == "--halve-above" && i + 1 < argc &&
             std::string_view(argv[i + 1]).find_first_not_of("0123456789") ==
                 std::string_view::npos &&
             std::strlen(argv[i + 1]) > 0 && std::strlen(argv[i + 1]) < 19)
      halvedAbove = std::stoull(argv[++i]);
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
  for (const std::string &model : checkModels) {
    std::cerr << "fuse-gpu-prepare: " << model << " for " << target->name
              << "...\n";
    bool unsupported = false;
    Status prepared =
        prepareOnnx(model, root / "check", *target, options, unsupported);
    if (prepared.ok())
      continue;
    // A model the GPU cannot run yet is said, not an error of the check.
    std::cerr << "fuse-gpu-prepare: " << model
              << (unsupported ? ": not checked: " : ": error: ")
              << firstLine(prepared.message()) << "\n";
    failures += !unsupported;
  }
  std::cerr << "fuse-gpu-prepare: wrote " << root.string() << "\n";
  return failures ? 1 : 0;
}
