//===- KernelCompiler.cpp - The one compiler driver -----------------------===//

#include "compiler/common/KernelCompiler.h"

#include "compiler/common/AffineIndexMap.h"
#include "compiler/common/FusionFrontEnd.h"
#include "compiler/common/GraphTranslation.h"
#include "compiler/common/TargetBackend.h"
#include "dialect/FuseDims.h"
#include "dialect/FuseOps.h"
#include "passes/Passes.h"
#include "runtime/cache/ArenaPlanner.h"
#include "runtime/cache/SymbolicBundle.h"
#include "runtime/ir/GraphHash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace fd = mlir::fuse;

namespace fuse {

namespace {

using Clock = std::chrono::steady_clock;

using namespace frontend;

/// How the messages that refuse a symbolic graph end: what the caller does.
constexpr char kBindDimsFirst[] =
    "bind the dims first (bindDims, fuse-run --dim)";

} // namespace

struct KernelCompiler::Impl {
  explicit Impl(std::unique_ptr<TargetBackend> backend)
      : backend(std::move(backend)) {
    this->backend->initialize(context);
    context.disableMultithreading();
  }

  Status checkTarget(const Target &target,
                     const CompileOptions &options) const {
    if (options.amxTiles && options.matmulPrecision != MatmulPrecision::Bf16)
      return Status::error("AMX tiles (--amx) compute bf16 matmuls only: "
                           "they need --matmul-precision=bf16");
    if (backend->compiles(target))
      return backend->checkOptions(target, options);
    return Status::error("the " + std::string(backend->name()) +
                         " compiler cannot compile for target '" + target.name +
                         "'");
  }

  Expected<Compilation> compileModule(mlir::ModuleOp module, const Graph &graph,
                                      bool alreadyFused, const Target &target,
                                      const CompileOptions &options,
                                      CompileDumps *dumps,
                                      std::vector<PhaseTiming> phases,
                                      DiagnosticCollector &diagnostics);

  std::unique_ptr<TargetBackend> backend;
  std::mutex mutex;
  mlir::MLIRContext context;
};

KernelCompiler::KernelCompiler(std::unique_ptr<TargetBackend> backend)
    : impl(std::make_unique<Impl>(std::move(backend))) {}
KernelCompiler::~KernelCompiler() = default;

TargetBackend &KernelCompiler::backend() { return *impl->backend; }

Expected<Compilation> KernelCompiler::compile(const Graph &graph,
                                              const Target &target,
                                              const CompileOptions &options) {
  return compile(graph, target, options, nullptr);
}

Expected<Compilation> KernelCompiler::compile(const Graph &graph,
                                              const Target &target,
                                              const CompileOptions &options,
                                              CompileDumps *dumps) {
  if (Status status = impl->checkTarget(target, options); !status.ok())
    return status;
  std::lock_guard lock(impl->mutex);
  DiagnosticCollector diagnostics(impl->context);
  auto start = Clock::now();
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      graphToModule(impl->context, graph);
  if (mlir::failed(module))
    return diagnostics.error(
        "the graph does not translate to the fuse dialect");
  std::vector<PhaseTiming> phases{{"import", Clock::now() - start}};
  return impl->compileModule(**module, graph, /*alreadyFused=*/false, target,
                             options, dumps, std::move(phases), diagnostics);
}

Expected<Compilation>
KernelCompiler::compileSource(std::string_view source, const Target &target,
                              const CompileOptions &options,
                              CompileDumps *dumps,
                              std::string_view sourceName) {
  if (Status status = impl->checkTarget(target, options); !status.ok())
    return status;
  std::lock_guard lock(impl->mutex);
  DiagnosticCollector diagnostics(impl->context);
  auto start = Clock::now();
  // MLIR's lexer stops at a NUL, not at the end of the StringRef it is
  // given: parse a copy, which std::string ends with one.
  std::string text(source);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          text, &impl->context,
          llvm::StringRef(sourceName.data(), sourceName.size()));
  if (!module)
    return diagnostics.error("the source does not parse");
  mlir::FailureOr<Graph> graph = moduleToGraph(*module);
  if (mlir::failed(graph))
    return diagnostics.error("the module is not a graph of fuse ops");
  bool fused = false;
  module->walk([&](fd::FusionOp) { fused = true; });
  std::vector<PhaseTiming> phases{{"import", Clock::now() - start}};
  return impl->compileModule(*module, *graph, fused, target, options, dumps,
                             std::move(phases), diagnostics);
}

