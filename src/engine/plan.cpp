#include "engine/plan.hpp"

#include <algorithm>
#include <utility>

#include "engine/size_limits.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {

std::vector<DimChunk> split_dimension(std::uint64_t first, std::int64_t step, std::uint64_t count,
                                      std::uint64_t out_first, std::uint64_t chunk_extent) {
  std::vector<DimChunk> out;
  if (count == 0) return out;
  if (chunk_extent == 0) throw Error(ErrorKind::internal, "split_dimension: chunk extent 0");
  const std::uint64_t abs_step = step < 0 ? std::uint64_t(-(step + 1)) + 1 : std::uint64_t(step);
  std::uint64_t k = 0;
  while (k < count) {
    const std::uint64_t idx = step < 0 ? first - k * abs_step : first + k * abs_step;
    const std::uint64_t c = idx / chunk_extent;
    const std::uint64_t lo = c * chunk_extent;
    // Positions of the progression that stay inside [lo, lo + chunk_extent).
    std::uint64_t n = step < 0 ? (idx - lo) / abs_step + 1
                               : (lo + chunk_extent - idx + abs_step - 1) / abs_step;
    n = std::min(n, count - k);
    out.push_back({c, {idx - lo, step, out_first + k, n}});
    k += n;
  }
  return out;
}

std::vector<DimChunk> split_positions(std::span<const std::uint64_t> positions, std::uint64_t out_first,
                                      std::uint64_t chunk_extent) {
  std::vector<DimChunk> out;
  if (positions.empty()) return out;
  if (chunk_extent == 0) throw Error(ErrorKind::internal, "split_positions: chunk extent 0");
  const std::size_t n = positions.size();
  std::size_t k = 0;
  while (k < n) {
    const std::uint64_t c = positions[k] / chunk_extent;
    const std::uint64_t lo = c * chunk_extent;
    // The run's step is set by its second position; a repeat (step 0) ends it.
    std::int64_t step = 1;
    std::size_t end = k + 1;
    if (end < n && positions[end] / chunk_extent == c && positions[end] != positions[k]) {
      step = std::int64_t(positions[end]) - std::int64_t(positions[k]);
      ++end;
      while (end < n && positions[end] / chunk_extent == c &&
             std::int64_t(positions[end]) - std::int64_t(positions[end - 1]) == step)
        ++end;
    }
    out.push_back({c, {positions[k] - lo, step, out_first + k, end - k}});
    k = end;
  }
  return out;
}

std::optional<ShardLayout> partial_shard_layout(const ArrayMetadata& m, std::string_view path) {
  if (m.codecs.empty() || m.codecs.back().name != "sharding_indexed") return std::nullopt;
  // Only array->bytes may be sharding_indexed when it is last; anything before
  // it must be array->array (which permutes positions) -> no partial reads.
  if (m.codecs.size() != 1) return std::nullopt;
  try {
    return ShardLayout::parse(m.codecs.back(), m.chunk_shape);
  } catch (const Error& e) {
    throw e.with_context({std::string(path), "", "sharding_indexed", ""});
  }
}

Plan::Plan(const ArrayMetadata& m, std::string array_path, std::vector<DimRange> ranges)
    : ranges_(std::move(ranges)), shape_(m.shape), chunk_shape_(m.chunk_shape),
      key_encoding_(m.chunk_key_encoding), element_size_(size_of(m.data_type)) {
  const std::size_t nd = m.ndim();
  if (ranges_.size() != nd || chunk_shape_.size() != nd) {
    throw Error(ErrorKind::internal, "plan: selection rank differs from the array's", {array_path, "", "", ""});
  }
  for (auto c : chunk_shape_) {
    if (c == 0) throw Error(ErrorKind::invalid_metadata, "chunk shape has a zero extent", {array_path, "", "", ""});
  }
  if (!array_path.empty()) key_prefix_ = array_path + "/";
  for (std::size_t d = 0; d < nd; ++d) {
    grid_shape_.push_back(shape_[d] == 0 ? 0 : (shape_[d] + chunk_shape_[d] - 1) / chunk_shape_[d]);
    if (ranges_[d].keeps_dim) out_shape_.push_back(ranges_[d].count);
  }
  // Output offsets and strides are int64 and byte counts size_t: the whole
  // output, in bytes, must fit (integer-list selections may repeat positions,
  // so the array's own size does not bound it).
  const auto out_bytes = checked_product(out_shape_, element_size_);
  if (!out_bytes)
    throw Error(ErrorKind::invalid_argument, "the selection holds more than 2^63 bytes", {array_path, "", "", ""});
  out_elements_ = *checked_product(out_shape_);
  // C-order strides over the kept dimensions, mapped back onto array dims.
  out_strides_.assign(nd, 0);
  std::uint64_t stride = 1;
  for (std::size_t d = nd; d-- > 0;) {
    if (!ranges_[d].keeps_dim) continue;
    out_strides_[d] = stride;
    stride *= ranges_[d].count;
  }
  num_chunks_ = 1;
  per_dim_.resize(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const auto& r = ranges_[d];
    per_dim_[d] = r.is_list ? split_positions(r.points, 0, chunk_shape_[d])
                            : split_dimension(std::uint64_t(r.start), r.step, r.count, 0, chunk_shape_[d]);
    num_chunks_ *= per_dim_[d].size();
  }
  shard_layout_ = partial_shard_layout(m, array_path);
}

