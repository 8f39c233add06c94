#include <limits>

#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::throws_error;

json base_zarray() {
  return json::parse(R"({
    "chunks": [8, 8, 5], "compressor": {"id": "zstd", "level": 3}, "dimension_separator": "/",
    "dtype": ">i4", "fill_value": -7, "filters": null, "order": "F", "shape": [31, 17, 5],
    "zarr_format": 2})");
}

TEST(ArrayMetadataV2, ParsesEveryField) {
  ArrayMetadata m = parse_zarray(base_zarray(), json{{"_ARRAY_DIMENSIONS", {"t", "y", "x"}}}, "a");
  EXPECT_EQ(m.zarr_format, 2);
  EXPECT_EQ(m.shape, (std::vector<std::uint64_t>{31, 17, 5}));
  EXPECT_EQ(m.chunk_shape, (std::vector<std::uint64_t>{8, 8, 5}));
  EXPECT_EQ(m.data_type, DataType::int32);
  EXPECT_EQ(m.v2.endian, Endian::big);
  EXPECT_EQ(m.v2.order, 'F');
  EXPECT_EQ(m.fill_value, FillValue::of(std::int32_t{-7}));
  EXPECT_EQ(m.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '/'}));
  EXPECT_EQ(m.attributes["_ARRAY_DIMENSIONS"], (json{"t", "y", "x"}));
  EXPECT_EQ(m.dimension_names, (std::vector<std::optional<std::string>>{"t", "y", "x"}));
  EXPECT_EQ(m.grid_shape(), (std::vector<std::uint64_t>{4, 3, 1}));
  ASSERT_EQ(m.codecs.size(), 3u);
  EXPECT_EQ(m.codecs[0], (CodecSpec{"transpose", {{"order", {2, 1, 0}}}, true}));
  EXPECT_EQ(m.codecs[1], (CodecSpec{"bytes", {{"endian", "big"}}, true}));
  EXPECT_EQ(m.codecs[2], (CodecSpec{"zstd", {{"level", 3}, {"checksum", false}}, true}));
  EXPECT_EQ(to_zarray(m), base_zarray());
}

TEST(ArrayMetadataV2, DefaultsAndFillForms) {
  json z = base_zarray();
  z.erase("dimension_separator");  // zarr-python before 2.8 writes none: "."
  z["dtype"] = "<f8";
  z["fill_value"] = "NaN";
  ArrayMetadata m = parse_zarray(z, nullptr, "a");
  EXPECT_EQ(m.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'}));
  EXPECT_EQ(fill_value_to_json(m.fill_value, m.data_type, 2), "NaN");
  EXPECT_EQ(m.attributes, json::object());
  z["fill_value"] = nullptr;
  EXPECT_TRUE(parse_zarray(z, nullptr, "a").fill_value.is_null);
  z["fill_value"] = "-Infinity";
  EXPECT_EQ(parse_zarray(z, nullptr, "a").fill_value, FillValue::of(-std::numeric_limits<double>::infinity()));
  z["dtype"] = "|b1";
  z["fill_value"] = true;
  EXPECT_EQ(parse_zarray(z, nullptr, "a").fill_value, FillValue::of(true));
  z["dtype"] = "<c8";
  z["fill_value"] = {0.0, 1.0};
  EXPECT_EQ(parse_zarray(z, nullptr, "a").fill_value, FillValue::of(std::array<float, 2>{0.0f, 1.0f}));
}

TEST(ArrayMetadataV2, ZeroDimensional) {
  json z = json::parse(R"({"chunks": [], "compressor": null, "dimension_separator": ".", "dtype": "<f8",
      "fill_value": 0.0, "filters": null, "order": "C", "shape": [], "zarr_format": 2})");
  ArrayMetadata m = parse_zarray(z, json::object(), "s");
  EXPECT_EQ(m.num_elements(), 1u);
  EXPECT_EQ(m.codecs, (std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}, true}}));
  EXPECT_EQ(m.chunk_key_encoding.encode({}), "0");
  EXPECT_EQ(to_zarray(m), z);
}

