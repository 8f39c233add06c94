// The sharding_indexed codec's configuration (Zarr v3 sharding_indexed
// §"Configuration parameters"): the inner chunk grid of a shard, where its
// index lies, and the codecs of inner chunks and of the index. Parsed here
// only; the codec, the CPU read path and the device read path all use it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/codec.hpp"

namespace zarrgpu::codec {

enum class IndexLocation : std::uint8_t { start, end };

struct ShardLayout {
  std::vector<std::uint64_t> inner_chunk_shape;
  std::vector<std::uint64_t> chunks_per_shard;  // shard shape / inner chunk shape, per axis
  IndexLocation index_location = IndexLocation::end;
  std::vector<CodecSpec> inner_codecs;
  std::vector<CodecSpec> index_codecs;

  // The configuration of `spec` for shards of `shard_shape`. Throws
  // Error(invalid_metadata) naming sharding_indexed when it is malformed:
  // chunk_shape not positive integers, of another rank, or not dividing the
  // shard shape; an index of more than 2^63 bytes; a bad index_location or
  // codec list. Absent codec lists take zarr-python's defaults.
  static ShardLayout parse(const CodecSpec& spec, std::span<const std::uint64_t> shard_shape);

  std::uint64_t num_inner_chunks() const noexcept;
  // An inner chunk of a shard whose elements are `shard`'s.
  ChunkRepresentation inner_chunk(const ChunkRepresentation& shard) const;
  // The index as an array: chunks_per_shard x 2 uint64 (offset, nbytes).
  ChunkRepresentation index_array() const;
};

}  // namespace zarrgpu::codec
