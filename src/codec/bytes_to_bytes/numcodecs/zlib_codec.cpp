#include "codec/bytes_to_bytes/numcodecs/zlib_codec.hpp"

#include "codec/bytes_to_bytes/gzip/deflate_stream.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

ZlibCodec::ZlibCodec(const CodecSpec& spec, const ChunkRepresentation&) {
  Configuration config(spec);
  level_ = config.integer("level", 1);  // numcodecs.Zlib's default; only encoding uses it
}

CodecSpec ZlibCodec::spec() const {
  CodecSpec s;
  s.name = "numcodecs.zlib";
  s.configuration = {{"level", level_}};
  return s;
}

Bytes ZlibCodec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  return inflate_at_most(in, max_size, name());
}

std::size_t ZlibCodec::max_encoded_size(std::size_t decoded_size) const { return max_deflate_size(decoded_size); }

Bytes ZlibCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  return inflate_all(in, expected_size, name());
}

void ZlibCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  inflate_into(in, out, name());
}

Bytes ZlibCodec::encode(std::span<const std::byte> in) const {
  return zlib_stream(in, deflate_level(level_, name()), name());
}

}  // namespace zarrgpu::codec
