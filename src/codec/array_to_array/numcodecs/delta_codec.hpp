// `numcodecs.delta`: the first element, then the differences between
// neighbours, computed in `dtype` and stored as `astype` (numcodecs.Delta).
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class DeltaCodec final : public ArrayToArrayCodec {
 public:
  DeltaCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.delta"; }
  CodecSpec spec() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  // Integers only: their wrapping sums are associative, so the GPU's
  // parallel scan gives numcodecs' result exactly; a float cumsum depends on
  // the order of additions, and bool deltas mean "any so far", not a sum.
  const DeviceArrayStep* device_step(const ChunkRepresentation& decoded) const override;

 private:
  CodecSpec spec_;
  DataType dtype_;
  DataType astype_;
};

}  // namespace zarrgpu::codec
