#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"

#include <cstring>

namespace zarrgpu::codec::numpy {

float half_to_float(Half h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exp = (h.bits >> 10) & 0x1f;
  std::uint32_t mant = h.bits & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf, NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal: normalise.
    int e = -1;
    do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
    bits = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

Half double_to_half(double d) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(d);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000u);
  const std::uint64_t abs = bits & 0x7fffffffffffffffull;
  if (abs >= 0x7ff0000000000000ull) {
    if (abs == 0x7ff0000000000000ull) return {static_cast<std::uint16_t>(sign | 0x7c00u)};
    // NaN: keep the top payload bits, and stay a NaN.
    std::uint16_t m = static_cast<std::uint16_t>((abs >> 42) & 0x3ffu);
    return {static_cast<std::uint16_t>(sign | 0x7c00u | (m ? m : 0x200u))};
  }
  const int exp = static_cast<int>(abs >> 52) - 1023;
  if (exp >= 16) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // overflow -> inf
  std::uint64_t mant = (abs & 0xfffffffffffffull) | (std::uint64_t{1} << 52);
  int shift;  // bits of the 53-bit significand to drop
  std::uint16_t h_exp;
  if (exp >= -14) {
    shift = 42;
    h_exp = static_cast<std::uint16_t>(exp + 15);
  } else {
    if (abs == 0 || exp < -25) return {sign};  // rounds to zero (2^-25 exactly ties to 0 below)
    shift = 42 + (-14 - exp);
    h_exp = 0;
  }
  std::uint64_t q = mant >> shift;
  const std::uint64_t rem = mant & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  // q holds the implicit bit for normals; a carry moves into the exponent.
  std::uint32_t result;
  if (h_exp == 0) result = static_cast<std::uint32_t>(q);  // may round up to the smallest normal
  else result = (static_cast<std::uint32_t>(h_exp) << 10) + static_cast<std::uint32_t>(q - 0x400u);
  if (result >= 0x7c00u) result = 0x7c00u;
  return {static_cast<std::uint16_t>(sign | result)};
}

}  // namespace zarrgpu::codec::numpy
