//===- InPlace.cpp - Outputs written over their inputs --------------------===//

#include "runtime/engine/InPlace.h"

#include <algorithm>

namespace fuse::engine {

namespace {

/// Whether every op of `graph` is elementwise over operands of its result's
/// shape (unary, binary, compare, select, cast; constants): a kernel of
/// such a graph reads each operand at exactly the index it writes.
bool isSameShapeElementwise(const Graph &graph) {
  for (const Op &op : graph.ops) {
    switch (op.kind) {
#define FUSE_UNARY_OP(Name, mnemonic, TypeRule) case OpKind::Name:
#define FUSE_BINARY_OP(Name, mnemonic, TypeRule) case OpKind::Name:
#include "runtime/ir/Ops.def"
    case OpKind::Compare:
    case OpKind::Select:
    case OpKind::Cast:
    case OpKind::Constant:
      break;
    default:
      return false;
    }
    const std::vector<std::int64_t> &shape = graph.typeOf(op.result()).shape;
    for (TensorId operand : op.operands)
      if (graph.typeOf(operand).shape != shape)
        return false;
  }
  return true;
}

} // namespace

std::vector<std::optional<std::uint32_t>>
planInPlace(const Bundle &bundle, const std::vector<bool> &exclusive) {
  std::vector<std::optional<std::uint32_t>> inPlace(bundle.outputs.size());
  if (!bundle.aliases.empty() || !isSameShapeElementwise(bundle.graph))
    return inPlace;
  constexpr std::size_t kNone = ~std::size_t(0), kMany = kNone - 1;
  auto note = [&](std::size_t &slot, std::size_t kernel) {
    if (slot == kNone)
      slot = kernel;
    else if (slot != kernel)
      slot = kMany;
  };
  std::vector<std::size_t> inputKernel(bundle.inputs.size(), kNone);
  std::vector<std::size_t> outputKernel(bundle.outputs.size(), kNone);
  for (std::size_t k = 0; k < bundle.kernels.size(); ++k)
    for (const KernelBinding &binding : bundle.kernels[k].bindings) {
      if (binding.kind == BindingKind::GraphInput &&
          binding.index < inputKernel.size())
        note(inputKernel[binding.index], k);
      else if (binding.kind == BindingKind::GraphOutput &&
               binding.index < outputKernel.size())
        note(outputKernel[binding.index], k);
    }
  std::vector<bool> taken(bundle.inputs.size(), false);
  for (std::size_t o = 0; o < bundle.outputs.size(); ++o) {
    TensorId output = bundle.outputs[o];
    std::size_t k = outputKernel[o];
    if (k == kNone || k == kMany ||
        bundle.kernels[k].schedule != ScheduleKind::Pointwise ||
        std::find(bundle.inputs.begin(), bundle.inputs.end(), output) !=
            bundle.inputs.end())
      continue;
    for (std::size_t i = 0; i < bundle.inputs.size(); ++i) {
      if (taken[i] || !exclusive[i] || inputKernel[i] != k ||
          !(bundle.graph.typeOf(bundle.inputs[i]) ==
            bundle.graph.typeOf(output)))
        continue;
      inPlace[o] = std::uint32_t(i);
      taken[i] = true;
      break;
    }
  }
  return inPlace;
}

} // namespace fuse::engine
