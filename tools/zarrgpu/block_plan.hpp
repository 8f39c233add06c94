// How `zarrgpu convert` walks an array: in blocks made of whole destination
// write units (chunks, or shards when sharded), so every write replaces whole
// chunks and never reads back what it wrote. Where the memory budget allows,
// a block also covers whole source chunks (the least common multiple of the
// two grids), so each source chunk is decoded once.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "metadata/metadata.hpp"
#include "zarrgpu/selection.hpp"

namespace zarrgpu::cli {

struct BlockPlan {
  std::vector<std::uint64_t> shape;        // array shape
  std::vector<std::uint64_t> block_shape;  // a multiple of the write unit (clipped to shape)
  std::uint64_t block_bytes = 0;           // of a full block
  std::uint64_t block_count = 0;
  unsigned workers = 1;                    // blocks in flight at once
  bool over_budget = false;                // a single write unit exceeds the budget

  // The n-th block (C order over the block grid) as a selection of slices.
  Selection block(std::uint64_t n) const;
  // Elements in the n-th block (edge blocks are smaller).
  std::uint64_t block_elements(std::uint64_t n) const;
};

// `copies`: what a block in flight holds, in multiples of its size — the
// block itself, its encoded chunks (up to as large again) and, when sharded,
// the shard assembled from them — so that `workers` blocks in flight stay
// within `memory_budget` bytes of resident memory, not only of blocks.
BlockPlan plan_blocks(std::span<const std::uint64_t> shape, std::size_t itemsize,
                      std::span<const std::uint64_t> write_unit, std::span<const std::uint64_t> source_chunk,
                      std::uint64_t memory_budget, unsigned threads, unsigned copies = 1);

// The copies of a block that writing it to an array with this chain holds at its peak.
unsigned write_copies(const std::vector<CodecSpec>& dst_codecs);

}  // namespace zarrgpu::cli
