#include "codec/array_to_array/numcodecs/fixed_scale_offset_codec.hpp"

#include <cstring>
#include <string>
#include <type_traits>

#include "codec/array_to_array/numcodecs/numpy_dtype.hpp"
#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"

namespace zarrgpu::codec {

namespace {

using Scalar = FixedScaleOffsetCodec::Scalar;

template <class T> T load(const std::byte* p, std::size_t i) { T v; std::memcpy(&v, p + i * sizeof(T), sizeof(T)); return v; }
template <class T> void store(std::byte* p, std::size_t i, T v) { std::memcpy(p + i * sizeof(T), &v, sizeof(T)); }

template <class F>
void visit2(DataType d, DataType a, F&& f) {
  numpy::visit(d, [&](auto dv) { numpy::visit(a, [&](auto av) { f(dv, av); }); });
}

// A Python scalar converted to the array type T (NumPy's weak scalar rule).
template <class T> T scalar_as(const Scalar& s) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(s.i);  // only reached for int scalars
  else return numpy::cast<T>(s.as_double());
}

Scalar parse_scalar(const Configuration& config, std::string_view key) {
  const json& v = config.at(key);
  Scalar s;
  if (v.is_number_integer()) {
    s.is_int = true;
    s.i = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    s.is_int = false;
    s.f = v.get<double>();
  } else {
    config.fail("field '" + std::string(key) + "' must be a number, got " + v.dump());
  }
  return s;
}

// One element, encoded: (x - offset) * scale, rounded, cast to A.
template <class D, class A>
A encode_one(D x, const Scalar& offset, const Scalar& scale) {
  if constexpr (numpy::is_floating<D>) {
    return numpy::cast<A>(numpy::around(numpy::mul(numpy::sub(x, scalar_as<D>(offset)), scalar_as<D>(scale))));
  } else {
    if (!offset.is_int)  // int array - float -> float64
      return numpy::cast<A>(std::nearbyint((static_cast<double>(x) - offset.f) * scale.as_double()));
    const D t = numpy::sub(x, scalar_as<D>(offset));
    if (!scale.is_int) return numpy::cast<A>(std::nearbyint(static_cast<double>(t) * scale.f));
    return numpy::cast<A>(numpy::mul(t, scalar_as<D>(scale)));
  }
}

// One element, decoded: x / scale + offset (true division), cast to D.
template <class D, class A>
D decode_one(A e, const Scalar& offset, const Scalar& scale) {
  if constexpr (numpy::is_floating<A>) {
    return numpy::cast<D>(numpy::add(numpy::div(e, scalar_as<A>(scale)), scalar_as<A>(offset)));
  } else {
    return numpy::cast<D>(static_cast<double>(e) / scale.as_double() + offset.as_double());
  }
}

}  // namespace

FixedScaleOffsetCodec::FixedScaleOffsetCodec(const CodecSpec& spec, const ChunkRepresentation& input)
    : spec_(spec) {
  Configuration config(spec);
  try {
    dtype_ = filter_data_type(config, "dtype");
    astype_ = filter_data_type(config, "astype", dtype_);
  } catch (const Error& e) {
    throw e.with_context(codec_context(spec.name));
  }
  if (dtype_ != input.data_type)
    config.fail("dtype " + config.string("dtype") + " differs from the array's " + std::string(v3_name(input.data_type)));
  offset_ = parse_scalar(config, "offset");
  scale_ = parse_scalar(config, "scale");
}

CodecSpec FixedScaleOffsetCodec::spec() const { return spec_; }

ChunkRepresentation FixedScaleOffsetCodec::encoded_representation(const ChunkRepresentation& decoded) const {
  ChunkRepresentation e = decoded;
  e.shape = {decoded.num_elements()};  // numcodecs flattens
  e.data_type = astype_;
  visit2(dtype_, astype_, [&](auto d, auto a) {
    using D = decltype(d);
    using A = decltype(a);
    e.fill_value = FillValue::of(encode_one<D, A>(load<D>(decoded.fill_value.bytes.data(), 0), offset_, scale_));
    e.fill_value.is_null = decoded.fill_value.is_null;
  });
  return e;
}

void FixedScaleOffsetCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                                   const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  visit2(dtype_, astype_, [&](auto d, auto a) {
    using D = decltype(d);
    using A = decltype(a);
    for (std::size_t i = 0; i < n; ++i)
      store<A>(out.data(), i, encode_one<D, A>(load<D>(in.data(), i), offset_, scale_));
  });
}

void FixedScaleOffsetCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                                   const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  visit2(dtype_, astype_, [&](auto d, auto a) {
    using D = decltype(d);
    using A = decltype(a);
    for (std::size_t i = 0; i < n; ++i)
      store<D>(out.data(), i, decode_one<D, A>(load<A>(in.data(), i), offset_, scale_));
  });
}

}  // namespace zarrgpu::codec
