#include <gtest/gtest.h>

#include "engine/plan.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {
namespace {

ArrayMetadata meta(std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks) {
  ArrayMetadata m;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.data_type = DataType::int32;
  m.codecs = {{"bytes", {{"endian", "little"}}}};
  return m;
}

TEST(SplitDimension, ForwardAndBackwardSteps) {
  // 0..9 step 3 over chunks of 4: 0,3 | 6 | 9
  auto v = split_dimension(0, 3, 4, 0, 4);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].coord, 0u); EXPECT_EQ(v[0].map.count, 2u);
  EXPECT_EQ(v[1].coord, 1u); EXPECT_EQ(v[1].map.chunk_first, 2u); EXPECT_EQ(v[1].map.out_first, 2u);
  EXPECT_EQ(v[2].coord, 2u); EXPECT_EQ(v[2].map.chunk_first, 1u); EXPECT_EQ(v[2].map.out_first, 3u);
  // 9 down to 0 step -2 over chunks of 4: 9,8? no: 9 | 7,5 | 3,1
  v = split_dimension(9, -2, 5, 0, 4);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].coord, 2u); EXPECT_EQ(v[0].map.count, 1u);
  EXPECT_EQ(v[1].coord, 1u); EXPECT_EQ(v[1].map.chunk_first, 3u); EXPECT_EQ(v[1].map.count, 2u);
  EXPECT_EQ(v[2].coord, 0u); EXPECT_EQ(v[2].map.chunk_first, 3u); EXPECT_EQ(v[2].map.out_first, 3u);
}

TEST(SplitPositions, RunsAreProgressionsInsideOneChunk) {
  // Chunks of 4. Sorted, one run per chunk: 0,2 | 5,6,7 | 9
  const std::uint64_t sorted[] = {0, 2, 5, 6, 7, 9};
  auto v = split_positions(sorted, 0, 4);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].coord, 0u); EXPECT_EQ(v[0].map.chunk_step, 2); EXPECT_EQ(v[0].map.count, 2u);
  EXPECT_EQ(v[1].coord, 1u); EXPECT_EQ(v[1].map.chunk_first, 1u); EXPECT_EQ(v[1].map.out_first, 2u);
  EXPECT_EQ(v[1].map.count, 3u);
  EXPECT_EQ(v[2].coord, 2u); EXPECT_EQ(v[2].map.chunk_first, 1u); EXPECT_EQ(v[2].map.out_first, 5u);
  // Unevenly spaced inside a chunk: two runs of chunk 0 (0,1 | 3).
  const std::uint64_t uneven[] = {0, 1, 3};
  v = split_positions(uneven, 0, 4);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].coord, 0u); EXPECT_EQ(v[1].map.chunk_first, 3u); EXPECT_EQ(v[1].map.out_first, 2u);
  // Descending runs keep a negative step; a repeat starts a new run.
  const std::uint64_t down[] = {6, 5, 5, 1};
  v = split_positions(down, 10, 4);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].map.chunk_first, 2u); EXPECT_EQ(v[0].map.chunk_step, -1); EXPECT_EQ(v[0].map.count, 2u);
  EXPECT_EQ(v[1].coord, 1u); EXPECT_EQ(v[1].map.count, 1u); EXPECT_EQ(v[1].map.out_first, 12u);
  EXPECT_EQ(v[2].coord, 0u); EXPECT_EQ(v[2].map.out_first, 13u);
}

TEST(Plan, ListDimensionReadsEachTouchedChunkOnce) {
  // The loader's case: one step per chunk along time, sorted unique steps.
  const auto m = meta({20, 6}, {1, 6});
  const std::uint64_t shape[] = {20, 6};
  Plan p(m, "", Selection({DimSelection::positions({2, 3, 7, 19}), DimSelection::all()}).resolve(shape));
  EXPECT_EQ(p.out_shape(), (std::vector<std::uint64_t>{4, 6}));
  ASSERT_EQ(p.num_chunks(), 4u);
  EXPECT_EQ(p.chunk(2).key, "c/7/0");
  EXPECT_EQ(p.chunk(2).out_offset, 12u);
  EXPECT_TRUE(p.chunk(3).contiguous_in_output);
}

