//===- FuzzMlir.cpp - Fuzz target: the .mlir front door -------------------===//
//
// What fuse-run and fuse-compile do with a `.mlir` file before compiling:
// the nesting bound, MLIR's parser and verifier with the fuse dialect, then
// the Graph of the function (with the Graph verifier's checked element
// counts). Any text ends in a Graph or diagnostics, never a crash.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/GraphTranslation.h"
#include "tools/InputNesting.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  static mlir::MLIRContext *context = [] {
    auto *context = new mlir::MLIRContext();
    fuse::loadTranslationDialects(*context);
    context->disableMultithreading();
    return context;
  }();
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (fuse::checkMlirNesting(text))
    return 0;
  // Diagnostics are the expected outcome: keep them off the terminal.
  mlir::ScopedDiagnosticHandler quiet(
      context, [](mlir::Diagnostic &) { return mlir::success(); });
  // MLIR's lexer stops at a NUL, not at the end of its StringRef; the
  // fuzzer's bytes have none after them: parse a std::string, which does.
  std::string terminated(text);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(terminated, context);
  if (!module)
    return 0;
  (void)fuse::moduleToGraph(*module);
  return 0;
}
