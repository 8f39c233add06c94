#include "codec/codec.hpp"

#include <cstring>
#include <string>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

std::uint64_t ChunkRepresentation::num_elements() const noexcept {
  std::uint64_t n = 1;
  for (std::uint64_t s : shape) n *= s;  // 0-d: one element
  return n;
}

void BytesToBytesCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  Bytes decoded = decode(in, out.size());
  if (decoded.size() != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "decoded " + std::to_string(decoded.size()) + " bytes, expected " +
                          std::to_string(out.size()));
  if (!out.empty()) std::memcpy(out.data(), decoded.data(), out.size());
}

Bytes BytesToBytesCodec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  Bytes decoded = decode(in, 0);
  if (decoded.size() > max_size)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "decodes to " + std::to_string(decoded.size()) + " bytes, more than the " +
                          std::to_string(max_size) + " the chunk's metadata allows");
  return decoded;
}

std::size_t BytesToBytesCodec::max_encoded_size(std::size_t decoded_size) const {
  if (auto n = encoded_size(decoded_size)) return *n;
  // A codec without a known bound: twice the size, plus room for headers.
  return saturating_add(saturating_add(decoded_size, decoded_size), std::size_t(1) << 16);
}

// Zarr v3 §"Extension definition": an object with "name" and optional
// "configuration" and "must_understand", or the bare name as a string.
CodecSpec codec_spec_from_json(const json& j) {
  CodecSpec spec;
  if (j.is_string()) {
    spec.name = j.get<std::string>();
    return spec;
  }
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    throw Error(ErrorKind::invalid_metadata, "a codec must be an object with a string \"name\", got " + j.dump());
  spec.name = j["name"].get<std::string>();
  if (auto c = j.find("configuration"); c != j.end()) {
    if (!c->is_object())
      throw codec_error(ErrorKind::invalid_metadata, spec.name, "configuration must be an object");
    spec.configuration = *c;
  }
  if (auto m = j.find("must_understand"); m != j.end()) {
    if (!m->is_boolean())
      throw codec_error(ErrorKind::invalid_metadata, spec.name, "must_understand must be a boolean");
    spec.must_understand = m->get<bool>();
  }
  return spec;
}

json codec_spec_to_json(const CodecSpec& spec) {
  json j = {{"name", spec.name}};
  // zarr-python requires "configuration" of numcodecs.* codecs, even empty.
  if (spec.configuration.is_object() && (!spec.configuration.empty() || spec.name.starts_with("numcodecs.")))
    j["configuration"] = spec.configuration;
  if (!spec.must_understand) j["must_understand"] = false;
  return j;
}

}  // namespace zarrgpu::codec
