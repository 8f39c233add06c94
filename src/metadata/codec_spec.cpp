#include "metadata/codec_spec.hpp"

namespace zarrgpu::metadata {

CodecSpec parse_codec_spec(const json& j, const FieldPath& at) {
  CodecSpec c;
  // Zarr v3 core §"Extension points": a bare name stands for an extension
  // without configuration.
  if (j.is_string()) {
    c.name = j.get<std::string>();
  } else {
    expect_object(j, at);
    c.name = as_string(require(j, "name", at), at / "name");
    for (const auto& [key, value] : j.items()) {
      if (key == "name") continue;
      if (key == "configuration") {
        expect_object(value, at / key);
        c.configuration = value;
      } else if (key == "must_understand") {
        c.must_understand = as_bool(value, at / key);
      } else {
        fail(ErrorKind::invalid_metadata, at / key, "unexpected member of codec \"" + c.name + "\"");
      }
    }
  }
  if (c.name.empty()) fail(ErrorKind::invalid_metadata, at / "name", "must not be empty");
  return c;
}

std::vector<CodecSpec> parse_codecs(const json& j, const FieldPath& at) {
  expect_array(j, at);
  // §"codecs": exactly one array -> bytes codec, so never empty.
  if (j.empty()) fail(ErrorKind::invalid_metadata, at, "must list at least one codec");
  std::vector<CodecSpec> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(parse_codec_spec(j[i], at[i]));
  return out;
}

json codec_spec_to_json(const CodecSpec& c) {
  // zarr-python omits an empty configuration ({"name": "bytes"} for 1-byte types).
  json j = {{"name", c.name}};
  // zarr-python requires "configuration" of numcodecs.* codecs, even empty.
  if (!c.configuration.empty() || c.name.starts_with("numcodecs.")) j["configuration"] = c.configuration;
  if (!c.must_understand) j["must_understand"] = false;
  return j;
}

json codecs_to_json(const std::vector<CodecSpec>& codecs) {
  json j = json::array();
  for (const auto& c : codecs) j.push_back(codec_spec_to_json(c));
  return j;
}

}  // namespace zarrgpu::metadata
