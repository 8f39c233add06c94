// `zstd` (Zarr v3 zstd codec; numcodecs.Zstd): RFC 8878 frames through
// libzstd. Decoding accepts concatenated frames, with or without the frame
// content size (TensorStore writes none).
#pragma once

#include <string>

#include "codec/bytes_to_bytes/zstd/zstd_device_decoder.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

class ZstdCodec final : public BytesToBytesCodec {
 public:
  ZstdCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return name_; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;
  const BatchedDeviceDecoder* device_decoder() const override { return &zstd_device_decoder(); }

  std::int64_t level() const noexcept { return level_; }
  bool checksum() const noexcept { return checksum_; }

 private:
  std::string name_;
  std::int64_t level_ = 0;  // as written; encoding clamps it
  bool checksum_ = false;
};

}  // namespace zarrgpu::codec
