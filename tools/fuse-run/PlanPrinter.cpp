//===- PlanPrinter.cpp - fuse-run's --print-plan and --dot ----------------===//

#include "PlanPrinter.h"

#include "runtime/device/HostIsa.h"

#include "llvm/ADT/STLExtras.h"

#include <set>

namespace fuse {

namespace {

/// The bytes a kernel reads of a bound tensor of `bytes` bytes that no op of
/// it produces: the sum of the slices' results when the kernel's ops read it
/// through slices only (an embedding lookup reads rows of its table, not the
/// table), at most the whole tensor; else the whole tensor.
std::uint64_t bytesRead(const Graph &graph, const BundleKernel &k,
                        TensorId tensor, std::uint64_t bytes) {
  std::uint64_t sliced = 0;
  bool onlySliced = false;
  for (std::uint32_t index : k.ops) {
    const Op &op = graph.ops[index];
    if (!llvm::is_contained(op.operands, tensor))
      continue;
    if (op.kind != OpKind::Slice)
      return bytes;
    onlySliced = true;
    sliced += std::uint64_t(graph.typeOf(op.result()).byteSize());
  }
  return onlySliced ? std::min(sliced, bytes) : bytes;
}

/// Bytes a kernel reads (of bound tensors no op of it produces) and writes
/// (bound tensors it produces).
std::pair<std::uint64_t, std::uint64_t> kernelTraffic(const Bundle &bundle,
                                                      const BundleKernel &k) {
  std::set<TensorId> produced;
  for (std::uint32_t op : k.ops)
    for (TensorId result : bundle.graph.ops[op].results)
      produced.insert(result);
  std::uint64_t read = 0, written = 0;
  std::vector<std::uint64_t> bytes = bindingBytes(bundle, k);
  for (std::size_t i = 0; i < k.bindings.size(); ++i) {
    TensorId tensor = boundTensor(bundle, k.bindings[i]);
    if (produced.count(tensor))
      written += bytes[i];
    else
      read += bytesRead(bundle.graph, k, tensor, bytes[i]);
  }
  return {read, written};
}

/// A kernel compiled with --matmul-precision=bf16 (its target has
/// device::kAvx512Bf16Suffix): a weight's bf16 pack or a bf16 matmul.
bool inBf16(const BundleKernel &kernel) {
  return kernel.target.find(device::kAvx512Bf16Suffix) != std::string::npos;
}

/// A bf16 matmul kernel on AMX tiles (CompileOptions::amxTiles).
bool onAmxTiles(const BundleKernel &kernel) {
  return kernel.target.ends_with(device::kAmxBf16Suffix);
}

/// Whether matmul `op`, in a kernel compiled with --matmul-precision=bf16,
/// computes in bf16: the mode takes a matmul of f32 whose B is a weight (a
/// graph input read as it is) and whose M and K are not 0 (computesInBf16,
/// HostMatmulEmitter.cpp); the others stay f32. Its kernel's target alone
/// does not tell: a horizontal launch whose members are a bf16 and an f32
/// matmul has the bf16 suffix.
bool matmulInBf16(const Graph &graph, const Op &op) {
  const TensorType &a = graph.typeOf(op.operands[0]);
  const std::size_t rank = a.shape.size();
  if (rank < 2 || !graph.isInput(op.operands[1]))
    return false;
  const bool transposed = op.getFlag("transpose_a");
  const std::int64_t m = a.shape[rank - (transposed ? 1 : 2)];
  const std::int64_t k = a.shape[rank - (transposed ? 2 : 1)];
  auto f32 = [&](TensorId id) {
    return graph.typeOf(id).elementType == ElementType::F32;
  };
  // A symbolic dim (negative) is not 0.
  return f32(op.operands[0]) && f32(op.operands[1]) && f32(op.result()) &&
         m != 0 && k != 0;
}

/// The bundle's matmuls (each once, however many kernels hold it): how many
/// compute in bf16 and how many in f32.
std::pair<std::size_t, std::size_t> matmulPrecisions(const Bundle &bundle) {
  std::set<std::uint32_t> matmuls, inBf16Kernels;
  for (const BundleKernel &kernel : bundle.kernels)
    for (std::uint32_t op : kernel.ops)
      if (bundle.graph.ops[op].kind == OpKind::Matmul) {
        matmuls.insert(op);
        if (inBf16(kernel))
          inBf16Kernels.insert(op);
      }
  std::size_t bf16 = llvm::count_if(inBf16Kernels, [&](std::uint32_t op) {
    return matmulInBf16(bundle.graph, bundle.graph.ops[op]);
  });
  return {bf16, matmuls.size() - bf16};
}

} // namespace

std::string sharedCodeOf(const Bundle &bundle, const BundleKernel &kernel) {
  for (const BundleKernel &first : bundle.kernels)
    if (first.entry == kernel.entry)
      return &first == &kernel ? std::string() : first.name;
  return {};
}

void printPlanText(const Bundle &bundle, llvm::raw_ostream &os) {
  std::uint64_t totalRead = 0, totalWritten = 0;
  std::set<std::string> entries;
  for (const BundleKernel &kernel : bundle.kernels)
    entries.insert(kernel.entry);
  os << "plan: " << bundle.kernels.size() << " kernel"
     << (bundle.kernels.size() == 1 ? "" : "s") << " for "
     << bundle.graph.ops.size() << " ops, target " << bundle.target;
  // Identical kernels are compiled once.
  if (entries.size() < bundle.kernels.size())
    os << ", " << entries.size() << " distinct";
  // A run launches the others; these run when the inputs are bound.
  if (std::size_t once = std::count_if(
          bundle.kernels.begin(), bundle.kernels.end(),
          [](const BundleKernel &kernel) { return kernel.perBinding; }))
    os << ", " << once << " once per binding of the inputs";
  // --matmul-precision=bf16: which matmuls it made bf16 (B a weight).
  auto [bf16, f32] = matmulPrecisions(bundle);
  if (bf16) {
    os << ", matmuls: " << bf16 << " in bf16 (products of bf16, sums in f32";
    if (std::size_t amx = llvm::count_if(bundle.kernels, onAmxTiles))
      os << "; " << amx << " kernel" << (amx == 1 ? "" : "s")
         << " on AMX tiles";
    os << "), " << f32 << " in f32 (B not a weight)";
  }
  os << "\n";
  for (std::uint32_t index : bundle.launchOrder) {
    const BundleKernel &kernel = bundle.kernels[index];
    auto [read, written] = kernelTraffic(bundle, kernel);
    totalRead += read;
    totalWritten += written;
    os << "kernel " << index << " " << kernel.name << ": "
       << scheduleKindName(kernel.schedule) << ", " << kernel.ops.size()
       << " ops, reads " << read << " B, writes " << written << " B";
    if (std::string first = sharedCodeOf(bundle, kernel); !first.empty())
      os << ", the code of " << first;
    if (kernel.perBinding)
      os << ", once per binding of the inputs";
    if (inBf16(kernel))
      os << (kernel.perBinding    ? ", rounds B to bf16 pairs"
             : onAmxTiles(kernel) ? ", bf16 products on AMX tiles (tdpbf16ps), "
                                    "f32 sums"
                                  : ", bf16 products (vdpbf16ps), f32 sums");
    os << "\n  ops";
    for (std::uint32_t op : kernel.ops)
      os << " " << mnemonic(bundle.graph.ops[op].kind);
    os << "\n";
  }
  os << "total: reads " << totalRead << " B, writes " << totalWritten
     << " B, arena " << bundle.memoryPlan.peakBytes << " B";
  if (bundle.memoryPlan.boundBytes)
    os << " (of it " << bundle.memoryPlan.boundBytes
       << " B kept per binding of the inputs)";
  os << "\n";
}

namespace {

std::string dotEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

void printPlanDot(const Bundle &bundle, const std::string &title,
                  const std::vector<std::string> &inputNames,
                  const std::vector<std::string> &outputNames,
                  llvm::raw_ostream &os) {
  const Graph &graph = bundle.graph;
  std::map<TensorId, std::string> producer;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    producer[graph.inputs[i]] = "in" + std::to_string(i);
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    for (TensorId result : graph.ops[i].results)
      producer[result] = "op" + std::to_string(i);
  os << "digraph \"" << dotEscape(title) << "\" {\n"
     << "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    os << "  in" << i << " [shape=ellipse, label=\"" << dotEscape(inputNames[i])
       << "\\n"
       << graph.typeOf(graph.inputs[i]).toString() << "\"];\n";
  std::set<std::uint32_t> placed;
  for (std::uint32_t index : bundle.launchOrder) {
    const BundleKernel &kernel = bundle.kernels[index];
    os << "  subgraph cluster_k" << index << " {\n    label=\"kernel " << index
       << ": " << dotEscape(kernel.name) << " ("
       << scheduleKindName(kernel.schedule) << ")\";\n    style=rounded;\n";
    for (std::uint32_t op : kernel.ops) {
      placed.insert(op);
      os << "    op" << op << " [label=\"" << mnemonic(graph.ops[op].kind)
         << "\\n"
         << graph.typeOf(graph.ops[op].result()).toString() << "\"];\n";
    }
    os << "  }\n";
  }
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    if (!placed.count(std::uint32_t(i)))
      os << "  op" << i << " [label=\"" << mnemonic(graph.ops[i].kind)
         << "\"];\n";
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    for (TensorId operand : graph.ops[i].operands)
      os << "  " << producer[operand] << " -> op" << i << ";\n";
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    os << "  out" << i << " [shape=ellipse, label=\""
       << dotEscape(outputNames[i]) << "\"];\n  "
       << producer[graph.outputs[i].tensor] << " -> out" << i << ";\n";
  os << "}\n";
}

} // namespace fuse
