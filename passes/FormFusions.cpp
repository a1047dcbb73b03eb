//===- FormFusions.cpp - Group tensor ops into kernels --------------------===//
//
// Greedy grouping over the producer/consumer DAG of each block. Whether a
// merge is legal and what it saves comes from FusionCostModel; this file only
// decides in which order merges are tried and explains the decisions. It marks
// ops with `fuse.group` and never moves or creates ops.
//
//===----------------------------------------------------------------------===//

#include "passes/FusionCostModel.h"
#include "passes/Passes.h"
#include "passes/RepresentativeDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSEFORMFUSIONS
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// One candidate kernel while groups grow.
struct Group {
  SmallVector<Operation *> ops; // in no particular order
  int64_t trafficBytes;
  bool hasMatmul;
  unsigned lastPosition; // of its ops in the block
};

/// The groups of one block and the merges between them.
class GroupPlanner {
public:
  GroupPlanner(Block &block, const CostModel &model, AsmState *names,
               bool verifyIncremental)
      : block(block), model(model), names(names),
        verifyIncremental(verifyIncremental), plans(block, model) {}

  /// Groups the block's fusible ops and marks them with `fuse.group`.
  void run();

  unsigned kernelsBefore = 0, kernelsAfter = 0, numMerges = 0, numRefusals = 0;
  int64_t bytesBefore = 0, bytesAfter = 0;
  /// verify-incremental found a verdict that planKernel does not share.
  bool disagreed = false;

private:
  void formAttention(MatmulOp output);
  void pullSideProducers(Operation *consumer);
  void growEpilogue(Operation *matmul);
  bool reshapesKeptOutput(Operation *member, Operation *user,
                          Operation *matmul);
  bool transposesForMatmulB(Operation *user);
  bool transposesKeptOutputForMatmulB(Operation *op);
  /// Consumers first, in reverse block order, each pulling in its
  /// producers' groups (those without a matmul), until nothing merges;
  /// only the consumers `sweeps` holds, where it is given.
  void pullProducers(const llvm::DenseSet<Operation *> *sweeps);
  /// The ops of depthwise convolutions' window kernels and their
  /// epilogues: from each im2col read only by slices (fuse-lower-
  /// convolutions' sum over window offsets), its users' users, up to an op
  /// that a window kernel cannot hold (a reduction, a matmul, another
  /// window op) or a concat, gather or scatter.
  llvm::DenseSet<Operation *> depthwiseCones();
  void pullCheapProducers(Operation *consumer);
  bool tryMerge(Operation *producer, Operation *consumer);
  Operation *findPathOutside(unsigned from, unsigned to, bool inOrder);
  Group &groupOf(Operation *op) { return groups[groupIds.lookup(op)]; }
  SmallVector<Operation *> inBlockOrder(ArrayRef<Operation *> ops);
  std::string describe(Operation *op);

  Block &block;
  const CostModel &model;
  AsmState *names;
  bool verifyIncremental;
  DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> fusibleOps;
  DenseMap<Operation *, unsigned> groupIds;
  SmallVector<Group> groups;
  GroupPlans plans;
  /// The last refusal of each pair, with the sizes its groups had then: a
  /// pair is tried again only once either group has grown. Refusals are
  /// explained at the end, for the pairs that stayed apart.
  struct Refusal {
    size_t producerSize, consumerSize;
    std::string why;
  };
  llvm::MapVector<std::pair<Operation *, Operation *>, Refusal> refusals;
};

} // namespace

std::string GroupPlanner::describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (op->getNumResults() != 0) {
    op->getResult(0).printAsOperand(os, *names);
    os << " ";
  }
  os << "(" << op->getName().getStringRef() << ")";
  return text;
}

