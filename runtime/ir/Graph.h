//===- Graph.h - The Graph IR: tensors, ops, attributes ---------*- C++ -*-===//
//
// The runtime's own IR: the operation graph every front end records (lazy
// tensor API, ONNX import, a `.mlir` file read back) and every back end
// consumes (the importer into the `fuse` dialect, the reference interpreter,
// the cache key). Plain data plus a builder that infers result types and
// rejects what validate() would reject, so a Graph built through the
// builder is valid by construction.
//
// Graph shape:
//   - tensors[id] is the type (and an optional, informational name) of
//     tensor `id`; ids are indices into `tensors`.
//   - inputs lists the tensors bound at run time, in binding order. Weights
//     and other large constants are inputs: their values are not part of the
//     graph (nor of its hash), so the same model with other weights reuses
//     every kernel.
//   - ops are in topological order: an op uses only inputs and results of
//     earlier ops. Every op has exactly one result today.
//   - outputs lists the tensors the caller reads back, in order.
//
// Op semantics (the `fuse` dialect documents the same; ONNX where it
// defines them):
//   Elementwise ops: every operand and the result have one shape; no
//   implicit broadcasting (importers insert `broadcast`). Element types
//   follow the op's TypeRule in Ops.def: Float (f16, bf16, f32, f64),
//   Numeric (all but i1), Integer (i1 and every other integer type;
//   not/and/or/xor are logical on i1 and bitwise otherwise), FloatPred
//   (float in, i1 out), Any.
//   - rsqrt is 1/sqrt, round is half to even, sign gives -1/0/+1 (NaN stays
//     NaN; integers too; 0/1 on the ui types).
//   - Integers wrap around (two's complement of their width): neg, abs and
//     add/sub/mul/pow of extreme values wrap.
//   - Signedness lives in the element type: the ui types (ui8, ui16, ui32,
//     ui64) read their bits unsigned in every op: compare (every predicate),
//     max/min, div/rem, pow, cast from them (zero-extend, unsigned to
//     float), reduce max/min/mean, argmax/argmin; abs is the identity and
//     neg wraps modulo 2^n. The signless types (i8, i16, i32, i64) read
//     signed unless an op's `is_unsigned` flag or a u* predicate says
//     otherwise.
//   - div: integers truncate toward zero; `is_unsigned` reads them as
//     unsigned; division by zero gives 0 (and INT_MIN / -1 wraps to INT_MIN).
//   - rem: floor-mod by default (the result has the divisor's sign, like
//     Python and ONNX Mod with fmod=0); `fmod` is C fmod (the dividend's
//     sign); `is_unsigned` for integers. Integer rem by zero gives 0.
//   - pow: float pow; integers: exact power with wrap-around; a negative
//     exponent gives 0 unless the base is 1 or -1 (a ui exponent is never
//     negative).
//   - max/min propagate NaN.
//   - `is_unsigned` (div, rem, cast) needs integer operands (on the ui types
//     it changes nothing); `fmod` (rem) applies to floats and integers
//     alike.
//   compare(a, b) {predicate}: one of eq, ne, lt, le, gt, ge, ult, ule, ugt,
//     uge; operands of one type; i1 result. u* read integers as unsigned
//     and are rejected on floats; on the ui types every predicate compares
//     unsigned. Float comparisons are ordered (false with NaN) except ne
//     (true with NaN). i1 compares as 0 < 1 under every predicate.
//   select(cond, a, b): cond is i1 of a's shape; a and b of one type.
//   cast(x) {unsigned, saturate, round_mode}: to the result tensor's element
//     type, same shape. float -> int truncates toward zero, saturating
//     out-of-range values, NaN -> 0 (but float -> i4, ui4, i2, ui2 wraps, as
//     ONNX's reference); int -> float and float -> float round to nearest
//     even; -> i1 is `!= 0` (NaN -> 1); int -> int wraps; float -> ui
//     saturates to 0 .. 2^n - 1; `is_unsigned` reads a signless integer
//     source as unsigned, a ui source always reads unsigned (i1 always reads
//     as 0/1). To the f8/f4 types as ElementType.h says: `saturate` (f8
//     results only) clamps out-of-range values and infinities to the
//     largest finite value; `round_mode` (f8E8M0FNU results only) is up
//     (when absent), down or nearest.
//   constant {value}: dense data, splat or full; result type is the data's.
//   broadcast(x) {dims}: x of rank r; dims (length r, strictly increasing)
//     maps x's dim i to result dim dims[i], where x's dim is 1 or equal to
//     it. The result shape is given, not inferred.
//   reshape(x): result shape given, same element count.
//   transpose(x) {permutation}: result dim i is x's dim permutation[i].
//   slice(x) {offsets, sizes, strides}: one each per dim; strides >= 1;
//     sizes >= 0; offsets in [0, dim]; the last element read,
//     offset + (size - 1) * stride, is < dim when size > 0. Result shape is
//     sizes.
//   concat(x...) {axis}: one or more operands of one rank and element type,
//     equal on every dim but axis.
//   reduce(x) {kind, dims, keep_dims}: kind in sum, prod, max, min, mean;
//     dims strictly increasing and in range, empty meaning identity;
//     keep_dims keeps reduced dims with size 1. mean of integers is the
//     wrapped sum divided with truncation (by zero: 0; on the ui types, both
//     unsigned); of floats over zero elements, NaN. Reducing a zero-sized dim
//     gives 0 (sum) or 1 (prod); max/min over a zero-sized dim are rejected by
//     validation. max/min propagate NaN.
//   argmax/argmin(x) {axis, keep_dims, select_last_index}: i64 result; ties
//     give the first index unless select_last_index; NaN wins (both give a
//     NaN's index, like NumPy); an empty axis is rejected.
//   pool(x) {kind, window, strides, dilations, pads, ceil_mode,
//     count_include_pad}: a window reduction over x's last n = window.size()
//     dims, as Ops.def says: kind max (NaN wins; an empty window gives the
//     lowest value) or mean (floats; divided by the positions inside x, or
//     with count_include_pad inside the padded x).
//   matmul(a, b) {transpose_a, transpose_b}: a is [batch..., M, K]
//     ([..., K, M] with transpose_a), b is [batch..., K, N] ([..., N, K] with
//     transpose_b); both rank >= 2 and of one element type; batch dims are
//     equal, or one operand has rank 2 and is shared across the other's
//     batch. Result [batch..., M, N].
//   conv(x, w[, bias]) {strides, dilations, pads, group}: x is
//     [N, C, S...] with one or two spatial dims S, w is [M, C / group, K...]
//     and bias [M], all of one float type; strides and dilations (>= 1) have
//     one entry per spatial dim, pads (>= 0) two: every begin pad, then every
//     end pad (ONNX's order); group >= 1 divides C and M. Result
//     [N, M, O...] with O = (S + begin + end - dilation * (K - 1) - 1) /
//     stride + 1 (rounded down, at least 1: the padded input holds one
//     dilated kernel); out[n, m, o...] = bias[m] + sum over c < C / group
//     and k... of x[n, g * C / group + c, o * stride + k * dilation - begin]
//     * w[m, c, k...], with g = m / (M / group) and zeros outside x.
//   gather(data, indices) {axis}: indices i32 or i64 of any shape, axis in
//     [0, rank of data); result data.shape[:axis] ++ indices.shape ++
//     data.shape[axis + 1:]; result[o..., i..., n...] = data[o..., k, n...]
//     with k = indices[i...] (+ data.shape[axis] when negative, as ONNX
//     says). An index outside [-dim, dim) fails the evaluation, naming the
//     op and the index; it is never read.
//   Optional attributes are flags (an absent flag means false), and cast's
//   round_mode (absent means up).
//
// Symbolic dims (issue 22, step A: the Graph IR and the ONNX importer; the
// dialect, kernels and memory plan come later):
//   - A dim in a shape is static when >= 0. A negative dim d is symbolic: it
//     refers to expression -1 - d of Graph::dims (DimTable, DimExpr.h), a
//     polynomial over named dim symbols ("sequence", "batch*sequence*12").
//     The table interns, so equal expressions have one code and shape ==
//     shape is still the equality test; a constant expression is never in
//     the table (it is its value). A graph with an empty table is static,
//     and everything below treats it exactly as before (its hash included).
//   - The same encoding holds where an attribute gives a shape: a slice's
//     `sizes`, a splat constant's shape (a full constant is static) and
//     dim_value's `dim`.
//   - The builder infers result types over symbolic dims for elementwise
//     ops, compare, select, cast, constant (splat), broadcast (an operand dim
//     is 1 or the result's same code), reshape (element counts equal as
//     polynomials), transpose, slice, concat (the axis dim is the sum),
//     reduce, argmax/argmin, matmul and gather. A slice takes a symbolic dim
//     whole, or with stride 1 a part the polynomials prove inside it
//     (dim - offset - size has no negative coefficient); on a static dim a
//     symbolic size is checked when the dims are bound. pool, im2col, conv
//     and scatter need static dims and say so. What cannot be proven
//     symbolically (a reduce max over a dim that is 0, a slice's end) is
//     checked when the dims are bound.
//   - iota and dim_value (Ops.def) give a symbolic graph index vectors
//     (ONNX Range) and the value of a dim (shape arithmetic that reaches
//     tensor data); bindDims turns them into constants.
//   - bindDims(graph, values) makes the static graph of given dim values:
//     every expression evaluated and every op rebuilt through the builder,
//     so the usual validation runs on the bound shapes. The compile path and
//     the reference interpreter take static graphs only and refuse symbolic
//     ones with a message that says to bind the dims.
//   - Printing shows a symbolic dim as ?{expression}:
//     tensor<?{batch}x?{sequence}x256xf32> (Graph::typeString; TensorType::
//     toString, without the table, prints the codes).
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_GRAPH_H
#define FUSE_RUNTIME_IR_GRAPH_H

