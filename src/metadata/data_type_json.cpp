#include "metadata/data_type_json.hpp"

#include <algorithm>
#include <limits>

namespace zarrgpu {

namespace metadata {

namespace {

// A positive integer member of a configuration that fits `max`.
std::uint32_t positive(const json& config, std::string_view key, std::uint64_t max, const FieldPath& at) {
  const std::int64_t v = as_int(require(config, key, at), at / key);
  if (v < 1 || static_cast<std::uint64_t>(v) > max)
    fail(ErrorKind::invalid_metadata, at / key,
         "must be between 1 and " + std::to_string(max) + ", got " + std::to_string(v));
  return static_cast<std::uint32_t>(v);
}

void only_members(const json& config, std::initializer_list<std::string_view> known, const FieldPath& at) {
  for (const auto& [key, value] : config.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(ErrorKind::invalid_metadata, at / key, "unexpected member");
}

// zarr-python 3: {"length_bytes": n}; fixed_length_utf32 holds n / 4 code points.
DataType parse_fixed_length(DataTypeKind kind, const json& config, const FieldPath& at) {
  only_members(config, {"length_bytes"}, at);
  const std::uint32_t n = positive(config, "length_bytes", std::uint64_t{1} << 31, at);
  if (kind == DataTypeKind::fixed_length_utf32 && n % 4 != 0)
    fail(ErrorKind::invalid_metadata, at / "length_bytes",
         "must be a multiple of 4 for fixed_length_utf32, got " + std::to_string(n));
  return DataType::fixed_length(kind, n);
}

// zarr-python 3: {"unit": "s", "scale_factor": 1} (zarr/core/dtype/npy/time.py).
DataType parse_time(DataTypeKind kind, const json& config, const FieldPath& at) {
  only_members(config, {"unit", "scale_factor"}, at);
  const std::string unit_name = as_string(require(config, "unit", at), at / "unit");
  const auto unit = time_unit_from_name(unit_name);
  if (!unit) fail(ErrorKind::invalid_metadata, at / "unit", "unknown time unit \"" + unit_name + "\"");
  return DataType::time(kind, *unit, positive(config, "scale_factor", (std::uint64_t{1} << 31) - 1, at));
}

}  // namespace

DataType parse_data_type_v3(const json& j, const FieldPath& at) {
  std::string name;
  const json* config = nullptr;
  if (j.is_object()) {
    name = as_string(require(j, "name", at), at / "name");
    config = find(j, "configuration");
  } else {
    name = as_string(j, at);
  }
  const FieldPath cat = at / "configuration";
  if (name == "null_terminated_bytes" || name == "raw_bytes" || name == "fixed_length_utf32" ||
      name == "numpy.datetime64" || name == "numpy.timedelta64") {
    if (config == nullptr) fail(ErrorKind::invalid_metadata, at, "data type \"" + name + "\" needs a configuration");
    expect_object(*config, cat);
    if (name == "numpy.datetime64") return parse_time(DataTypeKind::datetime64, *config, cat);
    if (name == "numpy.timedelta64") return parse_time(DataTypeKind::timedelta64, *config, cat);
    const auto kind = name == "null_terminated_bytes" ? DataTypeKind::null_terminated_bytes
                      : name == "raw_bytes"           ? DataTypeKind::raw_bytes
                                                      : DataTypeKind::fixed_length_utf32;
    return parse_fixed_length(kind, *config, cat);
  }
  // zarr-python 3 also reads raw bytes as "r<bits>" (Zarr v3 core's r* types).
  if (name.size() > 1 && name[0] == 'r' && name.find_first_not_of("0123456789", 1) == std::string::npos &&
      name.size() < 12) {
    const std::uint64_t bits = std::stoull(name.substr(1));
    if (bits == 0 || bits % 8 != 0 || bits / 8 > (std::uint64_t{1} << 31))
      fail(ErrorKind::invalid_metadata, at, "raw data type \"" + name + "\" must have a positive multiple of 8 bits");
    return DataType::fixed_length(DataTypeKind::raw_bytes, static_cast<std::uint32_t>(bits / 8));
  }
  auto t = from_v3_name(name);
  if (!t) fail(ErrorKind::unsupported, at, "unknown data type \"" + name + "\"");
  if (config != nullptr && !(config->is_object() && config->empty()))
    fail(ErrorKind::unsupported, cat, "data type \"" + name + "\" takes no configuration");
  return *t;
}

}  // namespace metadata

json data_type_to_json(DataType t) {
  if (is_fixed_length(t)) return {{"name", v3_name(t)}, {"configuration", {{"length_bytes", t.length_bytes}}}};
  if (is_time(t))
    return {{"name", v3_name(t)},
            {"configuration", {{"unit", time_unit_name(t.unit)}, {"scale_factor", t.scale_factor}}}};
  return std::string(v3_name(t));
}

}  // namespace zarrgpu
