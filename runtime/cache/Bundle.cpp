//===- Bundle.cpp - The compiled form of one graph ------------------------===//

#include "runtime/cache/Bundle.h"
#include "runtime/cache/SymbolicBundle.h"

#include "runtime/Version.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace fuse {

Expected<Target> Target::parse(std::string_view name) {
  if (name == "host-x86-64-v3" || name == "host-x86-64-v4")
    return Target{std::string(name)};
  if (name.starts_with("sm_") && name.size() > 3 &&
      std::all_of(name.begin() + 3, name.end(),
                  [](char c) { return std::isdigit((unsigned char)c); }))
    return Target{std::string(name)};
  return Status::error("unknown target '" + std::string(name) +
                       "'; expected sm_<arch> (e.g. sm_90), host-x86-64-v3 "
                       "or host-x86-64-v4");
}

std::string_view payloadKindName(PayloadKind kind) {
  switch (kind) {
  case PayloadKind::None:
    return "none";
  case PayloadKind::PtxText:
    return "ptx";
  case PayloadKind::Cubin:
    return "cubin";
  case PayloadKind::HostSharedObject:
    return "host-shared-object";
  }
  return "unknown";
}

std::string_view bindingKindName(BindingKind kind) {
  switch (kind) {
  case BindingKind::GraphInput:
    return "input";
  case BindingKind::GraphOutput:
    return "output";
  case BindingKind::Intermediate:
    return "intermediate";
  }
  return "unknown";
}

std::string_view scheduleKindName(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::Pointwise:
    return "pointwise";
  case ScheduleKind::RowReduction:
    return "row-reduction";
  case ScheduleKind::ColumnReduction:
    return "column-reduction";
  case ScheduleKind::FullReduction:
    return "full-reduction";
  case ScheduleKind::Matmul:
    return "matmul";
  case ScheduleKind::WindowReduction:
    return "window-reduction";
  case ScheduleKind::Scatter:
    return "scatter";
  case ScheduleKind::Attention:
    return "attention";
  case ScheduleKind::Horizontal:
    return "horizontal";
  case ScheduleKind::ReferenceOnly:
    return "reference-only";
  }
  return "unknown";
}

TensorId boundTensor(const Bundle &bundle, const KernelBinding &binding) {
  switch (binding.kind) {
  case BindingKind::GraphInput:
    return binding.index < bundle.inputs.size() ? bundle.inputs[binding.index]
                                                : kInvalidTensor;
  case BindingKind::GraphOutput:
    return binding.index < bundle.outputs.size() ? bundle.outputs[binding.index]
                                                 : kInvalidTensor;
  case BindingKind::Intermediate:
    return binding.index < bundle.memoryPlan.intermediates.size()
               ? bundle.memoryPlan.intermediates[binding.index].tensor
               : kInvalidTensor;
  }
  return kInvalidTensor;
}

std::vector<uint64_t> bindingBytes(const Bundle &bundle,
                                   const BundleKernel &kernel) {
  std::vector<uint64_t> bytes;
  for (const KernelBinding &binding : kernel.bindings)
    bytes.push_back(
        uint64_t(bundle.graph.typeOf(boundTensor(bundle, binding)).byteSize()));
  return bytes;
}

static std::string kernelWhere(const Bundle &bundle, std::size_t k) {
  return "kernel " + std::to_string(k) + " (" + bundle.kernels[k].name + ")";
}

static Status bundleError(const std::string &message) {
  return Status::error("invalid bundle: " + message);
}

/// A per-binding kernel has a bound part of the arena to write and names the
/// graph inputs it reads, none of which a run writes in place. (Its
/// bindings may name other buffers of its fusion, graph outputs among them,
/// that it never reads or writes: a binding does not say which.)
static Status verifyPerBinding(const Bundle &bundle, const BundleKernel &kernel,
                               std::size_t k) {
  // A symbolic bundle's arena is planned when it is bound: its slices say
  // which are in the bound part.
  const std::vector<SymbolicSlice> &slices = bundle.memoryPlan.symbolicSlices;
  bool boundPart = bundle.isSymbolic()
                       ? std::any_of(slices.begin(), slices.end(),
                                     [](const auto &s) { return s.bound; })
                       : bundle.memoryPlan.boundBytes != 0;
  if (!boundPart)
    return bundleError(kernelWhere(bundle, k) +
                       " runs once per binding, but the arena has no "
                       "bound part for what it writes");
  // One that reads no graph input computes from the dims and constants
  // alone (an iota of a symbolic dim): the same for every binding of a
  // bound bundle's inputs.
  bool readsGraphInput =
      std::any_of(kernel.bindings.begin(), kernel.bindings.end(),
                  [](const KernelBinding &binding) {
                    return binding.kind == BindingKind::GraphInput;
                  });
  if (kernel.bindingInputs.empty() && readsGraphInput)
    return bundleError(kernelWhere(bundle, k) +
                       " runs once per binding but names no input "
                       "it reads");
  for (std::uint32_t input : kernel.bindingInputs) {
    if (input >= bundle.inputs.size())
      return bundleError(kernelWhere(bundle, k) + " reads input " +
                         std::to_string(input) + ", which is out of range");
    for (const OutputAlias &alias : bundle.aliases)
      if (alias.input == input)
        return bundleError(
            kernelWhere(bundle, k) + " runs once per binding but reads input " +
            std::to_string(input) + ", which a run writes in place");
  }
  return Status::success();
}

