// One member a group cannot open (issue 31): the group still opens and lists
// it with its reason; only opening that member throws, with its own error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/node_documents.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

void put(Store& s, const std::string& key, const std::string& text) {
  s.write(key, std::as_bytes(std::span(text.data(), text.size())));
}

const char* kArray = R"({"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "float32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
  "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
  "attributes": {"a": NaN}})";

std::string with(std::string doc, const std::string& from, const std::string& to) {
  doc.replace(doc.find(from), from.size(), to);
  return doc;
}

// A group with "good", and one member broken in each way issue 31 names.
std::shared_ptr<Store> store_v3() {
  auto s = make_memory_store();
  put(*s, "zarr.json", R"({"zarr_format": 3, "node_type": "group", "attributes": {"inf": -Infinity}})");
  put(*s, "good/zarr.json", kArray);
  put(*s, "dtype/zarr.json", with(kArray, "\"float32\"", "\"float8_e9m9\""));
  put(*s, "codec/zarr.json", with(kArray, "\"codecs\": [", "\"codecs\": [{\"name\": \"no_such_codec\"}, "));
  put(*s, "json/zarr.json", "{\"zarr_format\": 3, ");
  put(*s, "deep/zarr.json", with(kArray, "NaN", std::string(100'000, '[') + std::string(100'000, ']')));
  return s;
}

void expect_unreadable(const std::map<std::string, TreeNode>& tree, const std::string& name, ErrorKind kind,
                       const std::string& needle, const std::string& node_type) {
  ASSERT_TRUE(tree.count(name)) << name;
  const auto* u = std::get_if<UnreadableNode>(&tree.at(name));
  ASSERT_NE(u, nullptr) << name;
  EXPECT_EQ(u->error.kind(), kind) << u->error.what();
  EXPECT_NE(std::string(u->error.what()).find(needle), std::string::npos) << u->error.what();
  EXPECT_EQ(u->error.context().array, name) << u->error.what();
  EXPECT_EQ(u->node_type, node_type) << name;
}

void check_group(const Group& g) {
  EXPECT_TRUE(std::isinf(g.metadata().attributes["inf"].get<double>()));
  EXPECT_EQ(g.members(), (std::vector<std::string>{"codec", "deep", "dtype", "good", "json"}));
  const auto tree = g.tree();
  ASSERT_EQ(tree.size(), 5u);
  ASSERT_TRUE(std::holds_alternative<ArrayMetadata>(tree.at("good")));
  EXPECT_TRUE(std::isnan(std::get<ArrayMetadata>(tree.at("good")).attributes["a"].get<double>()));
  expect_unreadable(tree, "dtype", ErrorKind::unsupported, "unknown data type \"float8_e9m9\"", "array");
  expect_unreadable(tree, "codec", ErrorKind::unsupported, "no_such_codec", "array");
  expect_unreadable(tree, "deep", ErrorKind::invalid_metadata, "more than 512 deep", "");
  EXPECT_EQ(g.open_array("good").read().size(), 8u);
  for (const auto& [name, node] : tree) {
    const auto* u = std::get_if<UnreadableNode>(&node);
    if (u == nullptr) continue;
    // Touching it throws its own error, the one the listing holds.
    try {
      g.open_array(name);
      ADD_FAILURE() << name;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), u->error.kind()) << e.what();
      EXPECT_EQ(e.cause(), u->error.cause()) << e.what();
    }
    EXPECT_THROW(g.open_group(name), Error) << name;
    EXPECT_TRUE(std::holds_alternative<UnreadableNode>(g.member(name))) << name;
  }
}

TEST(UnreadableMember, GroupOpensAndListsIt) {
  auto s = store_v3();
  const Group g = Group::open(s);
  EXPECT_FALSE(g.is_consolidated());
  check_group(g);
  expect_unreadable(g.tree(), "json", ErrorKind::invalid_metadata, "not valid JSON", "");
  const auto tree = g.tree();  // a reference into tree()'s temporary would dangle
  const auto& u = std::get<UnreadableNode>(tree.at("json"));
  EXPECT_EQ(u.error.context().document, "json/zarr.json");
  EXPECT_EQ(u.error.context().chunk_key, "");  // a metadata document is not a chunk
  // Opened directly, the member throws as before.
  EXPECT_THROW(Array::open(s, "dtype"), Error);
  EXPECT_THROW(open_node(*s, "deep"), Error);
}

