//===- HostAllocator.cpp - Pooled, page-aligned host memory ---------------===//

#include "runtime/device/HostAllocator.h"

#include <bit>
#include <sys/mman.h>

namespace fuse::device {

HostAllocator::~HostAllocator() { releaseAll(); }

uint64_t HostAllocator::sizeClass(uint64_t bytes) {
  uint64_t pages = (bytes + PageBytes - 1) / PageBytes;
  if (pages <= 4)
    return std::max<uint64_t>(pages, 1) * PageBytes;
  // Round up to the next of 4, 5, 6 or 7 times a power of two pages.
  unsigned shift = std::bit_width(pages) - 3;
  uint64_t step = uint64_t(1) << shift;
  return ((pages + step - 1) / step) * step * PageBytes;
}

std::byte *HostAllocator::allocate(uint64_t bytes) {
  uint64_t size = sizeClass(bytes);
  {
    std::lock_guard lock(mutex);
    auto it = freeLists.find(size);
    if (it != freeLists.end() && !it->second.empty()) {
      std::byte *block = it->second.back();
      it->second.pop_back();
      pooled -= size;
      return block;
    }
  }
  void *block = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED)
    return nullptr;
  std::lock_guard lock(mutex);
  ++mapped;
  return static_cast<std::byte *>(block);
}

void HostAllocator::free(std::byte *block, uint64_t bytes) {
  uint64_t size = sizeClass(bytes);
  std::lock_guard lock(mutex);
  freeLists[size].push_back(block);
  pooled += size;
}

uint64_t HostAllocator::pooledBytes() const {
  std::lock_guard lock(mutex);
  return pooled;
}

uint64_t HostAllocator::mappedBlocks() const {
  std::lock_guard lock(mutex);
  return mapped;
}

void HostAllocator::releaseAll() {
  std::lock_guard lock(mutex);
  for (auto &[size, blocks] : freeLists)
    for (std::byte *block : blocks) {
      munmap(block, size);
      --mapped;
    }
  freeLists.clear();
  pooled = 0;
}

} // namespace fuse::device
