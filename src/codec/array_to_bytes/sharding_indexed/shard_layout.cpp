#include "codec/array_to_bytes/sharding_indexed/shard_layout.hpp"

#include <limits>
#include <string>

#include "codec/array_to_bytes/sharding_indexed/shard_index.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

std::vector<CodecSpec> parse_codecs(const Configuration& config, std::string_view key,
                                    std::vector<CodecSpec> fallback) {
  if (!config.has(key)) return fallback;
  const json& list = config.at(key);
  if (!list.is_array()) config.fail(std::string(key) + " must be an array of codecs");
  std::vector<CodecSpec> specs;
  for (const json& j : list) {
    try {
      specs.push_back(codec_spec_from_json(j));
    } catch (const Error& e) {
      throw Error(e.kind(), std::string(key) + ": " + e.cause(), e.context()).with_context(codec_context("sharding_indexed"));
    }
  }
  return specs;
}

CodecSpec bytes_little() {
  CodecSpec s;
  s.name = "bytes";
  s.configuration = {{"endian", "little"}};
  return s;
}

}  // namespace

ShardLayout ShardLayout::parse(const CodecSpec& spec, std::span<const std::uint64_t> shard_shape) {
  ShardLayout layout;
  Configuration config(spec);
  const json& cs = config.at("chunk_shape");
  if (!cs.is_array()) config.fail("chunk_shape must be an array");
  for (const json& v : cs) {
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
      config.fail("chunk_shape must hold positive integers, got " + cs.dump());
    layout.inner_chunk_shape.push_back(v.get<std::uint64_t>());
  }
  if (layout.inner_chunk_shape.size() != shard_shape.size())
    config.fail("chunk_shape " + json(layout.inner_chunk_shape).dump() + " has a different rank from the shard " +
                json(std::vector<std::uint64_t>(shard_shape.begin(), shard_shape.end())).dump());
  std::uint64_t inner = 1;
  for (std::size_t k = 0; k < shard_shape.size(); ++k) {
    // sharding_indexed §"Configuration parameters": the inner chunk shape must
    // divide the shard shape.
    if (shard_shape[k] % layout.inner_chunk_shape[k] != 0)
      config.fail("chunk_shape " + json(layout.inner_chunk_shape).dump() + " does not divide the shard shape " +
                  json(std::vector<std::uint64_t>(shard_shape.begin(), shard_shape.end())).dump());
    layout.chunks_per_shard.push_back(shard_shape[k] / layout.inner_chunk_shape[k]);
    inner *= layout.chunks_per_shard.back();
  }
  // Two uint64 entries per inner chunk; the count is at most the shard's
  // element count, which the engine has bounded, but its index must fit too.
  if (inner > std::uint64_t(std::numeric_limits<std::int64_t>::max()) / 16)
    config.fail("the shard index of " + std::to_string(inner) + " inner chunks holds more than 2^63 bytes");

  const std::string location = config.string("index_location", "end");
  if (location == "end") layout.index_location = IndexLocation::end;
  else if (location == "start") layout.index_location = IndexLocation::start;
  else config.fail("index_location must be \"start\" or \"end\", got \"" + location + "\"");

  CodecSpec crc;
  crc.name = "crc32c";
  // zarr-python's defaults when the lists are absent.
  layout.inner_codecs = parse_codecs(config, "codecs", {bytes_little()});
  layout.index_codecs = parse_codecs(config, "index_codecs", {bytes_little(), crc});
  return layout;
}

std::uint64_t ShardLayout::num_inner_chunks() const noexcept {
  std::uint64_t n = 1;
  for (const std::uint64_t c : chunks_per_shard) n *= c;
  return n;
}

ChunkRepresentation ShardLayout::inner_chunk(const ChunkRepresentation& shard) const {
  ChunkRepresentation inner = shard;
  inner.shape = inner_chunk_shape;
  return inner;
}

ChunkRepresentation ShardLayout::index_array() const {
  ChunkRepresentation index;
  index.shape = chunks_per_shard;
  index.shape.push_back(2);
  index.data_type = DataType::uint64;
  index.fill_value = FillValue::of(ShardIndex::missing);
  return index;
}

}  // namespace zarrgpu::codec
