//===- SymbolicBundle.cpp - Binding a symbolic bundle's dims --------------===//

#include "runtime/cache/SymbolicBundle.h"

#include "runtime/cache/ArenaPlanner.h"
#include "runtime/device/KernelAbi.h"
#include "runtime/ir/OpTable.h"
#include "runtime/ir/Verifier.h"

#include <algorithm>

namespace fuse {

Expected<DimExpr> byteSizeExpr(const Graph &graph, const TensorType &type) {
  Expected<DimExpr> count = graph.dims.product(type.shape);
  if (!count.ok())
    return count.status();
  return DimExpr::mul(
      *count, DimExpr::constant(std::int64_t(byteSize(type.elementType))));
}

namespace {

std::string inputName(std::span<const std::string> names, std::size_t i) {
  if (i < names.size() && !names[i].empty())
    return "input '" + names[i] + "'";
  return "input " + std::to_string(i);
}

} // namespace

std::string dimRangeText(const std::string &name, const DimRange &range) {
  return name + "=" + std::to_string(range.lo) + ".." +
         std::to_string(range.hi);
}

Status checkDimRanges(const Graph &graph, const DimRanges &ranges) {
  for (const auto &[name, range] : ranges) {
    if (std::find(graph.dims.symbols.begin(), graph.dims.symbols.end(), name) ==
        graph.dims.symbols.end()) {
      std::string symbols;
      for (const std::string &symbol : graph.dims.symbols)
        symbols += (symbols.empty() ? "" : ", ") + symbol;
      return Status::error("dim range " + dimRangeText(name, range) +
                           ": the graph has no dim '" + name + "'" +
                           (symbols.empty() ? " (it has no symbolic dims)"
                                            : "; its dims are: " + symbols));
    }
    if (range.lo < 0 || range.hi < 0)
      return Status::error("dim range " + dimRangeText(name, range) +
                           ": a size is never negative");
    if (range.lo > range.hi)
      return Status::error("dim range " + dimRangeText(name, range) +
                           ": its low end is above its high end");
  }
  return Status::success();
}

Status checkDimsInRanges(const DimBindings &values, const DimRanges &ranges) {
  for (const auto &[name, range] : ranges) {
    auto it = values.find(name);
    if (it != values.end() && (it->second < range.lo || it->second > range.hi))
      return Status::error(
          "dim '" + name + "' is " + std::to_string(it->second) +
          ", outside its declared range " + dimRangeText(name, range));
  }
  return Status::success();
}

Expected<DimBindings>
dimsFromInputShapes(const Graph &graph,
                    std::span<const std::vector<std::int64_t>> shapes,
                    std::span<const std::string> names) {
  if (shapes.size() != graph.inputs.size())
    return Status::error(
        "the graph has " + std::to_string(graph.inputs.size()) +
        " inputs, shapes are given for " + std::to_string(shapes.size()));
  DimBindings values;
  // Where each symbol's value was read (input, dim), for the message of a
  // disagreement.
  std::map<std::string, std::pair<std::size_t, std::size_t>> readFrom;
  auto dimWhere = [&](std::size_t i, std::size_t d) {
    return "dim " + std::to_string(d) + " of " + inputName(names, i) + " (" +
           graph.typeString(graph.typeOf(graph.inputs[i])) + ")";
  };
  // First the dims that are one symbol: they give the values.
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const TensorType &type = graph.typeOf(graph.inputs[i]);
    if (shapes[i].size() != type.shape.size())
      return Status::error(inputName(names, i) + " has rank " +
                           std::to_string(shapes[i].size()) + ", the model's " +
                           graph.typeString(type) + " has rank " +
                           std::to_string(type.shape.size()));
    for (std::size_t d = 0; d < type.shape.size(); ++d) {
      std::int64_t given = shapes[i][d];
      if (given < 0)
        return Status::error(dimWhere(i, d) + " is given as " +
                             std::to_string(given) +
                             ", which is not a possible size");
      std::optional<std::string> symbol =
          type.shape[d] < 0 ? graph.dims.expr(type.shape[d]).symbolName()
                            : std::nullopt;
      if (!symbol)
        continue;
      auto [it, added] = values.emplace(*symbol, given);
      if (added) {
        readFrom[*symbol] = {i, d};
        continue;
      }
      if (it->second != given)
        return Status::error(
            "the inputs disagree about dim '" + *symbol + "': " +
            dimWhere(readFrom[*symbol].first, readFrom[*symbol].second) +
            " is " + std::to_string(it->second) + ", " + dimWhere(i, d) +
            " is " + std::to_string(given));
    }
  }
  for (const std::string &symbol : graph.dims.symbols)
    if (!values.count(symbol))
      return Status::error("no input's shape gives dim '" + symbol +
                           "' (it is no input's dim by itself): bind it "
                           "explicitly");
  // Then every dim must be what the values make it.
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const TensorType &type = graph.typeOf(graph.inputs[i]);
    for (std::size_t d = 0; d < type.shape.size(); ++d) {
      Expected<std::int64_t> expected =
          graph.dims.expr(type.shape[d]).evaluate(values);
      if (!expected.ok())
        return Status::error(dimWhere(i, d) + ": " + expected.message());
      if (*expected != shapes[i][d])
        return Status::error(
            dimWhere(i, d) + " is given as " + std::to_string(shapes[i][d]) +
            (type.shape[d] < 0
                 ? ", but " + graph.dims.dimString(type.shape[d]) + " is " +
                       std::to_string(*expected) + " for the dims " +
                       "the other inputs give"
                 : ", but the model fixes it to " + std::to_string(*expected)));
    }
  }
  return values;
}

