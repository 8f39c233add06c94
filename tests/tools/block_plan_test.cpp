#include <gtest/gtest.h>

#include "block_plan.hpp"

using namespace zarrgpu;
using namespace zarrgpu::cli;

namespace {
std::vector<std::uint64_t> v(std::initializer_list<std::uint64_t> l) { return l; }
}

TEST(BlockPlan, AlignsToBothGrids) {
  // Source chunks of 10 time steps, destination one step per chunk: blocks of 10 steps.
  auto shape = v({40, 4, 10, 20});
  auto p = plan_blocks(shape, 4, v({1, 4, 10, 20}), v({10, 4, 10, 20}), 1ull << 30, 4);
  EXPECT_EQ(p.block_shape, v({10, 4, 10, 20}));
  EXPECT_EQ(p.block_count, 4u);
  EXPECT_EQ(p.workers, 4u);
  EXPECT_FALSE(p.over_budget);
}

TEST(BlockPlan, FallsBackToWriteUnitsWithinBudget) {
  auto shape = v({40, 100});
  auto p = plan_blocks(shape, 4, v({1, 100}), v({40, 100}), 1000, 8);  // 400 B per unit, lcm block 16000 B
  EXPECT_EQ(p.block_shape, v({1, 100}));
  EXPECT_EQ(p.block_count, 40u);
  EXPECT_EQ(p.workers, 2u);  // 1000 / 400
}

TEST(BlockPlan, CopiesOfABlockInFlightComeOutOfTheBudget) {
  // Issue 33: a sharded write holds the block, its encoded chunks and the
  // shard: three copies, so a 1000-byte budget fits two 160-byte blocks, not six.
  auto shape = v({40, 40});
  auto p = plan_blocks(shape, 4, v({1, 40}), v({1, 40}), 1000, 8, 3);
  EXPECT_EQ(p.block_bytes, 160u);
  EXPECT_EQ(p.workers, 2u);
  EXPECT_FALSE(p.over_budget);
  EXPECT_EQ(plan_blocks(shape, 4, v({1, 40}), v({1, 40}), 1000, 8).workers, 6u);
  // A unit whose copies exceed the budget is over it, even if the unit alone fits.
  EXPECT_TRUE(plan_blocks(shape, 4, v({2, 40}), v({2, 40}), 500, 8, 2).over_budget);
  // The lcm block is taken only when its copies fit.
  EXPECT_EQ(plan_blocks(shape, 4, v({1, 40}), v({2, 40}), 1000, 8, 3).block_shape, v({2, 40}));
  EXPECT_EQ(plan_blocks(shape, 4, v({1, 40}), v({4, 40}), 1000, 8, 3).block_shape, v({1, 40}));
}

TEST(BlockPlan, OverBudgetStillProgresses) {
  auto shape = v({4, 100});
  auto p = plan_blocks(shape, 8, v({2, 100}), v({2, 100}), 100, 8);
  EXPECT_TRUE(p.over_budget);
  EXPECT_EQ(p.workers, 1u);
  EXPECT_EQ(p.block_count, 2u);
}

TEST(BlockPlan, EdgeBlocksAndSelections) {
  auto shape = v({5, 7});
  auto p = plan_blocks(shape, 1, v({2, 3}), v({2, 3}), 1 << 20, 1);
  EXPECT_EQ(p.block_count, 9u);
  EXPECT_EQ(p.block_elements(0), 6u);
  EXPECT_EQ(p.block_elements(8), 1u);  // the corner [4:5, 6:7]
  std::uint64_t total = 0;
  for (std::uint64_t b = 0; b < p.block_count; ++b) total += p.block_elements(b);
  EXPECT_EQ(total, 35u);
  auto sel = p.block(5);  // row 1, column 2: [2:4, 6:7]
  ASSERT_EQ(sel.dims().size(), 2u);
  EXPECT_EQ(sel.dims()[0].start, 2);
  EXPECT_EQ(sel.dims()[0].stop, 4);
  EXPECT_EQ(sel.dims()[1].start, 6);
  EXPECT_EQ(sel.dims()[1].stop, 7);
}

TEST(BlockPlan, LcmThatDoesNotTileIsNotUsed) {
  // Source 3, destination 2 along an extent of 5: lcm 6 clips to 5 = the extent: fine.
  auto p = plan_blocks(v({5}), 1, v({2}), v({3}), 1 << 20, 1);
  EXPECT_EQ(p.block_shape, v({5}));
  // Extent 13, lcm 6 < 13: blocks of 6 are whole units of 2.
  auto q = plan_blocks(v({13}), 1, v({2}), v({3}), 1 << 20, 1);
  EXPECT_EQ(q.block_shape, v({6}));
}

TEST(BlockPlan, ZeroSizedAndScalarArrays) {
  EXPECT_EQ(plan_blocks(v({0, 5}), 4, v({1, 5}), v({1, 5}), 1 << 20, 2).block_count, 0u);
  auto s = plan_blocks(v({}), 4, v({}), v({}), 1 << 20, 2);
  EXPECT_EQ(s.block_count, 1u);
  EXPECT_EQ(s.block_elements(0), 1u);
}
