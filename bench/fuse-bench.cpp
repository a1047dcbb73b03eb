//===- fuse-bench.cpp - Fuse against this machine's memory bandwidth ------===//
//
//   fuse-bench [--quick] [--runs N] [--warmup N] [--only NAME,...]
//              [--triad-mib N] [--fuse-run PATH] [--no-start] [--check]
//              [--list] [--lazy] [--no-machine]
//
// Measures this machine's memory bandwidth (a STREAM-like triad), then for
// each workload of Workloads.h: compiles it with the HostCompiler, fused and
// with enableFusion=false (cold compile time per kernel); uploads the inputs
// once and times only the kernels on the HostRuntime (median of `--runs`
// runs after `--warmup`); reports GB/s (each graph input read once, each
// graph output written once) and the percentage of the triad figure (a
// memory-bound workload: of a triad measured just before it); and
// times a new fuse-run process that finds the bundle in a warm cache (the
// time to first result). A workload the host compiler cannot compile yet is
// a record with status "unsupported" and the compiler's reason.
//
// Output: one JSON object per line on stdout (records "machine",
// "workload", "done"); progress on stderr. `--quick` runs small sizes twice,
// for the smoke test, and checks each output against the reference runtime.
// `--list` prints the names of the workloads it would run, one per line, and
// measures nothing (bench.py runs them one at a time); the lazy API's
// overhead is measured without --only, or with `--lazy`; `--no-machine`
// leaves out the triads and the FMA peak before the workloads (bench.py's
// later runs of a pass, which report them once). Timings are reported, never
// asserted.
//
//===----------------------------------------------------------------------===//

#include "bench/BenchSupport.h"
#include "bench/FmaPeak.h"
#include "bench/KernelTimer.h"
#include "bench/LazyOverhead.h"
#include "bench/Triad.h"
#include "bench/Workloads.h"

#include "compiler/host/HostCompiler.h"
#include "runtime/cache/Bundle.h"
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"
#include "runtime/device/RunBundle.h"
#include "runtime/ir/Numerics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace fuse;
using namespace fuse::bench;
using device::TensorBytes;

namespace {

/// Passes of the triad measured just before each memory-bound workload (the
/// best is kept), fewer than the run's first triad: a moment's figure.
constexpr unsigned kNearTriadPasses = 4;
/// A memory-bound workload whose outputs are at most this fraction of its
/// bytes (1/16) is also measured against a read-only loop.
constexpr double kReadBoundRatio = 16;

struct Options {
  bool quick = false;
  unsigned runs = 10;
  unsigned warmup = 2;
  std::vector<std::string> only;
  std::uint64_t triadMiB = 256;
  std::string fuseRun;
  bool start = true;
  bool check = false;
  /// --list: the workloads' names only.
  bool list = false;
  /// --lazy: the lazy API's overhead even with --only.
  bool lazy = false;
  /// --no-machine: no triads and FMA peak before the workloads.
  bool machine = true;

  /// Whether workload `name` runs (--only).
  bool selected(const std::string &name) const {
    return only.empty() ||
           std::find(only.begin(), only.end(), name) != only.end();
  }
};

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

void progress(const std::string &message) {
  std::cerr << "fuse-bench: " << message << std::endl;
}

std::string cpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      std::size_t colon = line.find(':');
      if (colon != std::string::npos)
        return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown";
}

/// fuse-run beside this executable.
std::string defaultFuseRun() {
  std::error_code ec;
  std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    return "fuse-run";
  return (self.parent_path() / "fuse-run").string();
}

/// A fresh compiler per compilation, so each one is cold.
Expected<Compilation> compileCold(const Workload &workload,
                                  const Target &target, bool fusion,
                                  double &ms) {
  CompileOptions options;
  options.enableFusion = fusion;
  Clock::time_point start = Clock::now();
  HostCompiler compiler;
  Expected<Compilation> compilation = compiler.compileSource(
      workload.mlir, target, options, nullptr, workload.name + ".mlir");
  ms = msSince(start);
  return compilation;
}

/// The yardsticks of one memory-bound workload, their arrays allocated and
/// first touched once: the triad (and, for one that mostly reads, the
/// read-only loop) measured just before its runs (the best of
/// kNearTriadPasses passes after one warm-up), then paired with each run
/// (pairedJson).
struct Yardsticks {
  Yardsticks(std::uint64_t arrayBytes, unsigned cores, bool readBound)
      : triad(arrayBytes, cores) {
    if (readBound)
      read.emplace(arrayBytes, cores);
  }
  bool ok() const { return triad.ok() && (!read || read->ok()); }

