//===- Status.h - Explicit error values for the runtime ---------*- C++ -*-===//
//
// Status and Expected<T>: how runtime code reports a failure that a user can
// cause (a malformed graph, a wrong buffer) without throwing, so callers on
// every side (engine, device runtimes, tools) handle it the same way. The
// message is meant for people: it says what is wrong and what was expected.
//
// Plain C++ only: the runtime never links MLIR or LLVM, so llvm::Error and
// llvm::Expected are not available here.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_IR_STATUS_H
#define FUSE_RUNTIME_IR_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace fuse {

class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.errorMessage = std::move(message);
    return status;
  }

  bool ok() const { return !errorMessage.has_value(); }
  /// Empty on success.
  const std::string &message() const {
    static const std::string empty;
    return errorMessage ? *errorMessage : empty;
  }

private:
  std::optional<std::string> errorMessage;
};

/// A value or the Status that explains why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value(std::move(value)) {}
  Expected(Status error) : error(std::move(error)) {
    assert(!this->error.ok() && "an Expected without a value needs an error");
  }

  bool ok() const { return value.has_value(); }
  const Status &status() const { return error; }
  const std::string &message() const { return error.message(); }

  T &operator*() {
    assert(ok());
    return *value;
  }
  const T &operator*() const {
    assert(ok());
    return *value;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }
  T take() {
    assert(ok());
    return std::move(*value);
  }

private:
  std::optional<T> value;
  Status error;
};

} // namespace fuse

#endif // FUSE_RUNTIME_IR_STATUS_H
