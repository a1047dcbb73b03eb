//===- OnnxImporter.h - ONNX models -> Graph --------------------*- C++ -*-===//
//
// Imports an ONNX model (a ModelProto file or its bytes) into a Graph with
// static shapes, and reads ONNX TensorProto files (the inputs and expected
// outputs of the ONNX backend tests).
//
// - Every dimension must be static: a dynamic one (a `dim_param`, or no
//   value) is an error naming the input and the dimension, unless
//   ImportOptions::dims binds it, by its `dim_param` name or as
//   "INPUT:INDEX" (or ImportOptions::symbolicDims keeps it symbolic).
// - The graph's inputs are the model's inputs (in the model's order, those
//   with an initializer excepted), then the weights: initializers, and
//   Constant values that are not splats, in order of first use.
//   A weight's value is returned in ImportedModel::weights, to be bound at
//   run time; constants whose elements are all equal become splats.
// - Nodes whose inputs are all constants (shape computations: Shape, Size,
//   ConstantOfShape, Gather of a shape, Concat, ...) are folded at import.
// - NumPy broadcasting becomes explicit `broadcast` ops.
// - An unsupported op, attribute or element type is an error naming the
//   node, the op and the opset version; a malformed file is an error, never
//   a crash.
//
// Plain C++ header: protobuf stays inside the implementation (FuseOnnx).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_ONNX_ONNXIMPORTER_H
#define FUSE_COMPILER_ONNX_ONNXIMPORTER_H

#include "runtime/ir/Graph.h"
#include "runtime/ir/Interpreter.h"
#include "runtime/ir/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fuse::onnximport {

struct ImportOptions {
  /// Values of dynamic dimensions, by `dim_param` name or "INPUT:INDEX".
  std::map<std::string, std::int64_t, std::less<>> dims;
  /// Model inputs whose values are known at import time (a shape, axes or
  /// indices given as an input): each becomes a constant, not a graph
  /// input. Its type must match the input's declared type.
  std::map<std::string, HostTensorData, std::less<>> constantInputs;
  /// Shapes of the values the caller will give for model inputs (fuse-run's
  /// --input files): a dynamic dimension that `dims` does not bind takes the
  /// size the given value has there (a named one must agree across inputs).
  std::map<std::string, std::vector<std::int64_t>, std::less<>> inputShapes;
  /// Leaves the dynamic dims that `dims` and `inputShapes` do not bind
  /// symbolic (Graph.h, "Symbolic dims"), named by their dim_param, or
  /// "INPUT:INDEX" when unnamed, instead of refusing them. The shape
  /// arithmetic of the exports (Shape, Gather, Concat, ... into Reshape,
  /// Expand, ConstantOfShape, Range, Slice) is carried as dim expressions;
  /// an op that meets a symbolic dim it cannot handle is an error naming
  /// the node. The graph is bound with bindDims before it is compiled or
  /// interpreted.
  ///
  /// Where a broadcast (or an elementwise op) meets a declared symbol on one
  /// side and another dim expression on the other, neither of them 1, the
  /// two are one dim: the symbol is replaced by the expression throughout
  /// (ImportedModel::unifiedDims), so that an exported decoder's
  /// attention_mask [batch, total_sequence] broadcast against its causal
  /// mask [sequence, past_sequence + sequence] becomes an input of type
  /// [batch, past_sequence + sequence], whose length is checked against
  /// the other inputs' dims when they are bound (dimsFromInputShapes). Two
  /// declared symbols unify too (the later declared one is replaced by the
  /// earlier). Either side being 1 at run time, which ONNX would broadcast,
  /// is then an error at binding: the import assumes a dim that it finds
  /// broadcast against a different one of the graph is not 1. A symbol
  /// against a static dim, and two expressions neither of which is a
  /// symbol (or a symbol against an expression that holds it), stay errors
  /// ("do not broadcast").
  bool symbolicDims = false;
};

/// ImportedModel::modelInputs entry of an input bound by constantInputs.
inline constexpr std::size_t kBoundAtImport = std::size_t(-1);

/// A declared dim of a symbolic import found equal to an expression of the
/// others (ImportOptions::symbolicDims): every input, output and op of the
/// graph has `expr` where the model declares `symbol`.
struct UnifiedDim {
  std::string symbol;
  DimExpr expr;
  /// The node whose broadcast showed it: "node with output 'allowed' (And,
  /// opset 17)".
  std::string where;
};