void GroupPlanner::run() {
  CostModel unlimited;
  for (Operation &op : block) {
    position[&op] = position.size();
    if (!isFusible(&op))
      continue;
    fusibleOps.push_back(&op);
    std::string why;
    FailureOr<KernelPlan> plan = planKernel({&op}, unlimited, why);
    groupIds[&op] = groups.size();
    groups.push_back({{&op},
                      succeeded(plan) ? plan->trafficBytes : 0,
                      isa<MatmulOp>(op),
                      position[&op]});
    plans.addGroup(&op);
    bytesBefore += groups.back().trafficBytes;
  }
  kernelsBefore = fusibleOps.size();

  // 0. Attention: two matmuls and the row kernel between them (a softmax of
  // the scores), before epilogues and prologues split them.
  if (model.target.attention)
    for (Operation *op : fusibleOps)
      if (auto matmul = dyn_cast<MatmulOp>(op))
        formAttention(matmul);

  // 1. Matmul epilogues, so that an elementwise tail stays with its matmul.
  for (Operation *op : fusibleOps)
    if (isa<MatmulOp>(op))
      growEpilogue(op);

  // 1b. Depthwise convolutions' window kernels and their epilogues, before
  // a reduction of their output (a squeeze-and-excitation block's mean)
  // pulls the sum over window offsets into a row kernel as its prologue:
  // the im2col cannot join a row kernel and would be stored, 25 times the
  // input for a 5x5 window, with the sum a kernel of its own.
  llvm::DenseSet<Operation *> cones = depthwiseCones();
  if (!cones.empty())
    pullProducers(&cones);

  // 2. Everything else, consumers first: a consumer's group pulls in its
  // producers' groups, so that broadcasts join the kernel that reads them.
  // Sweeps repeat until nothing merges: a per-row value joins the kernel
  // of its broadcast only once its reduction is in its own group.
  pullProducers(nullptr);

  // 3. Matmul prologues: whole producer groups, now that they are formed.
  for (Operation *op : fusibleOps) {
    if (!isa<MatmulOp>(op))
      continue;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && isFusible(producer))
        tryMerge(producer, op);
    }
  }

  for (auto &[pair, refusal] : refusals) {
    auto [producer, consumer] = pair;
    if (groupIds.lookup(producer) == groupIds.lookup(consumer))
      continue;
    ++numRefusals;
    if (names)
      producer->emitRemark() << "not fused " << describe(producer) << " into "
                             << describe(consumer) << ": " << refusal.why;
  }

  DenseMap<unsigned, int64_t> numbering;
  for (Operation *op : fusibleOps) {
    unsigned id = groupIds.lookup(op);
    auto [it, inserted] = numbering.try_emplace(id, numbering.size());
    if (inserted) {
      ++kernelsAfter;
      bytesAfter += groups[id].trafficBytes;
    }
    op->setAttr(
        "fuse.group",
        IntegerAttr::get(IntegerType::get(op->getContext(), 64), it->second));
  }
}

void GroupPlanner::pullProducers(const llvm::DenseSet<Operation *> *sweeps) {
  for (unsigned before = ~0u; before != numMerges;) {
    before = numMerges;
    for (Operation *op : llvm::reverse(fusibleOps)) {
      if (groupOf(op).hasMatmul || (sweeps && !sweeps->contains(op)))
        continue;
      if (transposesKeptOutputForMatmulB(op))
        continue;
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && isFusible(producer) && !groupOf(producer).hasMatmul)
          tryMerge(producer, op);
      }
    }
  }
}

/// Whether `op` is a transpose for a matmul's B (transposesForMatmulB)
/// whose operand is stored anyway: also a result of the function or read
/// by another op. Merged into its producer's kernel, the transpose would be
/// a second output of the same elements, stored a lane at a time; apart,
/// it joins the matmul's prologue, which reads the one stored copy through
/// transpose_b. A decoder step's key cache: the present keys are an output
/// and the attention's Kᵀ their transpose (GPT-2's step wrote both, Kᵀ at
/// a stride of the past length).
bool GroupPlanner::transposesKeptOutputForMatmulB(Operation *op) {
  return transposesForMatmulB(op) && !op->getOperand(0).hasOneUse();
}

llvm::DenseSet<Operation *> GroupPlanner::depthwiseCones() {
  llvm::DenseSet<Operation *> cones;
  SmallVector<Operation *> work;
  for (Operation *op : fusibleOps)
    if (isa<Im2colOp>(op) && !op->use_empty() &&
        llvm::all_of(op->getUsers(),
                     [](Operation *user) { return isa<SliceOp>(user); }))
      work.push_back(op);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!cones.insert(op).second)
      continue;
    for (Operation *user : op->getUsers())
      if (user->getBlock() == &block && isFusible(user) &&
          !isa<ReduceOp, ArgMaxOp, ArgMinOp, MatmulOp, PoolOp, Im2colOp,
               ConcatOp, GatherOp, ScatterOp>(user))
        work.push_back(user);
  }
  return cones;
}

