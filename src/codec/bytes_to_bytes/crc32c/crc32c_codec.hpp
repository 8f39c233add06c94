// `crc32c` (Zarr v3 §"crc32c codec"): appends the CRC-32C of the bytes,
// 4 bytes little-endian; decoding checks and strips it.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class Crc32cCodec final : public BytesToBytesCodec {
 public:
  Crc32cCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "crc32c"; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes encode(std::span<const std::byte> in) const override;
  std::optional<std::size_t> encoded_size(std::size_t decoded_size) const override { return decoded_size + 4; }

  // Checks the trailing checksum; returns the bytes before it (a view of `in`).
  std::span<const std::byte> verify(std::span<const std::byte> in) const;
};

}  // namespace zarrgpu::codec
