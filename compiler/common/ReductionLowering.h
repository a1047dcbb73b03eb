//===- ReductionLowering.h - fuse.reduce's accumulators, host and GPU -*- C++
//-*-===//
//
// How a fuse.reduce accumulates, for every schedule of both targets: the
// accumulator type and combining kind, the combine step, the exact value an
// accumulator starts from, and the finished result (a mean's division, the
// narrow integers' wrap). Which reductions a target refuses, and how it
// spreads one over lanes, threads and blocks, stay with the target.
//
// Internal to compiler/: it includes MLIR and must never be included by a
// header that tools or the runtime see.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_REDUCTIONLOWERING_H
#define FUSE_COMPILER_REDUCTIONLOWERING_H

#include "compiler/common/RegionEmitter.h"

namespace fuse {
namespace codegen {

/// A fuse.reduce as an accumulator type, a combining kind and (floats) the
/// value it starts from.
struct ReductionInfo {
  fd::ReduceOp op;
  Type accumulator;
  vector::CombiningKind combining;
  /// Floats only; integers take reductionIdentity's exact value.
  double identity;
};

/// A target's refusal of the reductions it cannot lower: an error at the
/// op naming the schedule, or the op's info.
using ClassifyReduction = FailureOr<ReductionInfo> (*)(fd::ReduceOp,
                                                       StringRef schedule);

/// Each reduction (fuse.reduce ops) of a `schedule` kernel through the
/// target's `classify`: their infos appended in order.
template <class Range>
LogicalResult classifyEach(Range &&reductions, StringRef schedule,
                           ClassifyReduction classify,
                           SmallVectorImpl<ReductionInfo> &infos) {
  for (auto reduction : reductions) {
    FailureOr<ReductionInfo> info = classify(
        cast<fd::ReduceOp>(static_cast<Operation *>(reduction)), schedule);
    if (failed(info))
      return failure();
    infos.push_back(*info);
  }
  return success();
}

/// A reduction over floats or integers (fuse.reduce takes no i1); the
/// target has checked that it lowers the element type.
inline ReductionInfo reductionInfo(fd::ReduceOp reduce) {
  Type element = elementTypeOf(reduce.getResult());
  bool isInteger = isa<IntegerType>(element);
  bool isUnsigned = isUnsignedElement(element);
  ReductionInfo info{reduce, computeType(element), vector::CombiningKind::ADD,
                     0.0};
  switch (reduce.getKind()) {
  case fd::ReduceKind::sum:
  case fd::ReduceKind::mean:
    break;
  case fd::ReduceKind::prod:
    info.combining = vector::CombiningKind::MUL;
    info.identity = 1.0;
    break;
  case fd::ReduceKind::max:
    info.combining = isUnsigned  ? vector::CombiningKind::MAXUI
                     : isInteger ? vector::CombiningKind::MAXSI
                                 : vector::CombiningKind::MAXIMUMF;
    info.identity = -std::numeric_limits<double>::infinity();
    break;
  case fd::ReduceKind::min:
    info.combining = isUnsigned  ? vector::CombiningKind::MINUI
                     : isInteger ? vector::CombiningKind::MINSI
                                 : vector::CombiningKind::MINIMUMF;
    info.identity = std::numeric_limits<double>::infinity();
    break;
  }
  return info;
}

inline Value combine(OpBuilder &b, Location loc, const ReductionInfo &r,
                     Value acc, Value x) {
  switch (r.combining) {
  case vector::CombiningKind::ADD:
    if (isa<IntegerType>(r.accumulator))
      return arith::AddIOp::create(b, loc, acc, x);
    return arith::AddFOp::create(b, loc, acc, x);
  case vector::CombiningKind::MUL:
    if (isa<IntegerType>(r.accumulator))
      return arith::MulIOp::create(b, loc, acc, x);
    return arith::MulFOp::create(b, loc, acc, x);
  case vector::CombiningKind::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, acc, x);
  case vector::CombiningKind::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, acc, x);
  case vector::CombiningKind::MAXSI:
    return arith::MaxSIOp::create(b, loc, acc, x);
  case vector::CombiningKind::MAXUI:
    return arith::MaxUIOp::create(b, loc, acc, x);
  case vector::CombiningKind::MINUI:
    return arith::MinUIOp::create(b, loc, acc, x);
  default:
    return arith::MinSIOp::create(b, loc, acc, x);
  }
}

/// The value every accumulator starts from, in the lowering's width: for
/// integers exact (an i64 min starts from INT64_MAX, which no double holds).
inline Value reductionIdentity(ScalarLowering &e, const ReductionInfo &r) {
  if (isa<FloatType>(r.accumulator))
    return e.constant(r.accumulator, r.identity);
  unsigned bits = r.accumulator.getIntOrFloatBitWidth();
  APInt value(bits, 0);
  switch (r.combining) {
  case vector::CombiningKind::MUL:
    value = APInt(bits, 1);
    break;
  case vector::CombiningKind::MAXSI:
    value = APInt::getSignedMinValue(bits);
    break;
  case vector::CombiningKind::MINSI:
    value = APInt::getSignedMaxValue(bits);
    break;
  case vector::CombiningKind::MINUI:
    value = APInt::getMaxValue(bits);
    break;
  default: // ADD, MAXUI: 0
    break;
  }
  return e.integerConstant(r.accumulator, value);
}