struct ImportedModel {
  Graph graph;
  /// One per graph input: the weight's value for initializers (and large
  /// constants), null for the model's own inputs. Shared, never changed: the
  /// value the importer read from the model, not a copy of it (with
  /// ParsedModel, shared by every import of the model); a caller that wants
  /// another value binds its own.
  std::vector<std::shared_ptr<const HostTensorData>> weights;
  /// The opset version of the default ("ai.onnx") domain.
  std::int64_t opsetVersion = 0;
  /// One per model input (not weights), in the model's order: its index in
  /// graph.inputs, or kBoundAtImport.
  std::vector<std::size_t> modelInputs;
  /// The declared dims replaced by expressions of the others, in the order
  /// found (ImportOptions::symbolicDims); their symbols are not in
  /// graph.dims.
  std::vector<UnifiedDim> unifiedDims;
};

struct ConstantInputNeed;

/// Imports the model in `path`; errors name the file. When the import fails
/// because an operand that must be a constant is computed from model inputs,
/// and `needs` is given, those inputs go there (see inputsNeededAsConstants):
/// a caller binds their values and imports again, without a second import
/// to ask.
Expected<ImportedModel>
importModelFile(const std::string &path, const ImportOptions &options = {},
                std::vector<ConstantInputNeed> *needs = nullptr);
/// Imports a serialized ModelProto.
Expected<ImportedModel>
importModel(std::string_view bytes, const ImportOptions &options = {},
            const std::string &sourceName = "<bytes>",
            std::vector<ConstantInputNeed> *needs = nullptr);

/// A model file read and parsed once, to be imported many times (at other
/// shapes: a decoder's generation loop imports it at every step).
class ParsedModel {
public:
  ~ParsedModel();
  ParsedModel(ParsedModel &&) noexcept;
  ParsedModel &operator=(ParsedModel &&) noexcept;
  /// Reads and parses `path`; errors name it.
  static Expected<ParsedModel> readFile(const std::string &path);
  /// importModelFile of the file, without reading or parsing it again.
  Expected<ImportedModel>
  import(const ImportOptions &options = {},
         std::vector<ConstantInputNeed> *needs = nullptr) const;

private:
  struct State;
  explicit ParsedModel(std::unique_ptr<State> state);
  std::unique_ptr<State> state;
};

struct NamedTensor {
  std::string name;
  HostTensorData value;
};

/// A serialized TensorProto: raw_data or the typed fields.
Expected<NamedTensor> parseTensorProto(std::string_view bytes);
/// Reads and parses a TensorProto file (`.pb`); errors name the path.
Expected<NamedTensor> readTensorProtoFile(const std::string &path);

/// The ONNX op types (default domain) the importer supports, sorted.
const std::vector<std::string> &supportedOps();
bool isSupportedOp(std::string_view opType);

/// The op types of a model's nodes (main graph), for tools that decide what
/// is in scope before importing.
Expected<std::vector<std::string>> modelOpTypes(const std::string &path);
/// The names of a model's inputs that have no initializer, in order.
Expected<std::vector<std::string>> modelInputNames(const std::string &path);

/// A model input (one without an initializer) as the model declares it.
struct DeclaredInput {
  std::string name;
  /// One per dim: its size, or -1 where it is dynamic (a dim_param or no
  /// value); empty when the model declares no shape.
  std::vector<std::int64_t> shape;
  /// One per dim: the dim_param, or empty.
  std::vector<std::string> dimNames;
  bool hasShape = false;
};
/// What a model declares of its interface.
struct ModelDeclarations {
  /// The inputs that have no initializer, in order.
  std::vector<DeclaredInput> inputs;
  /// The initializers' names: the weight inputs of an import whose values
  /// do not depend on the dims bound (other weight inputs are values folded
  /// at import, which may).
  std::set<std::string, std::less<>> initializers;
};
Expected<ModelDeclarations> modelDeclarations(const std::string &path);

/// A model input the importer needs as a constant: an operand that must be
/// known at import time (a Reshape's shape, a Gather's indices, a Slice's
/// starts) is computed from it.
struct ConstantInputNeed {
  std::string input;
  /// The operand, for people: "indices (input 1, 'ids') of node '/Gather'
  /// (Gather, opset 13)".
  std::string use;
};

/// The model inputs that importing `path` with `options` needs bound in
/// ImportOptions::constantInputs before it can go on: those the first
/// operand that must be a constant, and is not, is computed from. Empty when
/// the import needs none (it succeeds, or fails for another reason that
/// importModelFile reports). Once they are bound, an operand further on may
/// need others: bind and ask again until it returns none.
Expected<std::vector<ConstantInputNeed>>
inputsNeededAsConstants(const std::string &path,
                        const ImportOptions &options = {});

} // namespace fuse::onnximport

#endif // FUSE_COMPILER_ONNX_ONNXIMPORTER_H
