//===- Generate.cpp - fuse-run --generate: a decoder's greedy loop --------===//

#include "Generate.h"
#include "CacheWarnings.h"

#include "CompilerAccess.h"
#include "Npy.h"
#include "tools/JsonText.h"

#include "compiler/onnx/OnnxImporter.h"
#include "runtime/cache/BundleCache.h"
#include "runtime/engine/Engine.h"
#include "runtime/ir/Interpreter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace fuse {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kExitError = 2;
/// More new tokens than this is a typo, not a request.
constexpr unsigned kMaxTokens = 1u << 20;

int fail(const std::string &message) {
  llvm::errs() << "fuse-run: error: " << message << "\n";
  return kExitError;
}

void progress(const std::string &message) {
  llvm::errs() << "fuse-run: " << message << "\n";
}

double milliseconds(std::chrono::nanoseconds duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

/// A past_key_values input and the output that is the next step's value.
struct CacheInput {
  std::string input, output;
  /// As declared; -1 where dynamic.
  std::vector<std::int64_t> shape;
  /// The dim that grows by the step's tokens.
  std::size_t lengthAxis = 0;
};

/// What the loop feeds to each model input.
struct DecoderInputs {
  bool hasMask = false, hasPositions = false;
  std::vector<CacheInput> cache;
  /// Weight inputs of these names are uploaded once; the others are values
  /// the import folded at the step's shapes, uploaded at each step.
  std::set<std::string, std::less<>> initializers;
};

/// "past_key_values.0.key" and "past.0.key" give "present.0.key".
std::optional<std::string> presentName(const std::string &input) {
  for (const char *prefix : {"past_key_values.", "past."})
    if (input.starts_with(prefix))
      return "present." + input.substr(std::string(prefix).size());
  return std::nullopt;
}

Expected<CacheInput> cacheInput(const onnximport::DeclaredInput &declared,
                                std::string output) {
  CacheInput cache{declared.name, std::move(output), declared.shape, 0};
  std::vector<std::size_t> dynamic;
  for (std::size_t i = 1; i < declared.shape.size(); ++i)
    if (declared.shape[i] < 0)
      dynamic.push_back(i);
  if (!declared.hasShape || declared.shape.size() < 2 || dynamic.size() != 1)
    return Status::error(
        "input '" + declared.name +
        "' is not a key/value cache with one dynamic length: --generate "
        "needs [batch, ..., past_sequence, ...] with exactly one dynamic dim "
        "after the batch");
  cache.lengthAxis = dynamic.front();
  return cache;
}

Expected<DecoderInputs>
decoderInputs(const std::vector<onnximport::DeclaredInput> &declared) {
  DecoderInputs inputs;
  bool hasIds = false;
  for (const onnximport::DeclaredInput &input : declared) {
    if (input.name == "input_ids") {
      hasIds = true;
    } else if (input.name == "attention_mask") {
      inputs.hasMask = true;
    } else if (input.name == "position_ids") {
      inputs.hasPositions = true;
    } else if (std::optional<std::string> output = presentName(input.name)) {
      Expected<CacheInput> cache = cacheInput(input, *output);
      if (!cache.ok())
        return cache.status();
      inputs.cache.push_back(cache.take());
    } else {
      return Status::error(
          "input '" + input.name +
          "' is none that --generate feeds (input_ids, attention_mask, "
          "position_ids, past_key_values.* or past.*)");
    }
  }
  if (!hasIds)
    return Status::error("the model has no input 'input_ids'");
  if (inputs.cache.empty())
    return Status::error(
        "the model has no past_key_values.* (or past.*) inputs: --generate "
        "needs a decoder exported with its key/value cache");
  return inputs;
}

/// The prompt: --input input_ids=PATH, integers of shape [batch, length].
Expected<npy::Array> readPrompt(const GenerateOptions &options) {
  std::optional<std::string> path;
  for (const std::string &spec : options.inputs) {
    if (!spec.starts_with("input_ids="))
      return Status::error("--generate feeds every input but the prompt "
                           "itself: give only --input input_ids=PATH (got '" +
                           spec + "')");
    path = spec.substr(std::string("input_ids=").size());
  }
  if (!path)
    return Status::error("--generate needs the prompt: --input "
                         "input_ids=PATH.npy, token ids of shape [batch, "
                         "length]");
  Expected<npy::Array> prompt = npy::read(*path);
  if (!prompt.ok())
    return Status::error("--input input_ids: " + prompt.message());
  const TensorType &type = prompt->type;
  if (!isInteger(type.elementType) || type.rank() != 2 || type.shape[0] < 1 ||
      type.shape[1] < 1)
    return Status::error("--input input_ids: '" + *path + "' holds a " +
                         type.toString() +
                         "; the prompt is integers of shape [batch, length] "
                         "with at least one token");
  return prompt;
}

/// One step of the loop, as reported.
struct StepReport {
  std::int64_t position = 0, tokens = 0;
  std::uint64_t compiled = 0, cacheHits = 0, kernels = 0;
  /// Kernels compiled to machine code by the step's compilations, and
  /// kernels whose code an earlier step had compiled.
  std::uint64_t kernelsCompiled = 0, kernelsReused = 0;
  /// Of kernelsCompiled, those compiled quickly
  /// (CompileOptions::tieredKernels).
  std::uint64_t kernelsQuick = 0;
  /// The step's wall time, and its parts: the import at the step's shapes,
  /// compiling, the kernels' submission (the engine's counters).
  double ms = 0, importMs = 0, compileMs = 0, runMs = 0;
};

/// The loop's state between steps: the session, the weights uploaded once,
/// the cache tensors on the device.
class Generator {
public:
  Generator(onnximport::ParsedModel model, DecoderInputs inputs,
            engine::Session session)
      : model(std::move(model)), inputs(std::move(inputs)),
        session(std::move(session)) {}

  /// Runs one step over `ids` ([batch, tokens]) at past length `past`, and
  /// answers the next token of each batch row.
  Expected<std::vector<std::int64_t>>
  step(const std::vector<std::int64_t> &ids, std::int64_t batch,
       std::int64_t tokens, std::int64_t past, StepReport &report);
  /// After the prompt, every step is a new graph: its kernels that depend
  /// on the past length run once each, so they are compiled quickly
  /// (CompileOptions::tieredKernels); the others at the full level from
  /// their second step on. The prompt's kernels, which run over all its
  /// tokens, are compiled at the full level.
  void tierKernels() {
    // A symbolic bundle serves every step: new options would compile it
    // again under their key.
    if (symbolicState == On)
      return;
    CompileOptions options = session.compileOptions();
    options.tieredKernels = true;
    session.setCompileOptions(options);
  }

  /// Whether steps call the model imported once with its dims symbolic
  /// (issue 22): compiled at the first step, nothing after. Off for the
  /// reference runtime, or once the importer or compiler refuses (each
  /// step then imports and compiles the model at its own shapes).
  void trySymbolic(bool enabled) { symbolicState = enabled ? Untried : Off; }

  /// The shapes of the step's inputs, by name (the weights' excepted).
  std::map<std::string, std::vector<std::int64_t>>
  stepShapes(std::int64_t batch, std::int64_t tokens, std::int64_t past) const;
  /// --dim-range: passed to the symbolic call (the engine refuses a binding
  /// outside; the steps check them first, generateTokens).
  DimRanges dimRanges;

private:
  Expected<onnximport::ImportedModel>
  import(std::int64_t batch, std::int64_t tokens, std::int64_t past) const;
  /// The model's input `input` at the step's shapes.
  TensorType stepType(const Graph &graph, TensorId input, std::int64_t batch,
                      std::int64_t tokens, std::int64_t past) const;
  Expected<engine::Tensor> modelInput(const Graph &graph, TensorId input,
                                      const TensorType &type,
                                      const std::vector<std::int64_t> &ids,
                                      std::int64_t tokens, std::int64_t past);
  /// The step's arguments: the weights (uploaded once) and the step's
  /// inputs.
  Expected<std::vector<engine::Tensor>>
  arguments(const onnximport::ImportedModel &imported,
            const std::vector<std::int64_t> &ids, std::int64_t batch,
            std::int64_t tokens, std::int64_t past);
  /// The step through the symbolic import; none where it is refused (a note
  /// says why, and the steps import at their shapes from then on).
  /// The step through the model imported at the step's shapes.
  Expected<std::vector<std::int64_t>>
  staticStep(const std::vector<std::int64_t> &ids, std::int64_t batch,
             std::int64_t tokens, std::int64_t past, StepReport &report);
  std::optional<Expected<std::vector<std::int64_t>>>
  symbolicStep(const std::vector<std::int64_t> &ids, std::int64_t batch,
               std::int64_t tokens, std::int64_t past, StepReport &report);
  engine::Tensor weight(const Graph &graph, TensorId input,
                        const HostTensorData &value);
  Expected<std::vector<std::int64_t>>
  nextTokens(const Graph &graph, std::vector<engine::Tensor> outputs,
             std::int64_t tokens);

  /// Read and parsed once; imported at each step's shapes.
  onnximport::ParsedModel model;
  DecoderInputs inputs;
  engine::Session session;
  /// Initializers by name: uploaded at the first step that binds them.
  std::map<std::string, engine::Tensor> weights;
  /// By CacheInput::input: the last step's present.* tensors.
  std::map<std::string, engine::Tensor> cache;
  enum { Untried, On, Off } symbolicState = Off;
  std::optional<onnximport::ImportedModel> symbolicModel;
  /// symbolicModel's graph, canonicalized and keyed once for every step.
  engine::SymbolicGraph symbolicGraph;
  /// symbolicModel's weights, uploaded once, by input position.
  std::map<std::size_t, engine::Tensor> symbolicWeights;
};

std::map<std::string, std::vector<std::int64_t>>
Generator::stepShapes(std::int64_t batch, std::int64_t tokens,
                      std::int64_t past) const {
  std::map<std::string, std::vector<std::int64_t>> shapes;
  shapes["input_ids"] = {batch, tokens};
  if (inputs.hasMask)
    shapes["attention_mask"] = {batch, past + tokens};
  if (inputs.hasPositions)
    shapes["position_ids"] = {batch, tokens};
  for (const CacheInput &input : inputs.cache) {
    std::vector<std::int64_t> shape = input.shape;
    shape[0] = batch;
    shape[input.lengthAxis] = past;
    for (std::int64_t &dim : shape)
      if (dim < 0)
        dim = 1;
    shapes[input.input] = shape;
  }
  return shapes;
}

Expected<onnximport::ImportedModel> Generator::import(std::int64_t batch,
                                                      std::int64_t tokens,
                                                      std::int64_t past) const {
  onnximport::ImportOptions importOptions;
  for (auto &[name, shape] : stepShapes(batch, tokens, past))
    importOptions.inputShapes[name] = std::move(shape);
  return model.import(importOptions);
}

TensorType Generator::stepType(const Graph &graph, TensorId input,
                               std::int64_t batch, std::int64_t tokens,
                               std::int64_t past) const {
  TensorType type = graph.typeOf(input);
  const std::string &name = graph.tensors[input].name;
  if (name == "input_ids" || name == "position_ids")
    type.shape = {batch, tokens};
  else if (name == "attention_mask")
    type.shape = {batch, past + tokens};
  for (const CacheInput &cacheInput : inputs.cache)
    if (cacheInput.input == name) {
      type.shape = cacheInput.shape;
      type.shape[0] = batch;
      type.shape[cacheInput.lengthAxis] = past;
      for (std::int64_t &dim : type.shape)
        if (dim < 0)
          dim = 1;
    }
  return type;
}

Expected<engine::Tensor>
Generator::modelInput(const Graph &graph, TensorId input,
                      const TensorType &type,
                      const std::vector<std::int64_t> &ids, std::int64_t tokens,
                      std::int64_t past) {
  const std::string &name = graph.tensors[input].name;
  std::int64_t batch = std::int64_t(ids.size()) / tokens;
  if (name == "input_ids")
    return session.upload(HostTensorData::fromInts(type, ids));
  if (name == "attention_mask")
    return session.upload(HostTensorData::fromInts(
        type, std::vector<std::int64_t>(batch * (past + tokens), 1)));
  if (name == "position_ids") {
    std::vector<std::int64_t> positions;
    for (std::int64_t row = 0; row < batch; ++row)
      for (std::int64_t i = 0; i < tokens; ++i)
        positions.push_back(past + i);
    return session.upload(HostTensorData::fromInts(type, positions));
  }
  auto kept = cache.find(name);
  if (kept == cache.end())
    return session.upload(HostTensorData(type));
  if (kept->second.type() != type)
    return Status::error("the model's output for '" + name + "' is a " +
                         kept->second.type().toString() +
                         ", but the next step's input '" + name + "' is a " +
                         type.toString());
  return kept->second;
}

engine::Tensor Generator::weight(const Graph &graph, TensorId input,
                                 const HostTensorData &value) {
  std::string key = graph.tensors[input].name;
  if (!inputs.initializers.count(key))
    return session.upload(value);
  auto kept = weights.find(key);
  if (kept != weights.end() && kept->second.type() == value.type)
    return kept->second;
  engine::Tensor uploaded = session.upload(value);
  weights.insert_or_assign(key, uploaded);
  return uploaded;
}

Expected<std::vector<std::int64_t>>
Generator::nextTokens(const Graph &graph, std::vector<engine::Tensor> outputs,
                      std::int64_t tokens) {
  std::optional<std::size_t> logitsIndex;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    if (graph.outputs[i].name == "logits")
      logitsIndex = i;
  if (!logitsIndex)
    return Status::error("the model has no output 'logits'");
  engine::Tensor logits = std::move(outputs[*logitsIndex]);
  const TensorType &type = logits.type();
  if (type.rank() != 3 || type.shape[1] != tokens || !isFloat(type.elementType))
    return Status::error("output 'logits' is a " + type.toString() +
                         "; --generate needs floats of shape [batch, " +
                         std::to_string(tokens) + ", vocabulary]");
  for (const CacheInput &input : inputs.cache) {
    auto it = std::find_if(
        graph.outputs.begin(), graph.outputs.end(),
        [&](const GraphOutput &output) { return output.name == input.output; });
    if (it == graph.outputs.end())
      return Status::error("the model has no output '" + input.output +
                           "' for its input '" + input.input + "'");
    cache.insert_or_assign(input.input,
                           outputs[std::size_t(it - graph.outputs.begin())]);
  }
  // A step of one token that already ran (a symbolic call's outputs are
  // computed) has [batch, 1, vocabulary] logits: read back and chosen here,
  // so that no block of its own is compiled for them.
  if (tokens == 1 && logits.materialized()) {
    Expected<std::vector<double>> values = logits.readDoubles();
    if (!values.ok())
      return Status::error("the step failed: " + values.message());
    std::vector<std::int64_t> chosen;
    const std::int64_t vocabulary = type.shape[2];
    for (std::int64_t row = 0; row < type.shape[0]; ++row) {
      auto first = values->begin() + row * vocabulary;
      chosen.push_back(std::max_element(first, first + vocabulary) - first);
    }
    return chosen;
  }
  // Only the chosen tokens come back: logits stay on the device, and their
  // handles are dropped so that the block need not keep them.
  engine::Tensor last = engine::slice(
      logits, {0, tokens - 1, 0}, {type.shape[0], 1, type.shape[2]}, {1, 1, 1});
  engine::Tensor chosen = engine::argmax(last, 2);
  logits = last = engine::Tensor();
  outputs.clear();
  Expected<HostTensorData> read = chosen.read();
  if (!read.ok())
    return Status::error("the step failed: " + read.message());
  for (const auto &[name, tensor] : cache)
    if (Status status = tensor.status(); !status.ok())
      return Status::error("the step failed: " + status.message());
  return read->toInts();
}

Expected<std::vector<std::int64_t>>
Generator::staticStep(const std::vector<std::int64_t> &ids, std::int64_t batch,
                      std::int64_t tokens, std::int64_t past,
                      StepReport &report) {
  Clock::time_point start = Clock::now();
  Expected<onnximport::ImportedModel> imported = import(batch, tokens, past);
  if (!imported.ok())
    return imported.status();
  report.importMs = milliseconds(Clock::now() - start);
  Expected<std::vector<engine::Tensor>> values =
      arguments(*imported, ids, batch, tokens, past);
  if (!values.ok())
    return values.status();
  return nextTokens(imported->graph,
                    engine::call(session, imported->graph, *values), tokens);
}

Expected<std::vector<engine::Tensor>>
Generator::arguments(const onnximport::ImportedModel &imported,
                     const std::vector<std::int64_t> &ids, std::int64_t batch,
                     std::int64_t tokens, std::int64_t past) {
  const Graph &graph = imported.graph;
  std::vector<engine::Tensor> values(graph.inputs.size());
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    TensorId input = graph.inputs[i];
    if (imported.weights[i]) {
      // The symbolic model is imported once: each of its weights (an
      // initializer, or a constant the importer made an input) is
      // uploaded once, so that what is packed from it is kept.
      if (symbolicModel && &imported == &*symbolicModel) {
        auto [kept, added] = symbolicWeights.try_emplace(i);
        if (added)
          kept->second = session.upload(*imported.weights[i]);
        values[i] = kept->second;
        continue;
      }
      values[i] = weight(graph, input, *imported.weights[i]);
      continue;
    }
    Expected<engine::Tensor> value =
        modelInput(graph, input, stepType(graph, input, batch, tokens, past),
                   ids, tokens, past);
    if (!value.ok())
      return value.status();
    values[i] = value.take();
  }
  return values;
}

