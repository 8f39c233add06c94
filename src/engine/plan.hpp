// Planning: which chunks (and, for sharded arrays, which inner chunks) a
// resolved selection touches, and how each chunk's positions map onto the
// output. Pure host code: no I/O, no decoding, no threads — the CPU engine and
// the GPU path (src/engine/device_read/) both execute these plans.
//
// The mapping per dimension is an arithmetic progression on both sides:
// chunk position  chunk_first + k * chunk_step   (chunk_step may be negative)
// output position out_first + k                  (k < count)
// so a chunk's selected region is a strided box, and placing it is a strided
// copy. Zarr stores edge chunks (those that stick out past the array's shape)
// at the full chunk shape (v3 §"Chunk grids"/regular), so a decoded chunk is
// always `chunk_shape` and positions past the array edge are never selected.
//
// A plan is lazy: it keeps per-dimension lists (one entry per chunk along that
// dimension, except for position lists, which may visit a chunk once per run:
// see split_positions) and materialises chunk i on demand, so its memory is
// proportional to the grid's extents and the lists, not to the number of
// chunks. Writes need one entry per chunk (two would modify a chunk at once),
// so they refuse position lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/array_to_bytes/sharding_indexed/shard_layout.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/selection.hpp"

namespace zarrgpu::engine {

// The mapping of one dimension of one chunk onto the output.
struct DimMapping {
  std::uint64_t chunk_first = 0;  // first selected position inside the chunk
  std::int64_t chunk_step = 1;    // step between selected positions inside the chunk
  std::uint64_t out_first = 0;    // output position of the first one (0 for dropped dims)
  std::uint64_t count = 0;        // selected positions in this chunk along this dim
};

// One chunk along one dimension: its grid coordinate and its mapping.
struct DimChunk {
  std::uint64_t coord = 0;
  DimMapping map;
};

// Splits the selected positions first + k*step (k < count) of a dimension of
// extent `extent` into chunks of `chunk_extent`, in order of k. Output
// positions start at `out_first`. Chunk coordinates are relative to the
// dimension's origin.
std::vector<DimChunk> split_dimension(std::uint64_t first, std::int64_t step, std::uint64_t count,
                                      std::uint64_t out_first, std::uint64_t chunk_extent);

// Splits a list of positions (any order, repeats allowed) into maximal runs
// that are arithmetic progressions inside one chunk, in list order: a sorted
// list without repeats gives one run per chunk when each chunk's positions are
// evenly spaced (e.g. one position per chunk), so every chunk is read once;
// otherwise a chunk appears once per run. Output positions follow the list.
std::vector<DimChunk> split_positions(std::span<const std::uint64_t> positions, std::uint64_t out_first,
                                      std::uint64_t chunk_extent);

// One chunk touched by a selection.
struct ChunkPlan {
  std::vector<std::uint64_t> coords;  // grid coordinates (inner chunks: within the shard)
  std::string key;                    // full store key (empty for inner chunks)
  std::uint64_t linear_index = 0;     // C-order index within the grid (inner: the shard index slot)
  std::vector<DimMapping> dims;       // one per array dimension
  std::uint64_t num_selected = 0;     // product of counts
  // Every position of the chunk that lies inside the array (or the shard) is
  // selected: a write needs no read-modify-write.
  bool covers_valid_region = false;
  // The whole chunk, in C order, is one contiguous run of the output starting
  // at element `out_offset`: decode straight into the output.
  bool contiguous_in_output = false;
  std::uint64_t out_offset = 0;  // element offset of the first selected position in the output
};

// The sharding_indexed codec's layout (shard_layout.hpp).
using codec::ShardLayout;

// The shard layout when the array is sharded in a way the engine can read
// partially: array->bytes is sharding_indexed and no bytes->bytes codec
// follows it (array->array codecs before it also disable partial reads,
// because they permute positions). Otherwise nullopt: treat shards as chunks.
// Throws Error(invalid_metadata) when the configuration is malformed (inner
// chunk shape not dividing the shard shape, wrong rank).
std::optional<ShardLayout> partial_shard_layout(const ArrayMetadata& metadata, std::string_view array_path);

class Plan {
 public:
  // `array_path` prefixes chunk keys ("" = the store root).
  Plan(const ArrayMetadata& metadata, std::string array_path, std::vector<DimRange> ranges);

  const std::vector<DimRange>& ranges() const noexcept { return ranges_; }
  // The output: C order over the kept dimensions.
  const std::vector<std::uint64_t>& out_shape() const noexcept { return out_shape_; }
  std::uint64_t out_elements() const noexcept { return out_elements_; }
  // Output stride (elements) of each ARRAY dimension; 0 for dropped (integer) dims.
  const std::vector<std::uint64_t>& out_strides() const noexcept { return out_strides_; }
  std::size_t element_size() const noexcept { return element_size_; }
  const std::vector<std::uint64_t>& chunk_shape() const noexcept { return chunk_shape_; }

  // Chunks touched (0 when the selection is empty).
  std::uint64_t num_chunks() const noexcept { return num_chunks_; }
  ChunkPlan chunk(std::uint64_t i) const;
  // chunk(i).key alone, without the mapping (read-ahead names chunks early).
  std::string chunk_key(std::uint64_t i) const;
  // Per-dimension lists behind chunk(i) (chunk i = C-order product of these).
  const std::vector<std::vector<DimChunk>>& dim_chunks() const noexcept { return per_dim_; }

  // Sharded arrays (partial_shard_layout): chunk(i) is a shard; these are the
  // inner chunks of shard `shard` that the selection touches, in C order of
  // their coordinates, with out offsets/strides of the same output.
  const std::optional<ShardLayout>& shard_layout() const noexcept { return shard_layout_; }
  std::vector<ChunkPlan> inner_chunks(const ChunkPlan& shard) const;

 private:
  ChunkPlan make_chunk(std::vector<std::uint64_t> coords, std::vector<DimMapping> dims,
                       std::span<const std::uint64_t> chunk_extent,
                       std::span<const std::uint64_t> valid_extent) const;

  std::vector<DimRange> ranges_;
  std::vector<std::uint64_t> shape_;
  std::vector<std::uint64_t> chunk_shape_;
  ChunkKeyEncoding key_encoding_;
  std::string key_prefix_;
  std::vector<std::uint64_t> out_shape_;
  std::vector<std::uint64_t> out_strides_;
  std::uint64_t out_elements_ = 0;
  std::size_t element_size_ = 0;
  std::vector<std::vector<DimChunk>> per_dim_;
  std::vector<std::uint64_t> grid_shape_;
  std::uint64_t num_chunks_ = 0;
  std::optional<ShardLayout> shard_layout_;
};

}  // namespace zarrgpu::engine