TEST(UnreadableMember, ConsolidatedGroupKeepsItsDocuments) {
  auto s = store_v3();
  // Consolidate the members whose documents parse, as zarr-python would.
  json nodes = json::object();
  for (const char* name : {"good", "dtype", "codec"}) {
    const auto bytes = s->get(std::string(name) + "/zarr.json");
    nodes[name] = parse_metadata_document(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), {});
  }
  nodes["deep"] = {{"zarr_format", 3}, {"node_type", "array"}, {"shape", "not a shape"}};
  json root = {{"zarr_format", 3}, {"node_type", "group"}, {"attributes", {{"inf", -INFINITY}}},
               {"consolidated_metadata", {{"kind", "inline"}, {"must_understand", false}, {"metadata", nodes}}}};
  put(*s, "zarr.json", dump_metadata_document(root));
  const Group g = Group::open(s);
  ASSERT_TRUE(g.is_consolidated());
  const auto tree = g.tree();
  EXPECT_EQ(tree.size(), 4u);
  expect_unreadable(tree, "dtype", ErrorKind::unsupported, "unknown data type \"float8_e9m9\"", "array");
  expect_unreadable(tree, "codec", ErrorKind::unsupported, "no_such_codec", "array");
  expect_unreadable(tree, "deep", ErrorKind::invalid_metadata, "shape", "array");
  EXPECT_EQ(std::get<UnreadableNode>(tree.at("dtype")).error.context().document, "zarr.json");
  EXPECT_THROW(g.open_array("dtype"), Error);
  EXPECT_EQ(g.open_array("good").read().size(), 8u);
  // Written back, the unreadable members keep their documents as read.
  const json again = to_zarr_json(g.metadata(), ConsolidatedMetadata{tree});
  // (as text: the documents hold a NaN, which equals nothing)
  EXPECT_EQ(dump_metadata_document(again["consolidated_metadata"]["metadata"]["dtype"]),
            dump_metadata_document(nodes["dtype"]));
  EXPECT_EQ(again["consolidated_metadata"]["metadata"]["deep"], nodes["deep"]);
}

TEST(UnreadableMember, FormatTwo) {
  auto s = make_memory_store();
  put(*s, ".zgroup", R"({"zarr_format": 2})");
  const std::string zarray = R"({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<f4", "fill_value": NaN,
    "order": "C", "filters": null, "compressor": null})";
  put(*s, "good/.zarray", zarray);
  put(*s, "good/.zattrs", R"({"x": Infinity})");
  put(*s, "structured/.zarray", with(zarray, "\"<f4\"", "[[\"a\", \"<i4\"]]"));
  put(*s, "compressor/.zarray", with(zarray, "\"compressor\": null", "\"compressor\": {\"id\": \"nosuch\"}"));
  put(*s, "attrs/.zarray", zarray);
  put(*s, "attrs/.zattrs", "\xFF\xFE{\x00}\x00");
  const Group g = Group::open(s);
  const auto tree = g.tree();
  ASSERT_EQ(tree.size(), 4u);
  const auto& good = std::get<ArrayMetadata>(tree.at("good"));
  EXPECT_TRUE(std::isinf(good.attributes["x"].get<double>()));
  float fill;
  std::memcpy(&fill, good.fill_value.bytes.data(), 4);
  EXPECT_TRUE(std::isnan(fill));
  expect_unreadable(tree, "structured", ErrorKind::unsupported, "structured", "array");
  expect_unreadable(tree, "compressor", ErrorKind::unsupported, "nosuch", "array");
  expect_unreadable(tree, "attrs", ErrorKind::invalid_metadata, "UTF-16", "array");
  EXPECT_EQ(std::get<UnreadableNode>(tree.at("attrs")).error.context().document, "attrs/.zattrs");
  EXPECT_EQ(std::get<UnreadableNode>(tree.at("compressor")).error.context().codec, "nosuch");
  EXPECT_EQ(std::get<UnreadableNode>(tree.at("compressor")).documents[".zarray"]["compressor"]["id"], "nosuch");
}

}  // namespace
}  // namespace zarrgpu