TEST(Plan, EdgeChunksAndContiguity) {
  const auto m = meta({10, 6}, {4, 6});
  const std::uint64_t shape[] = {10, 6};
  Plan p(m, "a/b", Selection().resolve(shape));
  ASSERT_EQ(p.num_chunks(), 3u);
  const auto c0 = p.chunk(0), c2 = p.chunk(2);
  EXPECT_EQ(c0.key, "a/b/c/0/0");
  EXPECT_TRUE(c0.contiguous_in_output);
  EXPECT_TRUE(c0.covers_valid_region);
  EXPECT_EQ(p.chunk(1).out_offset, 24u);
  // The edge chunk holds rows 8..9 only: valid region covered, not contiguous
  // (the decoded chunk is the full 4x6).
  EXPECT_EQ(c2.dims[0].count, 2u);
  EXPECT_TRUE(c2.covers_valid_region);
  EXPECT_FALSE(c2.contiguous_in_output);
  EXPECT_EQ(p.out_strides(), (std::vector<std::uint64_t>{6, 1}));
}

TEST(Plan, IntegerDimsHaveZeroStrideAndPartialCoverage) {
  const auto m = meta({10, 6}, {4, 3});
  const std::uint64_t shape[] = {10, 6};
  Plan p(m, "", Selection::parse("5,::-1").resolve(shape));
  EXPECT_EQ(p.out_shape(), (std::vector<std::uint64_t>{6}));
  EXPECT_EQ(p.out_strides(), (std::vector<std::uint64_t>{0, 1}));
  ASSERT_EQ(p.num_chunks(), 2u);
  const auto c = p.chunk(0);
  EXPECT_EQ(c.coords, (std::vector<std::uint64_t>{1, 1}));
  EXPECT_EQ(c.dims[1].chunk_first, 2u);
  EXPECT_EQ(c.dims[1].chunk_step, -1);
  EXPECT_FALSE(c.covers_valid_region);
}

TEST(Plan, ZeroDimensional) {
  auto m = meta({}, {});
  Plan p(m, "", Selection().resolve(m.shape));
  ASSERT_EQ(p.num_chunks(), 1u);
  EXPECT_EQ(p.out_elements(), 1u);
  EXPECT_EQ(p.chunk(0).key, "c");
  EXPECT_TRUE(p.chunk(0).contiguous_in_output);
}

TEST(Plan, ShardsListOnlyTheInnerChunksTouched) {
  auto m = meta({16, 16}, {8, 8});
  m.codecs = {{"sharding_indexed",
               {{"chunk_shape", {4, 4}},
                {"codecs", json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}})},
                {"index_codecs", json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}})}}}};
  const std::uint64_t shape[] = {16, 16};
  Plan p(m, "", Selection::parse("1:3,9:16").resolve(shape));
  ASSERT_TRUE(p.shard_layout());
  EXPECT_EQ(p.shard_layout()->chunks_per_shard, (std::vector<std::uint64_t>{2, 2}));
  ASSERT_EQ(p.num_chunks(), 1u);
  const auto shard = p.chunk(0);
  EXPECT_EQ(shard.key, "c/0/1");
  const auto inner = p.inner_chunks(shard);
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[0].linear_index, 0u);  // rows 0..3, cols 8..11 of the array
  EXPECT_EQ(inner[1].linear_index, 1u);
  EXPECT_EQ(inner[1].dims[1].out_first, 3u);
  EXPECT_EQ(inner[1].out_offset, 3u);
}

TEST(Plan, BadShardingConfigurationIsInvalidMetadata) {
  auto m = meta({16}, {8});
  m.codecs = {{"sharding_indexed", {{"chunk_shape", {3}}}}};
  try {
    partial_shard_layout(m, "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
    EXPECT_EQ(e.context().codec, "sharding_indexed");
  }
}

}  // namespace
}  // namespace zarrgpu::engine