/// Most ops between the two matmuls of an attention kernel that are looked
/// at: a softmax with a scale and a mask is about ten.
constexpr unsigned kMaxAttentionSearch = 64;

void GroupPlanner::formAttention(MatmulOp output) {
  // The ops the lhs is computed from, up to a matmul, in this block.
  llvm::DenseSet<Operation *> cone;
  SmallVector<Operation *> work{output.getLhs().getDefiningOp()};
  MatmulOp scores;
  while (!work.empty() && cone.size() < kMaxAttentionSearch) {
    Operation *op = work.pop_back_val();
    if (!op || op->getBlock() != &block || !isFusible(op) ||
        !cone.insert(op).second)
      continue;
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      if (scores && scores != matmul)
        return;
      scores = matmul;
      continue;
    }
    for (Value operand : op->getOperands())
      work.push_back(operand.getDefiningOp());
  }
  if (!scores || !work.empty())
    return;
  // The ops on paths from the scores to the lhs; each still alone.
  SmallVector<Operation *> members{scores, output};
  llvm::DenseSet<Operation *> reached{scores};
  for (Operation *op :
       inBlockOrder(SmallVector<Operation *>(cone.begin(), cone.end()))) {
    if (op == scores || !llvm::any_of(op->getOperands(), [&](Value v) {
          return reached.contains(v.getDefiningOp());
        }))
      continue;
    reached.insert(op);
    members.push_back(op);
  }
  for (Operation *op : members)
    if (groupOf(op).ops.size() != 1)
      return;
  std::string why;
  FailureOr<KernelPlan> plan = planKernel(inBlockOrder(members), model, why);
  if (failed(plan) || plan->kind != ScheduleKind::attention) {
    if (names)
      output->emitRemark() << "no attention kernel for " << describe(output)
                           << ": " << why;
    return;
  }
  // One group: each member's (a single op) joins the output's.
  for (Operation *op : members) {
    if (op == output.getOperation())
      continue;
    unsigned from = groupIds.lookup(op), to = groupIds.lookup(output);
    plans.tryMerge(from, to);
    plans.commit(from, to, to);
    Group &target = groups[to];
    target.ops.append(groups[from].ops);
    target.lastPosition =
        std::max(target.lastPosition, groups[from].lastPosition);
    groupIds[op] = to;
    groups[from].ops.clear();
    ++numMerges;
  }
  groupOf(output).trafficBytes = plan->trafficBytes;
  if (names)
    output->emitRemark() << "attention kernel: " << describe(scores) << " and "
                         << describe(output) << " with " << members.size() - 2
                         << " ops between them";
  for (Operation *op : SmallVector<Operation *>(groupOf(output).ops))
    if (op != scores.getOperation() && op != output.getOperation())
      pullSideProducers(op);
}

/// Pulls the producers of an attention kernel's row ops that do not depend
/// on the scores (a mask, and what computes it from the model's inputs)
/// into it, so that no scores-sized mask is stored.
void GroupPlanner::pullSideProducers(Operation *consumer) {
  for (Value operand : consumer->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (!producer || producer->getBlock() != &block || !isFusible(producer) ||
        groupOf(producer).hasMatmul || groupOf(producer).ops.size() != 1)
      continue;
    if (tryMerge(producer, consumer))
      pullSideProducers(producer);
  }
}

void GroupPlanner::growEpilogue(Operation *matmul) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> members = inBlockOrder(groupOf(matmul).ops);
    for (Operation *member : members) {
      SmallVector<Operation *> users;
      for (Operation *user : member->getUsers())
        if (user->getBlock() == &block && isFusible(user) &&
            !llvm::is_contained(users, user))
          users.push_back(user);
      llvm::sort(users, [&](Operation *a, Operation *b) {
        return position[a] < position[b];
      });
      for (Operation *user : users) {
        if (groupIds.lookup(user) == groupIds.lookup(matmul) ||
            reshapesKeptOutput(member, user, matmul) ||
            transposesForMatmulB(user) || !tryMerge(member, user))
          continue;
        changed = true;
        pullCheapProducers(user);
      }
    }
  }
}

