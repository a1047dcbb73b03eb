//===- KernelPayload.h - A kernel's code, shared between copies -*- C++ -*-===//
//
// The bytes a runtime loads for a kernel (PTX text, a cubin, a host shared
// object). The kernels of a host bundle share one shared object, and a
// symbolic bundle's bindings (SymbolicBundle.h) share the symbolic bundle's
// code: copying a bundle must not copy its code. A KernelPayload is an
// immutable byte string held by reference: copies share the bytes, and
// `sameBytes` tells two copies of one payload apart from equal bytes made
// twice in constant time. A writer gets its own copy first (`edit`).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_CACHE_KERNELPAYLOAD_H
#define FUSE_RUNTIME_CACHE_KERNELPAYLOAD_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace fuse {

class KernelPayload {
public:
  KernelPayload() = default;
  KernelPayload(std::vector<std::uint8_t> bytes)
      : shared(bytes.empty()
                   ? nullptr
                   : std::make_shared<const std::vector<std::uint8_t>>(
                         std::move(bytes))) {}
  KernelPayload(std::initializer_list<std::uint8_t> bytes)
      : KernelPayload(std::vector<std::uint8_t>(bytes)) {}
  template <typename It> void assign(It first, It last) {
    *this = KernelPayload(std::vector<std::uint8_t>(first, last));
  }

  const std::vector<std::uint8_t> &bytes() const {
    static const std::vector<std::uint8_t> none;
    return shared ? *shared : none;
  }
  const std::uint8_t *data() const { return bytes().data(); }
  std::size_t size() const { return bytes().size(); }
  bool empty() const { return bytes().empty(); }
  auto begin() const { return bytes().begin(); }
  auto end() const { return bytes().end(); }
  std::uint8_t operator[](std::size_t i) const { return bytes()[i]; }

  /// The bytes to change, made this payload's own first (its other copies
  /// keep the old ones).
  std::vector<std::uint8_t> &edit() {
    auto own = std::make_shared<std::vector<std::uint8_t>>(bytes());
    std::vector<std::uint8_t> &result = *own;
    shared = std::move(own);
    return result;
  }

  /// Whether both are copies of one payload (or both empty): equal bytes
  /// without reading them.
  bool sameBytes(const KernelPayload &other) const {
    return shared == other.shared;
  }

  friend bool operator==(const KernelPayload &a, const KernelPayload &b) {
    return a.sameBytes(b) || a.bytes() == b.bytes();
  }
  friend bool operator<(const KernelPayload &a, const KernelPayload &b) {
    return a.bytes() < b.bytes();
  }

private:
  std::shared_ptr<const std::vector<std::uint8_t>> shared;
};

} // namespace fuse

#endif // FUSE_RUNTIME_CACHE_KERNELPAYLOAD_H
