// The --chunks and --shard options of `zarrgpu convert`:
//   "1,721,1440"          one size per dimension
//   "time=1,lat=721"      sizes by dimension name (v3 dimension_names, v2
//                         _ARRAY_DIMENSIONS); the other dimensions keep a default
// A size is a positive integer or "full" (the dimension's whole extent).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zarrgpu::cli {

struct ChunkOption {
  // Positional form: one entry per dimension; named form: (name, size).
  // A size of 0 stands for "full".
  std::vector<std::uint64_t> sizes;
  std::vector<std::pair<std::string, std::uint64_t>> named;
  bool is_named() const noexcept { return !named.empty(); }
};

// Throws UsageError naming `option` ("--chunks") on malformed text.
ChunkOption parse_chunk_option(std::string_view text, std::string_view option);

// The chunk shape for an array of `shape` with `dim_names` (entries may be
// empty), starting from `defaults` (one per dimension). Throws UsageError when
// the positional form has the wrong length or a name is not a dimension.
// strict = false (converting a group): a positional form of another length
// and names the array lacks leave the defaults (the caller checks that each
// name exists somewhere in the tree).
std::vector<std::uint64_t> resolve_chunk_option(const ChunkOption& opt, std::span<const std::uint64_t> shape,
                                                std::span<const std::string> dim_names,
                                                std::span<const std::uint64_t> defaults,
                                                std::string_view option, std::string_view array,
                                                bool strict = true);

}  // namespace zarrgpu::cli
