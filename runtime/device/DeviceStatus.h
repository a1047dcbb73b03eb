//===- DeviceStatus.h - Error values of the device runtime ------*- C++ -*-===//
//
// The device runtime reports every failure as a value (`DeviceStatus`,
// `DeviceResult<T>`) rather than an exception, as IREE's HAL does: a caller
// must be able to tell from the type alone whether work may have reached a
// device, so no failure may escape through an unwinding path that skips that
// decision. Unlike the runtime's general fuse::Status (runtime/ir/Status.h),
// a device error carries a code, because callers act on it (retry after a
// timeout, never release after an indeterminate answer).
//
// This header must never depend on MLIR or LLVM: the runtime never links them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_DEVICE_DEVICESTATUS_H
#define FUSE_RUNTIME_DEVICE_DEVICESTATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fuse::device {

enum class ErrorCode {
  InvalidArgument,
  /// An object made by one runtime instance was handed to another.
  WrongRuntime,
  /// A permit or allocation would exceed the runtime's memory budget.
  OutOfBudget,
  /// The system could not provide memory although the budget allowed it.
  OutOfMemory,
  /// The stream failed earlier and must be reset before it takes work.
  StreamFailed,
  /// A stream still has work in flight.
  Busy,
  KernelLoadFailed,
  KernelFailed,
  /// A wait ran out of time; the fence is still pending.
  Timeout,
  /// Completion could not be proven; nothing may be released.
  Indeterminate,
  /// The bundle was made for another target or another version of Fuse.
  Incompatible,
  Unsupported,
  /// Raised by a test hook.
  Injected,
};

const char *errorCodeName(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;
};

/// Success, or an error.
class [[nodiscard]] DeviceStatus {
public:
  DeviceStatus() = default;
  DeviceStatus(Error error) : failure(std::move(error)) {}

  bool ok() const { return !failure; }
  explicit operator bool() const { return ok(); }
  const Error &error() const {
    assert(failure && "error() of a successful status");
    return *failure;
  }

private:
  std::optional<Error> failure;
};

/// A value, or the error that prevented it.
template <typename T> class [[nodiscard]] DeviceResult {
public:
  DeviceResult(T value) : storage(std::in_place_index<0>, std::move(value)) {}
  DeviceResult(Error error)
      : storage(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return storage.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & {
    assert(ok() && "value() of a failed result");
    return std::get<0>(storage);
  }
  const T &value() const & {
    assert(ok() && "value() of a failed result");
    return std::get<0>(storage);
  }
  T &&value() && {
    assert(ok() && "value() of a failed result");
    return std::get<0>(std::move(storage));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const Error &error() const {
    assert(!ok() && "error() of a successful result");
    return std::get<1>(storage);
  }
  DeviceStatus status() const {
    return ok() ? DeviceStatus() : DeviceStatus(error());
  }

private:
  std::variant<T, Error> storage;
};

} // namespace fuse::device

#endif // FUSE_RUNTIME_DEVICE_DEVICESTATUS_H
