// Which of convert's blocks hold any stored chunk of the source array. The
// other blocks are all fill value: when the destination has the same fill
// value, it stores nothing for them either (a missing chunk reads as the fill
// value), so convert skips them without reading or writing. An array that is
// all fill value (no chunk stored) of 2^36 elements then converts at once
// instead of materialising 256 GiB of fill.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "block_plan.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::cli {

// The grid coordinates of a chunk key of the array at `array_path` (keys as
// Store::list returns them); nullopt for keys that are not chunks (metadata).
std::optional<std::vector<std::uint64_t>> parse_chunk_key(const std::string& key, const std::string& array_path,
                                                          const ArrayMetadata& metadata);

// The blocks of `plan` (C-order indices) that overlap a chunk among `keys`.
std::set<std::uint64_t> blocks_with_stored_chunks(const std::vector<std::string>& keys, const std::string& array_path,
                                                  const ArrayMetadata& metadata, const BlockPlan& plan);

}  // namespace zarrgpu::cli
