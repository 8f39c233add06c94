#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::read_json_file;
using testing::throws_error;

const std::string kCorpus = ZARRGPU_CORPUS_DIR;

TEST(ConsolidatedMetadataV3, CorpusGroupMatchesItsNodes) {
  const std::string store = kCorpus + "/v3_group_consolidated_s11.zarr";
  json root = read_json_file(store + "/zarr.json");
  EXPECT_TRUE(std::holds_alternative<GroupMetadata>(parse_zarr_json(root, "")));
  auto c = parse_consolidated_v3(root, "");
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->nodes.size(), 4u);
  for (const char* name : {"data", "lat", "lon", "time"}) {
    ASSERT_TRUE(c->nodes.contains(name)) << name;
    const NodeMetadata node = parse_zarr_json(read_json_file(store + "/" + name + "/zarr.json"), name);
    EXPECT_EQ(c->nodes.at(name), std::visit([](const auto& m) { return TreeNode(m); }, node)) << name;
  }
  const auto& data = std::get<ArrayMetadata>(c->nodes.at("data"));
  EXPECT_EQ(data.shape, (std::vector<std::uint64_t>{6, 3, 19, 36}));
  EXPECT_EQ(data.attributes, (json{{"units", "K"}}));
}

TEST(ConsolidatedMetadataV3, AbsentWhenNotConsolidated) {
  json plain = read_json_file(kCorpus + "/v3_group_plain_s11.zarr/zarr.json");
  EXPECT_FALSE(parse_consolidated_v3(plain, "").has_value());
  plain["consolidated_metadata"] = nullptr;  // zarr-python may write null
  EXPECT_FALSE(parse_consolidated_v3(plain, "").has_value());
  EXPECT_NO_THROW(parse_zarr_json(plain, ""));
}

json consolidated(json nodes) {
  return {{"zarr_format", 3},
          {"node_type", "group"},
          {"consolidated_metadata", {{"kind", "inline"}, {"must_understand", false}, {"metadata", std::move(nodes)}}}};
}

TEST(ConsolidatedMetadataV3, BadInputNamesTheNode) {
  json bad_array = {{"zarr_format", 3}, {"node_type", "array"}, {"shape", {2}}};
  // A node's own bad metadata makes that node unreadable (issue 31), holding the
  // error that reading it alone would throw.
  auto node_error = [&](const std::string& group) {
    return [&, group] {
      const auto c = parse_consolidated_v3(consolidated({{"sub/x", bad_array}, {"ok", {{"zarr_format", 3},
                                                         {"node_type", "group"}}}}), group);
      EXPECT_TRUE(std::holds_alternative<GroupMetadata>(c->nodes.at("ok")));
      const auto& u = std::get<UnreadableNode>(c->nodes.at("sub/x"));
      EXPECT_EQ(u.node_type, "array");
      EXPECT_EQ(u.documents, (json{{"zarr.json", bad_array}}));
      throw u.error;
    };
  };
  EXPECT_TRUE(throws_error(node_error("root"), ErrorKind::invalid_metadata, {"'root/sub/x'", "data_type", "missing"}));
  EXPECT_TRUE(throws_error(node_error(""), ErrorKind::invalid_metadata, {"'sub/x'", "data_type"}));
  json unknown_type = bad_array;
  unknown_type["data_type"] = {{"name", "float8_e9m9"}, {"configuration", {{"unit", "s"}}}};
  EXPECT_TRUE(throws_error(
      [&] {
        throw std::get<UnreadableNode>(parse_consolidated_v3(consolidated({{"t", unknown_type}}), "")->nodes.at("t")).error;
      },
      ErrorKind::unsupported, {"'t'", "unknown data type \"float8_e9m9\""}));
  EXPECT_TRUE(throws_error([&] { parse_consolidated_v3(consolidated(json::array()), "g"); },
                           ErrorKind::invalid_metadata, {"'g'", "consolidated_metadata.metadata"}));
  EXPECT_TRUE(throws_error([&] { parse_consolidated_v3(consolidated({{"../x", {{"zarr_format", 3}}}}), "g"); },
                           ErrorKind::invalid_metadata, {"'g'", "../x", "relative node path"}));
  json doc = consolidated(json::object());
  doc["consolidated_metadata"]["kind"] = "external";
  EXPECT_TRUE(throws_error([&] { parse_consolidated_v3(doc, "g"); }, ErrorKind::unsupported,
                           {"consolidated_metadata.kind", "external"}));
  doc["consolidated_metadata"].erase("kind");
  EXPECT_TRUE(throws_error([&] { parse_consolidated_v3(doc, "g"); }, ErrorKind::invalid_metadata,
                           {"consolidated_metadata.kind", "missing"}));
}

