#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"

#include <cstring>
#include <limits>
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

std::vector<CodecSpec> parse_codecs(const Configuration& config, std::string_view key,
                                    std::vector<CodecSpec> fallback) {
  if (!config.has(key)) return fallback;
  const json& list = config.at(key);
  if (!list.is_array()) config.fail(std::string(key) + " must be an array of codecs");
  std::vector<CodecSpec> specs;
  for (const json& j : list) specs.push_back(codec_spec_from_json(j));
  return specs;
}

CodecSpec bytes_little() {
  CodecSpec s;
  s.name = "bytes";
  s.configuration = {{"endian", "little"}};
  return s;
}

}  // namespace

ShardingIndexedCodec::ShardingIndexedCodec(const CodecSpec& spec, const ChunkRepresentation& shard) : shard_(shard) {
  Configuration config(spec);
  const json& cs = config.at("chunk_shape");
  if (!cs.is_array()) config.fail("chunk_shape must be an array");
  for (const json& v : cs) {
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) config.fail("chunk_shape must hold positive integers, got " + cs.dump());
    inner_shape_.push_back(v.get<std::uint64_t>());
  }
  if (inner_shape_.size() != shard.shape.size())
    config.fail("chunk_shape " + shape_string(inner_shape_) + " has a different rank from the shard " + shape_string(shard.shape));
  num_inner_ = 1;
  for (std::size_t k = 0; k < inner_shape_.size(); ++k) {
    // sharding_indexed §"Configuration parameters": the inner chunk shape must
    // divide the shard shape.
    if (shard.shape[k] % inner_shape_[k] != 0)
      config.fail("chunk_shape " + shape_string(inner_shape_) + " does not divide the shard shape " + shape_string(shard.shape));
    chunks_per_shard_.push_back(shard.shape[k] / inner_shape_[k]);
    num_inner_ *= chunks_per_shard_.back();
  }
  // Two uint64 entries per inner chunk; the count is at most the shard's
  // element count, which the engine has bounded, but its index must fit too.
  if (num_inner_ > std::numeric_limits<std::int64_t>::max() / 16)
    config.fail("the shard index of " + std::to_string(num_inner_) + " inner chunks holds more than 2^63 bytes");

  const std::string location = config.string("index_location", "end");
  if (location == "end") location_ = IndexLocation::end;
  else if (location == "start") location_ = IndexLocation::start;
  else config.fail("index_location must be \"start\" or \"end\", got \"" + location + "\"");

  CodecSpec crc;
  crc.name = "crc32c";
  // zarr-python's defaults when the lists are absent.
  inner_specs_ = parse_codecs(config, "codecs", {bytes_little()});
  index_specs_ = parse_codecs(config, "index_codecs", {bytes_little(), crc});

  ChunkRepresentation inner = shard;
  inner.shape = inner_shape_;
  inner_.emplace(CodecChain::build(inner_specs_, inner));

  ChunkRepresentation index;
  index.shape = chunks_per_shard_;
  index.shape.push_back(2);
  index.data_type = DataType::uint64;
  index.fill_value = FillValue::of(ShardIndex::missing);
  index_.emplace(CodecChain::build(index_specs_, index));
  const std::optional<std::size_t> size = index_->encoded_size();
  if (!size)
    throw codec_error(ErrorKind::unsupported, name(),
                      "index_codecs must encode to a fixed size (bytes, optionally crc32c), so the index can be found");
  index_size_ = *size;

  fill_chunk_.resize(inner.nbytes());
  const std::size_t e = size_of(shard.data_type);
  FillValue fill = shard.fill_value;
  if (fill.is_null) fill.bytes = {};
  if (fill_chunk_.size()) {
    const std::vector<std::uint64_t> zero(inner_shape_.size(), 0);
    const ChunkRegion all{inner_shape_, zero, inner_shape_, e};
    all.fill(fill.bytes.data(), fill_chunk_.data());
  }
}

CodecSpec ShardingIndexedCodec::spec() const {
  CodecSpec s;
  s.name = "sharding_indexed";
  json codecs = json::array(), index_codecs = json::array();
  for (const CodecSpec& c : inner_->specs()) codecs.push_back(codec_spec_to_json(c));
  for (const CodecSpec& c : index_->specs()) index_codecs.push_back(codec_spec_to_json(c));
  s.configuration = {{"chunk_shape", inner_shape_},
                     {"codecs", codecs},
                     {"index_codecs", index_codecs},
                     {"index_location", location_ == IndexLocation::end ? "end" : "start"}};
  return s;
}

