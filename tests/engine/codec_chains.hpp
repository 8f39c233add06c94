// Codec chains the engine's read tests build arrays with: "bytes", "zstd",
// and sharded ones ("shard_zstd", anything else: sharded plain bytes) with
// the given inner chunk shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::testing {

inline json bytes_codec() { return {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}; }
inline json zstd_codec() { return {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}; }

inline std::vector<CodecSpec> codec_chain(const std::string& kind, const std::vector<std::uint64_t>& inner_chunk_shape) {
  auto spec = [](const json& j) { return CodecSpec{j["name"].get<std::string>(), j.value("configuration", json::object())}; };
  if (kind == "bytes") return {spec(bytes_codec())};
  if (kind == "zstd") return {spec(bytes_codec()), spec(zstd_codec())};
  const json inner = kind == "shard_zstd" ? json::array({bytes_codec(), zstd_codec()}) : json::array({bytes_codec()});
  return {{"sharding_indexed", {{"chunk_shape", inner_chunk_shape}, {"codecs", inner}}}};
}

}  // namespace zarrgpu::testing
