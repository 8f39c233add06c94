// `sharding_indexed` (Zarr v3 sharding_indexed codec): a shard holds a grid
// of inner chunks, each encoded with `codecs`, and an index of where each one
// lies, encoded with `index_codecs`, at the start or the end of the shard.
//
// decode/encode handle whole shards. For partial reads the engine takes the
// layout (shard_layout.hpp) and reads the index (shard_index.hpp) itself,
// then fetches and decodes only the inner chunks it needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codec/array_to_bytes/sharding_indexed/shard_index.hpp"
#include "codec/array_to_bytes/sharding_indexed/shard_layout.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

class ShardingIndexedCodec final : public ArrayToBytesCodec {
 public:
  ShardingIndexedCodec(const CodecSpec& spec, const ChunkRepresentation& shard);

  std::string_view name() const noexcept override { return "sharding_indexed"; }
  CodecSpec spec() const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  // Inner chunks equal to the fill value are left out. Returns empty Bytes
  // when every inner chunk is fill: the shard need not be stored (the chain
  // passes the empty result through; the engine deletes or skips the key).
  Bytes encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const override;
  // The index and every inner chunk at its chain's bound.
  std::optional<std::size_t> max_encoded_size(const ChunkRepresentation& decoded) const override;

  const ShardLayout& layout() const noexcept { return layout_; }
  const std::vector<std::uint64_t>& inner_chunk_shape() const noexcept { return layout_.inner_chunk_shape; }
  // Inner chunks along each axis (shard shape / inner chunk shape).
  const std::vector<std::uint64_t>& chunks_per_shard() const noexcept { return layout_.chunks_per_shard; }
  std::size_t num_inner_chunks() const noexcept { return num_inner_; }
  const CodecChain& inner_chain() const noexcept { return *inner_; }
  const ShardIndexFormat& index_format() const noexcept { return *index_; }
  IndexLocation index_location() const noexcept { return layout_.index_location; }
  // Bytes the encoded index takes: 16 per inner chunk through index_codecs.
  std::size_t encoded_index_size() const noexcept { return index_->encoded_size(); }
  // The index bytes inside a whole shard.
  std::span<const std::byte> index_bytes(std::span<const std::byte> shard) const;
  // The validated index of a whole shard (ShardIndexFormat::decode).
  ShardIndex decode_index(std::span<const std::byte> shard) const;

 private:
  ChunkRepresentation shard_;
  ShardLayout layout_;
  std::size_t num_inner_ = 0;
  std::optional<CodecChain> inner_;
  std::optional<ShardIndexFormat> index_;
  Bytes fill_chunk_;  // one inner chunk of fill value, to compare and to copy from
};

}  // namespace zarrgpu::codec
