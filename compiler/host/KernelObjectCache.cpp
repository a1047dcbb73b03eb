//===- KernelObjectCache.cpp - Machine code of kernels, by content --------===//

#include "compiler/host/KernelObjectCache.h"

namespace fuse {

KernelObjectCache::Object
KernelObjectCache::lookup(const std::string &key) const {
  std::lock_guard lock(mutex);
  auto it = objects.find(key);
  return it == objects.end() ? nullptr : it->second;
}

void KernelObjectCache::store(const std::string &key, Entry entry) {
  std::lock_guard lock(mutex);
  std::uint64_t size = entry.object.size();
  if (size > maxBytes)
    return;
  auto [it, inserted] =
      objects.try_emplace(key, std::make_shared<const Entry>(std::move(entry)));
  if (!inserted)
    return;
  order.push_back(key);
  held += size;
  while (held > maxBytes) {
    auto oldest = objects.find(order.front());
    held -= oldest->second->object.size();
    objects.erase(oldest);
    order.pop_front();
  }
}

std::uint64_t KernelObjectCache::bytes() const {
  std::lock_guard lock(mutex);
  return held;
}

std::size_t KernelObjectCache::size() const {
  std::lock_guard lock(mutex);
  return objects.size();
}

} // namespace fuse