Expected<std::int64_t> runtimeDimValue(const DimTable &dims,
                                       const std::string &name,
                                       const DimBindings &values) {
  if (std::find(dims.symbols.begin(), dims.symbols.end(), name) !=
      dims.symbols.end()) {
    auto value = values.find(name);
    if (value == values.end())
      return Status::error("it has no value");
    return value->second;
  }
  for (const DimExpr &expr : dims.exprs) {
    if (expr.terms().size() < 2 || expr.toString() != name)
      continue;
    Expected<std::int64_t> value = expr.evaluate(values);
    if (value.ok() && *value < 0)
      return Status::error("its value " + std::to_string(*value) +
                           " is no size");
    return value;
  }
  return Status::error("it is no dim of the graph");
}

std::vector<bool> slicesKeptAcrossDims(const Bundle &bundle) {
  const std::vector<SymbolicSlice> &slices = bundle.memoryPlan.symbolicSlices;
  std::vector<bool> kept(slices.size());
  for (const BundleKernel &kernel : bundle.kernels)
    if (kernel.perBinding && !kernel.dimsDependent)
      for (const KernelBinding &binding : kernel.bindings)
        if (binding.kind == BindingKind::Intermediate &&
            binding.index < slices.size() && slices[binding.index].bound)
          kept[binding.index] = true;
  return kept;
}

