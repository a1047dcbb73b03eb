//===- OnnxConformanceTest.cpp - ONNX backend node tests ------------------===//
//
// Runs every ONNX backend node test (Debian's libonnx-testdata, or the
// directory in $FUSE_ONNX_NODE_TESTS; then the extra tests of node-extra/,
// written by make_extra_tests.py; then, when make_onnx_node_tests.py wrote
// them, the newer tests of the `onnx` Python package) whose ops are all in the
// core set (core-ops.txt) through the importer, in this one process, on the
// reference runtime (and, when built with the host compiler, on the host
// runtime), and compares every output with the expected one (rtol 1e-3,
// atol 1e-7, as ONNX's runner does; NaN matches NaN; integers and booleans
// exactly). f8/f4 outputs compare by their decoded values under the same
// rule, which neighbouring f8 values are too far apart to meet: exact up to
// the sign of zero. The TensorProto reader unpacks ONNX's packed INT4,
// UINT4, FLOAT4E2M1 (two a byte), INT2 and UINT2 (four) to Fuse's byte per
// element. Prints passed / failed / excluded / out of scope per operator
// and a summary line in which exclusions count as failures.
//
// Static shapes: a test that gives a shape, axes or indices as an input is
// imported with its integer inputs bound as constants (from
// test_data_set_0).
//
// A test in scope that fails (a wrong answer, or on the host a graph that
// does not compile) fails this test, unless exclusions.txt lists it with its
// reason. So does an exclusion that now passes (remove it), one whose reason
// says `refused with "TEXT"` and fails without that text in its error, and a
// pass rate below 95% with exclusions counted as failures.
//
// One narrow reinterpretation: Debian's libonnx-testdata stores the bfloat16
// tensors of its Cast/CastLike tests as UINT16 TensorProtos holding the bf16
// bits, while the model declares BFLOAT16. Where the model's input or output
// is bf16 and the .pb holds a UINT16 tensor of the same shape, its 16-bit
// payload is read as bf16 (see asDeclared); nothing else is converted.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"
#include "runtime/cache/Bundle.h"
#include "runtime/device/RunBundle.h"
#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Interpreter.h"

#ifdef FUSE_ONNX_CONFORMANCE_HOST
#include "compiler/host/HostCompiler.h"
#include "runtime/device/HostIsa.h"
#include "runtime/device/HostRuntime.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace fuse;
namespace fs = std::filesystem;

namespace {

std::string sourceDir() {
  const char *dir = std::getenv("FUSE_SOURCE_DIR");
  return dir ? dir : FUSE_ONNX_TEST_SOURCE_DIR;
}

fs::path nodeTestDir() {
  if (const char *dir = std::getenv("FUSE_ONNX_NODE_TESTS"))
    return dir;
  return "/usr/share/libonnx-testdata/data/node";
}

std::set<std::string> readCoreOps() {
  std::ifstream file(sourceDir() + "/test/compiler/onnx/core-ops.txt");
  std::set<std::string> ops;
  std::string line;
  while (std::getline(file, line))
    if (!line.empty() && line[0] != '#')
      ops.insert(line);
  return ops;
}

/// test name (or SET:test name, for one set only) -> reason.
std::map<std::string, std::string> readExclusions() {
  std::ifstream file(sourceDir() + "/test/compiler/onnx/exclusions.txt");
  std::map<std::string, std::string> out;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::size_t space = line.find_first_of(" \t");
    std::string name = line.substr(0, space);
    std::string reason =
        space == std::string::npos ? "" : line.substr(space + 1);
    reason.erase(0, reason.find_first_not_of(" \t"));
    out[name] = reason;
  }
  return out;
}

/// The error an exclusion expects, where its reason says `refused with
/// "TEXT"`: an op or attribute Fuse refuses must keep failing with that
/// clear error, not with another.
std::optional<std::string> expectedRefusal(const std::string &reason) {
  const std::string marker = "refused with \"";
  std::size_t begin = reason.find(marker);
  if (begin == std::string::npos)
    return std::nullopt;
  begin += marker.size();
  return reason.substr(begin, reason.find('"', begin) - begin);
}

