#include "node_json.hpp"

#include "errors.hpp"

#include <cmath>
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
  // The NumPy dtype of the host result ("<U5", "|S4", "<M8[10s]"; "|O" for
  // string and bytes; numbers: "<f4"); the zarr.json form for the parameters.
  j["numpy_dtype"] = numpy_str(m.data_type);
  j["data_type_json"] = data_type_to_json(m.data_type);
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

json describe(const UnreadableNode& m) {
  const Error& e = m.error;
  return {{"node_type", m.node_type.empty() ? json(nullptr) : json(m.node_type)},
          {"zarr_format", m.zarr_format},
          {"unreadable", {{"kind", kind_name(e.kind())}, {"cause", e.cause()}, {"message", e.what()}}}};
}

json describe(const NodeMetadata& m) {
  return std::visit([](const auto& x) { return describe(x); }, m);
}

json describe(const TreeNode& m) {
  return std::visit([](const auto& x) { return describe(x); }, m);
}

namespace {

nb::str text(const std::string& s) {
  // Parsed documents hold UTF-8 only; "replace" keeps values built elsewhere readable.
  return nb::steal<nb::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// Depth is bounded by parse_metadata_document's limit (plus the few levels
// describe() adds), so recursion here is shallow; no Python recursion is
// involved, so no RecursionError either.
nb::object convert(const json& j, std::size_t depth, const nb::object& nan) {
  if (depth > max_metadata_document_depth + 16)
    throw Error(ErrorKind::invalid_metadata, "metadata nests arrays and objects more than " +
                                                 std::to_string(max_metadata_document_depth) + " deep");
  switch (j.type()) {
    case json::value_t::null: return nb::none();
    case json::value_t::boolean: return nb::bool_(j.get<bool>());
    case json::value_t::number_integer: return nb::steal(PyLong_FromLongLong(j.get<std::int64_t>()));
    case json::value_t::number_unsigned: return nb::steal(PyLong_FromUnsignedLongLong(j.get<std::uint64_t>()));
    case json::value_t::number_float:
      // NaN: the json module's own object, as zarr-python's attributes hold, so that
      // containers holding it compare equal to theirs (== on containers tries `is` first).
      if (std::isnan(j.get<double>())) return nan;
      return nb::steal(PyFloat_FromDouble(j.get<double>()));
    case json::value_t::string: return text(j.get_ref<const std::string&>());
    case json::value_t::array: {
      nb::list out;
      for (const auto& v : j) out.append(convert(v, depth + 1, nan));
      return out;
    }
    case json::value_t::object: {
      nb::dict out;
      for (const auto& [k, v] : j.items()) out[text(k)] = convert(v, depth + 1, nan);
      return out;
    }
    default: return nb::none();  // binary: never in a parsed document
  }
}

}  // namespace

nb::object to_python(const json& doc) {
  return convert(doc, 0, nb::module_::import_("json.decoder").attr("NaN"));
}

}  // namespace zarrgpu::python
