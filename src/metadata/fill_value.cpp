// Zarr v3 core §"fill_value": integers exactly; floats as numbers, "NaN",
// "Infinity", "-Infinity" or "0x…" (the value's bits, big-endian hex, exactly
// the type's width); complex as [re, im]; bool as true/false.
// Zarr v2: the same without hex strings, plus null ("no fill value").
#include "metadata/fill_value.hpp"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <limits>
#include <span>

#include "metadata/binary_float.hpp"
#include "metadata/fill_value_text.hpp"

namespace zarrgpu {

namespace {
using metadata::BinaryFormat;
using metadata::FieldPath;
using metadata::fail;

BinaryFormat format_of(DataType t) noexcept {
  switch (component_size(t)) {
    case 2: return t == DataType::bfloat16 ? metadata::kBfloat16 : metadata::kBinary16;
    case 4: return metadata::kBinary32;
    default: return metadata::kBinary64;
  }
}

std::string type_label(DataType t) { return describe(t); }

[[noreturn]] void fail_fit(const json& j, DataType t, const FieldPath& at, std::string_view why = {}) {
  std::string what = j.dump() + " does not fit data type " + type_label(t);
  if (!why.empty()) { what += " ("; what += why; what += ")"; }
  fail(ErrorKind::invalid_metadata, at, what);
}

void store_bits(FillValue& f, std::size_t offset, std::uint64_t bits, std::size_t size) {
  static_assert(native_endian() == Endian::little);
  std::memcpy(f.bytes.data() + offset, &bits, size);
}

std::uint64_t load_bits(const FillValue& f, std::size_t offset, std::size_t size) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, f.bytes.data() + offset, size);
  return bits;
}

// ---- integers -----------------------------------------------------------------

void parse_integer(FillValue& f, const json& j, DataType t, const FieldPath& at) {
  const std::size_t size = size_of(t);
  const int bits = static_cast<int>(size * 8);
  bool negative = false;
  std::uint64_t magnitude = 0;  // |value|
  if (j.is_number_unsigned()) {
    magnitude = j.get<std::uint64_t>();
  } else if (j.is_number_integer()) {
    std::int64_t v = j.get<std::int64_t>();
    negative = v < 0;
    magnitude = negative ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
  } else if (j.is_number_float()) {
    // zarr-python accepts integral floats ("intish") such as 3.0.
    double d = j.get<double>();
    if (!std::isfinite(d) || std::trunc(d) != d) fail_fit(j, t, at, "not an integer");
    if (d >= 18446744073709551616.0 || d < -9223372036854775808.0) fail_fit(j, t, at, "out of range");
    negative = d < 0;
    magnitude = static_cast<std::uint64_t>(std::fabs(d));  // exact: d is integral, |d| <= 2^64
  } else {
    fail(ErrorKind::invalid_metadata, at,
         "expected an integer for data type " + type_label(t) + ", got " + std::string(metadata::json_kind(j)));
  }

  std::uint64_t value;
  if (is_unsigned_int(t)) {
    const std::uint64_t max = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    if ((negative && magnitude != 0) || magnitude > max) fail_fit(j, t, at, "out of range");
    value = magnitude;
  } else {
    const std::uint64_t limit = std::uint64_t{1} << (bits - 1);  // |min|; max = limit - 1
    if (negative ? magnitude > limit : magnitude >= limit) fail_fit(j, t, at, "out of range");
    value = negative ? ~magnitude + 1 : magnitude;  // two's complement; low bytes are the value
  }
  store_bits(f, 0, value, size);
}

json integer_to_json(const FillValue& f, DataType t) {
  const std::size_t size = size_of(t);
  std::uint64_t bits = load_bits(f, 0, size);
  if (is_unsigned_int(t)) return bits;
  const int shift = 64 - static_cast<int>(size * 8);
  return static_cast<std::int64_t>(bits << shift) >> shift;  // sign-extend
}

