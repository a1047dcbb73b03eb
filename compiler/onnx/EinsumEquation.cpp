//===- EinsumEquation.cpp - ONNX Einsum equations, parsed -----------------===//

#include "compiler/onnx/EinsumEquation.h"

#include <algorithm>
#include <map>
#include <optional>

namespace fuse {

namespace {

std::optional<EinsumLabel> letterLabel(char c) {
  if (c >= 'a' && c <= 'z')
    return EinsumLabel(c - 'a');
  if (c >= 'A' && c <= 'Z')
    return EinsumLabel(26 + (c - 'A'));
  return std::nullopt;
}

/// One term: its letters, with the ellipsis (at most one) at `ellipsisAt`
/// among them.
struct Term {
  std::string text;
  std::vector<EinsumLabel> letters;
  std::optional<size_t> ellipsisAt;
};

Expected<Term> parseTerm(std::string_view text, const std::string &what) {
  Term term;
  term.text = std::string(text);
  for (size_t i = 0; i < text.size();) {
    if (text.substr(i, 3) == "...") {
      if (term.ellipsisAt)
        return Status::error(what + " '" + term.text +
                             "' has more than one ellipsis");
      term.ellipsisAt = term.letters.size();
      i += 3;
      continue;
    }
    std::optional<EinsumLabel> label = letterLabel(text[i]);
    if (!label)
      return Status::error(what + " '" + term.text + "' holds '" +
                           std::string(1, text[i]) +
                           "': a term is letters and at most one '...'");
    term.letters.push_back(*label);
    ++i;
  }
  return term;
}

/// The term's labels for `ellipsisDims` dims in its ellipsis.
std::vector<EinsumLabel> expand(const Term &term, int64_t ellipsisDims) {
  std::vector<EinsumLabel> labels;
  for (size_t i = 0; i <= term.letters.size(); ++i) {
    if (term.ellipsisAt == i)
      for (int64_t k = ellipsisDims - 1; k >= 0; --k)
        labels.push_back(kEllipsisLabel + EinsumLabel(k));
    if (i < term.letters.size())
      labels.push_back(term.letters[i]);
  }
  return labels;
}

} // namespace

std::string einsumLabelName(EinsumLabel label) {
  if (label < 26)
    return std::string(1, char('a' + label));
  if (label < kEllipsisLabel)
    return std::string(1, char('A' + label - 26));
  return "...#" + std::to_string(label - kEllipsisLabel);
}

Expected<EinsumEquation> parseEinsumEquation(std::string_view equation,
                                             std::span<const int64_t> ranks) {
  std::string text;
  for (char c : equation)
    if (c != ' ')
      text.push_back(c);
  size_t arrow = text.find("->");
  if (arrow != std::string::npos &&
      text.find("->", arrow + 2) != std::string::npos)
    return Status::error("the equation '" + std::string(equation) +
                         "' has more than one '->'");
  std::string left = text.substr(0, arrow);
  std::vector<std::string_view> inputs;
  for (size_t start = 0;;) {
    size_t comma = left.find(',', start);
    inputs.push_back(std::string_view(left).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (inputs.size() != ranks.size())
    return Status::error("the equation '" + std::string(equation) + "' has " +
                         std::to_string(inputs.size()) + " input term(s) for " +
                         std::to_string(ranks.size()) + " input(s)");
  std::vector<Term> terms;
  int64_t ellipsisDims = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string what = "input term " + std::to_string(i);
    Expected<Term> term = parseTerm(inputs[i], what);
    if (!term.ok())
      return term.status();
    int64_t named = int64_t(term->letters.size());
    if (term->ellipsisAt ? named > ranks[i] : named != ranks[i])
      return Status::error(what + " '" + term->text + "' names " +
                           std::to_string(named) + " dim(s) but input " +
                           std::to_string(i) + " has rank " +
                           std::to_string(ranks[i]));
    if (term->ellipsisAt)
      ellipsisDims = std::max(ellipsisDims, ranks[i] - named);
    terms.push_back(std::move(*term));
  }
  EinsumEquation parsed;
  std::map<EinsumLabel, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t own =
        terms[i].ellipsisAt ? ranks[i] - int64_t(terms[i].letters.size()) : 0;
    parsed.operands.push_back(expand(terms[i], own));
    for (EinsumLabel label : terms[i].letters)
      ++uses[label];
  }
  if (arrow == std::string::npos) {
    for (int64_t k = ellipsisDims - 1; k >= 0; --k)
      parsed.result.push_back(kEllipsisLabel + EinsumLabel(k));
    for (auto [label, count] : uses)
      if (count == 1)
        parsed.result.push_back(label);
    return parsed;
  }
  Expected<Term> result =
      parseTerm(std::string_view(text).substr(arrow + 2), "the result term");
  if (!result.ok())
    return result.status();
  if (result->ellipsisAt && ellipsisDims == 0 &&
      std::none_of(terms.begin(), terms.end(),
                   [](const Term &t) { return t.ellipsisAt.has_value(); }))
    return Status::error("the result term '" + result->text +
                         "' has an ellipsis that no input term has");
  parsed.result = expand(*result, result->ellipsisAt ? ellipsisDims : 0);
  for (size_t i = 0; i < result->letters.size(); ++i) {
    EinsumLabel label = result->letters[i];
    if (std::count(result->letters.begin(), result->letters.end(), label) > 1)
      return Status::error("the result term '" + result->text + "' names '" +
                           einsumLabelName(label) + "' twice");
    if (!uses.count(label))
      return Status::error("the result term '" + result->text + "' names '" +
                           einsumLabelName(label) + "', which no input has");
  }
  return parsed;
}

} // namespace fuse
