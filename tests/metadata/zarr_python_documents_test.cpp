// Documents written by zarr-python 3 (fixtures/generate_zarr_python.py):
// zarrgpu parses each one and writes back the same content.
#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::fixture_path;
using testing::read_json_file;

const json& fixtures() {
  static const json j = read_json_file(fixture_path("zarr_python_3.json"));
  return j;
}

TEST(ZarrPythonDocuments, ZarrJsonRoundTripsToTheSameContent) {
  ASSERT_GE(fixtures()["zarr_json"].size(), 17u);
  for (const auto& [name, doc] : fixtures()["zarr_json"].items()) {
    ArrayMetadata m = std::get<ArrayMetadata>(parse_zarr_json(doc, name));
    EXPECT_EQ(to_zarr_json(m), doc) << name;
    EXPECT_EQ(std::get<ArrayMetadata>(parse_zarr_json(json::parse(to_zarr_json(m).dump()), name)), m) << name;
  }
}

TEST(ZarrPythonDocuments, SpotChecks) {
  const json& d = fixtures()["zarr_json"];
  auto u64 = std::get<ArrayMetadata>(parse_zarr_json(d["u8_max_uncompressed"], "a"));
  EXPECT_EQ(u64.fill_value, FillValue::of(~std::uint64_t{0}));
  auto f2 = std::get<ArrayMetadata>(parse_zarr_json(d["f2_value"], "a"));
  EXPECT_EQ(f2.fill_value, FillValue::of(std::uint16_t{0x2e66}));  // numpy.float16(0.1)
  auto keys = std::get<ArrayMetadata>(parse_zarr_json(d["f2_neg_inf_v2_keys"], "a"));
  EXPECT_EQ(keys.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '/'}));
  auto names = std::get<ArrayMetadata>(parse_zarr_json(d["u2_null_name"], "a"));
  EXPECT_EQ(names.dimension_names, (std::vector<std::optional<std::string>>{std::nullopt, "x"}));
}

TEST(ZarrPythonDocuments, ZarrayRoundTripsToTheSameContent) {
  ASSERT_GE(fixtures()["zarray"].size(), 4u);
  for (const auto& [name, doc] : fixtures()["zarray"].items()) {
    ArrayMetadata m = parse_zarray(doc, nullptr, name);
    EXPECT_EQ(to_zarray(m), doc) << name;
  }
  auto blosc = parse_zarray(fixtures()["zarray"]["v2_i4_delta_blosc"], nullptr, "a");
  ASSERT_EQ(blosc.codecs.size(), 3u);
  EXPECT_EQ(blosc.codecs[0].name, "numcodecs.delta");
  EXPECT_EQ(blosc.codecs[2].configuration["shuffle"], "shuffle");  // AUTOSHUFFLE, 4-byte items
}

TEST(ZarrPythonDocuments, InlineConsolidatedMetadata) {
  const json& root = fixtures()["consolidated_zarr_json"];
  auto c = parse_consolidated_v3(root, "");
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->nodes.size(), 3u);
  const json& docs = root["consolidated_metadata"]["metadata"];
  for (const char* name : {"a", "sub/b"})
    EXPECT_EQ(to_zarr_json(std::get<ArrayMetadata>(c->nodes.at(name))), docs[name]) << name;
  // zarr-python gives a nested group its own (empty) consolidated_metadata.
  json sub = docs["sub"];
  sub.erase("consolidated_metadata");
  EXPECT_EQ(to_zarr_json(std::get<GroupMetadata>(c->nodes.at("sub"))), sub);
  EXPECT_EQ(std::get<GroupMetadata>(parse_zarr_json(root, "")).attributes, (json{{"title", "x"}}));
}

}  // namespace
}  // namespace zarrgpu
