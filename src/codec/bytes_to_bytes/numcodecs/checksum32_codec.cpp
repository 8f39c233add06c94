#include "codec/bytes_to_bytes/numcodecs/checksum32_codec.hpp"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "codec/bytes_to_bytes/crc32c/crc32c.hpp"
#include "codec/bytes_to_bytes/numcodecs/fletcher32.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

std::string hex(std::uint32_t v) {
  char b[11];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// zlib takes lengths as z_size_t (crc32_z, adler32_z), so no 4 GiB limit.
std::uint32_t zlib_crc32(std::span<const std::byte> d) {
  return static_cast<std::uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(d.data()), d.size()));
}
std::uint32_t zlib_adler32(std::span<const std::byte> d) {
  return static_cast<std::uint32_t>(
      adler32_z(adler32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(d.data()), d.size()));
}

}  // namespace

std::uint32_t Checksum32Codec::checksum(Algorithm algorithm, std::span<const std::byte> data) {
  switch (algorithm) {
    case Algorithm::crc32: return zlib_crc32(data);
    case Algorithm::adler32: return zlib_adler32(data);
    case Algorithm::crc32c: return crc32c(data);
    case Algorithm::fletcher32: return fletcher32(data);
  }
  return 0;
}

Checksum32Codec::Checksum32Codec(const CodecSpec& spec, const ChunkRepresentation&) : name_(spec.name) {
  Configuration config(spec);
  const std::string_view id = std::string_view(name_).substr(name_.rfind('.') + 1);
  // numcodecs' class defaults: CRC32 and Adler32 at the start, CRC32C at the end.
  if (id == "crc32") algorithm_ = Algorithm::crc32, location_ = Location::start;
  else if (id == "adler32") algorithm_ = Algorithm::adler32, location_ = Location::start;
  else if (id == "crc32c") algorithm_ = Algorithm::crc32c, location_ = Location::end;
  else if (id == "fletcher32") algorithm_ = Algorithm::fletcher32, location_ = Location::end;
  else throw codec_error(ErrorKind::unsupported, name_, "codec '" + name_ + "' is not a 32-bit checksum");
  if (algorithm_ == Algorithm::fletcher32) {
    // numcodecs.Fletcher32 takes no parameters; its checksum is always last.
    if (config.has("location")) config.fail("fletcher32 takes no 'location'");
    return;
  }
  if (config.has("location") && !config.at("location").is_null()) {
    const std::string where = config.string("location");
    if (where == "start") location_ = Location::start;
    else if (where == "end") location_ = Location::end;
    else config.fail("location must be \"start\" or \"end\", got \"" + where + "\"");
    location_written_ = true;
  }
}

CodecSpec Checksum32Codec::spec() const {
  CodecSpec s;
  s.name = name_;
  s.configuration = json::object();
  if (location_written_) s.configuration["location"] = location_ == Location::start ? "start" : "end";
  return s;
}

std::span<const std::byte> Checksum32Codec::verify(std::span<const std::byte> in) const {
  if (in.size() < 4)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(in.size()) + " bytes, too short for its 4-byte checksum");
  const auto payload = location_ == Location::start ? in.subspan(4) : in.first(in.size() - 4);
  const auto stored_at = location_ == Location::start ? in.first(4) : in.last(4);
  std::uint32_t stored;
  std::memcpy(&stored, stored_at.data(), 4);  // little-endian ('<u4'), as the host
  const std::uint32_t computed = checksum(algorithm_, payload);
  if (stored != computed)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "checksum mismatch: stored " + hex(stored) + ", computed " + hex(computed));
  return payload;
}

Bytes Checksum32Codec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  const auto payload = verify(in);
  if (expected_size && payload.size() != expected_size)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(payload.size()) + " bytes besides its checksum, expected " +
                          std::to_string(expected_size));
  return Bytes::copy_of(payload);
}

void Checksum32Codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto payload = verify(in);
  if (payload.size() != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(payload.size()) + " bytes besides its checksum, expected " +
                          std::to_string(out.size()));
  if (!out.empty()) std::memcpy(out.data(), payload.data(), out.size());
}

Bytes Checksum32Codec::encode(std::span<const std::byte> in) const {
  Bytes out(in.size() + 4);
  std::byte* payload = out.data() + (location_ == Location::start ? 4 : 0);
  if (!in.empty()) std::memcpy(payload, in.data(), in.size());
  const std::uint32_t c = checksum(algorithm_, in);
  std::memcpy(location_ == Location::start ? out.data() : out.data() + in.size(), &c, 4);
  return out;
}

}  // namespace zarrgpu::codec