// ---- floats -------------------------------------------------------------------

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::uint64_t parse_float_component(const json& j, DataType t, int zarr_format, const FieldPath& at) {
  const BinaryFormat fmt = format_of(t);
  if (j.is_number()) {
    auto bits = metadata::encode_binary(j.get<double>(), fmt);
    if (!bits) fail_fit(j, t, at, "beyond the largest finite value");
    return *bits;
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return metadata::canonical_nan(fmt);
    if (s == "Infinity") return *metadata::encode_binary(INFINITY, fmt);
    if (s == "-Infinity") return *metadata::encode_binary(-INFINITY, fmt);
    if (zarr_format >= 3 && s.starts_with("0x")) {
      const std::size_t digits = static_cast<std::size_t>(fmt.width()) / 4;
      if (s.size() != 2 + digits)
        fail(ErrorKind::invalid_metadata, at,
             "hex float \"" + s + "\" must have exactly " + std::to_string(digits) + " hex digits for " +
                 type_label(t));
      std::uint64_t bits = 0;
      for (char c : std::string_view(s).substr(2)) {
        int d = hex_digit(c);
        if (d < 0) fail(ErrorKind::invalid_metadata, at, "\"" + s + "\" is not a hex float");
        bits = bits << 4 | static_cast<std::uint64_t>(d);
      }
      return bits;
    }
    fail(ErrorKind::invalid_metadata, at,
         "\"" + s + "\" is not a number, \"NaN\", \"Infinity\", \"-Infinity\"" +
             (zarr_format >= 3 ? " or a \"0x\" hex float" : ""));
  }
  fail(ErrorKind::invalid_metadata, at,
       "expected a number or a string for data type " + type_label(t) + ", got " +
           std::string(metadata::json_kind(j)));
}

