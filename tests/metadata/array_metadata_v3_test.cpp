#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::throws_error;

json base_array() {
  return json::parse(R"({
    "zarr_format": 3, "node_type": "array", "shape": [10, 7], "data_type": "float32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 7]}},
    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
    "fill_value": "NaN",
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
               {"name": "zstd", "configuration": {"level": 3, "checksum": false}}],
    "attributes": {"units": "K"},
    "dimension_names": ["y", null]
  })");
}

ArrayMetadata parse_array(const json& doc, std::string_view path = "grp/arr") {
  NodeMetadata n = parse_zarr_json(doc, path);
  EXPECT_TRUE(std::holds_alternative<ArrayMetadata>(n));
  return std::get<ArrayMetadata>(n);
}

TEST(ArrayMetadataV3, ParsesEveryField) {
  ArrayMetadata m = parse_array(base_array());
  EXPECT_EQ(m.zarr_format, 3);
  EXPECT_EQ(m.shape, (std::vector<std::uint64_t>{10, 7}));
  EXPECT_EQ(m.chunk_shape, (std::vector<std::uint64_t>{4, 7}));
  EXPECT_EQ(m.data_type, DataType::float32);
  EXPECT_EQ(m.fill_value, parse_fill_value("NaN", DataType::float32, 3));
  EXPECT_EQ(m.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::default_, '/'}));
  ASSERT_EQ(m.codecs.size(), 2u);
  EXPECT_EQ(m.codecs[0], (CodecSpec{"bytes", {{"endian", "little"}}, true}));
  EXPECT_EQ(m.codecs[1].name, "zstd");
  EXPECT_EQ(m.codecs[1].configuration, (json{{"level", 3}, {"checksum", false}}));
  EXPECT_EQ(m.attributes, (json{{"units", "K"}}));
  ASSERT_TRUE(m.dimension_names.has_value());
  EXPECT_EQ(*m.dimension_names, (std::vector<std::optional<std::string>>{"y", std::nullopt}));
  EXPECT_EQ(m.ndim(), 2u);
  EXPECT_EQ(m.num_elements(), 70u);
  EXPECT_EQ(m.grid_shape(), (std::vector<std::uint64_t>{3, 1}));
}

TEST(ArrayMetadataV3, RoundTrips) {
  ArrayMetadata m = parse_array(base_array());
  json written = to_zarr_json(m);
  EXPECT_EQ(parse_array(json::parse(written.dump())), m);
  EXPECT_EQ(written["storage_transformers"], json::array());
  EXPECT_EQ(written["fill_value"], "NaN");
}

TEST(ArrayMetadataV3, OptionalFieldsAndZeroDimensions) {
  json doc = base_array();
  doc.erase("attributes");
  doc.erase("dimension_names");
  doc["shape"] = json::array();
  doc["chunk_grid"]["configuration"]["chunk_shape"] = json::array();
  doc["storage_transformers"] = json::array();
  ArrayMetadata m = parse_array(doc);
  EXPECT_EQ(m.attributes, json::object());
  EXPECT_FALSE(m.dimension_names.has_value());
  EXPECT_EQ(m.num_elements(), 1u);
  EXPECT_TRUE(m.grid_shape().empty());
  EXPECT_EQ(parse_array(to_zarr_json(m)), m);
}

TEST(ArrayMetadataV3, EmptyExtentsAreAllowed) {
  json doc = base_array();
  doc["shape"] = {0, 7};
  ArrayMetadata m = parse_array(doc);
  EXPECT_EQ(m.num_elements(), 0u);
  EXPECT_EQ(m.grid_shape(), (std::vector<std::uint64_t>{0, 1}));
}

TEST(ArrayMetadataV3, CodecEnvelope) {
  json doc = base_array();
  doc["codecs"] = json::parse(R"(["bytes", {"name": "crc32c"},
      {"name": "x.checksum", "configuration": {"k": 1}, "must_understand": false}])");
  ArrayMetadata m = parse_array(doc);
  EXPECT_EQ(m.codecs[0], (CodecSpec{"bytes", json::object(), true}));
  EXPECT_EQ(m.codecs[1], (CodecSpec{"crc32c", json::object(), true}));
  EXPECT_EQ(m.codecs[2], (CodecSpec{"x.checksum", {{"k", 1}}, false}));
  json written = to_zarr_json(m);
  EXPECT_EQ(written["codecs"][1], (json{{"name", "crc32c"}}));  // no empty configuration
  EXPECT_EQ(written["codecs"][2]["must_understand"], false);
  EXPECT_EQ(parse_array(written), m);
}

