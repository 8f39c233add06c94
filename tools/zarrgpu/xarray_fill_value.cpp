#include "xarray_fill_value.hpp"

#include <openssl/evp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

namespace {

// FillValueCoder's float form: base64 (RFC 4648) of struct.pack("<d", value).
std::string encode_double(double v) {
  unsigned char raw[8];
  std::memcpy(raw, &v, 8);  // the project builds for little-endian hosts only
  unsigned char out[16] = {};
  const int n = EVP_EncodeBlock(out, raw, 8);
  return std::string(reinterpret_cast<const char*>(out), std::size_t(n));
}

std::optional<double> decode_double(const json& j) {
  if (j.is_number()) return j.get<double>();  // written by hand, not by xarray
  if (!j.is_string()) return std::nullopt;
  const std::string& s = j.get_ref<const std::string&>();
  if (s.size() != 12) return std::nullopt;  // 8 bytes: 12 characters, one '='
  unsigned char out[12] = {};
  if (EVP_DecodeBlock(out, reinterpret_cast<const unsigned char*>(s.data()), 12) != 9) return std::nullopt;
  double v;
  std::memcpy(&v, out, 8);
  return v;
}

// A double as format 2 fill-value JSON ("NaN", "Infinity" spelt out).
json float_json(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

// The `_FillValue` attribute (format 3 spelling) as a fill value of `t`.
std::optional<FillValue> decode_attribute(const json& a, DataType t) {
  try {
    json fill;
    if (is_complex(t)) {
      if (!a.is_array() || a.size() != 2) return std::nullopt;
      auto re = decode_double(a[0]), im = decode_double(a[1]);
      if (!re || !im) return std::nullopt;
      fill = json::array({float_json(*re), float_json(*im)});
    } else if (is_float(t)) {
      auto v = decode_double(a);
      if (!v) return std::nullopt;
      fill = float_json(*v);
    } else if (t == DataType::bool_) {
      if (!a.is_boolean() && !a.is_number_integer()) return std::nullopt;
      fill = a.is_boolean() ? a.get<bool>() : a.get<std::int64_t>() != 0;
    } else {
      if (!a.is_number()) return std::nullopt;
      fill = a;
    }
    return parse_fill_value(fill, t, 2);
  } catch (const Error&) {
    return std::nullopt;  // out of range for the type: leave it to the reader
  }
}

// A fill value of `t` as FillValueCoder.encode writes it.
json encode_attribute(const FillValue& f, DataType t) {
  const json j = fill_value_to_json(f, t, 2);
  auto as_double = [](const json& v) {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
      return s == "Infinity" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    }
    return v.get<double>();
  };
  if (is_complex(t)) return json::array({encode_double(as_double(j[0])), encode_double(as_double(j[1]))});
  if (is_float(t)) return encode_double(as_double(j));
  return j;
}

}  // namespace

MissingValue missing_value_for_format(const ArrayMetadata& src, int dst_format) {
  MissingValue out{src.fill_value, src.attributes.is_object() ? src.attributes : json::object()};
  if (dst_format == src.zarr_format) return out;
  const DataType t = src.data_type;
  if (dst_format == 2) {
    out.fill = FillValue{};
    out.fill.is_null = true;
    if (auto it = out.attributes.find("_FillValue"); it != out.attributes.end()) {
      if (auto f = decode_attribute(*it, t)) {
        out.fill = *f;
        out.attributes.erase(it);
      }
    }
    return out;
  }
  if (src.fill_value.is_null) {
    out.fill = FillValue{};
    if (is_float(t)) out.fill = parse_fill_value("NaN", t, 3);
    out.attributes.erase("_FillValue");
    return out;
  }
  out.attributes["_FillValue"] = encode_attribute(src.fill_value, t);
  return out;
}

}  // namespace zarrgpu::cli