/// One unit in the last place of `value` in a 16-bit float type (10 or 7
/// fraction bits), 0 for other types.
double ulp16(ElementType type, double value) {
  int fractionBits = type == ElementType::F16    ? 10
                     : type == ElementType::BF16 ? 7
                                                 : -1;
  if (fractionBits < 0 || value == 0 || !std::isfinite(value))
    return 0;
  int exponent = std::ilogb(value);
  if (type == ElementType::F16)
    exponent = std::max(exponent, -14); // subnormals
  return std::ldexp(1.0, exponent - fractionBits);
}

/// Compares like ONNX's runner: |actual - expected| <= atol + rtol *
/// |expected|; NaN matches NaN, infinities match themselves; integers and
/// booleans exactly. f16 and bf16 values within 2 units in the last place
/// pass too: a fused kernel (or a function computed in f32) rounds once
/// where ONNX's expanded form rounds after every op, and with cancellation
/// that is more than rtol. Empty string on success.
std::string compareOutputs(const HostTensorData &expected,
                           const HostTensorData &actual) {
  if (expected.type != actual.type)
    return "expected " + expected.type.toString() + ", got " +
           actual.type.toString();
  std::int64_t n = expected.type.numElements();
  if (isFloat(expected.type.elementType)) {
    std::vector<double> e = expected.toDoubles(), a = actual.toDoubles();
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(e[i]) && std::isnan(a[i]))
        continue;
      if (std::isinf(e[i]) && a[i] == e[i])
        continue;
      double error = std::fabs(a[i] - e[i]);
      if (!(error <= 1e-7 + 1e-3 * std::fabs(e[i])) &&
          !(error <= 2 * ulp16(expected.type.elementType, e[i])))
        return "element " + std::to_string(i) + ": expected " +
               std::to_string(e[i]) + ", got " + std::to_string(a[i]);
    }
    return "";
  }
  const ElementType type = expected.type.elementType;
  // Bits compared; values shown as the type reads them.
  auto text = [&](const HostTensorData &data, std::int64_t i) {
    return isUnsignedInteger(type)
               ? std::to_string(loadUnsigned(type, data.bytes.data(), i))
               : std::to_string(loadInt(type, data.bytes.data(), i));
  };
  for (std::int64_t i = 0; i < n; ++i)
    if (loadUnsigned(type, expected.bytes.data(), i) !=
        loadUnsigned(type, actual.bytes.data(), i))
      return "element " + std::to_string(i) + ": expected " +
             text(expected, i) + ", got " + text(actual, i);
  return "";
}

/// A test's tensor as the model declares it: a UINT16 tensor where the model
/// has a bf16 of the same shape is the bf16 bits (Debian stores its bf16
/// cast data so); any other tensor is returned unchanged.
HostTensorData asDeclared(HostTensorData value, const TensorType &declared) {
  if (declared.elementType == ElementType::BF16 &&
      value.type.elementType == ElementType::UI16 &&
      value.type.shape == declared.shape)
    value.type.elementType = ElementType::BF16;
  return value;
}

struct Outcome {
  bool passed = false;
  std::string message;
};

struct Runner {
  std::string name;
  /// Runs the imported graph on the given inputs (graph input order).
  std::function<Expected<std::vector<HostTensorData>>(
      const Graph &, const std::vector<HostTensorData> &)>
      run;
};

Expected<std::vector<HostTensorData>>
runReference(const Graph &graph, const std::vector<HostTensorData> &inputs) {
  std::vector<HostTensor> views;
  for (const HostTensorData &input : inputs)
    views.push_back(
        {input.type, const_cast<std::uint8_t *>(input.bytes.data())});
  return evaluateGraph(graph, views);
}

