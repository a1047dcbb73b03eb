//===- KernelObjectCache.cpp - Machine code of kernels, by content --------===//

#include "compiler/host/KernelObjectCache.h"

#include "runtime/cache/BundleCache.h"

namespace fuse {

void KernelObjectCache::setStore(BundleCache *store) {
  std::lock_guard lock(mutex);
  disk = store;
}

KernelObjectCache::Object KernelObjectCache::lookup(const std::string &key) {
  BundleCache *store = nullptr;
  {
    std::lock_guard lock(mutex);
    if (auto it = objects.find(key); it != objects.end())
      return it->second;
    store = disk;
  }
  if (!store)
    return nullptr;
  std::optional<Entry> entry = store->loadKernel(key);
  if (!entry)
    return nullptr;
  auto object = std::make_shared<const Entry>(std::move(*entry));
  std::lock_guard lock(mutex);
  remember(key, object);
  return object;
}

void KernelObjectCache::store(const std::string &key, Entry entry) {
  auto object = std::make_shared<const Entry>(std::move(entry));
  BundleCache *store = nullptr;
  {
    std::lock_guard lock(mutex);
    remember(key, object);
    store = disk;
  }
  // A kernel the disk cannot take is still compiled and kept in memory.
  if (store)
    (void)store->storeKernel(key, *object);
}

void KernelObjectCache::remember(const std::string &key, Object entry) {
  std::uint64_t size = entry->object.size();
  if (size > maxBytes || !objects.try_emplace(key, std::move(entry)).second)
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
