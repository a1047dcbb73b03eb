//===- fuse-run.cpp - Compile and run a model end to end ------------------===//
//
//   fuse-run MODEL.mlir|MODEL.onnx [--runtime host|reference]
//            [--input NAME=PATH.npy|PATH.pb]... [--dim NAME=VALUE]...
//            [--dim-range NAME=LO..HI]...
//            [--seed N] [--output-dir DIR] [--check] [--bench N] [--profile N]
//            [--print-plan] [--dot FILE] [--no-fusion] [--cache-dir DIR]
//            [--threads N] [--json]
//
// Reads a function of fuse ops (or imports an ONNX model through FuseOnnx:
// its initializers become weight inputs bound to their values, `--dim` binds
// its dynamic dimensions), compiles it for this CPU's best ISA level
// (through the bundle cache: a model seen before compiles nothing), runs it
// on the host runtime (or interprets it on the reference runtime) with the
// given or seeded random inputs, and reports the outputs. `--check` compares
// every output with the reference runtime under the numerics policy, and
// says per output which tolerance decided (atol, rtol, or exact).
//
// This file is compiled twice (tools/fuse-run/CMakeLists.txt): into the
// fuse-run executable, which links no MLIR or LLVM beyond Support and
// reaches the compiler through CompilerAccess.h, and into the compiler
// library, where main is fuseRunFullMain.
//
// A .mlir model with symbolic dims (`tensor<?x64xf32, #fuse.dims<seq>>`),
// or an ONNX model with dynamic input dims (imported with them symbolic,
// named by their dim_param or INPUT:INDEX), compiles once, its bundle
// cached under the symbolic graph, so that every value of the dims is a
// cache hit; each run binds the dims to the --input shapes (or `--dim
// NAME=VALUE` for inputs drawn at random) and runs the bundle bound to them
// (SymbolicBundle.h); `--dim-range NAME=LO..HI` declares the values a dim
// may take (a run outside is refused before it runs). Where a fusion needs
// static dims (a matmul, issue 22), the graph bound to the run's dims is
// compiled instead (an ONNX model is imported again with its dims bound), a
// note says so, and the refusal is kept in the cache so that later runs do not
// try again; so it is where the importer cannot keep an ONNX model's dims
// symbolic. --check compares at the bound shapes.
//
// An ONNX model input that feeds an operand the importer needs as a
// constant (a Reshape's shape, a Gather's indices) is compiled into the
// model with its --input value, and fuse-run says so: every other value of
// it compiles the model again. Without an --input value, it is an error.
//
// Exit status: 0 success, 1 a `--check` mismatch, 2 any error (usage, a
// missing or malformed file, a bad input, an op the host code generator
// cannot compile, a runtime failure). Progress goes to stderr; with `--json`
// the last line of stdout is one JSON object ("bound_at_import": the inputs
// compiled in).
//
//===----------------------------------------------------------------------===//

#include "CacheWarnings.h"
#include "CompilerAccess.h"
#include "Generate.h"
#include "Npy.h"
#include "PlanPrinter.h"
#include "tools/HelpCategories.h"
#include "tools/InputNesting.h"
#include "tools/JsonText.h"
#include "tools/OutputStream.h"

#include "compiler/onnx/OnnxImporter.h"
#include "runtime/cache/ArenaFormula.h"
#include "runtime/cache/BundleCache.h"
#include "runtime/cache/BundleKey.h"
#include "runtime/cache/BundleSerialization.h"
#include "runtime/cache/SymbolicBundle.h"
#include "runtime/device/HostAllocator.h"
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"
#include "runtime/device/RunBundle.h"
#include "runtime/ir/Allocation.h"
#include "runtime/ir/Interpreter.h"
#include "runtime/ir/Numerics.h"
#include "runtime/ir/RegularFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <limits>
#include <malloc.h>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace fuse;

