// `gzip` (Zarr v3 gzip codec; numcodecs.GZip): a gzip member (RFC 1952).
// Decoding also takes concatenated members and zlib streams, which some
// writers produce under this name.
#pragma once

#include <string>

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class GzipCodec final : public BytesToBytesCodec {
 public:
  GzipCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return name_; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;

 private:
  std::string name_;
  std::int64_t level_ = 5;
};

}  // namespace zarrgpu::codec