#ifdef FUSE_ONNX_CONFORMANCE_HOST
Expected<std::vector<HostTensorData>>
runHost(const Graph &original, const std::vector<HostTensorData> &inputs) {
  static HostCompiler compiler;
  std::optional<device::HostIsaLevel> level = device::bestHostIsaLevel();
  if (!level || *level == device::HostIsaLevel::X86_64_V2)
    return Status::error("this CPU has no host target");
  Expected<Target> target = Target::parse(device::hostTargetName(*level));
  if (!target.ok())
    return target.status();
  Graph graph = canonicalize(original);
  Expected<Compilation> compiled = compiler.compile(graph, *target, {});
  if (!compiled.ok())
    return Status::error("compile: " + compiled.message());
  device::HostRuntime runtime;
  std::vector<device::TensorBytes> bytes;
  for (const HostTensorData &input : inputs) {
    device::TensorBytes b(input.bytes.size());
    if (!b.empty())
      std::memcpy(b.data(), input.bytes.data(), b.size());
    bytes.push_back(std::move(b));
  }
  auto result = device::runBundle(runtime, compiled->bundle, bytes);
  if (!result)
    return Status::error("run: " + result.error().message);
  std::vector<HostTensorData> out;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i) {
    HostTensorData data(graph.typeOf(graph.outputs[i].tensor));
    if ((*result)[i].size() != data.bytes.size())
      return Status::error("output " + std::to_string(i) + " has " +
                           std::to_string((*result)[i].size()) + " bytes");
    if (!data.bytes.empty())
      std::memcpy(data.bytes.data(), (*result)[i].data(), data.bytes.size());
    out.push_back(std::move(data));
  }
  return out;
}
#endif

/// The inputs of test_data_set_0 by model input position.
std::vector<HostTensorData> readInputs(const fs::path &set) {
  std::vector<HostTensorData> inputs;
  for (int k = 0;; ++k) {
    fs::path file = set / ("input_" + std::to_string(k) + ".pb");
    if (!fs::exists(file))
      break;
    Expected<onnximport::NamedTensor> tensor =
        onnximport::readTensorProtoFile(file.string());
    if (!tensor.ok())
      break;
    inputs.push_back(std::move(tensor->value));
  }
  return inputs;
}

Outcome runNodeTest(const fs::path &dir, const Runner &runner) {
  std::string modelPath = (dir / "model.onnx").string();
  std::vector<onnximport::ConstantInputNeed> needs;
  Expected<onnximport::ImportedModel> model =
      onnximport::importModelFile(modelPath, {}, &needs);
  // A static-shape importer needs shapes, axes and indices at import time:
  // the inputs a failed import says it needs as constants (as data) are
  // bound from the test's first data set, until it needs none (as fuse-run
  // does with --input files).
  if (!model.ok() && !needs.empty()) {
    onnximport::ImportOptions options;
    std::vector<HostTensorData> values = readInputs(dir / "test_data_set_0");
    Expected<std::vector<std::string>> names =
        onnximport::modelInputNames(modelPath);
    while (!model.ok() && !needs.empty() && names.ok()) {
      bool bound = false;
      for (const onnximport::ConstantInputNeed &need : needs) {
        auto it = std::find(names->begin(), names->end(), need.input);
        std::size_t k = it - names->begin();
        if (it == names->end() || k >= values.size() ||
            options.constantInputs.count(need.input))
          continue;
        options.constantInputs.emplace(need.input, values[k]);
        bound = true;
      }
      if (!bound)
        break;
      needs.clear();
      model = onnximport::importModelFile(modelPath, options, &needs);
    }
  }
  if (!model.ok())
    return {false, "import: " + model.message()};
  std::vector<fs::path> sets;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.is_directory() &&
        entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(entry.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty())
    return {false, "no test_data_set_*"};
  for (const fs::path &set : sets) {
    std::vector<HostTensorData> inputs;
    for (std::size_t i = 0; i < model->graph.inputs.size(); ++i) {
      if (model->weights[i]) {
        inputs.push_back(*model->weights[i]);
        continue;
      }
      inputs.push_back(
          HostTensorData(model->graph.typeOf(model->graph.inputs[i])));
    }
    for (std::size_t k = 0; k < model->modelInputs.size(); ++k) {
      fs::path file = set / ("input_" + std::to_string(k) + ".pb");
      Expected<onnximport::NamedTensor> tensor =
          onnximport::readTensorProtoFile(file.string());
      if (!tensor.ok())
        return {false, tensor.message()};
      std::size_t index = model->modelInputs[k];
      if (index == onnximport::kBoundAtImport)
        continue;
      tensor->value = asDeclared(std::move(tensor->value), inputs[index].type);
      if (tensor->value.type != inputs[index].type)
        return {false, file.filename().string() + " holds a " +
                           tensor->value.type.toString() + ", expected " +
                           inputs[index].type.toString()};
      inputs[index] = std::move(tensor->value);
    }
    Expected<std::vector<HostTensorData>> outputs =
        runner.run(model->graph, inputs);
    if (!outputs.ok())
      return {false, outputs.message()};
    for (std::size_t k = 0; k < outputs->size(); ++k) {
      fs::path file = set / ("output_" + std::to_string(k) + ".pb");
      Expected<onnximport::NamedTensor> expected =
          onnximport::readTensorProtoFile(file.string());
      if (!expected.ok())
        return {false, expected.message()};
      std::string mismatch = compareOutputs(
          asDeclared(std::move(expected->value), (*outputs)[k].type),
          (*outputs)[k]);
      if (!mismatch.empty())
        return {false, set.filename().string() + " output " +
                           std::to_string(k) + ": " + mismatch};
    }
  }
  return {true, ""};
}

