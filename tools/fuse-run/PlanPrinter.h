//===- PlanPrinter.h - fuse-run's --print-plan and --dot --------*- C++ -*-===//
//
// The plan of a bundle as fuse-run shows it: its kernels in launch order
// with their schedules, ops and traffic (the bytes each reads and writes),
// as text or as a Graphviz graph of the ops clustered by kernel.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_PLANPRINTER_H
#define FUSE_TOOLS_FUSE_RUN_PLANPRINTER_H

#include "runtime/cache/Bundle.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace fuse {

/// The name of the bundle's first kernel whose code `kernel` runs (the same
/// entry), where that is another kernel; empty where it is `kernel` itself.
std::string sharedCodeOf(const Bundle &bundle, const BundleKernel &kernel);

/// --print-plan: one line a kernel (schedule, op count, bytes read and
/// written), its ops, and the totals with the arena's size.
void printPlanText(const Bundle &bundle, llvm::raw_ostream &os);

/// --dot: the inputs, the ops clustered by kernel, and the outputs.
void printPlanDot(const Bundle &bundle, const std::string &title,
                  const std::vector<std::string> &inputNames,
                  const std::vector<std::string> &outputNames,
                  llvm::raw_ostream &os);

} // namespace fuse

#endif // FUSE_TOOLS_FUSE_RUN_PLANPRINTER_H