struct BadCase {
  const char* what;
  std::function<void(json&)> edit;
  ErrorKind kind;
  std::vector<std::string> needles;
};

TEST(ArrayMetadataV2, BadInputNamesNodeAndField) {
  const BadCase cases[] = {
      {"format", [](json& z) { z["zarr_format"] = 3; }, ErrorKind::invalid_metadata, {"zarr_format", "expected 2"}},
      {"no shape", [](json& z) { z.erase("shape"); }, ErrorKind::invalid_metadata, {"shape", "missing"}},
      {"no chunks", [](json& z) { z.erase("chunks"); }, ErrorKind::invalid_metadata, {"chunks", "missing"}},
      {"zero chunk", [](json& z) { z["chunks"][2] = 0; }, ErrorKind::invalid_metadata, {"chunks[2]", "positive"}},
      {"negative chunk", [](json& z) { z["chunks"][0] = -8; }, ErrorKind::invalid_metadata, {"chunks[0]"}},
      {"chunk rank", [](json& z) { z["chunks"] = {8, 8}; }, ErrorKind::invalid_metadata, {"chunks", "2 dimensions"}},
      {"dtype", [](json& z) { z["dtype"] = "<f16"; }, ErrorKind::unsupported, {"dtype", "<f16"}},
      {"structured dtype", [](json& z) { z["dtype"] = json::parse(R"([["a", "<i4"]])"); }, ErrorKind::unsupported,
       {"dtype", "structured"}},
      {"fill", [](json& z) { z["fill_value"] = 1.5; }, ErrorKind::invalid_metadata, {"fill_value", "int32"}},
      {"no fill", [](json& z) { z.erase("fill_value"); }, ErrorKind::invalid_metadata, {"fill_value", "missing"}},
      {"order", [](json& z) { z["order"] = "K"; }, ErrorKind::invalid_metadata, {"order", "\"K\""}},
      {"separator", [](json& z) { z["dimension_separator"] = "-"; }, ErrorKind::invalid_metadata,
       {"dimension_separator"}},
      {"filters kind", [](json& z) { z["filters"] = json::object(); }, ErrorKind::invalid_metadata,
       {"filters", "expected an array"}},
      {"compressor kind", [](json& z) { z["compressor"] = "zstd"; }, ErrorKind::invalid_metadata,
       {"compressor", "expected an object"}},
      // (bz2 was the example until zarrgpu read it, issue 31.)
      {"compressor id", [](json& z) { z["compressor"] = {{"id", "zfpy"}}; }, ErrorKind::unsupported,
       {"compressor.id", "zfpy"}},
  };
  for (const auto& c : cases) {
    json z = base_zarray();
    c.edit(z);
    EXPECT_TRUE(throws_error([&] { parse_zarray(z, nullptr, "g/a"); }, c.kind, {"'g/a'"})) << c.what;
    for (const auto& n : c.needles)
      EXPECT_TRUE(throws_error([&] { parse_zarray(z, nullptr, "g/a"); }, c.kind, {n})) << c.what;
  }
  EXPECT_TRUE(throws_error([] { parse_zarray(base_zarray(), json::array(), "g/a"); }, ErrorKind::invalid_metadata,
                           {"'g/a'", ".zattrs"}));
}

TEST(ArrayMetadataV2, ArrayDimensionsMapToDimensionNames) {
  // xarray's attribute; zarr-python keeps it among the attributes.
  const json attrs = {{"_ARRAY_DIMENSIONS", {"time", "lat", "lon"}}, {"units", "K"}};
  ArrayMetadata m = parse_zarray(base_zarray(), attrs, "air");
  EXPECT_EQ(m.dimension_names, (std::vector<std::optional<std::string>>{"time", "lat", "lon"}));
  EXPECT_EQ(m.attributes, attrs);
  EXPECT_EQ(to_zattrs(m), attrs);
  EXPECT_FALSE(parse_zarray(base_zarray(), json{{"units", "K"}}, "air").dimension_names.has_value());
  EXPECT_FALSE(parse_zarray(base_zarray(), nullptr, "air").dimension_names.has_value());
}

