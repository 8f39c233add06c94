#include "store/range_coalescing.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zarrgpu::store {
namespace {

TEST(RangeCoalescing, MergesRangesWithinTheGapInOffsetOrder) {
  const std::vector<RangeOf> ranges{{1000, 10}, {0, 100}, {150, 50}, {5000, 1}};
  const auto groups = coalesce_ranges(ranges, 100, 1 << 20);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].offset, 0u);
  EXPECT_EQ(groups[0].length, 200u);
  EXPECT_EQ(groups[0].members, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(groups[1].offset, 1000u);
  EXPECT_EQ(groups[1].members, (std::vector<std::size_t>{0}));
  EXPECT_EQ(groups[2].offset, 5000u);
}

TEST(RangeCoalescing, OverlappingAndContainedRangesShareOneRead) {
  const std::vector<RangeOf> ranges{{0, 100}, {10, 20}, {50, 100}};
  const auto groups = coalesce_ranges(ranges, 0, 1 << 20);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].length, 150u);
  EXPECT_EQ(groups[0].members.size(), 3u);
}

TEST(RangeCoalescing, ZeroGapKeepsSeparatedRangesApartButJoinsAdjacentOnes) {
  const std::vector<RangeOf> ranges{{0, 10}, {10, 10}, {21, 5}};
  const auto groups = coalesce_ranges(ranges, 0, 1 << 20);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].length, 20u);
  EXPECT_EQ(groups[1].offset, 21u);
}

TEST(RangeCoalescing, AGroupNeverSpansMoreThanTheBound) {
  std::vector<RangeOf> ranges;
  for (std::uint64_t i = 0; i < 10; ++i) ranges.push_back({i * 100, 100});
  const auto groups = coalesce_ranges(ranges, 1000, 300);
  ASSERT_EQ(groups.size(), 4u);
  for (const auto& g : groups) EXPECT_LE(g.length, 300u);
  std::size_t members = 0;
  for (const auto& g : groups) members += g.members.size();
  EXPECT_EQ(members, 10u);
}

}  // namespace
}  // namespace zarrgpu::store
