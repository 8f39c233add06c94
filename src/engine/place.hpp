// Placing a chunk's selected region into the output (and the reverse, for
// writes): a strided N-d box copy on both sides, with runs that are
// contiguous on both sides merged into single memcpy calls; and filling a
// strided box with one element's bytes (missing chunks read as the fill value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/plan.hpp"

namespace zarrgpu::engine {

// A strided box: per dimension a count and a stride in ELEMENTS (signed).
struct StridedBox {
  std::byte* base = nullptr;  // address of the first selected element
  std::span<const std::int64_t> strides;
};

// Copies product(counts) elements of `element_size` bytes from `src` to `dst`;
// both walk the same counts with their own strides.
void copy_box(const std::byte* src, std::span<const std::int64_t> src_strides, std::byte* dst,
              std::span<const std::int64_t> dst_strides, std::span<const std::uint64_t> counts,
              std::size_t element_size);

// Writes `value` (element_size bytes) into every element of the box.
void fill_box(std::byte* dst, std::span<const std::int64_t> dst_strides, std::span<const std::uint64_t> counts,
              const std::byte* value, std::size_t element_size);

// C-order element strides of a chunk of `shape`.
std::vector<std::int64_t> c_strides(std::span<const std::uint64_t> shape);

// The box a ChunkPlan selects on each side, ready for copy_box/fill_box.
struct ChunkBoxes {
  std::vector<std::uint64_t> counts;
  std::vector<std::int64_t> chunk_strides;  // selected positions inside the chunk
  std::int64_t chunk_offset = 0;            // element offset of the first one in the chunk
  std::vector<std::int64_t> out_strides;    // output strides per array dim
  std::int64_t out_offset = 0;
};
ChunkBoxes chunk_boxes(const ChunkPlan& chunk, std::span<const std::uint64_t> chunk_shape,
                       std::span<const std::uint64_t> out_strides);

// Whether every element of `data` equals `value` bitwise.
bool all_equal(std::span<const std::byte> data, const std::byte* value, std::size_t element_size);

}  // namespace zarrgpu::engine
