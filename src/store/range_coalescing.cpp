#include "store/range_coalescing.hpp"

#include <algorithm>
#include <numeric>

namespace zarrgpu::store {

std::vector<CoalescedRange> coalesce_ranges(std::span<const RangeOf> ranges, std::uint64_t gap,
                                            std::uint64_t max_span) {
  std::vector<std::size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ranges[a].offset < ranges[b].offset; });
  std::vector<CoalescedRange> out;
  for (const std::size_t i : order) {
    const RangeOf& r = ranges[i];
    const std::uint64_t end = r.offset + r.length;
    if (!out.empty()) {
      CoalescedRange& g = out.back();
      const std::uint64_t g_end = g.offset + g.length;
      const std::uint64_t new_end = std::max(g_end, end);
      if (r.offset <= g_end + gap && new_end - g.offset <= max_span) {
        g.length = new_end - g.offset;
        g.members.push_back(i);
        continue;
      }
    }
    out.push_back({r.offset, r.length, {i}});
  }
  return out;
}

}  // namespace zarrgpu::store
