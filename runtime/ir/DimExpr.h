//===- DimExpr.h - Symbolic dimensions: polynomials over dim names -*- C++
//-*-===//
//
// A dimension a model leaves open (batch, sequence) stays a named symbol in
// a symbolic Graph (Graph.h), and every dim computed from it is a DimExpr: a
// polynomial over the symbols with int64 coefficients ("batch*sequence*12",
// "sequence+1"). The form is canonical (terms sorted, each monomial's
// symbols sorted, no zero coefficient), so two expressions are equal
// exactly when they are equal as polynomials, and == is the test.
//
// Arithmetic is exact: add, sub and mul fail when a coefficient passes
// 2^63; division is exact or fails ("not representable"): a DimExpr never
// holds a floor or a remainder. evaluate() binds the symbols with checked
// arithmetic (CheckedInt.h).
//
// DimTable is what a Graph holds: the symbols' names and the expressions its
// shapes refer to. A dim >= 0 in a shape is static; a negative one, d, is
// the code of expression -1 - d of the table. The table interns: one code
// per expression, so equal dims have equal codes and shape == shape stays
// the equality test.
//
// Plain C++ only: the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_DIMEXPR_H
#define FUSE_RUNTIME_IR_DIMEXPR_H

#include "runtime/ir/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuse {

/// Values of dim symbols, by name.
using DimBindings = std::map<std::string, std::int64_t, std::less<>>;

/// "batch=2, sequence=7" (for messages).
std::string dimBindingsText(const DimBindings &values);

class DimExpr {
public:
  /// One term: coefficient times the product of `symbols` (sorted; a symbol
  /// repeats for a power; empty for the constant term).
  struct Term {
    std::vector<std::string> symbols;
    std::int64_t coefficient = 0;
    bool operator==(const Term &) const = default;
  };

  /// Zero.
  DimExpr() = default;
  static DimExpr constant(std::int64_t value);
  static DimExpr symbol(std::string name);
  /// The sum of `terms` (any order, like terms allowed) in canonical form:
  /// how a stored expression is read back. Fails on an empty symbol name
  /// or a coefficient past 2^63.
  static Expected<DimExpr> fromTerms(const std::vector<Term> &terms);

  /// Each fails only when a coefficient passes 2^63.
  static Expected<DimExpr> add(const DimExpr &a, const DimExpr &b);
  static Expected<DimExpr> sub(const DimExpr &a, const DimExpr &b);
  static Expected<DimExpr> mul(const DimExpr &a, const DimExpr &b);
  /// a / b when b divides a exactly as polynomials (a constant dividing
  /// every coefficient, a monomial dividing every term, or any polynomial
  /// that is a factor); otherwise an error saying a / b is not
  /// representable.
  static Expected<DimExpr> divideExact(const DimExpr &a, const DimExpr &b);

  bool isConstant() const;
  /// The value of a constant expression.
  std::optional<std::int64_t> constantValue() const;
  /// The name of an expression that is one symbol, coefficient 1.
  std::optional<std::string> symbolName() const;
  /// True when no coefficient is negative: the value is >= 0 for every
  /// binding of the symbols to sizes (>= 0).
  bool isNonNegative() const;
  /// Every symbol it mentions, sorted, once each.
  std::vector<std::string> symbols() const;
  const std::vector<Term> &terms() const { return polynomial; }

  /// The value with `bindings`: an error names a symbol left unbound, or
  /// says the value passes 2^63.
  Expected<std::int64_t> evaluate(const DimBindings &bindings) const;
  /// "batch*sequence*12", "sequence-1", "2-sequence*3", "0": terms of higher
  /// degree first, the constant last.
  std::string toString() const;
  std::size_t hash() const;

  bool operator==(const DimExpr &) const = default;

private:
  static DimExpr normalized(std::vector<Term> terms);
  /// Terms sorted canonically, none zero.
  std::vector<Term> polynomial;
};

/// The dims of a symbolic Graph: symbol names and interned expressions.
struct DimTable {
  /// In order of declaration.
  std::vector<std::string> symbols;
  /// Code -1 - i is exprs[i]. Never a constant (a constant dim is its
  /// value).
  std::vector<DimExpr> exprs;

  /// The code of `expr`: its value when constant (an error when negative),
  /// else the code of its entry (added when new). Declares its symbols.
  Expected<std::int64_t> intern(const DimExpr &expr);
  /// The code of symbol `name`, declared when new.
  std::int64_t symbol(std::string_view name);
  /// Whether `dim` is static or the code of an entry.
  bool isValidDim(std::int64_t dim) const {
    return dim >= 0 || std::size_t(-1 - dim) < exprs.size();
  }
  /// The expression of `dim` (a constant for a static dim); `dim` valid.
  DimExpr expr(std::int64_t dim) const;
  /// "sequence" or "batch*sequence"; a static dim's number.
  std::string dimString(std::int64_t dim) const;
  /// The product of `shape`'s dims as an expression; an error when a
  /// coefficient passes 2^63.
  Expected<DimExpr> product(const std::vector<std::int64_t> &shape) const;

  bool empty() const { return symbols.empty() && exprs.empty(); }
  bool operator==(const DimTable &) const = default;
};

} // namespace fuse

#endif // FUSE_RUNTIME_IR_DIMEXPR_H
