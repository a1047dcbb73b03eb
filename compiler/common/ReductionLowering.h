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
  mlir::Type accumulator;
  mlir::vector::CombiningKind combining;
  /// Floats only; integers take reductionIdentity's exact value.
  double identity;
};

/// A target's refusal of the reductions it cannot lower: an error at the
/// op naming the schedule, or the op's info.
using ClassifyReduction =
    mlir::FailureOr<ReductionInfo> (*)(fd::ReduceOp, mlir::StringRef schedule);

/// Each reduction (fuse.reduce ops) of a `schedule` kernel through the
/// target's `classify`: their infos appended in order.
template <class Range>
mlir::LogicalResult classifyEach(Range &&reductions, mlir::StringRef schedule,
                                 ClassifyReduction classify,
                                 mlir::SmallVectorImpl<ReductionInfo> &infos) {
  for (auto reduction : reductions) {
    mlir::FailureOr<ReductionInfo> info = classify(
        mlir::cast<fd::ReduceOp>(static_cast<mlir::Operation *>(reduction)),
        schedule);
    if (mlir::failed(info))
      return mlir::failure();
    infos.push_back(*info);
  }
  return mlir::success();
}

/// A reduction over floats or integers (fuse.reduce takes no i1); the
/// target has checked that it lowers the element type.
inline ReductionInfo reductionInfo(fd::ReduceOp reduce) {
  mlir::Type element = elementTypeOf(reduce.getResult());
  bool isInteger = mlir::isa<mlir::IntegerType>(element);
  bool isUnsigned = isUnsignedElement(element);
  ReductionInfo info{reduce, computeType(element),
                     mlir::vector::CombiningKind::ADD, 0.0};
  switch (reduce.getKind()) {
  case fd::ReduceKind::sum:
  case fd::ReduceKind::mean:
    break;
  case fd::ReduceKind::prod:
    info.combining = mlir::vector::CombiningKind::MUL;
    info.identity = 1.0;
    break;
  case fd::ReduceKind::max:
    info.combining = isUnsigned  ? mlir::vector::CombiningKind::MAXUI
                     : isInteger ? mlir::vector::CombiningKind::MAXSI
                                 : mlir::vector::CombiningKind::MAXIMUMF;
    info.identity = -std::numeric_limits<double>::infinity();
    break;
  case fd::ReduceKind::min:
    info.combining = isUnsigned  ? mlir::vector::CombiningKind::MINUI
                     : isInteger ? mlir::vector::CombiningKind::MINSI
                                 : mlir::vector::CombiningKind::MINIMUMF;
    info.identity = std::numeric_limits<double>::infinity();
    break;
  }
  return info;
}

inline mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc,
                           const ReductionInfo &r, mlir::Value acc,
                           mlir::Value x) {
  switch (r.combining) {
  case mlir::vector::CombiningKind::ADD:
    if (mlir::isa<mlir::IntegerType>(r.accumulator))
      return mlir::arith::AddIOp::create(b, loc, acc, x);
    return mlir::arith::AddFOp::create(b, loc, acc, x);
  case mlir::vector::CombiningKind::MUL:
    if (mlir::isa<mlir::IntegerType>(r.accumulator))
      return mlir::arith::MulIOp::create(b, loc, acc, x);
    return mlir::arith::MulFOp::create(b, loc, acc, x);
  case mlir::vector::CombiningKind::MAXIMUMF:
    return mlir::arith::MaximumFOp::create(b, loc, acc, x);
  case mlir::vector::CombiningKind::MINIMUMF:
    return mlir::arith::MinimumFOp::create(b, loc, acc, x);
  case mlir::vector::CombiningKind::MAXSI:
    return mlir::arith::MaxSIOp::create(b, loc, acc, x);
  case mlir::vector::CombiningKind::MAXUI:
    return mlir::arith::MaxUIOp::create(b, loc, acc, x);
  case mlir::vector::CombiningKind::MINUI:
    return mlir::arith::MinUIOp::create(b, loc, acc, x);
  default:
    return mlir::arith::MinSIOp::create(b, loc, acc, x);
  }
}