std::optional<Expected<std::vector<std::int64_t>>>
Generator::symbolicStep(const std::vector<std::int64_t> &ids,
                        std::int64_t batch, std::int64_t tokens,
                        std::int64_t past, StepReport &report) {
  auto refuse = [&](const std::string &why) {
    llvm::errs() << "fuse-run: note: the steps import and compile the model "
                    "at their own shapes: "
                 << why << "\n";
    symbolicState = Off;
    symbolicModel.reset();
    symbolicGraph = engine::SymbolicGraph();
    symbolicWeights.clear();
    return std::nullopt;
  };
  Clock::time_point start = Clock::now();
  if (!symbolicModel) {
    onnximport::ImportOptions symbolic;
    symbolic.symbolicDims = true;
    Expected<onnximport::ImportedModel> imported = model.import(symbolic);
    if (!imported.ok())
      return refuse("the importer cannot keep its dims symbolic (" +
                    imported.message() + ")");
    symbolicModel = imported.take();
    // The ranges of the dims the import kept symbolic (one it unified
    // with another is checked by the steps alone).
    DimRanges ranges;
    for (const auto &[name, range] : dimRanges)
      if (llvm::is_contained(symbolicModel->graph.dims.symbols, name))
        ranges.emplace(name, range);
    Expected<engine::SymbolicGraph> prepared = engine::prepareSymbolic(
        session, symbolicModel->graph, std::move(ranges));
    if (!prepared.ok())
      return refuse(prepared.message());
    symbolicGraph = prepared.take();
  }
  report.importMs = milliseconds(Clock::now() - start);
  const Graph &graph = symbolicModel->graph;
  Expected<std::vector<engine::Tensor>> values =
      arguments(*symbolicModel, ids, batch, tokens, past);
  if (!values.ok())
    return Expected<std::vector<std::int64_t>>(values.status());
  bool refused = false;
  Expected<std::vector<engine::Tensor>> outputs =
      engine::callSymbolic(session, symbolicGraph, *values, &refused);
  if (!outputs.ok() && refused && symbolicState == Untried)
    return refuse("not every fusion takes the dims at run time (" +
                  outputs.message() + ")");
  if (!outputs.ok())
    return Expected<std::vector<std::int64_t>>(outputs.status());
  symbolicState = On;
  return nextTokens(graph, outputs.take(), tokens);
}

