// `transpose` (Zarr v3 §"transpose codec"): encoded axis k is decoded axis order[k].
#pragma once

#include <vector>

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class TransposeCodec final : public ArrayToArrayCodec {
 public:
  TransposeCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "transpose"; }
  CodecSpec spec() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  void encode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  // Decoded axis order[k] has the stride of encoded axis k.
  std::optional<std::vector<std::int64_t>> decoded_strides(std::span<const std::int64_t> encoded) const override;

  const std::vector<std::size_t>& order() const noexcept { return order_; }

 private:
  std::vector<std::size_t> order_;    // encoded axis k = decoded axis order_[k]
  std::vector<std::size_t> inverse_;  // decoded axis j = encoded axis inverse_[j]
};

}  // namespace zarrgpu::codec