/// No slice lies partly in the arena's bound part: what a run writes never
/// reaches what the per-binding kernels keep.
static Status verifyBoundPart(const MemoryPlan &plan) {
  std::uint64_t end = plan.boundBytes;
  for (const ArenaSlice &slice : plan.intermediates)
    if (slice.offset < end && slice.offset + slice.bytes > end)
      return bundleError(
          "the arena slice of tensor " + std::to_string(slice.tensor) +
          " crosses out of the bound part at byte " + std::to_string(end));
  return Status::success();
}

/// Whether every symbol of `expr` is one of `graph`'s.
static bool namesGraphSymbols(const Graph &graph, const DimExpr &expr) {
  for (const std::string &symbol : expr.symbols())
    if (std::find(graph.dims.symbols.begin(), graph.dims.symbols.end(),
                  symbol) == graph.dims.symbols.end())
      return false;
  return true;
}

/// A kernel's dims (KernelAbi.h, "Runtime dims"): a host kernel's dims
/// array or a GPU kernel's dims parameters; in a symbolic bundle each entry
/// a symbol of the graph, once, and no values yet; in a bound one a value
/// >= 0 per entry.
static Status verifyRuntimeDims(const Bundle &bundle,
                                const BundleKernel &kernel, std::size_t k) {
  if (kernel.runtimeDims.empty() && kernel.dimValues.empty())
    return Status::success();
  if (kernel.payloadKind == PayloadKind::None)
    return bundleError(kernelWhere(bundle, k) +
                       " reads dims at run time, but only host "
                       "and GPU kernels take dims");
  for (size_t i = 0; i < kernel.runtimeDims.size(); ++i)
    if (std::find(kernel.runtimeDims.begin(), kernel.runtimeDims.begin() + i,
                  kernel.runtimeDims[i]) != kernel.runtimeDims.begin() + i)
      return bundleError(kernelWhere(bundle, k) + " lists dim '" +
                         kernel.runtimeDims[i] + "' twice in its dims array");
  if (bundle.isSymbolic()) {
    // A symbol, or a sum of terms among the graph's dims named by its text.
    const std::vector<std::string> &symbols = bundle.graph.dims.symbols;
    const std::vector<DimExpr> &exprs = bundle.graph.dims.exprs;
    for (const std::string &dim : kernel.runtimeDims)
      if (std::find(symbols.begin(), symbols.end(), dim) == symbols.end() &&
          std::none_of(exprs.begin(), exprs.end(), [&](const DimExpr &expr) {
            return expr.terms().size() > 1 && expr.toString() == dim;
          }))
        return bundleError(kernelWhere(bundle, k) + " reads dim '" + dim +
                           "', which is no dim of the graph");
    if (!kernel.dimValues.empty())
      return bundleError(kernelWhere(bundle, k) +
                         " has dim values before its dims are bound");
    return Status::success();
  }
  if (kernel.dimValues.size() != kernel.runtimeDims.size())
    return bundleError(kernelWhere(bundle, k) + " has " +
                       std::to_string(kernel.dimValues.size()) +
                       " dim values for " +
                       std::to_string(kernel.runtimeDims.size()) + " dims");
  for (std::int64_t value : kernel.dimValues)
    if (value < 0)
      return bundleError(kernelWhere(bundle, k) + " has the dim value " +
                         std::to_string(value) + ", not a size");
  return Status::success();
}

DimBindings BoundDims::bindings() const {
  DimBindings bindings;
  for (std::size_t i = 0; i < dims.symbols.size() && i < values.size(); ++i)
    bindings[dims.symbols[i]] = values[i];
  return bindings;
}