/// Whether `user` is a reshape of `member`'s result that another kernel
/// reads as well: in the epilogue the reshape would be a second output of
/// the same elements, written beside the first (resnet50's residual blocks
/// wrote each block's output twice, once for the next block's residual add
/// and once reshaped for its first convolution's matmul: 3.2 MB more per
/// layer-1 block). Left out, it joins its consumer, which reads the one
/// output through it. Other users that are cheap producers do not count:
/// DuplicateCheapProducers' copies of one reshape (a head split that two
/// rotary terms read) all join the epilogue as one output.
bool GroupPlanner::reshapesKeptOutput(Operation *member, Operation *user,
                                      Operation *matmul) {
  if (!isa<ReshapeOp>(user))
    return false;
  unsigned group = groupIds.lookup(matmul);
  return llvm::any_of(member->getUsers(), [&](Operation *other) {
    if (other == user)
      return false;
    if (other->getBlock() != &block || !isFusible(other))
      return true;
    return groupIds.lookup(other) != group && !isCheapProducer(other);
  });
}

/// Whether `user` is a transpose that moves its operand's innermost dim
/// (in an epilogue, a store scattered a lane at a time) whose one reader is
/// a matmul's B that fuse-fold-matmul-transposes reads through transpose_b
/// (transposeFoldedIntoRhs), where it then costs nothing: an exported
/// attention's Kᵀ ([0, 2, 3, 1] of the heads split from K's projection).
/// Left out of the projection's epilogue, it joins the matmul's prologue,
/// and the projection stores K's rows as they are (whisper's encoder: its
/// Q, K and V projections' kernel wrote Kᵀ at a stride of 1500 floats).
bool GroupPlanner::transposesForMatmulB(Operation *user) {
  auto transpose = dyn_cast<TransposeOp>(user);
  if (!transpose || !transpose->hasOneUse())
    return false;
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  const int64_t rank = permutation.size();
  if (rank == 0 || permutation[rank - 1] == rank - 1)
    return false;
  Value read = transpose.getResult();
  Operation *reader = *read.getUsers().begin();
  // Through a splat scale (transposeFoldedIntoRhs's): its one user.
  if (!isa<MatmulOp>(reader) && reader->getNumResults() == 1 &&
      reader->getResult(0).hasOneUse()) {
    read = reader->getResult(0);
    reader = *read.getUsers().begin();
  }
  auto matmul = dyn_cast<MatmulOp>(reader);
  return matmul && matmul.getRhs() == read &&
         transposeFoldedIntoRhs(read) == transpose.getOperation();
}

void GroupPlanner::pullCheapProducers(Operation *consumer) {
  for (Value operand : consumer->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (!producer || !isFusible(producer) || !isCheapProducer(producer) ||
        groupOf(producer).hasMatmul)
      continue;
    if (tryMerge(producer, consumer))
      pullCheapProducers(producer);
  }
}

SmallVector<Operation *> GroupPlanner::inBlockOrder(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> sorted(ops);
  llvm::sort(sorted, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  return sorted;
}

/// An op outside groups `from` and `to` on a path from `from` to `to`, or
/// null. The walk starts at the users of `from`'s outputs; `inOrder` starts
/// it from every op in block order instead, which finds the op an
/// explanation names (the same path exists or not either way).
Operation *GroupPlanner::findPathOutside(unsigned from, unsigned to,
                                         bool inOrder) {
  unsigned limit = groups[to].lastPosition;
  auto groupIdOf = [&](Operation *op) {
    auto it = groupIds.find(op);
    return it == groupIds.end() ? ~0u : it->second;
  };
  // (op, the first op outside both groups on the path to it)
  SmallVector<std::pair<Operation *, Operation *>> worklist;
  llvm::DenseSet<Operation *> visited;
  auto start = [&](Operation *user) {
    Operation *top = block.findAncestorOpInBlock(*user);
    if (!top || groupIdOf(top) == from || groupIdOf(top) == to)
      return;
    if (position[top] < limit && visited.insert(top).second)
      worklist.push_back({top, top});
  };
  if (inOrder) {
    for (Operation *op : inBlockOrder(groups[from].ops))
      for (Operation *user : op->getUsers())
        start(user);
  } else {
    plans.forEachOutput(from, [&](Value output) {
      for (Operation *user : output.getUsers())
        start(user);
    });
  }
  while (!worklist.empty()) {
    auto [op, via] = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      if (!top)
        continue;
      if (groupIdOf(top) == to)
        return via;
      if (position[top] < limit && visited.insert(top).second)
        worklist.push_back({top, via});
    }
  }
  return nullptr;
}

