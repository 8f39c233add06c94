// `bytes` (Zarr v3 §"bytes codec"): the array in C order, each element in the
// configured byte order.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class BytesCodec final : public ArrayToBytesCodec {
 public:
  BytesCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "bytes"; }
  CodecSpec spec() const override;
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  Bytes encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const override;
  std::optional<std::size_t> encoded_size(const ChunkRepresentation& decoded) const override {
    return decoded.nbytes();
  }
  bool decode_is_copy(const ChunkRepresentation& decoded) const noexcept override {
    return !needs_swap(decoded);
  }
  std::optional<unsigned> device_swap(const ChunkRepresentation& decoded) const override {
    return needs_swap(decoded) ? static_cast<unsigned>(component_size(decoded.data_type)) : 0u;
  }

  // nullopt: absent from the configuration (allowed for 1-byte types).
  std::optional<Endian> endian() const noexcept { return endian_; }

 private:
  bool needs_swap(const ChunkRepresentation& r) const noexcept {
    return endian_ && *endian_ != native_endian() && component_size(r.data_type) > 1;
  }
  std::optional<Endian> endian_;
};

}  // namespace zarrgpu::codec