Expected<std::vector<std::int64_t>>
Generator::step(const std::vector<std::int64_t> &ids, std::int64_t batch,
                std::int64_t tokens, std::int64_t past, StepReport &report) {
  engine::EngineCounters before = session.counters();
  Clock::time_point start = Clock::now();
  std::optional<Expected<std::vector<std::int64_t>>> symbolic;
  if (symbolicState != Off)
    symbolic = symbolicStep(ids, batch, tokens, past, report);
  Expected<std::vector<std::int64_t>> next =
      symbolic ? std::move(*symbolic)
               : staticStep(ids, batch, tokens, past, report);
  engine::EngineCounters after = session.counters();
  report.position = past;
  report.tokens = tokens;
  report.compiled = after.compilations - before.compilations;
  report.cacheHits = (after.memoryHits + after.diskHits + after.sessionHits) -
                     (before.memoryHits + before.diskHits + before.sessionHits);
  report.kernels = after.kernelsLaunched - before.kernelsLaunched;
  report.kernelsCompiled = after.kernelsCompiled - before.kernelsCompiled;
  report.kernelsReused = after.kernelsReused - before.kernelsReused;
  report.kernelsQuick = after.kernelsQuick - before.kernelsQuick;
  report.compileMs = milliseconds(after.compileTime - before.compileTime);
  report.runMs = milliseconds(after.runTime - before.runTime);
  report.ms = milliseconds(Clock::now() - start);
  return next;
}

