//===- GraphTranslation.h - Graph <-> fuse dialect ---------------*- C++
//-*-===//
//
// Translates a runtime Graph into a `func.func` of `fuse` ops and back. The
// way back lets a `.mlir` file run on the reference runtime and be keyed in
// the cache like any other graph. Every op of the op table translates both
// ways, and a round trip Graph -> MLIR -> Graph gives an equal Graph (names
// of inputs, outputs and intermediates included: they travel as argument and
// result attributes and as NameLoc locations).
//
// Only light MLIR forward declarations here; the implementation holds the
// dialect headers.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_GRAPHTRANSLATION_H
#define FUSE_COMPILER_GRAPHTRANSLATION_H

#include "runtime/ir/Graph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace fuse {

/// The argument/result attribute that carries a Graph tensor's name.
inline constexpr llvm::StringLiteral kTensorNameAttr = "fuse.name";
/// Function attributes of a symbolic graph (issue 22): its dim symbols in
/// order of declaration (an array of strings) and its expression table (a
/// #fuse.dims). The types name their dims themselves (#fuse.dims
/// encodings); these only let the way back rebuild the table in its order.
inline constexpr llvm::StringLiteral kDimSymbolsAttr = "fuse.dim_symbols";
inline constexpr llvm::StringLiteral kDimTableAttr = "fuse.dim_table";

/// Registers and loads the dialects a translated function uses.
void loadTranslationDialects(mlir::MLIRContext &context);

/// A module with one `func.func @<funcName>` computing `graph`: its
/// arguments are the graph's inputs, its results the graph's outputs. A
/// symbolic graph's dims become `?` named by #fuse.dims encodings (a splat
/// constant of symbolic shape has no dialect form yet and is an error).
/// Fails (with an MLIR diagnostic) only when the graph is invalid.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
graphToModule(mlir::MLIRContext &context, const Graph &graph,
              llvm::StringRef funcName = "main");

/// The Graph computed by `func`. Ops inside `fuse.fusion` regions are
/// flattened into the graph in order. Any op that is not a `fuse` tensor op
/// (or func.return) is an error reported at its location.
mlir::FailureOr<Graph> funcToGraph(mlir::func::FuncOp func);

/// The Graph of the only (or the named) function of `module`.
mlir::FailureOr<Graph> moduleToGraph(mlir::ModuleOp module,
                                     llvm::StringRef funcName = {});

} // namespace fuse

#endif // FUSE_COMPILER_GRAPHTRANSLATION_H
