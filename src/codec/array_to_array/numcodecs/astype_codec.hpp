// `numcodecs.astype`: the array stored as `encode_dtype`, read back as
// `decode_dtype` (numcodecs.AsType), both with NumPy's unsafe casts.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class AsTypeCodec final : public ArrayToArrayCodec {
 public:
  AsTypeCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.astype"; }
  CodecSpec spec() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;

 private:
  CodecSpec spec_;
  DataType decode_dtype_;
  DataType encode_dtype_;
};

}  // namespace zarrgpu::codec
