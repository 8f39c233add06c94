// How `zarrgpu convert` lays out one destination array: chunks from --chunks
// (default: the source's inner chunks), shards from --shard, the encoding from
// --codec or, without it, the source's own codecs carried over.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "array_layout.hpp"
#include "chunk_option.hpp"
#include "codec_option.hpp"

namespace zarrgpu::cli {

struct ConvertOptions {
  std::optional<int> format;            // default: the source's
  std::optional<ChunkRules> chunks;
  std::optional<ChunkRules> shard;
  std::optional<CodecChoice> codec;
  bool strict_names = true;             // false for a group: names an array lacks are skipped
};

// The source's chunk as stored: the inner chunk when sharded, else the chunk.
std::vector<std::uint64_t> source_inner_chunks(const ArrayMetadata& src);

// The destination metadata for `src` at `path`. Throws UsageError / Error
// naming the array when an option cannot apply.
ArrayMetadata convert_array_metadata(const std::string& path, const ArrayMetadata& src, const ConvertOptions& opt);

// The format 2 fields equivalent to a format 3 chain ([transpose] bytes [one
// compressor]); Error(unsupported) naming the codec that format 2 cannot express.
ArrayMetadata::V2 v2_fields_for_chain(const std::vector<CodecSpec>& chain, std::size_t ndim, const std::string& path);

}  // namespace zarrgpu::cli
