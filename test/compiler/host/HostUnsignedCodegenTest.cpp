// Host code generation of i16 and the unsigned ui8, ui16, ui32 and ui64:
// graphs compiled by HostCompiler run on the HostRuntime with fresh random
// inputs drawn from the whole range of each type (so that about half of them
// have the top bit set, where a signed lowering of compare, max, min, div,
// rem, casts or argmax gives another answer). Every output is checked bit
// for bit twice: against C++ arithmetic on the native types (independent of
// the code under test and of the reference interpreter) and against the
// reference interpreter.

#include "test/compiler/host/HostCodegenTest.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

namespace fuse {
namespace {

template <typename T> constexpr ElementType elementTypeFor() {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return ElementType::UI8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return ElementType::UI16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return ElementType::UI32;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return ElementType::UI64;
  else
    return ElementType::I16;
}

/// The value of T that `x` truncates to, saturating at T's limits; NaN gives
/// 0 (the documented float to integer cast).
template <typename T> T saturatingCast(double x) {
  if (std::isnan(x))
    return 0;
  x = std::trunc(x);
  if (x <= double(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  // 2^n (or 2^(n-1)) is exact in double; the largest value may not be.
  if (x >= std::ldexp(1.0, std::numeric_limits<T>::digits))
    return std::numeric_limits<T>::max();
  return T(x);
}

/// T's wrapping arithmetic, without the int promotion of 8- and 16-bit types.
template <typename T> T wrap(std::uint64_t bits) { return T(bits); }

template <typename T> bool isNegative(T x) {
  if constexpr (std::is_signed_v<T>)
    return x < 0;
  else
    return false;
}

template <typename T> T floorMod(T x, T y) {
  if (y == 0)
    return 0;
  if constexpr (std::is_unsigned_v<T>) {
    return T(x % y);
  } else {
    std::int64_t r = std::int64_t(x) % std::int64_t(y);
    if (r != 0 && ((r < 0) != (y < 0)))
      r += y;
    return T(r);
  }
}

template <typename T> T truncatingDiv(T x, T y) {
  if (y == 0)
    return 0;
  // int64 holds every quotient of the 16-bit types; i16 -32768 / -1 wraps.
  if constexpr (std::is_unsigned_v<T>)
    return T(x / y);
  else
    return wrap<T>(std::uint64_t(std::int64_t(x) / std::int64_t(y)));
}

/// One expected output: its bytes, computed in C++.
struct Expectation {
  std::string name;
  std::vector<std::byte> bytes;
};

class HostUnsignedCodegen : public HostCodegen {
protected:
  /// Nonzero values uniform over T's range.
  template <typename T> std::vector<T> randomValues(int64_t n) {
    std::uniform_int_distribution<std::uint64_t> dist(
        0, std::uint64_t(std::make_unsigned_t<T>(-1)));
    std::vector<T> values(static_cast<size_t>(n), 0);
    for (T &v : values)
      while (v == 0)
        v = T(dist(rng));
    return values;
  }

  /// Floats over [-2^(n-1), 2^(n+1)): below, inside and above T's range
  /// (never zero).
  template <typename T> std::vector<float> randomFloats(int64_t n) {
    int bits = std::numeric_limits<std::make_unsigned_t<T>>::digits;
    std::uniform_real_distribution<double> dist(-std::ldexp(1.0, bits - 1),
                                                std::ldexp(1.0, bits + 1));
    std::vector<float> values(static_cast<size_t>(n));
    for (float &v : values)
      do
        v = float(dist(rng));
      while (v == 0);
    return values;
  }

  /// Compiles and runs `graph` on the host and on the reference with
  /// `inputs`; output k must equal expected[k] byte for byte in both.
  void checkExact(const Graph &graph,
                  const std::vector<std::vector<std::byte>> &inputs,
                  const std::vector<Expectation> &expected) {
    SCOPED_TRACE("random seed " + std::to_string(seed));
    ASSERT_EQ(graph.outputs.size(), expected.size());
    std::vector<TensorBytes> host, reference;
    runOnHostAndReference(graph, inputs, host, reference);
    if (HasFatalFailure())
      return;

    for (size_t k = 0; k < expected.size(); ++k) {
      const std::vector<std::byte> &want = expected[k].bytes;
      EXPECT_EQ(host[k], want)
          << "host output " << expected[k].name << " differs from C++ ("
          << firstDifference(host[k], want) << ")";
      EXPECT_EQ(reference[k], want)
          << "reference output " << expected[k].name << " differs from C++ ("
          << firstDifference(reference[k], want) << ")";
    }
  }

  static std::string firstDifference(const std::vector<std::byte> &a,
                                     const std::vector<std::byte> &b) {
    if (a.size() != b.size())
      return std::to_string(a.size()) + " bytes against " +
             std::to_string(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i])
        return "first at byte " + std::to_string(i);
    return "equal";
  }

  /// Elementwise ops and casts on T in one pointwise kernel, over 1001
  /// elements (vector steps and a scalar tail).
  template <typename T> void checkElementwise() {
    constexpr ElementType type = elementTypeFor<T>();
    constexpr bool isUnsigned = std::is_unsigned_v<T>;
    const int64_t n = 1001;
    SCOPED_TRACE(std::string(elementTypeName(type)));
    std::vector<T> x = randomValues<T>(n), y = randomValues<T>(n);
    std::vector<float> f = randomFloats<T>(n);
    // A few divisors of 0 (and -1 for i16, also dividing the minimum), whose
    // quotient and remainder are defined as 0 (and the wrapped negation).
    y[3] = 0;
    if constexpr (!isUnsigned) {
      y[5] = T(-1);
      x[5] = x[9] = std::numeric_limits<T>::min();
    }
    f[7] = std::numeric_limits<float>::quiet_NaN();
    // Near the top of the range: above INT64_MAX for ui64.
    const double top = double(std::numeric_limits<T>::max() -
                              std::numeric_limits<T>::max() / 64);
    const T topValue = T(top);

    GraphBuilder b;
    TensorType t{type, {n}};
    TensorId xi = b.input(t, "x"), yi = b.input(t, "y");
    TensorId fi = b.input({ElementType::F32, {n}}, "f");
    std::vector<Expectation> expected;
    auto out = [&](TensorId id, std::string name, auto fn) {
      b.output(id, name);
      using R = decltype(fn(size_t(0)));
      std::vector<R> values(static_cast<size_t>(n));
      for (size_t i = 0; i < size_t(n); ++i)
        values[i] = fn(i);
      expected.push_back({name, bytesOf(values)});
    };
    using U = std::make_unsigned_t<T>;
    out(b.add(xi, yi), "add",
        [&](size_t i) { return wrap<T>(U(x[i]) + U(y[i])); });
    out(b.sub(xi, yi), "sub",
        [&](size_t i) { return wrap<T>(U(x[i]) - U(y[i])); });
    out(b.mul(xi, yi), "mul", [&](size_t i) {
      return wrap<T>(std::uint64_t(U(x[i])) * std::uint64_t(U(y[i])));
    });
    out(b.neg(xi), "neg",
        [&](size_t i) { return wrap<T>(-std::uint64_t(x[i])); });
    out(b.max(xi, yi), "max", [&](size_t i) { return std::max(x[i], y[i]); });
    out(b.min(xi, yi), "min", [&](size_t i) { return std::min(x[i], y[i]); });
    out(b.div(xi, yi), "div",
        [&](size_t i) { return truncatingDiv(x[i], y[i]); });
    out(b.rem(xi, yi), "rem", [&](size_t i) { return floorMod(x[i], y[i]); });
    out(b.compare(ComparePredicate::Lt, xi, yi), "lt",
        [&](size_t i) { return std::uint8_t(x[i] < y[i]); });
    out(b.compare(ComparePredicate::Ge, xi, yi), "ge",
        [&](size_t i) { return std::uint8_t(x[i] >= y[i]); });
    out(b.cast(xi, ElementType::F32), "to_f32",
        [&](size_t i) { return float(x[i]); });
    out(b.cast(xi, ElementType::F64), "to_f64",
        [&](size_t i) { return double(x[i]); });
    out(b.cast(xi, ElementType::I64), "to_i64", [&](size_t i) {
      return isUnsigned ? std::int64_t(std::uint64_t(x[i]))
                        : std::int64_t(x[i]);
    });
    out(b.cast(fi, type), "from_f32",
        [&](size_t i) { return saturatingCast<T>(f[i]); });
    out(b.add(xi, b.splat(t, top)), "add_top_splat",
        [&](size_t i) { return wrap<T>(U(x[i]) + U(topValue)); });
    // On ui the identity (folded away: the output is a copy of x); on i16
    // -32768 stays -32768.
    out(b.unary(OpKind::Abs, xi), "abs", [&](size_t i) {
      return isNegative(x[i]) ? wrap<T>(-std::uint64_t(x[i])) : x[i];
    });
    if constexpr (isUnsigned) {
      out(b.unary(OpKind::Sign, xi), "sign",
          [&](size_t i) { return T(x[i] != 0); });
    }
    checkExact(*b.finish(), {bytesOf(x), bytesOf(y), bytesOf(f)}, expected);
  }

  /// argmax and argmin down the columns of a [37, 5] tensor (the column
  /// reduction schedule): ties give the first index.
  template <typename T> void checkArgReductions() {
    constexpr ElementType type = elementTypeFor<T>();
    SCOPED_TRACE(std::string(elementTypeName(type)));
    const int64_t rows = 37, cols = 5;
    std::vector<T> x = randomValues<T>(rows * cols);
    for (bool isMax : {true, false}) {
      GraphBuilder b;
      TensorId xi = b.input({type, {rows, cols}}, "x");
      b.output(isMax ? b.argmax(xi, 0) : b.argmin(xi, 0), "arg");
      std::vector<std::int64_t> want(cols, 0);
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t r = 1; r < rows; ++r) {
          T v = x[r * cols + c], best = x[want[c] * cols + c];
          if (isMax ? v > best : v < best)
            want[c] = r;
        }
      checkExact(*b.finish(), {bytesOf(x)},
                 {{isMax ? "argmax" : "argmin", bytesOf(want)}});
    }
  }

  /// sum, max, min and mean of a [rows, cols] tensor along dims: {1} (row
  /// reduction), {0} (column reduction) and {0, 1} (full reduction). sum
  /// wraps; mean is the wrapped sum divided with truncation, unsigned on ui.
  template <typename T> void checkReductions() {
    constexpr ElementType type = elementTypeFor<T>();
    SCOPED_TRACE(std::string(elementTypeName(type)));
    using U = std::make_unsigned_t<T>;
    const int64_t rows = 19, cols = 67;
    std::vector<T> x = randomValues<T>(rows * cols);
    for (std::vector<int64_t> dims :
         {std::vector<int64_t>{1}, std::vector<int64_t>{0},
          std::vector<int64_t>{0, 1}}) {
      SCOPED_TRACE("dims of size " + std::to_string(dims.size()) +
                   " starting at " + std::to_string(dims[0]));
      bool alongRows = dims == std::vector<int64_t>{1};
      bool full = dims.size() == 2;
      int64_t outer = full ? 1 : alongRows ? rows : cols;
      int64_t inner = full ? rows * cols : alongRows ? cols : rows;
      auto at = [&](int64_t o, int64_t i) {
        if (full)
          return x[i];
        return alongRows ? x[o * cols + i] : x[i * cols + o];
      };
      std::vector<T> sum(outer), max(outer), min(outer), mean(outer);
      for (int64_t o = 0; o < outer; ++o) {
        U total = 0;
        T hi = at(o, 0), lo = at(o, 0);
        for (int64_t i = 0; i < inner; ++i) {
          total = U(total + U(at(o, i)));
          hi = std::max(hi, at(o, i));
          lo = std::min(lo, at(o, i));
        }
        sum[o] = T(total);
        max[o] = hi;
        min[o] = lo;
        // The count never wraps (1273 elements are not a ui8 count).
        if constexpr (std::is_unsigned_v<T>)
          mean[o] = T(std::uint64_t(total) / std::uint64_t(inner));
        else
          mean[o] = T(std::int64_t(T(total)) / inner);
      }
      GraphBuilder b;
      TensorId xi = b.input({type, {rows, cols}}, "x");
      b.output(b.reduce(ReduceKind::Sum, xi, dims), "sum");
      b.output(b.reduce(ReduceKind::Max, xi, dims), "max");
      b.output(b.reduce(ReduceKind::Min, xi, dims), "min");
      b.output(b.reduce(ReduceKind::Mean, xi, dims), "mean");
      checkExact(*b.finish(), {bytesOf(x)},
                 {{"sum", bytesOf(sum)},
                  {"max", bytesOf(max)},
                  {"min", bytesOf(min)},
                  {"mean", bytesOf(mean)}});
    }
  }
};

TEST_F(HostUnsignedCodegen, ElementwiseOpsReadUnsignedTypesUnsigned) {
  checkElementwise<std::uint8_t>();
  checkElementwise<std::uint16_t>();
  checkElementwise<std::uint32_t>();
  checkElementwise<std::uint64_t>();
}

TEST_F(HostUnsignedCodegen, ElementwiseOpsOnI16AreSignedAndWrap) {
  checkElementwise<std::int16_t>();
}

TEST_F(HostUnsignedCodegen, ArgMaxAndArgMinCompareUnsigned) {
  checkArgReductions<std::uint8_t>();
  checkArgReductions<std::uint16_t>();
  checkArgReductions<std::uint32_t>();
  checkArgReductions<std::uint64_t>();
  checkArgReductions<std::int16_t>();
}

TEST_F(HostUnsignedCodegen, ReductionsReadUnsignedTypesUnsigned) {
  checkReductions<std::uint8_t>();
  checkReductions<std::uint16_t>();
  checkReductions<std::uint32_t>();
  checkReductions<std::uint64_t>();
  checkReductions<std::int16_t>();
}

} // namespace
} // namespace fuse
