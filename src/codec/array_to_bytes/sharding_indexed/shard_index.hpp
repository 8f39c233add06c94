// The shard index (Zarr v3 sharding_indexed §"Binary shard format"): per
// inner chunk, in C order of the inner grid, a little-endian (offset, nbytes)
// pair of uint64; both 2^64-1 mark a missing (all fill value) chunk. The
// index is encoded with index_codecs (a fixed size) at the start or the end
// of the shard.
//
// ShardIndexFormat finds, decodes and validates the index of a shard, by
// whatever means its caller reads the shard (bytes in memory, an open file):
// the codec, the CPU read path and the device read path share it, so a shard
// is accepted or refused the same way by each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "codec/array_to_bytes/sharding_indexed/shard_layout.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

// Where one inner chunk's bytes lie in its shard.
struct InnerChunkRange {
  std::uint64_t offset = 0, nbytes = 0;
  bool missing = true;  // not stored: the chunk is all fill value
};

struct ShardIndex {
  static constexpr std::uint64_t missing = std::numeric_limits<std::uint64_t>::max();

  // 2 * size() values: offset, nbytes, offset, nbytes, ...
  std::vector<std::uint64_t> entries;

  std::size_t size() const noexcept { return entries.size() / 2; }
  std::uint64_t offset(std::size_t i) const noexcept { return entries[2 * i]; }
  std::uint64_t nbytes(std::size_t i) const noexcept { return entries[2 * i + 1]; }
  bool is_missing(std::size_t i) const noexcept { return offset(i) == missing && nbytes(i) == missing; }
  // Inner chunk `i` (its C-order index in the inner grid); Error(internal)
  // past size().
  InnerChunkRange range(std::size_t i) const;
};

class ShardIndexFormat {
 public:
  // Throws Error(unsupported) naming sharding_indexed when index_codecs do not
  // encode to a fixed size (the index could not be found).
  explicit ShardIndexFormat(const ShardLayout& layout);

  // Bytes the encoded index takes: 16 per inner chunk through index_codecs.
  std::uint64_t encoded_size() const noexcept { return encoded_size_; }
  IndexLocation location() const noexcept { return location_; }
  const CodecChain& chain() const noexcept { return chain_; }

  // Where the index starts in a shard of `shard_size` bytes; corrupt_data
  // when the shard is shorter than its index (checked before anything of
  // the index's size is allocated: that size comes from the metadata).
  std::uint64_t offset_in(std::uint64_t shard_size) const;
  // Decodes (and, with crc32c among the index codecs, verifies) the index of
  // a shard of `shard_size` bytes and validates every entry: none half
  // missing, none outside the shard, none (index at the start) pointing into
  // the index. Throws corrupt_data naming sharding_indexed.
  ShardIndex decode(std::span<const std::byte> encoded, std::uint64_t shard_size) const;
  // The index of a shard of `shard_size` bytes, read with
  // read_at(offset, destination) (bytes in memory, an open file, ...).
  template <class ReadAt>
  ShardIndex read(std::uint64_t shard_size, ReadAt&& read_at) const {
    const std::uint64_t at = offset_in(shard_size);
    Bytes encoded(encoded_size_);
    read_at(at, encoded.span());
    return decode(encoded.span(), shard_size);
  }
  Bytes encode(const ShardIndex& index) const;

 private:
  CodecChain chain_;
  IndexLocation location_;
  std::uint64_t encoded_size_ = 0;
  std::uint64_t entries_ = 0;
};

}  // namespace zarrgpu::codec