namespace {

/// Bindings whose values a plan remembers (a decoder's prompt, its steps).
constexpr std::size_t kKeptValidations = 8;

/// Whether op kind `kind`'s type rule only compares its operands' dims for
/// equality (or a broadcast's with a static 1) and moves them into its
/// result (inferResultType): no sum, no product, no comparison with a
/// constant that a symbolic dim can cross (a reduction refuses a dim of 0,
/// a slice its bounds, a reshape its count), so types that satisfy it with
/// symbolic dims satisfy it bound to any values.
bool comparesDimsOnly(OpKind kind) {
  switch (kind) {
  case OpKind::Broadcast:
  case OpKind::Compare:
  case OpKind::Select:
  case OpKind::Cast:
  case OpKind::Transpose:
  case OpKind::Matmul:
    return true;
  default:
    return opInfo(kind).form != OpForm::Structured;
  }
}

bool isDimCode(const DimTable &table, std::int64_t dim) {
  return dim < 0 && table.isValidDim(dim);
}

/// The dim codes op `op` of `graph` mentions: in its operands' and
/// results' types and its attributes' dims (forEachAttributeDim), sorted,
/// once each; `inAttributes` is set where an attribute has one.
std::vector<std::int64_t> opDimCodes(const Graph &graph, const Op &op,
                                     bool &inAttributes) {
  std::vector<std::int64_t> codes;
  auto add = [&](std::int64_t dim) {
    if (isDimCode(graph.dims, dim))
      codes.push_back(dim);
  };
  for (const std::vector<TensorId> *ids : {&op.operands, &op.results})
    for (TensorId id : *ids)
      if (graph.isValidId(id))
        for (std::int64_t dim : graph.typeOf(id).shape)
          add(dim);
  AttrMap attributes = op.attributes;
  std::size_t fromTypes = codes.size();
  forEachAttributeDim(op.kind, attributes,
                      [&](std::int64_t &dim) { add(dim); });
  inAttributes = codes.size() != fromTypes;
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  return codes;
}

/// validate(graph) of `graph`, bound from `plan`'s bundle at the dims
/// whose codes have `codeValues`, with an earlier binding's validation
/// trusted where it settles the outcome: the graph's structure (ids,
/// definitions, results, outputs) is the symbolic graph's, checked by the
/// first binding's validate(); the tensors of static types are the
/// symbolic graph's too; an op's bound operand, result and attribute
/// values depend on the values of its dim codes alone, so an op whose codes
/// had the same values at a binding that validated passes again. The other
/// ops are inferred at their bound types and the symbolic tensors checked;
/// where anything fails, validate() of the whole graph says what (its
/// first violation, as without the plan).
Status validateBound(const BindingPlan &plan, const Graph &graph,
                     std::vector<std::int64_t> codeValues) {
  std::vector<std::vector<std::int64_t>> earlier = plan.validatedBindings();
  bool valid = !earlier.empty();
  for (std::size_t i = 0; valid && i < plan.symbolicTensors.size(); ++i)
    valid = checkTensorType(graph.typeOf(plan.symbolicTensors[i]), {}).ok();
  auto seenAt = [&](const std::vector<std::int64_t> &codes,
                    const std::vector<std::int64_t> &values) {
    return std::all_of(codes.begin(), codes.end(), [&](std::int64_t code) {
      std::size_t at = std::size_t(-1 - code);
      return values[at] == codeValues[at];
    });
  };
  std::vector<TensorType> operandTypes;
  for (std::size_t index = 0; valid && index < graph.ops.size(); ++index) {
    const std::vector<std::int64_t> &codes = plan.opDims[index];
    if (plan.validAtEveryBinding[index] ||
        std::any_of(earlier.begin(), earlier.end(),
                    [&](const std::vector<std::int64_t> &values) {
                      return seenAt(codes, values);
                    }))
      continue;
    const Op &op = graph.ops[index];
    operandTypes.clear();
    for (TensorId id : op.operands)
      operandTypes.push_back(graph.typeOf(id));
    valid = inferResultType(op.kind, operandTypes, op.attributes,
                            graph.typeOf(op.results[0]))
                .ok();
  }
  if (!valid)
    if (Status status = validate(graph); !status.ok())
      return status;
  plan.addValidated(std::move(codeValues));
  return Status::success();
}

} // namespace

BindingPlan::BindingPlan(std::shared_ptr<const Bundle> bundle)
    : symbolic(std::move(bundle)) {
  const Graph &graph = symbolic->graph;
  for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
    const std::vector<std::int64_t> &shape = graph.tensors[t].type.shape;
    if (std::any_of(shape.begin(), shape.end(), [&](std::int64_t dim) {
          return isDimCode(graph.dims, dim);
        }))
      symbolicTensors.push_back(TensorId(t));
  }
  DimTable interned = graph.dims;
  std::vector<TensorType> operandTypes;
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const Op &op = graph.ops[index];
    bool symbolicAttribute = false;
    opDims.push_back(opDimCodes(graph, op, symbolicAttribute));
    if (symbolicAttribute)
      attributeDimOps.push_back(std::uint32_t(index));
    bool everyBinding = false;
    if (comparesDimsOnly(op.kind) && !symbolicAttribute &&
        !opDims.back().empty() && op.results.size() == 1) {
      operandTypes.clear();
      for (TensorId id : op.operands)
        operandTypes.push_back(graph.typeOf(id));
      everyBinding = inferResultType(op.kind, operandTypes, op.attributes,
                                     graph.typeOf(op.results[0]), &interned)
                         .ok();
    }
    validAtEveryBinding.push_back(everyBinding);
  }
  // What runtimeDimValue finds by name: a symbol, else a sum among the
  // table's entries named by its text.
  const std::vector<std::string> &symbols = graph.dims.symbols;
  const std::vector<DimExpr> &exprs = graph.dims.exprs;
  std::vector<std::string> texts;
  for (const DimExpr &expr : exprs)
    texts.push_back(expr.terms().size() < 2 ? std::string() : expr.toString());
  for (const BundleKernel &kernel : symbolic->kernels) {
    std::vector<std::int64_t> &refs = runtimeDimRefs.emplace_back();
    for (const std::string &name : kernel.runtimeDims) {
      auto symbol = std::find(symbols.begin(), symbols.end(), name);
      auto text =
          std::find_if(texts.begin(), texts.end(), [&](const std::string &t) {
            return !t.empty() && t == name;
          });
      refs.push_back(
          symbol != symbols.end() ? std::int64_t(symbol - symbols.begin())
          : text != texts.end()   ? -1 - std::int64_t(text - texts.begin())
                                  : kNoDim);
    }
  }
  keptAcrossDims = slicesKeptAcrossDims(*symbolic);
}

