//===- SelectSchedules.cpp - Record how each fusion runs ------------------===//
//
// Asks passes/ScheduleLegality for every fuse.fusion of the function and
// records its answer as the fusion's `fuse.schedule` attribute; a fusion the
// target cannot run fails the pass with the analysis' error.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/ScheduleLegality.h"

#include "dialect/FuseDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSESELECTSCHEDULES
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

/// A schedule records sizes (its rows, its elements): a fusion with a
/// symbolic dim (issue 22) is refused, naming the first such dim, until
/// schedules carry dim expressions (step C).
LogicalResult refuseSymbolicDims(FusionOp fusion) {
  std::string dim;
  fusion.walk([&](Operation *op) {
    dim = firstSymbolicDim(op);
    return dim.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (dim.empty())
    return success();
  return fusion.emitOpError()
         << "needs static dims for its schedule, but " << dim
         << " is symbolic; schedules of symbolic dims are not implemented "
            "yet (issue 22): bind the dims first";
}

struct SelectSchedules
    : public mlir::fuse::impl::FuseSelectSchedulesBase<SelectSchedules> {
  using FuseSelectSchedulesBase::FuseSelectSchedulesBase;

  void runOnOperation() override {
    ScheduleTarget scheduleTarget;
    if (target == "host") {
      unsigned width = vectorWidth;
      if (width == 0 || (width & (width - 1)) != 0) {
        getOperation().emitError()
            << "fuse-select-schedules: vector-width must be a power of two, "
               "not "
            << std::to_string(vectorWidth.getValue());
        return signalPassFailure();
      }
      scheduleTarget = ScheduleTarget::host(vectorWidth);
    } else if (target == "gpu") {
      scheduleTarget = ScheduleTarget::gpu();
    } else {
      getOperation().emitError() << "fuse-select-schedules: unknown target '"
                                 << target << "'; expected host or gpu";
      return signalPassFailure();
    }
    bool failedAny = false;
    getOperation().walk([&](FusionOp fusion) {
      if (failed(refuseSymbolicDims(fusion))) {
        failedAny = true;
        return;
      }
      FailureOr<DictionaryAttr> schedule =
          selectSchedule(fusion, scheduleTarget);
      if (failed(schedule)) {
        failedAny = true;
        return;
      }
      fusion->setAttr("fuse.schedule", *schedule);
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