#include "runtime/ir/DimExpr.h"
#include "runtime/ir/ElementType.h"
#include "runtime/ir/OpTable.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fuse {

/// Index into Graph::tensors.
using TensorId = std::int64_t;
constexpr TensorId kInvalidTensor = -1;

struct TensorType {
  ElementType elementType = ElementType::F32;
  /// Rank 0 (a scalar) and zero-sized dims are allowed.
  std::vector<std::int64_t> shape;

  std::int64_t rank() const { return std::int64_t(shape.size()); }
  /// No symbolic (negative) dim.
  bool isStatic() const;
  /// Of a static type (asserted): a symbolic dim has no count until bound,
  /// and a release build counts INT64_MAX (never a small wrapped number)
  /// unless a dim is 0.
  std::int64_t numElements() const;
  std::int64_t byteSize() const;
  /// "tensor<2x3xf32>", "tensor<f32>" for rank 0; a symbolic dim shows its
  /// code (Graph::typeString names it).
  std::string toString() const;
  bool operator==(const TensorType &) const = default;
};

/// Constant tensor data: raw little-endian bytes in the element type's
/// storage, row-major; a splat holds one element that stands for all.
struct DenseValue {
  ElementType elementType = ElementType::F32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;
  bool splat = false;

  TensorType type() const { return {elementType, shape}; }
  /// Every element equal to `value`, converted as cast converts an f64.
  static DenseValue makeSplat(TensorType type, double value);
  /// Row-major values, converted as cast converts an f64.
  static DenseValue fromDoubles(TensorType type,
                                std::span<const double> values);
  /// Row-major values, wrapped to the element type as cast wraps an i64.
  static DenseValue fromInts(TensorType type,
                             std::span<const std::int64_t> values);
  bool operator==(const DenseValue &) const = default;
};

