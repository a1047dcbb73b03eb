//===- SelectSchedules.cpp - Record how each fusion runs ------------------===//
//
// Asks passes/ScheduleLegality for every fuse.fusion of the function and
// records its answer as the fusion's `fuse.schedule` attribute; a fusion the
// target cannot run fails the pass with the analysis' error.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/ScheduleLegality.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fuse {
#define GEN_PASS_DEF_FUSESELECTSCHEDULES
#include "passes/Passes.h.inc"
} // namespace mlir::fuse

using namespace mlir;
using namespace mlir::fuse;

namespace {

struct SelectSchedules
    : public mlir::fuse::impl::FuseSelectSchedulesBase<SelectSchedules> {
  using FuseSelectSchedulesBase::FuseSelectSchedulesBase;

  void runOnOperation() override {
    if (failed(refuseSymbolicDims(getOperation(), getArgument())))
      return signalPassFailure();
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
