//===- DimExpr.cpp - Symbolic dimensions: polynomials over dim names ------===//

#include "runtime/ir/DimExpr.h"

#include "runtime/ir/CheckedInt.h"

#include <algorithm>
#include <cstdint>
#include <functional>

using namespace fuse;

namespace {

/// Canonical order: higher degree first, then the symbols lexicographically.
bool termBefore(const DimExpr::Term &a, const DimExpr::Term &b) {
  if (a.symbols.size() != b.symbols.size())
    return a.symbols.size() > b.symbols.size();
  return a.symbols < b.symbols;
}

Status overflowError(const char *operation) {
  return Status::error(std::string("a coefficient of the dim expression's ") +
                       operation + " passes 2^63");
}

/// Coefficients summed per monomial (with checks), as the terms of a
/// polynomial: an error naming `operation` where a sum overflowed.
using MonomialSums = std::map<std::vector<std::string>, CheckedInt>;
Expected<std::vector<DimExpr::Term>> termsOf(const MonomialSums &sums,
                                             const char *operation) {
  std::vector<DimExpr::Term> terms;
  for (const auto &[symbols, sum] : sums) {
    if (!sum.ok())
      return overflowError(operation);
    terms.push_back({symbols, *sum.get()});
  }
  return terms;
}

/// The symbols of `a` with those of `b` taken out, when `b`'s are a
/// sub-multiset of `a`'s (both sorted).
std::optional<std::vector<std::string>>
divideMonomial(const std::vector<std::string> &a,
               const std::vector<std::string> &b) {
  std::vector<std::string> rest;
  std::size_t j = 0;
  for (const std::string &name : a) {
    if (j < b.size() && b[j] == name)
      ++j;
    else
      rest.push_back(name);
  }
  if (j != b.size())
    return std::nullopt;
  return rest;
}

} // namespace

std::string fuse::dimBindingsText(const DimBindings &values) {
  std::string text;
  for (const auto &[name, value] : values)
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
}

DimExpr DimExpr::normalized(std::vector<Term> terms) {
  for (Term &term : terms)
    std::sort(term.symbols.begin(), term.symbols.end());
  std::sort(terms.begin(), terms.end(), termBefore);
  DimExpr result;
  for (Term &term : terms) {
    if (!result.polynomial.empty() &&
        result.polynomial.back().symbols == term.symbols)
      // Callers add coefficients with checks before normalizing; merging
      // here only meets terms already summed.
      result.polynomial.back().coefficient += term.coefficient;
    else
      result.polynomial.push_back(std::move(term));
  }
  std::erase_if(result.polynomial,
                [](const Term &term) { return term.coefficient == 0; });
  return result;
}

DimExpr DimExpr::constant(std::int64_t value) {
  DimExpr result;
  if (value != 0)
    result.polynomial.push_back({{}, value});
  return result;
}

DimExpr DimExpr::symbol(std::string name) {
  DimExpr result;
  result.polynomial.push_back({{std::move(name)}, 1});
  return result;
}

Expected<DimExpr> DimExpr::add(const DimExpr &a, const DimExpr &b) {
  MonomialSums sums;
  for (const DimExpr *side : {&a, &b})
    for (const Term &term : side->polynomial) {
      auto [it, added] = sums.emplace(term.symbols, CheckedInt(0));
      it->second += term.coefficient;
    }
  Expected<std::vector<Term>> terms = termsOf(sums, "sum");
  if (!terms.ok())
    return terms.status();
  return normalized(terms.take());
}

Expected<DimExpr> DimExpr::fromTerms(const std::vector<Term> &terms) {
  DimExpr sum;
  for (const Term &term : terms) {
    DimExpr product = constant(term.coefficient);
    for (const std::string &name : term.symbols) {
      if (name.empty())
        return Status::error("a dim expression names a symbol without a name");
      Expected<DimExpr> next = mul(product, symbol(name));
      if (!next.ok())
        return next.status();
      product = next.take();
    }
    Expected<DimExpr> next = add(sum, product);
    if (!next.ok())
      return next.status();
    sum = next.take();
  }
  return sum;
}