namespace {

/// No schedule runs a convolution yet (issue 20): fuse-lower-convolutions
/// rewrites each into a matmul first, and the graph compiled is the
/// rewritten one, so that every value a kernel reads or writes is one of its
/// tensors. Answers that graph, or none where `func` has no convolution (or
/// is fused already).
Expected<std::optional<Graph>>
lowerConvolutions(mlir::MLIRContext &context, mlir::ModuleOp module,
                  mlir::func::FuncOp func, bool alreadyFused,
                  std::string_view scheduleTarget,
                  DiagnosticCollector &diagnostics) {
  bool hasConvolutions = false;
  func.walk([&](fd::ConvOp) { hasConvolutions = true; });
  if (!hasConvolutions || alreadyFused)
    return std::optional<Graph>();
  mlir::PassManager pm(&context);
  fd::FuseLowerConvolutionsOptions convolutions;
  convolutions.target = std::string(scheduleTarget);
  pm.addNestedPass<mlir::func::FuncOp>(
      fd::createFuseLowerConvolutions(convolutions));
  if (mlir::failed(pm.run(module)))
    return diagnostics.error("lowering the convolutions failed");
  mlir::FailureOr<Graph> lowered = funcToGraph(func);
  if (mlir::failed(lowered))
    return diagnostics.error("the lowered convolutions are not a graph");
  return std::optional<Graph>(std::move(*lowered));
}

//===----------------------------------------------------------------------===//
// Symbolic fusions (issue 22, step C)
//===----------------------------------------------------------------------===//
//
// A fusion whose types have symbolic dims is emitted at two representative
// values of its dims (each symbol a distinct prime, then another), each on
// a copy of the fusion with the dims bound. Where both give the same code
// (the whole kernel module's text) and each kernel's iteration count is a
// constant times a product of the fusion's symbolic dims, the code depends
// on the dims only through its iteration space: it is kept, with that count
// as a formula (KernelAbi.h, "Runtime dims"). Otherwise the fusion is
// refused, naming the dims whose value changes its code.

/// Calls `visit` on the type of every value of `fusion`: its operands and
/// results, and those of the ops and block arguments inside.
void forEachFusionType(fd::FusionOp fusion,
                       llvm::function_ref<void(mlir::Type)> visit) {
  fusion->walk([&](mlir::Operation *op) {
    for (mlir::Type type : op->getOperandTypes())
      visit(type);
    for (mlir::Type type : op->getResultTypes())
      visit(type);
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          visit(arg.getType());
  });
}

/// The dim symbols of `fusion`'s types and of the dims its dim_value ops
/// read (a static type may hold a dim's value), sorted; none for a static
/// fusion.
std::vector<std::string> fusionSymbols(fd::FusionOp fusion) {
  std::set<std::string> symbols;
  fusion.walk([&](fd::DimValueOp op) {
    for (unsigned i = 0; i < op.getDim().size(); ++i)
      for (const std::string &symbol : fd::dimsEntry(op.getDim(), i).symbols())
        symbols.insert(symbol);
  });
  forEachFusionType(fusion, [&](mlir::Type type) {
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
    if (!tensor || fd::isStaticTensor(tensor))
      return;
    for (const DimExpr &dim : fd::shapeExprs(tensor))
      for (const std::string &symbol : dim.symbols())
        symbols.insert(symbol);
  });
  return {symbols.begin(), symbols.end()};
}

/// What a kernel's iteration count may be a constant multiple of: each
/// symbolic dim of `fusion`'s types, and the product of each type's
/// symbolic dims.
std::vector<DimExpr> iterationFactors(fd::FusionOp fusion) {
  std::vector<DimExpr> factors;
  auto add = [&](const DimExpr &factor) {
    if (!factor.isConstant() &&
        std::find(factors.begin(), factors.end(), factor) == factors.end())
      factors.push_back(factor);
  };
  forEachFusionType(fusion, [&](mlir::Type type) {
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
    if (!tensor || fd::isStaticTensor(tensor))
      return;
    DimExpr product = DimExpr::constant(1);
    for (const DimExpr &dim : fd::shapeExprs(tensor)) {
      if (dim.isConstant())
        continue;
      add(dim);
      if (Expected<DimExpr> next = DimExpr::mul(product, dim); next.ok())
        product = next.take();
    }
    add(product);
  });
  return factors;
}

/// Representative values of `symbols`: distinct primes from `primes`, each
/// past every vector width and grain factor.
DimBindings representativeDims(const std::vector<std::string> &symbols,
                               std::span<const std::int64_t> primes) {
  DimBindings values;
  for (size_t i = 0; i < symbols.size(); ++i)
    values[symbols[i]] =
        primes[i % primes.size()] + 1000 * std::int64_t(i / primes.size());
  return values;
}

constexpr std::int64_t kFirstPrimes[] = {97, 101, 103, 107, 109, 113};
constexpr std::int64_t kSecondPrimes[] = {131, 137, 139, 149, 151, 157};

/// The dims of `fusion`'s types that are sums of terms (past_sequence +
/// sequence: a decoder's keys), each once.
std::vector<DimExpr> sumDims(fd::FusionOp fusion) {
  std::vector<DimExpr> sums;
  forEachFusionType(fusion, [&](mlir::Type type) {
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
    if (!tensor || fd::isStaticTensor(tensor))
      return;
    for (const DimExpr &dim : fd::shapeExprs(tensor))
      if (dim.terms().size() > 1 &&
          std::find(sums.begin(), sums.end(), dim) == sums.end())
        sums.push_back(dim);
  });
  return sums;
}

/// `values` with each sum of `sums` as a dim of its own, named by its
/// text and valued at `values` (a kernel reads it from its dims array as it
/// reads a symbol; bindBundle evaluates it). Failure where a sum is not a
/// size > 1 there, or two dims share a value (a kernel finds a runtime dim
/// by its value: runtimeDimIndex).
std::optional<DimBindings> withSumDims(DimBindings values,
                                       const std::vector<DimExpr> &sums) {
  for (const DimExpr &sum : sums) {
    Expected<std::int64_t> value = sum.evaluate(values);
    if (!value.ok() || *value <= 1)
      return std::nullopt;
    values[sum.toString()] = *value;
  }
  std::set<std::int64_t> seen;
  for (const auto &[name, value] : values)
    if (!seen.insert(value).second)
      return std::nullopt;
  return values;
}

/// `type` with its symbolic dims bound to `values`; failure where one is
/// not a size.
mlir::FailureOr<mlir::Type> bindType(mlir::Type type,
                                     const DimBindings &values) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor || fd::isStaticTensor(tensor))
    return type;
  llvm::SmallVector<std::int64_t> shape;
  for (const DimExpr &dim : fd::shapeExprs(tensor)) {
    Expected<std::int64_t> value = dim.evaluate(values);
    if (!value.ok() || *value < 0)
      return mlir::failure();
    shape.push_back(*value);
  }
  return mlir::Type(
      mlir::RankedTensorType::get(shape, tensor.getElementType()));
}

/// A copy of a fusion with its dims bound, alone in a function of a module
/// of its own.
struct BoundFusion {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  fd::FusionOp fusion;
};