struct Counts {
  int passed = 0, failed = 0, excluded = 0, outOfScope = 0;
  /// Of the failed: the compiler has no kernel for the graph yet (host).
  int notCompiled = 0;
};

/// The node tests of the `onnx` Python package, written by
/// make_onnx_node_tests.py (the build target fuse-onnx-node-tests).
fs::path packageTestDir() {
  if (const char *dir = std::getenv("FUSE_ONNX_PACKAGE_NODE_TESTS"))
    return dir;
  return FUSE_ONNX_PACKAGE_NODE_TESTS_DIR;
}

fs::path extraTestDir() {
  return fs::path(sourceDir()) / "test" / "compiler" / "onnx" / "node-extra";
}

/// `set` names the test set in exclusions.txt ("debian", "extra",
/// "package").
void runSuite(const Runner &runner, const std::string &set,
              const fs::path &root) {
  // Missing test data fails: a conformance figure that CI never checks is
  // not one (scripts/install-deps.sh installs libonnx-testdata, the build
  // writes the package's tests).
  if (!fs::is_directory(root))
    GTEST_FAIL() << "no ONNX node tests at " << root
                 << " (install libonnx-testdata, or build the target "
                    "fuse-onnx-node-tests, which runs "
                    "test/compiler/onnx/make_onnx_node_tests.py, or set "
                    "FUSE_ONNX_NODE_TESTS / FUSE_ONNX_PACKAGE_NODE_TESTS)";
  std::set<std::string> core = readCoreOps();
  ASSERT_FALSE(core.empty()) << "core-ops.txt is missing";
  std::map<std::string, std::string> exclusions = readExclusions();

  std::vector<fs::path> dirs;
  for (const auto &entry : fs::directory_iterator(root))
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
      dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());

  std::map<std::string, Counts> perOp;
  Counts total;
  std::vector<std::string> failures, stale;
  for (const fs::path &dir : dirs) {
    std::string name = dir.filename().string();
    Expected<std::vector<std::string>> ops =
        onnximport::modelOpTypes((dir / "model.onnx").string());
    if (!ops.ok()) {
      // A model that cannot be read fails on every runtime.
      failures.push_back(name + ": cannot list its ops: " + ops.message());
      ++total.failed;
      continue;
    }
    std::set<std::string> opSet(ops->begin(), ops->end());
    bool inScope = !opSet.empty();
    for (const std::string &op : opSet)
      inScope &= core.count(op) != 0;
    if (!inScope) {
      ++total.outOfScope;
      for (const std::string &op : opSet)
        if (core.count(op))
          ++perOp[op].outOfScope;
      continue;
    }
    Outcome outcome = runNodeTest(dir, runner);
    auto excluded = exclusions.find(set + ":" + name);
    if (excluded == exclusions.end())
      excluded = exclusions.find(name);
    auto count = [&](auto member) {
      ++(total.*member);
      for (const std::string &op : opSet)
        ++(perOp[op].*member);
    };
    if (excluded != exclusions.end()) {
      count(&Counts::excluded);
      if (outcome.passed)
        stale.push_back(name);
      else if (std::optional<std::string> refusal =
                   expectedRefusal(excluded->second);
               refusal && outcome.message.find(*refusal) == std::string::npos)
        failures.push_back(name + ": excluded as refused with \"" + *refusal +
                           "\", but: " + outcome.message);
    } else if (outcome.passed) {
      count(&Counts::passed);
    } else {
      count(&Counts::failed);
      if (outcome.message.rfind("compile: ", 0) == 0)
        count(&Counts::notCompiled);
      failures.push_back(name + ": " + outcome.message);
    }
  }

  std::ostringstream report;
  report << "ONNX node tests on the " << runner.name << " runtime ("
         << root.string() << ")\n";
  report << "  operator                     passed failed excluded "
            "out-of-scope\n";
  for (const std::string &op : core) {
    const Counts &c = perOp[op];
    char line[160];
    std::snprintf(line, sizeof line, "  %-28s %6d %6d %8d %12d\n", op.c_str(),
                  c.passed, c.failed, c.excluded, c.outOfScope);
    report << line;
  }
  int inScope = total.passed + total.failed + total.excluded;
  double rate = inScope ? 100.0 * total.passed / inScope : 0;
  char summary[256];
  std::snprintf(summary, sizeof summary,
                "summary (%s): %d in scope: %d passed, %d failed, %d excluded "
                "(counted as failures): %.1f%% pass; %d out of scope; of "
                "the failed, %d not compiled (no kernel for them yet)\n",
                runner.name.c_str(), inScope, total.passed, total.failed,
                total.excluded, rate, total.outOfScope, total.notCompiled);
  report << summary;
  for (const std::string &f : failures)
    report << "  FAILED " << f << "\n";
  // What the compiler lacks, most frequent first: the message after the
  // op's name ("'fuse.concat' op cannot be generated ...: <reason>").
  std::map<std::string, int> gaps;
  for (const std::string &f : failures) {
    std::size_t compile = f.find(": compile: ");
    if (compile == std::string::npos)
      continue;
    std::size_t op = f.find("'fuse.", compile);
    std::string reason =
        op == std::string::npos ? f.substr(compile + 11) : f.substr(op);
    ++gaps[reason.substr(0, reason.find('\n'))];
  }
  std::vector<std::pair<int, std::string>> sortedGaps;
  for (const auto &[gap, n] : gaps)
    sortedGaps.push_back({-n, gap});
  std::sort(sortedGaps.begin(), sortedGaps.end());
  if (!sortedGaps.empty())
    report << "  not compiled, by reason:\n";
  for (const auto &[n, gap] : sortedGaps)
    report << "  " << -n << " x " << gap << "\n";
  for (const std::string &s : stale)
    report << "  note: excluded test " << s
           << " passes now; remove it from exclusions.txt\n";
  std::cout << report.str() << std::flush;
  ASSERT_GT(total.passed + total.failed + total.excluded, 0)
      << "no node test was in scope";
  EXPECT_TRUE(failures.empty())
      << failures.size() << " node test(s) in scope failed on the "
      << runner.name << " runtime (see above)";
  // Exclusions stay honest: one that passes must leave the list, and they
  // never grow past 5% of what is in scope (issue 11's target).
  EXPECT_TRUE(stale.empty())
      << stale.size() << " excluded test(s) pass on the " << runner.name
      << " runtime: remove them from exclusions.txt";
  EXPECT_GE(rate, 95.0) << "below 95% of the node tests in scope pass on the "
                        << runner.name << " runtime";
}

TEST(OnnxConformance, ReferenceRuntime) {
  runSuite({"reference", runReference}, "debian", nodeTestDir());
}

// The opset forms libonnx-testdata lacks
// (test/compiler/onnx/make_extra_tests.py).
TEST(OnnxConformance, ReferenceRuntimeExtra) {
  runSuite({"reference", runReference}, "extra", extraTestDir());
}

TEST(OnnxConformance, ReferenceRuntimePackage) {
  runSuite({"reference", runReference}, "package", packageTestDir());
}

#ifdef FUSE_ONNX_CONFORMANCE_HOST
TEST(OnnxConformance, HostRuntime) {
  // A graph the host code generator cannot compile fails this test like a
  // wrong answer does (the summary counts those apart, "not compiled").
  runSuite({"host", runHost}, "debian", nodeTestDir());
}

TEST(OnnxConformance, HostRuntimeExtra) {
  runSuite({"host", runHost}, "extra", extraTestDir());
}

TEST(OnnxConformance, HostRuntimePackage) {
  runSuite({"host", runHost}, "package", packageTestDir());
}
#endif

} // namespace
