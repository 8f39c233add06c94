// Moving an inner chunk between its own dense buffer and its place in the
// shard: a box of `block` shape at `origin` inside a C-order array of `outer`
// shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace zarrgpu::codec {

struct ChunkRegion {
  std::span<const std::uint64_t> outer;   // the shard's shape
  std::span<const std::uint64_t> origin;  // the block's first element in the shard
  std::span<const std::uint64_t> block;   // the inner chunk's shape
  std::size_t element_size;

  // Whether the block is one contiguous run of the outer array.
  bool contiguous() const noexcept;
  // Byte offset of the block's first element in the outer array.
  std::size_t outer_offset() const noexcept;
  // block buffer -> its place in outer
  void scatter(const std::byte* block_data, std::byte* outer_data) const noexcept;
  // its place in outer -> block buffer
  void gather(const std::byte* outer_data, std::byte* block_data) const noexcept;
  // Every element of the block's place in outer := `value` (element_size bytes).
  void fill(const std::byte* value, std::byte* outer_data) const noexcept;
};

}  // namespace zarrgpu::codec