TEST(ArrayMetadataV2, MalformedArrayDimensionsAreIgnored) {
  const json bad[] = {
      json{"t", "y"},                         // too few
      json{"t", "y", "x", "w"},               // too many
      json{"t", nullptr, "x"},                // null
      json{"t", 1, "x"},                      // number
      json{"t", json::array({"y"}), "x"},     // nested
      json("t y x"),                          // not a list
      json{{"t", 0}, {"y", 1}, {"x", 2}},     // an object
      json(nullptr),
  };
  for (const json& value : bad) {
    const json attrs = {{"_ARRAY_DIMENSIONS", value}};
    ArrayMetadata m;
    ASSERT_NO_THROW(m = parse_zarray(base_zarray(), attrs, "a")) << value.dump();
    EXPECT_FALSE(m.dimension_names.has_value()) << value.dump();
    EXPECT_EQ(m.attributes, attrs) << value.dump();  // kept as it was
    EXPECT_EQ(to_zattrs(m), attrs) << value.dump();
  }
  // 0-d: an empty list names all of no dimensions.
  json z = base_zarray();
  z["shape"] = json::array();
  z["chunks"] = json::array();
  z["order"] = "C";
  EXPECT_EQ(parse_zarray(z, json{{"_ARRAY_DIMENSIONS", json::array()}}, "s").dimension_names,
            (std::vector<std::optional<std::string>>{}));
}

TEST(ArrayMetadataV2, DimensionNamesWriteArrayDimensions) {
  ArrayMetadata m = parse_zarray(base_zarray(), json{{"units", "K"}}, "a");
  m.dimension_names = {{"t", "y", "x"}};
  const json written = to_zattrs(m);
  EXPECT_EQ(written, (json{{"units", "K"}, {"_ARRAY_DIMENSIONS", {"t", "y", "x"}}}));
  EXPECT_EQ(parse_zarray(to_zarray(m), written, "a").dimension_names, m.dimension_names);
  // dimension_names win over a stale attribute.
  m.attributes["_ARRAY_DIMENSIONS"] = {"a", "b", "c"};
  EXPECT_EQ(to_zattrs(m)["_ARRAY_DIMENSIONS"], (json{"t", "y", "x"}));
  // Format 2 has no null names, and the count must match.
  m.dimension_names = {{"t", std::nullopt, "x"}};
  EXPECT_TRUE(throws_error([&] { to_zattrs(m); }, ErrorKind::invalid_metadata, {"dimension_names[1]", "null"}));
  m.dimension_names = {{"t", "y"}};
  EXPECT_TRUE(throws_error([&] { to_zattrs(m); }, ErrorKind::invalid_metadata, {"dimension_names", "2 names"}));
}

TEST(GroupMetadataV2, ParsesAndWrites) {
  GroupMetadata g = parse_zgroup({{"zarr_format", 2}}, {{"title", "t"}}, "g");
  EXPECT_EQ(g.zarr_format, 2);
  EXPECT_EQ(g.attributes, (json{{"title", "t"}}));
  EXPECT_EQ(to_zgroup(g), (json{{"zarr_format", 2}}));
  EXPECT_EQ(parse_zgroup({{"zarr_format", 2}}, nullptr, "g").attributes, json::object());
  EXPECT_TRUE(throws_error([] { parse_zgroup({{"zarr_format", 3}}, nullptr, "g"); }, ErrorKind::invalid_metadata,
                           {"'g'", "zarr_format"}));
  EXPECT_TRUE(throws_error([] { parse_zgroup(json::object(), nullptr, "g"); }, ErrorKind::invalid_metadata,
                           {"zarr_format", "missing"}));
}

}  // namespace
}  // namespace zarrgpu
