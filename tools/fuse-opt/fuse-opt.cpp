//===- fuse-opt.cpp - mlir-opt for the fuse dialect -----------------------===//
//
// Runs passes over `.mlir` files like mlir-opt: the fuse dialect and passes,
// plus every upstream dialect and pass (our pipelines use func, arith, math,
// scf, memref, vector, gpu, nvvm and llvm; registering all keeps IR dumps
// from any stage readable by this one tool).
//
//===----------------------------------------------------------------------===//

#include "dialect/FuseOps.h"
#include "passes/Passes.h"
#include "tools/HelpCategories.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // --help shows what mlir-opt's does (its options, the passes and theirs,
  // registered by MlirOptMain after this); the options LLVM registers
  // statically (backends, code generation) stay under --help-hidden.
  fuse::showOnlyInHelp({});
  mlir::registerAllPasses();
  mlir::fuse::registerFusePasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::fuse::FuseDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Fuse optimizer driver\n", registry));
}