/// The value of an Enum attribute: one of the op's allowed names.
struct EnumValue {
  std::string name;
  bool operator==(const EnumValue &) const = default;
};

class Attribute {
public:
  /// Alternatives in AttrKind order.
  using Storage = std::variant<std::int64_t, std::vector<std::int64_t>, double,
                               bool, EnumValue, ElementType, DenseValue>;

  static Attribute i64(std::int64_t value) { return Attribute(value); }
  static Attribute i64Array(std::vector<std::int64_t> value) {
    return Attribute(std::move(value));
  }
  static Attribute f64(double value) { return Attribute(value); }
  static Attribute flag(bool value) { return Attribute(value); }
  static Attribute enumName(std::string name) {
    return Attribute(EnumValue{std::move(name)});
  }
  static Attribute elementType(ElementType value) { return Attribute(value); }
  static Attribute dense(DenseValue value) {
    return Attribute(std::move(value));
  }

  AttrKind kind() const { return static_cast<AttrKind>(storage.index()); }
  const Storage &value() const { return storage; }

  /// Each asserts the kind.
  std::int64_t getI64() const { return std::get<std::int64_t>(storage); }
  const std::vector<std::int64_t> &getI64Array() const {
    return std::get<std::vector<std::int64_t>>(storage);
  }
  double getF64() const { return std::get<double>(storage); }
  bool getFlag() const { return std::get<bool>(storage); }
  const std::string &getEnumName() const {
    return std::get<EnumValue>(storage).name;
  }
  ElementType getElementType() const { return std::get<ElementType>(storage); }
  const DenseValue &getDense() const { return std::get<DenseValue>(storage); }

  /// "[0, 2, 1]", "true", "\"sum\"", "dense<f32[2] 8 bytes>"...: for
  /// messages.
  std::string toString() const;
  bool operator==(const Attribute &) const = default;

private:
  explicit Attribute(Storage storage) : storage(std::move(storage)) {}
  Storage storage;
};

