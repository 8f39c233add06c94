// `numcodecs.shuffle`: byte shuffle (numcodecs.Shuffle) — byte j of every
// element goes to plane j: out[j * count + i] = in[i * elementsize + j].
#pragma once

#include "codec/bytes_to_bytes/numcodecs/shuffle_device_step.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

class ShuffleCodec final : public BytesToBytesCodec {
 public:
  ShuffleCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.shuffle"; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes encode(std::span<const std::byte> in) const override;
  std::optional<std::size_t> encoded_size(std::size_t decoded_size) const override { return decoded_size; }
  const DeviceBytesStep* device_step() const override;

 private:
  std::size_t elementsize_ = 4;
  UnshuffleDeviceStep device_step_{0};  // for the element sizes the GPU decodes
};

}  // namespace zarrgpu::codec