mlir::FailureOr<BoundFusion> bindFusion(fd::FusionOp fusion,
                                        const DimBindings &values) {
  mlir::OpBuilder b(fusion.getContext());
  mlir::Location loc = fusion.getLoc();
  BoundFusion bound{mlir::ModuleOp::create(loc), nullptr};
  llvm::SmallVector<mlir::Type> inputs, results;
  for (mlir::Type type : fusion.getInputs().getTypes()) {
    mlir::FailureOr<mlir::Type> bT = bindType(type, values);
    if (mlir::failed(bT))
      return mlir::failure();
    inputs.push_back(*bT);
  }
  for (mlir::Type type : fusion->getResultTypes()) {
    mlir::FailureOr<mlir::Type> bT = bindType(type, values);
    if (mlir::failed(bT))
      return mlir::failure();
    results.push_back(*bT);
  }
  b.setInsertionPointToEnd(bound.module->getBody());
  auto func = mlir::func::FuncOp::create(b, loc, "bound",
                                         b.getFunctionType(inputs, results));
  mlir::Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  mlir::IRMapping mapping;
  for (auto [input, arg] :
       llvm::zip_equal(fusion.getInputs(), entry->getArguments()))
    mapping.map(input, arg);
  mlir::Operation *clone = b.clone(*fusion, mapping);
  bool bindable = true;
  auto rebind = [&](mlir::Value value) {
    mlir::FailureOr<mlir::Type> type = bindType(value.getType(), values);
    if (mlir::failed(type))
      bindable = false;
    else
      value.setType(*type);
  };
  clone->walk([&](mlir::Operation *op) {
    for (mlir::Value result : op->getResults())
      rebind(result);
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          rebind(arg);
  });
  // A slice's size of -1 names its result's symbolic dim: bound, the size.
  clone->walk([&](fd::SliceOp slice) {
    llvm::SmallVector<std::int64_t> sizes(slice.getSizes());
    auto type = mlir::cast<mlir::RankedTensorType>(slice.getType());
    for (auto [i, size] : llvm::enumerate(sizes))
      if (size == -1 && !type.isDynamicDim(i))
        size = type.getDimSize(i);
    slice.setSizes(sizes);
  });
  llvm::SmallVector<mlir::NamedAttribute> dims;
  for (const auto &[symbol, value] : values)
    dims.push_back(b.getNamedAttr(symbol, b.getI64IntegerAttr(value)));
  mlir::DictionaryAttr dimsAttr = b.getDictionaryAttr(dims);
  clone->walk(
      [&](fd::FusionOp inner) { inner->setAttr(kRuntimeDimsAttr, dimsAttr); });
  mlir::func::ReturnOp::create(b, loc, clone->getResults());
  if (!bindable || mlir::failed(mlir::verify(*bound.module)))
    return mlir::failure();
  bound.fusion = mlir::cast<fd::FusionOp>(clone);
  return bound;
}

/// Whether two emissions of one fusion planned the same kernels but for
/// their iteration counts.
bool samePlans(const FusionKernels &a, const FusionKernels &b) {
  if (a.kernels.size() != b.kernels.size() || a.scratchBytes != b.scratchBytes)
    return false;
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const KernelPlan &x = a.kernels[k], &y = b.kernels[k];
    LaunchConfig xl = x.launch, yl = y.launch;
    xl.iterations = yl.iterations = 0;
    if (x.entry != y.entry || x.module != y.module ||
        x.schedule != y.schedule || xl != yl || x.callees != y.callees ||
        x.perBinding != y.perBinding || x.bindingReads != y.bindingReads ||
        x.runtimeDims != y.runtimeDims ||
        x.operands.size() != y.operands.size())
      return false;
    for (size_t i = 0; i < x.operands.size(); ++i)
      if (x.operands[i].kind != y.operands[i].kind ||
          x.operands[i].index != y.operands[i].index)
        return false;
  }
  return true;
}

/// "dim 'sequence'" or "dims 'batch', 'sequence'".
std::string dimsText(const std::vector<std::string> &symbols) {
  std::string text = symbols.size() == 1 ? "dim " : "dims ";
  for (size_t i = 0; i < symbols.size(); ++i)
    text += (i ? ", '" : "'") + symbols[i] + "'";
  return text;
}

/// Adds the kernels of each fusion to the bundle: their bindings (the
/// caller's buffers or arena requests), their launch order and the plan's
/// module of each.
class BundleKernels {
public:
  BundleKernels(TargetBackend &backend, const Target &target,
                const Graph &graph, mlir::ModuleOp kernelModule,
                BufferAssignment &buffers, Bundle &bundle,
                DiagnosticCollector &diagnostics,
                MatmulPrecision matmulPrecision, bool amxTiles)
      : backend(backend), target(target), graph(graph),
        kernelModule(kernelModule), buffers(buffers), bundle(bundle),
        diagnostics(diagnostics), matmulPrecision(matmulPrecision),
        amxTiles(amxTiles) {}

  /// An AddFusionFn: emits the kernels of `fusion` and adds them.
  Status addFusion(fd::FusionOp fusion, llvm::ArrayRef<TensorId> inputTensors,
                   llvm::ArrayRef<TensorId> resultTensors,
                   llvm::ArrayRef<KernelBinding> resultBindings,
                   std::vector<std::uint32_t> coveredOps);

  /// The tensors the kernels added so far write.
  std::set<TensorId> written;
  /// The plan's module of each bundle kernel.
  std::vector<std::string> moduleOf;

private:
  /// The first function of the module with the text of function `name`
  /// (the symbol left out): `name` itself, or one that replaces it (then
  /// `name` is erased).
  std::string sharedFunction(const std::string &name);
  /// The function to launch for `plan`, its callees shared first.
  std::string sharedEntry(const KernelPlan &plan);
  KernelBinding bind(const KernelOperand &operand,
                     llvm::ArrayRef<TensorId> inputTensors,
                     llvm::ArrayRef<TensorId> resultTensors,
                     llvm::ArrayRef<KernelBinding> resultBindings,
                     std::uint64_t scratchBytes, bool boundScratch,
                     std::uint32_t kernelIndex,
                     std::optional<std::uint32_t> &scratch);

  /// The graph inputs that a pointwise fusion of a symbolic graph reads,
  /// itself or through the per-binding fusions before it, where it reads
  /// nothing else (bindingInvariant): it then runs once per binding.
  std::optional<std::vector<std::uint32_t>>
  perBindingInputs(fd::FusionOp fusion, llvm::ArrayRef<TensorId> inputTensors,
                   llvm::ArrayRef<TensorId> resultTensors,
                   llvm::ArrayRef<KernelBinding> resultBindings) const;

  TargetBackend &backend;
  const Target &target;
  const Graph &graph;
  mlir::ModuleOp kernelModule;
  BufferAssignment &buffers;
  /// The results of the per-binding pointwise fusions so far, each with
  /// the graph inputs it depends on (by position).
  std::map<TensorId, std::vector<std::uint32_t>> bindingInvariant;
  /// Those of them whose values depend on the dims (BundleKernel::
  /// dimsDependent).
  std::set<TensorId> dimsDependent;
  Bundle &bundle;
  DiagnosticCollector &diagnostics;
  MatmulPrecision matmulPrecision;
  bool amxTiles;
  /// Kernels that share one module (the host's): each distinct kernel
  /// function once, by its text with the symbol name left out. Identical
  /// layers of a model make identical kernels; LLVM compiles one of each.
  std::map<std::string, std::string> entryOfText;

