//===- JsonText.cpp - JSON strings and numbers as text --------------------===//

#include "tools/JsonText.h"

#include <cmath>
#include <cstdio>

namespace fuse {

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if ((unsigned char)c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonNumber(std::optional<double> value) {
  if (!value || !std::isfinite(*value))
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", *value);
  return buffer;
}

} // namespace fuse
