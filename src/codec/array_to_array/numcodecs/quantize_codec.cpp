#include "codec/array_to_array/numcodecs/quantize_codec.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "codec/array_to_array/numcodecs/numpy_cast.hpp"
#include "codec/array_to_array/numcodecs/numpy_dtype.hpp"

namespace zarrgpu::codec {

QuantizeCodec::QuantizeCodec(const CodecSpec& spec, const ChunkRepresentation& input) : spec_(spec) {
  Configuration config(spec);
  try {
    dtype_ = filter_data_type(config, "dtype", input.data_type);
    astype_ = filter_data_type(config, "astype", dtype_);
  } catch (const Error& e) {
    throw e.with_context(codec_context(spec.name));
  }
  if (!is_float(dtype_) || !is_float(astype_)) config.fail("only floating point data types are supported");
  if (dtype_ != input.data_type)
    config.fail("dtype differs from the array's " + std::string(v3_name(input.data_type)));
  const std::int64_t digits = config.integer("digits");
  // numcodecs.Quantize.encode, in Python floats (C doubles, the same libm):
  // precision = 10**-digits; exp = floor(log10(precision)) (ceil if >= 0);
  // bits = ceil(log2(10**-exp)); scale = 2**bits.
  const double precision = std::pow(10.0, static_cast<double>(-digits));
  double exp = std::log10(precision);
  exp = exp < 0 ? std::floor(exp) : std::ceil(exp);
  const double bits = std::ceil(std::log2(std::pow(10.0, -exp)));
  scale_ = std::pow(2.0, bits);
}

// As written, with the dtype zarr-python fills in from the array when it is left out.
CodecSpec QuantizeCodec::spec() const {
  CodecSpec s = spec_;
  if (!s.configuration.contains("dtype") || s.configuration["dtype"].is_null()) s.configuration["dtype"] = numpy_str(dtype_);
  return s;
}

ChunkRepresentation QuantizeCodec::encoded_representation(const ChunkRepresentation& decoded) const {
  ChunkRepresentation e = decoded;
  e.data_type = astype_;
  e.fill_value = numpy::cast_fill_value(decoded.fill_value, dtype_, astype_);
  return e;
}

void QuantizeCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation& decoded) const {
  numpy::cast_buffer(astype_, dtype_, in.data(), out.data(), decoded.num_elements());
}

void QuantizeCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  numpy::visit(dtype_, [&](auto d) {
    using D = decltype(d);
    // np.around(scale * arr) / scale in the array's type (the Python float
    // scale is a weak scalar, NEP 50), then astype.
    const D scale = numpy::cast<D>(scale_);
    std::vector<D> q(n);
    for (std::size_t i = 0; i < n; ++i) {
      D x;
      std::memcpy(&x, in.data() + i * sizeof(D), sizeof(D));
      q[i] = numpy::div(numpy::around(numpy::mul(scale, x)), scale);
    }
    numpy::cast_buffer(dtype_, astype_, reinterpret_cast<const std::byte*>(q.data()), out.data(), n);
  });
}

}  // namespace zarrgpu::codec
