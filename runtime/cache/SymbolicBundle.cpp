//===- SymbolicBundle.cpp - Binding a symbolic bundle's dims --------------===//

#include "runtime/cache/SymbolicBundle.h"

#include "runtime/cache/ArenaPlanner.h"
#include "runtime/device/KernelAbi.h"
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

Expected<DimBindings>
dimsFromInputShapes(const Graph &graph,
                    std::span<const std::vector<std::int64_t>> shapes,
                    std::span<const std::string> names) {
  if (shapes.size() != graph.inputs.size())
    return Status::error(
        "the graph has " + std::to_string(graph.inputs.size()) +
        " inputs, shapes are given for " + std::to_string(shapes.size()));
  DimBindings values;
  // Where each symbol's value was read, for the message of a disagreement.
  std::map<std::string, std::string> readFrom;
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
        readFrom[*symbol] = dimWhere(i, d);
        continue;
      }
      if (it->second != given)
        return Status::error("the inputs disagree about dim '" + *symbol +
                             "': " + readFrom[*symbol] + " is " +
                             std::to_string(it->second) + ", " +
                             dimWhere(i, d) + " is " + std::to_string(given));
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

Expected<Bundle> bindBundle(const Bundle &bundle, const DimBindings &values) {
  if (!bundle.isSymbolic()) {
    if (!values.empty())
      return Status::error("the bundle has no symbolic dims to bind");
    return bundle;
  }
  // The types are bound in place (the bundle keeps its graph's numbering
  // and its iota and dim_value ops, which its kernels compute), then the
  // bound graph is validated as bindDims validates its own (a decoder's
  // step binds once per token: no graph is rebuilt for it).
  std::string prefix = "binding the bundle's dims: ";
  const std::vector<std::string> &symbols = bundle.graph.dims.symbols;
  for (const auto &[name, value] : values) {
    if (std::find(symbols.begin(), symbols.end(), name) == symbols.end())
      return Status::error(prefix + "a value is given for dim '" + name +
                           "', which the graph does not have");
    if (value < 0)
      return Status::error(prefix + "dim '" + name + "' is bound to " +
                           std::to_string(value) + ", expected a size >= 0");
  }
  Bundle bound = bundle;
  Graph &graph = bound.graph;
  // What the dims are bound to, kept for verifyBundle.
  BoundDims &record = bound.boundDims;
  record.dims = bundle.graph.dims;
  for (const std::string &symbol : record.dims.symbols) {
    auto value = values.find(symbol);
    if (value == values.end())
      return Status::error(prefix + "dim '" + symbol + "' has no value");
    record.values.push_back(value->second);
  }
  Status failed = Status::success();
  // Each dim code evaluated once.
  const std::vector<DimExpr> &exprs = bundle.graph.dims.exprs;
  std::vector<std::optional<Expected<std::int64_t>>> valueOf(exprs.size());
  auto bind = [&](std::int64_t &dim) {
    if (dim >= 0 || !bundle.graph.dims.isValidDim(dim))
      return;
    std::optional<Expected<std::int64_t>> &known =
        valueOf[std::size_t(-1 - dim)];
    if (!known)
      known = exprs[std::size_t(-1 - dim)].evaluate(values);
    const Expected<std::int64_t> &value = *known;
    if (!value.ok() || *value < 0) {
      if (failed.ok())
        failed =
            Status::error(prefix + "dim " + bundle.graph.dims.dimString(dim) +
                          " is not a possible size");
      return;
    }
    dim = *value;
  };
  for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
    std::vector<std::int64_t> &shape = graph.tensors[t].type.shape;
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      if (shape[axis] < 0 && record.dims.isValidDim(shape[axis]))
        record.axes.push_back({TensorId(t), std::uint32_t(axis), shape[axis]});
      bind(shape[axis]);
    }
  }
  for (Op &op : graph.ops)
    forEachAttributeDim(op.kind, op.attributes, bind);
  if (!failed.ok())
    return failed;
  graph.dims = DimTable();
  if (Status valid = validate(graph); !valid.ok())
    return Status::error(prefix + "at these values, " + valid.message());

  // Each dim the kernels read, evaluated once.
  std::map<std::string, std::int64_t, std::less<>> dimValues;
  for (BundleKernel &kernel : bound.kernels) {
    for (const std::string &dim : kernel.runtimeDims) {
      auto known = dimValues.find(dim);
      if (known == dimValues.end()) {
        Expected<std::int64_t> value =
            runtimeDimValue(bundle.graph.dims, dim, values);
        if (!value.ok())
          return Status::error(prefix + kernel.name + " reads dim '" + dim +
                               "': " + value.message());
        known = dimValues.emplace(dim, *value).first;
      }
      kernel.dimValues.push_back(known->second);
    }
    if (!kernel.symbolicIterations)
      continue;
    Expected<std::int64_t> iterations =
        kernel.symbolicIterations->evaluate(values);
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

  MemoryPlan &plan = bound.memoryPlan;
  // The bound slices that a binding of other dims keeps come first, those
  // of fixed size before the others, so that their offsets stay the same
  // from one binding to the next; what is written again follows.
  std::vector<bool> keptAcrossDims = slicesKeptAcrossDims(bundle);
  std::vector<ArenaRequest> requests;
  for (const SymbolicSlice &slice : plan.symbolicSlices) {
    Expected<std::int64_t> bytes = slice.bytes.evaluate(values);
    if (!bytes.ok())
      return Status::error(prefix + "the arena slice of tensor " +
                           std::to_string(slice.tensor) + ": " +
                           bytes.message());
    if (*bytes < 0)
      return Status::error(prefix + "the arena slice of tensor " +
                           std::to_string(slice.tensor) + " would hold " +
                           std::to_string(*bytes) + " bytes");
    std::uint8_t order = (keptAcrossDims[requests.size()] ? 0 : 2) +
                         (slice.bytes.isConstant() ? 0 : 1);
    requests.push_back({slice.tensor, std::uint64_t(*bytes), slice.firstUse,
                        slice.lastUse, slice.bound, order});
  }
  plan = planArena(requests);
  if (Status status = verifyBundle(bound); !status.ok())
    return Status::error(prefix + status.message());
  return bound;
}

} // namespace fuse