/// Ordered by name, so iteration (printing, hashing) is deterministic.
using AttrMap = std::map<std::string, Attribute, std::less<>>;

struct Op {
  OpKind kind;
  std::vector<TensorId> operands;
  std::vector<TensorId> results;
  AttrMap attributes;

  TensorId result() const { return results.front(); }
  const Attribute *findAttr(std::string_view name) const;
  /// A Bool attribute's value; false when absent.
  bool getFlag(std::string_view name) const;
  bool operator==(const Op &) const = default;
};

struct Tensor {
  TensorType type;
  /// Informational (inputs and outputs of a model keep their names); not
  /// part of the graph's identity.
  std::string name;
  bool operator==(const Tensor &) const = default;
};

struct GraphOutput {
  TensorId tensor;
  std::string name;
  bool operator==(const GraphOutput &) const = default;
};

class Graph {
public:
  std::vector<Tensor> tensors;
  std::vector<TensorId> inputs;
  std::vector<Op> ops;
  std::vector<GraphOutput> outputs;
  /// The symbolic dims' names and expressions; empty for a static graph.
  DimTable dims;

  /// Whether the graph has symbolic dims (a non-empty table).
  bool isSymbolic() const { return !dims.empty(); }
  /// "tensor<?{batch}x?{sequence}x256xf32>".
  std::string typeString(const TensorType &type) const;

  TensorId addInput(TensorType type, std::string name = {});
  /// Appends an op after checking it as validate() would and inferring its
  /// result type. `resultType` is required for ops whose result type does
  /// not follow from operands and attributes (cast, broadcast, reshape); for
  /// the others it is checked against the inferred type when given.
  Expected<TensorId> addOp(OpKind kind, std::vector<TensorId> operands,
                           AttrMap attributes = {},
                           std::optional<TensorType> resultType = {});
  Status markOutput(TensorId tensor, std::string name = {});

  bool isValidId(TensorId id) const {
    return id >= 0 && id < TensorId(tensors.size());
  }
  const TensorType &typeOf(TensorId id) const { return tensors[id].type; }
  bool isInput(TensorId id) const;

  bool operator==(const Graph &) const = default;
};

/// A slice's attributes (Ops.def), as GraphBuilder::slice and the engine's
/// slice record them.
AttrMap sliceAttributes(std::vector<std::int64_t> offsets,
                        std::vector<std::int64_t> sizes,
                        std::vector<std::int64_t> strides);

/// Calls `visit` on every dim of `op`'s attributes that uses the shape
/// encoding (a slice's sizes, a constant's shape, dim_value's dim), which
/// it may change.
void forEachAttributeDim(OpKind kind, AttrMap &attributes,
                         const std::function<void(std::int64_t &)> &visit);

/// The static graph of `graph` with its dim symbols bound to `values`
/// (Graph.h, "Symbolic dims"): every op rebuilt through the builder (so
/// validation runs on the bound shapes), iota and dim_value as constants. An
/// error names a symbol without a value, a value that names no symbol of the
/// graph, a dim that evaluates negative or past 2^63, or the op whose bound
/// shapes are invalid. A static graph is returned as it is (no values may be
/// given).
Expected<Graph> bindDims(const Graph &graph, const DimBindings &values);

/// Convenience wrappers over Graph::addOp for front ends and tests. Errors
/// are sticky: after the first one, every call returns kInvalidTensor and
/// status() keeps the first message, so a whole recording can be checked
/// once at the end.
class GraphBuilder {
public:
  TensorId input(TensorType type, std::string name = {});
  TensorId op(OpKind kind, std::vector<TensorId> operands,
              AttrMap attributes = {},
              std::optional<TensorType> resultType = {});
  void output(TensorId tensor, std::string name = {});

  /// The code of dim symbol `name` (declared when new).
  std::int64_t symbol(std::string_view name) { return built.dims.symbol(name); }
  /// The code of `expr` (its value when constant); a negative constant is
  /// an error (sticky, like an op's) and gives 0.
  std::int64_t dim(const DimExpr &expr);
  const DimTable &dims() const { return built.dims; }
  /// iota {axis}: result[i...] = i_axis, of the given type.
  TensorId iota(TensorType type, std::int64_t axis);
  /// dim_value {dim}: every element of the given type is `dim`'s value.
  TensorId dimValue(TensorType type, std::int64_t dim);

