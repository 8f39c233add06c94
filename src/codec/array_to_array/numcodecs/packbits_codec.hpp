// `numcodecs.packbits`: a bool array packed eight to a byte, first element in
// the high bit (np.packbits), after one byte that counts the padding bits of
// the last byte (numcodecs.PackBits). The encoded array is uint8 of
// 1 + ceil(n / 8) elements.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class PackBitsCodec final : public ArrayToArrayCodec {
 public:
  PackBitsCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.packbits"; }
  CodecSpec spec() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
};

}  // namespace zarrgpu::codec
