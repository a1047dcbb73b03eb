//===- FusionFrontEnd.cpp - What every target's compiler does first -------===//

#include "compiler/common/FusionFrontEnd.h"

#include "passes/Passes.h"
#include "runtime/Version.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace fd = mlir::fuse;

namespace fuse::frontend {

void registerFusePassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { fd::registerFusePasses(); });
}

bool isTensorOp(mlir::Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() ==
             fd::FuseDialect::getDialectNamespace() &&
         !mlir::isa<fd::FusionOp, fd::YieldOp>(op);
}

DiagnosticCollector::DiagnosticCollector(mlir::MLIRContext &context)
    : handler(&context, [this](mlir::Diagnostic &d) {
        std::string text;
        llvm::raw_string_ostream os(text);
        mlir::Location loc = d.getLocation();
        if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
          os << file.getFilename().getValue() << ":" << file.getLine() << ":"
             << file.getColumn();
        else
          os << loc;
        os << ": " << d.str();
        for (const mlir::Diagnostic &note : d.getNotes())
          if (!llvm::StringRef(note.str()).starts_with("see current operation"))
            os << "\n  note: " << note.str();
        if (d.getSeverity() == mlir::DiagnosticSeverity::Remark)
          remarks.push_back(text);
        else if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
          errors += (errors.empty() ? "" : "\n") + text;
        return mlir::success();
      }) {}

fd::ScheduleKind singleOpSchedule(mlir::Operation *op) {
  if (auto reduce = mlir::dyn_cast<fd::ReduceOp>(op)) {
    auto type =
        mlir::cast<mlir::RankedTensorType>(reduce.getOperand().getType());
    llvm::ArrayRef<int64_t> dims = reduce.getDims();
    if (int64_t(dims.size()) == type.getRank())
      return fd::ScheduleKind::full_reduction;
    bool trailing = !dims.empty() && dims.back() == type.getRank() - 1 &&
                    dims.front() == type.getRank() - int64_t(dims.size());
    return trailing ? fd::ScheduleKind::row_reduction
                    : fd::ScheduleKind::column_reduction;
  }
  if (mlir::isa<fd::ArgMaxOp, fd::ArgMinOp>(op))
    return fd::ScheduleKind::row_reduction;
  if (mlir::isa<fd::MatmulOp>(op))
    return fd::ScheduleKind::matmul;
  if (mlir::isa<fd::ScatterOp>(op))
    return fd::ScheduleKind::scatter;
  return fd::ScheduleKind::pointwise;
}

/// Wraps each of `ops` (tensor ops of `func`'s body) in a fusion of its
/// own; splat constants that feed only tensor ops are cloned into them.
static llvm::SmallVector<fd::FusionOp>
wrapOps(mlir::func::FuncOp func, llvm::ArrayRef<mlir::Operation *> ops) {
  mlir::OpBuilder b(func.getContext());
  llvm::SmallVector<fd::FusionOp> fusions;
  for (mlir::Operation *op : ops) {
    auto constant = mlir::dyn_cast<fd::ConstantOp>(op);
    bool onlyFeedsFuseOps = llvm::all_of(
        op->getUsers(), [](mlir::Operation *u) { return isTensorOp(u); });
    if (constant && onlyFeedsFuseOps && !op->use_empty())
      continue;
    llvm::SmallVector<mlir::Value> inputs;
    llvm::SmallVector<mlir::Operation *> clonedConstants;
    for (mlir::Value operand : op->getOperands()) {
      mlir::Operation *def = operand.getDefiningOp();
      if (def && mlir::isa<fd::ConstantOp>(def))
        clonedConstants.push_back(def);
      else if (!llvm::is_contained(inputs, operand))
        inputs.push_back(operand);
    }
    b.setInsertionPoint(op);
    auto fusion = fd::FusionOp::create(b, op->getLoc(), op->getResultTypes(),
                                       singleOpSchedule(op), inputs);
    mlir::Block *block = b.createBlock(&fusion.getBody());
    mlir::IRMapping mapping;
    for (mlir::Value input : inputs)
      mapping.map(input, block->addArgument(input.getType(), op->getLoc()));
    for (mlir::Operation *def : clonedConstants)
      if (!mapping.contains(def->getResult(0)))
        b.clone(*def, mapping);
    mlir::Operation *inner = b.clone(*op, mapping);
    fd::YieldOp::create(b, op->getLoc(), inner->getResults());
    op->replaceAllUsesWith(fusion.getResults());
    op->erase();
    fusions.push_back(fusion);
  }
  for (mlir::Operation &op : llvm::make_early_inc_range(func.getBody().front()))
    if (mlir::isa<fd::ConstantOp>(op) && op.use_empty())
      op.erase();
  return fusions;
}