std::optional<std::size_t> ShardingIndexedCodec::max_encoded_size(const ChunkRepresentation&) const {
  const std::optional<std::size_t> inner = inner_->max_encoded_size();
  if (!inner) return std::nullopt;
  std::size_t chunks;
  if (__builtin_mul_overflow(*inner, num_inner_, &chunks)) return std::nullopt;
  return saturating_add(chunks, index_size_);
}

std::span<const std::byte> ShardingIndexedCodec::index_bytes(std::span<const std::byte> shard) const {
  if (shard.size() < index_size_)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "shard has " + std::to_string(shard.size()) + " bytes, less than its " + std::to_string(index_size_) +
                          "-byte index");
  return location_ == IndexLocation::start ? shard.first(index_size_) : shard.last(index_size_);
}

ShardIndex ShardingIndexedCodec::decode_index(std::span<const std::byte> encoded,
                                              std::optional<std::uint64_t> shard_size) const {
  ShardIndex index;
  index.entries.resize(2 * num_inner_);
  try {
    index_->decode(encoded, std::as_writable_bytes(std::span(index.entries)));
  } catch (const Error& e) {
    throw Error(e.kind(), "shard index: " + e.cause(), e.context());
  }
  for (std::size_t i = 0; i < num_inner_; ++i) {
    const std::uint64_t off = index.offset(i), n = index.nbytes(i);
    if (off == ShardIndex::missing && n == ShardIndex::missing) continue;
    if (off == ShardIndex::missing || n == ShardIndex::missing)
      throw codec_error(ErrorKind::corrupt_data, name(), "shard index entry " + std::to_string(i) + " is half missing");
    if (shard_size && (off > *shard_size || n > *shard_size - off))
      throw codec_error(ErrorKind::corrupt_data, name(),
                        "shard index entry " + std::to_string(i) + " (offset " + std::to_string(off) + ", " +
                            std::to_string(n) + " bytes) lies outside the " + std::to_string(*shard_size) + "-byte shard");
  }
  return index;
}

void ShardingIndexedCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                                  const ChunkRepresentation& decoded) const {
  const ShardIndex index = decode_index(index_bytes(in), in.size());
  const std::size_t e = size_of(decoded.data_type);
  const std::size_t inner_nbytes = fill_chunk_.size();
  std::vector<std::uint64_t> origin(inner_shape_.size());
  Bytes scratch;
  for (std::size_t i = 0; i < num_inner_; ++i) {
    // C order over the inner grid.
    for (std::size_t k = inner_shape_.size(), rest = i; k-- > 0;) {
      origin[k] = (rest % chunks_per_shard_[k]) * inner_shape_[k];
      rest /= chunks_per_shard_[k];
    }
    const ChunkRegion region{decoded.shape, origin, inner_shape_, e};
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
  std::vector<std::uint64_t> origin(inner_shape_.size());
  Bytes scratch(inner_nbytes);
  std::uint64_t data_size = 0;
  bool any = false;
  for (std::size_t i = 0; i < num_inner_; ++i) {
    for (std::size_t k = inner_shape_.size(), rest = i; k-- > 0;) {
      origin[k] = (rest % chunks_per_shard_[k]) * inner_shape_[k];
      rest /= chunks_per_shard_[k];
    }
    const ChunkRegion region{decoded.shape, origin, inner_shape_, e};
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

  std::uint64_t offset = location_ == IndexLocation::start ? index_size_ : 0;
  for (std::size_t i = 0; i < num_inner_; ++i) {
    if (encoded[i].empty()) continue;
    index.entries[2 * i] = offset;
    offset += encoded[i].size();
  }
  const Bytes encoded_index = index_->encode(std::as_bytes(std::span(index.entries)));
  if (encoded_index.size() != index_size_)
    throw codec_error(ErrorKind::internal, name(), "index encoded to an unexpected size");

  Bytes shard(index_size_ + data_size);
  std::byte* p = shard.data();
  if (location_ == IndexLocation::start) {
    std::memcpy(p, encoded_index.data(), index_size_);
    p += index_size_;
  }
  for (const Bytes& b : encoded) {
    if (b.empty()) continue;
    std::memcpy(p, b.data(), b.size());
    p += b.size();
  }
  if (location_ == IndexLocation::end) std::memcpy(p, encoded_index.data(), index_size_);
  return shard;
}

}  // namespace zarrgpu::codec
