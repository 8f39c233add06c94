// `sharding_indexed` (Zarr v3 sharding_indexed codec): a shard holds a grid
// of inner chunks, each encoded with `codecs`, and an index of where each one
// lies, encoded with `index_codecs`, at the start or the end of the shard.
//
// decode/encode handle whole shards. For partial reads the engine reads the
// index (encoded_index_size() bytes at index_location()), decodes it with
// decode_index(), then fetches and decodes only the inner chunks it needs
// with inner_chain().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codec/array_to_bytes/sharding_indexed/shard_index.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

class ShardingIndexedCodec final : public ArrayToBytesCodec {
 public:
  enum class IndexLocation : std::uint8_t { start, end };

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

  const std::vector<std::uint64_t>& inner_chunk_shape() const noexcept { return inner_shape_; }
  // Inner chunks along each axis (shard shape / inner chunk shape).
  const std::vector<std::uint64_t>& chunks_per_shard() const noexcept { return chunks_per_shard_; }
  std::size_t num_inner_chunks() const noexcept { return num_inner_; }
  const CodecChain& inner_chain() const noexcept { return *inner_; }
  const CodecChain& index_chain() const noexcept { return *index_; }
  IndexLocation index_location() const noexcept { return location_; }
  // Bytes the encoded index takes: 16 per inner chunk through index_codecs.
  std::size_t encoded_index_size() const noexcept { return index_size_; }
  // The index bytes inside a whole shard of `shard_size` bytes.
  std::span<const std::byte> index_bytes(std::span<const std::byte> shard) const;
  // Decodes (and, with crc32c among the index codecs, verifies) an encoded
  // index. With shard_size given, every present entry must lie inside the
  // shard. Throws corrupt_data naming this codec.
  ShardIndex decode_index(std::span<const std::byte> encoded,
                          std::optional<std::uint64_t> shard_size = std::nullopt) const;

 private:
  ChunkRepresentation shard_;
  std::vector<std::uint64_t> inner_shape_;
  std::vector<std::uint64_t> chunks_per_shard_;
  std::size_t num_inner_ = 0;
  std::vector<CodecSpec> inner_specs_, index_specs_;
  std::optional<CodecChain> inner_;
  std::optional<CodecChain> index_;
  IndexLocation location_ = IndexLocation::end;
  std::size_t index_size_ = 0;
  Bytes fill_chunk_;  // one inner chunk of fill value, to compare and to copy from
};

}  // namespace zarrgpu::codec