ChunkPlan Plan::make_chunk(std::vector<std::uint64_t> coords, std::vector<DimMapping> dims,
                           std::span<const std::uint64_t> chunk_extent,
                           std::span<const std::uint64_t> valid_extent) const {
  ChunkPlan c;
  c.coords = std::move(coords);
  c.dims = std::move(dims);
  c.num_selected = 1;
  c.covers_valid_region = true;
  c.contiguous_in_output = true;
  for (std::size_t d = 0; d < c.dims.size(); ++d) {
    const auto& dm = c.dims[d];
    c.num_selected *= dm.count;
    c.out_offset += dm.out_first * out_strides_[d];
    const bool unit = dm.count <= 1 || dm.chunk_step == 1 || dm.chunk_step == -1;
    if (!(unit && dm.count == valid_extent[d])) c.covers_valid_region = false;
    if (!(dm.count == chunk_extent[d] && (dm.count <= 1 || dm.chunk_step == 1))) c.contiguous_in_output = false;
  }
  if (c.contiguous_in_output) {
    std::uint64_t expected = 1;
    for (std::size_t d = c.dims.size(); d-- > 0;) {
      if (c.dims[d].count > 1 && out_strides_[d] != expected) { c.contiguous_in_output = false; break; }
      expected *= c.dims[d].count;
    }
  }
  return c;
}

std::string Plan::chunk_key(std::uint64_t i) const {
  const std::size_t nd = per_dim_.size();
  std::vector<std::uint64_t> coords(nd);
  for (std::size_t d = nd; d-- > 0;) {
    const auto n = per_dim_[d].size();
    coords[d] = per_dim_[d][i % n].coord;
    i /= n;
  }
  return key_prefix_ + key_encoding_.encode(coords);
}

ChunkPlan Plan::chunk(std::uint64_t i) const {
  const std::size_t nd = per_dim_.size();
  std::vector<std::uint64_t> coords(nd);
  std::vector<DimMapping> dims(nd);
  std::vector<std::uint64_t> valid(nd);
  for (std::size_t d = nd; d-- > 0;) {
    const auto n = per_dim_[d].size();
    const auto& dc = per_dim_[d][i % n];
    i /= n;
    coords[d] = dc.coord;
    dims[d] = dc.map;
    valid[d] = std::min(chunk_shape_[d], shape_[d] - dc.coord * chunk_shape_[d]);
  }
  std::uint64_t linear = 0;
  for (std::size_t d = 0; d < nd; ++d) linear = linear * grid_shape_[d] + coords[d];
  ChunkPlan c = make_chunk(std::move(coords), std::move(dims), chunk_shape_, valid);
  c.linear_index = linear;
  c.key = key_prefix_ + key_encoding_.encode(c.coords);
  return c;
}

std::vector<ChunkPlan> Plan::inner_chunks(const ChunkPlan& shard) const {
  std::vector<ChunkPlan> out;
  if (!shard_layout_) return out;
  const auto& L = *shard_layout_;
  const std::size_t nd = shard.dims.size();
  std::vector<std::vector<DimChunk>> lists(nd);
  std::uint64_t total = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    const auto& m = shard.dims[d];
    lists[d] = split_dimension(m.chunk_first, m.chunk_step, m.count, m.out_first, L.inner_chunk_shape[d]);
    total *= lists[d].size();
  }
  out.reserve(total);
  std::vector<std::uint64_t> coords(nd), valid(nd);
  std::vector<DimMapping> dims(nd);
  for (std::uint64_t i = 0; i < total; ++i) {
    std::uint64_t rest = i;
    for (std::size_t d = nd; d-- > 0;) {
      const auto n = lists[d].size();
      const auto& dc = lists[d][rest % n];
      rest /= n;
      coords[d] = dc.coord;
      dims[d] = dc.map;
      // Valid positions of the shard, then of the inner chunk inside it.
      const std::uint64_t shard_valid = std::min(chunk_shape_[d], shape_[d] - shard.coords[d] * chunk_shape_[d]);
      const std::uint64_t origin = dc.coord * L.inner_chunk_shape[d];
      valid[d] = std::min(L.inner_chunk_shape[d], shard_valid - origin);
    }
    std::uint64_t linear = 0;
    for (std::size_t d = 0; d < nd; ++d) linear = linear * L.chunks_per_shard[d] + coords[d];
    ChunkPlan c = make_chunk(coords, dims, L.inner_chunk_shape, valid);
    c.linear_index = linear;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace zarrgpu::engine
