// Checked sizes. The engine computes strides, offsets and byte counts of
// arrays, chunks, shards and selections in 64-bit arithmetic (signed where a
// step may be negative); these checks run once, where metadata is opened or a
// selection planned, so that none of those products can wrap later. A size
// that does not fit is an Error naming what overflows, never a wrapped value.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "zarrgpu/error.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::engine {

// The largest count of bytes (or elements) the engine handles: offsets and
// strides are int64, so every size stays within its positive range.
inline constexpr std::uint64_t kMaxSize = std::uint64_t(std::numeric_limits<std::int64_t>::max());

// factor * product(extents), or nullopt when it exceeds kMaxSize.
std::optional<std::uint64_t> checked_product(std::span<const std::uint64_t> extents, std::uint64_t factor = 1);

// Throws Error(invalid_metadata) when the array's size in bytes or a chunk's
// (a shard's) exceeds kMaxSize. Inner chunks are smaller than their shard;
// the sharding codec checks its index's size.
void check_array_sizes(const ArrayMetadata& metadata, const std::string& path);

}  // namespace zarrgpu::engine
