// Array::resize / append / set_attributes, Group::set_attributes and the
// consolidated metadata kept in step with them (issue 34, item 3), for
// format 2, format 3 and sharded arrays, in a MemoryStore.
#include <gtest/gtest.h>

#include <numeric>

#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

json bytes_codec() { return {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}; }

ArrayMetadata int32_array(int format, bool sharded, std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks) {
  ArrayMetadata m;
  m.zarr_format = format;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.data_type = DataType::int32;
  m.fill_value = FillValue::of(std::int32_t{-1});
  if (format == 2) {
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, '.'};
    m.v2.compressor = {{"id", "zstd"}, {"level", 1}};
    m.dimension_names = std::vector<std::optional<std::string>>{"time", "x"};
    return m;
  }
  m.dimension_names = std::vector<std::optional<std::string>>{"time", "x"};
  if (sharded) {
    // Shards of 4x4 with 2x2 inner chunks.
    std::vector<std::uint64_t> inner(m.chunk_shape.size(), 2);
    m.codecs = {{"sharding_indexed",
                 {{"chunk_shape", inner},
                  {"codecs", json::array({bytes_codec()})},
                  {"index_codecs", json::array({bytes_codec(), {{"name", "crc32c"}}})},
                  {"index_location", "end"}}}};
  } else {
    m.codecs = {{"bytes", {{"endian", "little"}}}, {"zstd", {{"level", 1}, {"checksum", false}}}};
  }
  return m;
}

