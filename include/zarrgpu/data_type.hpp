// The Zarr data types (v3 core names plus the bfloat16 extension).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zarrgpu {

enum class DataType : std::uint8_t {
  bool_,
  int8, int16, int32, int64,
  uint8, uint16, uint32, uint64,
  float16, bfloat16, float32, float64,
  complex64, complex128,
};

enum class Endian : std::uint8_t { little, big };

constexpr Endian native_endian() noexcept { return Endian::little; }  // x86-64 and aarch64 Linux

std::size_t size_of(DataType t) noexcept;
// Size of one scalar component: complex64 -> 4, others -> size_of.
std::size_t component_size(DataType t) noexcept;
bool is_float(DataType t) noexcept;    // float16, bfloat16, float32, float64
bool is_complex(DataType t) noexcept;
bool is_signed_int(DataType t) noexcept;
bool is_unsigned_int(DataType t) noexcept;

// v3 name ("int32", "bfloat16", "complex64").
std::string_view v3_name(DataType t) noexcept;
std::optional<DataType> from_v3_name(std::string_view name) noexcept;

// NumPy type string, little-endian ("<f4", "|b1", "|u1"); bfloat16 -> "bfloat16".
std::string numpy_str(DataType t, Endian e = Endian::little);
// Parses a v2 dtype string ("<f4", ">i8", "|b1", "bool"); sets `endian`.
std::optional<DataType> from_numpy_str(std::string_view s, Endian* endian) noexcept;

}  // namespace zarrgpu
