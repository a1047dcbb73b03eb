//===- JsonText.h - JSON strings and numbers as text ------------*- C++ -*-===//
//
// The JSON that fuse-run --json and the benchmark programs print, written by
// hand a field at a time: a string quoted and escaped, a number or null.
// Compiled into each program that prints it (the tools share no library);
// no LLVM, so that the benchmarks built without it can use it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_JSONTEXT_H
#define FUSE_TOOLS_JSONTEXT_H

#include <optional>
#include <string>
#include <string_view>

namespace fuse {

/// `text` as a JSON string: quoted, with quotes, backslashes and control
/// characters escaped.
std::string jsonString(std::string_view text);

/// `value` with 6 significant digits; `null` for nothing, NaN and
/// infinities.
std::string jsonNumber(std::optional<double> value);

} // namespace fuse

#endif // FUSE_TOOLS_JSONTEXT_H
