#include <gtest/gtest.h>

#include "block_plan.hpp"
#include "stored_blocks.hpp"

using namespace zarrgpu;
using namespace zarrgpu::cli;

namespace {
ArrayMetadata array_2d(ChunkKeyEncoding::Kind kind, char sep) {
  ArrayMetadata m;
  m.shape = {100, 10};
  m.chunk_shape = {10, 10};
  m.chunk_key_encoding = {kind, sep};
  return m;
}
}  // namespace

TEST(StoredBlocks, ParsesChunkKeysOfBothEncodings) {
  const auto v3 = array_2d(ChunkKeyEncoding::Kind::default_, '/');
  EXPECT_EQ(parse_chunk_key("g/a/c/3/0", "g/a", v3), (std::vector<std::uint64_t>{3, 0}));
  EXPECT_FALSE(parse_chunk_key("g/a/zarr.json", "g/a", v3));
  EXPECT_FALSE(parse_chunk_key("g/a/c/3", "g/a", v3));
  EXPECT_FALSE(parse_chunk_key("g/ab/c/3/0", "g/a", v3));
  EXPECT_FALSE(parse_chunk_key("g/a/c/3/x", "g/a", v3));
  const auto v2 = array_2d(ChunkKeyEncoding::Kind::v2, '.');
  EXPECT_EQ(parse_chunk_key("7.0", "", v2), (std::vector<std::uint64_t>{7, 0}));
  EXPECT_FALSE(parse_chunk_key(".zarray", "", v2));
  EXPECT_FALSE(parse_chunk_key("7..0", "", v2));
}

TEST(StoredBlocks, OnlyBlocksOverlappingAStoredChunk) {
  const auto m = array_2d(ChunkKeyEncoding::Kind::default_, '/');
  // Blocks of 25 rows (not aligned to the 10-row chunks): 4 blocks.
  const std::vector<std::uint64_t> unit = {25, 10};
  BlockPlan plan = plan_blocks(m.shape, 1, unit, unit, 1 << 20, 1);
  ASSERT_EQ(plan.block_count, 4u);
  // Chunk 2 spans rows 20-29: blocks 0 and 1; chunk 9 (rows 90-99): block 3.
  EXPECT_EQ(blocks_with_stored_chunks({"c/2/0", "c/9/0", "zarr.json", "c/99/0"}, "", m, plan),
            (std::set<std::uint64_t>{0, 1, 3}));
  EXPECT_TRUE(blocks_with_stored_chunks({"zarr.json"}, "", m, plan).empty());
}