TEST(ConsolidatedMetadataV2, CorpusZmetadataMatchesItsFiles) {
  const std::string store = kCorpus + "/v2_group_consolidated_s1.zarr";
  ConsolidatedMetadata c = parse_zmetadata(read_json_file(store + "/.zmetadata"), "");
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.nodes.at("air"),
            TreeNode(parse_zarray(read_json_file(store + "/air/.zarray"),
                                      read_json_file(store + "/air/.zattrs"), "air")));
  EXPECT_EQ(c.nodes.at("sub"), TreeNode(parse_zgroup(read_json_file(store + "/sub/.zgroup"), nullptr, "sub")));
  EXPECT_EQ(c.nodes.at("sub/mask"),
            TreeNode(parse_zarray(read_json_file(store + "/sub/mask/.zarray"), nullptr, "sub/mask")));
  const auto& air = std::get<ArrayMetadata>(c.nodes.at("air"));
  EXPECT_EQ(air.attributes["_ARRAY_DIMENSIONS"], (json{"time", "lat", "lon"}));
  EXPECT_EQ(air.dimension_names, (std::vector<std::optional<std::string>>{"time", "lat", "lon"}));
  const auto& mask = std::get<ArrayMetadata>(c.nodes.at("sub/mask"));
  EXPECT_EQ(mask.codecs.back().configuration["shuffle"], "bitshuffle");
}

TEST(ConsolidatedMetadataV2, BadInputNamesTheNode) {
  json zarray = json::parse(R"({"chunks": [2], "compressor": null, "dtype": "<i4", "fill_value": 0,
                               "filters": null, "order": "C", "shape": [0], "zarr_format": 2})");
  auto zmeta = [](json metadata) { return json{{"metadata", std::move(metadata)}, {"zarr_consolidated_format", 1}}; };
  EXPECT_NO_THROW(parse_zmetadata(zmeta({{"a/.zarray", zarray}}), "g"));
  json bad = zarray;
  bad["chunks"] = {0};
  // A node's own bad metadata makes that node unreadable (issue 31), not the whole
  // document: the error it holds is the one reading it alone would throw.
  auto node_error = [&](json metadata) {
    return [metadata = std::move(metadata), &zmeta] {
      const ConsolidatedMetadata c = parse_zmetadata(zmeta(metadata), "g");
      EXPECT_EQ(c.nodes.size(), 1u);
      throw std::get<UnreadableNode>(c.nodes.at("a")).error;
    };
  };
  EXPECT_TRUE(throws_error(node_error({{"a/.zarray", bad}}), ErrorKind::invalid_metadata, {"'g/a'", "chunks[0]"}));
  EXPECT_TRUE(throws_error(node_error({{"a/.zattrs", json::object()}}), ErrorKind::invalid_metadata,
                           {"a/.zattrs", "no .zarray or .zgroup"}));
  EXPECT_TRUE(throws_error(node_error({{"a/.zarray", zarray}, {"a/.zgroup", {{"zarr_format", 2}}}}),
                           ErrorKind::invalid_metadata, {"both an array and a group"}));
  const auto unreadable = std::get<UnreadableNode>(parse_zmetadata(zmeta({{"a/.zarray", bad}}), "g").nodes.at("a"));
  EXPECT_EQ(unreadable.node_type, "array");
  EXPECT_EQ(unreadable.zarr_format, 2);
  EXPECT_EQ(unreadable.documents, (json{{".zarray", bad}}));
  // Written back, it keeps its documents.
  EXPECT_EQ(to_zmetadata(GroupMetadata{2, json::object()},
                         parse_zmetadata(zmeta({{"a/.zarray", bad}, {"a/.zattrs", {{"x", 1}}}}), "g"))["metadata"],
            (json{{".zgroup", {{"zarr_format", 2}}}, {"a/.zarray", bad}, {"a/.zattrs", {{"x", 1}}}}));
  EXPECT_TRUE(throws_error([&] { parse_zmetadata(zmeta({{"a/.zfoo", 1}}), "g"); }, ErrorKind::invalid_metadata,
                           {"a/.zfoo"}));
  EXPECT_TRUE(throws_error([&] { parse_zmetadata({{"metadata", json::object()}, {"zarr_consolidated_format", 2}}, "g"); },
                           ErrorKind::unsupported, {"zarr_consolidated_format", "expected 1"}));
  EXPECT_TRUE(throws_error([&] { parse_zmetadata({{"zarr_consolidated_format", 1}}, "g"); },
                           ErrorKind::invalid_metadata, {"'g'", "metadata", "missing"}));
}

}  // namespace
}  // namespace zarrgpu

