#include "core/numpy_dtype_spelling.hpp"

#include <string>

namespace zarrgpu {

namespace {
struct Alias {
  std::string_view name;
  DataType type;
};
// numpy.sctypeDict's names and NumPy's one-character codes for these types,
// as NumPy 2 resolves them on LP64 Linux (C long is 64 bits).
constexpr Alias kNumpyAliases[] = {
    {"bool", DataType::bool_},        {"bool_", DataType::bool_},       {"?", DataType::bool_},
    {"int8", DataType::int8},         {"byte", DataType::int8},         {"b", DataType::int8},
    {"int16", DataType::int16},       {"short", DataType::int16},       {"h", DataType::int16},
    {"int32", DataType::int32},       {"intc", DataType::int32},        {"i", DataType::int32},
    {"int64", DataType::int64},       {"int", DataType::int64},         {"int_", DataType::int64},
    {"intp", DataType::int64},        {"long", DataType::int64},        {"longlong", DataType::int64},
    {"l", DataType::int64},           {"q", DataType::int64},           {"p", DataType::int64},
    {"uint8", DataType::uint8},       {"ubyte", DataType::uint8},       {"B", DataType::uint8},
    {"uint16", DataType::uint16},     {"ushort", DataType::uint16},     {"H", DataType::uint16},
    {"uint32", DataType::uint32},     {"uintc", DataType::uint32},      {"I", DataType::uint32},
    {"uint64", DataType::uint64},     {"uint", DataType::uint64},       {"uintp", DataType::uint64},
    {"ulong", DataType::uint64},      {"ulonglong", DataType::uint64},  {"L", DataType::uint64},
    {"Q", DataType::uint64},          {"P", DataType::uint64},
    {"float16", DataType::float16},   {"half", DataType::float16},      {"e", DataType::float16},
    {"float32", DataType::float32},   {"single", DataType::float32},    {"f", DataType::float32},
    {"float64", DataType::float64},   {"double", DataType::float64},    {"float", DataType::float64},
    {"d", DataType::float64},
    {"complex64", DataType::complex64}, {"csingle", DataType::complex64},  {"F", DataType::complex64},
    {"complex128", DataType::complex128}, {"cdouble", DataType::complex128}, {"complex", DataType::complex128},
    {"D", DataType::complex128},
};
}  // namespace

std::optional<DataType> from_numpy_dtype(std::string_view s, Endian* endian) noexcept {
  Endian e = native_endian();
  std::string_view rest = s;
  const bool has_order = !s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '|');
  if (has_order) {
    if (s[0] == '>') e = Endian::big;
    else if (s[0] == '<') e = Endian::little;
    rest = s.substr(1);
  }
  std::optional<DataType> t;
  // Kind and size: "f8", "i4", "b1", "c16".
  if (rest.size() >= 2 && rest[1] >= '0' && rest[1] <= '9') {
    if (rest[0] == 'b' || rest[0] == 'i' || rest[0] == 'u' || rest[0] == 'f' || rest[0] == 'c') {
      Endian ignored;
      t = from_numpy_str("<" + std::string(rest), &ignored);
    }
  } else {
    for (const auto& a : kNumpyAliases)
      if (a.name == rest) t = a.type;
    // Only the one-character codes take a byte order ("<d"), not the names.
    if (t && has_order && rest.size() > 1) t.reset();
  }
  if (t && endian) *endian = size_of(*t) == 1 ? Endian::little : e;
  return t;
}

}  // namespace zarrgpu