std::vector<std::vector<std::int64_t>> BindingPlan::validatedBindings() const {
  std::lock_guard<std::mutex> lock(mutex);
  return validated;
}

void BindingPlan::addValidated(std::vector<std::int64_t> values) const {
  std::lock_guard<std::mutex> lock(mutex);
  if (std::find(validated.begin(), validated.end(), values) != validated.end())
    return;
  if (validated.size() >= kKeptValidations)
    validated.erase(validated.begin());
  validated.push_back(std::move(values));
}

Expected<Bundle> bindBundle(const Bundle &bundle, const DimBindings &values) {
  if (!bundle.isSymbolic()) {
    if (!values.empty())
      return Status::error("the bundle has no symbolic dims to bind");
    return bundle;
  }
  // A plan of this call alone (it does not own the bundle): every op is
  // validated.
  BindingPlan plan(
      std::shared_ptr<const Bundle>(std::shared_ptr<void>(), &bundle));
  return bindBundle(plan, values);
}

namespace {

/// bindBundle's last part: each kernel's dims array and iteration count,
/// the tensors' element counts where kernels read dims, and the arena
/// planned for the bound sizes.
Status bindKernelsAndArena(
    const BindingPlan &plan, const DimBindings &values, Bundle &bound,
    std::vector<std::optional<Expected<std::int64_t>>> &valueOf) {
  const Bundle &bundle = plan.bundle();
  const std::string prefix = "binding the bundle's dims: ";
  const std::vector<DimExpr> &exprs = bundle.graph.dims.exprs;
  Graph &graph = bound.graph;
  for (std::size_t k = 0; k < bound.kernels.size(); ++k) {
    BundleKernel &kernel = bound.kernels[k];
    kernel.dimValues.clear();
    for (std::size_t i = 0; i < kernel.runtimeDims.size(); ++i) {
      // runtimeDimValue, with the names looked up once in the plan.
      std::int64_t ref = plan.runtimeDimRefs[k][i];
      Expected<std::int64_t> value = Status::error("it is no dim of the graph");
      if (ref >= 0) {
        value = bound.boundDims.values[std::size_t(ref)];
      } else if (ref != BindingPlan::kNoDim) {
        std::optional<Expected<std::int64_t>> &known =
            valueOf[std::size_t(-1 - ref)];
        if (!known)
          known = exprs[std::size_t(-1 - ref)].evaluate(values);
        value = *known;
        if (value.ok() && *value < 0)
          value = Status::error("its value " + std::to_string(*value) +
                                " is no size");
      }
      if (!value.ok())
        return Status::error(prefix + kernel.name + " reads dim '" +
                             kernel.runtimeDims[i] + "': " + value.message());
      kernel.dimValues.push_back(*value);
    }
    // From the symbolic bundle's kernel: a reused binding has none left.
    const std::optional<DimExpr> &symbolicIterations =
        bundle.kernels[k].symbolicIterations;
    if (!symbolicIterations)
      continue;
    Expected<std::int64_t> iterations = symbolicIterations->evaluate(values);
    if (!iterations.ok())
      return Status::error(prefix + kernel.name + ": " + iterations.message());
    if (*iterations < 0)
      return Status::error(prefix + kernel.name + " would run " +
                           std::to_string(*iterations) + " iterations");
    kernel.launch.iterations = *iterations;
    kernel.symbolicIterations.reset();
    // A GPU kernel's grid: the blocks of its iterations (KernelAbi.h,
    // "Runtime dims").
    if (Target{kernel.target}.isCuda()) {
      kernel.launch.gridX = gpuGridBlocks(
          kernel.launch.iterations, kernel.launch.grain, kernel.launch.gridX);
      kernel.launch.grain = 1;
    }
  }

  // Kernels that read dims divide positions exactly only below 2^31
  // (KernelAbi.h, "Runtime dims").
  bool readsDims = std::any_of(
      bound.kernels.begin(), bound.kernels.end(),
      [](const BundleKernel &kernel) { return !kernel.runtimeDims.empty(); });
  for (size_t i = 0; readsDims && i < graph.tensors.size(); ++i)
    if (graph.tensors[i].type.numElements() >= kMaxRuntimeDimsElements)
      return Status::error(
          prefix + "tensor " + std::to_string(i) + " would hold " +
          std::to_string(graph.tensors[i].type.numElements()) +
          " elements; kernels that read the dims at run time take fewer "
          "than " +
          std::to_string(kMaxRuntimeDimsElements) +
          " (bind the dims before compiling for larger ones)");

  MemoryPlan &memory = bound.memoryPlan;
  // The bound slices that a binding of other dims keeps come first, those
  // of fixed size before the others, so that their offsets stay the same
  // from one binding to the next; what is written again follows.
  std::vector<ArenaRequest> requests;
  // From the symbolic bundle: a reused binding's plan has none left.
  for (const SymbolicSlice &slice : bundle.memoryPlan.symbolicSlices) {
    Expected<std::int64_t> bytes = slice.bytes.evaluate(values);
    if (!bytes.ok())
      return Status::error(prefix + "the arena slice of tensor " +
                           std::to_string(slice.tensor) + ": " +
                           bytes.message());
    if (*bytes < 0)
      return Status::error(prefix + "the arena slice of tensor " +
                           std::to_string(slice.tensor) + " would hold " +
                           std::to_string(*bytes) + " bytes");
    std::uint8_t order = (plan.keptAcrossDims[requests.size()] ? 0 : 2) +
                         (slice.bytes.isConstant() ? 0 : 1);
    requests.push_back({slice.tensor, std::uint64_t(*bytes), slice.firstUse,
                        slice.lastUse, slice.bound, order});
  }
  memory = planArena(requests);
  return Status::success();
}

} // namespace

