// `blosc` (Zarr v3 blosc codec; numcodecs.Blosc): Blosc 1 frames through
// c-blosc's context functions (the global-state ones are not thread-safe).
#pragma once

#include <string>

#include "codec/bytes_to_bytes/blosc/blosc_device_decoder.hpp"
#include "codec/codec.hpp"

namespace zarrgpu::codec {

class BloscCodec final : public BytesToBytesCodec {
 public:
  enum class Shuffle : int { noshuffle = 0, shuffle = 1, bitshuffle = 2 };

  BloscCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return name_; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;
  const BatchedDeviceDecoder* device_decoder() const override { return &blosc_device_decoder(cname_); }

 private:
  std::string name_;
  std::string cname_;
  std::int64_t clevel_ = 5;
  Shuffle shuffle_ = Shuffle::noshuffle;
  bool numcodecs_shuffle_form_ = false;  // "shuffle": 1 rather than "shuffle"
  int shuffle_as_written_ = 0;           // numcodecs' -1 (AUTOSHUFFLE) survives spec()
  std::size_t typesize_ = 1;
  bool typesize_given_ = false;
  std::size_t blocksize_ = 0;
};

}  // namespace zarrgpu::codec