/// Every recorded axis of a bound bundle's graph (BoundDims::axes) is the
/// value of its dim.
static Status verifyBoundAxes(const Bundle &bundle, const DimBindings &values) {
  const Graph &graph = bundle.graph;
  const BoundDims &bound = bundle.boundDims;
  // Each dim code evaluated once (a graph has thousands of bound axes and a
  // few dozen dims).
  std::vector<std::optional<Expected<std::int64_t>>> valueOf(
      bound.dims.exprs.size());
  for (const BoundAxis &axis : bound.axes) {
    // Made only for a message: a decoder's step verifies thousands of axes.
    auto where = [&] {
      return "tensor " + std::to_string(axis.tensor) + "'s axis " +
             std::to_string(axis.axis);
    };
    if (!graph.isValidId(axis.tensor) ||
        axis.axis >= graph.typeOf(axis.tensor).shape.size())
      return bundleError("its bound dims name " + where() +
                         ", which the graph does not have");
    if (axis.dim >= 0 || !bound.dims.isValidDim(axis.dim))
      return bundleError("its bound dims give " + where() + " the dim code " +
                         std::to_string(axis.dim) +
                         ", which their dim table does not have");
    std::int64_t size = graph.typeOf(axis.tensor).shape[axis.axis];
    std::optional<Expected<std::int64_t>> &known =
        valueOf[std::size_t(-1 - axis.dim)];
    if (!known)
      known = bound.dims.expr(axis.dim).evaluate(values);
    const Expected<std::int64_t> &value = *known;
    if (!value.ok() || *value != size)
      return bundleError(
          where() + " is " + std::to_string(size) + ", but its dim " +
          bound.dims.dimString(axis.dim) + " is " +
          (value.ok() ? std::to_string(*value) : value.message()) +
          " for the bound dims");
  }
  return Status::success();
}

/// A bound bundle's dims (Bundle::boundDims): a value >= 0 per symbol, the
/// graph's recorded axes those values, and every kernel's dims array
/// (BundleKernel::dimValues) the same values: kernels that read one dim
/// read one value, the one the bundle is bound to, so that a kernel never
/// reads past the buffers the graph's shapes size. A symbolic bundle has
/// none yet.
static Status verifyBoundDims(const Bundle &bundle) {
  const BoundDims &bound = bundle.boundDims;
  if (bundle.isSymbolic()) {
    if (!bound.empty())
      return bundleError("its graph is symbolic but it records values its "
                         "dims are bound to");
    return Status::success();
  }
  // Each dim a kernel reads: its value and the first kernel that reads it.
  std::map<std::string, std::pair<std::int64_t, std::size_t>> read;
  for (std::size_t k = 0; k < bundle.kernels.size(); ++k) {
    const BundleKernel &kernel = bundle.kernels[k];
    for (std::size_t i = 0; i < kernel.runtimeDims.size(); ++i) {
      std::int64_t value = kernel.dimValues[i];
      auto [it, added] = read.try_emplace(kernel.runtimeDims[i], value, k);
      if (!added && it->second.first != value)
        return bundleError(kernelWhere(bundle, k) + " reads dim '" + it->first +
                           "' as " + std::to_string(value) + ", " +
                           kernelWhere(bundle, it->second.second) + " as " +
                           std::to_string(it->second.first));
    }
  }
  if (bound.values.size() != bound.dims.symbols.size())
    return bundleError("its bound dims have " +
                       std::to_string(bound.values.size()) + " values for " +
                       std::to_string(bound.dims.symbols.size()) + " dims");
  for (std::size_t i = 0; i < bound.values.size(); ++i)
    if (bound.values[i] < 0)
      return bundleError("its dim '" + bound.dims.symbols[i] +
                         "' is bound to " + std::to_string(bound.values[i]) +
                         ", not a size");
  DimBindings values = bound.bindings();
  for (const auto &[dim, first] : read) {
    // A symbol's value, or a sum's (past_sequence+sequence) at them.
    Expected<std::int64_t> value = runtimeDimValue(bound.dims, dim, values);
    if (!value.ok())
      return bundleError(kernelWhere(bundle, first.second) + " reads dim '" +
                         dim + "', which the bundle has no bound value of");
    if (*value != first.first)
      return bundleError(kernelWhere(bundle, first.second) + " reads dim '" +
                         dim + "' as " + std::to_string(first.first) +
                         ", but the bundle is bound to " +
                         std::to_string(*value));
  }
  return verifyBoundAxes(bundle, values);
}