namespace {

/// A value for a dim the graph does not have, or no size: bindBundle's
/// first refusals.
Status checkValues(const Bundle &bundle, const DimBindings &values) {
  const std::vector<std::string> &symbols = bundle.graph.dims.symbols;
  for (const auto &[name, value] : values) {
    if (std::find(symbols.begin(), symbols.end(), name) == symbols.end())
      return Status::error("binding the bundle's dims: a value is given for "
                           "dim '" +
                           name + "', which the graph does not have");
    if (value < 0)
      return Status::error("binding the bundle's dims: dim '" + name +
                           "' is bound to " + std::to_string(value) +
                           ", expected a size >= 0");
  }
  return Status::success();
}

/// bindBundle's work on `bound`, whose symbolic tensors' shapes and
/// attributeDimOps' attributes are the symbolic bundle's: binds them to
/// `values`, validates the bound graph, binds the kernels and the arena
/// and verifies the bundle. `fresh`: `bound` is a copy of the symbolic
/// bundle (its bound dims are recorded whole), else a binding of it whose
/// bound dims' table and axes are kept (they do not depend on the values).
Status bindInPlace(const BindingPlan &plan, const DimBindings &values,
                   Bundle &bound, bool fresh) {
  const Bundle &bundle = plan.bundle();
  // The types are bound in place (the bundle keeps its graph's numbering
  // and its iota and dim_value ops, which its kernels compute), then the
  // bound graph is validated as bindDims validates its own (a decoder's
  // step binds once per token: no graph is rebuilt for it).
  std::string prefix = "binding the bundle's dims: ";
  Graph &graph = bound.graph;
  const DimTable &dims = bundle.graph.dims;
  // What the dims are bound to, kept for verifyBundle.
  BoundDims &record = bound.boundDims;
  if (fresh)
    record.dims = dims;
  record.values.clear();
  for (const std::string &symbol : dims.symbols) {
    auto value = values.find(symbol);
    if (value == values.end())
      return Status::error(prefix + "dim '" + symbol + "' has no value");
    record.values.push_back(value->second);
  }
  Status failed = Status::success();
  // Each dim code evaluated once.
  const std::vector<DimExpr> &exprs = dims.exprs;
  std::vector<std::optional<Expected<std::int64_t>>> valueOf(exprs.size());
  auto bind = [&](std::int64_t &dim) {
    if (dim >= 0 || !dims.isValidDim(dim))
      return;
    std::optional<Expected<std::int64_t>> &known =
        valueOf[std::size_t(-1 - dim)];
    if (!known)
      known = exprs[std::size_t(-1 - dim)].evaluate(values);
    const Expected<std::int64_t> &value = *known;
    if (!value.ok() || *value < 0) {
      if (failed.ok())
        failed = Status::error(prefix + "dim " + dims.dimString(dim) +
                               " is not a possible size");
      return;
    }
    dim = *value;
  };
  for (TensorId t : plan.symbolicTensors) {
    std::vector<std::int64_t> &shape = graph.tensors[t].type.shape;
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      if (fresh && shape[axis] < 0 && dims.isValidDim(shape[axis]))
        record.axes.push_back({t, std::uint32_t(axis), shape[axis]});
      bind(shape[axis]);
    }
  }
  for (std::uint32_t index : plan.attributeDimOps) {
    Op &op = graph.ops[index];
    forEachAttributeDim(op.kind, op.attributes, bind);
  }
  if (!failed.ok())
    return failed;
  graph.dims = DimTable();
  // The value of each code (none where it was not evaluated: no type or
  // attribute has it).
  std::vector<std::int64_t> codeValues(exprs.size(), BindingPlan::kNoDim);
  for (std::size_t i = 0; i < exprs.size(); ++i)
    if (valueOf[i] && valueOf[i]->ok())
      codeValues[i] = **valueOf[i];
  if (Status valid = validateBound(plan, graph, std::move(codeValues));
      !valid.ok())
    return Status::error(prefix + "at these values, " + valid.message());
  if (Status status = bindKernelsAndArena(plan, values, bound, valueOf);
      !status.ok())
    return status;
  if (Status status = verifyBundle(bound); !status.ok())
    return Status::error(prefix + status.message());
  return Status::success();
}

} // namespace

