#include "stored_blocks.hpp"

#include <algorithm>
#include <charconv>

namespace zarrgpu::cli {

std::optional<std::vector<std::uint64_t>> parse_chunk_key(const std::string& key, const std::string& array_path,
                                                          const ArrayMetadata& m) {
  std::string_view rel = key;
  if (!array_path.empty()) {
    if (!rel.starts_with(array_path) || rel.size() <= array_path.size() || rel[array_path.size()] != '/')
      return std::nullopt;
    rel.remove_prefix(array_path.size() + 1);
  }
  const char sep = m.chunk_key_encoding.separator;
  const std::size_t nd = m.ndim();
  // Zarr v3 §"Chunk key encoding": default is "c" then the coordinates;
  // v2 is the coordinates alone ("0" for a 0-d array).
  if (m.chunk_key_encoding.kind == ChunkKeyEncoding::Kind::default_) {
    if (nd == 0) return rel == "c" ? std::optional(std::vector<std::uint64_t>{}) : std::nullopt;
    if (rel.size() < 2 || rel[0] != 'c' || rel[1] != sep) return std::nullopt;
    rel.remove_prefix(2);
  } else if (nd == 0) {
    return rel == "0" ? std::optional(std::vector<std::uint64_t>{}) : std::nullopt;
  }
  std::vector<std::uint64_t> coords;
  while (true) {
    const std::size_t end = std::min(rel.find(sep), rel.size());
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(rel.data(), rel.data() + end, v);
    if (ec != std::errc() || p != rel.data() + end || end == 0) return std::nullopt;
    coords.push_back(v);
    if (end == rel.size()) break;
    rel.remove_prefix(end + 1);
  }
  if (coords.size() != nd) return std::nullopt;
  return coords;
}

std::set<std::uint64_t> blocks_with_stored_chunks(const std::vector<std::string>& keys, const std::string& array_path,
                                                  const ArrayMetadata& m, const BlockPlan& plan) {
  std::set<std::uint64_t> blocks;
  const std::size_t nd = m.ndim();
  std::vector<std::uint64_t> grid(nd);
  for (std::size_t d = 0; d < nd; ++d) grid[d] = (plan.shape[d] + plan.block_shape[d] - 1) / plan.block_shape[d];
  for (const auto& key : keys) {
    const auto coords = parse_chunk_key(key, array_path, m);
    if (!coords) continue;
    // The blocks the chunk's elements fall in, per dimension [lo, hi].
    std::vector<std::uint64_t> lo(nd), hi(nd);
    bool inside = true;
    for (std::size_t d = 0; d < nd; ++d) {
      const std::uint64_t first = (*coords)[d] * m.chunk_shape[d];
      if ((*coords)[d] != 0 && first / m.chunk_shape[d] != (*coords)[d]) { inside = false; break; }  // wrapped
      if (first >= plan.shape[d]) { inside = false; break; }
      const std::uint64_t last = std::min(plan.shape[d] - 1, first + (m.chunk_shape[d] - 1));
      lo[d] = first / plan.block_shape[d];
      hi[d] = last / plan.block_shape[d];
    }
    if (!inside) continue;
    std::vector<std::uint64_t> at = lo;
    while (true) {
      std::uint64_t linear = 0;
      for (std::size_t d = 0; d < nd; ++d) linear = linear * grid[d] + at[d];
      blocks.insert(linear);
      std::size_t d = nd;
      while (d-- > 0) {
        if (++at[d] <= hi[d]) break;
        at[d] = lo[d];
      }
      if (d == SIZE_MAX) break;
    }
  }
  return blocks;
}

}  // namespace zarrgpu::cli