/// A symbolic bundle's memory plan: one symbolic slice per intermediate, of
/// a valid tensor, a size >= 0 over the graph's symbols, used by kernels of
/// the launch order; the static plan empty until the dims are bound.
static Status verifySymbolicPlan(const Bundle &bundle) {
  const Graph &graph = bundle.graph;
  const MemoryPlan &plan = bundle.memoryPlan;
  if (!bundle.isSymbolic()) {
    if (!plan.symbolicSlices.empty())
      return bundleError("its graph is static but its memory plan has "
                         "symbolic slices");
    return Status::success();
  }
  for (const DimExpr &expr : graph.dims.exprs)
    if (expr.isConstant() || !namesGraphSymbols(graph, expr))
      return bundleError("its dim table holds " + expr.toString() +
                         ", not an expression over its symbols");
  for (const Tensor &tensor : graph.tensors)
    for (std::int64_t dim : tensor.type.shape)
      if (!graph.dims.isValidDim(dim))
        return bundleError("a tensor has the dim code " + std::to_string(dim) +
                           ", which its dim table does not have");
  if (plan.symbolicSlices.size() != plan.intermediates.size())
    return bundleError(
        "its memory plan has " + std::to_string(plan.intermediates.size()) +
        " intermediates but " + std::to_string(plan.symbolicSlices.size()) +
        " symbolic slices");
  if (plan.peakBytes != 0 || plan.boundBytes != 0)
    return bundleError("its graph is symbolic but its arena has a size");
  for (size_t i = 0; i < plan.symbolicSlices.size(); ++i) {
    const SymbolicSlice &slice = plan.symbolicSlices[i];
    std::string where = "symbolic slice " + std::to_string(i);
    if (plan.intermediates[i] != ArenaSlice{slice.tensor, 0, 0})
      return bundleError(where + " differs from its intermediate");
    if (!graph.isValidId(slice.tensor))
      return bundleError(where + " names tensor " +
                         std::to_string(slice.tensor) +
                         ", which the graph does not have");
    if (!slice.bytes.isNonNegative() || !namesGraphSymbols(graph, slice.bytes))
      return bundleError(where + " has the size " + slice.bytes.toString() +
                         ", not a size over the graph's dims");
    if (slice.firstUse > slice.lastUse ||
        slice.lastUse >= bundle.launchOrder.size())
      return bundleError(where + " is used from launch " +
                         std::to_string(slice.firstUse) + " to " +
                         std::to_string(slice.lastUse) + " of " +
                         std::to_string(bundle.launchOrder.size()));
  }
  return Status::success();
}

/// Whether the sizes of `a` and `b` are equal for every value of the dims.
static bool sameByteSize(const Graph &graph, const TensorType &a,
                         const TensorType &b) {
  if (!graph.isSymbolic())
    return a.byteSize() == b.byteSize();
  Expected<DimExpr> x = byteSizeExpr(graph, a), y = byteSizeExpr(graph, b);
  return x.ok() && y.ok() && *x == *y;
}

