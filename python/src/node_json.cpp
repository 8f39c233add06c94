#include "node_json.hpp"

#include <string>

namespace nb = nanobind;

namespace zarrgpu::python {

json describe(const ArrayMetadata& m) {
  json j;
  j["node_type"] = "array";
  j["zarr_format"] = m.zarr_format;
  j["shape"] = m.shape;
  j["chunk_shape"] = m.chunk_shape;
  j["data_type"] = std::string(v3_name(m.data_type));
  j["fill_value"] = m.fill_value.is_null ? json(nullptr) : fill_value_to_json(m.fill_value, m.data_type, 3);
  json codecs = json::array();
  for (const auto& c : m.codecs)
    codecs.push_back({{"name", c.name}, {"configuration", c.configuration}, {"must_understand", c.must_understand}});
  j["codecs"] = codecs;
  if (m.dimension_names) {
    json names = json::array();
    for (const auto& n : *m.dimension_names) names.push_back(n ? json(*n) : json(nullptr));
    j["dimension_names"] = names;
  } else {
    j["dimension_names"] = nullptr;
  }
  j["attributes"] = m.attributes;
  j["chunk_key_encoding"] = {
      {"name", m.chunk_key_encoding.kind == ChunkKeyEncoding::Kind::v2 ? "v2" : "default"},
      {"separator", std::string(1, m.chunk_key_encoding.separator)}};
  if (m.zarr_format == 2) {
    j["v2"] = {{"order", std::string(1, m.v2.order)},
               {"endian", m.v2.endian == Endian::big ? "big" : "little"},
               {"filters", m.v2.filters},
               {"compressor", m.v2.compressor}};
  }
  return j;
}

json describe(const GroupMetadata& m) {
  return {{"node_type", "group"}, {"zarr_format", m.zarr_format}, {"attributes", m.attributes}};
}

json describe(const NodeMetadata& m) {
  return std::visit([](const auto& x) { return describe(x); }, m);
}

nb::object to_python(const json& doc) {
  // NaN/Infinity never reach here: fill_value_to_json spells them as strings.
  const std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  return nb::module_::import_("json").attr("loads")(nb::str(text.c_str(), text.size()));
}

}  // namespace zarrgpu::python
