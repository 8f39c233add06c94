#include "codec/array_to_array/numcodecs/bitround_codec.hpp"

#include <cstring>
#include <string>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

// Mantissa bits of each float type (numcodecs.bitround.max_bits).
int mantissa_bits(DataType t) {
  switch (t.kind) {
    case DataTypeKind::float16: return 10;
    case DataTypeKind::float32: return 23;
    case DataTypeKind::float64: return 52;
    default: return -1;
  }
}

template <class U>
void round_bits(const std::byte* in, std::byte* out, std::size_t n, int maskbits) {
  // numcodecs, in the signed integer of the same width (wrapping):
  //   mask = (-1 >> maskbits) << maskbits; half_quantum1 = (1 << (maskbits - 1)) - 1
  //   b += ((b >> maskbits) & 1) + half_quantum1; b &= mask
  const U mask = static_cast<U>(~U{0} << maskbits);
  const U half_quantum1 = static_cast<U>((U{1} << (maskbits - 1)) - 1);
  for (std::size_t i = 0; i < n; ++i) {
    U b;
    std::memcpy(&b, in + i * sizeof(U), sizeof(U));
    b = static_cast<U>(b + (((b >> maskbits) & 1) + half_quantum1));
    b = static_cast<U>(b & mask);
    std::memcpy(out + i * sizeof(U), &b, sizeof(U));
  }
}

}  // namespace

BitRoundCodec::BitRoundCodec(const CodecSpec& spec, const ChunkRepresentation& input) : spec_(spec) {
  Configuration config(spec);
  keepbits_ = config.integer("keepbits");
  if (keepbits_ < 0) config.fail("keepbits must be zero or positive");
  if (mantissa_bits(input.data_type) < 0)
    throw codec_error(ErrorKind::unsupported, spec.name,
                      "only float16, float32 and float64 arrays can be bit-rounded, not " +
                          std::string(v3_name(input.data_type)));
}

void BitRoundCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation&) const {
  if (!out.empty()) std::memcpy(out.data(), in.data(), out.size());
}

void BitRoundCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation& decoded) const {
  const int bits = mantissa_bits(decoded.data_type);
  if (keepbits_ > bits)
    throw codec_error(ErrorKind::invalid_metadata, name(),
                      "keepbits " + std::to_string(keepbits_) + " is more than the " + std::to_string(bits) + " of " +
                          std::string(v3_name(decoded.data_type)) + ": cannot encode");
  if (keepbits_ == bits) {
    if (!out.empty()) std::memcpy(out.data(), in.data(), out.size());
    return;
  }
  const int maskbits = bits - static_cast<int>(keepbits_);
  const std::size_t n = decoded.num_elements();
  switch (decoded.data_type.kind) {
    case DataTypeKind::float16: round_bits<std::uint16_t>(in.data(), out.data(), n, maskbits); break;
    case DataTypeKind::float32: round_bits<std::uint32_t>(in.data(), out.data(), n, maskbits); break;
    default: round_bits<std::uint64_t>(in.data(), out.data(), n, maskbits); break;
  }
}

}  // namespace zarrgpu::codec
