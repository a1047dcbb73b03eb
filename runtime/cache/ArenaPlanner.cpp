//===- ArenaPlanner.cpp - Offsets of intermediates in one arena -----------===//

#include "runtime/cache/ArenaPlanner.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace fuse {

MemoryPlan planArena(std::span<const ArenaRequest> requests) {
  MemoryPlan plan;
  plan.intermediates.resize(requests.size());
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return requests[a].firstUse < requests[b].firstUse;
  });
  auto alignUp = [](std::uint64_t x) {
    return (x + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  };
  // The bound part first, end to end: its offsets do not depend on the
  // other slices, so a symbolic bundle's bindings place what the
  // per-binding kernels write (packed weights, of static sizes) alike.
  std::uint64_t boundEnd = 0;
  std::vector<size_t> boundOrder;
  for (size_t i = 0; i < requests.size(); ++i)
    if (requests[i].bound)
      boundOrder.push_back(i);
  std::stable_sort(boundOrder.begin(), boundOrder.end(),
                   [&](size_t a, size_t b) {
                     return requests[a].boundOrder < requests[b].boundOrder;
                   });
  for (size_t i : boundOrder) {
    plan.intermediates[i] = {requests[i].tensor, boundEnd, requests[i].bytes};
    boundEnd = alignUp(boundEnd + requests[i].bytes);
  }
  plan.boundBytes = boundEnd;
  plan.peakBytes = boundEnd;
  std::vector<size_t> placed;
  for (size_t i : order) {
    const ArenaRequest &request = requests[i];
    if (request.bound)
      continue;
    // Byte ranges of placed buffers live at the same time, by offset.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
    for (size_t j : placed) {
      const ArenaRequest &other = requests[j];
      if (other.lastUse < request.firstUse || request.lastUse < other.firstUse)
        continue;
      busy.push_back(
          {plan.intermediates[j].offset,
           plan.intermediates[j].offset + plan.intermediates[j].bytes});
    }
    std::sort(busy.begin(), busy.end());
    std::uint64_t offset = boundEnd;
    for (auto [begin, end] : busy) {
      if (offset + request.bytes <= begin && request.bytes > 0)
        break;
      offset = std::max(offset, alignUp(end));
    }
    plan.intermediates[i] = {request.tensor, offset, request.bytes};
    plan.peakBytes = std::max(plan.peakBytes, offset + request.bytes);
    placed.push_back(i);
  }
  return plan;
}

} // namespace fuse
