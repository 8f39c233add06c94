#include "codec/array_to_array/numcodecs/astype_codec.hpp"

#include <string>

#include "codec/array_to_array/numcodecs/numpy_cast.hpp"
#include "codec/array_to_array/numcodecs/numpy_dtype.hpp"

namespace zarrgpu::codec {

AsTypeCodec::AsTypeCodec(const CodecSpec& spec, const ChunkRepresentation& input) : spec_(spec) {
  Configuration config(spec);
  try {
    encode_dtype_ = filter_data_type(config, "encode_dtype");
    // zarr-python fills decode_dtype in from the array when it is left out.
    decode_dtype_ = filter_data_type(config, "decode_dtype", input.data_type);
  } catch (const Error& e) {
    throw e.with_context(codec_context(spec.name));
  }
  if (decode_dtype_ != input.data_type)
    config.fail("decode_dtype " + config.string("decode_dtype") + " differs from the array's " +
                std::string(v3_name(input.data_type)));
}

// As written, with the decode_dtype zarr-python fills in from the array when it is left out.
CodecSpec AsTypeCodec::spec() const {
  CodecSpec s = spec_;
  if (!s.configuration.contains("decode_dtype") || s.configuration["decode_dtype"].is_null())
    s.configuration["decode_dtype"] = numpy_str(decode_dtype_);
  return s;
}

ChunkRepresentation AsTypeCodec::encoded_representation(const ChunkRepresentation& decoded) const {
  ChunkRepresentation e = decoded;
  e.data_type = encode_dtype_;
  e.fill_value = numpy::cast_fill_value(decoded.fill_value, decode_dtype_, encode_dtype_);
  return e;
}

void AsTypeCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                         const ChunkRepresentation& decoded) const {
  numpy::cast_buffer(encode_dtype_, decode_dtype_, in.data(), out.data(), decoded.num_elements());
}

void AsTypeCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                         const ChunkRepresentation& decoded) const {
  numpy::cast_buffer(decode_dtype_, encode_dtype_, in.data(), out.data(), decoded.num_elements());
}

}  // namespace zarrgpu::codec
