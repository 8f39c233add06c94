#include "codec/array_to_array/numcodecs/delta_codec.hpp"

#include "codec/array_to_array/numcodecs/delta_device_step.hpp"

#include <cstring>
#include <string>

#include "codec/array_to_array/numcodecs/numpy_dtype.hpp"
#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"

namespace zarrgpu::codec {

namespace {

template <class T> T load(const std::byte* p, std::size_t i) { T v; std::memcpy(&v, p + i * sizeof(T), sizeof(T)); return v; }
template <class T> void store(std::byte* p, std::size_t i, T v) { std::memcpy(p + i * sizeof(T), &v, sizeof(T)); }

// Calls f(D{}, A{}) for the pair of types.
template <class F>
void visit2(DataType d, DataType a, F&& f) {
  numpy::visit(d, [&](auto dv) { numpy::visit(a, [&](auto av) { f(dv, av); }); });
}

}  // namespace

DeltaCodec::DeltaCodec(const CodecSpec& spec, const ChunkRepresentation& input) : spec_(spec) {
  Configuration config(spec);
  try {
    dtype_ = filter_data_type(config, "dtype", FilterTypes::numeric_or_bool);
    astype_ = filter_data_type(config, "astype", dtype_, FilterTypes::numeric_or_bool);
  } catch (const Error& e) {
    throw e.with_context(codec_context(spec.name));
  }
  if ((dtype_ == DataType::bool_) != (astype_ == DataType::bool_))
    throw codec_error(ErrorKind::unsupported, spec.name, "a bool delta must be stored as bool");
  if (dtype_ != input.data_type)
    config.fail("dtype " + config.string("dtype") + " differs from the array's " + std::string(v3_name(input.data_type)));
}

CodecSpec DeltaCodec::spec() const { return spec_; }

ChunkRepresentation DeltaCodec::encoded_representation(const ChunkRepresentation& decoded) const {
  ChunkRepresentation e = decoded;
  e.shape = {decoded.num_elements()};  // numcodecs flattens
  e.data_type = astype_;
  if (dtype_ == DataType::bool_) return e;  // bool -> bool: the fill value stays
  visit2(dtype_, astype_, [&](auto d, auto a) {
    using D = decltype(d);
    using A = decltype(a);
    e.fill_value = FillValue::of(numpy::cast<A>(load<D>(decoded.fill_value.bytes.data(), 0)));
    e.fill_value.is_null = decoded.fill_value.is_null;
  });
  return e;
}

void DeltaCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                        const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  if (n == 0) return;
  if (dtype_ == DataType::bool_) {
    // np.diff of bools is not_equal: enc[i] = arr[i] != arr[i-1].
    const auto* x = reinterpret_cast<const std::uint8_t*>(in.data());
    auto* y = reinterpret_cast<std::uint8_t*>(out.data());
    y[0] = x[0] != 0;
    for (std::size_t i = 1; i < n; ++i) y[i] = (x[i] != 0) != (x[i - 1] != 0);
    return;
  }
  visit2(dtype_, astype_, [&](auto d, auto a) {
    using D = decltype(d);
    using A = decltype(a);
    // enc[0] = arr[0]; enc[1:] = np.diff(arr) — differences in D, then cast.
    D prev = load<D>(in.data(), 0);
    store<A>(out.data(), 0, numpy::cast<A>(prev));
    for (std::size_t i = 1; i < n; ++i) {
      const D x = load<D>(in.data(), i);
      store<A>(out.data(), i, numpy::cast<A>(numpy::sub(x, prev)));
      prev = x;
    }
  });
}

void DeltaCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                        const ChunkRepresentation& decoded) const {
  const std::size_t n = decoded.num_elements();
  if (n == 0) return;
  if (dtype_ == DataType::bool_) {
    // np.cumsum(enc, out=dec) over bools sums in the platform integer and
    // casts to bool: dec[i] is "any of enc[0..i]". So numcodecs does not
    // invert its own encoding (True after the first True); this is what
    // numcodecs, and so zarr-python, read.
    const auto* x = reinterpret_cast<const std::uint8_t*>(in.data());
    auto* y = reinterpret_cast<std::uint8_t*>(out.data());
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) y[i] = any = any || x[i] != 0;
    return;
  }
  visit2(dtype_, astype_, [&](auto d, auto a) {
    using D = decltype(d);
    using A = decltype(a);
    // np.cumsum(enc, out=dec): the running sum is kept in dec's type D.
    D sum = numpy::cast<D>(load<A>(in.data(), 0));
    store<D>(out.data(), 0, sum);
    for (std::size_t i = 1; i < n; ++i) {
      sum = numpy::add(sum, numpy::cast<D>(load<A>(in.data(), i)));
      store<D>(out.data(), i, sum);
    }
  });
}

const DeviceArrayStep* DeltaCodec::device_step(const ChunkRepresentation& decoded) const {
  auto integer = [](DataType t) { return is_signed_int(t) || is_unsigned_int(t); };
  // Stored in the decoded type's width: the scan sums values as they are stored.
  const bool same_width = size_of(dtype_) == size_of(decoded.data_type) && size_of(astype_) == size_of(dtype_);
  if (!integer(decoded.data_type) || !integer(dtype_) || !integer(astype_) || !same_width) return nullptr;
  return &integer_delta_device_step();
}

}  // namespace zarrgpu::codec