bool GroupPlanner::tryMerge(Operation *producer, Operation *consumer) {
  unsigned from = groupIds.lookup(producer), to = groupIds.lookup(consumer);
  if (from == to)
    return true;
  auto last = refusals.find({producer, consumer});
  if (last != refusals.end() &&
      last->second.producerSize == groups[from].ops.size() &&
      last->second.consumerSize == groups[to].ops.size())
    return false;

  std::string why;
  FailureOr<KernelPlan> plan = failure();
  Operation *via = findPathOutside(from, to, /*inOrder=*/false);
  if (!via)
    via = findPathOutside(to, from, /*inOrder=*/false);
  if (via && names) {
    via = findPathOutside(from, to, /*inOrder=*/true);
    if (!via)
      via = findPathOutside(to, from, /*inOrder=*/true);
  }
  GroupPlans::Verdict verdict;
  size_t numOps = countedOps(groups[from].ops) + countedOps(groups[to].ops);
  if (via) {
    why = "would create a cycle through " +
          (names ? describe(via) : std::string("another kernel"));
  } else if (numOps > model.maxOps) {
    why = "the kernel would hold " + std::to_string(numOps) +
          " ops, more than max-ops=" + std::to_string(model.maxOps);
  } else {
    // The incremental verdict, and planKernel where it does not decide or
    // an explanation needs planKernel's reason.
    verdict = plans.tryMerge(from, to);
    // verify-incremental compares every verdict with planKernel's.
    if (!verdict.decided || (!verdict.legal && names) || verifyIncremental) {
      SmallVector<Operation *> merged(groups[from].ops);
      merged.append(groups[to].ops);
      plan = planKernel(inBlockOrder(merged), model, why);
      if (verdict.decided &&
          (verdict.legal != succeeded(plan) ||
           (verdict.legal && (verdict.kind != plan->kind ||
                              verdict.trafficBytes != plan->trafficBytes)))) {
        consumer->emitError()
            << "fuse-form-fusions: the incremental verdict on fusing "
            << producer->getName() << " into this op ("
            << (verdict.legal ? "legal" : "illegal") << ", "
            << stringifyScheduleKind(verdict.kind) << ", "
            << verdict.trafficBytes << " B) is not planKernel's ("
            << (succeeded(plan) ? "legal" : "illegal: " + why) << ")";
        disagreed = true;
      }
    } else if (verdict.legal) {
      plan = KernelPlan();
      plan->kind = verdict.kind;
      plan->trafficBytes = verdict.trafficBytes;
    }
  }
  if (failed(plan)) {
    refusals[{producer, consumer}] = {groups[from].ops.size(),
                                      groups[to].ops.size(), std::move(why)};
    return false;
  }

  int64_t saved =
      groups[from].trafficBytes + groups[to].trafficBytes - plan->trafficBytes;
  if (names)
    producer->emitRemark() << "fused " << describe(producer) << " into "
                           << describe(consumer) << " ("
                           << stringifyScheduleKind(plan->kind) << "): saves "
                           << formatBytes(saved) << " of traffic";
  ++numMerges;
  // The smaller group joins the larger, so that an op changes group
  // O(log n) times.
  unsigned into = groups[from].ops.size() > groups[to].ops.size() ? from : to;
  unsigned other = into == from ? to : from;
  plans.commit(from, to, into);
  Group &target = groups[into];
  target.ops.append(groups[other].ops);
  target.trafficBytes = plan->trafficBytes;
  target.hasMatmul |= groups[other].hasMatmul;
  target.lastPosition =
      std::max(target.lastPosition, groups[other].lastPosition);
  for (Operation *op : groups[other].ops)
    groupIds[op] = into;
  groups[other].ops.clear();
  return true;
}