Expected<Bundle> bindBundle(const BindingPlan &plan,
                            const DimBindings &values) {
  const Bundle &bundle = plan.bundle();
  if (!bundle.isSymbolic()) {
    if (!values.empty())
      return Status::error("the bundle has no symbolic dims to bind");
    return bundle;
  }
  if (Status status = checkValues(bundle, values); !status.ok())
    return status;
  Bundle bound = bundle;
  if (Status status = bindInPlace(plan, values, bound, /*fresh=*/true);
      !status.ok())
    return status;
  return bound;
}

Status rebindBundle(const BindingPlan &plan, const DimBindings &values,
                    Bundle &bound) {
  const Bundle &bundle = plan.bundle();
  const Graph &symbolic = bundle.graph;
  if (!bundle.isSymbolic())
    return Status::error("rebindBundle: the bundle has no symbolic dims");
  // What a binding of this bundle has (the rest is trusted: the caller
  // made `bound` with bindBundle(plan, ...) and kept it unchanged).
  if (bound.isSymbolic() ||
      bound.graph.tensors.size() != symbolic.tensors.size() ||
      bound.graph.ops.size() != symbolic.ops.size() ||
      bound.kernels.size() != bundle.kernels.size() ||
      bound.boundDims.values.size() != symbolic.dims.symbols.size() ||
      bound.boundDims.dims.exprs.size() != symbolic.dims.exprs.size() ||
      bound.boundDims.dims.symbols != symbolic.dims.symbols)
    return Status::error("rebindBundle: the bundle given is no binding of "
                         "the plan's bundle");
  if (Status status = checkValues(bundle, values); !status.ok())
    return status;
  // What the values decide, back to the symbolic bundle's.
  for (TensorId t : plan.symbolicTensors)
    bound.graph.tensors[t].type.shape = symbolic.tensors[t].type.shape;
  for (std::uint32_t index : plan.attributeDimOps)
    bound.graph.ops[index].attributes = symbolic.ops[index].attributes;
  return bindInPlace(plan, values, bound, /*fresh=*/false);
}

} // namespace fuse
