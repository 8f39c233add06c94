// The --chunks and --shard options of `zarrgpu convert`:
//   "1,721,1440"          one size per dimension
//   "time=1,lat=721"      sizes by dimension name (v3 dimension_names, v2
//                         _ARRAY_DIMENSIONS); the other dimensions keep a default
//   "t2m:time=1"          either form, for the array at that path only
//   "time=1;time:time=24" several of them, separated by ';'
// A size is a positive integer or "full" (the dimension's whole extent).
// In a group, a spec without a path leaves 1-D coordinates alone (an array
// whose one dimension is named as the array itself, xarray's index
// variables): chunking them along their own dimension only multiplies small
// files. A spec with the coordinate's path applies to it.
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

// Every spec of one --chunks or --shard value.
struct ChunkRules {
  std::optional<ChunkOption> general;                     // no path: data variables
  std::vector<std::pair<std::string, ChunkOption>> by_path;  // "PATH:SPEC", path without leading '/'

  // The spec for the array at `path` (relative to the converted node): its own
  // by path, else the general one unless the array is a 1-D coordinate of a
  // group (in_group); nullptr when none applies. `by_path` tells which.
  const ChunkOption* for_array(std::string_view path, std::span<const std::string> dim_names, bool in_group,
                               bool* by_path = nullptr) const;
};

// Throws UsageError naming `option` on malformed text or a path given twice.
ChunkRules parse_chunk_rules(std::string_view text, std::string_view option);

// Whether an array at `path` with these dimension names is a 1-D coordinate
// (its one dimension named as the array itself).
bool is_dimension_coordinate(std::string_view path, std::span<const std::string> dim_names);

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