Expected<engine::Session> openSession(const GenerateOptions &options,
                                      std::unique_ptr<Compiler> &compiler,
                                      std::unique_ptr<BundleCache> &cache) {
  engine::SessionOptions sessionOptions;
  // The model is one block, whatever its size.
  sessionOptions.maxBlockOps = std::numeric_limits<std::size_t>::max();
  sessionOptions.onWarning = [](const std::string &message) {
    llvm::errs() << "fuse-run: warning: " << message << "\n";
  };
  if (options.runtime == "reference") {
    compiler = std::make_unique<ReferenceCompiler>();
    sessionOptions.device = engine::DeviceChoice::Reference;
  } else {
    Expected<std::unique_ptr<Compiler>> host = run::makeHostCompiler();
    if (!host.ok())
      return host.status();
    compiler = host.take();
    sessionOptions.device = engine::DeviceChoice::Host;
    BundleCacheOptions cacheOptions;
    cacheOptions.directory = options.cacheDir;
    if (cacheOptions.directory.empty())
      if (Expected<std::string> directory = BundleCache::defaultDirectory();
          directory.ok())
        cacheOptions.directory = *directory;
    cacheOptions.onProblem = CacheWarnings::callback();
    if (!cacheOptions.directory.empty()) {
      Expected<std::unique_ptr<BundleCache>> opened =
          BundleCache::open(cacheOptions);
      if (opened.ok())
        cache = opened.take();
      else
        llvm::errs() << "fuse-run: warning: bundle cache disabled: "
                     << opened.message() << "\n";
    }
  }
  compiler->keepKernelsIn(cache.get());
  sessionOptions.compiler = compiler.get();
  sessionOptions.cache = cache.get();
  return engine::Session::open(std::move(sessionOptions));
}

