//===- TemporaryOwner.cpp - Who may still write a temporary file ----------===//

#include "runtime/ir/TemporaryOwner.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <unistd.h>

namespace fuse {

static std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || !name[0])
    return "unknown";
  std::string host = name;
  for (char &c : host)
    if (!std::isalnum((unsigned char)c) && c != '.' && c != '-' && c != '_')
      c = '_';
  return host;
}

std::string temporaryOwnerTag() {
  return std::to_string(::getpid()) + "@" + hostName();
}

bool temporaryOwnerIsGone(std::string_view name) {
  std::size_t at = name.rfind('@');
  if (at == std::string_view::npos || name.substr(at + 1) != hostName())
    return false;
  std::size_t dash = name.rfind('-', at);
  if (dash == std::string_view::npos)
    return false;
  std::string_view digits = name.substr(dash + 1, at - dash - 1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  pid_t pid = pid_t(std::stol(std::string(digits)));
  return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

bool isStaleTemporary(std::string_view name, std::int64_t modifiedSeconds) {
  std::int64_t age = std::int64_t(::time(nullptr)) - modifiedSeconds;
  return age >= kStaleTemporarySeconds || temporaryOwnerIsGone(name);
}

} // namespace fuse