namespace {

/// The ops of `body` (a fusion's, without nested regions) in an order of
/// their data flow alone: each op after its operands' ops, found depth first
/// from the yielded values in operand order (ops that reach no yielded value
/// after, in block order). Two fusions that differ only in the order of
/// their independent ops (a layer's mask ops before or after its Q K^T)
/// get the same order.
std::vector<mlir::Operation *> dataFlowOrder(mlir::Block &body) {
  std::vector<mlir::Operation *> order;
  llvm::SmallPtrSet<mlir::Operation *, 32> visited;
  auto definedInBody = [&](mlir::Value value) -> mlir::Operation * {
    mlir::Operation *def = value.getDefiningOp();
    return def && def->getBlock() == &body ? def : nullptr;
  };
  // Post-order without recursion (a huge fusion holds thousands of ops):
  // each entry is an op and the next of its operands to visit.
  auto visit = [&](mlir::Operation *root) {
    if (!visited.insert(root).second)
      return;
    std::vector<std::pair<mlir::Operation *, unsigned>> stack{{root, 0}};
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next == op->getNumOperands()) {
        order.push_back(op);
        stack.pop_back();
        continue;
      }
      mlir::Operation *def = definedInBody(op->getOperand(next++));
      if (def && visited.insert(def).second)
        stack.push_back({def, 0});
    }
  };
  mlir::Operation *terminator = body.getTerminator();
  for (mlir::Value value : terminator->getOperands())
    if (mlir::Operation *def = definedInBody(value))
      visit(def);
  for (mlir::Operation &op : body.without_terminator())
    visit(&op);
  return order;
}

} // namespace

void canonicalizeFusionOrder(fd::FusionOp fusion) {
  mlir::Block &body = fusion.getBody().front();
  for (mlir::Operation &op : body)
    if (op.getNumRegions() != 0)
      return;
  mlir::Operation *terminator = body.getTerminator();
  std::vector<mlir::Operation *> order = dataFlowOrder(body);
  for (mlir::Operation *op : order)
    op->moveBefore(terminator);
  // The inputs in the order of their first use (unused ones last, in order).
  std::vector<unsigned> inputOrder;
  llvm::SmallVector<bool> placed(body.getNumArguments(), false);
  auto place = [&](mlir::Value value) {
    auto arg = mlir::dyn_cast<mlir::BlockArgument>(value);
    if (arg && arg.getOwner() == &body && !placed[arg.getArgNumber()]) {
      placed[arg.getArgNumber()] = true;
      inputOrder.push_back(arg.getArgNumber());
    }
  };
  for (mlir::Operation &op : body)
    for (mlir::Value operand : op.getOperands())
      place(operand);
  for (unsigned i = 0; i < body.getNumArguments(); ++i)
    place(body.getArgument(i));
  bool same = true;
  for (unsigned i = 0; i < inputOrder.size(); ++i)
    same &= inputOrder[i] == i;
  if (same)
    return;
  unsigned count = body.getNumArguments();
  llvm::SmallVector<mlir::Value> inputs;
  for (unsigned old : inputOrder) {
    mlir::BlockArgument arg = body.getArgument(old);
    inputs.push_back(fusion.getInputs()[old]);
    arg.replaceAllUsesWith(body.addArgument(arg.getType(), arg.getLoc()));
  }
  body.eraseArguments(0, count);
  fusion->setOperands(inputs);
}

void canonicalizeFusionOrders(mlir::func::FuncOp func) {
  for (fd::FusionOp fusion : func.getBody().getOps<fd::FusionOp>())
    canonicalizeFusionOrder(fusion);
}

void wrapEachOpInItsOwnFusion(mlir::func::FuncOp func) {
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : func.getBody().front())
    if (isTensorOp(&op))
      ops.push_back(&op);
  (void)wrapOps(func, ops);
}

Status generateFusions(mlir::func::FuncOp func,
                       llvm::function_ref<Status(fd::FusionOp)> generate) {
  for (fd::FusionOp fusion : llvm::make_early_inc_range(
           func.getBody().front().getOps<fd::FusionOp>()))
    if (Status status = generate(fusion); !status.ok())
      return status;
  return Status::success();
}

