// `numcodecs.zlib`: a zlib stream (RFC 1950), as zlib.compress writes it.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class ZlibCodec final : public BytesToBytesCodec {
 public:
  ZlibCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.zlib"; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;

 private:
  std::int64_t level_ = 1;
};

}  // namespace zarrgpu::codec