  /// The kernels emitted for a fusion, for the next one of the same text.
  struct Emitted {
    std::string prefix;
    FusionKernels kernels;
    /// The shared entry of each kernel.
    std::vector<std::string> entries;
  };
  /// Fusions emitted so far by their text (fusionText): an identical fusion
  /// (the same layer again) reuses their kernels without emitting them again
  /// only to find the same functions.
  std::map<std::string, Emitted> emittedOfText;
  /// A fusion's kernels emitted into a module of their own at
  /// representative values of its dims, and that module's text.
  struct Representative {
    FusionKernels kernels;
    std::string text;
  };
  Expected<Representative> emitAt(fd::FusionOp fusion,
                                  const DimBindings &values,
                                  const std::string &prefix);
  /// The kernels of a fusion with symbolic dims (see "Symbolic fusions"),
  /// emitted into the kernel module, each kernel's iteration count given as
  /// a formula over the dims where it depends on them.
  Expected<FusionKernels> emitSymbolic(fd::FusionOp fusion,
                                       const std::vector<std::string> &symbols,
                                       const std::string &prefix);
  /// The refusal of a fusion whose code depends on the value of a dim,
  /// naming the dims that change it.
  Status refuseSymbolic(fd::FusionOp fusion,
                        const std::vector<std::string> &symbols,
                        const std::string &prefix, const Representative &first,
                        const std::string &why);

  /// The kernels of `fusion` from an identical fusion emitted before,
  /// renamed to `prefix`; none where there is none.
  std::optional<FusionKernels> emittedBefore(const std::string &text,
                                             const std::string &prefix,
                                             std::vector<std::string> &entries);
};