Expected<FusionTensors> fusionTensors(mlir::func::FuncOp func,
                                      const Graph &graph, fd::FusionOp fusion) {
  FusionTensors tensors;
  for (mlir::Value input : fusion.getInputs()) {
    tensors.inputs.push_back(tensorOfValue(func, graph, input));
    if (tensors.inputs.back() == kInvalidTensor)
      return Status::error("internal error: a fusion input has no tensor");
  }
  for (mlir::OpResult result : fusion->getResults()) {
    tensors.results.push_back(tensorOfFusionResult(func, graph, result));
    if (tensors.results.back() == kInvalidTensor)
      return Status::error("internal error: a fusion result has no tensor");
  }
  std::set<std::uint32_t> covered;
  fusion.walk([&](mlir::Operation *op) {
    if (auto index = op->getAttrOfType<mlir::IntegerAttr>(kOpIndexAttr))
      covered.insert(std::uint32_t(index.getInt()));
  });
  // A graph output that a fold made an earlier op's value (x + 0 is x):
  // the kernel computes the op of the output too.
  std::set<TensorId> produced;
  for (std::uint32_t index : covered)
    produced.insert(graph.ops[index].results.begin(),
                    graph.ops[index].results.end());
  for (TensorId result : tensors.results)
    if (!produced.count(result))
      for (std::uint32_t index = 0; index < graph.ops.size(); ++index)
        if (llvm::is_contained(graph.ops[index].results, result))
          covered.insert(index);
  tensors.coveredOps.assign(covered.begin(), covered.end());
  return tensors;
}

Status generateKernels(mlir::func::FuncOp func, const Graph &graph,
                       mlir::ModuleOp kernelModule,
                       const BufferAssignment &buffers,
                       const std::set<TensorId> &written,
                       DiagnosticCollector &diagnostics,
                       AddFusionFn addFusion) {
  Status generated = generateFusions(func, [&](fd::FusionOp fusion) -> Status {
    Expected<FusionTensors> tensors = fusionTensors(func, graph, fusion);
    if (!tensors.ok())
      return tensors.status();
    return addFusion(fusion, tensors->inputs, tensors->results, {},
                     tensors->coveredOps);
  });
  if (!generated.ok())
    return generated;

  // Graph outputs no kernel writes to their own buffer get a copy kernel.
  mlir::OpBuilder b(func.getContext());
  mlir::OwningOpRef<mlir::ModuleOp> copies =
      mlir::ModuleOp::create(b.getUnknownLoc());
  for (std::uint32_t k = 0; k < graph.outputs.size(); ++k) {
    TensorId tensor = graph.outputs[k].tensor;
    KernelBinding home = buffers.home(tensor);
    bool ownBuffer = home.kind == BindingKind::GraphOutput && home.index == k;
    if (ownBuffer && written.count(tensor))
      continue;
    // A fold can leave an output's own buffer unwritten (abs of a ui value
    // is the value, x + 0 is x): copy what the function returns instead.
    TensorId source = tensor;
    if (ownBuffer) {
      auto ret = mlir::cast<mlir::func::ReturnOp>(
          func.getBody().front().getTerminator());
      source = tensorOfValue(func, graph, ret.getOperand(k));
      if (source == kInvalidTensor || source == tensor)
        return Status::error("internal error: no kernel computes output " +
                             std::to_string(k));
    }
    b.setInsertionPointToEnd(copies->getBody());
    auto type =
        mlir::cast<mlir::RankedTensorType>(func.getFunctionType().getResult(k));
    auto copy = mlir::func::FuncOp::create(b, b.getUnknownLoc(),
                                           "copy_output_" + std::to_string(k),
                                           b.getFunctionType({type}, {}));
    mlir::Block *entry = copy.addEntryBlock();
    b.setInsertionPointToStart(entry);
    auto fusion = fd::FusionOp::create(
        b, b.getUnknownLoc(), mlir::TypeRange{type},
        fd::ScheduleKind::pointwise, mlir::ValueRange{entry->getArgument(0)});
    mlir::Block *block = b.createBlock(&fusion.getBody());
    mlir::Value arg = block->addArgument(type, b.getUnknownLoc());
    fd::YieldOp::create(b, b.getUnknownLoc(), arg);
    KernelBinding out{BindingKind::GraphOutput, k};
    if (Status status = addFusion(fusion, {source}, {tensor}, {out}, {});
        !status.ok())
      return status;
  }
  return Status::success();
}

llvm::SmallVector<mlir::Operation *> checkedOps(fd::FusionOp fusion) {
  llvm::SmallVector<mlir::Operation *> ops;
  fusion.getBody().walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
    if (mlir::isa<fd::GatherOp, fd::ScatterOp>(op))
      ops.push_back(op);
  });
  return ops;
}

Status tagOpIndices(mlir::func::FuncOp func, const Graph &graph) {
  std::uint32_t next = 0;
  mlir::Builder b(func.getContext());
  mlir::WalkResult walked = func.walk([&](mlir::Operation *op) {
    if (!isTensorOp(op))
      return mlir::WalkResult::advance();
    if (next >= graph.ops.size() ||
        op->getName().stripDialect().str() !=
            std::string(mnemonic(graph.ops[next].kind)))
      return mlir::WalkResult::interrupt();
    op->setAttr(kOpIndexAttr, b.getI64IntegerAttr(next++));
    return mlir::WalkResult::advance();
  });
  if (walked.wasInterrupted() || next != graph.ops.size())
    return Status::error("internal error: the function's ops do not match "
                         "the graph's ops one to one");
  return Status::success();
}

