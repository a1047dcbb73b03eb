//===- HostHorizontalEmitter.cpp - Several kernels in one launch ---------===//
//
// A `fuse.fusion horizontal` (fuse-horizontal-fusion) holds independent
// member fusions. Each member's kernels are emitted as they would be alone;
// launch j runs the j-th kernel of every member that has one, their
// iteration spaces laid end to end: the launch's function takes the
// horizontal fusion's buffers (its inputs, its results, one scratch that
// holds every member's scratch at its own offset), and for each member whose
// iterations meet [begin, end) it builds that member's buffer list and calls
// the member's kernel on its part of the range. The runtime's parallel loop
// thus shares out every member's work at once.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/AffineIndexMap.h"
#include "compiler/host/HostKernelEmitter.h"
#include "compiler/host/HostRegionEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace ::fuse::host;

namespace fuse {

namespace {

/// Alignment of each member's part of the shared scratch.
constexpr std::uint64_t kScratchAlignment = 64;

struct Member {
  fd::FusionOp fusion;
  FusionKernels kernels;
  /// Where its scratch starts in the horizontal fusion's.
  std::uint64_t scratchOffset = 0;
  /// The horizontal fusion's result that each of its results is.
  SmallVector<unsigned> resultIndex;
};

/// The horizontal fusion's buffer index of `operand` of a kernel of `member`
/// (inputs, then results, then the scratch), and whether it is the scratch.
unsigned outerBuffer(const Member &member, const KernelOperand &operand,
                     unsigned numInputs, unsigned numResults) {
  switch (operand.kind) {
  case KernelOperand::Kind::FusionInput:
    return cast<BlockArgument>(
               fd::FusionOp(member.fusion).getInputs()[operand.index])
        .getArgNumber();
  case KernelOperand::Kind::FusionResult:
    return numInputs + member.resultIndex[operand.index];
  case KernelOperand::Kind::Scratch:
    return numInputs + numResults;
  }
  llvm_unreachable("unknown kernel operand kind");
}

/// In the launch function: when [begin, end) meets the member's iterations
/// [offset, offset + count), calls the member's kernel `plan` on that part
/// with its own buffer list, built in `list`. With no `offset`, the launch
/// is the member's kernel's alone: the call takes [begin, end) as it is
/// (no count of iterations in the code).
void emitMemberCall(OpBuilder &b, Location loc, Value buffers, Value begin,
                    Value end, Value list, const Member &member,
                    const KernelPlan &plan, Value offset, Value count,
                    unsigned numInputs, unsigned numResults) {
  OpBuilder::InsertionGuard guard(b);
  Value lo = begin, hi = end;
  bool alone = !offset;
  if (!alone) {
    lo = arith::MaxSIOp::create(b, loc, begin, offset);
    hi = arith::MinSIOp::create(b, loc, end,
                                arith::AddIOp::create(b, loc, offset, count));
    Value meets =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lo, hi);
    auto ifOp = scf::IfOp::create(b, loc, meets, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  for (auto [slot, operand] : llvm::enumerate(plan.operands)) {
    Value pointer = bufferPointer(
        b, loc, buffers,
        int32_t(outerBuffer(member, operand, numInputs, numResults)));
    if (operand.kind == KernelOperand::Kind::Scratch &&
        member.scratchOffset != 0)
      pointer = LLVM::GEPOp::create(
          b, loc, ptr, b.getI8Type(), pointer,
          ArrayRef<LLVM::GEPArg>{int32_t(member.scratchOffset)});
    Value at = LLVM::GEPOp::create(b, loc, ptr, ptr, list,
                                   ArrayRef<LLVM::GEPArg>{int32_t(slot)});
    LLVM::StoreOp::create(b, loc, pointer, at, 8);
  }
  Value first =
      alone ? lo : arith::SubIOp::create(b, loc, lo, offset).getResult();
  Value last =
      alone ? hi : arith::SubIOp::create(b, loc, hi, offset).getResult();
  func::CallOp::create(b, loc, plan.entry, TypeRange(),
                       ValueRange{list, first, last});
}

/// The members of `fusion`, each with its kernels emitted.
FailureOr<SmallVector<Member>> emitMembers(fd::FusionOp fusion, ModuleOp module,
                                           StringRef prefix, unsigned width) {
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  SmallVector<Member> members;
  std::uint64_t scratch = 0;
  for (fd::FusionOp op : fusion.getBody().getOps<fd::FusionOp>()) {
    std::string name = (prefix + "_h" + Twine(members.size())).str();
    FailureOr<FusionKernels> kernels = emitHostKernels(op, module, name, width);
    if (failed(kernels))
      return failure();
    Member member{op, std::move(*kernels), scratch, {}};
    scratch += llvm::alignTo(member.kernels.scratchBytes, kScratchAlignment);
    for (OpResult result : op->getResults()) {
      auto uses = llvm::make_filter_range(result.getUses(), [&](OpOperand &u) {
        return u.getOwner() == yield.getOperation();
      });
      if (uses.empty())
        return op.emitOpError() << "result " << result.getResultNumber()
                                << " is not a result of its horizontal fusion";
      member.resultIndex.push_back((*uses.begin()).getOperandNumber());
    }
    members.push_back(std::move(member));
  }
  return members;
}

} // namespace

FailureOr<FusionKernels> emitHostHorizontal(fd::FusionOp fusion,
                                            ModuleOp module,
                                            StringRef namePrefix,
                                            unsigned width) {
  FailureOr<SmallVector<Member>> members =
      emitMembers(fusion, module, namePrefix, width);
  if (failed(members))
    return failure();
  unsigned numInputs = fusion.getInputs().size();
  unsigned numResults = fusion.getNumResults();
  FusionKernels kernels;
  std::size_t launches = 0;
  for (const Member &member : *members) {
    launches = std::max(launches, member.kernels.kernels.size());
    kernels.scratchBytes = std::max(
        kernels.scratchBytes,
        member.scratchOffset +
            llvm::alignTo(member.kernels.scratchBytes, kScratchAlignment));
  }
  SmallVector<unsigned> results(numResults);
  std::iota(results.begin(), results.end(), 0u);
  Location loc = fusion.getLoc();
  OpBuilder b(module.getContext());
  // With runtime dims (issue 22), the members' iteration counts may grow
  // with the dims: launch j lays the members' j-th kernels end to end at
  // offsets computed from the dims array where each count is the same
  // product of dims times a constant of its own (the Q, K and V
  // projections' rows, batch*sequence), so that the launch's count is that
  // product too (KernelCompiler, emitSymbolic). Otherwise each member's
  // kernel is a launch of its own, given the launch's [begin, end) as it
  // is (a weight's packing, a constant count, runs once per binding).
  auto dims = fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr);
  bool runtime = bool(dims);
  auto sameProduct = [&](std::size_t j) {
    std::optional<SmallVector<unsigned>> product;
    for (const Member &member : *members) {
      if (j >= member.kernels.kernels.size())
        return false;
      codegen::RuntimeFactors factors = codegen::runtimeFactors(
          dims, member.kernels.kernels[j].launch.iterations);
      llvm::sort(factors.dims);
      if (factors.dims.empty() || (product && *product != factors.dims))
        return false;
      product = factors.dims;
    }
    return members->size() > 1;
  };
  SmallVector<SmallVector<std::pair<const Member *, std::size_t>>> parts;
  for (std::size_t j = 0; j < launches; ++j) {
    if (!runtime || sameProduct(j)) {
      parts.emplace_back();
      for (const Member &member : *members)
        if (j < member.kernels.kernels.size())
          parts.back().push_back({&member, j});
      continue;
    }
    for (const Member &member : *members)
      if (j < member.kernels.kernels.size())
        parts.push_back({{&member, j}});
  }
  for (auto [index, launch] : llvm::enumerate(parts)) {
    std::string name = (namePrefix + "_horizontal" +
                        (parts.size() > 1 ? "_" + Twine(index) : Twine()))
                           .str();
    func::FuncOp func = createKernelFunc(b, module, loc, name);
    Value buffers = func.getArgument(0);
    std::size_t longest = 0;
    for (auto [member, j] : launch)
      longest = std::max(longest, member->kernels.kernels[j].operands.size());
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    // A member that reads the dims array finds it at its list's [-2] (and
    // the error record at [-1]): the launch's own, copied before the list.
    bool readsDims =
        runtime && llvm::any_of(launch, [&](const auto &memberPart) {
          auto callee = module.lookupSymbol<func::FuncOp>(
              memberPart.first->kernels.kernels[memberPart.second].entry);
          return callee && codegen::readsDimsArray(callee);
        });
    int32_t header = readsDims ? 2 : 0;
    Value list = LLVM::AllocaOp::create(
        b, loc, ptr, ptr, i64Constant(b, loc, int64_t(longest) + header), 8);
    if (readsDims) {
      for (int32_t at : {0, 1})
        LLVM::StoreOp::create(b, loc, bufferPointer(b, loc, buffers, at - 2),
                              LLVM::GEPOp::create(b, loc, ptr, ptr, list,
                                                  ArrayRef<LLVM::GEPArg>{at}),
                              8);
      list = LLVM::GEPOp::create(b, loc, ptr, ptr, list,
                                 ArrayRef<LLVM::GEPArg>{header});
    }
    KernelPlan plan =
        kernelPlan(name, "", ScheduleKind::Horizontal, numInputs, results,
                   /*scratch=*/kernels.scratchBytes != 0);
    int64_t offset = 0, grain = std::numeric_limits<int64_t>::max();
    // A launch of several members with runtime dims: each member's offset
    // and count from the dims array (runtimeSize).
    bool alone = launch.size() == 1 && runtime;
    Value runningOffset;
    // Once per binding only if every member's part is (their packs of
    // weights): one part that runs per run makes the launch run per run.
    plan.perBinding = true;
    for (auto [memberOf, j] : launch) {
      const Member &member = *memberOf;
      const KernelPlan &part = member.kernels.kernels[j];
      plan.perBinding = plan.perBinding && part.perBinding;
      if (!part.targetSuffix.empty())
        plan.targetSuffix = part.targetSuffix;
      for (unsigned read : part.bindingReads)
        plan.bindingReads.push_back(
            outerBuffer(member, {KernelOperand::Kind::FusionInput, read},
                        numInputs, numResults));
      Value at, count;
      if (!alone && runtime) {
        at = runningOffset ? runningOffset : i64Constant(b, loc, 0);
        count =
            codegen::runtimeSize(b, loc, dims, func, part.launch.iterations);
        runningOffset = arith::AddIOp::create(b, loc, at, count);
      } else if (!alone) {
        at = i64Constant(b, loc, offset);
        count = i64Constant(b, loc, part.launch.iterations);
      }
      emitMemberCall(b, loc, buffers, func.getArgument(1), func.getArgument(2),
                     list, member, part, at, count, numInputs, numResults);
      offset += part.launch.iterations;
      if (part.launch.iterations > 0)
        grain = std::min(grain, std::max<int64_t>(part.launch.grain, 1));
      plan.callees.push_back(part.entry);
    }
    if (!plan.perBinding)
      plan.bindingReads.clear();
    llvm::sort(plan.bindingReads);
    plan.bindingReads.erase(llvm::unique(plan.bindingReads),
                            plan.bindingReads.end());
    plan.launch.iterations = offset;
    plan.launch.grain =
        grain == std::numeric_limits<int64_t>::max() ? 1 : grain;
    kernels.kernels.push_back(std::move(plan));
  }
  return kernels;
}

} // namespace fuse