namespace zarrgpu {
namespace {

TEST(ConsolidatedMetadataWrite, V3InlineRoundTrips) {
  json root = testing::read_json_file(kCorpus + "/v3_group_consolidated_s11.zarr/zarr.json");
  auto c = parse_consolidated_v3(root, "");
  ASSERT_TRUE(c.has_value());
  GroupMetadata g = std::get<GroupMetadata>(parse_zarr_json(root, ""));
  json written = to_zarr_json(g, *c);
  EXPECT_EQ(written["consolidated_metadata"]["kind"], "inline");
  EXPECT_EQ(written["consolidated_metadata"]["must_understand"], false);
  EXPECT_EQ(parse_consolidated_v3(written, ""), c);
  EXPECT_EQ(std::get<GroupMetadata>(parse_zarr_json(written, "")), g);
}

TEST(ConsolidatedMetadataWrite, ZmetadataMatchesTheCorpus) {
  const std::string store = kCorpus + "/v2_group_consolidated_s1.zarr";
  json doc = testing::read_json_file(store + "/.zmetadata");
  ConsolidatedMetadata c = parse_zmetadata(doc, "");
  GroupMetadata root = parse_zgroup(doc["metadata"][".zgroup"], doc["metadata"][".zattrs"], "");
  json written = to_zmetadata(root, c);
  // That writer predates dimension_separator in .zarray.
  for (auto& [key, value] : written["metadata"].items())
    if (key.ends_with(".zarray")) value.erase("dimension_separator");
  EXPECT_EQ(written, doc);
}

TEST(ConsolidatedMetadataWrite, ZmetadataCarriesFormatTwoDimensionNames) {
  ArrayMetadata a = parse_zarray(json::parse(R"({"chunks": [2, 2], "compressor": null, "dtype": "<f4",
      "fill_value": 0.0, "filters": null, "order": "C", "shape": [4, 4], "zarr_format": 2})"),
                                 nullptr, "t");
  a.dimension_names = {{"lat", "lon"}};
  ConsolidatedMetadata c;
  c.nodes.emplace("t", a);
  const json written = to_zmetadata(GroupMetadata{2, json::object()}, c);
  EXPECT_EQ(written["metadata"]["t/.zattrs"], (json{{"_ARRAY_DIMENSIONS", {"lat", "lon"}}}));
  const ConsolidatedMetadata back = parse_zmetadata(written, "");
  EXPECT_EQ(std::get<ArrayMetadata>(back.nodes.at("t")).dimension_names, a.dimension_names);
}

}  // namespace
}  // namespace zarrgpu
