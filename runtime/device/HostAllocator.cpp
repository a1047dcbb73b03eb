//===- HostAllocator.cpp - Pooled, page-aligned host memory ---------------===//

#include "runtime/device/HostAllocator.h"

#include <bit>
#include <sys/mman.h>

namespace fuse::device {

HostAllocator::~HostAllocator() { releaseAll(); }

namespace {

/// Fresh pages for a block of `size` bytes (a size class). A block of at
/// least one huge page starts on a huge-page boundary and asks for
/// transparent huge pages: on a virtual machine each 4 KiB page a kernel
/// streams through costs a nested page walk, and reads from 4 KiB pages
/// ran at 26-50 GB/s (varying with where the host put them) where the same
/// loop over huge pages ran at 57-63 (AMD EPYC VM, 2 threads). Where the
/// system has huge pages off, the advice does nothing.
std::byte *mapBlock(uint64_t size) {
  constexpr uint64_t Huge = HostAllocator::HugePageBytes;
  bool huge = size >= Huge;
  uint64_t mappedSize = huge ? size + Huge : size;
  void *mapping = mmap(nullptr, mappedSize, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    return nullptr;
  auto *begin = static_cast<std::byte *>(mapping);
  if (!huge)
    return begin;
  // Keep [aligned, aligned + size) and give back the rest, so that
  // releaseAll's munmap(block, size) covers the whole mapping.
  uintptr_t address = reinterpret_cast<uintptr_t>(begin);
  uintptr_t aligned = (address + Huge - 1) / Huge * Huge;
  auto *block = reinterpret_cast<std::byte *>(aligned);
  if (aligned > address)
    munmap(begin, aligned - address);
  std::byte *end = begin + mappedSize;
  if (end > block + size)
    munmap(block + size, end - (block + size));
  (void)madvise(block, size, MADV_HUGEPAGE);
  return block;
}

} // namespace

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
  std::byte *block = mapBlock(size);
  if (!block)
    return nullptr;
  std::lock_guard lock(mutex);
  ++mapped;
  return block;
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

std::shared_ptr<std::byte> allocateHostBytes(uint64_t bytes) {
  if (bytes == 0)
    return nullptr;
  uint64_t size = (bytes + HostAllocator::PageBytes - 1) /
                  HostAllocator::PageBytes * HostAllocator::PageBytes;
  std::byte *block = mapBlock(size);
  if (!block)
    return nullptr;
  return std::shared_ptr<std::byte>(
      block, [size](std::byte *mapped) { munmap(mapped, size); });
}

} // namespace fuse::device