/// A finished reduction's result; a mean divides the sum by `count` (the
/// reference's: floats over no element give NaN, integers truncate and give
/// 0 over no element). The narrow integers accumulate in i8: their sum and
/// product wrap to the width here, before a mean divides.
inline Value finishReduction(OpBuilder &b, Location loc, ScalarLowering &e,
                             const ReductionInfo &r, Value result,
                             int64_t count) {
  Type element = elementTypeOf(fd::ReduceOp(r.op).getResult());
  if (isNarrowInteger(element))
    result = e.codec().wrap(result, element);
  if (fd::ReduceOp(r.op).getKind() != fd::ReduceKind::mean)
    return result;
  if (isa<FloatType>(r.accumulator))
    return arith::DivFOp::create(b, loc, result,
                                 e.constant(r.accumulator, double(count)));
  if (count == 0)
    return e.constant(r.accumulator, 0);
  // The wrapped sum divided in i64: the count need not fit the element. The
  // ui types read the sum unsigned.
  bool isUnsigned =
      isUnsignedElement(elementTypeOf(fd::ReduceOp(r.op).getResult()));
  Type i64 = b.getI64Type();
  unsigned bits = r.accumulator.getIntOrFloatBitWidth();
  Value wide = result;
  if (bits != 64)
    wide = isUnsigned
               ? Value(arith::ExtUIOp::create(b, loc, e.vectorOf(i64), result))
               : Value(arith::ExtSIOp::create(b, loc, e.vectorOf(i64), result));
  Value divisor = e.integerConstant(i64, APInt(64, count));
  Value mean = isUnsigned
                   ? Value(arith::DivUIOp::create(b, loc, wide, divisor))
                   : Value(arith::DivSIOp::create(b, loc, wide, divisor));
  if (bits == 64)
    return mean;
  return arith::TruncIOp::create(b, loc, e.vectorOf(r.accumulator), mean);
}

/// A reduction schedule as ScheduleLegality analyzed it (FullSchedule,
/// RowSchedule, ColumnSchedule), with the fusion's yielded values and the
/// infos of its reductions.
template <class Schedule> struct ReductionSchedule : Schedule {
  ValueRange yielded;
  SmallVector<ReductionInfo> infos;
};

/// The `analyzed` schedule of `fusion` (a failure passes through), its
/// reductions through the target's `classify` (errors name `name`, the
/// schedule's kind).
template <class Schedule>
FailureOr<ReductionSchedule<Schedule>>
classifySchedule(fd::FusionOp fusion, FailureOr<Schedule> analyzed,
                 StringRef name, ClassifyReduction classify) {
  if (failed(analyzed))
    return failure();
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  ReductionSchedule<Schedule> schedule{{*analyzed}, yield.getValues(), {}};
  if (failed(
          classifyEach(analyzed->reductions, name, classify, schedule.infos)))
    return failure();
  return schedule;
}

/// Each reduction's starting value in a vector of `width` lanes and in a
/// scalar: the accumulators of a loop's vector body and of its scalar tail.
struct ReductionStarts {
  SmallVector<Value> vector, scalar;
};

template <class Emitter>
ReductionStarts reductionStarts(OpBuilder &b, Location loc, unsigned width,
                                const DenseMap<Value, Value> &pointers,
                                ArrayRef<ReductionInfo> reductions) {
  Emitter vectorConstants(b, loc, width, pointers);
  Emitter scalarConstants(b, loc, 1, pointers);
  ReductionStarts starts;
  for (const ReductionInfo &r : reductions) {
    starts.vector.push_back(reductionIdentity(vectorConstants, r));
    starts.scalar.push_back(reductionIdentity(scalarConstants, r));
  }
  return starts;
}

/// One step of a reduction loop: `acc` combined with the reduction's operand
/// at `index`; a row kernel that reads the operand again also keeps it at
/// `stash` (RegionEmitterBase::storeStash) when given.
inline FailureOr<Value> combineAt(RegionEmitterBase &e, const ReductionInfo &r,
                                  Value acc, Index index, Value stash = {}) {
  FailureOr<Value> x = e.emit(fd::ReduceOp(r.op).getOperand(), index);
  if (failed(x))
    return failure();
  if (stash)
    e.storeStash(*x, stash, index);
  return combine(e.builder(), e.location(), r, acc, *x);
}

/// The step of a loop of one reduction alone: its accumulator (`carried`'s
/// only value) combined with its operand, kept at `stash` when given.
inline FailureOr<SmallVector<Value>>
combineStep(RegionEmitterBase &e, const ReductionInfo &r, Index index,
            ValueRange carried, Value stash = {}) {
  FailureOr<Value> next = combineAt(e, r, carried[0], index, stash);
  if (failed(next))
    return failure();
  return SmallVector<Value>{*next};
}

/// The step of a pass over the domain: the results over the domain stored
/// (results[k] in outputs[k]), then every reduction's accumulator of
/// `carried` combined with its operand (a full reduction's partials; a row
/// or column kernel's store pass has none).
inline FailureOr<SmallVector<Value>>
storeAndCombine(RegionEmitterBase &e, Index index, ValueRange yielded,
                ArrayRef<unsigned> results, ArrayRef<Value> outputs,
                ArrayRef<ReductionInfo> reductions, ValueRange carried) {
  if (failed(storeResults(e, index, yielded, results, outputs)))
    return failure();
  SmallVector<Value> next;
  for (auto [r, acc] : llvm::zip_equal(reductions, carried)) {
    FailureOr<Value> combined = combineAt(e, r, acc, index);
    if (failed(combined))
      return failure();
    next.push_back(*combined);
  }
  return next;
}

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_REDUCTIONLOWERING_H
