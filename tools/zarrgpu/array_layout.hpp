// The metadata of an array that `generate` or `convert` writes: its chunk
// grid, optional sharding, and chunk encoding, for either Zarr format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metadata/metadata.hpp"

namespace zarrgpu::cli {

// How one chunk (the inner chunk when sharded) is encoded.
struct ChunkEncoding {
  std::vector<CodecSpec> v3_chain;  // format 3: [array->array…], array->bytes, [bytes->bytes…]
  ArrayMetadata::V2 v2;             // format 2: order, endianness, filters, compressor
};

struct ArrayLayout {
  int zarr_format = 3;
  std::vector<std::uint64_t> chunks;        // the chunk grid (the shard shape when sharded)
  std::vector<std::uint64_t> inner_chunks;  // empty: not sharded (format 3 only)
  ChunkEncoding encoding;
};

// `bytes` (little-endian) then `b2b`.
std::vector<CodecSpec> little_endian_chain(std::vector<CodecSpec> b2b);

// The sharding_indexed codec around `inner_chain`, its index checksummed with crc32c at the end.
CodecSpec sharding_codec(const std::vector<std::uint64_t>& inner_chunks, std::vector<CodecSpec> inner_chain);

// Metadata for an array of `shape`/`dtype` with `layout`. Dimension names go
// to dimension_names (format 2 writes them as the _ARRAY_DIMENSIONS
// attribute); `path` names the array in errors. Throws Error(invalid_argument)
// for a shard shape that is not a multiple of the inner chunks, sharding in
// format 2, or a zero chunk size.
ArrayMetadata build_array_metadata(const std::string& path, const std::vector<std::uint64_t>& shape, DataType dtype,
                                   const FillValue& fill, const ArrayLayout& layout,
                                   const std::vector<std::string>& dim_names, json attributes);

}  // namespace zarrgpu::cli
