#include "codec/array_to_bytes/bytes/bytes_codec.hpp"

#include <cstring>
#include <string>

#include "codec/array_to_bytes/bytes/byte_swap.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

BytesCodec::BytesCodec(const CodecSpec& spec, const ChunkRepresentation& input) {
  Configuration config(spec);
  if (config.has("endian")) {
    std::string e = config.string("endian");
    if (e == "little") endian_ = Endian::little;
    else if (e == "big") endian_ = Endian::big;
    else config.fail("endian must be \"little\" or \"big\", got \"" + e + "\"");
  } else if (component_size(input.data_type) > 1) {
    // Zarr v3 §"bytes codec": required unless the data type has one byte
    // (per component: zarr-python writes null_terminated_bytes without it).
    config.fail("endian is required for data type " + describe(input.data_type));
  }
}

CodecSpec BytesCodec::spec() const {
  CodecSpec s;
  s.name = "bytes";
  if (endian_) s.configuration["endian"] = *endian_ == Endian::little ? "little" : "big";
  return s;
}

void BytesCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                        const ChunkRepresentation& decoded) const {
  if (in.size() != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "chunk has " + std::to_string(in.size()) + " bytes, expected " +
                          std::to_string(out.size()));
  if (needs_swap(decoded)) byte_swap(in, out, component_size(decoded.data_type));
  else if (!in.empty() && in.data() != out.data()) std::memcpy(out.data(), in.data(), in.size());
}

Bytes BytesCodec::encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const {
  Bytes out(in.size());
  if (needs_swap(decoded)) byte_swap(in, out.span(), component_size(decoded.data_type));
  else if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
  return out;
}

}  // namespace zarrgpu::codec
