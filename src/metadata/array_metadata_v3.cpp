#include "metadata/array_metadata_v3.hpp"

#include <algorithm>

#include "metadata/chunk_key_encoding.hpp"
#include "metadata/codec_spec.hpp"
#include "metadata/data_type_json.hpp"
#include "metadata/fill_value.hpp"

namespace zarrgpu::metadata {

void check_extension_members(const json& doc, std::initializer_list<std::string_view> known,
                             const FieldPath& at) {
  for (const auto& [key, value] : doc.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const json* mu = find(value, "must_understand");
    if (mu != nullptr && mu->is_boolean() && !mu->get<bool>()) continue;
    fail(ErrorKind::unsupported, at / key,
         "unknown extension member; only an object with \"must_understand\": false may be ignored");
  }
}

namespace {

std::vector<std::uint64_t> parse_regular_chunk_grid(const json& j, std::size_t ndim, const FieldPath& at) {
  expect_object(j, at);
  std::string name = as_string(require(j, "name", at), at / "name");
  if (name != "regular") fail(ErrorKind::unsupported, at / "name", "unknown chunk grid \"" + name + "\"");
  const FieldPath cat = at / "configuration";
  const json& config = require(j, "configuration", at);
  expect_object(config, cat);
  for (const auto& [key, value] : config.items())
    if (key != "chunk_shape") fail(ErrorKind::invalid_metadata, cat / key, "unexpected member");
  auto chunk_shape = as_extents(require(config, "chunk_shape", cat), cat / "chunk_shape", 1);
  if (chunk_shape.size() != ndim)
    fail(ErrorKind::invalid_metadata, cat / "chunk_shape",
         "has " + std::to_string(chunk_shape.size()) + " dimensions, the shape has " + std::to_string(ndim));
  return chunk_shape;
}

std::vector<std::optional<std::string>> parse_dimension_names(const json& j, std::size_t ndim,
                                                              const FieldPath& at) {
  expect_array(j, at);
  if (j.size() != ndim)
    fail(ErrorKind::invalid_metadata, at,
         "has " + std::to_string(j.size()) + " names, the shape has " + std::to_string(ndim) + " dimensions");
  std::vector<std::optional<std::string>> names;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (j[i].is_null()) names.emplace_back();
    else names.emplace_back(as_string(j[i], at[i]));
  }
  return names;
}

}  // namespace

ArrayMetadata parse_array_v3(const json& doc, const FieldPath& at) {
  check_extension_members(doc,
                          {"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
                           "fill_value", "codecs", "attributes", "dimension_names", "storage_transformers"},
                          at);
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = as_extents(require(doc, "shape", at), at / "shape", 0);
  checked_product(m.shape, at / "shape");
  m.data_type = parse_data_type_v3(require(doc, "data_type", at), at / "data_type");
  m.chunk_shape = parse_regular_chunk_grid(require(doc, "chunk_grid", at), m.ndim(), at / "chunk_grid");
  check_byte_size(m.shape, size_of(m.data_type), at / "shape");
  check_byte_size(m.chunk_shape, size_of(m.data_type), at / "chunk_grid.configuration.chunk_shape");
  m.chunk_key_encoding = parse_chunk_key_encoding(require(doc, "chunk_key_encoding", at), at / "chunk_key_encoding");
  m.fill_value = parse_fill_value(require(doc, "fill_value", at), m.data_type, 3, at / "fill_value");
  m.codecs = parse_codecs(require(doc, "codecs", at), at / "codecs");
  if (const json* a = find(doc, "attributes")) {
    expect_object(*a, at / "attributes");
    m.attributes = *a;
  }
  if (const json* d = find(doc, "dimension_names"); d != nullptr && !d->is_null())
    m.dimension_names = parse_dimension_names(*d, m.ndim(), at / "dimension_names");
  if (const json* s = find(doc, "storage_transformers")) {
    expect_array(*s, at / "storage_transformers");
    if (!s->empty())
      fail(ErrorKind::unsupported, at / "storage_transformers",
           "storage transformers are not supported (got " + s->dump() + ")");
  }
  return m;
}

}  // namespace zarrgpu::metadata

namespace zarrgpu {

json to_zarr_json(const ArrayMetadata& m) {
  // The members and their forms follow what zarr-python 3 writes.
  json doc = json::object();
  doc["shape"] = m.shape;
  doc["data_type"] = data_type_to_json(m.data_type);
  doc["chunk_grid"] = {{"name", "regular"}, {"configuration", {{"chunk_shape", m.chunk_shape}}}};
  doc["chunk_key_encoding"] = metadata::chunk_key_encoding_to_json(m.chunk_key_encoding);
  doc["fill_value"] = fill_value_to_json(m.fill_value, m.data_type, 3);
  doc["codecs"] = metadata::codecs_to_json(m.codecs);
  doc["attributes"] = m.attributes;
  if (m.dimension_names) {
    json names = json::array();
    for (const auto& n : *m.dimension_names) names.push_back(n ? json(*n) : json(nullptr));
    doc["dimension_names"] = std::move(names);
  }
  doc["zarr_format"] = 3;
  doc["node_type"] = "array";
  doc["storage_transformers"] = json::array();
  return doc;
}

}  // namespace zarrgpu
