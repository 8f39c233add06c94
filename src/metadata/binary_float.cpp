#include "metadata/binary_float.hpp"

#include <bit>
#include <cmath>

namespace zarrgpu::metadata {

namespace {
// v / 2^shift rounded to nearest, ties to even (v < 2^53).
std::uint64_t shift_round_even(std::uint64_t v, int shift) noexcept {
  if (shift <= 0) return v << -shift;
  if (shift >= 64) return 0;  // v < 2^53 <= 2^(shift-1): below one half
  std::uint64_t q = v >> shift;
  std::uint64_t rem = v & ((std::uint64_t{1} << shift) - 1);
  std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  return q;
}
std::uint64_t mask(int bits) noexcept { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
}  // namespace

std::uint64_t canonical_nan(BinaryFormat f) noexcept {
  return (mask(f.exponent_bits) << f.mantissa_bits) | (std::uint64_t{1} << (f.mantissa_bits - 1));
}

bool is_nan_bits(std::uint64_t bits, BinaryFormat f) noexcept {
  std::uint64_t exp = (bits >> f.mantissa_bits) & mask(f.exponent_bits);
  return exp == mask(f.exponent_bits) && (bits & mask(f.mantissa_bits)) != 0;
}

std::optional<std::uint64_t> encode_binary(double value, BinaryFormat f) noexcept {
  const std::uint64_t d = std::bit_cast<std::uint64_t>(value);
  if (f.exponent_bits == 11 && f.mantissa_bits == 52) return d;
  const std::uint64_t sign = (d >> 63) << (f.exponent_bits + f.mantissa_bits);
  const std::uint64_t exp_all = mask(f.exponent_bits) << f.mantissa_bits;
  if (std::isnan(value)) return canonical_nan(f);
  if (std::isinf(value)) return sign | exp_all;
  if (value == 0) return sign;

  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const int emin = 1 - bias;
  const int d_exp = static_cast<int>((d >> 52) & 0x7ff);
  std::uint64_t significand = d & mask(52);
  int x;  // unbiased exponent of the leading one of `significand` at bit 52
  if (d_exp == 0) {
    // A subnormal double: far below every narrower format's range, but
    // normalise it anyway so the arithmetic below stays uniform.
    x = -1022;
    while ((significand & (std::uint64_t{1} << 52)) == 0) { significand <<= 1; --x; }
  } else {
    significand |= std::uint64_t{1} << 52;
    x = d_exp - 1023;
  }

  std::uint64_t magnitude;
  if (x >= emin) {
    std::uint64_t m = shift_round_even(significand, 52 - f.mantissa_bits);
    if (m >> (f.mantissa_bits + 1)) { m >>= 1; ++x; }  // rounding carried into a new bit
    if (x > bias) return std::nullopt;                  // beyond the largest finite value
    magnitude = (static_cast<std::uint64_t>(x + bias) << f.mantissa_bits) | (m & mask(f.mantissa_bits));
  } else {
    // Subnormal result: units of 2^(emin - mantissa_bits). A carry into bit
    // `mantissa_bits` is exactly the smallest normal's encoding.
    magnitude = shift_round_even(significand, 52 - f.mantissa_bits + (emin - x));
  }
  return sign | magnitude;
}

double decode_binary(std::uint64_t bits, BinaryFormat f) noexcept {
  if (f.exponent_bits == 11 && f.mantissa_bits == 52) return std::bit_cast<double>(bits);
  const bool negative = (bits >> (f.exponent_bits + f.mantissa_bits)) & 1;
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const std::uint64_t exp = (bits >> f.mantissa_bits) & mask(f.exponent_bits);
  const std::uint64_t frac = bits & mask(f.mantissa_bits);
  double v;
  if (exp == mask(f.exponent_bits)) {
    v = frac ? std::nan("") : INFINITY;
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(frac), 1 - bias - f.mantissa_bits);
  } else {
    v = std::ldexp(static_cast<double>(frac | (std::uint64_t{1} << f.mantissa_bits)),
                   static_cast<int>(exp) - bias - f.mantissa_bits);
  }
  return negative ? -v : v;
}

}  // namespace zarrgpu::metadata
