#include "codec/bytes_to_bytes/gzip/gzip_codec.hpp"

#include "codec/bytes_to_bytes/gzip/deflate_stream.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

GzipCodec::GzipCodec(const CodecSpec& spec, const ChunkRepresentation&) : name_(spec.name) {
  Configuration config(spec);
  // Defaults: zarr-python's GzipCodec (5) under "gzip", numcodecs.GZip (1)
  // under "numcodecs.gzip". Only encoding uses the level.
  level_ = config.integer("level", name_ == "numcodecs.gzip" ? 1 : 5);
}

CodecSpec GzipCodec::spec() const {
  CodecSpec s;
  s.name = name_;
  s.configuration = {{"level", level_}};
  return s;
}

Bytes GzipCodec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  return inflate_at_most(in, max_size, name());
}

std::size_t GzipCodec::max_encoded_size(std::size_t decoded_size) const { return max_deflate_size(decoded_size); }

Bytes GzipCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  return inflate_all(in, expected_size, name());
}

void GzipCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  inflate_into(in, out, name());
}

Bytes GzipCodec::encode(std::span<const std::byte> in) const {
  return gzip_member(in, deflate_level(level_, name()), name());
}

}  // namespace zarrgpu::codec