  TensorId unary(OpKind kind, TensorId x) { return op(kind, {x}); }
  TensorId binary(OpKind kind, TensorId a, TensorId b) {
    return op(kind, {a, b});
  }
  TensorId neg(TensorId x) { return unary(OpKind::Neg, x); }
  TensorId exp(TensorId x) { return unary(OpKind::Exp, x); }
  TensorId log(TensorId x) { return unary(OpKind::Log, x); }
  TensorId sqrt(TensorId x) { return unary(OpKind::Sqrt, x); }
  TensorId tanh(TensorId x) { return unary(OpKind::Tanh, x); }
  TensorId add(TensorId a, TensorId b) { return binary(OpKind::Add, a, b); }
  TensorId sub(TensorId a, TensorId b) { return binary(OpKind::Sub, a, b); }
  TensorId mul(TensorId a, TensorId b) { return binary(OpKind::Mul, a, b); }
  TensorId div(TensorId a, TensorId b, bool isUnsigned = false);
  TensorId rem(TensorId a, TensorId b, bool fmod = false,
               bool isUnsigned = false);
  TensorId max(TensorId a, TensorId b) { return binary(OpKind::Max, a, b); }
  TensorId min(TensorId a, TensorId b) { return binary(OpKind::Min, a, b); }
  TensorId pow(TensorId a, TensorId b) { return binary(OpKind::Pow, a, b); }

  TensorId compare(ComparePredicate predicate, TensorId a, TensorId b);
  TensorId select(TensorId cond, TensorId a, TensorId b);
  /// Sets `saturate` and `round_mode` from `options` where they differ
  /// from a plain cast (round_mode only when not up).
  TensorId cast(TensorId x, ElementType to, bool isUnsigned = false,
                const CastOptions &options = {});
  TensorId constant(DenseValue value);
  TensorId splat(TensorType type, double value);
  TensorId broadcast(TensorId x, std::vector<std::int64_t> shape,
                     std::vector<std::int64_t> dims);
  /// NumPy-style: x's dims align with the trailing dims of `shape`.
  TensorId broadcastTo(TensorId x, std::vector<std::int64_t> shape);
  TensorId reshape(TensorId x, std::vector<std::int64_t> shape);
  TensorId transpose(TensorId x, std::vector<std::int64_t> permutation);
  TensorId slice(TensorId x, std::vector<std::int64_t> offsets,
                 std::vector<std::int64_t> sizes,
                 std::vector<std::int64_t> strides);
  TensorId concat(std::vector<TensorId> xs, std::int64_t axis);
  TensorId reduce(ReduceKind kind, TensorId x, std::vector<std::int64_t> dims,
                  bool keepDims = false);
  TensorId argmax(TensorId x, std::int64_t axis, bool keepDims = false,
                  bool selectLastIndex = false);
  /// The attributes of a pool (Graph.h's op list), one entry per window dim
  /// (pads: every begin, then every end).
  struct PoolWindow {
    std::vector<std::int64_t> window, strides, dilations, pads;
    bool ceilMode = false, countIncludePad = false;
  };
  TensorId pool(ReduceKind kind, TensorId x, PoolWindow window);
  /// The column matrix of `x` over `window` (its ceil mode and
  /// count-include-pad flags unused).
  TensorId im2col(TensorId x, PoolWindow window);
  TensorId argmin(TensorId x, std::int64_t axis, bool keepDims = false,
                  bool selectLastIndex = false);
  /// gather(data, indices) {axis}, axis in [0, rank of data).
  TensorId gather(TensorId data, TensorId indices, std::int64_t axis);
  /// scatter(data, indices, updates) {reduction}: "none" (no attribute),
  /// "add", "mul", "max" or "min".
  TensorId scatter(TensorId data, TensorId indices, TensorId updates,
                   std::string_view reduction = "none");
  TensorId matmul(TensorId a, TensorId b, bool transposeA = false,
                  bool transposeB = false);
  /// conv with `bias` when it is not kInvalidTensor; pads as in Graph.h
  /// (every begin pad, then every end pad).
  TensorId conv(TensorId x, TensorId w, TensorId bias,
                std::vector<std::int64_t> strides,
                std::vector<std::int64_t> dilations,
                std::vector<std::int64_t> pads, std::int64_t group = 1);

  const Status &status() const { return firstError; }
  const Graph &graph() const { return built; }
  /// The graph, or the first error.
  Expected<Graph> finish();

private:
  Graph built;
  Status firstError = Status::success();
};

} // namespace fuse

#endif // FUSE_RUNTIME_IR_GRAPH_H
