// `numcodecs.bitround`: floats with all but `keepbits` mantissa bits rounded
// away (round to nearest, ties to even; numcodecs.BitRound). Lossy; decoding
// is the identity.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class BitRoundCodec final : public ArrayToArrayCodec {
 public:
  BitRoundCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.bitround"; }
  CodecSpec spec() const override { return spec_; }
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override { return decoded; }
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;

 private:
  CodecSpec spec_;
  std::int64_t keepbits_ = 0;
};

}  // namespace zarrgpu::codec