std::vector<std::int32_t> iota(std::size_t n, std::int32_t from) {
  std::vector<std::int32_t> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

std::vector<std::int32_t> read_all(const Array& a) {
  Bytes b = a.read();
  std::vector<std::int32_t> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

struct Layout {
  int format;
  bool sharded;
};

class ResizeAppend : public ::testing::TestWithParam<Layout> {};

TEST_P(ResizeAppend, AppendCompletesThePartialLastChunkAndReopens) {
  const auto [format, sharded] = GetParam();
  auto store = make_memory_store();
  Group::create(store, "", GroupMetadata{format, json::object()});
  // 3 steps of 4 values, chunks (shards) of 4x4: the last chunk is partly filled.
  Array a = Array::create(store, "t2m", int32_array(format, sharded, {3, 4}, {4, 4}));
  const auto first = iota(12, 0);
  a.write({}, std::as_bytes(std::span(first)));
  const auto more = iota(20, 100);  // 5 more steps: completes chunk 0, fills chunk 1 partly
  const std::uint64_t more_shape[] = {5, 4};
  EXPECT_EQ(a.append(std::as_bytes(std::span(more)), more_shape, 0), (std::vector<std::uint64_t>{8, 4}));

  std::vector<std::int32_t> want = first;
  want.insert(want.end(), more.begin(), more.end());
  EXPECT_EQ(read_all(a), want);
  Array again = Array::open(store, "t2m");
  EXPECT_EQ(again.shape(), (std::vector<std::uint64_t>{8, 4}));
  EXPECT_EQ(read_all(again), want);
  if (format == 2) EXPECT_EQ(again.metadata().attributes["_ARRAY_DIMENSIONS"], json({"time", "x"}));
}

TEST_P(ResizeAppend, ShrinkErasesChunksOutsideAndGrowReadsFill) {
  const auto [format, sharded] = GetParam();
  auto store = make_memory_store();
  Array a = Array::create(store, "a", int32_array(format, sharded, {12, 4}, {4, 4}));
  const auto data = iota(48, 1);
  a.write({}, std::as_bytes(std::span(data)));
  const std::uint64_t last[] = {2, 0};
  const std::string last_key = a.chunk_key(last);
  ASSERT_TRUE(store->exists(last_key));
  a.resize({6, 4});  // chunk 1 is cut by the edge (kept), chunk 2 lies outside (erased)
  EXPECT_FALSE(store->exists(last_key));
  const std::uint64_t cut[] = {1, 0};
  EXPECT_TRUE(store->exists(a.chunk_key(cut)));
  EXPECT_EQ(read_all(Array::open(store, "a")), std::vector<std::int32_t>(data.begin(), data.begin() + 24));
  a.resize({12, 4});
  auto grown = read_all(a);
  // Rows 8..11 come from an erased chunk: the fill value.
  EXPECT_EQ(std::vector<std::int32_t>(grown.begin() + 32, grown.end()), std::vector<std::int32_t>(16, -1));
}

TEST_P(ResizeAppend, RejectsAppendOfTheWrongShape) {
  const auto [format, sharded] = GetParam();
  auto store = make_memory_store();
  Array a = Array::create(store, "a", int32_array(format, sharded, {2, 4}, {4, 4}));
  const auto bad = iota(6, 0);
  const std::uint64_t bad_shape[] = {2, 3};
  EXPECT_THROW(a.append(std::as_bytes(std::span(bad)), bad_shape, 0), Error);
  EXPECT_THROW(a.resize({2}), Error);
  EXPECT_EQ(Array::open(store, "a").shape(), (std::vector<std::uint64_t>{2, 4}));
}

INSTANTIATE_TEST_SUITE_P(Layouts, ResizeAppend,
                         ::testing::Values(Layout{2, false}, Layout{3, false}, Layout{3, true}),
                         [](const auto& info) {
                           return "v" + std::to_string(info.param.format) + (info.param.sharded ? "_sharded" : "");
                         });

class Consolidated : public ::testing::TestWithParam<int> {};

TEST_P(Consolidated, StaysInStepWithEveryMetadataChange) {
  const int format = GetParam();
  auto store = make_memory_store();
  Group::create(store, "", GroupMetadata{format, json::object()});
  Array a = Array::create(store, "t2m", int32_array(format, false, {2, 4}, {2, 4}));
  consolidate_metadata(store, "");
  ASSERT_TRUE(Group::open(store).is_consolidated());

  const auto more = iota(8, 0);
  const std::uint64_t shape[] = {2, 4};
  a.append(std::as_bytes(std::span(more)), shape, 0);
  a.set_attributes(R"({"units": "K"})");
  Array::create(store, "new", int32_array(format, false, {1, 4}, {1, 4}));
  Group sub = Group::create(store, "sub", GroupMetadata{format, json::object()});
  sub.set_attributes(R"({"title": "nested"})");

  Group g = Group::open(store);
  ASSERT_TRUE(g.is_consolidated());
  const auto tree = g.tree();
  ASSERT_TRUE(tree.contains("new"));
  const auto& t2m = std::get<ArrayMetadata>(tree.at("t2m"));
  EXPECT_EQ(t2m.shape, (std::vector<std::uint64_t>{4, 4}));
  EXPECT_EQ(t2m.attributes["units"], "K");
  EXPECT_EQ(std::get<GroupMetadata>(tree.at("sub")).attributes["title"], "nested");
  // The consolidated view equals the members' own metadata.
  EXPECT_EQ(tree, Group::open(store, "", false).tree());
}

TEST_P(Consolidated, OpenOnRequest) {
  const int format = GetParam();
  auto store = make_memory_store();
  Group::create(store, "", GroupMetadata{format, json::object()});
  EXPECT_THROW(Group::open(store, "", true), Error);
  consolidate_metadata(store, "");
  EXPECT_TRUE(Group::open(store, "", true).is_consolidated());
  EXPECT_FALSE(Group::open(store, "", false).is_consolidated());
}

INSTANTIATE_TEST_SUITE_P(Formats, Consolidated, ::testing::Values(2, 3),
                         [](const auto& info) { return "v" + std::to_string(info.param); });

TEST(Attributes, PersistForArraysAndGroups) {
  auto store = make_memory_store();
  Group g = Group::create(store, "", GroupMetadata{2, json::object()});
  Array a = Array::create(store, "a", int32_array(2, false, {2, 4}, {2, 4}));
  a.set_attributes(R"({"units": "K"})");
  EXPECT_EQ(Array::open(store, "a").metadata().attributes,
            json({{"units", "K"}, {"_ARRAY_DIMENSIONS", {"time", "x"}}}));
  g.set_attributes(R"({"title": "t"})");
  EXPECT_EQ(Group::open(store).metadata().attributes, json({{"title", "t"}}));
  g.set_attributes("{}");
  EXPECT_FALSE(store->exists(".zattrs"));
  EXPECT_THROW(a.set_attributes("[]"), Error);
}

}  // namespace
}  // namespace zarrgpu