std::string stepLine(std::size_t index, const StepReport &step) {
  std::string what =
      index == 0 ? "the prompt, " + std::to_string(step.tokens) + " token(s)"
                 : "position " + std::to_string(step.position);
  std::string compiled = "compiled nothing";
  if (step.compiled) {
    compiled = llvm::formatv("compiled {0} block(s) in {1:F1} ms",
                             step.compiled, step.compileMs);
    if (step.kernelsCompiled || step.kernelsReused)
      compiled += llvm::formatv(" ({0} kernel(s) to machine code, {1} of "
                                "them quickly; {2} reused)",
                                step.kernelsCompiled, step.kernelsQuick,
                                step.kernelsReused);
  }
  return llvm::formatv("step {0} ({1}): {2}, {3} kernel launch(es) ran in "
                       "{4:F2} ms; {5:F2} ms in all (import {6:F2} ms)",
                       index, what, compiled, step.kernels, step.runMs, step.ms,
                       step.importMs);
}

void printJson(const GenerateOptions &options,
               const std::vector<std::vector<std::int64_t>> &generated,
               const std::vector<StepReport> &steps, double perToken) {
  std::string tokens, stepsJson;
  for (const std::vector<std::int64_t> &row : generated) {
    std::string values;
    for (std::int64_t token : row)
      values += (values.empty() ? "" : ", ") + std::to_string(token);
    tokens += (tokens.empty() ? "[" : ", [") + values + "]";
  }
  std::size_t compiledSteps = 0;
  for (const StepReport &step : steps) {
    compiledSteps += step.compiled != 0;
    stepsJson +=
        std::string(stepsJson.empty() ? "" : ", ") +
        "{\"position\": " + std::to_string(step.position) +
        ", \"tokens\": " + std::to_string(step.tokens) +
        ", \"compiled\": " + std::to_string(step.compiled) +
        ", \"cache_hits\": " + std::to_string(step.cacheHits) +
        ", \"kernels_compiled\": " + std::to_string(step.kernelsCompiled) +
        ", \"kernels_reused\": " + std::to_string(step.kernelsReused) +
        ", \"kernels_quick\": " + std::to_string(step.kernelsQuick) +
        ", \"kernels\": " + std::to_string(step.kernels) +
        ", \"ms\": " + jsonNumber(step.ms) +
        ", \"import_ms\": " + jsonNumber(step.importMs) +
        ", \"compile_ms\": " + jsonNumber(step.compileMs) +
        ", \"run_ms\": " + jsonNumber(step.runMs) + "}";
  }
  llvm::outs() << "{\"model\": " << jsonString(options.model)
               << ", \"runtime\": " << jsonString(options.runtime)
               << ", \"generated\": [" << tokens << "]"
               << ", \"steps_that_compiled\": " << compiledSteps
               << ", \"ms_per_token\": " << jsonNumber(perToken)
               << ", \"steps\": [" << stepsJson << "]}\n";
}

