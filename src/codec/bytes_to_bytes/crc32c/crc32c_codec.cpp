#include "codec/bytes_to_bytes/crc32c/crc32c_codec.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "codec/bytes_to_bytes/crc32c/crc32c.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {
std::string hex(std::uint32_t v) {
  char b[11];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
}  // namespace

Crc32cCodec::Crc32cCodec(const CodecSpec& spec, const ChunkRepresentation&) { Configuration{spec}; }

CodecSpec Crc32cCodec::spec() const { return CodecSpec{.name = "crc32c"}; }

std::span<const std::byte> Crc32cCodec::verify(std::span<const std::byte> in) const {
  if (in.size() < 4)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(in.size()) + " bytes, too short for its 4-byte checksum");
  const auto payload = in.first(in.size() - 4);
  std::uint32_t stored;
  std::memcpy(&stored, in.data() + payload.size(), 4);  // little-endian host
  const std::uint32_t computed = crc32c(payload);
  if (stored != computed)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "checksum mismatch: stored " + hex(stored) + ", computed " + hex(computed));
  return payload;
}

Bytes Crc32cCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  const auto payload = verify(in);
  if (expected_size && payload.size() != expected_size)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(payload.size()) + " bytes before its checksum, expected " +
                          std::to_string(expected_size));
  return Bytes::copy_of(payload);
}

void Crc32cCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto payload = verify(in);
  if (payload.size() != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(payload.size()) + " bytes before its checksum, expected " +
                          std::to_string(out.size()));
  if (!out.empty()) std::memcpy(out.data(), payload.data(), out.size());
}

Bytes Crc32cCodec::encode(std::span<const std::byte> in) const {
  Bytes out(in.size() + 4);
  if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
  const std::uint32_t c = crc32c(in);
  std::memcpy(out.data() + in.size(), &c, 4);
  return out;
}

}  // namespace zarrgpu::codec