json float_component_to_json(std::uint64_t bits, DataType t, int zarr_format) {
  const BinaryFormat fmt = format_of(t);
  if (metadata::is_nan_bits(bits, fmt)) {
    // Only the canonical NaN is "NaN" (v3 core); other payloads keep their
    // bits as hex. Format 2 has no hex form.
    if (bits == metadata::canonical_nan(fmt) || zarr_format < 3) return "NaN";
    char buf[2 + 16 + 1];
    std::snprintf(buf, sizeof buf, "0x%0*llx", fmt.width() / 4, static_cast<unsigned long long>(bits));
    return std::string(buf);
  }
  double d = metadata::decode_binary(bits, fmt);
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

// ---- times: int64 underneath; zarr-python writes NaT as INT64_MIN, and reads "NaT" too.

constexpr std::int64_t kNaT = std::numeric_limits<std::int64_t>::min();

void parse_time(FillValue& f, const json& j, DataType t, const FieldPath& at) {
  if (j.is_string() && j.get_ref<const std::string&>() == "NaT") {
    store_bits(f, 0, static_cast<std::uint64_t>(kNaT), 8);
    return;
  }
  if (!j.is_number_integer() && !j.is_number_float())
    fail(ErrorKind::invalid_metadata, at,
         "expected an integer or \"NaT\" for data type " + type_label(t) + ", got " + std::string(metadata::json_kind(j)));
  parse_integer(f, j, DataType::int64, at);
}

// ---- strings and bytes ---------------------------------------------------------

std::string expect_string(const json& j, DataType t, const FieldPath& at, std::string_view form) {
  if (!j.is_string())
    fail(ErrorKind::invalid_metadata, at,
         "expected " + std::string(form) + " for data type " + type_label(t) + ", got " +
             std::string(metadata::json_kind(j)));
  return j.get<std::string>();
}

std::vector<std::byte> base64_value(const json& j, DataType t, const FieldPath& at) {
  const std::string text = expect_string(j, t, at, "a base64 string");
  auto bytes = metadata::base64_decode(text);
  if (!bytes) fail(ErrorKind::invalid_metadata, at, "\"" + text + "\" is not base64 (data type " + type_label(t) + ")");
  return *bytes;
}

// Fixed-length types: the value in the element's bytes, zero-padded; a longer
// value is cut to the element, as zarr-python's cast_scalar does.
void store_fixed(FillValue& f, DataType t, const std::vector<std::byte>& value) {
  std::fill(f.bytes.begin(), f.bytes.end(), std::byte{0});
  std::copy_n(value.begin(), std::min(value.size(), size_of(t)), f.bytes.begin());
}

void parse_text(FillValue& f, const json& j, DataType t, const FieldPath& at) {
  switch (t.kind) {
    case DataTypeKind::fixed_length_utf32:
      store_fixed(f, t, metadata::utf8_to_utf32le(expect_string(j, t, at, "a string")));
      return;
    case DataTypeKind::null_terminated_bytes:
    case DataTypeKind::raw_bytes:
      store_fixed(f, t, base64_value(j, t, at));
      return;
    case DataTypeKind::bytes:
      f.bytes = base64_value(j, t, at);
      return;
    default: {  // string: zarr-python 2 wrote numbers for object arrays; zarr-python 3 reads them as str(value)
      std::string text;
      if (j.is_string()) text = j.get<std::string>();
      else if (j.is_number()) text = j.dump();
      else expect_string(j, t, at, "a string");
      f.bytes.resize(text.size());
      std::memcpy(f.bytes.data(), text.data(), text.size());
      return;
    }
  }
}

json text_to_json(const FillValue& f, DataType t) {
  const std::span<const std::byte> all(f.bytes);
  switch (t.kind) {
    case DataTypeKind::fixed_length_utf32:
      return metadata::utf32le_to_utf8(all.first(size_of(t)));
    case DataTypeKind::null_terminated_bytes: {
      // As NumPy's bytes_ scalar (and so zarr-python): trailing NULs dropped.
      std::size_t n = size_of(t);
      while (n > 0 && all[n - 1] == std::byte{0}) --n;
      return metadata::base64_encode(all.first(n));
    }
    case DataTypeKind::raw_bytes: return metadata::base64_encode(all.first(size_of(t)));
    case DataTypeKind::bytes: return metadata::base64_encode(all);
    default: return std::string(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
  }
}

}  // namespace

namespace metadata {

FillValue parse_fill_value(const json& j, DataType t, int zarr_format, const FieldPath& at) {
  FillValue f;
  if (is_fixed_length(t)) f.bytes.resize(std::max<std::size_t>(16, size_of(t)));
  if (j.is_null()) {
    if (zarr_format == 2) {
      // Reads give the type's default, as zarr-python's: zeros, empty strings, NaT for times.
      f.is_null = true;
      if (is_variable_length(t)) f.bytes.clear();
      if (is_time(t)) store_bits(f, 0, static_cast<std::uint64_t>(kNaT), 8);
      return f;
    }
    fail(ErrorKind::invalid_metadata, at, "must not be null in format 3");
  }
  if (is_time(t)) {
    parse_time(f, j, t, at);
  } else if (is_fixed_length(t) || is_variable_length(t)) {
    parse_text(f, j, t, at);
  } else if (t == DataType::bool_) {
    // Format 2 writers (zarr-python 2 among them) may write a bool's fill
    // value as a number; zarr-python reads it as bool(number).
    if (zarr_format == 2 && j.is_number()) {
      const bool set = j.is_number_float() ? j.get<double>() != 0 : j.get<std::int64_t>() != 0;
      f.bytes[0] = std::byte{set ? std::uint8_t{1} : std::uint8_t{0}};
      return f;
    }
    if (!j.is_boolean())
      fail(ErrorKind::invalid_metadata, at,
           "expected true or false for data type bool, got " + std::string(json_kind(j)));
    f.bytes[0] = std::byte{j.get<bool>() ? std::uint8_t{1} : std::uint8_t{0}};
  } else if (is_signed_int(t) || is_unsigned_int(t)) {
    parse_integer(f, j, t, at);
  } else if (is_complex(t)) {
    if (!j.is_array() || j.size() != 2)
      fail(ErrorKind::invalid_metadata, at,
           "expected [real, imaginary] for data type " + type_label(t) + ", got " + j.dump());
    const std::size_t c = component_size(t);
    store_bits(f, 0, parse_float_component(j[0], t, zarr_format, at[0]), c);
    store_bits(f, c, parse_float_component(j[1], t, zarr_format, at[1]), c);
  } else {
    store_bits(f, 0, parse_float_component(j, t, zarr_format, at), size_of(t));
  }
  return f;
}

}  // namespace metadata

FillValue parse_fill_value(const json& j, DataType t, int zarr_format) {
  return metadata::parse_fill_value(j, t, zarr_format, metadata::FieldPath{std::nullopt, "fill_value"});
}

json fill_value_to_json(const FillValue& f, DataType t, int zarr_format) {
  if (f.is_null && zarr_format == 2) return nullptr;
  if (is_time(t)) return integer_to_json(f, DataType::int64);
  if (is_fixed_length(t) || is_variable_length(t)) return text_to_json(f, t);
  if (t == DataType::bool_) return f.bytes[0] != std::byte{0};
  if (is_signed_int(t) || is_unsigned_int(t)) return integer_to_json(f, t);
  if (is_complex(t)) {
    const std::size_t c = component_size(t);
    return json::array({float_component_to_json(load_bits(f, 0, c), t, zarr_format),
                        float_component_to_json(load_bits(f, c, c), t, zarr_format)});
  }
  return float_component_to_json(load_bits(f, 0, size_of(t)), t, zarr_format);
}

bool FillValue::is_zero(DataType t) const noexcept {
  if (is_null) return !is_time(t);  // a null time reads as NaT (parse_fill_value)
  if (is_variable_length(t)) return bytes.empty();
  for (std::size_t i = 0; i < size_of(t) && i < bytes.size(); ++i)
    if (bytes[i] != std::byte{0}) return false;
  return true;
}

}  // namespace zarrgpu