namespace {

/// memcpy of a tensor's bytes: an empty tensor's vectors hold null pointers,
/// which memcpy must not be given even for 0 bytes (UBSan's nonnull check).
void copyBytes(void *to, const void *from, std::size_t bytes) {
  if (bytes)
    std::memcpy(to, from, bytes);
}

llvm::cl::OptionCategory runCategory("fuse-run options");

llvm::cl::opt<std::string> modelFile(llvm::cl::Positional,
                                     llvm::cl::desc("<model.mlir>"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(runCategory));
llvm::cl::opt<std::string>
    runtimeName("runtime", llvm::cl::desc("host (default) or reference"),
                llvm::cl::init("host"), llvm::cl::cat(runCategory));
llvm::cl::list<std::string>
    inputSpecs("input",
               llvm::cl::desc("An input from a .npy or ONNX TensorProto .pb "
                              "file"),
               llvm::cl::value_desc("NAME=PATH"), llvm::cl::cat(runCategory));
llvm::cl::list<std::string>
    dimSpecs("dim",
             llvm::cl::desc("The value of a dynamic dimension of an ONNX "
                            "model (its dim_param name, or INPUT:INDEX) or of "
                            "a symbolic dim of a .mlir model; one not given "
                            "takes its size in the --input values (the "
                            "bundle serves every value where its kernels "
                            "take the dims at run time)"),
             llvm::cl::value_desc("NAME=VALUE"), llvm::cl::cat(runCategory));
llvm::cl::list<std::string> dimRangeSpecs(
    "dim-range",
    llvm::cl::desc("The values a symbolic dim is declared to take, both ends "
                   "included: a run (or a --generate step) that binds it "
                   "outside is refused before any kernel runs, and a "
                   "decoder's arena is sized for HI from the first step"),
    llvm::cl::value_desc("NAME=LO..HI"), llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned>
    seed("seed", llvm::cl::desc("Seed of the inputs not given (default 0)"),
         llvm::cl::init(0), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string>
    outputDir("output-dir",
              llvm::cl::desc("Write each output there as NAME.npy"),
              llvm::cl::value_desc("dir"), llvm::cl::cat(runCategory));
llvm::cl::opt<bool>
    check("check",
          llvm::cl::desc("Compare every output with the reference "
                         "runtime; exit 1 on a mismatch"),
          llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned>
    bench("bench",
          llvm::cl::desc("Timed runs after one warm-up, inputs resident on the "
                         "device (median, min)"),
          llvm::cl::init(0), llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned> profile(
    "profile",
    llvm::cl::desc("Time each kernel alone (a batch and a fence of its own), "
                   "median of N runs; print the kernels by time"),
    llvm::cl::init(0), llvm::cl::cat(runCategory));
// Registered as "fuse-threads" and renamed to "threads" in main: LLVM has
// a general option of that name, renamed "llvm-threads" there.
llvm::cl::opt<unsigned>
    threads("fuse-threads",
            llvm::cl::desc("Threads that run host kernels (default: one per "
                           "hardware thread)"),
            llvm::cl::init(0), llvm::cl::cat(runCategory));
llvm::cl::opt<bool> printPlan("print-plan",
                              llvm::cl::desc("Print the kernels and their ops"),
                              llvm::cl::cat(runCategory));
llvm::cl::opt<std::string>
    dotFile("dot", llvm::cl::desc("Write the plan as Graphviz DOT"),
            llvm::cl::value_desc("file"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> emitMlir(
    "emit-mlir",
    llvm::cl::desc("Write the model as fuse ops to a .mlir file (an ONNX "
                   "model as imported: its dynamic dims symbolic where they "
                   "stay so, its initializers inputs), for fuse-opt, "
                   "fuse-compile and fuse-run"),
    llvm::cl::value_desc("file"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> matmulPrecision(
    "matmul-precision",
    llvm::cl::desc("f32 (default) or bf16: matmuls whose B is a weight (a "
                   "graph input) round A and B to bf16 and sum the products "
                   "in f32 (AMX tiles where the CPU has them, else AVX-512 "
                   "BF16; host-x86-64-v4); --check then "
                   "allows 2^-5 of the output's scale per such matmul"),
    llvm::cl::value_desc("f32|bf16"), llvm::cl::init("f32"),
    llvm::cl::cat(runCategory));
llvm::cl::opt<bool> noAmx(
    "no-amx",
    llvm::cl::desc("With --matmul-precision=bf16: AVX-512 BF16 dot products "
                   "even where this CPU has AMX tiles (used by default there)"),
    llvm::cl::cat(runCategory));
llvm::cl::opt<bool> noFusion("no-fusion", llvm::cl::desc("One kernel per op"),
                             llvm::cl::cat(runCategory));
llvm::cl::opt<std::string>
    cacheDir("cache-dir",
             llvm::cl::desc("Bundle cache directory (default: "
                            "$FUSE_CACHE_DIR or ~/.cache/fuse)"),
             llvm::cl::value_desc("dir"), llvm::cl::cat(runCategory));
llvm::cl::opt<bool>
    json("json", llvm::cl::desc("End stdout with one JSON summary line"),
         llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned> generate(
    "generate",
    llvm::cl::desc("Greedy generation of N tokens with a decoder exported "
                   "with its key/value cache, from --input input_ids=PROMPT"),
    llvm::cl::value_desc("N"), llvm::cl::init(0), llvm::cl::cat(runCategory));

/// The options, read before compiling: lld, linking in process, resets every
/// llvm::cl option.
struct RunOptions {
  std::string model, runtime, outputDir, dotFile, emitMlir, cacheDir;
  std::vector<std::string> inputs, dims;
  /// --dim-range, parsed (parseDimRanges); names checked against the model.
  DimRanges dimRanges;
  unsigned seed = 0, bench = 0, profile = 0, threads = 0;
  bool check = false, printPlan = false, fusion = true, json = false;
  MatmulPrecision matmulPrecision = MatmulPrecision::F32;
  /// --no-amx: bf16 matmuls without AMX tiles where the CPU has them.
  bool noAmx = false;
};

constexpr int kExitMismatch = 1;
constexpr int kExitError = 2;
/// More threads than this is a typo, not a machine.
constexpr unsigned kMaxThreads = 1024;

int fail(const std::string &message) {
  llvm::errs() << "fuse-run: error: " << message << "\n";
  return kExitError;
}

void warn(const std::string &message) {
  llvm::errs() << "fuse-run: warning: " << message << "\n";
}

void progress(const std::string &message) {
  llvm::errs() << "fuse-run: " << message << "\n";
}

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

std::string formatMs(double ms) { return llvm::formatv("{0:F2} ms", ms).str(); }

/// Per graph input: the size of the smallest gather axis it indexes, when
/// it is a gather's indices (directly, or through reshapes and casts), so
/// that its random values are valid indices.
std::vector<std::optional<std::int64_t>> gatherIndexBounds(const Graph &graph) {
  std::map<TensorId, const Op *> definer;
  for (const Op &op : graph.ops)
    definer[op.result()] = &op;
  std::vector<std::optional<std::int64_t>> bounds(graph.inputs.size());
  for (const Op &op : graph.ops) {
    if (op.kind != OpKind::Gather)
      continue;
    const std::int64_t dim =
        graph.typeOf(op.operands[0])
            .shape[std::size_t(op.findAttr("axis")->getI64())];
    TensorId source = op.operands[1];
    while (definer.count(source) && (definer[source]->kind == OpKind::Reshape ||
                                     definer[source]->kind == OpKind::Cast))
      source = definer[source]->operands[0];
    auto it = std::find(graph.inputs.begin(), graph.inputs.end(), source);
    if (it == graph.inputs.end() || dim < 1)
      continue;
    std::optional<std::int64_t> &bound = bounds[it - graph.inputs.begin()];
    bound = std::min(bound.value_or(dim), dim);
  }
  return bounds;
}

/// Uniform in [-2, 2] without (-0.125, 0.125) for floats (never zero, so a
/// division or a log is defined and no output is trivially zero); small
/// integers in [-4, 4] (0/1 for i1), or with `indexBound` (a gather's
/// indices) in [-indexBound, indexBound). Stored element by element into
/// `out`, the tensor's bytes, with no array of values as large as the
/// tensor; a null `out` draws the same values and keeps none.
void randomTensor(const TensorType &type, std::mt19937_64 &rng, std::byte *out,
                  std::optional<std::int64_t> indexBound = std::nullopt) {
  std::int64_t count = type.numElements();
  if (isFloat(type.elementType)) {
    std::uniform_real_distribution<double> magnitude(0.125, 2.0);
    // f8E8M0FNU has no sign (a negative value would be NaN).
    std::bernoulli_distribution negative(
        type.elementType == ElementType::F8E8M0FNU ? 0.0 : 0.5);
    for (std::int64_t i = 0; i < count; ++i) {
      double value = negative(rng) ? -magnitude(rng) : magnitude(rng);
      if (out)
        storeDouble(type.elementType, out, i, value);
    }
    return;
  }
  // Small values inside the type's range: -4 .. 4 for signed types (-2 .. 1
  // for i2), 0 .. 8 for unsigned ones (0 .. 3 for ui2), 0 .. 1 for i1.
  unsigned bits = integerBitWidth(type.elementType);
  std::int64_t low = -4, high = 4;
  if (type.elementType == ElementType::I1) {
    low = 0;
    high = 1;
  } else if (isUnsignedInteger(type.elementType)) {
    low = 0;
    // No shift by 64 for ui64 (undefined; on x86 it made every value 0).
    high = bits >= 4 ? 8 : (std::int64_t(1) << bits) - 1;
  } else if (bits < 8) {
    low = -(std::int64_t(1) << (bits - 1));
    high = (std::int64_t(1) << (bits - 1)) - 1;
  }
  if (indexBound && !isUnsignedInteger(type.elementType) && bits >= 8) {
    // Inside the type too (a cast narrows them to it).
    high = std::min(*indexBound, std::int64_t(1) << (bits - 2)) - 1;
    low = -high - 1;
  }
  std::uniform_int_distribution<std::int64_t> dist(low, high);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t value = dist(rng);
    if (out)
      storeInt(type.elementType, out, i, value);
  }
}

std::string shapeString(const std::vector<std::int64_t> &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// What decided an output's --check: the element nearest its bound (the
/// largest abs error / (atol + rtol * |expected|); a NaN or an infinity that
/// differs first) and which term of the bound is the larger there. A large
/// max rel error may pass where values are near zero because atol covers
/// it; this says so.
struct DecidingElement {
  /// -1 when no element differs.
  std::int64_t index = -1;
  double expected = 0, actual = 0, absError = 0, relError = 0, bound = 0;
  /// "exact": a zero tolerance, no element differs, or the nearest is a
  /// NaN or an infinity (compared exactly); else "atol" or "rtol".
  const char *decidedBy = "exact";
};

DecidingElement decidingElement(const HostTensorData &expected,
                                const HostTensorData &actual,
                                Tolerance tolerance) {
  DecidingElement worst;
  std::vector<double> e = expected.toDoubles(), a = actual.toDoubles();
  double worstRatio = 0;
  const double inf = std::numeric_limits<double>::infinity();
  bool finite = true;
  for (std::size_t i = 0; i < e.size() && i < a.size(); ++i) {
    if (a[i] == e[i] || (std::isnan(a[i]) && std::isnan(e[i])))
      continue;
    bool bothFinite = std::isfinite(e[i]) && std::isfinite(a[i]);
    double absError = bothFinite ? std::fabs(a[i] - e[i]) : inf;
    double bound =
        bothFinite ? tolerance.atol + tolerance.rtol * std::fabs(e[i]) : 0;
    double ratio = bound > 0 ? absError / bound : inf;
    if (worst.index >= 0 && ratio <= worstRatio)
      continue;
    worstRatio = ratio;
    finite = bothFinite;
    worst.index = std::int64_t(i);
    worst.expected = e[i];
    worst.actual = a[i];
    worst.absError = absError;
    worst.relError = e[i] != 0 ? absError / std::fabs(e[i]) : inf;
    worst.bound = bound;
  }
  if (worst.index >= 0 && finite && !tolerance.isExact())
    worst.decidedBy =
        tolerance.atol >= tolerance.rtol * std::fabs(worst.expected) ? "atol"
                                                                     : "rtol";
  return worst;
}

std::string describeDeviceError(const device::Error &error) {
  return std::string(device::errorCodeName(error.code)) + ": " + error.message;
}

/// The first values of a tensor, for a glance at an output.
std::string preview(const HostTensorData &tensor) {
  std::string out = "[";
  std::int64_t count = tensor.type.numElements(),
               shown = std::min<int64_t>(count, 4);
  bool floats = isFloat(tensor.type.elementType);
  std::vector<double> doubles;
  std::vector<std::int64_t> ints;
  if (floats)
    doubles = tensor.toDoubles();
  else
    ints = tensor.toInts();
  for (std::int64_t i = 0; i < shown; ++i) {
    out += i ? ", " : "";
    out += floats ? llvm::formatv("{0}", llvm::format("%.6g", doubles[i])).str()
                  : std::to_string(ints[i]);
  }
  return out + (count > shown ? ", ...]" : "]");
}

/// An input tensor from a .npy file or an ONNX TensorProto (.pb) file.
Expected<npy::Array> readInputFile(const std::string &path) {
  if (llvm::sys::path::extension(path) != ".pb")
    return npy::read(path);
  Expected<onnximport::NamedTensor> tensor =
      onnximport::readTensorProtoFile(path);
  if (!tensor.ok())
    return tensor.status();
  return npy::Array{tensor->value.type, std::move(tensor->value.bytes)};
}

/// The path the last `--input NAME=PATH` gives for `name`.
std::optional<std::string> inputPath(const std::vector<std::string> &specs,
                                     const std::string &name) {
  std::optional<std::string> path;
  for (const std::string &spec : specs)
    if (spec.size() > name.size() && spec.starts_with(name + "="))
      path = spec.substr(name.size() + 1);
  return path;
}

/// The options that say nothing of the model's contents.
Status checkOptions(const RunOptions &options) {
  llvm::StringRef extension = llvm::sys::path::extension(options.model);
  bool isOnnx = extension == ".onnx";
  if (extension != ".mlir" && !isOnnx)
    return Status::error("'" + options.model + "': unknown model type '" +
                         extension.str() +
                         "'; expected a .mlir file (or .onnx)");
  if (options.runtime != "host" && options.runtime != "reference")
    return Status::error("unknown --runtime=" + options.runtime +
                         "; expected host or reference");
  if (options.threads > kMaxThreads)
    return Status::error("--threads=" + std::to_string(options.threads) +
                         ": at most " + std::to_string(kMaxThreads));
  if (options.threads && options.runtime != "host")
    return Status::error("--threads applies to the host runtime only");
  return Status::success();
}

/// The model as the source of a function of fuse ops, and what an ONNX
/// import adds to it.
struct ModelSource {
  /// A .mlir model's text; for ONNX, empty until a compile needs it (the
  /// imported graph printed).
  std::string text;
  /// ONNX: the imported graph (read without MLIR: a cache hit never loads
  /// the compiler).
  std::optional<Graph> imported;
  bool isOnnx = false;
  /// ONNX: the initializers' values, bound as inputs (the importer's own,
  /// shared: the host runtime reads them in place).
  std::vector<std::shared_ptr<const HostTensorData>> weights;
  /// --input files read before the import (their shapes bind dynamic dims),
  /// by spec.
  std::map<std::string, npy::Array> preloaded;
  /// Model inputs whose --input values were bound as constants at import.
  std::vector<std::string> boundAtImport;
};

/// The --dim NAME=VALUE specs, into the importer's options.
Status parseDims(const std::vector<std::string> &specs,
                 onnximport::ImportOptions &importOptions) {
  for (const std::string &spec : specs) {
    std::size_t equals = spec.find('=');
    long long value = 0;
    if (equals == std::string::npos || equals == 0 ||
        llvm::StringRef(spec).drop_front(equals + 1).getAsInteger(10, value) ||
        value < 0)
      return Status::error("--dim '" + spec +
                           "' is not NAME=VALUE (VALUE >= 0)");
    importOptions.dims[spec.substr(0, equals)] = value;
  }
  return Status::success();
}

/// The --dim-range NAME=LO..HI specs: each well formed, LO <= HI, neither
/// negative, each name once. Whether the names are the model's dims is
/// checked once it is read.
Expected<DimRanges> parseDimRanges(const std::vector<std::string> &specs) {
  DimRanges ranges;
  for (const std::string &spec : specs) {
    llvm::StringRef text(spec);
    auto [name, bounds] = text.split('=');
    auto [low, high] = bounds.split("..");
    long long lo = 0, hi = 0;
    if (name.empty() || !text.contains('=') || !bounds.contains("..") ||
        low.getAsInteger(10, lo) || high.getAsInteger(10, hi))
      return Status::error("--dim-range '" + spec +
                           "' is not NAME=LO..HI (LO and HI integers)");
    if (lo < 0 || hi < 0)
      return Status::error("--dim-range " + spec +
                           ": a size is never negative");
    if (lo > hi)
      return Status::error("--dim-range " + spec + ": LO " +
                           std::to_string(lo) + " is above HI " +
                           std::to_string(hi));
    if (!ranges.emplace(name.str(), DimRange{lo, hi}).second)
      return Status::error("--dim-range gives dim '" + name.str() +
                           "' twice; give each dim once");
  }
  return ranges;
}

/// The given inputs' shapes bind the dynamic dims --dim does not; each file
/// is read once (kept for the run; one that does not read is reported
/// there).
void preloadInputs(const std::vector<std::string> &specs,
                   onnximport::ImportOptions &importOptions,
                   std::map<std::string, npy::Array> &preloaded) {
  for (const std::string &spec : specs) {
    std::size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0)
      continue;
    std::string name = spec.substr(0, equals);
    Expected<npy::Array> array = readInputFile(spec.substr(equals + 1));
    if (!array.ok())
      continue;
    importOptions.inputShapes[name] = array->type.shape;
    preloaded.insert_or_assign(spec, std::move(*array));
  }
}

/// Binds the --input value of each input the importer needs as a constant.
Status
bindConstantInputs(const RunOptions &options,
                   const std::vector<onnximport::ConstantInputNeed> &needs,
                   onnximport::ImportOptions &importOptions,
                   std::vector<std::string> &boundAtImport) {
  for (const onnximport::ConstantInputNeed &need : needs) {
    if (importOptions.constantInputs.count(need.input))
      return Status::error("internal error: input '" + need.input +
                           "' is needed as a constant again after its value "
                           "was bound");
    std::optional<std::string> path = inputPath(options.inputs, need.input);
    if (!path)
      return Status::error("input '" + need.input +
                           "' is needed as a constant (it feeds the " +
                           need.use +
                           "), and fuse-run compiles it into the model: give "
                           "its value with --input " +
                           need.input + "=PATH");
    Expected<npy::Array> array = readInputFile(*path);
    if (!array.ok())
      return Status::error("--input " + need.input + ": " + array.message());
    progress("input '" + need.input +
             "' is needed as a constant (it feeds the " + need.use +
             "): its --input value is compiled into the model; every "
             "other value compiles it again");
    HostTensorData value(array->type);
    value.bytes = std::move(array->bytes);
    importOptions.constantInputs.emplace(need.input, std::move(value));
    boundAtImport.push_back(need.input);
  }
  return Status::success();
}

/// Whether the bundle cache `options` use certainly holds no bundle (its
/// directory is missing or lists no *.fbundle among its first entries), so
/// that a run on the host compiles: then the compiler library is loaded
/// while the model is imported. Unsure (a longer listing): false.
bool cacheCertainlyMisses(const RunOptions &options) {
  if (options.runtime != "host")
    return false;
  std::string directory = options.cacheDir;
  if (directory.empty()) {
    Expected<std::string> fallback = BundleCache::defaultDirectory();
    if (!fallback.ok())
      return false;
    directory = fallback.take();
  }
  DIR *listing = opendir(directory.c_str());
  if (!listing)
    return errno == ENOENT;
  constexpr int kMostEntries = 256;
  bool none = true;
  int seen = 0;
  while (const struct dirent *entry = readdir(listing)) {
    std::string_view name = entry->d_name;
    if (name.ends_with(".fbundle") || ++seen > kMostEntries) {
      none = false;
      break;
    }
  }
  closedir(listing);
  return none;
}

/// `model` with the import's graph and weights.
ModelSource importedSource(ModelSource model,
                           onnximport::ImportedModel imported) {
  model.weights = std::move(imported.weights);
  std::size_t weightCount = 0;
  for (const auto &weight : model.weights)
    weightCount += bool(weight);
  progress("imported " + std::to_string(imported.graph.ops.size()) + " ops, " +
           std::to_string(weightCount) + " weight input(s)" +
           (imported.graph.isSymbolic()
                ? ", dims kept symbolic: " +
                      llvm::join(imported.graph.dims.symbols, ", ")
                : std::string()));
  // A declared dim the import found equal to others (a broadcast of the
  // two): the inputs' shapes are checked against it when bound.
  for (const onnximport::UnifiedDim &unified : imported.unifiedDims)
    progress("dim '" + unified.symbol + "' is " + unified.expr.toString() +
             " (" + unified.where + " broadcasts one against the other)");
  model.imported = std::move(imported.graph);
  model.isOnnx = true;
  return model;
}

/// Whether the model declares an input with a dynamic dim (a dim_param or
/// no value): then it is imported with its dims symbolic first.
bool declaresDynamicDims(const std::string &path) {
  Expected<onnximport::ModelDeclarations> declared =
      onnximport::modelDeclarations(path);
  if (!declared.ok())
    return false;
  for (const onnximport::DeclaredInput &input : declared->inputs)
    if (llvm::is_contained(input.shape, -1))
      return true;
  return false;
}

/// The import of a dynamic-axes model with its dims symbolic (issue 22):
/// its bundle, cached under the symbolic graph, serves every value of the
/// dims, which are bound for the run from the inputs' shapes (and --dim).
/// None, after a note line saying why, where the importer cannot keep them
/// symbolic (shape arithmetic it cannot express, an input needed as a
/// constant): the caller imports with the dims bound instead.
std::optional<onnximport::ImportedModel>
importSymbolic(const RunOptions &options) {
  onnximport::ImportOptions symbolic;
  symbolic.symbolicDims = true;
  std::vector<onnximport::ConstantInputNeed> needs;
  Expected<onnximport::ImportedModel> imported =
      onnximport::importModelFile(options.model, symbolic, &needs);
  if (imported.ok())
    return imported.take();
  std::string why = imported.message();
  if (!needs.empty())
    why = "input '" + needs.front().input +
          "' is needed as a constant (it feeds the " + needs.front().use + ")";
  llvm::errs() << "fuse-run: note: the importer cannot keep the dynamic dims "
                  "symbolic, so the model is imported with them bound to this "
                  "run's values (every other value compiles again): "
               << why << "\n";
  return std::nullopt;
}

/// ONNX: the imported graph is the model from here on (printed as a
/// function of fuse ops when it is compiled); the initializers' values are
/// bound as inputs.
/// `boundDims`: the values of the dims of a symbolic import whose compile
/// was refused (imported again with them bound).
Expected<ModelSource>
importOnnx(const RunOptions &options,
           const std::optional<DimBindings> &boundDims = std::nullopt) {
  ModelSource model;
  onnximport::ImportOptions importOptions;
  if (Status dims = parseDims(options.dims, importOptions); !dims.ok())
    return dims;
  if (boundDims)
    for (const auto &[name, value] : *boundDims)
      importOptions.dims[name] = value;
  if (!llvm::sys::fs::exists(options.model))
    return Status::error("cannot read '" + options.model +
                         "': no such file or directory");
  if (cacheCertainlyMisses(options))
    run::preloadCompiler();
  preloadInputs(options.inputs, importOptions, model.preloaded);
  progress("importing " + options.model +
           (boundDims ? " with its dims bound" : "") + "...");
  if (!boundDims && declaresDynamicDims(options.model))
    if (std::optional<onnximport::ImportedModel> symbolic =
            importSymbolic(options))
      return importedSource(std::move(model), std::move(*symbolic));
  std::vector<onnximport::ConstantInputNeed> needs;
  Expected<onnximport::ImportedModel> imported =
      onnximport::importModelFile(options.model, importOptions, &needs);
  // A shape, axes or indices computed from a model input must be known at
  // import time: the importer says which inputs, and their --input values
  // are compiled into the model (a decision said out loud, since every
  // other value of such an input compiles the model again).
  while (!imported.ok() && !needs.empty()) {
    if (Status bound = bindConstantInputs(options, needs, importOptions,
                                          model.boundAtImport);
        !bound.ok())
      return bound;
    needs.clear();
    imported =
        onnximport::importModelFile(options.model, importOptions, &needs);
  }
  if (!imported.ok())
    return imported.status();
  return importedSource(std::move(model), imported.take());
}

/// A regular file (not /dev/zero, a FIFO or a directory), as large as an
/// ONNX model may be.
Expected<ModelSource> readMlir(const RunOptions &options) {
  Expected<std::string> file =
      readRegularFile(options.model, std::uint64_t(1) << 31);
  if (!file.ok())
    return file.status();
  ModelSource model;
  model.text = file.take();
  if (std::optional<std::string> deep = checkMlirNesting(model.text))
    return Status::error("'" + options.model + "': " + *deep);
  return model;
}

/// The graph of the model's source, read for the cache key, the input names
/// and the reference.
struct ParsedModel {
  Graph graph;
  /// It holds fuse.fusion ops: its kernels are the ones written.
  bool handFused = false;
  std::vector<std::string> inputNames, outputNames;
  /// A .mlir model with symbolic dims: its graph as written (the key of its
  /// bundle, which serves every value of the dims) and the values this run
  /// binds them to; `graph` is then the bound graph.
  std::optional<Graph> symbolicGraph;
  DimBindings dimValues;
};

/// Each input's name: the graph's, else the source's, else "inN"; each
/// output's: the graph's, else "outN".
void nameInputsAndOutputs(std::vector<std::string> argumentNames,
                          ParsedModel &model) {
  const Graph &graph = model.graph;
  model.inputNames = std::move(argumentNames);
  model.inputNames.resize(graph.inputs.size());
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    if (!graph.tensors[graph.inputs[i]].name.empty())
      model.inputNames[i] = graph.tensors[graph.inputs[i]].name;
    if (model.inputNames[i].empty())
      model.inputNames[i] = "in" + std::to_string(i);
  }
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    model.outputNames.push_back(graph.outputs[i].name.empty()
                                    ? "out" + std::to_string(i)
                                    : graph.outputs[i].name);
}

/// The imported graph as printing it as a function of fuse ops and reading
/// it back gives (what fuse-run ran before it read imports without MLIR):
/// the tensors renumbered, the inputs first and then each op's result in
/// order (a tensor neither defines is dropped), a scatter's default
/// reduction dropped, the arguments named %argN in the source; a symbolic
/// graph keeps its dims (iota and dim_value print as they are). Fails where
/// the graph does not print (an op of several results).
std::optional<ParsedModel> importedModel(Graph imported) {
  constexpr TensorId kUndefined = -1;
  std::vector<TensorId> renumbered(imported.tensors.size(), kUndefined);
  auto lookup = [&](TensorId id) {
    return imported.isValidId(id) ? renumbered[id] : kUndefined;
  };
  ParsedModel model;
  Graph &graph = model.graph;
  graph.dims = std::move(imported.dims);
  std::vector<std::string> argumentNames;
  for (TensorId input : imported.inputs) {
    if (!imported.isValidId(input) || renumbered[input] != kUndefined)
      return std::nullopt;
    renumbered[input] = TensorId(graph.tensors.size());
    graph.inputs.push_back(renumbered[input]);
    graph.tensors.push_back(std::move(imported.tensors[input]));
    argumentNames.push_back("arg" + std::to_string(argumentNames.size()));
  }
  graph.ops.reserve(imported.ops.size());
  for (Op &op : imported.ops) {
    if (op.results.size() != 1 || !imported.isValidId(op.result()) ||
        renumbered[op.result()] != kUndefined)
      return std::nullopt;
    TensorId result = op.result();
    Op copy = std::move(op);
    for (TensorId &operand : copy.operands)
      if ((operand = lookup(operand)) == kUndefined)
        return std::nullopt;
    if (copy.kind == OpKind::Scatter)
      if (const Attribute *reduction = copy.findAttr("reduction");
          reduction && reduction->kind() == AttrKind::Enum &&
          reduction->getEnumName() == "none")
        copy.attributes.erase("reduction");
    renumbered[result] = TensorId(graph.tensors.size());
    copy.results = {renumbered[result]};
    graph.tensors.push_back(std::move(imported.tensors[result]));
    graph.ops.push_back(std::move(copy));
  }
  for (GraphOutput &output : imported.outputs) {
    TensorId id = lookup(output.tensor);
    if (id == kUndefined)
      return std::nullopt;
    graph.outputs.push_back({id, std::move(output.name)});
  }
  nameInputsAndOutputs(std::move(argumentNames), model);
  return model;
}

Expected<ParsedModel> parseModel(const RunOptions &options,
                                 ModelSource &source) {
  const std::string &modelPath = options.model;
  if (source.imported) {
    std::optional<ParsedModel> imported =
        importedModel(std::move(*source.imported));
    if (!imported)
      return Status::error("internal error: the imported graph of '" +
                           modelPath + "' does not translate to fuse ops");
    return std::move(*imported);
  }
  Expected<run::ParsedSource> parsed = run::parseSource(source.text, modelPath);
  if (!parsed.ok())
    return parsed.status();
  ParsedModel model;
  model.graph = std::move(parsed->graph);
  model.handFused = parsed->handFused;
  nameInputsAndOutputs(std::move(parsed->argumentNames), model);
  if (!model.graph.isSymbolic() && !options.dims.empty())
    return Status::error("--dim: '" + modelPath +
                         "' has no symbolic dims (--dim binds a .mlir "
                         "model's symbolic dims or an .onnx model's dynamic "
                         "ones)");
  if (!model.graph.isSymbolic() && !options.dimRanges.empty())
    return Status::error("--dim-range: '" + modelPath +
                         "' has no symbolic dims");
  return model;
}

/// The --dim NAME=VALUE values of a .mlir model's symbolic dims.
Expected<DimBindings> givenDimValues(const RunOptions &options,
                                     const Graph &graph) {
  DimBindings values;
  for (const std::string &spec : options.dims) {
    std::size_t equals = spec.find('=');
    long long value = 0;
    if (equals == std::string::npos || equals == 0 ||
        llvm::StringRef(spec).drop_front(equals + 1).getAsInteger(10, value))
      return Status::error("--dim '" + spec + "' is not NAME=VALUE");
    std::string name = spec.substr(0, equals);
    if (!llvm::is_contained(graph.dims.symbols, name))
      return Status::error(
          "--dim " + spec + ": '" + options.model + "' has no dim '" + name +
          "'; its dims are: " + llvm::join(graph.dims.symbols, ", "));
    if (value < 0)
      return Status::error("--dim " + spec + ": " + std::to_string(value) +
                           " is not a possible size of dim '" + name + "'");
    if (!values.emplace(name, value).second)
      return Status::error("--dim gives dim '" + name +
                           "' twice; give each dim once");
  }
  return values;
}

/// The shape of each input given with --input (read once: the file is
/// kept for the run); none for an input drawn at random. A malformed spec
/// or an unknown name is left to givenInputs, which says so.
Expected<std::vector<std::optional<std::vector<std::int64_t>>>>
givenInputShapes(const RunOptions &options, const ParsedModel &model,
                 ModelSource &source) {
  std::vector<std::optional<std::vector<std::int64_t>>> shapes(
      model.graph.inputs.size());
  for (const std::string &spec : options.inputs) {
    std::size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0)
      continue;
    std::string name = spec.substr(0, equals);
    auto it = llvm::find(model.inputNames, name);
    if (it == model.inputNames.end() || shapes[it - model.inputNames.begin()])
      continue;
    auto kept = source.preloaded.find(spec);
    if (kept == source.preloaded.end()) {
      Expected<npy::Array> array = readInputFile(spec.substr(equals + 1));
      if (!array.ok())
        return Status::error("--input " + name + ": " + array.message());
      kept = source.preloaded.emplace(spec, array.take()).first;
    }
    shapes[it - model.inputNames.begin()] = kept->second.type.shape;
  }
  return shapes;
}

/// The values of a symbolic model's dims: --dim's, then the --input
/// shapes' (which must agree with them and with each other). An error
/// names the dim.
Expected<DimBindings> modelDimValues(const RunOptions &options,
                                     const ParsedModel &model,
                                     ModelSource &source) {
  const Graph &graph = model.graph;
  Expected<DimBindings> given = givenDimValues(options, graph);
  if (!given.ok())
    return given.status();
  DimBindings values = given.take();
  std::map<std::string, std::string> readFrom;
  for (const auto &[name, value] : values)
    readFrom[name] = "--dim " + name + "=" + std::to_string(value);
  Expected<std::vector<std::optional<std::vector<std::int64_t>>>> shapes =
      givenInputShapes(options, model, source);
  if (!shapes.ok())
    return shapes.status();
  for (std::size_t i = 0; i < shapes->size(); ++i) {
    if (!(*shapes)[i])
      continue;
    const std::vector<std::int64_t> &shape = *(*shapes)[i];
    const TensorType &type = graph.typeOf(graph.inputs[i]);
    const std::string &name = model.inputNames[i];
    if (shape.size() != type.shape.size())
      return Status::error(
          "--input " + name + " has rank " + std::to_string(shape.size()) +
          ", but the model's '" + name + "' is a " + graph.typeString(type));
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::optional<std::string> symbol =
          type.shape[d] < 0 ? graph.dims.expr(type.shape[d]).symbolName()
                            : std::nullopt;
      if (!symbol)
        continue;
      std::string where = "dim " + std::to_string(d) + " of --input " + name;
      auto [it, added] = values.emplace(*symbol, shape[d]);
      if (added)
        readFrom[*symbol] = where;
      else if (it->second != shape[d])
        return Status::error("the inputs disagree about dim '" + *symbol +
                             "': " + readFrom[*symbol] + " gives " +
                             std::to_string(it->second) + ", " + where + " (" +
                             graph.typeString(type) + ") is " +
                             std::to_string(shape[d]));
    }
  }
  for (const std::string &symbol : graph.dims.symbols)
    if (!values.count(symbol))
      return Status::error(
          "dim '" + symbol + "' of '" + options.model +
          "' has no value: no --input shape gives it (an input drawn at "
          "random has no shape of its own); give --dim " +
          symbol + "=VALUE, or the inputs that have it with --input");
  // Every input's shape for the values: the static dims and the dims that
  // are expressions checked against the given shapes.
  std::vector<std::vector<std::int64_t>> all;
  for (std::size_t i = 0; i < shapes->size(); ++i) {
    if ((*shapes)[i]) {
      all.push_back(*(*shapes)[i]);
      continue;
    }
    const TensorType &type = graph.typeOf(graph.inputs[i]);
    std::vector<std::int64_t> shape;
    for (std::size_t d = 0; d < type.shape.size(); ++d) {
      Expected<std::int64_t> value =
          graph.dims.expr(type.shape[d]).evaluate(values);
      if (!value.ok() || *value < 0)
        return Status::error(
            "dim " + std::to_string(d) + " of input '" + model.inputNames[i] +
            "' (" + graph.dims.dimString(type.shape[d]) +
            ") is not a possible size for " + dimBindingsText(values) +
            (value.ok() ? " (it is " + std::to_string(*value) + ")"
                        : ": " + value.message()));
      shape.push_back(*value);
    }
    all.push_back(std::move(shape));
  }
  Expected<DimBindings> checked =
      dimsFromInputShapes(graph, all, model.inputNames);
  if (!checked.ok())
    return checked.status();
  return values;
}

/// A .mlir model with symbolic dims: binds them for this run (the model's
/// graph becomes the bound graph; its bundle stays the symbolic graph's).
Status bindModelDims(const RunOptions &options, ParsedModel &model,
                     ModelSource &source) {
  if (Status named = checkDimRanges(model.graph, options.dimRanges);
      !named.ok())
    return Status::error("--dim-range: '" + options.model +
                         "': " + named.message());
  Expected<DimBindings> values = modelDimValues(options, model, source);
  if (!values.ok())
    return values.status();
  if (Status inRange = checkDimsInRanges(*values, options.dimRanges);
      !inRange.ok())
    return Status::error("--dim-range: " + inRange.message() +
                         " (bound for this run: " + dimBindingsText(*values) +
                         ")");
  Expected<Graph> bound = bindDims(model.graph, *values);
  if (!bound.ok())
    return Status::error("'" + options.model + "': " + bound.message());
  progress("symbolic dims bound for this run: " + dimBindingsText(*values));
  model.symbolicGraph = std::move(model.graph);
  model.graph = bound.take();
  model.dimValues = values.take();
  return Status::success();
}

/// An --input value as the model's input of type `expected` takes it.
Expected<HostTensorData> inputValue(const std::string &name,
                                    const std::string &path, npy::Array array,
                                    const TensorType &expected) {
  TensorType got = array.type;
  // bf16 and the f8/f4 types have no .npy dtype: they are read from f32,
  // each value rounded as a cast rounds it (to nearest even).
  bool noNpyFloat = isFloat(expected.elementType) &&
                    byteSize(expected.elementType) < 4 &&
                    expected.elementType != ElementType::F16;
  if (noNpyFloat && got.elementType == ElementType::F32 &&
      got.shape == expected.shape) {
    HostTensorData f32(got);
    f32.bytes = std::move(array.bytes);
    return HostTensorData::fromDoubles(expected, f32.toDoubles());
  }
  // i4/i2 are read from int8 and ui4/ui2 from uint8 (as fuse-run writes
  // them), every value inside the narrow type's range.
  unsigned bits = integerBitWidth(expected.elementType);
  if (bits == 2 || bits == 4) {
    bool isUnsigned = isUnsignedInteger(expected.elementType);
    ElementType wide = isUnsigned ? ElementType::UI8 : ElementType::I8;
    if (got.elementType == wide && got.shape == expected.shape) {
      std::int64_t low = isUnsigned ? 0 : -(std::int64_t(1) << (bits - 1));
      std::int64_t high =
          (std::int64_t(1) << (isUnsigned ? bits : bits - 1)) - 1;
      HostTensorData data(expected);
      data.bytes = std::move(array.bytes);
      for (std::int64_t i = 0; i < expected.numElements(); ++i) {
        std::int64_t value = loadInt(wide, data.bytes.data(), i);
        if (value < low || value > high)
          return Status::error(
              "--input " + name + ": '" + path + "' element " +
              std::to_string(i) + " is " + std::to_string(value) +
              ", outside " +
              std::string(elementTypeName(expected.elementType)) + "'s range " +
              std::to_string(low) + " .. " + std::to_string(high));
      }
      return data;
    }
  }
  if (got != expected)
    return Status::error("--input " + name + ": '" + path + "' holds a " +
                         got.toString() + ", but the model's input '" + name +
                         "' is a " + expected.toString());
  HostTensorData data(expected);
  data.bytes = std::move(array.bytes);
  return data;
}

/// Per model input: its --input value, else its weight's, else none (drawn
/// from the seed).
Expected<std::vector<std::shared_ptr<const HostTensorData>>>
givenInputs(const RunOptions &options, const ParsedModel &model,
            ModelSource &source) {
  const Graph &graph = model.graph;
  const std::vector<std::string> &inputNames = model.inputNames;
  std::vector<std::shared_ptr<const HostTensorData>> inputData(
      graph.inputs.size());
  std::set<std::string> givenNames;
  for (const std::string &spec : options.inputs) {
    std::size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0)
      return Status::error("--input '" + spec +
                           "' is not NAME=PATH.npy (or .pb)");
    std::string name = spec.substr(0, equals), path = spec.substr(equals + 1);
    // The later one silently won.
    if (!givenNames.insert(name).second)
      return Status::error("--input names '" + name +
                           "' twice; give each input once");
    if (llvm::is_contained(source.boundAtImport, name))
      continue;
    auto it = std::find(inputNames.begin(), inputNames.end(), name);
    if (it == inputNames.end()) {
      std::string known;
      for (const std::string &n : inputNames)
        known += (known.empty() ? "" : ", ") + n;
      return Status::error("--input names '" + name +
                           "', which is not an input of '" + options.model +
                           "'; its inputs are: " + known);
    }
    std::size_t index = it - inputNames.begin();
    auto kept = source.preloaded.find(spec);
    Expected<npy::Array> array =
        kept != source.preloaded.end()
            ? Expected<npy::Array>(std::move(kept->second))
            : readInputFile(path);
    if (!array.ok())
      return Status::error("--input " + name + ": " + array.message());
    Expected<HostTensorData> value =
        inputValue(name, path, array.take(), graph.typeOf(graph.inputs[index]));
    if (!value.ok())
      return value.status();
    inputData[index] = std::make_shared<const HostTensorData>(value.take());
  }
  // Weights not given with --input: their initializer values.
  for (std::size_t i = 0; i < source.weights.size() && i < inputData.size();
       ++i)
    if (source.weights[i] && !inputData[i])
      inputData[i] = source.weights[i];
  return inputData;
}

/// The memory the model's shapes ask for, each tensor and all together,
/// checked before any of it is allocated.
Status checkModelMemory(const RunOptions &options, const ParsedModel &model) {
  const Graph &graph = model.graph;
  std::uint64_t totalBytes = 0, largestBytes = 0;
  std::string largest;
  auto checkTensor = [&](TensorId tensor, const std::string &what) {
    const TensorType &type = graph.typeOf(tensor);
    const std::uint64_t bytes = std::uint64_t(type.byteSize());
    // Saturated: each tensor is below 2^48 bytes, but a model may list
    // enough of them to wrap the sum.
    totalBytes =
        bytes > UINT64_MAX - totalBytes ? UINT64_MAX : totalBytes + bytes;
    if (bytes > largestBytes) {
      largestBytes = bytes;
      largest = what + ", " + std::to_string(bytes) + " bytes";
    }
    return checkAllocatable(bytes, what + " (" + type.toString() + ")");
  };
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    if (Status room =
            checkTensor(graph.inputs[i], "input '" + model.inputNames[i] + "'");
        !room.ok())
      return room;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    if (Status room = checkTensor(graph.outputs[i].tensor,
                                  "output '" + model.outputNames[i] + "'");
        !room.ok())
      return room;
  if (Status room = checkAllocatable(totalBytes, "the inputs and outputs of '" +
                                                     options.model + "'");
      !room.ok())
    return room;
  // A run holds them about three times (fuse-run's copies and the runtime's
  // buffers: a peak of 1.69 GB measured for 512 MiB of inputs), four times
  // under --check (the reference runtime's). malloc grants each copy (Linux
  // overcommits) and the OOM killer ends the process when their pages are
  // touched, unless the sum is refused here.
  const std::uint64_t copies = options.check ? 4 : 3;
  return checkFitsInMemory(
      totalBytes > UINT64_MAX / copies ? UINT64_MAX : totalBytes * copies,
      "running '" + options.model + "' (its inputs and outputs, " +
          std::to_string(totalBytes) + " bytes, held " +
          std::to_string(copies) + " times; the largest is " + largest + ")");
}

/// An input's memory as fuse-run fills it, before the runtime reads it.
struct InputMemory {
  std::shared_ptr<const void> owner;
  std::span<std::byte> bytes;
  device::SharedInput shared() const { return {owner, bytes}; }
};

/// Host memory for an input of `bytes` that the host runtime will read in
/// place: from the runtime's own kind of blocks when it is large (huge
/// pages: a kernel streaming a borrowed array from 4 KiB pages of the C++
/// heap read it 1.4-2x slower), else from the heap.
Expected<InputMemory> inputMemory(std::size_t bytes, const std::string &name,
                                  const std::string &type) {
  if (bytes < device::HostAllocator::HugePageBytes) {
    auto heap = std::make_shared<device::TensorBytes>(bytes);
    return InputMemory{heap, *heap};
  }
  std::shared_ptr<std::byte> block = device::allocateHostBytes(bytes);
  if (!block)
    return Status::error("cannot allocate " + std::to_string(bytes) +
                         " bytes for input '" + name + "' (" + type + ")");
  return InputMemory{block, std::span(block.get(), bytes)};
}

/// Every input's bytes: its given value (shared, not copied: the host
/// runtime reads weights in place), else random from the seed. With
/// `copyLargeGiven` (timed runs), a large value given with --input, not a
/// weight, is copied once into memory that kernels stream faster
/// (inputMemory); `inputData` is taken, so that the original is freed.
Expected<std::vector<device::SharedInput>>
inputBytes(const ParsedModel &model,
           std::vector<std::shared_ptr<const HostTensorData>> inputData,
           const std::vector<std::shared_ptr<const HostTensorData>> &weights,
           unsigned seed, bool copyLargeGiven) {
  const Graph &graph = model.graph;
  std::mt19937_64 rng(seed);
  const std::vector<std::optional<std::int64_t>> indexBounds =
      gatherIndexBounds(graph);
  std::vector<device::SharedInput> inputs;
  // Each input draws from the generator whether given or not, so that a
  // given input does not change the random values of the others; given
  // inputs after the last random one need not (an ONNX model's weights:
  // millions of draws, most of a warm start's time).
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    if (!inputData[i])
      drawn = i + 1;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const TensorType &type = graph.typeOf(graph.inputs[i]);
    const std::string &name = model.inputNames[i];
    if (inputData[i]) {
      if (i < drawn)
        randomTensor(type, rng, nullptr, indexBounds[i]);
      const std::vector<std::uint8_t> &bytes = inputData[i]->bytes;
      bool weight = i < weights.size() && weights[i] == inputData[i];
      if (!copyLargeGiven || weight ||
          bytes.size() < device::HostAllocator::HugePageBytes) {
        inputs.push_back({inputData[i], std::as_bytes(std::span(bytes))});
        continue;
      }
      Expected<InputMemory> copy =
          inputMemory(bytes.size(), name, graph.typeString(type));
      if (!copy.ok())
        return copy.status();
      std::memcpy(copy->bytes.data(), bytes.data(), bytes.size());
      inputs.push_back(copy->shared());
      inputData[i].reset();
      continue;
    }
    Expected<InputMemory> memory =
        inputMemory(std::size_t(type.byteSize()), name, graph.typeString(type));
    if (!memory.ok())
      return memory.status();
    if (i < drawn)
      randomTensor(type, rng, memory->bytes.data(), indexBounds[i]);
    inputs.push_back(memory->shared());
  }
  return inputs;
}

/// A bundle and how it was made: the counts and the time are unknown for a
/// reference bundle.
struct PlannedBundle {
  Bundle bundle;
  std::optional<std::int64_t> compiled, cacheHits;
  /// Kernels compiled to machine code and kernels whose code an earlier
  /// compilation (this process's or, through the cache, another's) made.
  std::optional<std::int64_t> kernelsCompiled, kernelsReused;
  std::optional<double> compileMs;
  /// The compiler's phases (--json "compile_phases").
  std::vector<PhaseTiming> phases;
  /// Compiled for every value of the model's symbolic dims (and bound to
  /// this run's), rather than for the bound values.
  bool symbolic = false;
  /// Of a symbolic bundle: its arena as formulas over the dims (issue 22),
  /// which --print-plan and --json show next to the planned bytes.
  std::optional<ArenaFormula> arenaFormula;
};

/// The bundle cache, or none: for a hand-fused model, or where it does not
/// open (said as a warning).
std::unique_ptr<BundleCache> openCache(const RunOptions &options,
                                       bool handFused) {
  if (handFused) {
    // Its kernels are the ones written in the file, which the key (a hash
    // of the flattened graph) cannot tell from the fused graph's.
    progress("the model holds fuse.fusion ops: compiled as written, "
             "without the cache");
    return nullptr;
  }
  BundleCacheOptions cacheOptions;
  cacheOptions.directory = options.cacheDir;
  // One lookup, then a store on a miss: nothing is looked up again, so the
  // bundle is not kept in memory (nor copied to be kept).
  cacheOptions.maxMemoryBytes = 0;
  if (cacheOptions.directory.empty()) {
    Expected<std::string> directory = BundleCache::defaultDirectory();
    if (directory.ok())
      cacheOptions.directory = *directory;
  }
  cacheOptions.onProblem = CacheWarnings::callback();
  if (cacheOptions.directory.empty()) {
    warn("no bundle cache directory (set $FUSE_CACHE_DIR or give "
         "--cache-dir); compiling without the cache");
    return nullptr;
  }
  Expected<std::unique_ptr<BundleCache>> opened =
      BundleCache::open(cacheOptions);
  if (opened.ok())
    return opened.take();
  warn("bundle cache disabled: " + opened.message());
  return nullptr;
}

/// This CPU's host target and the compile options of the run.
struct HostTarget {
  Target target;
  CompileOptions compileOptions;
};

Expected<HostTarget> hostTarget(const RunOptions &options) {
  std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
  if (!level || *level == device::HostIsaLevel::X86_64_V2)
    return Status::error("this CPU supports neither x86-64-v3 nor x86-64-v4, "
                         "which host code needs; use --runtime reference");
  Expected<Target> target = Target::parse(device::hostTargetName(*level));
  if (!target.ok())
    return target.status();
  HostTarget host{target.take(), {}};
  host.compileOptions.enableFusion = options.fusion;
  host.compileOptions.matmulPrecision = options.matmulPrecision;
  if (options.matmulPrecision == MatmulPrecision::Bf16 &&
      *level == device::HostIsaLevel::X86_64_V4 &&
      !device::hostSupportsAvx512Bf16())
    return Status::error("--matmul-precision=bf16 needs AVX-512 BF16, which "
                         "this CPU (target " +
                         host.target.name + ") does not have");
  // bf16 on AMX tiles where this CPU (and the OS) allow them.
  host.compileOptions.amxTiles =
      options.matmulPrecision == MatmulPrecision::Bf16 && !options.noAmx &&
      device::hostSupportsAmxBf16();
  return host;
}

/// Whether a compile error is the compiler's refusal of a fusion that
/// cannot take its dims at run time (KernelCompiler, "Symbolic fusions").
bool refusedForSymbolicDims(const Status &status) {
  return !status.ok() &&
         status.message().find("bind the dims") != std::string::npos;
}

/// The bundle of `graph` from `cache`, else compiled from `sourceText()`
/// and stored. A compile error is prefixed with the model's path.
Expected<PlannedBundle>
cachedOrCompiled(const RunOptions &options, const Graph &graph,
                 const HostTarget &host, BundleCache *cache,
                 llvm::function_ref<Expected<std::string>()> sourceText) {
  BundleKey key = BundleKey::make(graph, host.target.name, host.compileOptions);
  std::optional<Bundle> hit;
  if (cache)
    hit = cache->lookup(key);
  PlannedBundle planned;
  if (hit && hit->inputs.size() == graph.inputs.size() &&
      hit->outputs.size() == graph.outputs.size()) {
    planned.bundle = std::move(*hit);
    planned.compiled = 0;
    planned.cacheHits = 1;
    planned.kernelsCompiled = 0;
    planned.kernelsReused = 0;
    progress("cache hit: " + std::to_string(planned.bundle.kernels.size()) +
             " kernel(s) for " + host.target.name + ", nothing to compile");
    return planned;
  }
  progress("compiling " + std::to_string(graph.ops.size()) + " ops for " +
           host.target.name + (options.fusion ? "" : " without fusion") +
           (graph.isSymbolic() ? " (once for every value of the dims)" : "") +
           "...");
  Clock::time_point start = Clock::now();
  if (Status loaded = run::loadCompiler(); !loaded.ok())
    return loaded;
  Expected<std::string> text = sourceText();
  if (!text.ok())
    return text.status();
  Expected<Compilation> compilation = run::compileHostSource(
      *text, host.target, host.compileOptions, cache, options.model);
  if (!compilation.ok())
    return Status::error(options.model + ": " + compilation.message());
  planned.compileMs = millisecondsSince(start);
  planned.phases = compilation->phases;
  planned.bundle = std::move(compilation->bundle);
  planned.compiled = std::int64_t(planned.bundle.kernels.size());
  planned.cacheHits = 0;
  planned.kernelsCompiled = compilation->kernels.compiled;
  planned.kernelsReused = compilation->kernels.reused;
  progress("compiled " + std::to_string(planned.bundle.kernels.size()) +
           " kernel(s) in " + formatMs(*planned.compileMs) +
           (compilation->kernels.reused
                ? " (" + std::to_string(compilation->kernels.reused) +
                      " distinct kernel(s) taken from the cache, " +
                      std::to_string(compilation->kernels.compiled) +
                      " compiled to machine code)"
                : std::string()));
  // The compiler's remarks (--fuse-explain's decisions).
  for (const std::string &remark : compilation->remarks)
    llvm::errs() << "fuse-run: note: " << remark << "\n";
  if (cache) {
    Status stored = cache->store(key, planned.bundle);
    if (!stored.ok())
      warn("the bundle was not cached: " + stored.message());
  }
  return planned;
}

/// The refusal of a symbolic graph's compile (refusedForSymbolicDims),
/// remembered in the cache beside the bundle its key would name: a file of
/// the cache's kernel files whose key is derived from the symbolic graph's
/// (so a later run of the model goes straight to the bound graph, without
/// compiling the symbolic one again to be refused again), holding the
/// message. Evicted or absent: the symbolic compile is tried again.
constexpr const char *kRefusalMarker = "fuse-run: symbolic dims refused";

std::string refusalKeyHex(const BundleKey &symbolicKey) {
  std::string text = std::string(kRefusalMarker) + "\n" + symbolicKey.toHex();
  return sha256Hex(std::span(
      reinterpret_cast<const std::uint8_t *>(text.data()), text.size()));
}

std::optional<std::string> rememberedRefusal(BundleCache *cache,
                                             const BundleKey &symbolicKey) {
  if (!cache)
    return std::nullopt;
  std::optional<KernelFile> file =
      cache->loadKernel(refusalKeyHex(symbolicKey));
  if (!file || file->symbols != std::vector<std::string>{kRefusalMarker})
    return std::nullopt;
  return std::string(file->object.begin(), file->object.end());
}

void rememberRefusal(BundleCache *cache, const BundleKey &symbolicKey,
                     const std::string &message) {
  if (!cache)
    return;
  KernelFile file{{message.begin(), message.end()}, {kRefusalMarker}};
  if (Status stored = cache->storeKernel(refusalKeyHex(symbolicKey), file);
      !stored.ok())
    warn("the refusal of the symbolic compile was not cached: " +
         stored.message());
}

/// `graph` printed as a function of fuse ops, or the error that it does not
/// translate to them, after `what` (which names the graph).
Expected<std::string> fuseOpsText(const Graph &graph, const std::string &what) {
  Expected<std::string> text = run::printGraph(graph);
  if (!text.ok())
    return Status::error(what +
                         " does not translate to fuse ops: " + text.message());
  return text;
}

/// The bundle of a model with symbolic dims on the host: compiled once (its
/// bundle cached under the symbolic graph) and bound to this run's dims.
/// None where a fusion needs a static value of a dim (a matmul): a note
/// says so, and the refusal is remembered in the cache, so that later runs
/// go straight to the bound graph without compiling the symbolic one again.
Expected<std::optional<PlannedBundle>>
symbolicHostBundle(const RunOptions &options, const ParsedModel &model,
                   const ModelSource &source) {
  Expected<HostTarget> host = hostTarget(options);
  if (!host.ok())
    return host.status();
  std::unique_ptr<BundleCache> cache = openCache(options, model.handFused);
  const Graph &symbolicGraph = *model.symbolicGraph;
  BundleKey symbolicKey =
      BundleKey::make(symbolicGraph, host->target.name, host->compileOptions);
  std::optional<std::string> refusal =
      rememberedRefusal(cache.get(), symbolicKey);
  if (!refusal) {
    Expected<PlannedBundle> symbolic = cachedOrCompiled(
        options, symbolicGraph, *host, cache.get(),
        [&]() -> Expected<std::string> {
          if (!source.isOnnx)
            return source.text;
          return fuseOpsText(symbolicGraph,
                             "internal error: the imported graph of '" +
                                 options.model + "'");
        });
    if (symbolic.ok()) {
      Expected<ArenaFormula> formula =
          arenaFormula(symbolic->bundle.memoryPlan);
      if (!formula.ok())
        return Status::error("the arena of '" + options.model +
                             "' as a formula: " + formula.message());
      symbolic->arenaFormula = formula.take();
      Expected<Bundle> bound = bindBundle(symbolic->bundle, model.dimValues);
      if (!bound.ok())
        return Status::error("binding the bundle of '" + options.model +
                             "' to " + dimBindingsText(model.dimValues) + ": " +
                             bound.message());
      symbolic->bundle = bound.take();
      symbolic->symbolic = true;
      return std::optional<PlannedBundle>(symbolic.take());
    }
    if (!refusedForSymbolicDims(symbolic.status()))
      return symbolic.status();
    refusal = symbolic.message();
    rememberRefusal(cache.get(), symbolicKey, *refusal);
  }
  llvm::errs() << "fuse-run: note: not every fusion takes the dims at run "
                  "time, so the model is compiled for "
               << dimBindingsText(model.dimValues)
               << " (every other value compiles again): " << *refusal << "\n";
  return std::optional<PlannedBundle>();
}

/// The host bundle of the model's (static or bound) graph, from the cache
/// or the compiler.
Expected<PlannedBundle> hostBundle(const RunOptions &options,
                                   const ParsedModel &model,
                                   const ModelSource &source) {
  Expected<HostTarget> host = hostTarget(options);
  if (!host.ok())
    return host.status();
  std::unique_ptr<BundleCache> cache = openCache(options, model.handFused);
  return cachedOrCompiled(
      options, model.graph, *host, cache.get(), [&]() -> Expected<std::string> {
        if (!source.isOnnx && !model.symbolicGraph)
          return source.text;
        return fuseOpsText(
            model.graph, "internal error: the " +
                             std::string(source.isOnnx ? "imported" : "bound") +
                             " graph of '" + options.model + "'");
      });
}

/// The bundle: from the cache or the compiler (host), or one reference
/// kernel.
/// `symbolic`: the bundle symbolicHostBundle made, bound to this run.
Expected<PlannedBundle> planBundle(const RunOptions &options,
                                   const ParsedModel &model,
                                   const ModelSource &source,
                                   std::optional<PlannedBundle> symbolic) {
  const Graph &graph = model.graph;
  PlannedBundle planned;
  if (symbolic) {
    planned = std::move(*symbolic);
  } else if (options.runtime == "host") {
    Expected<PlannedBundle> compiled = hostBundle(options, model, source);
    if (!compiled.ok())
      return compiled;
    planned = compiled.take();
  } else {
    planned.bundle = makeReferenceBundle(graph);
  }
  const Bundle &bundle = planned.bundle;
  if (bundle.inputs.size() != graph.inputs.size() ||
      bundle.outputs.size() != graph.outputs.size())
    return Status::error("internal error: the bundle's inputs and outputs do "
                         "not match the model's");
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    if (bundle.graph.typeOf(bundle.inputs[i]) != graph.typeOf(graph.inputs[i]))
      return Status::error("internal error: the bundle's input " +
                           std::to_string(i) +
                           " has another type than the model's");
  return planned;
}

/// --emit-mlir: the model's graph (symbolic where its dims stay so) as a
/// function of fuse ops.
Status writeModelMlir(const RunOptions &options, const ParsedModel &model,
                      const ModelSource &source) {
  Expected<std::string> text =
      !source.isOnnx ? Expected<std::string>(source.text)
                     : fuseOpsText(model.graph, "--emit-mlir: the graph of '" +
                                                    options.model + "'");
  if (!text.ok())
    return text.status();
  std::string error;
  std::unique_ptr<llvm::raw_fd_ostream> file =
      openUserOutput(options.emitMlir, error);
  if (!file)
    return Status::error(error);
  *file << *text;
  if (!finishUserOutput(*file, options.emitMlir, error))
    return Status::error(error);
  progress("wrote the model as fuse ops to " + options.emitMlir);
  return Status::success();
}

/// --print-plan and --dot.
Status writePlan(const RunOptions &options, const ParsedModel &model,
                 const PlannedBundle &planned) {
  const Bundle &bundle = planned.bundle;
  if (options.printPlan)
    printPlanText(bundle, llvm::outs());
  // Issue 22: a symbolic bundle's arena as formulas over the dims, with
  // what bindBundle planned at this run's values.
  if (options.printPlan && planned.arenaFormula)
    llvm::outs() << "arena: "
                 << describeArenaFormula(*planned.arenaFormula,
                                         &bundle.memoryPlan, model.dimValues)
                 << "\n";
  if (options.dotFile.empty())
    return Status::success();
  std::string error;
  std::unique_ptr<llvm::raw_fd_ostream> dot =
      openUserOutput(options.dotFile, error);
  if (!dot)
    return Status::error(error);
  printPlanDot(bundle, llvm::sys::path::filename(options.model).str(),
               model.inputNames, model.outputNames, *dot);
  if (!finishUserOutput(*dot, options.dotFile, error))
    return Status::error(error);
  return Status::success();
}

std::unique_ptr<device::DeviceRuntime> makeRuntime(const RunOptions &options) {
  if (options.runtime != "host")
    return std::make_unique<device::ReferenceRuntime>();
  device::HostRuntime::Options hostOptions;
  hostOptions.threads = options.threads;
  return std::make_unique<device::HostRuntime>(hostOptions);
}

/// The outputs of a run and its time: of the one run, or the median and the
/// fastest of the timed runs.
struct RunResult {
  std::vector<device::TensorBytes> outputs;
  double medianMs = 0, minMs = 0;
  /// When the first run returned.
  Clock::time_point firstDone;
};

/// Runs once, or a warm-up and `bench` timed runs, and reads the outputs.
Expected<RunResult> runPrepared(const RunOptions &options,
                                device::PreparedBundle &prepared) {
  std::vector<double> timesMs;
  RunResult result;
  unsigned runs = options.bench ? options.bench + 1 : 1;
  progress("running on the " + options.runtime + " runtime" +
           (options.bench ? " (1 warm-up + " + std::to_string(options.bench) +
                                " timed runs)"
                          : std::string()) +
           "...");
  for (unsigned r = 0; r < runs; ++r) {
    Clock::time_point start = Clock::now();
    device::DeviceStatus status = prepared.run();
    double ms = millisecondsSince(start);
    if (r == 0)
      result.firstDone = Clock::now();
    if (!status)
      return Status::error("the run failed on the " + options.runtime +
                           " runtime: " + describeDeviceError(status.error()));
    if (!options.bench || r > 0)
      timesMs.push_back(ms);
  }
  device::DeviceResult<std::vector<device::TensorBytes>> read =
      prepared.readOutputs();
  if (!read)
    return Status::error("cannot read the outputs back: " +
                         describeDeviceError(read.error()));
  result.outputs = std::move(*read);
  std::sort(timesMs.begin(), timesMs.end());
  result.medianMs =
      timesMs.size() % 2
          ? timesMs[timesMs.size() / 2]
          : (timesMs[timesMs.size() / 2 - 1] + timesMs[timesMs.size() / 2]) / 2;
  result.minMs = timesMs.front();
  if (options.bench)
    progress("ran " + std::to_string(options.bench) + " times: median " +
             formatMs(result.medianMs) + ", min " + formatMs(result.minMs));
  else
    progress("ran in " + formatMs(result.medianMs));
  return result;
}

/// The outputs as tensors of the model's types, each printed with its first
/// values unless `print` is false.
Expected<std::vector<HostTensorData>>
outputTensors(const ParsedModel &model,
              const std::vector<device::TensorBytes> &outputs,
              bool print = true) {
  const Graph &graph = model.graph;
  std::vector<HostTensorData> results;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i) {
    HostTensorData data(graph.typeOf(graph.outputs[i].tensor));
    if (outputs[i].size() != data.bytes.size())
      return Status::error("internal error: output " + model.outputNames[i] +
                           " has " + std::to_string(outputs[i].size()) +
                           " bytes, expected " +
                           std::to_string(data.bytes.size()));
    copyBytes(data.bytes.data(), outputs[i].data(), data.bytes.size());
    if (print)
      llvm::outs() << "output " << model.outputNames[i] << ": "
                   << data.type.toString() << " " << preview(data) << "\n";
    results.push_back(std::move(data));
  }
  return results;
}

/// Where the time goes: each kernel alone, by time. Answers the profile's
/// JSON entries.
Expected<std::string> profileKernels(const RunOptions &options,
                                     const Bundle &bundle,
                                     device::PreparedBundle &prepared) {
  progress("profiling " + std::to_string(bundle.launchOrder.size()) +
           " launch(es), " + std::to_string(options.profile) + " run(s)...");
  device::DeviceResult<std::vector<std::chrono::nanoseconds>> times =
      prepared.profileKernels(options.profile);
  if (!times)
    return Status::error("profiling failed on the " + options.runtime +
                         " runtime: " + describeDeviceError(times.error()));
  // A run launches the per-run kernels only: they make up its sum and
  // shares; the per-binding ones (a weight's packing) follow, by time.
  std::vector<std::pair<double, std::size_t>> byTime, perBinding;
  double totalMs = 0;
  for (std::size_t i = 0; i < times->size(); ++i) {
    double ms = std::chrono::duration<double, std::milli>((*times)[i]).count();
    if (bundle.kernels[bundle.launchOrder[i]].perBinding) {
      perBinding.emplace_back(ms, i);
      continue;
    }
    byTime.emplace_back(ms, i);
    totalMs += ms;
  }
  for (auto *list : {&byTime, &perBinding})
    std::stable_sort(
        list->begin(), list->end(),
        [](const auto &a, const auto &b) { return a.first > b.first; });
  llvm::outs() << "profile: " << byTime.size()
               << " launches, each alone, median of " << options.profile
               << " runs: sum " << formatMs(totalMs) << "\n";
  std::string profileJson;
  auto print = [&](double ms, std::size_t i, bool once) {
    const BundleKernel &kernel = bundle.kernels[bundle.launchOrder[i]];
    llvm::outs() << (once
                         ? std::string("  once   ")
                         : llvm::formatv("  {0,5:F1}%",
                                         totalMs > 0 ? 100 * ms / totalMs : 0.0)
                               .str())
                 << llvm::formatv("  {0,10}  launch {1} ", formatMs(ms), i)
                 << kernel.name << " (" << scheduleKindName(kernel.schedule)
                 << ", " << kernel.ops.size() << " ops"
                 << (sharedCodeOf(bundle, kernel).empty()
                         ? std::string()
                         : ", code of " + sharedCodeOf(bundle, kernel))
                 << ")\n";
    profileJson +=
        (profileJson.empty() ? "" : ", ") + std::string("{\"launch\": ") +
        std::to_string(i) + ", \"name\": " + jsonString(kernel.name) +
        ", \"entry\": " + jsonString(kernel.entry) +
        ", \"schedule\": " + jsonString(scheduleKindName(kernel.schedule)) +
        ", \"per_binding\": " + (once ? "true" : "false") +
        ", \"ms\": " + jsonNumber(ms) + "}";
  };
  for (auto [ms, i] : byTime)
    print(ms, i, false);
  if (!perBinding.empty())
    llvm::outs() << "once per binding of the inputs (" << perBinding.size()
                 << " launches, not in a run's sum):\n";
  for (auto [ms, i] : perBinding)
    print(ms, i, true);
  return profileJson;
}

/// --output-dir: each output as a .npy file.
Status writeOutputs(const std::string &outputDir,
                    const std::vector<std::string> &outputNames,
                    const std::vector<HostTensorData> &results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return Status::error("cannot create '" + outputDir + "': " + ec.message());
  // Output names are the model's: each becomes a plain file name inside
  // the folder (escaped, never a path), and a changed name is said.
  std::vector<std::string> files = npy::outputFileNames(outputNames);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (files[i] != outputNames[i] + ".npy") {
      std::string shown;
      llvm::raw_string_ostream os(shown);
      llvm::printEscapedString(outputNames[i], os);
      progress("output " + std::to_string(i) + " ('" + shown +
               "') is written as " + files[i]);
    }
    std::string path = outputDir + "/" + files[i];
    Status written = npy::write(path, {results[i].type, results[i].bytes});
    if (!written.ok())
      return written;
  }
  return Status::success();
}

/// What --check found; the errors are unknown without it.
struct CheckSummary {
  std::optional<double> maxAbs, maxRel;
  bool mismatch = false;
  /// The JSON entries of the outputs, by name.
  std::string json;
  /// The guarded run's JSON object (checkGuarded).
  std::string guardsJson = "null";
};

/// Compares output `i` with the reference's bytes, prints its line and adds
/// it to `summary`; answers whether it passed.
bool checkOutput(const ParsedModel &model, std::size_t i,
                 const device::TensorBytes &reference,
                 const HostTensorData &result, CheckSummary &summary,
                 bool bf16) {
  const TensorType &type = result.type;
  HostTensorData want(type);
  copyBytes(want.bytes.data(), reference.data(), want.bytes.size());
  // The absolute part in units of the output's scale (Numerics.h).
  Tolerance tolerance = toleranceForOutput(
      model.graph, model.graph.outputs[i].tensor, want.view(), bf16);
  Comparison comparison =
      compare(reference.data(), result.bytes.data(), type.elementType,
              type.numElements(), tolerance);
  summary.maxAbs = std::max(*summary.maxAbs, comparison.maxAbsError);
  summary.maxRel = std::max(*summary.maxRel, comparison.maxRelError);
  DecidingElement decider = decidingElement(want, result, tolerance);
  const std::string &name = model.outputNames[i];
  llvm::outs() << "check " << name << ": max abs error "
               << llvm::format("%.3g", comparison.maxAbsError)
               << ", max rel error "
               << llvm::format("%.3g", comparison.maxRelError) << " (rtol "
               << llvm::format("%.3g", tolerance.rtol) << ", atol "
               << llvm::format("%.3g", tolerance.atol)
               << "): " << (comparison.ok ? "ok" : "MISMATCH")
               << ", decided by " << decider.decidedBy;
  if (decider.index >= 0)
    llvm::outs() << " at element " << decider.index << " (expected "
                 << llvm::format("%.6g", decider.expected) << ", abs error "
                 << llvm::format("%.3g", decider.absError) << ", bound "
                 << llvm::format("%.3g", decider.bound) << ")";
  llvm::outs() << "\n";
  std::string worstJson = "null";
  if (decider.index >= 0)
    worstJson = "{\"index\": " + std::to_string(decider.index) +
                ", \"expected\": " + jsonNumber(decider.expected) +
                ", \"actual\": " + jsonNumber(decider.actual) +
                ", \"abs_error\": " + jsonNumber(decider.absError) +
                ", \"rel_error\": " + jsonNumber(decider.relError) +
                ", \"bound\": " + jsonNumber(decider.bound) + "}";
  summary.json += (i ? ", " : "") + jsonString(name) +
                  ": {\"ok\": " + (comparison.ok ? "true" : "false") +
                  ", \"max_abs_error\": " + jsonNumber(comparison.maxAbsError) +
                  ", \"max_rel_error\": " + jsonNumber(comparison.maxRelError) +
                  ", \"rtol\": " + jsonNumber(tolerance.rtol) +
                  ", \"atol\": " + jsonNumber(tolerance.atol) +
                  ", \"decided_by\": " + jsonString(decider.decidedBy) +
                  ", \"nearest\": " + worstJson + "}";
  if (!comparison.ok)
    llvm::outs() << "  " << comparison.message << " (" << comparison.mismatches
                 << " elements)\n";
  return comparison.ok;
}

/// The reference runtime's outputs of `model` on `shared`.
Expected<std::vector<device::TensorBytes>>
referenceOutputs(const ParsedModel &model,
                 const std::vector<device::SharedInput> &shared) {
  device::ReferenceRuntime reference;
  Bundle referenceBundle = makeReferenceBundle(model.graph);
  std::vector<device::TensorBytes> inputs;
  for (const device::SharedInput &input : shared)
    inputs.emplace_back(input.bytes.begin(), input.bytes.end());
  device::DeviceResult<std::vector<device::TensorBytes>> expected =
      device::runBundle(reference, referenceBundle, inputs);
  if (!expected)
    return Status::error("the reference run failed: " +
                         describeDeviceError(expected.error()));
  return std::move(*expected);
}

/// --check: every output against the reference runtime's.
Expected<CheckSummary>
checkAgainstReference(const ParsedModel &model,
                      const std::vector<device::SharedInput> &shared,
                      const std::vector<HostTensorData> &results, bool bf16) {
  progress("checking against the reference runtime...");
  if (bf16)
    llvm::outs() << "check: comparing a run with bf16 matmuls with the f32 "
                    "reference: each matmul whose B is a weight adds "
                 << llvm::format("%.3g", kBf16MatmulTolerance)
                 << " of the output's scale to rtol and atol\n";
  Expected<std::vector<device::TensorBytes>> expected =
      referenceOutputs(model, shared);
  if (!expected.ok())
    return expected.status();
  CheckSummary summary;
  summary.maxAbs = 0;
  summary.maxRel = 0;
  std::size_t failures = 0;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!checkOutput(model, i, (*expected)[i], results[i], summary, bf16))
      ++failures;
  summary.mismatch = failures != 0;
  if (summary.mismatch)
    llvm::outs() << "check: FAILED, " << failures << " of " << results.size()
                 << " outputs differ from the reference\n";
  else
    llvm::outs() << "check: passed, " << results.size()
                 << " outputs match the reference\n";
  return summary;
}

/// --check, second part: the bundle run again by runBundleGuarded (its
/// arena without reuse, NaN where unwritten, guards around every buffer).
/// A changed guard is a mismatch naming the kernel; so is an output that
/// differs from the first run's and from the reference's beyond its
/// tolerance (a read of bytes no kernel wrote, or of a slice another
/// intermediate overwrote in the planned arena).
Status checkGuarded(const ParsedModel &model, const Bundle &bundle,
                    device::DeviceRuntime &runtime,
                    const device::Executable &executable,
                    device::Stream &stream,
                    const std::vector<device::SharedInput> &shared,
                    const std::vector<HostTensorData> &results, bool bf16,
                    CheckSummary &summary) {
  progress("checking for writes outside each kernel's buffers...");
  std::vector<std::span<const std::byte>> views;
  for (const device::SharedInput &input : shared)
    views.push_back(input.bytes);
  device::DeviceResult<device::GuardedRun> guarded =
      device::runBundleGuarded(runtime, bundle, executable, stream, views);
  if (!guarded)
    return Status::error("the guarded run failed: " +
                         describeDeviceError(guarded.error()));
  Expected<std::vector<HostTensorData>> outputs =
      outputTensors(model, guarded->outputs, /*print=*/false);
  if (!outputs.ok())
    return outputs.status();
  std::string breachesJson;
  for (const device::GuardBreach &breach : guarded->breaches) {
    llvm::outs() << "check guards: "
                 << (breach.kernel.empty() ? "a kernel"
                                           : "kernel " + breach.kernel)
                 << " wrote " << breach.changedBytes << " of the "
                 << device::kGuardBytes << " guard bytes " << breach.where
                 << ": MISMATCH\n";
    breachesJson += std::string(breachesJson.empty() ? "" : ", ") +
                    "{\"kernel\": " + jsonString(breach.kernel) +
                    ", \"where\": " + jsonString(breach.where) +
                    ", \"bytes\": " + std::to_string(breach.changedBytes) + "}";
  }
  size_t differ = 0, failures = 0;
  Expected<std::vector<device::TensorBytes>> expected =
      std::vector<device::TensorBytes>();
  for (size_t i = 0; i < results.size(); ++i) {
    if ((*outputs)[i].bytes == results[i].bytes)
      continue;
    ++differ;
    if (expected->empty()) {
      expected = referenceOutputs(model, shared);
      if (!expected.ok())
        return expected.status();
    }
    HostTensorData want(results[i].type);
    copyBytes(want.bytes.data(), (*expected)[i].data(), want.bytes.size());
    Tolerance tolerance = toleranceForOutput(
        model.graph, model.graph.outputs[i].tensor, want.view(), bf16);
    Comparison comparison = compare(
        (*expected)[i].data(), (*outputs)[i].bytes.data(),
        results[i].type.elementType, results[i].type.numElements(), tolerance);
    llvm::outs() << "check " << model.outputNames[i]
                 << " in the guarded run: differs from the first run's, "
                 << (comparison.ok ? "ok" : "MISMATCH")
                 << " against the reference";
    if (!comparison.ok) {
      ++failures;
      llvm::outs() << ": " << comparison.message << " ("
                   << comparison.mismatches << " elements)";
    }
    llvm::outs() << "\n";
  }
  const size_t breaches = guarded->breaches.size();
  if (!breaches)
    llvm::outs() << "check guards: " << guarded->guards
                 << " guards around the buffers of "
                 << bundle.launchOrder.size()
                 << " kernel launch(es) intact, outputs "
                 << (differ ? "within tolerance" : "equal to the first run's")
                 << " with the arena unshared and NaN where unwritten\n";
  summary.guardsJson =
      "{\"checked\": " + std::to_string(guarded->guards) + ", \"breaches\": [" +
      breachesJson + "], \"outputs_differing\": " + std::to_string(differ) +
      ", \"outputs_failing\": " + std::to_string(failures) + "}";
  if (breaches || failures) {
    summary.mismatch = true;
    llvm::outs() << "check: FAILED, " << breaches << " guard(s) written, "
                 << failures
                 << " output(s) of the guarded run differ from the reference\n";
  }
  return Status::success();
}

/// Where the time from reading the model to its first result went (--json
/// "startup_ms"; in this process, after its start-up).
struct StartupTimes {
  Clock::time_point begin, imported, planned, loaded;
};

/// The stages of `startup` up to `run`'s first result, and the compiler's
/// phases, as JSON fields.
std::string startupJson(const StartupTimes &startup, const RunResult &run,
                        const PlannedBundle &planned) {
  auto ms = [](Clock::time_point from, Clock::time_point to) {
    return jsonNumber(
        std::chrono::duration<double, std::milli>(to - from).count());
  };
  std::string phases;
  for (const PhaseTiming &phase : planned.phases)
    phases +=
        (phases.empty() ? "" : ", ") + jsonString(phase.phase) + ": " +
        jsonNumber(
            std::chrono::duration<double, std::milli>(phase.duration).count());
  return ", \"startup_ms\": {\"import\": " +
         ms(startup.begin, startup.imported) +
         ", \"bundle\": " + ms(startup.imported, startup.planned) +
         ", \"load\": " + ms(startup.planned, startup.loaded) +
         ", \"first_run\": " + ms(startup.loaded, run.firstDone) +
         ", \"total\": " + ms(startup.begin, run.firstDone) +
         "}, \"compile_phases\": {" + phases + "}";
}

/// --json "dims": a symbolic model's values for this run, and whether its
/// bundle serves every value ("symbolic_bundle").
std::string dimsJson(const ParsedModel &model, const PlannedBundle &planned) {
  if (!model.symbolicGraph)
    return ", \"dims\": null, \"symbolic_bundle\": false";
  std::string values;
  for (const auto &[name, value] : model.dimValues)
    values += (values.empty() ? "" : ", ") + jsonString(name) + ": " +
              std::to_string(value);
  return ", \"dims\": {" + values +
         "}, \"symbolic_bundle\": " + (planned.symbolic ? "true" : "false");
}

/// --json "arena": the planned bytes, and of a symbolic bundle the
/// formulas over the dims (ArenaFormula.h) they were planned from.
std::string arenaJson(const PlannedBundle &planned) {
  const MemoryPlan &plan = planned.bundle.memoryPlan;
  std::string out =
      ", \"arena\": {\"planned\": " + std::to_string(plan.peakBytes) +
      ", \"bound\": " + std::to_string(plan.boundBytes);
  if (const std::optional<ArenaFormula> &formula = planned.arenaFormula)
    out +=
        ", \"bound_formula\": " + jsonString(formula->boundBytes.toString()) +
        ", \"bound_formula_exact\": " +
        (formula->boundExact ? "true" : "false") +
        ", \"per_run_formula\": " + jsonString(formula->perRunString());
  return out + "}";
}

/// --json: the last line of stdout.
void printJsonSummary(const RunOptions &options, const ParsedModel &model,
                      const ModelSource &source, const PlannedBundle &planned,
                      const RunResult &run,
                      const std::vector<HostTensorData> &results,
                      const std::string &profileJson,
                      const CheckSummary &checked,
                      const StartupTimes &startup) {
  std::string boundJson;
  for (const std::string &name : source.boundAtImport)
    boundJson += (boundJson.empty() ? "" : ", ") + jsonString(name);
  std::string out =
      "{\"model\": " + jsonString(options.model) +
      ", \"runtime\": " + jsonString(options.runtime) +
      ", \"ops\": " + std::to_string(model.graph.ops.size()) +
      ", \"kernels\": " + std::to_string(planned.bundle.kernels.size()) +
      ", \"matmul_precision\": " +
      jsonString(matmulPrecisionName(options.matmulPrecision)) +
      ", \"bf16_kernels\": " +
      std::to_string(std::count_if(
          planned.bundle.kernels.begin(), planned.bundle.kernels.end(),
          [](const BundleKernel &kernel) {
            return kernel.target.find(device::kAvx512Bf16Suffix) !=
                   std::string::npos;
          })) +
      ", \"amx_kernels\": " +
      std::to_string(std::count_if(
          planned.bundle.kernels.begin(), planned.bundle.kernels.end(),
          [](const BundleKernel &kernel) {
            return kernel.target.ends_with(device::kAmxBf16Suffix);
          })) +
      ", \"launches\": " + std::to_string(planned.bundle.launchOrder.size()) +
      ", \"compiled\": " +
      (planned.compiled ? std::to_string(*planned.compiled) : "null") +
      ", \"cache_hits\": " +
      (planned.cacheHits ? std::to_string(*planned.cacheHits) : "null") +
      ", \"kernels_compiled\": " +
      (planned.kernelsCompiled ? std::to_string(*planned.kernelsCompiled)
                               : "null") +
      ", \"kernels_reused\": " +
      (planned.kernelsReused ? std::to_string(*planned.kernelsReused)
                             : "null") +
      ", \"bound_at_import\": [" + boundJson + "]" + dimsJson(model, planned) +
      arenaJson(planned) +
      ", \"compile_ms\": " + jsonNumber(planned.compileMs) +
      startupJson(startup, run, planned) +
      ", \"run_ms_median\": " + jsonNumber(run.medianMs) +
      ", \"run_ms_min\": " + jsonNumber(run.minMs) +
      ", \"max_abs_error\": " + jsonNumber(checked.maxAbs) +
      ", \"max_rel_error\": " + jsonNumber(checked.maxRel) +
      ", \"checks\": " + (options.check ? "{" + checked.json + "}" : "null") +
      ", \"guards\": " + checked.guardsJson + ", \"profile\": " +
      (options.profile ? "[" + profileJson + "]" : std::string("null")) +
      ", \"outputs\": {";
  for (std::size_t i = 0; i < results.size(); ++i)
    out += (i ? ", " : "") + jsonString(model.outputNames[i]) + ": " +
           shapeString(results[i].type.shape);
  out += "}}";
  llvm::outs() << out << "\n";
}

/// An ONNX model whose symbolic compile was refused, imported again with
/// its dims bound to this run's values: `model` becomes that import's
/// (keeping the symbolic graph and the values, which --json reports).
Status reimportBound(const RunOptions &options, ModelSource &source,
                     ParsedModel &model) {
  Expected<ModelSource> bound = importOnnx(options, model.dimValues);
  if (!bound.ok())
    return bound.status();
  Expected<ParsedModel> parsed = parseModel(options, *bound);
  if (!parsed.ok())
    return parsed.status();
  parsed->symbolicGraph = std::move(model.symbolicGraph);
  parsed->dimValues = std::move(model.dimValues);
  source = bound.take();
  model = parsed.take();
  return Status::success();
}

int runModel(const RunOptions &options) {
  if (Status valid = checkOptions(options); !valid.ok())
    return fail(valid.message());
  StartupTimes startup;
  startup.begin = Clock::now();
  Expected<ModelSource> source =
      llvm::sys::path::extension(options.model) == ".onnx" ? importOnnx(options)
                                                           : readMlir(options);
  if (!source.ok())
    return fail(source.message());
  Expected<ParsedModel> model = parseModel(options, *source);
  if (!model.ok())
    return fail(model.message());
  if (!options.emitMlir.empty())
    if (Status written = writeModelMlir(options, *model, *source);
        !written.ok())
      return fail(written.message());
  if (model->graph.isSymbolic())
    if (Status bound = bindModelDims(options, *model, *source); !bound.ok())
      return fail(bound.message());
  std::optional<PlannedBundle> symbolic;
  if (model->symbolicGraph && options.runtime == "host") {
    Expected<std::optional<PlannedBundle>> tried =
        symbolicHostBundle(options, *model, *source);
    if (!tried.ok())
      return fail(tried.message());
    symbolic = tried.take();
    // Refused: an ONNX model is imported again with its dims bound (the
    // import folds the shape arithmetic a bound symbolic graph would keep
    // as constants), and compiled as a model without dynamic dims is.
    if (!symbolic && source->isOnnx)
      if (Status reimported = reimportBound(options, *source, *model);
          !reimported.ok())
        return fail(reimported.message());
  }
  Expected<std::vector<std::shared_ptr<const HostTensorData>>> inputData =
      givenInputs(options, *model, *source);
  if (!inputData.ok())
    return fail(inputData.message());
  if (Status room = checkModelMemory(options, *model); !room.ok())
    return fail(room.message());
  Expected<std::vector<device::SharedInput>> sharedInputs =
      inputBytes(*model, inputData.take(), source->weights, options.seed,
                 options.bench || options.profile);
  if (!sharedInputs.ok())
    return fail(sharedInputs.message());
  std::vector<device::SharedInput> inputs = sharedInputs.take();

  startup.imported = Clock::now();
  Expected<PlannedBundle> planned =
      planBundle(options, *model, *source, std::move(symbolic));
  if (!planned.ok())
    return fail(planned.message());
  startup.planned = Clock::now();
  const Bundle &bundle = planned->bundle;
  if (Status printed = writePlan(options, *model, *planned); !printed.ok())
    return fail(printed.message());

  std::unique_ptr<device::DeviceRuntime> runtime = makeRuntime(options);
  device::DeviceResult<device::Executable> executable = runtime->load(bundle);
  if (!executable)
    return fail("cannot load the bundle on the " + options.runtime +
                " runtime: " + describeDeviceError(executable.error()));
  device::DeviceResult<device::Stream> stream = runtime->createStream();
  if (!stream)
    return fail("cannot create a stream: " +
                describeDeviceError(stream.error()));
  // Inputs go to the device once; each timed run is the kernels alone.
  device::DeviceResult<device::PreparedBundle> prepared =
      device::PreparedBundle::prepare(*runtime, bundle, *executable, *stream,
                                      inputs);
  if (!prepared)
    return fail("cannot upload the inputs to the " + options.runtime +
                " runtime: " + describeDeviceError(prepared.error()));
  startup.loaded = Clock::now();
  Expected<RunResult> run = runPrepared(options, *prepared);
  if (!run.ok())
    return fail(run.message());
  Expected<std::vector<HostTensorData>> results =
      outputTensors(*model, run->outputs);
  if (!results.ok())
    return fail(results.message());
  if (options.bench)
    llvm::outs() << "bench: " << options.bench << " runs, median "
                 << formatMs(run->medianMs) << ", min " << formatMs(run->minMs)
                 << "\n";

  std::string profileJson;
  if (options.profile) {
    Expected<std::string> profiled = profileKernels(options, bundle, *prepared);
    if (!profiled.ok())
      return fail(profiled.message());
    profileJson = profiled.take();
  }
  if (!options.outputDir.empty())
    if (Status written =
            writeOutputs(options.outputDir, model->outputNames, *results);
        !written.ok())
      return fail(written.message());
  CheckSummary checked;
  if (options.check) {
    Expected<CheckSummary> compared = checkAgainstReference(
        *model, inputs, *results,
        options.matmulPrecision == MatmulPrecision::Bf16 &&
            options.runtime == "host");
    if (!compared.ok())
      return fail(compared.message());
    checked = compared.take();
    if (Status guarded = checkGuarded(
            *model, bundle, *runtime, *executable, *stream, inputs, *results,
            options.matmulPrecision == MatmulPrecision::Bf16 &&
                options.runtime == "host",
            checked);
        !guarded.ok())
      return fail(guarded.message());
  }
  if (options.json)
    printJsonSummary(options, *model, *source, *planned, *run, *results,
                     profileJson, checked, startup);
  llvm::outs().flush();
  return checked.mismatch ? kExitMismatch : 0;
}

/// --generate N: the options that apply to it, checked, then the loop.
int generateTokensWith(const RunOptions &options, unsigned tokens) {
  if (tokens == 0)
    return fail("--generate needs at least 1 token");
  if (options.runtime != "host" && options.runtime != "reference")
    return fail("unknown --runtime=" + options.runtime +
                "; expected host or reference");
  struct {
    bool given;
    const char *name;
  } const unsupported[] = {
      {options.check, "--check"},
      {options.bench != 0, "--bench"},
      {options.profile != 0, "--profile"},
      {options.printPlan, "--print-plan"},
      {!options.dotFile.empty(), "--dot"},
      {!options.emitMlir.empty(), "--emit-mlir"},
      {!options.fusion, "--no-fusion"},
      {!options.dims.empty(), "--dim"},
      {options.threads != 0, "--threads"},
      {options.matmulPrecision != MatmulPrecision::F32, "--matmul-precision"}};
  for (const auto &option : unsupported)
    if (option.given)
      return fail(std::string(option.name) + " does not apply to --generate");
  GenerateOptions generateOptions;
  generateOptions.model = options.model;
  generateOptions.runtime = options.runtime;
  generateOptions.outputDir = options.outputDir;
  generateOptions.cacheDir = options.cacheDir;
  generateOptions.inputs = options.inputs;
  generateOptions.tokens = tokens;
  generateOptions.json = options.json;
  generateOptions.dimRanges = options.dimRanges;
  return generateTokens(generateOptions);
}

/// Whether every option on the command line is one of fuse-run's own
/// (read after the rename of --threads): the runtime-only executable parses
/// those itself and leaves any other (--help, --version, LLVM's options) to
/// the whole tool in the compiler library.
bool onlyOwnOptions(int argc, char **argv) {
  auto &registered = llvm::cl::getRegisteredOptions();
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--")
      return false;
    if (arg.size() < 2 || arg[0] != '-')
      continue;
    llvm::StringRef name = arg.drop_front(arg.starts_with("--") ? 2 : 1);
    bool hasValue = name.contains('=');
    name = name.take_until([](char c) { return c == '='; });
    auto it = registered.find(name);
    if (it == registered.end() ||
        !llvm::is_contained(it->second->Categories, &runCategory))
      return false;
    if (!hasValue &&
        it->second->getValueExpectedFlag() == llvm::cl::ValueRequired)
      ++i;
  }
  return true;
}

} // namespace

