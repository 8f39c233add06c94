#include "zarrgpu/data_type.hpp"

#include <array>
#include <charconv>

namespace zarrgpu {

namespace {
struct KindInfo {
  DataTypeKind kind;
  std::string_view v3;
  char numpy_kind;    // NumPy kind character
  std::size_t size;   // bytes per element; 0: from length_bytes, or variable-length
};
constexpr std::array<KindInfo, 22> kKinds{{
    {DataTypeKind::bool_, "bool", 'b', 1},
    {DataTypeKind::int8, "int8", 'i', 1},
    {DataTypeKind::int16, "int16", 'i', 2},
    {DataTypeKind::int32, "int32", 'i', 4},
    {DataTypeKind::int64, "int64", 'i', 8},
    {DataTypeKind::uint8, "uint8", 'u', 1},
    {DataTypeKind::uint16, "uint16", 'u', 2},
    {DataTypeKind::uint32, "uint32", 'u', 4},
    {DataTypeKind::uint64, "uint64", 'u', 8},
    {DataTypeKind::float16, "float16", 'f', 2},
    {DataTypeKind::bfloat16, "bfloat16", 'V', 2},
    {DataTypeKind::float32, "float32", 'f', 4},
    {DataTypeKind::float64, "float64", 'f', 8},
    {DataTypeKind::complex64, "complex64", 'c', 8},
    {DataTypeKind::complex128, "complex128", 'c', 16},
    {DataTypeKind::datetime64, "numpy.datetime64", 'M', 8},
    {DataTypeKind::timedelta64, "numpy.timedelta64", 'm', 8},
    {DataTypeKind::null_terminated_bytes, "null_terminated_bytes", 'S', 0},
    {DataTypeKind::raw_bytes, "raw_bytes", 'V', 0},
    {DataTypeKind::fixed_length_utf32, "fixed_length_utf32", 'U', 0},
    // zarr-python 3's names (zarr/core/dtype/npy/string.py, bytes.py).
    {DataTypeKind::string, "string", 'O', 0},
    {DataTypeKind::bytes, "variable_length_bytes", 'O', 0},
}};
const KindInfo& info(DataTypeKind k) noexcept { return kKinds[static_cast<std::size_t>(k)]; }

constexpr std::array<std::string_view, 14> kUnits{"Y", "M", "W", "D", "h", "m", "s",
                                                  "ms", "us", "ns", "ps", "fs", "as", "generic"};
}  // namespace

std::string_view time_unit_name(TimeUnit u) noexcept { return kUnits[static_cast<std::size_t>(u)]; }

std::optional<TimeUnit> time_unit_from_name(std::string_view name) noexcept {
  if (name == "\xce\xbcs") return TimeUnit::us;  // NumPy accepts "μs" for microseconds
  for (std::size_t i = 0; i < kUnits.size(); ++i)
    if (kUnits[i] == name) return static_cast<TimeUnit>(i);
  return std::nullopt;
}

std::size_t size_of(DataType t) noexcept {
  if (is_fixed_length(t)) return t.length_bytes;
  return info(t.kind).size;
}
std::size_t component_size(DataType t) noexcept {
  if (is_complex(t)) return size_of(t) / 2;
  if (t.kind == DataTypeKind::fixed_length_utf32) return 4;
  if (is_fixed_length(t)) return 1;
  return size_of(t);
}
bool is_float(DataType t) noexcept {
  return t == DataType::float16 || t == DataType::bfloat16 || t == DataType::float32 || t == DataType::float64;
}
bool is_complex(DataType t) noexcept { return t == DataType::complex64 || t == DataType::complex128; }
bool is_signed_int(DataType t) noexcept { return info(t.kind).numpy_kind == 'i'; }
bool is_unsigned_int(DataType t) noexcept { return info(t.kind).numpy_kind == 'u'; }
bool is_time(DataType t) noexcept {
  return t.kind == DataTypeKind::datetime64 || t.kind == DataTypeKind::timedelta64;
}
bool is_fixed_length(DataType t) noexcept {
  return t.kind == DataTypeKind::null_terminated_bytes || t.kind == DataTypeKind::raw_bytes ||
         t.kind == DataTypeKind::fixed_length_utf32;
}
bool is_variable_length(DataType t) noexcept { return t.kind == DataTypeKind::string || t.kind == DataTypeKind::bytes; }
bool is_numeric(DataType t) noexcept { return t.kind <= DataTypeKind::complex128; }

std::string_view v3_name(DataType t) noexcept { return info(t.kind).v3; }

std::optional<DataType> from_v3_name(std::string_view name) noexcept {
  // zarr-extensions' name of the type zarr-python calls variable_length_bytes.
  if (name == "bytes") return DataType::bytes;
  for (const auto& i : kKinds)
    if (i.v3 == name && (i.size != 0 || i.kind == DataTypeKind::string || i.kind == DataTypeKind::bytes) &&
        !is_time(i.kind))
      return DataType(i.kind);
  return std::nullopt;
}

std::string describe(DataType t) {
  std::string s(v3_name(t));
  if (is_fixed_length(t)) s += "[" + std::to_string(t.length_bytes) + " bytes]";
  if (is_time(t)) {
    s += "[";
    if (t.scale_factor != 1) s += std::to_string(t.scale_factor);
    s += time_unit_name(t.unit);
    s += "]";
  }
  return s;
}

std::string numpy_str(DataType t, Endian e) {
  if (t == DataType::bfloat16) return "bfloat16";
  if (is_variable_length(t)) return "|O";
  const auto& i = info(t.kind);
  const char order = component_size(t) == 1 ? '|' : (e == Endian::little ? '<' : '>');
  std::string s{order, i.numpy_kind};
  if (t.kind == DataTypeKind::fixed_length_utf32) return s + std::to_string(t.length_bytes / 4);
  s += std::to_string(size_of(t));
  if (is_time(t)) {
    // NumPy's form: "<M8" for generic, "<M8[10s]" with a scale factor.
    if (t.unit != TimeUnit::generic || t.scale_factor != 1) {
      s += "[";
      if (t.scale_factor != 1) s += std::to_string(t.scale_factor);
      s += time_unit_name(t.unit);
      s += "]";
    }
  }
  return s;
}

namespace {

// "[10s]" / "[ns]" / "" after "<M8": the unit and scale factor.
std::optional<DataType> parse_time(DataTypeKind kind, std::string_view rest) noexcept {
  if (rest.empty()) return DataType::time(kind, TimeUnit::generic);
  if (rest.front() != '[' || rest.back() != ']') return std::nullopt;
  rest = rest.substr(1, rest.size() - 2);
  std::uint32_t scale = 1;
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits > 0) {
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + digits, scale);
    if (ec != std::errc{} || scale == 0 || scale >= (1u << 31)) return std::nullopt;
  }
  auto unit = time_unit_from_name(rest.substr(digits));
  if (!unit) return std::nullopt;
  return DataType::time(kind, *unit, scale);
}

}  // namespace

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
  const char kind = s[1];
  std::string_view rest = s.substr(2);
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0 || digits > 10) return std::nullopt;
  std::uint64_t size = 0;
  std::from_chars(rest.data(), rest.data() + digits, size);
  rest = rest.substr(digits);

  std::optional<DataType> t;
  if (kind == 'M' || kind == 'm') {
    if (size == 8) t = parse_time(kind == 'M' ? DataTypeKind::datetime64 : DataTypeKind::timedelta64, rest);
  } else if (!rest.empty()) {
    return std::nullopt;
  } else if (kind == 'S' || kind == 'V' || kind == 'U') {
    // A length of 0 holds no data (zarr-python rejects it too); the cap keeps
    // element sizes in 32 bits.
    const std::uint64_t bytes = kind == 'U' ? size * 4 : size;
    if (size == 0 || bytes > (std::uint64_t{1} << 31)) return std::nullopt;
    const auto k = kind == 'S'   ? DataTypeKind::null_terminated_bytes
                   : kind == 'V' ? DataTypeKind::raw_bytes
                                 : DataTypeKind::fixed_length_utf32;
    t = DataType::fixed_length(k, static_cast<std::uint32_t>(bytes));
  } else {
    for (const auto& i : kKinds)
      if (i.numpy_kind == kind && i.size == size && i.kind != DataTypeKind::bfloat16 && !is_time(i.kind)) {
        t = DataType(i.kind);
        break;
      }
  }
  if (!t) return std::nullopt;
  if (endian) *endian = component_size(*t) == 1 ? Endian::little : e;
  return t;
}

}  // namespace zarrgpu
