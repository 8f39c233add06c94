#include "codec/configuration.hpp"

#include <cmath>
#include <cstdint>

namespace zarrgpu::codec {

ErrorContext codec_context(std::string_view codec) {
  ErrorContext context;
  context.codec = std::string(codec);
  return context;
}

Error codec_error(ErrorKind kind, std::string_view codec, std::string cause) {
  return Error(kind, std::move(cause), codec_context(codec));
}

Configuration::Configuration(const CodecSpec& spec) : spec_(spec) {
  if (!spec_.configuration.is_object() && !spec_.configuration.is_null())
    fail("configuration must be an object");
}

void Configuration::fail(std::string cause) const {
  throw codec_error(ErrorKind::invalid_metadata, spec_.name, std::move(cause));
}

bool Configuration::has(std::string_view key) const {
  return spec_.configuration.is_object() && spec_.configuration.contains(key);
}

const json& Configuration::at(std::string_view key) const {
  if (!has(key)) fail("missing field '" + std::string(key) + "'");
  return spec_.configuration.find(key).value();
}

std::int64_t Configuration::integer(std::string_view key) const {
  const json& v = at(key);
  // An unsigned value over 2^63 - 1 is out of range, not wrapped.
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
    fail("field '" + std::string(key) + "' is out of range, got " + v.dump());
  if (v.is_number_integer()) return v.get<std::int64_t>();
  // 5.0 is an integer for JSON writers that only know doubles; 2^64 (a
  // double) is out of range, and casting it would be undefined.
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == std::trunc(d))
      return static_cast<std::int64_t>(d);
  }
  fail("field '" + std::string(key) + "' must be an integer, got " + v.dump());
}

std::int64_t Configuration::integer(std::string_view key, std::int64_t fallback) const {
  if (!has(key) || at(key).is_null()) return fallback;
  return integer(key);
}

bool Configuration::boolean(std::string_view key, bool fallback) const {
  if (!has(key) || at(key).is_null()) return fallback;
  const json& v = at(key);
  if (!v.is_boolean()) fail("field '" + std::string(key) + "' must be a boolean, got " + v.dump());
  return v.get<bool>();
}

std::string Configuration::string(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_string()) fail("field '" + std::string(key) + "' must be a string, got " + v.dump());
  return v.get<std::string>();
}

std::string Configuration::string(std::string_view key, std::string_view fallback) const {
  if (!has(key) || at(key).is_null()) return std::string(fallback);
  return string(key);
}

}  // namespace zarrgpu::codec