/// Each dynamic dim of the declared inputs: its name (the dim_param, or
/// INPUT:INDEX) and where it lies (input, axis), in order.
std::vector<std::pair<std::string, std::pair<std::string, std::size_t>>>
declaredDims(const std::vector<onnximport::DeclaredInput> &declared) {
  std::vector<std::pair<std::string, std::pair<std::string, std::size_t>>> dims;
  for (const onnximport::DeclaredInput &input : declared)
    for (std::size_t d = 0; d < input.shape.size(); ++d)
      if (input.shape[d] < 0)
        dims.push_back({d < input.dimNames.size() && !input.dimNames[d].empty()
                            ? input.dimNames[d]
                            : input.name + ":" + std::to_string(d),
                        {input.name, d}});
  return dims;
}

/// --dim-range's names: each a dynamic dim the model declares.
Status checkRangeNames(
    const std::string &model, const DimRanges &ranges,
    const std::vector<
        std::pair<std::string, std::pair<std::string, std::size_t>>> &dims) {
  for (const auto &[name, range] : ranges) {
    std::string names;
    bool found = false;
    for (const auto &dim : dims) {
      found = found || dim.first == name;
      if (names.find("'" + dim.first + "'") == std::string::npos)
        names += (names.empty() ? "'" : ", '") + dim.first + "'";
    }
    if (!found)
      return Status::error("--dim-range " + dimRangeText(name, range) + ": '" +
                           model + "' has no dynamic dim '" + name + "'" +
                           (names.empty() ? "" : "; its dims are: " + names));
  }
  return Status::success();
}

