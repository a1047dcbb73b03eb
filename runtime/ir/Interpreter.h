//===- Interpreter.h - Reference evaluation of a Graph ----------*- C++ -*-===//
//
// The reference semantics of every op of Ops.def, on host buffers: what the
// ReferenceRuntime runs and what every other back end is compared with. It is
// written to be obviously right, not fast: floats are computed in double
// (f16, bf16 and f32 read exactly into double) and each op's result is
// rounded once to its tensor's element type; integers are computed exactly
// with the wrap-around of their width; reductions and matmul accumulate in
// index order. Op semantics are those documented in Graph.h.
//
// Buffers are row-major, densely packed, in the storage format of
// ElementType.h. The interpreter never owns a caller's buffer; results of
// ops whose tensor has no buffer bound live in temporaries for the length of
// one call. A result buffer may overlap an operand's (in-place writes).
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_INTERPRETER_H
#define FUSE_RUNTIME_IR_INTERPRETER_H

#include "runtime/ir/Graph.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fuse {

/// A caller's buffer of `type.byteSize()` bytes; not owned.
struct HostTensor {
  TensorType type;
  void *data = nullptr;
};

/// A buffer the interpreter (or a test) owns.
struct HostTensorData {
  TensorType type;
  std::vector<std::uint8_t> bytes;

  /// Zero-filled.
  explicit HostTensorData(TensorType type);
  /// A copy of `bytes`, which must be `type.byteSize()` long (one pass over
  /// the new buffer: no zero fill first).
  HostTensorData(TensorType type, std::span<const std::uint8_t> bytes);
  /// Converted as DenseValue::fromDoubles / fromInts convert.
  static HostTensorData fromDoubles(TensorType type,
                                    std::span<const double> values);
  static HostTensorData fromInts(TensorType type,
                                 std::span<const std::int64_t> values);

  HostTensor view() { return {type, bytes.data()}; }
  /// Every element read with loadDouble / loadInt.
  std::vector<double> toDoubles() const;
  std::vector<std::int64_t> toInts() const;
};

/// Buffers by tensor id.
using TensorBindings = std::map<TensorId, HostTensor>;

/// Evaluates the ops at `opIndices`, in that order, of a valid graph. Each
/// operand must be bound in `buffers` or be the result of an op evaluated
/// earlier in this call; each result is written to its bound buffer, or to a
/// temporary when it has none. Fails, writing nothing more, on an invalid
/// graph, an op index out of range, a binding whose type differs from the
/// graph's, or an operand with no value.
Status evaluateOps(const Graph &graph, std::span<const std::size_t> opIndices,
                   const TensorBindings &buffers);

/// The gathers whose indices are computed from a bound tensor only through
/// reshapes and integer casts (token ids, however a model reshapes them):
/// every index is checked against its gather's axis before anything runs,
/// with evaluateOps' message naming the op, the index and the tensor it came
/// from. runBundle calls it for every runtime, so an out-of-range id fails a
/// run before anything is uploaded. An index computed in the graph is
/// checked where it is read: by evaluateOps, and by compiled kernels, which
/// report it through their error record (KernelAbi.h).
Status checkGatherIndexInputs(const Graph &graph, const TensorBindings &inputs);

/// What a gather's (or a scatter's) indices are checked against, for
/// messages: the op
/// ("op #3 (gather)"), its axis, the data's size along it and type.
struct GatherRange {
  std::string op;
  std::int64_t axis = 0, dim = 0;
  std::string data;
};

/// The range of gather or scatter op `op` of `graph`.
GatherRange gatherRange(const Graph &graph, std::size_t op);

/// The error of a gather meeting index `index` outside its range: "op #3
/// (gather): index 7 (element 2 of the indices) is out of range for dim 0
/// of size 4 of tensor<4x8xf32> (valid: -4 to 3)". `element` (the index's
/// position among the indices, with `from`: ", from tensor ..." where a
/// bound tensor holds it) is left out when unknown. The reference runtime
/// and the compiled kernels' error records (KernelAbi.h) both say it so.
std::string gatherIndexError(const GatherRange &range, std::int64_t index,
                             std::optional<std::int64_t> element,
                             const std::string &from = "");

/// evaluateOps over every op of the graph.
Status evaluate(const Graph &graph, const TensorBindings &buffers);

/// Evaluates a whole graph: `inputs` in the order of graph.inputs, results
/// in the order of graph.outputs.
Expected<std::vector<HostTensorData>>
evaluateGraph(const Graph &graph, std::span<const HostTensor> inputs);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_INTERPRETER_H
