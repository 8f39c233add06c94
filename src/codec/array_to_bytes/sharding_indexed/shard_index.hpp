// The shard index (Zarr v3 sharding_indexed §"Binary shard format"): per
// inner chunk, in C order of the inner grid, a little-endian (offset, nbytes)
// pair of uint64; both 2^64-1 mark a missing (all fill value) chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace zarrgpu::codec {

struct ShardIndex {
  static constexpr std::uint64_t missing = std::numeric_limits<std::uint64_t>::max();

  // 2 * size() values: offset, nbytes, offset, nbytes, ...
  std::vector<std::uint64_t> entries;

  std::size_t size() const noexcept { return entries.size() / 2; }
  std::uint64_t offset(std::size_t i) const noexcept { return entries[2 * i]; }
  std::uint64_t nbytes(std::size_t i) const noexcept { return entries[2 * i + 1]; }
  bool is_missing(std::size_t i) const noexcept { return offset(i) == missing && nbytes(i) == missing; }
};

}  // namespace zarrgpu::codec