Expected<DimExpr> DimExpr::sub(const DimExpr &a, const DimExpr &b) {
  DimExpr negated = b;
  for (Term &term : negated.polynomial) {
    const CheckedInt value = -CheckedInt(term.coefficient);
    if (!value.ok())
      return overflowError("difference");
    term.coefficient = *value.get();
  }
  return add(a, negated);
}

Expected<DimExpr> DimExpr::mul(const DimExpr &a, const DimExpr &b) {
  MonomialSums sums;
  for (const Term &x : a.polynomial)
    for (const Term &y : b.polynomial) {
      std::vector<std::string> symbols = x.symbols;
      symbols.insert(symbols.end(), y.symbols.begin(), y.symbols.end());
      std::sort(symbols.begin(), symbols.end());
      auto [it, added] = sums.emplace(std::move(symbols), CheckedInt(0));
      it->second += CheckedInt(x.coefficient) * y.coefficient;
    }
  Expected<std::vector<Term>> terms = termsOf(sums, "product");
  if (!terms.ok())
    return terms.status();
  return normalized(terms.take());
}

/// Multivariate division by the leading terms (graded lexicographic order
/// is a monomial order, so when b divides a, a's leading term is the
/// quotient's times b's, and the quotient comes out term by term).
Expected<DimExpr> DimExpr::divideExact(const DimExpr &a, const DimExpr &b) {
  auto notRepresentable = [&] {
    return Status::error("(" + a.toString() + ") / (" + b.toString() +
                         ") is not representable as a dim expression (the "
                         "division is not exact for every value of the "
                         "dims)");
  };
  if (b.polynomial.empty())
    return Status::error("(" + a.toString() + ") / 0: division by zero");
  DimExpr rest = a, quotient;
  const Term &lead = b.polynomial.front();
  // Each step removes rest's leading term; a bound keeps a bug from looping.
  for (int steps = 0; !rest.polynomial.empty(); ++steps) {
    const Term &top = rest.polynomial.front();
    std::optional<std::vector<std::string>> symbols =
        divideMonomial(top.symbols, lead.symbols);
    // INT64_MIN / -1 overflows (and its remainder traps on x86).
    const bool overflows =
        top.coefficient == INT64_MIN && lead.coefficient == -1;
    if (!symbols || overflows || top.coefficient % lead.coefficient != 0 ||
        steps > 4096)
      return notRepresentable();
    DimExpr step;
    step.polynomial.push_back({*symbols, top.coefficient / lead.coefficient});
    Expected<DimExpr> product = mul(step, b);
    if (!product.ok())
      return notRepresentable();
    Expected<DimExpr> next = sub(rest, *product);
    Expected<DimExpr> grown = add(quotient, step);
    if (!next.ok() || !grown.ok())
      return notRepresentable();
    rest = next.take();
    quotient = grown.take();
  }
  return quotient;
}

bool DimExpr::isConstant() const {
  return polynomial.empty() ||
         (polynomial.size() == 1 && polynomial[0].symbols.empty());
}

std::optional<std::int64_t> DimExpr::constantValue() const {
  if (!isConstant())
    return std::nullopt;
  return polynomial.empty() ? 0 : polynomial[0].coefficient;
}

std::optional<std::string> DimExpr::symbolName() const {
  if (polynomial.size() != 1 || polynomial[0].symbols.size() != 1 ||
      polynomial[0].coefficient != 1)
    return std::nullopt;
  return polynomial[0].symbols[0];
}

bool DimExpr::isNonNegative() const {
  return std::all_of(polynomial.begin(), polynomial.end(),
                     [](const Term &term) { return term.coefficient > 0; });
}