TEST(ArrayMetadataV3, EveryDataTypeByName) {
  for (const char* name : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float16", "bfloat16", "float32", "float64", "complex64", "complex128"}) {
    json doc = base_array();
    doc["data_type"] = name;
    doc["fill_value"] = std::string(name) == "bool" ? json(false)
                        : std::string(name).starts_with("complex") ? json::array({0.0, 0.0}) : json(0);
    ArrayMetadata m = parse_array(doc);
    EXPECT_EQ(v3_name(m.data_type), name);
    EXPECT_EQ(parse_array(to_zarr_json(m)), m) << name;
  }
}

TEST(ArrayMetadataV3, IgnoresOnlyExtensionsThatNeedNotBeUnderstood) {
  json doc = base_array();
  doc["my_extension"] = {{"must_understand", false}, {"anything", 1}};
  EXPECT_NO_THROW(parse_array(doc));
  doc["my_extension"]["must_understand"] = true;
  EXPECT_TRUE(throws_error([&] { parse_array(doc); }, ErrorKind::unsupported,
                           {"'grp/arr'", "my_extension", "must_understand"}));
  doc["my_extension"] = {{"anything", 1}};
  EXPECT_TRUE(throws_error([&] { parse_array(doc); }, ErrorKind::unsupported, {"my_extension"}));
  doc["my_extension"] = 3;
  EXPECT_TRUE(throws_error([&] { parse_array(doc); }, ErrorKind::unsupported, {"my_extension"}));
}

TEST(ArrayMetadataV3, RejectsStorageTransformers) {
  json doc = base_array();
  doc["storage_transformers"] = json::array({{{"name", "t"}}});
  EXPECT_TRUE(throws_error([&] { parse_array(doc); }, ErrorKind::unsupported, {"storage_transformers"}));
}

struct BadCase {
  const char* what;
  std::function<void(json&)> edit;
  ErrorKind kind;
  std::vector<std::string> needles;
};

