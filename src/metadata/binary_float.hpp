// IEEE 754 binary interchange formats narrower than double (binary16,
// bfloat16, binary32) as bit patterns, so fill values keep exact bits and
// round exactly once (a double -> float -> half cast would round twice).
#pragma once

#include <cstdint>
#include <optional>

namespace zarrgpu::metadata {

struct BinaryFormat {
  int exponent_bits;
  int mantissa_bits;  // stored fraction bits, without the implicit one
  int width() const noexcept { return 1 + exponent_bits + mantissa_bits; }
};

inline constexpr BinaryFormat kBinary16{5, 10};
inline constexpr BinaryFormat kBfloat16{8, 7};
inline constexpr BinaryFormat kBinary32{8, 23};
inline constexpr BinaryFormat kBinary64{11, 52};

// `value` rounded to nearest, ties to even. NaN maps to the canonical quiet
// NaN and +-infinity to +-infinity; a finite value that rounds beyond the
// largest finite value gives nullopt (it does not fit the type).
std::optional<std::uint64_t> encode_binary(double value, BinaryFormat f) noexcept;
// Exact: every binary16/bfloat16/binary32 value is a double.
double decode_binary(std::uint64_t bits, BinaryFormat f) noexcept;

std::uint64_t canonical_nan(BinaryFormat f) noexcept;  // sign 0, quiet bit only
bool is_nan_bits(std::uint64_t bits, BinaryFormat f) noexcept;

}  // namespace zarrgpu::metadata
