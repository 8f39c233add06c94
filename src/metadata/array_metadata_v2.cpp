// Format 2 `.zarray` (+ `.zattrs`) (Zarr v2 §"Metadata").
#include <algorithm>

#include "metadata/chunk_key_encoding.hpp"
#include "metadata/fill_value.hpp"
#include "metadata/node_metadata.hpp"

namespace zarrgpu {

namespace {

// xarray's convention for format 2, which has no dimension_names: the
// attribute holds one string per dimension.
constexpr const char* kArrayDimensions = "_ARRAY_DIMENSIONS";

// The names in `attributes`, or nullopt when absent or malformed (not a list
// of `ndim` strings): a reader ignores such a value, as xarray's own checks
// would reject it and zarr-python treats it as a plain attribute.
std::optional<std::vector<std::optional<std::string>>> dimension_names_from_attributes(const json& attributes,
                                                                                        std::size_t ndim) {
  const json* names = metadata::find(attributes, kArrayDimensions);
  if (names == nullptr || !names->is_array() || names->size() != ndim) return std::nullopt;
  if (!std::all_of(names->begin(), names->end(), [](const json& n) { return n.is_string(); })) return std::nullopt;
  std::vector<std::optional<std::string>> out;
  for (const json& n : *names) out.emplace_back(n.get<std::string>());
  return out;
}

// Zarr v2 §"Data type encoding": "|O" holds Python objects, which the object
// codec among the filters encodes (numcodecs vlen-utf8 / vlen-bytes).
std::optional<DataType> object_data_type(const json& zarray, const metadata::FieldPath& at) {
  const json* filters = metadata::find(zarray, "filters");
  if (filters != nullptr && filters->is_array()) {
    for (std::size_t i = 0; i < filters->size(); ++i) {
      const json* id = metadata::find((*filters)[i], "id");
      if (id == nullptr || !id->is_string()) continue;
      if (*id == "vlen-utf8") return DataType::string;
      if (*id == "vlen-bytes") return DataType::bytes;
      if (*id == "vlen-array")
        metadata::fail(ErrorKind::unsupported, (at / "filters")[i],
                       "object arrays of ragged arrays (numcodecs vlen-array) are not supported");
    }
  }
  metadata::fail(ErrorKind::unsupported, at / "dtype",
                 "object data type \"|O\" needs a vlen-utf8 or vlen-bytes filter (other object codecs, such as "
                 "pickle, json or msgpack, are not supported)");
}

}  // namespace

ArrayMetadata parse_zarray(const json& zarray, const json& zattrs, std::string_view path) {
  using namespace metadata;
  const FieldPath at{path, ""};
  expect_object(zarray, at);
  expect_zarr_format(zarray, 2, at);

  ArrayMetadata m;
  m.zarr_format = 2;
  m.shape = as_extents(require(zarray, "shape", at), at / "shape", 0);
  checked_product(m.shape, at / "shape");
  m.chunk_shape = as_extents(require(zarray, "chunks", at), at / "chunks", 1);
  if (m.chunk_shape.size() != m.shape.size())
    fail(ErrorKind::invalid_metadata, at / "chunks",
         "has " + std::to_string(m.chunk_shape.size()) + " dimensions, the shape has " +
             std::to_string(m.shape.size()));

  const json& dtype = require(zarray, "dtype", at);
  if (dtype.is_array())
    fail(ErrorKind::unsupported, at / "dtype", "structured data types are not supported");
  const std::string dtype_str = as_string(dtype, at / "dtype");
  auto t = dtype_str == "|O" ? object_data_type(zarray, at) : from_numpy_str(dtype_str, &m.v2.endian);
  if (!t) fail(ErrorKind::unsupported, at / "dtype", "unknown data type \"" + dtype_str + "\"");
  m.data_type = *t;
  check_byte_size(m.shape, size_of(m.data_type), at / "shape");
  check_byte_size(m.chunk_shape, size_of(m.data_type), at / "chunks");

  m.fill_value = parse_fill_value(require(zarray, "fill_value", at), m.data_type, 2, at / "fill_value");

  const std::string order = as_string(require(zarray, "order", at), at / "order");
  if (order != "C" && order != "F")
    fail(ErrorKind::invalid_metadata, at / "order", "expected \"C\" or \"F\", got \"" + order + "\"");
  m.v2.order = order[0];

  if (const json* f = find(zarray, "filters"); f != nullptr && !f->is_null()) {
    expect_array(*f, at / "filters");
    for (std::size_t i = 0; i < f->size(); ++i) expect_object((*f)[i], (at / "filters")[i]);
    // zarr-python writes null, never [], for no filters; keep [] as null so a
    // round trip writes what zarr-python would.
    if (!f->empty()) m.v2.filters = *f;
  }
  if (const json* c = find(zarray, "compressor"); c != nullptr && !c->is_null()) {
    expect_object(*c, at / "compressor");
    m.v2.compressor = *c;
  }
  m.chunk_key_encoding = parse_dimension_separator(find(zarray, "dimension_separator"), at / "dimension_separator");
  m.attributes = parse_zattrs(zattrs, FieldPath{path, ".zattrs"});
  // The attribute stays in `attributes` too, as zarr-python keeps it.
  m.dimension_names = dimension_names_from_attributes(m.attributes, m.ndim());
  m.codecs = v2_codec_chain(m.v2, m.data_type, m.ndim(), path);
  return m;
}

json to_zarray(const ArrayMetadata& m) {
  // The members zarr-python 2 writes; nlohmann's sorted keys give its order too.
  return {{"chunks", m.chunk_shape},
          {"compressor", m.v2.compressor},
          {"dimension_separator", std::string(1, m.chunk_key_encoding.separator)},
          {"dtype", numpy_str(m.data_type, m.v2.endian)},
          {"fill_value", fill_value_to_json(m.fill_value, m.data_type, 2)},
          {"filters", m.v2.filters},
          {"order", std::string(1, m.v2.order)},
          {"shape", m.shape},
          {"zarr_format", 2}};
}

json to_zattrs(const ArrayMetadata& m) {
  json attributes = m.attributes;
  if (!m.dimension_names) return attributes;
  using namespace metadata;
  const FieldPath at{std::nullopt, "dimension_names"};
  const auto& names = *m.dimension_names;
  if (names.size() != m.ndim())
    fail(ErrorKind::invalid_metadata, at,
         "has " + std::to_string(names.size()) + " names, the shape has " + std::to_string(m.ndim()) + " dimensions");
  json list = json::array();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i])
      fail(ErrorKind::invalid_metadata, at[i],
           "is null; format 2 stores dimension names as _ARRAY_DIMENSIONS, a list of strings");
    list.push_back(*names[i]);
  }
  attributes[kArrayDimensions] = std::move(list);
  return attributes;
}

}  // namespace zarrgpu
