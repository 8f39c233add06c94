// numcodecs' 32-bit checksum codecs (numcodecs.checksum32 and
// numcodecs.fletcher32): the bytes with a 4-byte little-endian checksum
// before them (`location` "start") or after them ("end"); decoding checks and
// strips it. As numcodecs lays them out:
//   numcodecs.crc32      zlib's CRC-32,            at the start by default
//   numcodecs.adler32    zlib's Adler-32,          at the start by default
//   numcodecs.crc32c     CRC-32C (Castagnoli),     at the end by default
//   numcodecs.fletcher32 HDF5's Fletcher-32,       always at the end
// The Zarr v3 `crc32c` codec (§"crc32c codec") is numcodecs.crc32c at its
// default location, and runs here too.
#pragma once

#include <cstdint>

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class Checksum32Codec final : public BytesToBytesCodec {
 public:
  enum class Algorithm : std::uint8_t { crc32, adler32, crc32c, fletcher32 };
  enum class Location : std::uint8_t { start, end };

  // `spec.name` is "crc32c" or "numcodecs.<id>" with id crc32, adler32, crc32c or fletcher32.
  Checksum32Codec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return name_; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  Bytes encode(std::span<const std::byte> in) const override;
  std::optional<std::size_t> encoded_size(std::size_t decoded_size) const override { return decoded_size + 4; }

  // The checksum of `data` under `algorithm`.
  static std::uint32_t checksum(Algorithm algorithm, std::span<const std::byte> data);

 private:
  // Checks the stored checksum; returns the payload (a view of `in`).
  std::span<const std::byte> verify(std::span<const std::byte> in) const;

  std::string name_;
  Algorithm algorithm_;
  Location location_;
  bool location_written_ = false;  // numcodecs writes "location" only when it was given
};

}  // namespace zarrgpu::codec
