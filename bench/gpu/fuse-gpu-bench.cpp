//===- fuse-gpu-bench.cpp - The benchmark bundles on the CUDA runtime -----===//
//
//   fuse-gpu-bench BUNDLE_DIR [--runs N] [--warmup N] [--copy-mib N]
//                  [--dry-run] [--check-only] [--time-models]
//                  [--no-reference]
//
// Runtime only (no LLVM/MLIR): runs what fuse-gpu-prepare wrote.
//   1. the device and a device-to-device copy (a batch of copies, host clock
//      from submit to fence): the bandwidth every percentage is against;
//   2. each BUNDLE_DIR/check/*.fusebundle (small sizes, lit tests' graphs,
//      exported models) on the CUDA runtime and on the reference runtime
//      with the same inputs (STEM.inK.bin where fuse-gpu-prepare wrote them,
//      else deterministic random ones), compared under the numerics policy;
//      a symbolic bundle (issue 22: a lit test's graph with symbolic dims,
//      compiled once) bound to two sets of values of its dims, each
//      checked;
//   3. each BUNDLE_DIR/time/*.fusebundle (the issue's sizes): inputs
//      uploaded once into several copies used in turn (so L2 does not hold
//      them), the kernels timed on the device with CUDA events (the runtime's
//      Kernel timing mode), median of `--runs`.
// `--dry-run` is for the fake driver, which runs no kernel: every step runs,
// but outputs are not compared and no figure means anything. `--check-only`
// runs step 2 alone (under compute-sanitizer: bench/gpu/sanitize.sh);
// `--time-models` times each exported model's check bundle on its own
// inputs too (its check record gets run_ms_median and its launches);
// `--no-reference` runs the check bundles without comparing them.
//
// Output: JSON lines on stdout (records "device", "copy", "check", "time",
// "done"); exit 1 when a check fails or a step errs.
//
//===----------------------------------------------------------------------===//

#include "bench/BenchSupport.h"
#include "bench/KernelTimer.h"

#include "runtime/cache/BundleFile.h"
#include "runtime/cache/SymbolicBundle.h"
#include "runtime/device/CudaRuntime.h"
#include "runtime/device/ReferenceRuntime.h"
#include "runtime/device/RunBundle.h"
#include "runtime/ir/ElementType.h"
#include "runtime/ir/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

using namespace fuse;
using namespace fuse::bench;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::string dir;
  unsigned runs = 50;
  unsigned warmup = 5;
  std::uint64_t copyMiB = 1024;
  bool dryRun = false;
  /// Only step 2 (the checks): for a run under compute-sanitizer.
  bool checkOnly = false;
  /// Time the exported models' check bundles too, on their own inputs.
  bool timeModels = false;
  /// Run the check bundles on the GPU only (under a sanitizer's tools that
  /// look for hazards, not for wrong values).
  bool noReference = false;
};

Expected<Bundle> readBundle(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    return Status::error("cannot read '" + path.string() + "'");
  Expected<BundleFileContents> contents = decodeBundleFile(bytes);
  if (!contents.ok())
    return Status::error(path.string() + ": " + contents.message());
  return std::move(contents->bundle);
}

