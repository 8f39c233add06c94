// A codec chain in one line, for `zarrgpu info`:
//   bytes(little) | zstd(3)
//   sharding_indexed[8,8](bytes(little) | zstd(3)) index(bytes(little) | crc32c)
//   transpose(1,0) | bytes(big) | blosc(lz4,5,shuffle)
// Codecs without a short form print as name(key=value,...).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "metadata/metadata.hpp"

namespace zarrgpu::cli {

std::string summarize_codecs(std::span<const CodecSpec> chain);
std::string summarize_codec(const CodecSpec& codec);

// Parses a JSON array of codec objects ({"name":…, "configuration":…}) as
// found inside sharding_indexed's configuration. Malformed entries keep their
// name (or "?") and an empty configuration: a summary never throws.
std::vector<CodecSpec> codec_specs_from_json(const json& list);

// The inner chunk shape of a sharded chain (the first codec is sharding_indexed), or empty.
std::vector<std::uint64_t> inner_chunk_shape(std::span<const CodecSpec> chain);

}  // namespace zarrgpu::cli