  /// The best of kNearTriadPasses passes of `pass`, after one warm-up.
  template <typename Pass> static double near(Pass pass) {
    pass();
    double best = 0;
    for (unsigned i = 0; i < kNearTriadPasses; ++i)
      best = std::max(best, pass());
    return best;
  }

  TriadPasses triad;
  std::optional<ReadPasses> read;
};

/// A memory-bound workload against the triad of its own moment: each timed
/// run just after one triad pass of its own, the run's GB/s over that
/// pass's, the median of those ratios. The VM's bandwidth moves between
/// phases seconds apart (the triad read 45 and 80 GB/s within a minute), so
/// a figure measured once before the runs can fall in another phase than
/// they do; a pass and a run a few milliseconds apart share theirs. The
/// triad's three arrays (768 MiB by default) also leave the caches cold for
/// each run, as a workload of this size meets them in a model. One that
/// mostly reads is also paired with a pass of the read-only loop, after the
/// triad's.
Expected<std::string> pairedJson(device::DeviceRuntime &runtime,
                                 const Bundle &bundle,
                                 const std::vector<TensorBytes> &inputs,
                                 const Options &options, Yardsticks &yardsticks,
                                 double bytes) {
  std::vector<double> triads, reads;
  KernelTimerOptions timer;
  timer.beforeTimedRun = [&] {
    triads.push_back(yardsticks.triad.passGBps());
    if (yardsticks.read)
      reads.push_back(yardsticks.read->passGBps());
  };
  Expected<KernelTiming> timing =
      timeKernels(runtime, bundle, inputs, options.warmup, options.runs, timer);
  if (!timing.ok())
    return timing.status();
  std::vector<double> ratios, readRatios, gbps;
  for (std::size_t i = 0; i < timing->runMs.size() && i < triads.size(); ++i) {
    gbps.push_back(bytes / (timing->runMs[i] * 1e-3) / 1e9);
    ratios.push_back(gbps.back() / triads[i]);
    if (i < reads.size())
      readRatios.push_back(gbps.back() / reads[i]);
  }
  if (ratios.empty())
    return Status::error("no paired runs");
  JsonObject object;
  object.num("runs", double(ratios.size()))
      .num("gbps_median", median(gbps))
      .num("triad_median_gbps", median(triads))
      .num("pct_triad", 100.0 * median(ratios));
  if (!readRatios.empty())
    object.num("read_median_gbps", median(reads))
        .num("pct_read", 100.0 * median(readRatios));
  return object.toString();
}

/// One variant's figures: kernels, compile and run times, bandwidth.
std::string variantJson(const Bundle &bundle, double compileMs,
                        const KernelTiming &timing, unsigned runs, double bytes,
                        double flops, double triadGBps, double peakGflops) {
  double gbps = bytes / (timing.medianMs * 1e-3) / 1e9;
  JsonObject object;
  object.num("kernels", double(bundle.kernels.size()))
      .num("compile_ms", compileMs)
      .num("compile_ms_per_kernel",
           compileMs / double(std::max<std::size_t>(bundle.kernels.size(), 1)))
      .num("run_ms_median", timing.medianMs)
      .num("run_ms_min", timing.minMs)
      .num("runs", double(runs))
      .num("gbps", gbps);
  // Without the machine's figures (--no-machine), no percentages.
  if (triadGBps > 0)
    object.num("pct_triad", 100.0 * gbps / triadGBps);
  if (flops > 0) {
    double gflops = flops / (timing.medianMs * 1e-3) / 1e9;
    object.num("gflops", gflops);
    if (peakGflops > 0)
      object.num("pct_peak", 100.0 * gflops / peakGflops);
  }
  // Where the time goes, for bundles of a few kernels.
  if (bundle.kernels.size() > 1 && bundle.kernels.size() <= 16 &&
      timing.launchMedianMs.size() == bundle.launchOrder.size()) {
    std::string kernels = "[";
    for (std::size_t i = 0; i < bundle.launchOrder.size(); ++i)
      kernels += (i ? ", " : "") +
                 JsonObject()
                     .str("name", bundle.kernels[bundle.launchOrder[i]].name)
                     .num("ms", timing.launchMedianMs[i])
                     .boolean("per_binding",
                              bundle.kernels[bundle.launchOrder[i]].perBinding)
                     .toString();
    object.raw("kernel_ms", kernels + "]");
  }
  return object.toString();
}