TEST(ArrayMetadataV3, BadInputNamesNodeAndField) {
  const BadCase cases[] = {
      {"zarr_format 2", [](json& d) { d["zarr_format"] = 2; }, ErrorKind::invalid_metadata,
       {"zarr_format", "expected 3, got 2"}},
      {"zarr_format string", [](json& d) { d["zarr_format"] = "3"; }, ErrorKind::invalid_metadata,
       {"zarr_format", "expected an integer"}},
      {"no zarr_format", [](json& d) { d.erase("zarr_format"); }, ErrorKind::invalid_metadata,
       {"zarr_format", "missing"}},
      {"node_type", [](json& d) { d["node_type"] = "table"; }, ErrorKind::invalid_metadata, {"node_type", "table"}},
      {"no shape", [](json& d) { d.erase("shape"); }, ErrorKind::invalid_metadata, {"'shape'", "missing"}},
      {"shape type", [](json& d) { d["shape"] = "10"; }, ErrorKind::invalid_metadata, {"shape", "expected an array"}},
      {"negative shape", [](json& d) { d["shape"][1] = -7; }, ErrorKind::invalid_metadata,
       {"shape[1]", "non-negative"}},
      {"float shape", [](json& d) { d["shape"][0] = 10.5; }, ErrorKind::invalid_metadata, {"shape[0]"}},
      {"zero chunk", [](json& d) { d["chunk_grid"]["configuration"]["chunk_shape"][0] = 0; },
       ErrorKind::invalid_metadata, {"chunk_grid.configuration.chunk_shape[0]", "positive"}},
      {"negative chunk", [](json& d) { d["chunk_grid"]["configuration"]["chunk_shape"][1] = -1; },
       ErrorKind::invalid_metadata, {"chunk_grid.configuration.chunk_shape[1]", "positive"}},
      {"chunk rank", [](json& d) { d["chunk_grid"]["configuration"]["chunk_shape"] = {4}; },
       ErrorKind::invalid_metadata, {"chunk_grid.configuration.chunk_shape", "1 dimensions", "has 2"}},
      {"chunk grid name", [](json& d) { d["chunk_grid"]["name"] = "rectilinear"; }, ErrorKind::unsupported,
       {"chunk_grid.name", "rectilinear"}},
      {"no chunk grid config", [](json& d) { d["chunk_grid"].erase("configuration"); },
       ErrorKind::invalid_metadata, {"chunk_grid.configuration", "missing"}},
      {"data type", [](json& d) { d["data_type"] = "float128"; }, ErrorKind::unsupported,
       {"data_type", "float128"}},
      {"data type kind", [](json& d) { d["data_type"] = 4; }, ErrorKind::invalid_metadata, {"data_type"}},
      {"no fill", [](json& d) { d.erase("fill_value"); }, ErrorKind::invalid_metadata, {"fill_value", "missing"}},
      {"fill", [](json& d) { d["fill_value"] = "0x7fc0"; }, ErrorKind::invalid_metadata, {"fill_value", "float32"}},
      {"codecs empty", [](json& d) { d["codecs"] = json::array(); }, ErrorKind::invalid_metadata,
       {"codecs", "at least one"}},
      {"codec name", [](json& d) { d["codecs"][1].erase("name"); }, ErrorKind::invalid_metadata,
       {"codecs[1].name", "missing"}},
      {"codec configuration", [](json& d) { d["codecs"][1]["configuration"] = 3; }, ErrorKind::invalid_metadata,
       {"codecs[1].configuration", "expected an object"}},
      {"codec must_understand", [](json& d) { d["codecs"][0]["must_understand"] = "no"; },
       ErrorKind::invalid_metadata, {"codecs[0].must_understand", "boolean"}},
      {"codec member", [](json& d) { d["codecs"][0]["config"] = json::object(); }, ErrorKind::invalid_metadata,
       {"codecs[0].config"}},
      {"dimension names", [](json& d) { d["dimension_names"] = {"x"}; }, ErrorKind::invalid_metadata,
       {"dimension_names", "1 names"}},
      {"dimension name kind", [](json& d) { d["dimension_names"][0] = 1; }, ErrorKind::invalid_metadata,
       {"dimension_names[0]"}},
      {"attributes", [](json& d) { d["attributes"] = json::array(); }, ErrorKind::invalid_metadata,
       {"attributes", "expected an object"}},
      {"overflow", [](json& d) { d["shape"] = {4294967296ull, 4294967296ull}; }, ErrorKind::invalid_metadata,
       {"shape", "overflows"}},
  };
  for (const auto& c : cases) {
    json doc = base_array();
    c.edit(doc);
    auto r = throws_error([&] { parse_array(doc); }, c.kind, {});
    EXPECT_TRUE(r) << c.what;
    for (const auto& n : c.needles)
      EXPECT_TRUE(throws_error([&] { parse_array(doc); }, c.kind, {"'grp/arr'", n})) << c.what;
  }
}

TEST(ArrayMetadataV3, RootNodeIsNamed) {
  json doc = base_array();
  doc["shape"] = 1;
  EXPECT_TRUE(throws_error([&] { parse_zarr_json(doc, ""); }, ErrorKind::invalid_metadata, {"root node", "shape"}));
  EXPECT_TRUE(throws_error([&] { parse_zarr_json(json::array(), "x"); }, ErrorKind::invalid_metadata,
                           {"'x'", "document", "expected an object"}));
}

TEST(GroupMetadataV3, ParsesAndWrites) {
  json doc = {{"zarr_format", 3}, {"node_type", "group"}, {"attributes", {{"a", 1}}}};
  NodeMetadata n = parse_zarr_json(doc, "g");
  ASSERT_TRUE(std::holds_alternative<GroupMetadata>(n));
  const auto& g = std::get<GroupMetadata>(n);
  EXPECT_EQ(g.attributes, (json{{"a", 1}}));
  EXPECT_EQ(to_zarr_json(g), doc);
  doc["extra"] = 1;
  EXPECT_TRUE(throws_error([&] { parse_zarr_json(doc, "g"); }, ErrorKind::unsupported, {"'g'", "extra"}));
  doc.erase("extra");
  doc["attributes"] = "x";
  EXPECT_TRUE(throws_error([&] { parse_zarr_json(doc, "g"); }, ErrorKind::invalid_metadata, {"attributes"}));
}

}  // namespace
}  // namespace zarrgpu
