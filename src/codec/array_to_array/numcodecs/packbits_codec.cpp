#include "codec/array_to_array/numcodecs/packbits_codec.hpp"

#include <cstdint>
#include <string>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

PackBitsCodec::PackBitsCodec(const CodecSpec& spec, const ChunkRepresentation& input) {
  Configuration config(spec);
  if (input.data_type != DataType::bool_)
    throw codec_error(ErrorKind::unsupported, spec.name,
                      "packbits packs bool arrays, not " + std::string(v3_name(input.data_type)));
}

CodecSpec PackBitsCodec::spec() const { return {"numcodecs.packbits", json::object()}; }

ChunkRepresentation PackBitsCodec::encoded_representation(const ChunkRepresentation& decoded) const {
  ChunkRepresentation e;
  e.shape = {1 + (decoded.num_elements() + 7) / 8};
  e.data_type = DataType::uint8;
  e.fill_value = FillValue::of(std::uint8_t{0});
  return e;
}

void PackBitsCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  const auto* p = reinterpret_cast<const std::uint8_t*>(in.data());
  const unsigned padding = static_cast<unsigned>((8 - n % 8) % 8);
  // numcodecs trusts the count; a different one gives a different number of
  // elements, which cannot be the chunk.
  if (in.empty() || p[0] != padding)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "padding count " + (in.empty() ? std::string("missing") : std::to_string(p[0])) +
                          ", expected " + std::to_string(padding) + " for " + std::to_string(n) + " elements");
  auto* o = reinterpret_cast<std::uint8_t*>(out.data());
  for (std::size_t i = 0; i < n; ++i) o[i] = (p[1 + i / 8] >> (7 - i % 8)) & 1;
}

void PackBitsCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  const auto* x = reinterpret_cast<const std::uint8_t*>(in.data());
  auto* o = reinterpret_cast<std::uint8_t*>(out.data());
  o[0] = static_cast<std::uint8_t>((8 - n % 8) % 8);
  for (std::size_t b = 0; b < (n + 7) / 8; ++b) {
    std::uint8_t v = 0;
    for (std::size_t i = b * 8; i < n && i < b * 8 + 8; ++i) v |= static_cast<std::uint8_t>((x[i] != 0) << (7 - i % 8));
    o[1 + b] = v;
  }
}

}  // namespace zarrgpu::codec
