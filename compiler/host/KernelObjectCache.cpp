//===- KernelObjectCache.cpp - Machine code of kernels, by content --------===//

#include "compiler/host/KernelObjectCache.h"

#include "runtime/cache/BundleCache.h"

namespace fuse {

namespace {

// An entry in the store: the symbol count, each symbol (u32 length, bytes),
// then the object. Integers are little-endian.

void appendU32(std::vector<std::uint8_t> &bytes, std::uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes.push_back(std::uint8_t(value >> (8 * i)));
}

std::vector<std::uint8_t> encode(const KernelObjectCache::Entry &entry) {
  std::vector<std::uint8_t> bytes;
  appendU32(bytes, std::uint32_t(entry.symbols.size()));
  for (const std::string &symbol : entry.symbols) {
    appendU32(bytes, std::uint32_t(symbol.size()));
    bytes.insert(bytes.end(), symbol.begin(), symbol.end());
  }
  bytes.insert(bytes.end(), entry.object.begin(), entry.object.end());
  return bytes;
}

/// The entry `bytes` encode, or none where they do not (the store checked
/// them against their checksum: only a bug writes such an entry).
std::optional<KernelObjectCache::Entry>
decode(const std::vector<std::uint8_t> &bytes) {
  std::size_t at = 0;
  auto readU32 = [&](std::uint32_t &value) {
    if (bytes.size() - at < 4)
      return false;
    value = 0;
    for (int i = 0; i < 4; ++i)
      value |= std::uint32_t(bytes[at + i]) << (8 * i);
    at += 4;
    return true;
  };
  KernelObjectCache::Entry entry;
  std::uint32_t count = 0;
  if (!readU32(count) || count == 0 || count > 4096)
    return std::nullopt;
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t size = 0;
    if (!readU32(size) || size == 0 || bytes.size() - at < size)
      return std::nullopt;
    entry.symbols.emplace_back(bytes.begin() + std::ptrdiff_t(at),
                               bytes.begin() + std::ptrdiff_t(at + size));
    at += size;
  }
  if (at == bytes.size())
    return std::nullopt;
  entry.object.assign(bytes.begin() + std::ptrdiff_t(at), bytes.end());
  return entry;
}

} // namespace

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
  std::optional<std::vector<std::uint8_t>> bytes = store->loadKernel(key);
  if (!bytes)
    return nullptr;
  std::optional<Entry> entry = decode(*bytes);
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
    (void)store->storeKernel(key, encode(*object));
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