/// Checks every output against the reference runtime under the numerics
/// policy; empty when they match, else what differs.
std::string checkAgainstReference(const Bundle &bundle,
                                  const std::vector<TensorBytes> &inputs,
                                  const std::vector<TensorBytes> &outputs) {
  device::ReferenceRuntime reference;
  Bundle referenceBundle = makeReferenceBundle(bundle.graph);
  auto expected = device::runBundle(reference, referenceBundle, inputs);
  if (!expected.ok())
    return "the reference run failed: " + describe(expected.error());
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const TensorType &type = bundle.graph.typeOf(bundle.outputs[o]);
    Comparison comparison = compare(
        (*expected)[o].data(), outputs[o].data(), type.elementType,
        type.numElements(),
        toleranceForOutput(
            bundle.graph, bundle.outputs[o],
            HostTensor{type, const_cast<std::byte *>((*expected)[o].data())}));
    if (!comparison.ok)
      return "output " + std::to_string(o) + ": " + comparison.message;
  }
  return "";
}

/// Wall time of `fuse-run FILE --cache-dir DIR --json`, and whether it
/// found the bundle in the cache.
std::optional<std::pair<double, bool>>
timeFuseRun(const std::string &fuseRun, const std::string &model,
            const std::string &cacheDir, const std::string &outputFile) {
  std::string command = "'" + fuseRun + "' '" + model + "' --cache-dir '" +
                        cacheDir + "' --json > '" + outputFile +
                        "' 2>/dev/null";
  Clock::time_point start = Clock::now();
  int status = std::system(command.c_str());
  double ms = msSince(start);
  if (status != 0)
    return std::nullopt;
  std::ifstream output(outputFile);
  std::stringstream text;
  text << output.rdbuf();
  bool hit = text.str().find("\"cache_hits\": 1") != std::string::npos;
  return std::make_pair(ms, hit);
}

