// `numcodecs.quantize`: floats rounded to a power-of-two step fine enough for
// `digits` decimal digits, stored as `astype` (numcodecs.Quantize). Lossy:
// decoding only casts back to `dtype`.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class QuantizeCodec final : public ArrayToArrayCodec {
 public:
  QuantizeCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.quantize"; }
  CodecSpec spec() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;

 private:
  CodecSpec spec_;
  DataType dtype_;
  DataType astype_;
  double scale_ = 1;  // 2**bits
};

}  // namespace zarrgpu::codec
