//===- FusionFrontEnd.h - What every target's compiler does first -*- C++
//-*-===//
//
// The steps HostCompiler and GpuCompiler share before code generation: the
// op-index marks that let kernels name the Graph ops they cover, fusion (the
// registered pipeline, or one fusion per op when fusion is off), and the
// collection of MLIR diagnostics into a Status and remarks. A compiler-side
// header: it includes MLIR, so the runtime never sees it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_FUSIONFRONTEND_H
#define FUSE_COMPILER_FUSIONFRONTEND_H

#include "dialect/FuseOps.h"
#include "runtime/Compiler.h"
#include "runtime/cache/ArenaPlanner.h"
#include "runtime/cache/Bundle.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/Status.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fuse::frontend {

/// Marks each fuse op with its index in Graph::ops, so that kernels can name
/// the ops they cover and their results' tensors after fusion moved, cloned
/// and regrouped them.
inline constexpr llvm::StringLiteral kOpIndexAttr = "fuse.op_index";
inline constexpr llvm::StringLiteral kFusionPipeline = "fuse-fusion-pipeline";

void registerFusePassesOnce();

/// A fuse op of the op table (not fuse.fusion or fuse.yield).
bool isTensorOp(mlir::Operation *op);

/// Collects diagnostics as text, errors and remarks apart.
struct DiagnosticCollector {
  explicit DiagnosticCollector(mlir::MLIRContext &context);

  Status error(const std::string &what) const {
    return Status::error(what + (errors.empty() ? "" : ": " + errors));
  }

  std::string errors;
  std::vector<std::string> remarks;
  mlir::ScopedDiagnosticHandler handler;
};

/// The ops of `fusion` whose run-time checks its kernels report in their
/// error record (KernelAbi.h), in record order: its gathers and scatters, in
/// body order. Every kernel of the fusion takes the same record, whichever
/// of them it evaluates.
llvm::SmallVector<mlir::Operation *> checkedOps(mlir::fuse::FusionOp fusion);

/// Schedule kind of a fusion that holds one op alone.
mlir::fuse::ScheduleKind singleOpSchedule(mlir::Operation *op);

/// Puts the ops of `fusion` in an order of their data flow alone (each after
/// the ops of its operands, depth first from the yielded values) and its
/// inputs in the order of their first use, permuting its operands and block
/// arguments alike: fusions that differ only in the block order of their
/// independent ops (a layer's mask ops before or after its Q K^T) become the
/// same text, so that they share one kernel. A fusion holding ops with
/// regions (a horizontal fusion's members) is left as it is.
void canonicalizeFusionOrder(mlir::fuse::FusionOp fusion);
/// canonicalizeFusionOrder on each fusion of `func`'s body.
void canonicalizeFusionOrders(mlir::func::FuncOp func);

/// The fallback while passes/ has no fusion pipeline (or fusion is off):
/// every tensor op becomes a fuse.fusion of its own; splat constants are
/// cloned into their consumers, as fuse-outline-fusions does.
void wrapEachOpInItsOwnFusion(mlir::func::FuncOp func);

/// Generates every fusion of `func` in order with `generate`, stopping at the
/// first failure. Fusion forms only kernels the target's schedules can run
/// (fuse-form-fusions' `target`), so a refusal here is a fusion written by
/// hand that no schedule runs: the error says which op prevents it.
Status
generateFusions(mlir::func::FuncOp func,
                llvm::function_ref<Status(mlir::fuse::FusionOp)> generate);

/// The Graph tensors a fusion reads and computes, and the Graph ops it
/// covers (sorted).
struct FusionTensors {
  std::vector<TensorId> inputs;
  std::vector<TensorId> results;
  std::vector<std::uint32_t> coveredOps;
};
Expected<FusionTensors> fusionTensors(mlir::func::FuncOp func,
                                      const Graph &graph,
                                      mlir::fuse::FusionOp fusion);

/// What a compiler does with one fusion: emit its kernels into its kernel
/// module and add them to the bundle, binding `inputs` and `results` (or,
/// where given, `resultBindings`), recording the tensors it writes.
using AddFusionFn = llvm::function_ref<Status(
    mlir::fuse::FusionOp fusion, llvm::ArrayRef<TensorId> inputs,
    llvm::ArrayRef<TensorId> results,
    llvm::ArrayRef<KernelBinding> resultBindings,
    std::vector<std::uint32_t> coveredOps)>;

class BufferAssignment;

/// Every kernel of `func`: its fusions in order (generateFusions, through
/// `addFusion`), then a copy kernel for each graph output that no kernel
/// writes to its own buffer (an input returned as is, one tensor returned
/// twice, or an output a fold made equal to another value). `written` holds
/// the tensors addFusion wrote.
Status generateKernels(mlir::func::FuncOp func, const Graph &graph,
                       mlir::ModuleOp kernelModule,
                       const BufferAssignment &buffers,
                       const std::set<TensorId> &written,
                       DiagnosticCollector &diagnostics, AddFusionFn addFusion);

/// Tags every tensor op of `func` with its index in `graph.ops` (the order in
/// which graphToModule emits them and funcToGraph reads them).
Status tagOpIndices(mlir::func::FuncOp func, const Graph &graph);

/// Fuses `module` with the fusion pipeline when `options` enable fusion,
/// forming only kernels that `scheduleTarget`'s ("host", "gpu") schedules can
/// run, then gives every op left outside a fusion (all of them without
/// fusion) a kernel of its own.
Status fuseModule(mlir::ModuleOp module, mlir::func::FuncOp func,
                  const CompileOptions &options,
                  std::string_view scheduleTarget,
                  DiagnosticCollector &diagnostics);

/// The Graph tensor that `value` (of `func` or of one of its fusion regions)
/// holds; kInvalidTensor for a value that is none.
TensorId tensorOfValue(mlir::func::FuncOp func, const Graph &graph,
                       mlir::Value value);

/// The Graph tensor that result `result` of a fusion computes: the graph
/// output where the function only returns it. Folding can leave a result
/// that no graph op computes (a reduction over an empty axis becomes a
/// constant, and with it what follows), or one an earlier op computes (x + 0
/// is x): where the result is returned, the graph output names it.
/// kInvalidTensor otherwise.
TensorId tensorOfFusionResult(mlir::func::FuncOp func, const Graph &graph,
                              mlir::OpResult result);

/// A bundle of `graph` for `target` with no kernels yet.
Bundle newBundle(const Graph &graph, const Target &target);

/// Where the tensors that kernels bind live: graph inputs and outputs in the
/// caller's buffers, everything else in arena requests whose live ranges grow
/// with each kernel that binds them.
class BufferAssignment {
public:
  explicit BufferAssignment(const Graph &graph);

  KernelBinding bind(TensorId tensor, std::uint32_t kernel);
  /// Extends request `request`'s live range to `kernel`.
  void use(std::uint32_t request, std::uint32_t kernel);
  /// The caller's buffer of a graph input or output.
  KernelBinding home(TensorId tensor) const { return homes.at(tensor); }

  /// Intermediates by tensor, and the scratch buffers compilers add.
  std::vector<ArenaRequest> requests;

private:
  const Graph &graph;
  std::map<TensorId, KernelBinding> homes;
  std::map<TensorId, std::uint32_t> intermediateOf;
};

} // namespace fuse::frontend

#endif // FUSE_COMPILER_FUSIONFRONTEND_H
