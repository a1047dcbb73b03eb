//===- InputNesting.h - Bound the nesting of a .mlir input ------*- C++ -*-===//
//
// MLIR's parser recurses once per nested bracket ('(', '[', '{', '<'): an
// input nested 100,000 deep overflows the stack (SIGSEGV). The tools that
// parse a user's .mlir file scan it first and refuse one nested deeper than
// kMaxMlirNesting, naming the line, before the parser sees it. Strings and
// comments do not count; "->" is an arrow, not a closing '>'.
//
// The same scan bounds the length of a word (a run of letters, digits, '_',
// '.' and '$'): MLIR's lexer reads a shape such as "1x1x...x1" again from
// each 'x', so a tensor type of rank 100,000 takes minutes to parse.
// Header-only: the tools share no library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_INPUTNESTING_H
#define FUSE_TOOLS_INPUTNESTING_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fuse {

/// Deeper than any graph Fuse prints (tens) and far below what overflows the
/// parser's stack (tens of thousands).
inline constexpr std::size_t kMaxMlirNesting = 1000;

/// Longer than any name or shape of a real graph (a rank-1000 shape of ones
/// is 2,000 characters), and parsed in a tenth of a second; a shape of
/// 20,000 characters takes a second per occurrence.
inline constexpr std::size_t kMaxMlirWord = 4096;

inline bool isMlirWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

/// An error message when `text` nests brackets deeper than `limit`, or holds
/// a word longer than `wordLimit`.
inline std::optional<std::string>
checkMlirNesting(std::string_view text, std::size_t limit = kMaxMlirNesting,
                 std::size_t wordLimit = kMaxMlirWord) {
  std::size_t depth = 0, line = 1, word = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!isMlirWordChar(c)) {
      word = 0;
    } else if (++word > wordLimit) {
      return "the input holds a word (a name, number or shape) of more than " +
             std::to_string(wordLimit) + " characters (at line " +
             std::to_string(line) + "); refused before parsing";
    }
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      // A string: to its closing quote, escapes skipped.
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      --i; // Count the newline above.
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit)
        return "the input nests brackets more than " + std::to_string(limit) +
               " deep (at line " + std::to_string(line) +
               "), deeper than any graph; refused before parsing";
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && !(i > 0 && text[i - 1] == '-'))) {
      if (depth > 0)
        --depth;
    }
  }
  return std::nullopt;
}

} // namespace fuse

#endif // FUSE_TOOLS_INPUTNESTING_H