/// The text of `fusion` with its ops' indices in the graph left out (they
/// differ between identical layers and only name ops in errors): fusions of
/// the same text make the same kernels.
std::string fusionText(fd::FusionOp fusion) {
  std::vector<std::pair<mlir::Operation *, mlir::Attribute>> indices;
  fusion.walk([&](mlir::Operation *op) {
    if (mlir::Attribute index = op->removeAttr(kOpIndexAttr))
      indices.emplace_back(op, index);
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  fusion.print(os, mlir::OpPrintingFlags().useLocalScope());
  for (auto &[op, index] : indices)
    op->setAttr(kOpIndexAttr, index);
  return text;
}

std::optional<FusionKernels>
BundleKernels::emittedBefore(const std::string &text, const std::string &prefix,
                             std::vector<std::string> &entries) {
  auto it = emittedOfText.find(text);
  if (it == emittedOfText.end())
    return std::nullopt;
  FusionKernels kernels = it->second.kernels;
  for (KernelPlan &plan : kernels.kernels) {
    // Kernels of their own modules (a GPU's) are not shared.
    if (!plan.module.empty() ||
        !llvm::StringRef(plan.entry).starts_with(it->second.prefix))
      return std::nullopt;
    plan.entry = prefix + plan.entry.substr(it->second.prefix.size());
    plan.callees.clear();
  }
  entries = it->second.entries;
  return kernels;
}

Expected<BundleKernels::Representative>
BundleKernels::emitAt(fd::FusionOp fusion, const DimBindings &values,
                      const std::string &prefix) {
  mlir::FailureOr<BoundFusion> bound = bindFusion(fusion, values);
  if (mlir::failed(bound))
    return Status::error("its ops do not verify with the dims bound");
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(fusion.getLoc());
  backend.prepareKernelModule(*module);
  // A failure here is the fusion's refusal, not the compile's error: its
  // first diagnostic is kept for the message.
  std::string reason;
  mlir::FailureOr<FusionKernels> kernels = mlir::failure();
  {
    mlir::ScopedDiagnosticHandler quiet(
        fusion.getContext(), [&](mlir::Diagnostic &diagnostic) {
          if (reason.empty() &&
              diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
            reason = diagnostic.str();
          return mlir::success();
        });
    kernels = backend.emitKernels(bound->fusion, *module, prefix, target);
  }
  if (mlir::failed(kernels))
    return Status::error(
        "its code generation failed" +
        (reason.empty() ? std::string() : " (" + reason + ")"));
  Representative representative{std::move(*kernels), {}};
  llvm::raw_string_ostream os(representative.text);
  module->print(os);
  return representative;
}

Status BundleKernels::refuseSymbolic(fd::FusionOp fusion,
                                     const std::vector<std::string> &symbols,
                                     const std::string &prefix,
                                     const Representative &first,
                                     const std::string &why) {
  // The dims whose value alone changes the code.
  std::vector<std::string> culprits;
  DimBindings base = representativeDims(symbols, kFirstPrimes);
  DimBindings other = representativeDims(symbols, kSecondPrimes);
  std::vector<DimExpr> sums = sumDims(fusion);
  for (const std::string &symbol : symbols) {
    DimBindings values = base;
    values[symbol] = other[symbol];
    std::optional<DimBindings> withSums = withSumDims(values, sums);
    if (!withSums) {
      culprits.push_back(symbol);
      continue;
    }
    Expected<Representative> changed = emitAt(fusion, *withSums, prefix);
    if (!changed.ok() || changed->text != first.text ||
        !samePlans(changed->kernels, first.kernels))
      culprits.push_back(symbol);
  }
  if (culprits.empty())
    culprits = symbols;
  std::string kind(fd::stringifyScheduleKind(fusion.getKind()));
  std::string opName;
  fusion.getBody().walk([&](mlir::Operation *op) {
    if (opName.empty() && !mlir::isa<fd::YieldOp>(op))
      opName = op->getName().getStringRef().str();
  });
  return Status::error(
      "the " + kind + " fusion " + prefix + " (first op " + opName +
      ") needs a static value of " + dimsText(culprits) + ": " + why +
      "; only " + std::string(backend.runtimeDimsKernels()) +
      " take the dims at run time yet (issue 22): " + kBindDimsFirst);
}

Expected<FusionKernels>
BundleKernels::emitSymbolic(fd::FusionOp fusion,
                            const std::vector<std::string> &symbols,
                            const std::string &prefix) {
  if (!backend.takesRuntimeDims(fusion.getKind())) {
    std::string kind(fd::stringifyScheduleKind(fusion.getKind()));
    return Status::error("the " + kind + " fusion " + prefix +
                         " needs a static value of " + dimsText(symbols) +
                         ": the " + std::string(backend.name()) +
                         " compiler has no " + kind +
                         " kernel that takes the dims at run time; only " +
                         std::string(backend.runtimeDimsKernels()) +
                         " take them yet (issue 22): " + kBindDimsFirst);
  }
  bool readsDims = false;
  fusion.walk([&](mlir::Operation *op) {
    readsDims |= mlir::isa<fd::IotaOp, fd::DimValueOp>(op);
  });
  // A dim that is a sum of terms (past_sequence + sequence) is a runtime
  // dim of its own, its value computed when the bundle is bound.
  std::vector<DimExpr> sums = sumDims(fusion);
  std::optional<DimBindings> withFirst =
      withSumDims(representativeDims(symbols, kFirstPrimes), sums);
  std::optional<DimBindings> withSecond =
      withSumDims(representativeDims(symbols, kSecondPrimes), sums);
  if (!withFirst || !withSecond)
    return Status::error("the fusion " + prefix + " on " + dimsText(symbols) +
                         ": its dim " + sums.front().toString() +
                         " is a sum of terms that is no size at the dims' "
                         "representative values: " +
                         kBindDimsFirst);
  DimBindings first = std::move(*withFirst);
  DimBindings second = std::move(*withSecond);
  Expected<Representative> a = emitAt(fusion, first, prefix);
  if (!a.ok() && readsDims)
    return Status::error(
        "the fusion " + prefix + " needs a static value of " +
        dimsText(symbols) +
        ": it reads a dim's value as data (iota, dim_value), which no " +
        std::string(backend.name()) +
        " kernel takes at run time yet: " + kBindDimsFirst);
  if (!a.ok())
    return Status::error(
        "the fusion " + prefix + " on " + dimsText(symbols) + ": " +
        a.message() +
        " at representative values of the dims: " + kBindDimsFirst);
  // A dim's value as data (iota, dim_value) is read from the dims array
  // by a host pointwise kernel: the same code at both values, as a size.
  Expected<Representative> b = emitAt(fusion, second, prefix);
  if (!b.ok() || b->text != a->text || !samePlans(a->kernels, b->kernels))
    return refuseSymbolic(
        fusion, symbols, prefix, *a,
        readsDims ? "it reads a dim's value as data (iota, dim_value) in a "
                    "kernel whose code depends on the dim's value"
                  : "its kernel's code depends on the dim's value");
  // A scratch of the same size at both values (samePlans: a matmul's packed
  // weight) is a constant request; one that grows with the dims is not.
  std::vector<DimExpr> factors = iterationFactors(fusion);
  std::vector<std::optional<DimExpr>> counts;
  for (size_t k = 0; k < a->kernels.kernels.size(); ++k) {
    std::int64_t at1 = a->kernels.kernels[k].launch.iterations;
    std::int64_t at2 = b->kernels.kernels[k].launch.iterations;
    if (at1 == at2) {
      counts.push_back(std::nullopt);
      continue;
    }
    std::optional<DimExpr> count;
    for (const DimExpr &factor : factors) {
      Expected<std::int64_t> x1 = factor.evaluate(first);
      Expected<std::int64_t> x2 = factor.evaluate(second);
      if (!x1.ok() || !x2.ok() || *x1 <= 0 || at1 % *x1 != 0 ||
          at1 / *x1 * *x2 != at2)
        continue;
      Expected<DimExpr> formula =
          DimExpr::mul(factor, DimExpr::constant(at1 / *x1));
      if (formula.ok()) {
        count = formula.take();
        break;
      }
    }
    if (!count)
      return refuseSymbolic(fusion, symbols, prefix, *a,
                            "its iteration count is no multiple of its dims");
    counts.push_back(std::move(count));
  }
  // The kept emission: into the kernel module, at the first values.
  mlir::FailureOr<BoundFusion> bound = bindFusion(fusion, first);
  if (mlir::failed(bound))
    return Status::error("internal error: the fusion " + prefix +
                         " no longer binds");
  mlir::FailureOr<FusionKernels> kernels =
      backend.emitKernels(bound->fusion, kernelModule, prefix, target);
  if (mlir::failed(kernels) || !samePlans(*kernels, a->kernels))
    return Status::error("internal error: the fusion " + prefix +
                         " emitted other kernels the third time");
  for (size_t k = 0; k < counts.size(); ++k) {
    KernelPlan &plan = kernels->kernels[k];
    plan.symbolicIterations = counts[k];
    // A kernel that reads a dim's value takes the dims array: every symbol
    // of the fusion, in order (kRuntimeDimsAttr's, runtimeDimIndex). A GPU
    // kernel of the fusion takes them all as parameters
    // (codegen::kDimsParameterAttr).
    bool readsDims = false;
    for (const std::string &name : llvm::concat<const std::string>(
             llvm::ArrayRef(plan.entry), plan.callees))
      if (auto func = kernelModule.lookupSymbol<mlir::func::FuncOp>(name))
        readsDims |= codegen::readsDimsArray(func);
    if (!plan.module.empty())
      if (mlir::Operation *module = kernelModule.lookupSymbol(plan.module))
        if (mlir::Operation *entry =
                mlir::SymbolTable::lookupSymbolIn(module, plan.entry)) {
          readsDims |= entry->hasAttr(codegen::kDimsParameterAttr);
          // The grid of a GPU kernel whose iterations do not depend on
          // the dims: that of its iterations (KernelAbi.h, "Runtime
          // dims"); bindBundle sets the others'.
          if (!counts[k] && entry->hasAttr(codegen::kDimsParameterAttr)) {
            plan.launch.gridX = gpuGridBlocks(
                plan.launch.iterations, plan.launch.grain, plan.launch.gridX);
            plan.launch.grain = 1;
          }
        }
    if (readsDims)
      for (const auto &[name, value] : first)
        plan.runtimeDims.push_back(name);
  }
  return std::move(*kernels);
}

std::string BundleKernels::sharedFunction(const std::string &name) {
  auto func = kernelModule.lookupSymbol<mlir::func::FuncOp>(name);
  if (!func)
    return name;
  std::string text;
  llvm::raw_string_ostream os(text);
  func.setSymName("kernel");
  // In the function's own scope: printing a nested op by default numbers the
  // whole module first, which made code generation quadratic in the number
  // of kernels (a 20,000-op chain of 79 kernels spent most of it here).
  func.print(os, mlir::OpPrintingFlags().useLocalScope());
  func.setSymName(name);
  auto [it, inserted] = entryOfText.try_emplace(std::move(text), name);
  if (!inserted)
    func.erase();
  return it->second;
}

std::string BundleKernels::sharedEntry(const KernelPlan &plan) {
  if (!plan.module.empty())
    return plan.entry;
  // The functions a kernel calls first, so that its text names the shared
  // ones: identical horizontal launches then share their code too.
  auto func = kernelModule.lookupSymbol<mlir::func::FuncOp>(plan.entry);
  for (const std::string &callee : plan.callees) {
    std::string shared = sharedFunction(callee);
    if (func && shared != callee)
      func.walk([&](mlir::func::CallOp call) {
        if (call.getCallee() == callee)
          call.setCallee(shared);
      });
  }
  return sharedFunction(plan.entry);
}

/// The binding of one kernel operand; the fusion's scratch is one arena
/// request, made by its first kernel that uses it, in the arena's bound
/// part when `boundScratch` (a kernel of the fusion runs once per binding).
KernelBinding BundleKernels::bind(const KernelOperand &operand,
                                  llvm::ArrayRef<TensorId> inputTensors,
                                  llvm::ArrayRef<TensorId> resultTensors,
                                  llvm::ArrayRef<KernelBinding> resultBindings,
                                  std::uint64_t scratchBytes, bool boundScratch,
                                  std::uint32_t kernelIndex,
                                  std::optional<std::uint32_t> &scratch) {
  switch (operand.kind) {
  case KernelOperand::Kind::FusionInput:
    return buffers.bind(inputTensors[operand.index], kernelIndex);
  case KernelOperand::Kind::FusionResult:
    written.insert(resultTensors[operand.index]);
    if (resultBindings.empty())
      return buffers.bind(resultTensors[operand.index], kernelIndex);
    return resultBindings[operand.index];
  case KernelOperand::Kind::Scratch:
    if (!scratch) {
      scratch = std::uint32_t(buffers.requests.size());
      // A slice names a tensor: the fusion's first result stands for its
      // partials (the slice is larger than the tensor).
      TensorId owner = resultTensors.front();
      buffers.requests.push_back(
          {owner,
           std::max<std::uint64_t>(scratchBytes,
                                   graph.typeOf(owner).isStatic()
                                       ? graph.typeOf(owner).byteSize()
                                       : 0),
           kernelIndex, kernelIndex, boundScratch});
    }
    buffers.use(*scratch, kernelIndex);
    return {BindingKind::Intermediate, *scratch};
  }
  llvm_unreachable("unknown kernel operand kind");
}

/// Issue 22: in a graph with symbolic dims, what depends only on the dims
/// and the weights (graph inputs of a static shape; an activation's shape
/// has the dims) is the same on every run of one binding: T5's relative
/// position bias (buckets from iotas of the sequence, a gather of its
/// table), which a static export folds into a constant. A pointwise
/// fusion that reads only such weights and the results of fusions like it
/// runs once per binding (BundleKernel::perBinding), its results in the
/// arena's bound part; it runs again when a weight it depends on is bound
/// anew, and a binding of other dims is another bound bundle. A fusion
/// that writes a graph output, or writes in place, runs on every run.
std::optional<std::vector<std::uint32_t>> BundleKernels::perBindingInputs(
    fd::FusionOp fusion, llvm::ArrayRef<TensorId> inputTensors,
    llvm::ArrayRef<TensorId> resultTensors,
    llvm::ArrayRef<KernelBinding> resultBindings) const {
  if (!graph.isSymbolic() || fusion.getKind() != fd::ScheduleKind::pointwise ||
      !resultBindings.empty())
    return std::nullopt;
  for (TensorId result : resultTensors)
    if (std::any_of(graph.outputs.begin(), graph.outputs.end(),
                    [&](const GraphOutput &o) { return o.tensor == result; }))
      return std::nullopt;
  std::set<std::uint32_t> reads;
  for (TensorId tensor : inputTensors) {
    if (auto it = bindingInvariant.find(tensor); it != bindingInvariant.end()) {
      reads.insert(it->second.begin(), it->second.end());
      continue;
    }
    auto input = std::find(graph.inputs.begin(), graph.inputs.end(), tensor);
    if (input == graph.inputs.end() || !graph.typeOf(tensor).isStatic())
      return std::nullopt;
    reads.insert(std::uint32_t(input - graph.inputs.begin()));
  }
  return std::vector<std::uint32_t>(reads.begin(), reads.end());
}

Status BundleKernels::addFusion(fd::FusionOp fusion,
                                llvm::ArrayRef<TensorId> inputTensors,
                                llvm::ArrayRef<TensorId> resultTensors,
                                llvm::ArrayRef<KernelBinding> resultBindings,
                                std::vector<std::uint32_t> coveredOps) {
  std::string prefix = "fuse_k" + std::to_string(bundle.kernels.size());
  // Which inputs stay unchanged from one binding to the next: a kernel that
  // reads only those (a weight's packing) runs once per binding.
  llvm::SmallVector<bool> bound;
  for (TensorId tensor : inputTensors)
    bound.push_back(std::find(graph.inputs.begin(), graph.inputs.end(),
                              tensor) != graph.inputs.end());
  fusion->setAttr(kBoundInputsAttr,
                  mlir::DenseBoolArrayAttr::get(fusion.getContext(), bound));
  if (matmulPrecision != MatmulPrecision::F32)
    fusion->walk([&](fd::FusionOp inner) {
      if (inner.getBody().front().getOps<fd::MatmulOp>().empty())
        return;
      inner->setAttr(
          kMatmulPrecisionAttr,
          mlir::StringAttr::get(inner.getContext(),
                                matmulPrecisionName(matmulPrecision)));
      if (amxTiles)
        inner->setAttr(kMatmulAmxAttr, mlir::UnitAttr::get(inner.getContext()));
    });
  // Only kernels that share one module (a host shared object) are reused;
  // a GPU's fusions skip printing their text.
  bool shared = backend.payloadKind() == PayloadKind::HostSharedObject;
  std::string text = shared ? fusionText(fusion) : std::string();
  std::vector<std::string> entries;
  mlir::FailureOr<FusionKernels> kernels = mlir::failure();
  std::vector<std::string> symbols = fusionSymbols(fusion);
  if (std::optional<FusionKernels> before =
          shared ? emittedBefore(text, prefix, entries) : std::nullopt) {
    kernels = std::move(*before);
  } else if (!symbols.empty()) {
    Expected<FusionKernels> symbolic = emitSymbolic(fusion, symbols, prefix);
    if (!symbolic.ok())
      return symbolic.status();
    kernels = symbolic.take();
  } else {
    kernels = backend.emitKernels(fusion, kernelModule, prefix, target);
  }
  if (mlir::failed(kernels))
    return diagnostics.error(std::string(backend.name()) +
                             " code generation for " + target.name + " failed");
  bool emitted = entries.empty();
  std::vector<std::uint32_t> checkedOps;
  for (mlir::Operation *op : frontend::checkedOps(fusion)) {
    auto index = op->getAttrOfType<mlir::IntegerAttr>(kOpIndexAttr);
    if (!index)
      return Status::error("internal error: a " +
                           op->getName().stripDialect().str() +
                           " in a fusion has no " + std::string(kOpIndexAttr) +
                           ", so its kernel could not name it in an error");
    checkedOps.push_back(std::uint32_t(index.getInt()));
  }
  std::optional<std::uint32_t> scratch;
  bool boundScratch =
      std::any_of(kernels->kernels.begin(), kernels->kernels.end(),
                  [](const KernelPlan &plan) { return plan.perBinding; });
  std::optional<std::vector<std::uint32_t>> invariantReads =
      kernels->kernels.size() == 1 && kernels->scratchBytes == 0
          ? perBindingInputs(fusion, inputTensors, resultTensors,
                             resultBindings)
          : std::nullopt;
  for (size_t k = 0; k < kernels->kernels.size(); ++k) {
    const KernelPlan &plan = kernels->kernels[k];
    std::uint32_t kernelIndex = std::uint32_t(bundle.kernels.size());
    BundleKernel kernel;
    kernel.name = plan.entry;
    kernel.target = target.name + plan.targetSuffix;
    kernel.payloadKind = backend.payloadKind();
    if (emitted)
      entries.push_back(sharedEntry(plan));
    kernel.entry = entries[k];
    kernel.schedule = plan.schedule;
    kernel.launch = plan.launch;
    kernel.ops = coveredOps;
    kernel.checkedOps = checkedOps;
    kernel.perBinding = plan.perBinding;
    kernel.symbolicIterations = plan.symbolicIterations;
    kernel.runtimeDims = plan.runtimeDims;
    for (unsigned read : plan.bindingReads) {
      auto input = std::find(graph.inputs.begin(), graph.inputs.end(),
                             inputTensors[read]);
      if (input == graph.inputs.end())
        return Status::error("internal error: " + plan.entry +
                             " runs once per binding but reads a fusion "
                             "input that is not a graph input");
      kernel.bindingInputs.push_back(
          std::uint32_t(input - graph.inputs.begin()));
    }
    // A packing of inputs with symbolic dims, or one that takes the dims.
    kernel.dimsDependent =
        kernel.perBinding &&
        (kernel.symbolicIterations || !kernel.runtimeDims.empty() ||
         std::any_of(kernel.bindingInputs.begin(), kernel.bindingInputs.end(),
                     [&](std::uint32_t input) {
                       return !graph.typeOf(graph.inputs[input]).isStatic();
                     }));
    for (const KernelOperand &operand : plan.operands)
      kernel.bindings.push_back(bind(operand, inputTensors, resultTensors,
                                     resultBindings, kernels->scratchBytes,
                                     boundScratch, kernelIndex, scratch));
    if (invariantReads) {
      kernel.perBinding = true;
      kernel.bindingInputs = *invariantReads;
      // Its values depend on the dims where it takes them (its iteration
      // count or dims array) or reads a result that does.
      kernel.dimsDependent =
          kernel.symbolicIterations || !kernel.runtimeDims.empty() ||
          std::any_of(inputTensors.begin(), inputTensors.end(),
                      [&](TensorId t) { return dimsDependent.count(t) != 0; });
      for (auto [operand, binding] :
           llvm::zip_equal(plan.operands, kernel.bindings))
        if (operand.kind == KernelOperand::Kind::FusionResult &&
            binding.kind == BindingKind::Intermediate) {
          buffers.requests[binding.index].bound = true;
          bindingInvariant[resultTensors[operand.index]] = *invariantReads;
          if (kernel.dimsDependent)
            dimsDependent.insert(resultTensors[operand.index]);
        }
    }
    bundle.launchOrder.push_back(kernelIndex);
    bundle.kernels.push_back(std::move(kernel));
    moduleOf.push_back(plan.module);
  }
  if (emitted && shared)
    emittedOfText.try_emplace(std::move(text),
                              Emitted{prefix, *kernels, std::move(entries)});
  return Status::success();
}

} // namespace

namespace {
/// A dim_value of a symbolic dim that fusion left (a dead one is gone by
/// then) runs in a kernel that reads the dim at run time (a host kernel's
/// dims array, a GPU kernel's dims parameters: KernelAbi.h, "Runtime
/// dims"), and only where a graph input's shape gives the dim's symbols
/// their values. Otherwise it is refused here, before code generation,
/// naming the op and the dim (a static kernel would fail on it late, as an
/// op that is not elementwise).
Status refuseDimValues(mlir::func::FuncOp func, const Graph &graph,
                       DiagnosticCollector &diagnostics) {
  std::set<std::string> given;
  for (TensorId input : graph.inputs)
    for (std::int64_t dim : graph.typeOf(input).shape)
      if (graph.dims.isValidDim(dim))
        for (const std::string &symbol : graph.dims.expr(dim).symbols())
          given.insert(symbol);
  std::optional<std::string> dim;
  func.walk([&](fd::DimValueOp op) {
    DimExpr expr = fd::dimsEntry(op.getDim(), 0);
    if (expr.isConstant())
      return mlir::WalkResult::advance();
    bool known = true;
    for (const std::string &symbol : expr.symbols())
      known &= given.count(symbol) != 0;
    if (known)
      return mlir::WalkResult::advance();
    dim = expr.toString();
    op.emitOpError() << "reads the value of dim '" << *dim << "' as data, "
                     << "which no input's shape gives";
    return mlir::WalkResult::interrupt();
  });
  if (!dim)
    return Status::success();
  return diagnostics.error("the graph reads the value of dim '" + *dim +
                           "' (a fuse.dim_value): " + kBindDimsFirst);
}
} // namespace

namespace {
/// The memory plan of a symbolic graph: each request's size as a formula
/// over the dims (its tensor's, or its constant size where that is
/// static), planned when a run binds the dims (bindBundle). A request of a
/// symbolic tensor with a size of its own is a fusion's scratch, named
/// after its first result (BundleKernels::bind), of a constant size
/// (emitSymbolic keeps no scratch that changes with the dims; a matmul's
/// packed weight): its slice takes that size plus its tensor's, since a
/// slice holds at least its tensor (a formula has no max).
Expected<MemoryPlan> symbolicPlan(const Graph &graph,
                                  std::span<const ArenaRequest> requests) {
  MemoryPlan plan;
  for (const ArenaRequest &request : requests) {
    const TensorType &type = graph.typeOf(request.tensor);
    DimExpr bytes = DimExpr::constant(std::int64_t(request.bytes));
    if (!type.isStatic()) {
      Expected<DimExpr> symbolic = byteSizeExpr(graph, type);
      if (symbolic.ok() && request.bytes != 0)
        symbolic = DimExpr::add(*symbolic, bytes);
      if (!symbolic.ok())
        return symbolic.status();
      bytes = symbolic.take();
    }
    plan.intermediates.push_back({request.tensor, 0, 0});
    plan.symbolicSlices.push_back({request.tensor, std::move(bytes),
                                   request.firstUse, request.lastUse,
                                   request.bound});
  }
  return plan;
}
} // namespace

Expected<Compilation> KernelCompiler::Impl::compileModule(
    mlir::ModuleOp module, const Graph &requested, bool alreadyFused,
    const Target &target, const CompileOptions &options, CompileDumps *dumps,
    std::vector<PhaseTiming> phases, DiagnosticCollector &diagnostics) {
  auto funcs = module.getOps<mlir::func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return Status::error("the module must hold exactly one function");
  mlir::func::FuncOp func = *funcs.begin();

  // The bundle holds the graph with its convolutions lowered and the hash of
  // the one asked for (Bundle::sourceGraphHash), which the cache keys.
  Expected<std::optional<Graph>> lowered =
      lowerConvolutions(context, module, func, alreadyFused,
                        backend->scheduleTarget(), diagnostics);
  if (!lowered.ok())
    return lowered.status();
  const Graph &graph = *lowered ? **lowered : requested;

  if (Status status = tagOpIndices(func, graph); !status.ok())
    return status;

  // Fusion.
  auto start = Clock::now();
  if (!alreadyFused)
    if (Status status = fuseModule(module, func, options,
                                   backend->scheduleTarget(), diagnostics);
        !status.ok())
      return status;
  phases.push_back({"fusion", Clock::now() - start});
  if (dumps) {
    llvm::raw_string_ostream os(dumps->fused);
    module.print(os);
  }
  if (Status status = refuseDimValues(func, graph, diagnostics); !status.ok())
    return status;

  // Inputs and outputs live in the caller's buffers, the rest in the arena.
  BufferAssignment buffers(graph);
  Bundle bundle = newBundle(graph, target);
  // The cache keys the graph asked for; the bundle says which that was.
  if (*lowered)
    bundle.sourceGraphHash = hashGraph(requested).toHex();

  // Code generation: the kernels of every fusion, in order.
  start = Clock::now();
  mlir::OpBuilder b(&context);
  mlir::OwningOpRef<mlir::ModuleOp> kernelModule =
      mlir::ModuleOp::create(b.getUnknownLoc());
  backend->prepareKernelModule(*kernelModule);
  BundleKernels kernels(*backend, target, graph, *kernelModule, buffers, bundle,
                        diagnostics, options.matmulPrecision, options.amxTiles);
  auto addFusion = [&](fd::FusionOp fusion,
                       llvm::ArrayRef<TensorId> inputTensors,
                       llvm::ArrayRef<TensorId> resultTensors,
                       llvm::ArrayRef<KernelBinding> resultBindings,
                       std::vector<std::uint32_t> coveredOps) {
    return kernels.addFusion(fusion, inputTensors, resultTensors,
                             resultBindings, std::move(coveredOps));
  };
  if (Status status = generateKernels(func, graph, *kernelModule, buffers,
                                      kernels.written, diagnostics, addFusion);
      !status.ok())
    return status;
  phases.push_back({"codegen", Clock::now() - start});
  if (dumps) {
    llvm::raw_string_ostream os(dumps->kernels);
    kernelModule->print(os);
  }

  if (graph.isSymbolic()) {
    Expected<MemoryPlan> plan = symbolicPlan(graph, buffers.requests);
    if (!plan.ok())
      return plan.status();
    bundle.memoryPlan = plan.take();
  } else {
    bundle.memoryPlan = planArena(buffers.requests);
  }

  KernelReuse reuse;
  if (!bundle.kernels.empty())
    if (Status status =
            backend->package(*kernelModule, kernels.moduleOf, target, options,
                             bundle, phases, reuse, diagnostics, dumps);
        !status.ok())
      return status;

  if (Status status = verifyBundle(bundle); !status.ok())
    return Status::error("internal error: " + status.message());
  Compilation compilation;
  compilation.bundle = std::move(bundle);
  compilation.kernels = reuse;
  compilation.phases = std::move(phases);
  compilation.remarks = std::move(diagnostics.remarks);
  return compilation;
}

} // namespace fuse
