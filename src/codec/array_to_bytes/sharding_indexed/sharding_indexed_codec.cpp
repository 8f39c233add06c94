#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "codec/array_to_bytes/sharding_indexed/chunk_region.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

std::string shape_string(std::span<const std::uint64_t> s) {
  std::string r = "[";
  for (std::size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
  return r + "]";
}

}  // namespace

ShardingIndexedCodec::ShardingIndexedCodec(const CodecSpec& spec, const ChunkRepresentation& shard)
    : shard_(shard), layout_(ShardLayout::parse(spec, shard.shape)) {
  num_inner_ = std::size_t(layout_.num_inner_chunks());
  const ChunkRepresentation inner = layout_.inner_chunk(shard);
  inner_.emplace(CodecChain::build(layout_.inner_codecs, inner));
  index_.emplace(layout_);

  fill_chunk_.resize(inner.nbytes());
  const std::size_t e = size_of(shard.data_type);
  FillValue fill = shard.fill_value;
  if ((fill.is_null && !is_time(shard.data_type)) || fill.bytes.size() < e)
    fill.bytes.assign(std::max<std::size_t>(e, 16), std::byte{0});
  if (fill_chunk_.size()) {
    const auto& shape = layout_.inner_chunk_shape;
    const std::vector<std::uint64_t> zero(shape.size(), 0);
    const ChunkRegion all{shape, zero, shape, e};
    all.fill(fill.bytes.data(), fill_chunk_.data());
  }
}

CodecSpec ShardingIndexedCodec::spec() const {
  CodecSpec s;
  s.name = "sharding_indexed";
  json codecs = json::array(), index_codecs = json::array();
  for (const CodecSpec& c : inner_->specs()) codecs.push_back(codec_spec_to_json(c));
  for (const CodecSpec& c : index_->chain().specs()) index_codecs.push_back(codec_spec_to_json(c));
  s.configuration = {{"chunk_shape", layout_.inner_chunk_shape},
                     {"codecs", codecs},
                     {"index_codecs", index_codecs},
                     {"index_location", layout_.index_location == IndexLocation::end ? "end" : "start"}};
  return s;
}

std::optional<std::size_t> ShardingIndexedCodec::max_encoded_size(const ChunkRepresentation&) const {
  const std::optional<std::size_t> inner = inner_->max_encoded_size();
  if (!inner) return std::nullopt;
  std::size_t chunks;
  if (__builtin_mul_overflow(*inner, num_inner_, &chunks)) return std::nullopt;
  return saturating_add(chunks, std::size_t(index_->encoded_size()));
}

std::span<const std::byte> ShardingIndexedCodec::index_bytes(std::span<const std::byte> shard) const {
  return shard.subspan(std::size_t(index_->offset_in(shard.size())), std::size_t(index_->encoded_size()));
}

ShardIndex ShardingIndexedCodec::decode_index(std::span<const std::byte> shard) const {
  return index_->decode(index_bytes(shard), shard.size());
}

void ShardingIndexedCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                                  const ChunkRepresentation& decoded) const {
  const ShardIndex index = decode_index(in);
  const std::size_t e = size_of(decoded.data_type);
  const std::size_t inner_nbytes = fill_chunk_.size();
  const auto& inner_shape = layout_.inner_chunk_shape;
  const auto& per_shard = layout_.chunks_per_shard;
  std::vector<std::uint64_t> origin(inner_shape.size());
  Bytes scratch;
  for (std::size_t i = 0; i < num_inner_; ++i) {
    // C order over the inner grid.
    for (std::size_t k = inner_shape.size(), rest = i; k-- > 0;) {
      origin[k] = (rest % per_shard[k]) * inner_shape[k];
      rest /= per_shard[k];
    }
    const ChunkRegion region{decoded.shape, origin, inner_shape, e};
    if (index.is_missing(i)) {
      if (region.contiguous()) std::memcpy(out.data() + region.outer_offset(), fill_chunk_.data(), inner_nbytes);
      else region.scatter(fill_chunk_.data(), out.data());
      continue;
    }
    const auto stored = in.subspan(index.offset(i), index.nbytes(i));
    try {
      if (region.contiguous()) {
        inner_->decode(stored, out.subspan(region.outer_offset(), inner_nbytes));
      } else {
        scratch.resize(inner_nbytes);
        inner_->decode(stored, scratch.span());
        region.scatter(scratch.data(), out.data());
      }
    } catch (const Error& err) {
      throw Error(err.kind(), "inner chunk " + shape_string(origin) + ": " + err.cause(), err.context());
    }
  }
}

Bytes ShardingIndexedCodec::encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const {
  const std::size_t e = size_of(decoded.data_type);
  const std::size_t inner_nbytes = fill_chunk_.size();
  ShardIndex index;
  index.entries.assign(2 * num_inner_, ShardIndex::missing);
  std::vector<Bytes> encoded(num_inner_);
  const auto& inner_shape = layout_.inner_chunk_shape;
  const auto& per_shard = layout_.chunks_per_shard;
  std::vector<std::uint64_t> origin(inner_shape.size());
  Bytes scratch(inner_nbytes);
  std::uint64_t data_size = 0;
  bool any = false;
  for (std::size_t i = 0; i < num_inner_; ++i) {
    for (std::size_t k = inner_shape.size(), rest = i; k-- > 0;) {
      origin[k] = (rest % per_shard[k]) * inner_shape[k];
      rest /= per_shard[k];
    }
    const ChunkRegion region{decoded.shape, origin, inner_shape, e};
    std::span<const std::byte> chunk;
    if (region.contiguous()) {
      chunk = in.subspan(region.outer_offset(), inner_nbytes);
    } else {
      region.gather(in.data(), scratch.data());
      chunk = scratch.span();
    }
    // sharding_indexed §"Binary shard format": chunks of only the fill value may be left out.
    if (inner_nbytes && std::memcmp(chunk.data(), fill_chunk_.data(), inner_nbytes) == 0) continue;
    encoded[i] = inner_->encode(chunk);
    if (encoded[i].empty()) continue;  // a nested shard that is all fill
    index.entries[2 * i + 1] = encoded[i].size();
    data_size += encoded[i].size();
    any = true;
  }
  if (!any) return {};

  const std::size_t index_size = std::size_t(index_->encoded_size());
  const IndexLocation location = layout_.index_location;
  std::uint64_t offset = location == IndexLocation::start ? index_size : 0;
  for (std::size_t i = 0; i < num_inner_; ++i) {
    if (encoded[i].empty()) continue;
    index.entries[2 * i] = offset;
    offset += encoded[i].size();
  }
  const Bytes encoded_index = index_->encode(index);

  Bytes shard(index_size + data_size);
  std::byte* p = shard.data();
  if (location == IndexLocation::start) {
    std::memcpy(p, encoded_index.data(), index_size);
    p += index_size;
  }
  for (const Bytes& b : encoded) {
    if (b.empty()) continue;
    std::memcpy(p, b.data(), b.size());
    p += b.size();
  }
  if (location == IndexLocation::end) std::memcpy(p, encoded_index.data(), index_size);
  return shard;
}

}  // namespace zarrgpu::codec