Status fuseModule(mlir::ModuleOp module, mlir::func::FuncOp func,
                  const CompileOptions &options,
                  std::string_view scheduleTarget,
                  DiagnosticCollector &diagnostics) {
  if (options.enableFusion) {
    mlir::PassManager pm(module.getContext());
    // Fails, changing nothing, where no tool registered the options.
    (void)mlir::applyPassManagerCLOptions(pm);
    fd::FusionPipelineOptions pipeline;
    pipeline.explain = options.explain;
    pipeline.target = std::string(scheduleTarget);
    fd::buildFusionPipeline(pm, pipeline);
    if (mlir::failed(pm.run(module)))
      return diagnostics.error("fusion failed");
    canonicalizeFusionOrders(func);
  }
  wrapEachOpInItsOwnFusion(func);
  return Status::success();
}

TensorId tensorOfValue(mlir::func::FuncOp func, const Graph &graph,
                       mlir::Value value) {
  if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(value)) {
    mlir::Operation *parent = arg.getOwner()->getParentOp();
    if (parent == func.getOperation())
      return graph.inputs[arg.getArgNumber()];
    if (auto fusion = mlir::dyn_cast<fd::FusionOp>(parent))
      return tensorOfValue(func, graph, fusion.getInputs()[arg.getArgNumber()]);
    return kInvalidTensor;
  }
  mlir::Operation *def = value.getDefiningOp();
  if (auto fusion = mlir::dyn_cast<fd::FusionOp>(def)) {
    auto yield =
        mlir::cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
    return tensorOfValue(
        func, graph,
        yield.getValues()[mlir::cast<mlir::OpResult>(value).getResultNumber()]);
  }
  if (auto index = def->getAttrOfType<mlir::IntegerAttr>(kOpIndexAttr))
    return graph.ops[index.getInt()]
        .results[mlir::cast<mlir::OpResult>(value).getResultNumber()];
  return kInvalidTensor;
}

TensorId tensorOfFusionResult(mlir::func::FuncOp func, const Graph &graph,
                              mlir::OpResult result) {
  // Only returned: the output, which a fold can have made the value of an
  // earlier op (x + 0 is x), is written in place, with no copy kernel.
  if (result.hasOneUse())
    if (mlir::OpOperand &use = *result.getUses().begin();
        mlir::isa<mlir::func::ReturnOp>(use.getOwner()))
      return graph.outputs[use.getOperandNumber()].tensor;
  TensorId tensor = tensorOfValue(func, graph, result);
  if (tensor != kInvalidTensor)
    return tensor;
  for (mlir::OpOperand &use : result.getUses())
    if (mlir::isa<mlir::func::ReturnOp>(use.getOwner()))
      return graph.outputs[use.getOperandNumber()].tensor;
  return kInvalidTensor;
}

Bundle newBundle(const Graph &graph, const Target &target) {
  Bundle bundle;
  bundle.graph = graph;
  bundle.target = target.name;
  bundle.versionId = versionId();
  bundle.inputs = graph.inputs;
  for (const GraphOutput &output : graph.outputs)
    bundle.outputs.push_back(output.tensor);
  return bundle;
}

BufferAssignment::BufferAssignment(const Graph &graph) : graph(graph) {
  // emplace keeps the first home: an output that is an input stays the
  // input's buffer.
  for (std::uint32_t i = 0; i < graph.inputs.size(); ++i)
    homes.emplace(graph.inputs[i], KernelBinding{BindingKind::GraphInput, i});
  for (std::uint32_t i = 0; i < graph.outputs.size(); ++i)
    homes.emplace(graph.outputs[i].tensor,
                  KernelBinding{BindingKind::GraphOutput, i});
}

void BufferAssignment::use(std::uint32_t request, std::uint32_t kernel) {
  requests[request].firstUse = std::min(requests[request].firstUse, kernel);
  requests[request].lastUse = std::max(requests[request].lastUse, kernel);
}

KernelBinding BufferAssignment::bind(TensorId tensor, std::uint32_t kernel) {
  if (auto it = homes.find(tensor); it != homes.end())
    return it->second;
  auto [it, inserted] =
      intermediateOf.emplace(tensor, std::uint32_t(requests.size()));
  if (inserted)
    // A symbolic size is 0 here; the driver gives the bundle its formula.
    requests.push_back({tensor,
                        graph.typeOf(tensor).isStatic()
                            ? std::uint64_t(graph.typeOf(tensor).byteSize())
                            : 0,
                        kernel, kernel});
  use(it->second, kernel);
  return {BindingKind::Intermediate, it->second};
}

} // namespace fuse::frontend