std::vector<std::string> DimExpr::symbols() const {
  std::vector<std::string> names;
  for (const Term &term : polynomial)
    names.insert(names.end(), term.symbols.begin(), term.symbols.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Expected<std::int64_t> DimExpr::evaluate(const DimBindings &bindings) const {
  CheckedInt sum = 0;
  for (const Term &term : polynomial) {
    CheckedInt product = term.coefficient;
    for (const std::string &name : term.symbols) {
      auto it = bindings.find(name);
      if (it == bindings.end())
        return Status::error("dim '" + name + "' (in " + toString() +
                             ") has no value");
      product *= it->second;
    }
    sum += product;
  }
  if (!sum.ok())
    return Status::error("dim " + toString() + " passes 2^63");
  return *sum.get();
}

std::string DimExpr::toString() const {
  if (polynomial.empty())
    return "0";
  std::string text;
  for (std::size_t i = 0; i < polynomial.size(); ++i) {
    const Term &term = polynomial[i];
    // INT64_MIN has no positive magnitude: printed as a plain number.
    const bool negative = term.coefficient < 0 && term.coefficient != INT64_MIN;
    const std::int64_t magnitude =
        negative ? -term.coefficient : term.coefficient;
    if (negative)
      text += "-";
    else if (i > 0)
      text += "+";
    std::string product;
    for (const std::string &name : term.symbols)
      product += (product.empty() ? "" : "*") + name;
    if (product.empty())
      text += std::to_string(magnitude);
    else if (magnitude == 1)
      text += product;
    else
      text += product + "*" + std::to_string(magnitude);
  }
  return text;
}

std::size_t DimExpr::hash() const {
  std::size_t seed = polynomial.size();
  auto mix = [&](std::size_t value) {
    seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  };
  for (const Term &term : polynomial) {
    mix(std::hash<std::int64_t>()(term.coefficient));
    for (const std::string &name : term.symbols)
      mix(std::hash<std::string>()(name));
    mix(term.symbols.size());
  }
  return seed;
}

Expected<std::int64_t> DimTable::intern(const DimExpr &expr) {
  if (std::optional<std::int64_t> value = expr.constantValue()) {
    if (*value < 0)
      return Status::error("dim " + expr.toString() + " is negative");
    return *value;
  }
  for (const std::string &name : expr.symbols())
    if (std::find(symbols.begin(), symbols.end(), name) == symbols.end())
      symbols.push_back(name);
  for (std::size_t i = 0; i < exprs.size(); ++i)
    if (exprs[i] == expr)
      return -1 - std::int64_t(i);
  exprs.push_back(expr);
  return -std::int64_t(exprs.size());
}

std::int64_t DimTable::symbol(std::string_view name) {
  if (std::find(symbols.begin(), symbols.end(), name) == symbols.end())
    symbols.emplace_back(name);
  const DimExpr expr = DimExpr::symbol(std::string(name));
  for (std::size_t i = 0; i < exprs.size(); ++i)
    if (exprs[i] == expr)
      return -1 - std::int64_t(i);
  exprs.push_back(expr);
  return -std::int64_t(exprs.size());
}

DimExpr DimTable::expr(std::int64_t dim) const {
  return dim >= 0 ? DimExpr::constant(dim) : exprs[std::size_t(-1 - dim)];
}

std::string DimTable::dimString(std::int64_t dim) const {
  if (dim >= 0)
    return std::to_string(dim);
  if (!isValidDim(dim))
    return "<invalid dim " + std::to_string(dim) + ">";
  return expr(dim).toString();
}

Expected<DimExpr>
DimTable::product(const std::vector<std::int64_t> &shape) const {
  DimExpr result = DimExpr::constant(1);
  for (std::int64_t dim : shape) {
    Expected<DimExpr> next = DimExpr::mul(result, expr(dim));
    if (!next.ok())
      return next.status();
    result = next.take();
  }
  return result;
}