int usage(const std::string &message) {
  std::cerr << "fuse-bench: error: " << message
            << "\nusage: fuse-bench [--quick] [--runs N] [--warmup N] "
               "[--only NAME,...] [--triad-mib N] [--fuse-run PATH] "
               "[--no-start] [--check] [--list] [--lazy] [--no-machine]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  bool runsGiven = false, warmupGiven = false, triadGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc)
        return std::nullopt;
      return std::string(argv[++i]);
    };
    auto number = [&](std::uint64_t &out) {
      std::optional<std::string> text = value();
      if (!text || text->empty() ||
          text->find_first_not_of("0123456789") != std::string::npos)
        return false;
      out = std::stoull(*text);
      return true;
    };
    std::uint64_t n = 0;
    if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--runs") {
      if (!number(n) || n == 0)
        return usage("--runs needs a positive number");
      options.runs = unsigned(n);
      runsGiven = true;
    } else if (arg == "--warmup") {
      if (!number(n))
        return usage("--warmup needs a number");
      options.warmup = unsigned(n);
      warmupGiven = true;
    } else if (arg == "--triad-mib") {
      if (!number(n) || n == 0)
        return usage("--triad-mib needs a positive number");
      options.triadMiB = n;
      triadGiven = true;
    } else if (arg == "--only") {
      std::optional<std::string> list = value();
      if (!list)
        return usage("--only needs a list of workload names");
      std::stringstream names(*list);
      for (std::string name; std::getline(names, name, ',');)
        options.only.push_back(name);
    } else if (arg == "--fuse-run") {
      std::optional<std::string> path = value();
      if (!path)
        return usage("--fuse-run needs a path");
      options.fuseRun = *path;
    } else if (arg == "--no-start") {
      options.start = false;
    } else if (arg == "--check") {
      options.check = true;
    } else if (arg == "--list") {
      options.list = true;
    } else if (arg == "--lazy") {
      options.lazy = true;
    } else if (arg == "--no-machine") {
      options.machine = false;
    } else {
      return usage("unknown argument '" + arg + "'");
    }
  }
  if (options.quick) {
    if (!runsGiven)
      options.runs = 2;
    if (!warmupGiven)
      options.warmup = 1;
    if (!triadGiven)
      options.triadMiB = 16;
    options.check = true;
  }
  if (options.fuseRun.empty())
    options.fuseRun = defaultFuseRun();

  std::vector<Workload> workloads = makeWorkloads(options.quick);
  std::vector<Workload> small = makeWorkloads(true);
  for (const std::string &name : options.only)
    if (std::none_of(workloads.begin(), workloads.end(),
                     [&](const Workload &w) { return w.name == name; }))
      return usage("--only: no workload named '" + name + "'");
  if (options.list) {
    for (const Workload &w : workloads)
      if (options.selected(w.name))
        std::cout << w.name << "\n";
    return 0;
  }

  std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
  if (!level || *level == device::HostIsaLevel::X86_64_V2) {
    std::cerr << "fuse-bench: error: this CPU supports neither x86-64-v3 nor "
                 "x86-64-v4, which host code needs\n";
    return 2;
  }
  Expected<Target> target = Target::parse(device::hostTargetName(*level));
  if (!target.ok()) {
    std::cerr << "fuse-bench: error: " << target.message() << "\n";
    return 2;
  }

  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned passes = options.quick ? 3 : 10;
  std::uint64_t triadBytes = options.triadMiB << 20;
  JsonObject machine;
  machine.str("record", "machine")
      .str("cpu", cpuModel())
      .num("cores", double(cores))
      .str("target", target->name);
  // Left at zero with --no-machine: no percentages then (variantJson).
  TriadResult triad;
  FmaPeakResult peak;
  if (options.machine) {
    progress("triad on 3 arrays of " + std::to_string(options.triadMiB) +
             " MiB, " + std::to_string(cores) + " threads...");
    triad = measureTriad(triadBytes, cores, passes, true);
    TriadResult plainTriad = measureTriad(triadBytes, cores, passes, false);
    TriadResult smallPagesTriad =
        measureTriad(triadBytes, cores, passes, true, TriadPages::Small);
    progress("f32 multiply-add peak, " + std::to_string(cores) + " threads...");
    peak = measureFmaPeak(cores, passes);
    machine.num("triad_gbps", triad.bestGBps)
        .num("triad_median_gbps", triad.medianGBps)
        .num("triad_plain_stores_gbps", plainTriad.bestGBps)
        .num("triad_small_pages_gbps", smallPagesTriad.bestGBps)
        .num("triad_array_mib", double(triad.arrayBytes >> 20))
        .num("triad_threads", double(triad.threads))
        .num("fma_peak_gflops", peak.bestGflops)
        .num("fma_peak_median_gflops", peak.medianGflops)
        .str("fma_isa", peak.isa);
  }
  std::cout << machine.boolean("quick", options.quick).toString() << std::endl;

  std::filesystem::path scratch = std::filesystem::temp_directory_path() /
                                  ("fuse-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);

  device::HostRuntime runtime;
  int failures = 0;
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    const Workload &workload = workloads[w];
    if (!options.selected(workload.name))
      continue;
    JsonObject record;
    record.str("record", "workload")
        .str("name", workload.name)
        .str("title", workload.title)
        .str("bound", boundName(workload.bound));
    std::string shapes = "[";
    for (std::size_t i = 0; i < workload.inputShapes.size(); ++i)
      shapes += (i ? ", " : "") + shapeJson(workload.inputShapes[i]);
    record.raw("input_shapes", shapes + "]");
    JsonObject params;
    for (const auto &[key, value] : workload.params)
      params.num(key, double(value));
    record.raw("params", params.toString());

    progress(workload.name + ": compiling (fused)...");
    double fusedCompileMs = 0;
    Expected<Compilation> fused =
        compileCold(workload, *target, true, fusedCompileMs);
    if (!fused.ok()) {
      progress(workload.name + ": not supported: " + fused.message());
      std::cout << record.str("status", "unsupported")
                       .str("reason", firstLine(fused.message()))
                       .toString()
                << std::endl;
      continue;
    }
    const Bundle &fusedBundle = fused->bundle;
    double bytes = 0;
    std::vector<TensorBytes> inputs;
    for (std::size_t i = 0; i < fusedBundle.inputs.size(); ++i) {
      const TensorType &type = fusedBundle.graph.typeOf(fusedBundle.inputs[i]);
      bytes += double(type.byteSize());
      inputs.push_back(randomF32(type.numElements(), 1 + i));
    }
    double outputBytes = 0;
    for (TensorId output : fusedBundle.outputs)
      outputBytes += double(fusedBundle.graph.typeOf(output).byteSize());
    bytes += outputBytes;
    record.num("bytes", bytes);
    if (workload.flops > 0)
      record.num("flops", workload.flops);

    // Memory-bound workloads: the triad again just before, so that their %
    // of it compares two moments close together (on a shared VM the triad
    // moved from 64 to 45 GB/s within one fuse-bench run).
    // One that mostly reads (a sum, column sums): also a read-only loop,
    // its own ceiling, as reads alone do not reach the triad's rate.
    std::optional<Yardsticks> yardsticks;
    if (workload.bound != Bound::Compute) {
      yardsticks.emplace(triadBytes, cores,
                         outputBytes * kReadBoundRatio <= bytes);
      if (!yardsticks->ok()) {
        yardsticks.reset();
        record.str("paired_error", "no memory for the triad");
      } else {
        record.num("triad_near_gbps", Yardsticks::near([&] {
                     return yardsticks->triad.passGBps();
                   }));
        if (yardsticks->read)
          record.num("read_near_gbps", Yardsticks::near([&] {
                       return yardsticks->read->passGBps();
                     }));
      }
    }
    progress(workload.name + ": timing " + std::to_string(options.runs) +
             " runs (fused, " + std::to_string(fusedBundle.kernels.size()) +
             " kernels)...");
    Expected<KernelTiming> fusedTiming =
        timeKernels(runtime, fusedBundle, inputs, options.warmup, options.runs);
    if (!fusedTiming.ok()) {
      ++failures;
      std::cout << record.str("status", "error")
                       .str("reason", firstLine(fusedTiming.message()))
                       .toString()
                << std::endl;
      continue;
    }
    record.raw("fused", variantJson(fusedBundle, fusedCompileMs, *fusedTiming,
                                    options.runs, bytes, workload.flops,
                                    triad.bestGBps, peak.bestGflops));
    if (yardsticks) {
      progress(workload.name + ": timing " + std::to_string(options.runs) +
               " runs, each after a triad pass...");
      Expected<std::string> paired =
          pairedJson(runtime, fusedBundle, inputs, options, *yardsticks, bytes);
      if (paired.ok())
        record.raw("paired", *paired);
      else
        record.str("paired_error", firstLine(paired.message()));
    }

    progress(workload.name + ": compiling and timing without fusion...");
    double unfusedCompileMs = 0;
    Expected<Compilation> unfused =
        compileCold(workload, *target, false, unfusedCompileMs);
    if (unfused.ok()) {
      Expected<KernelTiming> unfusedTiming = timeKernels(
          runtime, unfused->bundle, inputs, options.warmup, options.runs);
      if (unfusedTiming.ok())
        record.raw("unfused", variantJson(unfused->bundle, unfusedCompileMs,
                                          *unfusedTiming, options.runs, bytes,
                                          workload.flops, triad.bestGBps,
                                          peak.bestGflops));
      else
        record.str("unfused_error", firstLine(unfusedTiming.message()));
    } else {
      record.str("unfused_error", firstLine(unfused.message()));
    }

    if (options.check) {
      std::string mismatch =
          checkAgainstReference(fusedBundle, inputs, fusedTiming->outputs);
      record.str("check", mismatch.empty() ? "ok" : mismatch);
      if (!mismatch.empty())
        ++failures;
    }

    // A new process finding the bundle in a warm cache, on the small shape:
    // the first run fills the cache, the second is the one timed.
    if (options.start) {
      const Workload &start = small[w];
      std::filesystem::path model = scratch / (start.name + ".mlir");
      std::filesystem::path cache = scratch / ("cache-" + start.name);
      std::ofstream(model) << start.mlir;
      std::string out = (scratch / "fuse-run.json").string();
      auto cold =
          timeFuseRun(options.fuseRun, model.string(), cache.string(), out);
      auto warm =
          timeFuseRun(options.fuseRun, model.string(), cache.string(), out);
      record.str("start_title", start.title);
      if (cold && warm) {
        record.num("cold_start_ms", cold->first)
            .num("warm_start_ms", warm->first)
            .boolean("warm_start_cache_hit", warm->second);
      } else {
        record.str("start_error", "fuse-run failed (" + options.fuseRun + ")");
      }
    }
    std::cout << record.str("status", "ok").toString() << std::endl;
  }
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  if (options.only.empty() || options.lazy) {
    progress("lazy API: recording overhead...");
    HostCompiler compiler;
    Expected<LazyOverhead> lazy =
        measureLazyOverhead(compiler, options.quick ? 1000 : 100000);
    JsonObject record;
    record.str("record", "lazy");
    if (lazy.ok())
      record.num("ops", double(lazy->ops))
          .num("record_ns_per_op", lazy->recordNsPerOp)
          .num("gelu_first_result_ms", lazy->firstResultMs)
          .num("gelu_repeat_result_ms", lazy->repeatResultMs);
    else
      record.str("error", firstLine(lazy.message()));
    std::cout << record.toString() << std::endl;
  }

  // The same triad again: how far the machine's bandwidth moved during
  // the run (other processes on a shared machine).
  TriadResult endTriad = measureTriad(triadBytes, cores, passes, true);
  std::cout << JsonObject()
                   .str("record", "done")
                   .num("failures", double(failures))
                   .num("triad_end_gbps", endTriad.bestGBps)
                   .toString()
            << std::endl;
  return failures ? 1 : 0;
}
