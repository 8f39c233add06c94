#include "zarrgpu/data_type.hpp"

#include <array>

namespace zarrgpu {

namespace {
struct TypeInfo {
  DataType type;
  std::string_view v3;
  char kind;       // NumPy kind character
  std::size_t size;
};
constexpr std::array<TypeInfo, 15> kTypes{{
    {DataType::bool_, "bool", 'b', 1},
    {DataType::int8, "int8", 'i', 1},
    {DataType::int16, "int16", 'i', 2},
    {DataType::int32, "int32", 'i', 4},
    {DataType::int64, "int64", 'i', 8},
    {DataType::uint8, "uint8", 'u', 1},
    {DataType::uint16, "uint16", 'u', 2},
    {DataType::uint32, "uint32", 'u', 4},
    {DataType::uint64, "uint64", 'u', 8},
    {DataType::float16, "float16", 'f', 2},
    {DataType::bfloat16, "bfloat16", 'V', 2},
    {DataType::float32, "float32", 'f', 4},
    {DataType::float64, "float64", 'f', 8},
    {DataType::complex64, "complex64", 'c', 8},
    {DataType::complex128, "complex128", 'c', 16},
}};
const TypeInfo& info(DataType t) noexcept { return kTypes[static_cast<std::size_t>(t)]; }
}  // namespace

std::size_t size_of(DataType t) noexcept { return info(t).size; }
std::size_t component_size(DataType t) noexcept { return is_complex(t) ? size_of(t) / 2 : size_of(t); }
bool is_float(DataType t) noexcept {
  return t == DataType::float16 || t == DataType::bfloat16 || t == DataType::float32 || t == DataType::float64;
}
bool is_complex(DataType t) noexcept { return t == DataType::complex64 || t == DataType::complex128; }
bool is_signed_int(DataType t) noexcept { return info(t).kind == 'i'; }
bool is_unsigned_int(DataType t) noexcept { return info(t).kind == 'u'; }

std::string_view v3_name(DataType t) noexcept { return info(t).v3; }

std::optional<DataType> from_v3_name(std::string_view name) noexcept {
  for (const auto& i : kTypes)
    if (i.v3 == name) return i.type;
  return std::nullopt;
}

std::string numpy_str(DataType t, Endian e) {
  if (t == DataType::bfloat16) return "bfloat16";
  const auto& i = info(t);
  char order = i.size == 1 ? '|' : (e == Endian::little ? '<' : '>');
  return std::string{order, i.kind} + std::to_string(i.size);
}

std::optional<DataType> from_numpy_str(std::string_view s, Endian* endian) noexcept {
  Endian e = Endian::little;
  if (s == "bool") s = "|b1";
  if (s == "bfloat16") { if (endian) *endian = e; return DataType::bfloat16; }
  if (s.size() < 3) return std::nullopt;
  switch (s[0]) {
    case '<': case '|': case '=': e = Endian::little; break;
    case '>': e = Endian::big; break;
    default: return std::nullopt;
  }
  char kind = s[1];
  std::size_t size = 0;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + static_cast<std::size_t>(c - '0');
    if (size > 64) return std::nullopt;
  }
  for (const auto& i : kTypes)
    if (i.kind == kind && i.size == size && i.type != DataType::bfloat16) {
      if (endian) *endian = size == 1 ? Endian::little : e;
      return i.type;
    }
  return std::nullopt;
}

}  // namespace zarrgpu
