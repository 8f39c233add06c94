// `numcodecs.lz4`: the decoded size as 4 bytes little-endian, then one LZ4
// block (numcodecs.LZ4's framing, not the LZ4 frame format).
#pragma once

#include "codec/bytes_to_bytes/lz4/lz4_device_decoder.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

class Lz4Codec final : public BytesToBytesCodec {
 public:
  Lz4Codec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.lz4"; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;
  const BatchedDeviceDecoder* device_decoder() const override { return &lz4_device_decoder(); }

 private:
  int acceleration_ = 1;
};

}  // namespace zarrgpu::codec