namespace {
struct FormFusionsPass
    : public fuse::impl::FuseFormFusionsBase<FormFusionsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto invalid = [&](StringRef option, int64_t value, int64_t least) {
      emitError(UnknownLoc::get(context))
          << "fuse-form-fusions: " << option << " must be at least " << least
          << ", got " << value;
      return failure();
    };
    if (maxLiveValues < 2)
      return invalid("max-live-values", maxLiveValues, 2);
    if (maxOperands < 2)
      return invalid("max-operands", maxOperands, 2);
    if (maxOps < 1)
      return invalid("max-ops", maxOps, 1);
    if (matmulTile < 1)
      return invalid("matmul-tile", matmulTile, 1);
    if (launchCostBytes < 0)
      return invalid("launch-cost-bytes", launchCostBytes, 0);
    if (target != "host" && target != "gpu") {
      emitError(UnknownLoc::get(context))
          << "fuse-form-fusions: unknown target '" << target
          << "'; expected host or gpu";
      return failure();
    }
    return success();
  }

  /// An error on the first fuse op with an operand or result that holds
  /// more than 2^48 bytes (tooLargeForKernels): no kernel can address it,
  /// and the cost model's counts would wrap (fuse-opt printed a fuse.exp
  /// over 2^62 x 2 elements as iterating over -2^63).
  static LogicalResult refuseTooLargeTensors(func::FuncOp func) {
    WalkResult walk = func.walk([](Operation *op) {
      if (!isa<FuseDialect>(op->getDialect()))
        return WalkResult::advance();
      auto refuse = [&](StringRef what, unsigned i, Type type) {
        op->emitOpError() << what << " #" << i << " is too large: " << type
                          << " holds more than 2^48 bytes";
        return WalkResult::interrupt();
      };
      for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
        if (tooLargeForKernels(type))
          return refuse("operand", unsigned(i), type);
      for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
        if (tooLargeForKernels(type))
          return refuse("result", unsigned(i), type);
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  void runOnOperation() override {
    // Symbolic dims count at representative sizes (issue 22).
    RepresentativeDimsScope dims(getOperation());
    func::FuncOp func = getOperation();
    if (failed(refuseTooLargeTensors(func)))
      return signalPassFailure();
    CostModel model;
    model.maxLiveValues = maxLiveValues;
    model.maxOperands = maxOperands;
    model.maxOps = maxOps;
    model.matmulTile = matmulTile;
    model.launchCostBytes = launchCostBytes;
    if (target == "gpu")
      model.target = ScheduleTarget::gpu();
    std::optional<AsmState> names;
    if (explain) {
      names.emplace(func);
      // Ops whose symbolic dims fusion cannot count stay alone.
      func.walk([](Operation *op) {
        if (isa<FuseDialect>(op->getDialect()))
          if (std::string why = unrepresentableDim(op); !why.empty())
            op->emitRemark() << "not fused: " << why;
      });
    }
    unsigned kernelsBefore = 0, kernelsAfter = 0;
    int64_t bytesBefore = 0, bytesAfter = 0;
    for (Block &block : func.getBody()) {
      GroupPlanner planner(block, model, names ? &*names : nullptr,
                           verifyIncremental);
      planner.run();
      if (planner.disagreed)
        return signalPassFailure();
      kernelsBefore += planner.kernelsBefore;
      kernelsAfter += planner.kernelsAfter;
      bytesBefore += planner.bytesBefore;
      bytesAfter += planner.bytesAfter;
      numFused += planner.numMerges;
      numRefused += planner.numRefusals;
    }
    numKernelsBefore += kernelsBefore;
    numKernelsAfter += kernelsAfter;
    numBytesBefore += bytesBefore;
    numBytesAfter += bytesAfter;
    // The statistics count only where LLVM was built with statistics on; the
    // summary remark always works.
    if (explain && kernelsBefore != 0)
      func.emitRemark() << "fusion: " << kernelsBefore << " kernels, "
                        << formatBytes(bytesBefore) << " of traffic -> "
                        << kernelsAfter << " kernels, "
                        << formatBytes(bytesAfter);
  }
};
} // namespace