Status verifyBundle(const Bundle &bundle) {
  const Graph &graph = bundle.graph;
  if (Status status = verifySymbolicPlan(bundle); !status.ok())
    return status;
  if (bundle.inputs != graph.inputs)
    return bundleError("its inputs differ from the graph's inputs");
  if (bundle.outputs.size() != graph.outputs.size())
    return bundleError("it has " + std::to_string(bundle.outputs.size()) +
                       " outputs, the graph " +
                       std::to_string(graph.outputs.size()));
  for (size_t i = 0; i < bundle.outputs.size(); ++i)
    if (bundle.outputs[i] != graph.outputs[i].tensor)
      return bundleError("output " + std::to_string(i) +
                         " differs from the graph's");
  for (const ArenaSlice &slice : bundle.memoryPlan.intermediates) {
    if (!graph.isValidId(slice.tensor))
      return bundleError("an arena slice names tensor " +
                         std::to_string(slice.tensor) +
                         ", which the graph does not have");
    if (bundle.isSymbolic())
      continue;
    if (slice.bytes < uint64_t(graph.typeOf(slice.tensor).byteSize()))
      return bundleError("the arena slice of tensor " +
                         std::to_string(slice.tensor) + " holds " +
                         std::to_string(slice.bytes) + " bytes, it needs " +
                         std::to_string(graph.typeOf(slice.tensor).byteSize()));
    if (slice.offset > bundle.memoryPlan.peakBytes ||
        slice.bytes > bundle.memoryPlan.peakBytes - slice.offset)
      return bundleError(
          "the arena slice of tensor " + std::to_string(slice.tensor) +
          " ends past the arena's " +
          std::to_string(bundle.memoryPlan.peakBytes) + " bytes");
  }
  if (bundle.memoryPlan.boundBytes > bundle.memoryPlan.peakBytes)
    return bundleError("its bound part of " +
                       std::to_string(bundle.memoryPlan.boundBytes) +
                       " bytes is larger than the arena's " +
                       std::to_string(bundle.memoryPlan.peakBytes));
  if (Status status = verifyBoundPart(bundle.memoryPlan); !status.ok())
    return status;
  for (size_t k = 0; k < bundle.kernels.size(); ++k) {
    const BundleKernel &kernel = bundle.kernels[k];
    // Made only for a message: a decoder verifies its bundle per token.
    auto where = [&] { return kernelWhere(bundle, k); };
    for (const KernelBinding &binding : kernel.bindings)
      if (boundTensor(bundle, binding) == kInvalidTensor)
        return bundleError(where() + " binds " + std::to_string(binding.index) +
                           ", which is out of range");
    if (kernel.perBinding) {
      if (Status status = verifyPerBinding(bundle, kernel, k); !status.ok())
        return status;
    } else if (!kernel.bindingInputs.empty()) {
      return bundleError(where() + " names inputs it reads once per binding, "
                                   "but runs on every run");
    } else if (kernel.dimsDependent) {
      return bundleError(where() + " is marked as depending on the dims once "
                                   "per binding, but runs on every run");
    }
    for (size_t i = 0; i < kernel.ops.size(); ++i) {
      if (kernel.ops[i] >= graph.ops.size())
        return bundleError(where() + " covers op " +
                           std::to_string(kernel.ops[i]) + "; the graph has " +
                           std::to_string(graph.ops.size()));
      if (i && kernel.ops[i] <= kernel.ops[i - 1])
        return bundleError(where() + " lists its ops out of graph order");
    }
    for (std::uint32_t op : kernel.checkedOps)
      if (op >= graph.ops.size() || (graph.ops[op].kind != OpKind::Gather &&
                                     graph.ops[op].kind != OpKind::Scatter))
        return bundleError(where() + " reports the checks of op " +
                           std::to_string(op) +
                           ", which is not a gather or a scatter");
    if (kernel.symbolicIterations &&
        (!bundle.isSymbolic() || !kernel.symbolicIterations->isNonNegative() ||
         !namesGraphSymbols(graph, *kernel.symbolicIterations)))
      return bundleError(where() + " has the iteration count " +
                         kernel.symbolicIterations->toString() +
                         ", not a count over the graph's dims");
    if (Status status = verifyRuntimeDims(bundle, kernel, k); !status.ok())
      return status;
    if (kernel.payloadKind == PayloadKind::None &&
        kernel.schedule != ScheduleKind::ReferenceOnly)
      return bundleError(where() + " has no payload");
  }
  if (Status status = verifyBoundDims(bundle); !status.ok())
    return status;
  for (uint32_t index : bundle.launchOrder)
    if (index >= bundle.kernels.size())
      return bundleError("the launch order names kernel " +
                         std::to_string(index) + "; there are " +
                         std::to_string(bundle.kernels.size()));
  for (const OutputAlias &alias : bundle.aliases) {
    if (alias.output >= bundle.outputs.size() ||
        alias.input >= bundle.inputs.size())
      return bundleError("an alias refers to a missing input or output");
    if (!sameByteSize(graph, graph.typeOf(bundle.outputs[alias.output]),
                      graph.typeOf(bundle.inputs[alias.input])))
      return bundleError("output " + std::to_string(alias.output) +
                         " aliases input " + std::to_string(alias.input) +
                         " of another size");
  }
  return Status::success();
}

Bundle makeReferenceBundle(const Graph &graph) {
  Bundle bundle;
  bundle.graph = graph;
  bundle.target = "reference";
  bundle.versionId = versionId();
  bundle.inputs = graph.inputs;
  for (const GraphOutput &output : graph.outputs)
    bundle.outputs.push_back(output.tensor);

  BundleKernel kernel;
  kernel.name = "reference";
  kernel.target = "reference";
  kernel.schedule = ScheduleKind::ReferenceOnly;
  for (uint32_t i = 0; i < bundle.inputs.size(); ++i)
    kernel.bindings.push_back({BindingKind::GraphInput, i});
  for (uint32_t i = 0; i < bundle.outputs.size(); ++i)
    kernel.bindings.push_back({BindingKind::GraphOutput, i});
  for (uint32_t i = 0; i < graph.ops.size(); ++i)
    kernel.ops.push_back(i);
  bundle.kernels.push_back(std::move(kernel));
  bundle.launchOrder.push_back(0);
  return bundle;
}

} // namespace fuse
