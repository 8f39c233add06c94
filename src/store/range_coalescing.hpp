// Merging the byte ranges of one value that lie close together into fewer,
// larger reads: a remote store pays a round trip per request, so reading a
// small gap is cheaper than a second request (TensorStore and obstore do
// the same).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace zarrgpu::store {

struct RangeOf {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct CoalescedRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::vector<std::size_t> members;  // indices into the input, by offset
};

// Groups `ranges` (non-empty, bounded) so that each group is one read: a
// range joins the group before it when it starts at most `gap` bytes after
// the group's end (overlaps included) and the group then spans at most
// `max_span` bytes. Every input index is in exactly one group.
std::vector<CoalescedRange> coalesce_ranges(std::span<const RangeOf> ranges, std::uint64_t gap,
                                            std::uint64_t max_span);

}  // namespace zarrgpu::store