std::vector<fs::path> bundlesIn(const fs::path &dir) {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".fusebundle")
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// Deterministic inputs by element type: f32 from randomF32; booleans (a
/// mask) mostly true; other integers small (0 to 3, valid indices of any
/// axis of 4 or more); f64 the f32 values widened; other types zero.
std::vector<device::TensorBytes> inputsFor(const Bundle &bundle) {
  std::vector<device::TensorBytes> inputs;
  for (std::size_t i = 0; i < bundle.inputs.size(); ++i) {
    const TensorType &type = bundle.graph.typeOf(bundle.inputs[i]);
    std::int64_t count = type.numElements();
    ElementType element = type.elementType;
    if (element == ElementType::F32) {
      inputs.push_back(randomF32(count, 1 + i));
      continue;
    }
    std::int64_t width = byteSize(element);
    device::TensorBytes bytes(std::size_t(count * width), std::byte{0});
    if (element == ElementType::F64) {
      device::TensorBytes f32 = randomF32(count, 1 + i);
      for (std::int64_t k = 0; k < count; ++k) {
        float value;
        std::memcpy(&value, f32.data() + 4 * k, 4);
        double widened = value;
        std::memcpy(bytes.data() + 8 * k, &widened, 8);
      }
    } else if (isInteger(element)) {
      for (std::int64_t k = 0; k < count; ++k) {
        std::uint64_t value = element == ElementType::I1
                                  ? std::uint64_t((k * 7 + i) % 5 != 0)
                                  : std::uint64_t((k * 7 + i) % 4);
        // Little-endian: the low bytes of the value, the element's width.
        std::memcpy(bytes.data() + width * k, &value, std::size_t(width));
      }
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

/// The inputs fuse-gpu-prepare wrote beside a check bundle (STEM.inK.bin,
/// one per input: an exported model's token ids, mask and weights); none
/// when there is no STEM.in0.bin (random inputs then).
Expected<std::vector<device::TensorBytes>>
givenInputs(const fs::path &bundlePath, const Bundle &bundle) {
  std::vector<device::TensorBytes> inputs;
  auto fileOf = [&](std::size_t k, const char *extension) {
    return bundlePath.parent_path() /
           (bundlePath.stem().string() + ".in" + std::to_string(k) + extension);
  };
  if (!fs::exists(fileOf(0, ".bin")) && !fs::exists(fileOf(0, ".bf16")))
    return inputs;
  for (std::size_t k = 0; k < bundle.inputs.size(); ++k) {
    // An f32 input that travelled as bf16 (its high halves) is widened.
    bool halved = fs::exists(fileOf(k, ".bf16"));
    fs::path file = fileOf(k, halved ? ".bf16" : ".bin");
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof())
      return Status::error("cannot read '" + file.string() + "'");
    if (halved && bytes.size() % 2 != 0)
      return Status::error("'" + file.string() + "' has an odd " +
                           std::to_string(bytes.size()) + " bytes of bf16");
    if (halved) {
      std::vector<char> wide(bytes.size() / 2 * 4);
      for (std::size_t i = 0; i < bytes.size() / 2; ++i) {
        std::uint16_t half;
        std::memcpy(&half, bytes.data() + 2 * i, 2);
        float value = float(bf16ToDouble(half));
        std::memcpy(wide.data() + 4 * i, &value, 4);
      }
      bytes = std::move(wide);
    }
    std::int64_t expected = bundle.graph.typeOf(bundle.inputs[k]).byteSize();
    if (std::int64_t(bytes.size()) != expected)
      return Status::error("'" + file.string() + "' has " +
                           std::to_string(bytes.size()) + " bytes, input " +
                           std::to_string(k) + " takes " +
                           std::to_string(expected));
    device::TensorBytes tensor(bytes.size());
    std::memcpy(tensor.data(), bytes.data(), bytes.size());
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

/// Bytes of a batch of `count` copies of `bytes` each (read and written),
/// over the host time from submit to fence.
Expected<double> copyGBps(device::DeviceRuntime &runtime, std::uint64_t bytes,
                          unsigned count, unsigned runs) {
  auto fail = [](const std::string &what, const device::Error &error) {
    return Status::error(what + ": " + describe(error));
  };
  auto permit = runtime.reserve(2 * bytes);
  if (!permit.ok())
    return fail("reserve", permit.error());
  auto source = runtime.allocate(*permit, bytes);
  auto destination = runtime.allocate(*permit, bytes);
  if (!source.ok() || !destination.ok())
    return Status::error("cannot allocate the copy's buffers");
  auto stream = runtime.createStream();
  if (!stream.ok())
    return fail("stream", stream.error());
  auto zero = runtime.encodeZero(*source, 0, bytes);
  if (!zero.ok())
    return fail("zero", zero.error());
  device::CommandBatch first;
  first.add(std::move(*zero));
  auto submitted = runtime.submit(*stream, std::move(first));
  if (!submitted)
    return fail("submit", submitted.error());
  if (auto waited =
          runtime.waitFence(submitted.fence(), std::chrono::minutes(1));
      !waited.ok())
    return fail("wait", waited.error());
  runtime.setTimingMode(device::TimingMode::Completion);
  std::vector<double> seconds;
  for (unsigned r = 0; r <= runs; ++r) {
    device::CommandBatch batch;
    for (unsigned c = 0; c < count; ++c) {
      auto copy = runtime.encodeCopy(*source, *destination,
                                     device::CopyRegion{0, 0, bytes});
      if (!copy.ok())
        return fail("copy", copy.error());
      batch.add(std::move(*copy));
    }
    auto fence = runtime.submit(*stream, std::move(batch));
    if (!fence)
      return fail("submit", fence.error());
    if (auto waited = runtime.waitFence(fence.fence(), std::chrono::minutes(1));
        !waited.ok())
      return fail("wait", waited.error());
    auto timing = runtime.submissionTiming(fence.fence());
    if (!timing.ok())
      return fail("timing", timing.error());
    if (r > 0)
      seconds.push_back(
          std::chrono::duration<double>(timing->submitToComplete).count());
  }
  runtime.setTimingMode(device::TimingMode::Off);
  std::sort(seconds.begin(), seconds.end());
  return 2.0 * double(bytes) * count / seconds[seconds.size() / 2] / 1e9;
}

/// Prints `record` with status "error" and the first line of `message`.
void printError(JsonObject &record, const std::string &message) {
  std::cout << record.str("status", "error")
                   .str("reason", firstLine(message))
                   .toString()
            << std::endl;
}

/// Each launch's median, with its kernel's name where the launches are
/// the kernels, as a JSON array.
std::string launchesJson(const Bundle &bundle, const KernelTiming &timing) {
  std::string launches = "[";
  for (std::size_t k = 0; k < timing.launchMedianMs.size(); ++k) {
    std::string name = timing.launchMedianMs.size() == bundle.kernels.size()
                           ? bundle.kernels[k].name
                           : "launch " + std::to_string(k);
    JsonObject launch;
    launch.str("kernel", name).num("ms", timing.launchMedianMs[k]);
    launches += (k ? ", " : "") + launch.toString();
  }
  return launches + "]";
}

/// An exported model's bundle, on its own inputs, timed on the device
/// (`--time-models`): its medians and launches join its check record.
void timeModel(device::CudaRuntime &cuda, const Bundle &bundle,
               const std::vector<device::TensorBytes> &inputs,
               const Options &options, JsonObject &record) {
  KernelTimerOptions timerOptions;
  timerOptions.deviceTime = true;
  Expected<KernelTiming> timing = timeKernels(
      cuda, bundle, inputs, options.warmup, options.runs, timerOptions);
  if (!timing.ok()) {
    record.str("time_error", firstLine(timing.message()));
    return;
  }
  record.num("kernels", double(bundle.kernels.size()))
      .num("run_ms_median", timing->medianMs)
      .num("run_ms_min", timing->minMs)
      .raw("launches", launchesJson(bundle, *timing));
}

/// `bundle` on the GPU and on the reference runtime with `inputs`: "ok",
/// "ran (...)" where nothing is compared, or what failed; the largest
/// error of each output compared goes into `record`.
std::string checkBundle(device::CudaRuntime &cuda,
                        device::ReferenceRuntime &reference,
                        const Bundle &bundle,
                        const std::vector<device::TensorBytes> &inputs,
                        const Options &options, JsonObject &record) {
  auto actual = device::runBundle(cuda, bundle, inputs);
  // Without the reference (`--no-reference`), a run stands for itself.
  auto expected =
      options.noReference
          ? decltype(actual)(std::vector<device::TensorBytes>{})
          : device::runBundle(reference, makeReferenceBundle(bundle.graph),
                              inputs);
  if (!actual.ok())
    return "error: " + describe(actual.error());
  if (!expected.ok())
    return "error: the reference: " + describe(expected.error());
  if (options.dryRun)
    return "ran (dry run: the fake driver computes nothing to compare)";
  if (options.noReference)
    return "ran (not compared: --no-reference)";
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    const TensorType &type = bundle.graph.typeOf(bundle.outputs[o]);
    Comparison comparison = compare(
        (*expected)[o].data(), (*actual)[o].data(), type.elementType,
        type.numElements(),
        toleranceForOutput(
            bundle.graph, bundle.outputs[o],
            HostTensor{type, const_cast<std::byte *>((*expected)[o].data())}));
    record.num("max_abs_error", comparison.maxAbsError);
    if (!comparison.ok)
      return "mismatch: " + comparison.message;
  }
  return "ok";
}

/// The values a symbolic check bundle is bound to, one check each (issue
/// 22: one bundle, compiled once, run at two lengths): every dim 3, then
/// every dim 29 (odd, so that a pointwise kernel's tail runs; past a warp).
std::vector<DimBindings> checkBindings(const Bundle &bundle) {
  std::vector<DimBindings> bindings;
  for (std::int64_t value : {3, 29}) {
    DimBindings values;
    for (const std::string &symbol : bundle.graph.dims.symbols)
      values[symbol] = value;
    bindings.push_back(std::move(values));
  }
  return bindings;
}

/// Runs each bundle of DIR/check on the GPU and on the reference runtime
/// and prints how their outputs compare (a symbolic bundle once per
/// binding of checkBindings, record "STEM@DIMS"); answers how many failed.
int checkBundles(device::CudaRuntime &cuda, const Options &options) {
  int failures = 0;
  device::ReferenceRuntime reference;
  for (const fs::path &path : bundlesIn(fs::path(options.dir) / "check")) {
    JsonObject record;
    record.str("record", "check").str("name", path.stem().string());
    Expected<Bundle> bundle = readBundle(path);
    if (!bundle.ok()) {
      ++failures;
      printError(record, bundle.message());
      continue;
    }
    if (bundle->isSymbolic()) {
      for (const DimBindings &values : checkBindings(*bundle)) {
        JsonObject bound;
        bound.str("record", "check")
            .str("name", path.stem().string() + "@" + dimBindingsText(values))
            .boolean("symbolic_bundle", true);
        Expected<Bundle> binding = bindBundle(*bundle, values);
        std::string status =
            binding.ok() ? checkBundle(cuda, reference, *binding,
                                       inputsFor(*binding), options, bound)
                         : "error: " + binding.message();
        if (status.rfind("ok", 0) != 0 && status.rfind("ran", 0) != 0)
          ++failures;
        std::cout << bound.str("status", status).toString() << std::endl;
      }
      continue;
    }
    Expected<std::vector<device::TensorBytes>> given =
        givenInputs(path, *bundle);
    if (!given.ok()) {
      ++failures;
      printError(record, given.message());
      continue;
    }
    bool model = !given->empty();
    std::vector<device::TensorBytes> inputs =
        model ? given.take() : inputsFor(*bundle);
    std::string status =
        checkBundle(cuda, reference, *bundle, inputs, options, record);
    if (status.rfind("ok", 0) != 0 && status.rfind("ran", 0) != 0)
      ++failures;
    else if (model && options.timeModels)
      timeModel(cuda, *bundle, inputs, options, record);
    std::cout << record.str("status", status).toString() << std::endl;
  }
  return failures;
}

/// Times each bundle of DIR/time and prints its rate against `copy` (the
/// device's copy bandwidth, GB/s); answers how many failed.
int timeBundles(device::CudaRuntime &cuda, const Options &options,
                double copy) {
  int failures = 0;
  for (const fs::path &path : bundlesIn(fs::path(options.dir) / "time")) {
    JsonObject record;
    record.str("record", "time").str("name", path.stem().string());
    Expected<Bundle> bundle = readBundle(path);
    if (!bundle.ok()) {
      ++failures;
      printError(record, bundle.message());
      continue;
    }
    double bytes = 0, inputBytes = 0;
    for (TensorId input : bundle->inputs)
      inputBytes += double(bundle->graph.typeOf(input).byteSize());
    bytes = inputBytes;
    for (TensorId output : bundle->outputs)
      bytes += double(bundle->graph.typeOf(output).byteSize());
    KernelTimerOptions timerOptions;
    timerOptions.deviceTime = true;
    // At least 512 MiB of inputs in turn: far more than any L2.
    timerOptions.inputSets = unsigned(std::clamp(
        std::ceil(double(512 << 20) / std::max(inputBytes, 1.0)), 1.0, 16.0));
    Expected<KernelTiming> timing =
        timeKernels(cuda, *bundle, inputsFor(*bundle), options.warmup,
                    options.runs, timerOptions);
    record.num("kernels", double(bundle->kernels.size()))
        .num("bytes", bytes)
        .num("input_sets", double(timerOptions.inputSets));
    if (!timing.ok()) {
      ++failures;
      printError(record, timing.message());
      continue;
    }
    double gbps =
        timing->medianMs > 0 ? bytes / (timing->medianMs * 1e-3) / 1e9 : 0.0;
    record.num("run_ms_median", timing->medianMs)
        .num("run_ms_min", timing->minMs)
        .num("runs", double(options.runs))
        .num("gbps", gbps)
        .num("pct_copy", copy > 0 ? 100.0 * gbps / copy : 0.0);
    // Where the time goes: each launch's median, with its kernel's name.
    record.raw("launches", launchesJson(*bundle, *timing));
    std::cout << record.str("status", "ok").toString() << std::endl;
  }
  return failures;
}

int usage() {
  std::cerr << "usage: fuse-gpu-bench BUNDLE_DIR [--runs N] [--warmup N] "
               "[--copy-mib N] [--dry-run] [--check-only] [--time-models] "
               "[--no-reference]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto number = [&](auto &out) {
      if (i + 1 >= argc)
        return false;
      std::string text = argv[++i];
      if (text.empty() ||
          text.find_first_not_of("0123456789") != std::string::npos)
        return false;
      out = decltype(out + 0)(std::stoull(text));
      return true;
    };
    if (arg == "--runs") {
      if (!number(options.runs) || options.runs == 0)
        return usage();
    } else if (arg == "--warmup") {
      if (!number(options.warmup))
        return usage();
    } else if (arg == "--copy-mib") {
      if (!number(options.copyMiB) || options.copyMiB == 0)
        return usage();
    } else if (arg == "--dry-run") {
      options.dryRun = true;
    } else if (arg == "--check-only") {
      options.checkOnly = true;
    } else if (arg == "--time-models") {
      options.timeModels = true;
    } else if (arg == "--no-reference") {
      options.noReference = true;
    } else if (options.dir.empty() && !arg.empty() && arg[0] != '-') {
      options.dir = arg;
    } else {
      return usage();
    }
  }
  if (options.dir.empty())
    return usage();

  auto created = device::CudaRuntime::create();
  if (!created.ok()) {
    std::cout << JsonObject()
                     .str("record", "error")
                     .str("reason", describe(created.error()))
                     .toString()
              << std::endl;
    return 2;
  }
  device::CudaRuntime &cuda = **created;
  const device::DeviceDescriptor &descriptor = cuda.descriptor();
  std::cout << JsonObject()
                   .str("record", "device")
                   .str("name", descriptor.name)
                   .str("target", descriptor.target)
                   .num("multiprocessors", double(descriptor.computeUnits))
                   .num("memory_budget_gib",
                        double(descriptor.memoryBudgetBytes) / double(1 << 30))
                   .str("driver", cuda.driverPath())
                   .boolean("dry_run", options.dryRun)
                   .toString()
            << std::endl;

  int failures = 0;
  double copy = 0;
  if (!options.checkOnly) {
    Expected<double> gbps = copyGBps(cuda, options.copyMiB << 20, 10, 5);
    JsonObject record;
    record.str("record", "copy")
        .num("bytes", double(options.copyMiB << 20) * 2 * 10);
    if (gbps.ok()) {
      copy = *gbps;
      record.num("gbps", copy);
    } else {
      ++failures;
      record.str("error", firstLine(gbps.message()));
    }
    std::cout << record.toString() << std::endl;
  }

  failures += checkBundles(cuda, options);
  if (!options.checkOnly)
    failures += timeBundles(cuda, options, copy);
  std::cout << JsonObject()
                   .str("record", "done")
                   .num("failures", double(failures))
                   .toString()
            << std::endl;
  return failures ? 1 : 0;
}