/// The value every accumulator starts from, in the lowering's width: for
/// integers exact (an i64 min starts from INT64_MAX, which no double holds).
inline mlir::Value reductionIdentity(ScalarLowering &e,
                                     const ReductionInfo &r) {
  if (mlir::isa<mlir::FloatType>(r.accumulator))
    return e.constant(r.accumulator, r.identity);
  unsigned bits = r.accumulator.getIntOrFloatBitWidth();
  mlir::APInt value(bits, 0);
  switch (r.combining) {
  case mlir::vector::CombiningKind::MUL:
    value = mlir::APInt(bits, 1);
    break;
  case mlir::vector::CombiningKind::MAXSI:
    value = mlir::APInt::getSignedMinValue(bits);
    break;
  case mlir::vector::CombiningKind::MINSI:
    value = mlir::APInt::getSignedMaxValue(bits);
    break;
  case mlir::vector::CombiningKind::MINUI:
    value = mlir::APInt::getMaxValue(bits);
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
inline mlir::Value finishReduction(mlir::OpBuilder &b, mlir::Location loc,
                                   ScalarLowering &e, const ReductionInfo &r,
                                   mlir::Value result, int64_t count) {
  mlir::Type element = elementTypeOf(fd::ReduceOp(r.op).getResult());
  if (isNarrowInteger(element))
    result = e.codec().wrap(result, element);
  if (fd::ReduceOp(r.op).getKind() != fd::ReduceKind::mean)
    return result;
  if (mlir::isa<mlir::FloatType>(r.accumulator))
    return mlir::arith::DivFOp::create(
        b, loc, result, e.constant(r.accumulator, double(count)));
  if (count == 0)
    return e.constant(r.accumulator, 0);
  // The wrapped sum divided in i64: the count need not fit the element. The
  // ui types read the sum unsigned.
  bool isUnsigned =
      isUnsignedElement(elementTypeOf(fd::ReduceOp(r.op).getResult()));
  mlir::Type i64 = b.getI64Type();
  unsigned bits = r.accumulator.getIntOrFloatBitWidth();
  mlir::Value wide = result;
  if (bits != 64)
    wide = isUnsigned ? mlir::Value(mlir::arith::ExtUIOp::create(
                            b, loc, e.vectorOf(i64), result))
                      : mlir::Value(mlir::arith::ExtSIOp::create(
                            b, loc, e.vectorOf(i64), result));
  mlir::Value divisor = e.integerConstant(i64, mlir::APInt(64, count));
  mlir::Value mean =
      isUnsigned
          ? mlir::Value(mlir::arith::DivUIOp::create(b, loc, wide, divisor))
          : mlir::Value(mlir::arith::DivSIOp::create(b, loc, wide, divisor));
  if (bits == 64)
    return mean;
  return mlir::arith::TruncIOp::create(b, loc, e.vectorOf(r.accumulator), mean);
}

/// A reduction schedule as ScheduleLegality analyzed it (FullSchedule,
/// RowSchedule, ColumnSchedule), with the fusion's yielded values and the
/// infos of its reductions.
template <class Schedule> struct ReductionSchedule : Schedule {
  mlir::ValueRange yielded;
  mlir::SmallVector<ReductionInfo> infos;
};

/// The `analyzed` schedule of `fusion` (a failure passes through), its
/// reductions through the target's `classify` (errors name `name`, the
/// schedule's kind).
template <class Schedule>
mlir::FailureOr<ReductionSchedule<Schedule>>
classifySchedule(fd::FusionOp fusion, mlir::FailureOr<Schedule> analyzed,
                 mlir::StringRef name, ClassifyReduction classify) {
  if (mlir::failed(analyzed))
    return mlir::failure();
  auto yield =
      mlir::cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  ReductionSchedule<Schedule> schedule{{*analyzed}, yield.getValues(), {}};
  if (mlir::failed(
          classifyEach(analyzed->reductions, name, classify, schedule.infos)))
    return mlir::failure();
  return schedule;
}

/// Each reduction's starting value in a vector of `width` lanes and in a
/// scalar: the accumulators of a loop's vector body and of its scalar tail.
struct ReductionStarts {
  mlir::SmallVector<mlir::Value> vector, scalar;
};

template <class Emitter>
ReductionStarts
reductionStarts(mlir::OpBuilder &b, mlir::Location loc, unsigned width,
                const mlir::DenseMap<mlir::Value, mlir::Value> &pointers,
                mlir::ArrayRef<ReductionInfo> reductions) {
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
inline mlir::FailureOr<mlir::Value> combineAt(RegionEmitterBase &e,
                                              const ReductionInfo &r,
                                              mlir::Value acc, Index index,
                                              mlir::Value stash = {}) {
  mlir::FailureOr<mlir::Value> x =
      e.emit(fd::ReduceOp(r.op).getOperand(), index);
  if (mlir::failed(x))
    return mlir::failure();
  if (stash)
    e.storeStash(*x, stash, index);
  return combine(e.builder(), e.location(), r, acc, *x);
}

/// The step of a loop of one reduction alone: its accumulator (`carried`'s
/// only value) combined with its operand, kept at `stash` when given.
inline mlir::FailureOr<mlir::SmallVector<mlir::Value>>
combineStep(RegionEmitterBase &e, const ReductionInfo &r, Index index,
            mlir::ValueRange carried, mlir::Value stash = {}) {
  mlir::FailureOr<mlir::Value> next = combineAt(e, r, carried[0], index, stash);
  if (mlir::failed(next))
    return mlir::failure();
  return mlir::SmallVector<mlir::Value>{*next};
}

/// The step of a pass over the domain: the results over the domain stored
/// (results[k] in outputs[k]), then every reduction's accumulator of
/// `carried` combined with its operand (a full reduction's partials; a row
/// or column kernel's store pass has none).
inline mlir::FailureOr<mlir::SmallVector<mlir::Value>> storeAndCombine(
    RegionEmitterBase &e, Index index, mlir::ValueRange yielded,
    mlir::ArrayRef<unsigned> results, mlir::ArrayRef<mlir::Value> outputs,
    mlir::ArrayRef<ReductionInfo> reductions, mlir::ValueRange carried) {
  if (mlir::failed(storeResults(e, index, yielded, results, outputs)))
    return mlir::failure();
  mlir::SmallVector<mlir::Value> next;
  for (auto [r, acc] : llvm::zip_equal(reductions, carried)) {
    mlir::FailureOr<mlir::Value> combined = combineAt(e, r, acc, index);
    if (mlir::failed(combined))
      return mlir::failure();
    next.push_back(*combined);
  }
  return next;
}

} // namespace codegen
} // namespace fuse

#endif // FUSE_COMPILER_REDUCTIONLOWERING_H
