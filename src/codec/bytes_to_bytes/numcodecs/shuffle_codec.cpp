#include "codec/bytes_to_bytes/numcodecs/shuffle_codec.hpp"

#include <cstring>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

ShuffleCodec::ShuffleCodec(const CodecSpec& spec, const ChunkRepresentation&) {
  Configuration config(spec);
  const std::int64_t e = config.integer("elementsize", 4);  // numcodecs' default
  if (e < 0) config.fail("elementsize must not be negative");
  elementsize_ = static_cast<std::size_t>(e);
  if (elementsize_ >= 1 && elementsize_ <= UnshuffleDeviceStep::kMaxElementSize)
    device_step_ = UnshuffleDeviceStep(static_cast<unsigned>(elementsize_));
}

const DeviceBytesStep* ShuffleCodec::device_step() const {
  return elementsize_ >= 1 && elementsize_ <= UnshuffleDeviceStep::kMaxElementSize ? &device_step_ : nullptr;
}

CodecSpec ShuffleCodec::spec() const {
  CodecSpec s;
  s.name = "numcodecs.shuffle";
  s.configuration = {{"elementsize", elementsize_}};
  return s;
}

void ShuffleCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  if (in.size() != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(in.size()) + " bytes, expected " + std::to_string(out.size()));
  if (in.empty()) return;
  const std::size_t e = elementsize_;
  if (e <= 1) {
    std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  if (in.size() % e)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      std::to_string(in.size()) + " bytes are not a whole number of " + std::to_string(e) + "-byte elements");
  const std::size_t count = in.size() / e;
  for (std::size_t j = 0; j < e; ++j) {
    const std::byte* plane = in.data() + j * count;
    for (std::size_t i = 0; i < count; ++i) out[i * e + j] = plane[i];
  }
}

Bytes ShuffleCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  if (expected_size && expected_size != in.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(in.size()) + " bytes, expected " + std::to_string(expected_size));
  Bytes out(in.size());
  decode_into(in, out.span());
  return out;
}

Bytes ShuffleCodec::encode(std::span<const std::byte> in) const {
  Bytes out(in.size());
  if (in.empty()) return out;
  const std::size_t e = elementsize_;
  if (e <= 1) {
    std::memcpy(out.data(), in.data(), in.size());
    return out;
  }
  if (in.size() % e)
    throw codec_error(ErrorKind::invalid_argument, name(),
                      std::to_string(in.size()) + " bytes are not a whole number of " + std::to_string(e) + "-byte elements");
  const std::size_t count = in.size() / e;
  for (std::size_t j = 0; j < e; ++j) {
    std::byte* plane = out.data() + j * count;
    for (std::size_t i = 0; i < count; ++i) plane[i] = in[i * e + j];
  }
  return out;
}

}  // namespace zarrgpu::codec
