#include "codec/array_to_bytes/sharding_indexed/shard_index.hpp"

#include <string>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

constexpr std::string_view kCodec = "sharding_indexed";

CodecChain build_index_chain(const ShardLayout& layout) {
  return CodecChain::build(layout.index_codecs, layout.index_array());
}

}  // namespace

InnerChunkRange ShardIndex::range(std::size_t i) const {
  if (i >= size())
    throw Error(ErrorKind::internal, "inner chunk " + std::to_string(i) + " of a shard of " + std::to_string(size()),
                codec_context(kCodec));
  if (is_missing(i)) return {};
  return {offset(i), nbytes(i), false};
}

ShardIndexFormat::ShardIndexFormat(const ShardLayout& layout)
    : chain_(build_index_chain(layout)), location_(layout.index_location), entries_(layout.num_inner_chunks()) {
  // sharding_indexed §"Configuration parameters": index_codecs encode to a
  // fixed size. Computed without building an index: its decoded size comes
  // from the metadata alone and may be large.
  const std::optional<std::size_t> size = chain_.encoded_size();
  if (!size)
    throw codec_error(ErrorKind::unsupported, kCodec,
                      "index_codecs must encode to a fixed size (bytes, optionally crc32c), so the index can be found");
  encoded_size_ = *size;
}

std::uint64_t ShardIndexFormat::offset_in(std::uint64_t shard_size) const {
  if (shard_size < encoded_size_)
    throw codec_error(ErrorKind::corrupt_data, kCodec,
                      "shard has " + std::to_string(shard_size) + " bytes, less than its " +
                          std::to_string(encoded_size_) + "-byte index");
  return location_ == IndexLocation::start ? 0 : shard_size - encoded_size_;
}

ShardIndex ShardIndexFormat::decode(std::span<const std::byte> encoded, std::uint64_t shard_size) const {
  (void)offset_in(shard_size);  // a shard shorter than its index is refused first
  ShardIndex index;
  index.entries.resize(2 * entries_);
  try {
    chain_.decode(encoded, std::as_writable_bytes(std::span(index.entries)));
  } catch (const Error& e) {
    throw Error(e.kind(), "shard index: " + e.cause(), e.context()).with_context(codec_context(kCodec));
  }
  // Inner chunks lie after a start-located index (§"Binary shard format").
  const std::uint64_t first = location_ == IndexLocation::start ? encoded_size_ : 0;
  for (std::size_t i = 0; i < entries_; ++i) {
    const std::uint64_t off = index.offset(i), n = index.nbytes(i);
    if (off == ShardIndex::missing && n == ShardIndex::missing) continue;
    if (off == ShardIndex::missing || n == ShardIndex::missing)
      throw codec_error(ErrorKind::corrupt_data, kCodec, "shard index entry " + std::to_string(i) + " is half missing");
    if (off > shard_size || n > shard_size - off)
      throw codec_error(ErrorKind::corrupt_data, kCodec,
                        "shard index entry " + std::to_string(i) + " (offset " + std::to_string(off) + ", " +
                            std::to_string(n) + " bytes) lies outside the " + std::to_string(shard_size) +
                            "-byte shard");
    if (off < first)
      throw codec_error(ErrorKind::corrupt_data, kCodec,
                        "shard index entry " + std::to_string(i) + " (offset " + std::to_string(off) +
                            ") points into the " + std::to_string(encoded_size_) +
                            "-byte index at the start of the shard");
  }
  return index;
}

Bytes ShardIndexFormat::encode(const ShardIndex& index) const {
  Bytes encoded = chain_.encode(std::as_bytes(std::span(index.entries)));
  if (encoded.size() != encoded_size_)
    throw codec_error(ErrorKind::internal, kCodec, "index encoded to an unexpected size");
  return encoded;
}

}  // namespace zarrgpu::codec
