// Host column reductions and argmax/argmin end to end: rows of 1, 31, 1000
// and 4097 columns (whole chunks of 4 vectors, which run as one wide vector,
// then single vectors and single columns), reduced dims between kept ones,
// chained passes (a column variance), f16 storage, ties and NaN.

#include "test/compiler/host/HostCodegenTest.h"

namespace fuse {
namespace {

class HostColumnReduction : public HostCodegen {};

/// Column reductions over [rows, columns] with 1, 31, 1000 and 4097 columns:
/// sum, max, the mean with an epilogue, and a column variance (the mean
/// broadcast back over the rows).
TEST_F(HostColumnReduction, ColumnReductions) {
  for (int64_t columns : {1, 31, 1000, 4097}) {
    for (int64_t rows : {1, 37}) {
      SCOPED_TRACE(std::to_string(rows) + " rows of " +
                   std::to_string(columns) + " columns");
      std::vector<int64_t> shape = {rows, columns};
      GraphBuilder b;
      TensorId x = b.input({ElementType::F32, shape}, "x");
      b.output(b.reduce(ReduceKind::Sum, b.mul(x, x), {0}), "sum_of_squares");
      b.output(b.reduce(ReduceKind::Max, x, {0}, true), "max");
      TensorId mean = b.reduce(ReduceKind::Mean, x, {0}, true);
      TensorId centered = b.sub(x, b.broadcast(mean, shape, {0, 1}));
      TensorId var =
          b.reduce(ReduceKind::Mean, b.mul(centered, centered), {0}, true);
      b.output(b.sqrt(var), "std");
      b.output(centered, "centered");
      check(*b.finish());
    }
  }
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {3, 50, 31}}, "x");
  b.output(b.reduce(ReduceKind::Sum, b.exp(x), {1}), "middle_sum");
  TensorId z = b.input({ElementType::F32, {3, 4, 5, 6}}, "z");
  b.output(b.reduce(ReduceKind::Sum, z, {0, 2}), "interleaved_sum");
  b.output(b.reduce(ReduceKind::Max, z, {0, 2}, true), "interleaved_max");
  TensorId h = b.input({ElementType::F16, {40, 2, 70}}, "h");
  b.output(b.reduce(ReduceKind::Mean, h, {0}), "f16_mean");
  check(*b.finish());
}

/// Argmax and argmin along every axis, ties (small integers), NaN (square
/// roots of negatives win, as in NumPy), first and last index.
TEST_F(HostColumnReduction, ArgMaxAndArgMin) {
  for (int64_t axis : {0, 1}) {
    for (bool last : {false, true}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + " select_last_index " +
                   std::to_string(last));
      GraphBuilder b;
      TensorId x = b.input({ElementType::F32, {37, 1000}}, "x");
      TensorId n = b.input({ElementType::I32, {9, 131}}, "small_integers");
      TensorId s = b.input({ElementType::F32, {5, 19}}, "mixed_signs");
      b.output(b.argmax(x, axis, false, last), "argmax");
      b.output(b.argmin(n, axis, true, last), "argmin_ties");
      b.output(b.argmax(b.sqrt(s), axis, false, last), "argmax_nan");
      check(*b.finish(), {{-2, 2}, {-3, 3}, {-1, 3}});
    }
  }
}

} // namespace
} // namespace fuse
