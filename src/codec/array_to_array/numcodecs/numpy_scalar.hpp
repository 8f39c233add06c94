// NumPy's scalar arithmetic and casts, for the numcodecs value filters that
// must reproduce numcodecs' numbers bit for bit: float16 computed as float
// and rounded back (NumPy's half loops), integers wrapping, and
// float -> integer casts as x86-64 NumPy does them (out of range -> the
// "integer indefinite" value), made defined behaviour here.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "zarrgpu/data_type.hpp"

namespace zarrgpu::codec::numpy {

// IEEE binary16, stored as its bits.
struct Half {
  std::uint16_t bits;
};

float half_to_float(Half h) noexcept;
// Correctly rounded (nearest, ties to even), as npy_double_to_half.
Half double_to_half(double d) noexcept;
inline Half float_to_half(float f) noexcept { return double_to_half(static_cast<double>(f)); }

template <class T> inline constexpr bool is_half = std::is_same_v<T, Half>;
template <class T> inline constexpr bool is_floating = std::is_floating_point_v<T> || is_half<T>;

// Value of T as the type arithmetic is done in (half -> float).
template <class T> auto widen(T v) noexcept {
  if constexpr (is_half<T>) return half_to_float(v);
  else return v;
}

// A float -> integer cast: in range, truncation; otherwise what x86-64
// cvttsd2si produces (the minimum of the 32- or 64-bit signed type), truncated.
template <class To, class From>
To float_to_int(From f) noexcept {
  const double d = static_cast<double>(f);
  if constexpr (sizeof(To) == 8 && std::is_signed_v<To>) {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return std::numeric_limits<To>::min();
    return static_cast<To>(d);
  } else if constexpr (sizeof(To) == 8) {
    if (d >= 0 && d < 18446744073709551616.0) return static_cast<To>(d);
    if (d < 0 && d >= -9223372036854775808.0) return static_cast<To>(static_cast<std::int64_t>(d));
    return static_cast<To>(std::uint64_t{1} << 63);
  } else {
    // Narrower types go through a 32-bit (signed) or 64-bit (unsigned 32) conversion.
    if constexpr (std::is_signed_v<To> || sizeof(To) < 4) {
      if (!(d > -2147483649.0 && d < 2147483648.0)) return static_cast<To>(std::numeric_limits<std::int32_t>::min());
      return static_cast<To>(static_cast<std::int32_t>(d));
    } else {
      if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0)) return static_cast<To>(0);
      return static_cast<To>(static_cast<std::int64_t>(d));
    }
  }
}

// NumPy's unsafe cast (astype, assignment between arrays).
template <class To, class From>
To cast(From v) noexcept {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half<To>) {
    if constexpr (is_half<From>) return v;
    else return double_to_half(static_cast<double>(v));
  } else if constexpr (is_half<From>) {
    return cast<To>(half_to_float(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return float_to_int<To>(v);
  } else {
    return static_cast<To>(v);  // int -> int wraps (C++20), -> float rounds to nearest
  }
}

// a - b, a + b, a * b in T as NumPy computes them (integers wrap).
template <class T> T sub(T a, T b) noexcept {
  if constexpr (is_half<T>) return float_to_half(half_to_float(a) - half_to_float(b));
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else return a - b;
}
template <class T> T add(T a, T b) noexcept {
  if constexpr (is_half<T>) return float_to_half(half_to_float(a) + half_to_float(b));
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}
template <class T> T mul(T a, T b) noexcept {
  if constexpr (is_half<T>) return float_to_half(half_to_float(a) * half_to_float(b));
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else return a * b;
}
template <class T> T div(T a, T b) noexcept {
  if constexpr (is_half<T>) return float_to_half(half_to_float(a) / half_to_float(b));
  else return a / b;
}
// numpy.around(x): round half to even; integers unchanged.
template <class T> T around(T a) noexcept {
  if constexpr (is_half<T>) return float_to_half(std::nearbyint(half_to_float(a)));
  else if constexpr (std::is_integral_v<T>) return a;
  else return std::nearbyint(a);
}

// Calls f(T{}) with T the C++ type of `t` (Half for float16); false for the
// types the numcodecs filters do not handle (bool, bfloat16, complex, and
// zarr-python's NumPy types: strings, bytes, times).
template <class F>
bool visit(DataType t, F&& f) {
  switch (t.kind) {
    case DataTypeKind::int8: f(std::int8_t{}); return true;
    case DataTypeKind::int16: f(std::int16_t{}); return true;
    case DataTypeKind::int32: f(std::int32_t{}); return true;
    case DataTypeKind::int64: f(std::int64_t{}); return true;
    case DataTypeKind::uint8: f(std::uint8_t{}); return true;
    case DataTypeKind::uint16: f(std::uint16_t{}); return true;
    case DataTypeKind::uint32: f(std::uint32_t{}); return true;
    case DataTypeKind::uint64: f(std::uint64_t{}); return true;
    case DataTypeKind::float16: f(Half{}); return true;
    case DataTypeKind::float32: f(float{}); return true;
    case DataTypeKind::float64: f(double{}); return true;
    default: return false;
  }
}

}  // namespace zarrgpu::codec::numpy
