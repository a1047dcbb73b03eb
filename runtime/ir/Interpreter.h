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
#include <span>
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
/// run on the host and the GPU as on the reference runtime. (Compiled
/// kernels never read outside the data: an index computed in the graph that
/// lies outside the axis reads position 0 there, unreported until kernels
/// have an error channel.)
Status checkGatherIndexInputs(const Graph &graph, const TensorBindings &inputs);

/// evaluateOps over every op of the graph.
Status evaluate(const Graph &graph, const TensorBindings &buffers);

/// Evaluates a whole graph: `inputs` in the order of graph.inputs, results
/// in the order of graph.outputs.
Expected<std::vector<HostTensorData>>
evaluateGraph(const Graph &graph, std::span<const HostTensor> inputs);

} // namespace fuse

#endif // FUSE_RUNTIME_IR_INTERPRETER_H
