// The Zarr data types: the v3 core names, the bfloat16 extension, and the
// NumPy-derived types zarr-python 3 writes (fixed-length strings and bytes,
// variable-length strings and bytes, datetime64 / timedelta64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zarrgpu {

enum class DataTypeKind : std::uint8_t {
  bool_,
  int8, int16, int32, int64,
  uint8, uint16, uint32, uint64,
  float16, bfloat16, float32, float64,
  complex64, complex128,
  // int64 underneath; `unit` and `scale_factor` name NumPy's unit (datetime64[10s]).
  datetime64, timedelta64,
  // Fixed-size elements of `length_bytes` bytes: NumPy "S" (trailing NULs
  // dropped on read), "V", and "U" (UTF-32 code units, 4 bytes each).
  null_terminated_bytes, raw_bytes, fixed_length_utf32,
  // Variable-length elements (object arrays): no fixed element size; read and
  // written through Array::read_variable_length / write_variable_length.
  string, bytes,
};

// NumPy's datetime units (numpy.datetime_data), in NumPy's spelling.
enum class TimeUnit : std::uint8_t { Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic };
std::string_view time_unit_name(TimeUnit u) noexcept;
std::optional<TimeUnit> time_unit_from_name(std::string_view name) noexcept;

// A data type: its kind and, for the parametrised kinds, the parameters.
// `DataType::float32` and friends name the types without parameters.
struct DataType {
  DataTypeKind kind = DataTypeKind::float32;
  std::uint32_t length_bytes = 0;  // fixed-length kinds: bytes per element
  TimeUnit unit = TimeUnit::generic;
  std::uint32_t scale_factor = 1;  // time kinds: the element counts `scale_factor` units

  constexpr DataType() = default;
  constexpr DataType(DataTypeKind k) noexcept : kind(k) {}  // NOLINT: a kind without parameters is a type
  static constexpr DataType fixed_length(DataTypeKind k, std::uint32_t length_bytes) noexcept {
    DataType t(k);
    t.length_bytes = length_bytes;
    return t;
  }
  static constexpr DataType time(DataTypeKind k, TimeUnit unit, std::uint32_t scale_factor = 1) noexcept {
    DataType t(k);
    t.unit = unit;
    t.scale_factor = scale_factor;
    return t;
  }
  bool operator==(const DataType&) const = default;

  static const DataType bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32,
      float64, complex64, complex128, string, bytes;
};
inline constexpr DataType DataType::bool_{DataTypeKind::bool_};
inline constexpr DataType DataType::int8{DataTypeKind::int8};
inline constexpr DataType DataType::int16{DataTypeKind::int16};
inline constexpr DataType DataType::int32{DataTypeKind::int32};
inline constexpr DataType DataType::int64{DataTypeKind::int64};
inline constexpr DataType DataType::uint8{DataTypeKind::uint8};
inline constexpr DataType DataType::uint16{DataTypeKind::uint16};
inline constexpr DataType DataType::uint32{DataTypeKind::uint32};
inline constexpr DataType DataType::uint64{DataTypeKind::uint64};
inline constexpr DataType DataType::float16{DataTypeKind::float16};
inline constexpr DataType DataType::bfloat16{DataTypeKind::bfloat16};
inline constexpr DataType DataType::float32{DataTypeKind::float32};
inline constexpr DataType DataType::float64{DataTypeKind::float64};
inline constexpr DataType DataType::complex64{DataTypeKind::complex64};
inline constexpr DataType DataType::complex128{DataTypeKind::complex128};
inline constexpr DataType DataType::string{DataTypeKind::string};
inline constexpr DataType DataType::bytes{DataTypeKind::bytes};

enum class Endian : std::uint8_t { little, big };

constexpr Endian native_endian() noexcept { return Endian::little; }  // x86-64 and aarch64 Linux

// Bytes per element; 0 for the variable-length kinds (string, bytes).
std::size_t size_of(DataType t) noexcept;
// Size of one scalar component, the unit of byte swapping: complex64 -> 4,
// fixed_length_utf32 -> 4, null_terminated_bytes / raw_bytes -> 1, others -> size_of.
std::size_t component_size(DataType t) noexcept;
bool is_float(DataType t) noexcept;    // float16, bfloat16, float32, float64
bool is_complex(DataType t) noexcept;
bool is_signed_int(DataType t) noexcept;  // int8..int64 (not the time kinds)
bool is_unsigned_int(DataType t) noexcept;
bool is_time(DataType t) noexcept;        // datetime64, timedelta64
bool is_fixed_length(DataType t) noexcept;     // null_terminated_bytes, raw_bytes, fixed_length_utf32
bool is_variable_length(DataType t) noexcept;  // string, bytes
// Booleans, integers, floats and complex numbers: what the GPU read path and
// DLPack can carry.
bool is_numeric(DataType t) noexcept;

// v3 name ("int32", "bfloat16", "fixed_length_utf32", "numpy.datetime64");
// the parameters are in the metadata's configuration (metadata.hpp).
std::string_view v3_name(DataType t) noexcept;
// The kinds named without configuration ("int32", "string"); nullopt for the others.
std::optional<DataType> from_v3_name(std::string_view name) noexcept;
// Readable: "int32", "fixed_length_utf32[20 bytes]", "numpy.datetime64[10s]".
std::string describe(DataType t);

// NumPy type string, little-endian ("<f4", "|b1", "|S4", "<U5", "<M8[10s]", "|O");
// bfloat16 -> "bfloat16".
std::string numpy_str(DataType t, Endian e = Endian::little);
// Parses a v2 dtype string ("<f4", ">i8", "|b1", "bool", "|S4", "<U5", "|V8",
// "<M8[ns]", "<m8"); sets `endian`. "|O" is not a type by itself (its object
// codec decides: string or bytes) and gives nullopt.
std::optional<DataType> from_numpy_str(std::string_view s, Endian* endian) noexcept;

}  // namespace zarrgpu
