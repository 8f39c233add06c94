#include "metadata/chunk_key_encoding.hpp"

namespace zarrgpu {

std::string ChunkKeyEncoding::encode(std::span<const std::uint64_t> chunk_coords) const {
  // Zarr v3 core §"default" chunk key encoding: "c" then each coordinate;
  // §"v2": the coordinates alone, "0" for a zero-dimensional array.
  std::string key;
  if (kind == Kind::default_) {
    key = "c";
    for (auto c : chunk_coords) { key += separator; key += std::to_string(c); }
    return key;
  }
  if (chunk_coords.empty()) return "0";
  for (std::size_t i = 0; i < chunk_coords.size(); ++i) {
    if (i) key += separator;
    key += std::to_string(chunk_coords[i]);
  }
  return key;
}

namespace metadata {

namespace {
char parse_separator(const json& j, const FieldPath& at) {
  std::string s = as_string(j, at);
  if (s != "/" && s != ".") fail(ErrorKind::invalid_metadata, at, "must be \"/\" or \".\", got \"" + s + "\"");
  return s[0];
}
}  // namespace

ChunkKeyEncoding parse_chunk_key_encoding(const json& j, const FieldPath& at) {
  expect_object(j, at);
  std::string name = as_string(require(j, "name", at), at / "name");
  ChunkKeyEncoding e;
  if (name == "default") {
    e = ChunkKeyEncoding{ChunkKeyEncoding::Kind::default_, '/'};
  } else if (name == "v2") {
    e = ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'};
  } else {
    fail(ErrorKind::unsupported, at / "name", "unknown chunk key encoding \"" + name + "\"");
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != "configuration")
      fail(ErrorKind::invalid_metadata, at / key, "unexpected member");
  }
  if (const json* config = find(j, "configuration")) {
    expect_object(*config, at / "configuration");
    for (const auto& [key, value] : config->items()) {
      if (key == "separator") {
        e.separator = parse_separator(value, at / "configuration" / "separator");
      } else {
        fail(ErrorKind::invalid_metadata, at / "configuration" / key, "unexpected member");
      }
    }
  }
  return e;
}

json chunk_key_encoding_to_json(const ChunkKeyEncoding& e) {
  // zarr-python 3 always writes the configuration, separator included.
  return {{"name", e.kind == ChunkKeyEncoding::Kind::default_ ? "default" : "v2"},
          {"configuration", {{"separator", std::string(1, e.separator)}}}};
}

ChunkKeyEncoding parse_dimension_separator(const json* j, const FieldPath& at) {
  ChunkKeyEncoding e{ChunkKeyEncoding::Kind::v2, '.'};
  if (j != nullptr && !j->is_null()) e.separator = parse_separator(*j, at);
  return e;
}

}  // namespace metadata
}  // namespace zarrgpu