/// A step's values of the declared dims inside their --dim-range.
Status checkStepDims(
    const DimRanges &ranges,
    const std::vector<
        std::pair<std::string, std::pair<std::string, std::size_t>>> &dims,
    const std::map<std::string, std::vector<std::int64_t>> &shapes) {
  DimBindings values;
  for (const auto &[name, where] : dims)
    if (auto it = shapes.find(where.first);
        it != shapes.end() && where.second < it->second.size())
      values.emplace(name, it->second[where.second]);
  if (Status inRange = checkDimsInRanges(values, ranges); !inRange.ok())
    return Status::error("--dim-range: " + inRange.message());
  return Status::success();
}

} // namespace

int generateTokens(const GenerateOptions &options) {
  if (llvm::sys::path::extension(options.model) != ".onnx")
    return fail("--generate takes an .onnx decoder exported with its "
                "key/value cache; '" +
                options.model + "' is not one");
  if (options.tokens > kMaxTokens)
    return fail("--generate=" + std::to_string(options.tokens) + ": at most " +
                std::to_string(kMaxTokens) + " tokens");
  Expected<npy::Array> prompt = readPrompt(options);
  if (!prompt.ok())
    return fail(prompt.message());
  Expected<onnximport::ModelDeclarations> declared =
      onnximport::modelDeclarations(options.model);
  if (!declared.ok())
    return fail(declared.message());
  const auto dims = declaredDims(declared->inputs);
  if (Status named = checkRangeNames(options.model, options.dimRanges, dims);
      !named.ok())
    return fail(named.message());
  Expected<DecoderInputs> inputs = decoderInputs(declared->inputs);
  if (!inputs.ok())
    return fail(options.model + ": " + inputs.message());
  inputs->initializers = std::move(declared->initializers);
  std::unique_ptr<Compiler> compiler;
  std::unique_ptr<BundleCache> cache;
  Expected<engine::Session> session = openSession(options, compiler, cache);
  if (!session.ok())
    return fail(session.message());
  Expected<onnximport::ParsedModel> parsed =
      onnximport::ParsedModel::readFile(options.model);
  if (!parsed.ok())
    return fail(parsed.message());
  Generator generator(parsed.take(), inputs.take(), session.take());
  generator.trySymbolic(options.runtime == "host");
  generator.dimRanges = options.dimRanges;

  const std::int64_t batch = prompt->type.shape[0];
  HostTensorData promptData(prompt->type);
  promptData.bytes = std::move(prompt->bytes);
  std::vector<std::int64_t> ids = promptData.toInts();
  std::int64_t tokens = prompt->type.shape[1], past = 0;
  std::vector<std::vector<std::int64_t>> generated(
      static_cast<std::size_t>(batch));
  std::vector<StepReport> steps;
  progress("generating " + std::to_string(options.tokens) +
           " token(s) from a prompt of " + std::to_string(tokens) + " on the " +
           options.runtime + " runtime...");
  for (unsigned i = 0; i < options.tokens; ++i) {
    if (Status inRange = checkStepDims(
            options.dimRanges, dims, generator.stepShapes(batch, tokens, past));
        !inRange.ok())
      return fail("step " + std::to_string(i) + ": " + inRange.message());
    StepReport report;
    Expected<std::vector<std::int64_t>> next =
        generator.step(ids, batch, tokens, past, report);
    if (!next.ok())
      return fail("step " + std::to_string(i) + ": " + next.message());
    progress(stepLine(i, report));
    steps.push_back(report);
    for (std::int64_t row = 0; row < batch; ++row)
      generated[std::size_t(row)].push_back((*next)[std::size_t(row)]);
    ids = next.take();
    past += tokens;
    tokens = 1;
    if (i == 0)
      generator.tierKernels();
  }
  std::vector<double> later;
  for (std::size_t i = 1; i < steps.size(); ++i)
    later.push_back(steps[i].ms);
  std::sort(later.begin(), later.end());
  double perToken = later.empty() ? 0.0 : later[later.size() / 2];
  for (const std::vector<std::int64_t> &row : generated) {
    llvm::outs() << "generated:";
    for (std::int64_t token : row)
      llvm::outs() << " " << token;
    llvm::outs() << "\n";
  }
  if (!later.empty())
    llvm::outs() << llvm::formatv(
        "time per token: median {0:F2} ms over the {1} step(s) after the "
        "prompt\n",
        perToken, later.size());
  if (!options.outputDir.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(options.outputDir))
      return fail("cannot create '" + options.outputDir + "': " + ec.message());
    std::vector<std::int64_t> flat;
    for (const std::vector<std::int64_t> &row : generated)
      flat.insert(flat.end(), row.begin(), row.end());
    HostTensorData out = HostTensorData::fromInts(
        {ElementType::I64, {batch, std::int64_t(options.tokens)}}, flat);
    if (Status written = npy::write(options.outputDir + "/generated.npy",
                                    {out.type, std::move(out.bytes)});
        !written.ok())
      return fail(written.message());
  }
  if (options.json)
    printJson(options, generated, steps, perToken);
  llvm::outs().flush();
  return 0;
}

} // namespace fuse