#ifdef FUSE_RUN_COMPILER_LIBRARY
extern "C" int fuseRunFullMain(int argc, char **argv) {
#else
int main(int argc, char **argv) {
#endif
#ifdef __GLIBC__
  // Blocks up to 32 MiB (a model's weights, copied from the mapped model
  // file a tensor at a time) come from the heap, not a fresh mmap each, and
  // the heap keeps up to 128 MiB freed, so that memory freed is reused
  // without touching new pages. When the importer still freed protobuf's
  // copy of each weight as it made its own, a warm start of an 8-layer BERT
  // (26 MB of weights) took 6,700 fewer page faults, 10 ms less CPU.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
  llvm::InitLLVM init(argc, argv);
  auto &registered = llvm::cl::getRegisteredOptions();
  if (auto it = registered.find("threads"); it != registered.end())
    it->second->setArgStr("llvm-threads");
  threads.setArgStr("threads");
  // Response files (@FILE) are expanded once, here, so that the options in
  // them are sorted like those on the command line: an LLVM option inside
  // one sends the whole command line to the compiler library.
  llvm::BumpPtrAllocator argAllocator;
  llvm::SmallVector<const char *, 32> args(argv, argv + argc);
  for (llvm::StringRef arg : llvm::ArrayRef(args).drop_front())
    if (arg.starts_with("@") && !llvm::sys::fs::exists(arg.drop_front())) {
      llvm::errs() << "fuse-run: error: cannot read the response file '"
                   << arg.drop_front() << "'\n";
      return kExitError;
    }
  llvm::cl::ExpansionContext expansion(argAllocator,
                                       llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error error = expansion.expandResponseFiles(args)) {
    llvm::errs() << "fuse-run: error: " << llvm::toString(std::move(error))
                 << "\n";
    return kExitError;
  }
  argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  argv = const_cast<char **>(args.data());
  if (!run::compilerLinkedIn() && !onlyOwnOptions(argc, argv))
    return run::runFullTool(argc, argv);
  // --help shows this tool's options; LLVM's own stay under --help-hidden.
  showOnlyInHelp({&runCategory});
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv, "Fuse: compile and run a model end to end\n",
          &llvm::errs()))
    return kExitError;
  // lld, linking in process, resets every llvm::cl option: read them now.
  RunOptions options;
  options.model = modelFile;
  options.runtime = runtimeName;
  options.inputs.assign(inputSpecs.begin(), inputSpecs.end());
  options.dims.assign(dimSpecs.begin(), dimSpecs.end());
  Expected<DimRanges> dimRanges = parseDimRanges(
      std::vector<std::string>(dimRangeSpecs.begin(), dimRangeSpecs.end()));
  if (!dimRanges.ok())
    return fail(dimRanges.message());
  options.dimRanges = dimRanges.take();
  options.seed = seed;
  options.outputDir = outputDir;
  options.check = check;
  options.bench = bench;
  options.profile = profile;
  options.threads = threads;
  options.printPlan = printPlan;
  options.dotFile = dotFile;
  options.emitMlir = emitMlir;
  options.fusion = !noFusion;
  options.noAmx = noAmx;
  if (matmulPrecision == "bf16")
    options.matmulPrecision = MatmulPrecision::Bf16;
  else if (matmulPrecision != "f32")
    return fail("unknown --matmul-precision=" + matmulPrecision +
                "; expected f32 or bf16");
  if (options.matmulPrecision != MatmulPrecision::F32 &&
      options.runtime != "host")
    return fail("--matmul-precision=" + matmulPrecision +
                " applies to --runtime host only");
  options.cacheDir = cacheDir;
  options.json = json;
  if (generate.getNumOccurrences())
    return generateTokensWith(options, generate);
  int status = runModel(options);
  run::finishPreload();
  return status;
}
