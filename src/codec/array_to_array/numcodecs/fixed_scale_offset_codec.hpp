// `numcodecs.fixedscaleoffset`: encode round((x - offset) * scale) as
// `astype`, decode x / scale + offset as `dtype` (numcodecs.FixedScaleOffset),
// with NumPy 2's type promotion: `offset` and `scale` are Python scalars, so
// they take the array's type, except that a float scalar makes integer
// arithmetic float64 (NEP 50).
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class FixedScaleOffsetCodec final : public ArrayToArrayCodec {
 public:
  FixedScaleOffsetCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.fixedscaleoffset"; }
  CodecSpec spec() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;

  // A Python int or float, as JSON wrote it.
  struct Scalar {
    bool is_int = true;
    std::int64_t i = 0;
    double f = 0;
    double as_double() const noexcept { return is_int ? static_cast<double>(i) : f; }
  };

 private:
  CodecSpec spec_;
  DataType dtype_;
  DataType astype_;
  Scalar offset_, scale_;
};

}  // namespace zarrgpu::codec
