// The --codec option of `zarrgpu convert`: one compressor, in a short form.
//
//   none | raw                      no compression
//   zstd[:LEVEL]                    default level 3
//   gzip[:LEVEL]                    default level 5
//   blosc[:CNAME[:CLEVEL[:SHUFFLE]]]  CNAME lz4|lz4hc|blosclz|zstd|zlib (default lz4),
//                                   CLEVEL 0-9 (5), SHUFFLE noshuffle|shuffle|bitshuffle (shuffle)
//   any of these + "+crc32c"        (format 3) a crc32c checksum after the compressor
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "metadata/metadata.hpp"

namespace zarrgpu::cli {

struct CodecChoice {
  enum class Kind { none, zstd, gzip, blosc } kind = Kind::zstd;
  int level = 3;
  std::string blosc_cname = "lz4";
  std::string blosc_shuffle = "shuffle";  // noshuffle | shuffle | bitshuffle
  bool crc32c = false;

  // Bytes-to-bytes codecs of a format 3 chain (after `bytes`); `typesize` for blosc.
  std::vector<CodecSpec> v3_codecs(std::size_t typesize) const;
  // The format 2 `compressor` (null for none). Throws UsageError for crc32c.
  json v2_compressor() const;
};

// Throws UsageError with the accepted forms on anything else.
CodecChoice parse_codec_option(std::string_view text);

}  // namespace zarrgpu::cli
