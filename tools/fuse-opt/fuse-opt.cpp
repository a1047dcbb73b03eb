//===- fuse-opt.cpp - mlir-opt for the fuse dialect -----------------------===//
//
// Runs passes over `.mlir` files like mlir-opt: the fuse dialect and passes,
// plus every upstream dialect and pass (our pipelines use func, arith, math,
// scf, memref, vector, gpu, nvvm and llvm; registering all keeps IR dumps
// from any stage readable by this one tool).
//
// A named input file is read as fuse-run and fuse-compile read theirs: a
// regular file only (a directory, a FIFO, /dev/zero or a link to one is an
// error naming the path, never a hang or an out-of-memory abort), at most
// 2^31 bytes, nested no deeper than MLIR's parser can take (InputNesting.h:
// 100,000 nested brackets overflowed its stack). Standard input ("-") is
// read as mlir-opt reads it, then checked the same way. A named output (-o)
// is opened as OutputStream.h says: a FIFO without a reader or a full disk is
// an error, not a hang or an abort.
//
//===----------------------------------------------------------------------===//

#include "dialect/FuseOps.h"
#include "passes/Passes.h"
#include "runtime/ir/RegularFile.h"
#include "tools/HelpCategories.h"
#include "tools/InputNesting.h"
#include "tools/OutputStream.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace {

int fail(const std::string &message) {
  llvm::errs() << "fuse-opt: error: " << message << "\n";
  return 1;
}

/// The input, read and checked as the header says; null after an error.
std::unique_ptr<llvm::MemoryBuffer> readInput(const std::string &path) {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (path == "-") {
    std::string error;
    buffer = mlir::openInputFile(path, &error);
    if (!buffer) {
      fail(error);
      return nullptr;
    }
  } else {
    fuse::Expected<std::string> file =
        fuse::readRegularFile(path, std::uint64_t(1) << 31);
    if (!file.ok()) {
      fail(file.message());
      return nullptr;
    }
    buffer = llvm::MemoryBuffer::getMemBufferCopy(*file, path);
  }
  if (std::optional<std::string> deep =
          fuse::checkMlirNesting(buffer->getBuffer())) {
    fail("'" + path + "': " + *deep);
    return nullptr;
  }
  return buffer;
}

} // namespace

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
  auto [inputName, outputName] = mlir::registerAndParseCLIOptions(
      argc, argv, "Fuse optimizer driver\n", registry);
  const mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects and --list-passes read no input: mlir-opt's own driver.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputName, outputName, registry));
  llvm::InitLLVM init(argc, argv);
  std::unique_ptr<llvm::MemoryBuffer> input = readInput(inputName);
  if (!input)
    return 1;
  if (outputName == "-")
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(llvm::outs(), std::move(input), registry, config));
  std::string error;
  std::unique_ptr<llvm::raw_fd_ostream> output =
      fuse::openUserOutput(outputName, error);
  if (!output)
    return fail(error);
  const bool ok = mlir::succeeded(
      mlir::MlirOptMain(*output, std::move(input), registry, config));
  if (!fuse::finishUserOutput(*output, outputName, error))
    return fail(error);
  return ok ? 0 : 1;
}
