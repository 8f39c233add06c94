// Property tests: random shapes (0-d to 4-d), chunkings (edge chunks, chunks
// larger than the array), codec chains (zstd, transpose, crc32c, sharding,
// nested sharding), data types and selections (negative steps, integers,
// lists of positions).
// Writes go through the API into a MemoryStore; reads are compared with a
// naive reference array kept by the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "engine/reference_slice.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

using testing::reference_assign;
using testing::reference_slice;

// memcmp that accepts empty (possibly null) buffers.
bool same(const void* a, const void* b, std::size_t n) { return n == 0 || std::memcmp(a, b, n) == 0; }

json bytes_codec() { return {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}; }

struct Case {
  ArrayMetadata meta;
  std::string chain_name;
};

Case random_case(std::mt19937& rng) {
  Case c;
  auto& m = c.meta;
  const std::size_t nd = rng() % 5;
  static const DataType types[] = {DataType::uint8, DataType::int16, DataType::int32, DataType::float32,
                                   DataType::float64, DataType::complex64, DataType::bool_};
  m.data_type = types[rng() % std::size(types)];
  const int kind = int(rng() % 6);  // 0 bytes, 1 zstd, 2 transpose+zstd, 3 crc32c, 4 sharding, 5 nested sharding
  std::vector<std::uint64_t> inner(nd), inner2(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    m.shape.push_back(rng() % 9);  // zero extents too
    if (kind >= 4) {
      inner2[d] = 1 + rng() % 2;
      inner[d] = inner2[d] * (1 + rng() % 2);
      m.chunk_shape.push_back(inner[d] * (1 + rng() % 3));
    } else {
      m.chunk_shape.push_back(1 + rng() % 11);  // may exceed the extent
    }
  }
  const std::size_t es = size_of(m.data_type);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t i = 0; i < es; ++i) m.fill_value.bytes[i] = std::byte(rng() % 3 == 0 ? byte(rng) : 0);
  if (m.data_type == DataType::bool_) m.fill_value.bytes[0] = std::byte(rng() % 2);
  json zstd = {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}};
  json codecs;
  switch (kind) {
    case 0: codecs = json::array({bytes_codec()}); c.chain_name = "bytes"; break;
    case 1: codecs = json::array({bytes_codec(), zstd}); c.chain_name = "bytes+zstd"; break;
    case 2: {
      std::vector<std::uint64_t> order(nd);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      codecs = json::array({{{"name", "transpose"}, {"configuration", {{"order", order}}}}, bytes_codec(), zstd});
      c.chain_name = "transpose+bytes+zstd";
      break;
    }
    case 3: codecs = json::array({bytes_codec(), {{"name", "crc32c"}}}); c.chain_name = "bytes+crc32c"; break;
    case 4:
      codecs = json::array({{{"name", "sharding_indexed"},
                             {"configuration", {{"chunk_shape", inner}, {"codecs", json::array({bytes_codec(), zstd})},
                                                {"index_codecs", json::array({bytes_codec(), {{"name", "crc32c"}}})},
                                                {"index_location", rng() % 2 ? "start" : "end"}}}}});
      c.chain_name = "sharding";
      break;
    default: {
      json innermost = {{"name", "sharding_indexed"},
                        {"configuration", {{"chunk_shape", inner2}, {"codecs", json::array({bytes_codec()})},
                                           {"index_codecs", json::array({bytes_codec()})}}}};
      codecs = json::array({{{"name", "sharding_indexed"},
                             {"configuration", {{"chunk_shape", inner}, {"codecs", json::array({innermost})},
                                                {"index_codecs", json::array({bytes_codec(), {{"name", "crc32c"}}})}}}}});
      c.chain_name = "nested sharding";
    }
  }
  for (const auto& j : codecs) {
    CodecSpec s;
    s.name = j["name"];
    if (j.contains("configuration")) s.configuration = j["configuration"];
    m.codecs.push_back(s);
  }
  return c;
}

Selection random_selection(std::mt19937& rng, std::span<const std::uint64_t> shape) {
  std::vector<DimSelection> dims;
  const std::size_t nd = rng() % 4 == 0 ? rng() % (shape.size() + 1) : shape.size();
  for (std::size_t d = 0; d < nd; ++d) {
    const std::int64_t n = std::int64_t(shape[d]);
    if (n > 0 && rng() % 5 == 0) {
      dims.push_back(DimSelection::index(std::int64_t(rng() % (2 * n)) - n));
      continue;
    }
    auto bound = [&]() -> std::optional<std::int64_t> {
      if (rng() % 3 == 0) return std::nullopt;
      return std::int64_t(rng() % (2 * n + 5)) - n - 2;
    };
    static const std::int64_t steps[] = {1, 1, 1, 2, 3, -1, -2, -3, 5};
    const auto start = bound(), stop = bound();
    const std::optional<std::int64_t> step = rng() % 3 == 0 ? std::nullopt : std::optional(steps[rng() % 9]);
    dims.push_back(DimSelection::slice(start, stop, step));
  }
  return Selection(std::move(dims));
}

// Some dimensions of a random selection replaced by lists of positions: sorted
// runs (the loader's case), shuffled, with repeats and negatives.
Selection random_list_selection(std::mt19937& rng, std::span<const std::uint64_t> shape) {
  std::vector<DimSelection> dims = random_selection(rng, shape).dims();
  dims.resize(shape.size(), DimSelection::all());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::int64_t n = std::int64_t(shape[d]);
    if (n == 0 || rng() % 2 == 0) continue;
    std::vector<std::int64_t> list(rng() % 7);
    for (auto& v : list) v = std::int64_t(rng() % std::uint64_t(n)) - (rng() % 4 == 0 ? n : 0);
    if (rng() % 2 == 0) std::sort(list.begin(), list.end(), [&](auto a, auto b) { return (a + n) % n < (b + n) % n; });
    dims[d] = DimSelection::positions(std::move(list));
  }
  return Selection(std::move(dims));
}

std::vector<std::byte> random_bytes(std::mt19937& rng, std::size_t n, DataType t) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = std::byte(rng());
  if (t == DataType::bool_) for (auto& b : v) b = std::byte(std::to_integer<int>(b) & 1);
  return v;
}

TEST(RoundTrip, RandomArraysChainsAndSelections) {
  std::mt19937 rng(20240611);
  for (int iter = 0; iter < 160; ++iter) {
    const Case c = random_case(rng);
    const auto& m = c.meta;
    const std::size_t es = size_of(m.data_type);
    SCOPED_TRACE("iteration " + std::to_string(iter) + ", chain " + c.chain_name + ", shape " + json(m.shape).dump() +
                 ", chunks " + json(m.chunk_shape).dump());
    auto store = make_memory_store();
    Array a = Array::create(store, "g/arr", m);
    std::uint64_t total = 1;
    for (auto n : m.shape) total *= n;
    std::vector<std::byte> ref(total * es);
    for (std::uint64_t i = 0; i < total; ++i) std::memcpy(ref.data() + i * es, m.fill_value.bytes.data(), es);
    // A fresh array reads as the fill value.
    {
      const Bytes got = a.read();
      ASSERT_EQ(got.size(), ref.size());
      ASSERT_TRUE(same(got.data(), ref.data(), ref.size()));
    }
    for (int w = 0; w < 4; ++w) {
      const Selection sel = random_selection(rng, m.shape);
      SCOPED_TRACE("write [" + sel.to_string() + "]");
      const auto ranges = sel.resolve(m.shape);
      std::uint64_t n = 1;
      for (const auto& r : ranges) n *= r.count;
      const auto data = random_bytes(rng, n * es, m.data_type);
      a.write(sel, data, WriteOptions{.write_empty_chunks = bool(rng() % 2)});
      reference_assign(ref, m.shape, ranges, data, es);
      const Bytes all = Array::open(store, "g/arr").read();
      ASSERT_EQ(all.size(), ref.size());
      ASSERT_TRUE(same(all.data(), ref.data(), ref.size()));
    }
    // Reads: random selections, then (their own generator, so the cases above stay as
    // they were) some dimensions as lists of positions; writes refuse those (plan.hpp).
    std::mt19937 list_rng(iter);
    for (int r = 0; r < 8; ++r) {
      const bool lists = r >= 4;
      std::mt19937& g = lists ? list_rng : rng;
      const Selection sel = lists ? random_list_selection(g, m.shape) : random_selection(g, m.shape);
      SCOPED_TRACE("read [" + sel.to_string() + "]");
      const auto ranges = sel.resolve(m.shape);
      const auto want = reference_slice(ref, m.shape, ranges, es);
      const Bytes got = a.read(sel, ReadOptions{.threads = unsigned(1 + g() % 4)});
      ASSERT_EQ(got.size(), want.size());
      ASSERT_TRUE(same(got.data(), want.data(), want.size()));
      if (std::any_of(ranges.begin(), ranges.end(), [](const DimRange& x) { return x.is_list; }))
        EXPECT_THROW(a.write(sel, got.span()), Error);
    }
  }
}

ArrayMetadata simple(std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks, float fill) {
  ArrayMetadata m;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.data_type = DataType::float32;
  m.fill_value = FillValue::of(fill);
  m.codecs = {{"bytes", {{"endian", "little"}}}, {"zstd", {{"level", 1}, {"checksum", false}}}};
  return m;
}

std::size_t chunk_keys(Store& s) {
  std::size_t n = 0;
  for (const auto& k : s.list("")) n += k.find("/c/") != std::string::npos || k.starts_with("c/");
  return n;
}

TEST(Write, ChunksEqualToTheFillValueAreErasedUnlessWriteEmptyChunks) {
  auto store = make_memory_store();
  Array a = Array::create(store, "", simple({8, 8}, {4, 4}, 7.0f));
  std::vector<float> sevens(64, 7.0f), ones(64, 1.0f);
  a.write({}, std::as_bytes(std::span(sevens)));
  EXPECT_EQ(chunk_keys(*store), 0u);
  a.write({}, std::as_bytes(std::span(sevens)), WriteOptions{.write_empty_chunks = true});
  EXPECT_EQ(chunk_keys(*store), 4u);
  a.write({}, std::as_bytes(std::span(ones)));
  EXPECT_EQ(chunk_keys(*store), 4u);
  // Putting a chunk back to the fill value erases it.
  a.write(Selection::parse("0:4,0:4"), std::as_bytes(std::span(sevens).first(16)));
  EXPECT_EQ(chunk_keys(*store), 3u);
  EXPECT_FALSE(store->exists("c/0/0"));
}

TEST(Write, PartialChunkWritesKeepTheRest) {
  auto store = make_memory_store();
  Array a = Array::create(store, "x", simple({5, 5}, {4, 4}, -1.0f));
  std::vector<float> v(25);
  std::iota(v.begin(), v.end(), 0.0f);
  a.write({}, std::as_bytes(std::span(v)));
  const float two[2] = {100.0f, 200.0f};
  a.write(Selection::parse("4,3:"), std::as_bytes(std::span(two)));  // the corner edge chunk
  v[23] = 100.0f;
  v[24] = 200.0f;
  const Bytes got = a.read();
  EXPECT_EQ(std::memcmp(got.data(), v.data(), sizeof(float) * 25), 0);
  EXPECT_THROW(a.write(Selection::parse("4,3:"), std::as_bytes(std::span(two)).first(4)), Error);
}

TEST(Write, NanFillValueChunksAreRecognised) {
  auto store = make_memory_store();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Array a = Array::create(store, "", simple({4}, {2}, nan));
  const float v[4] = {nan, nan, 1.0f, nan};
  a.write({}, std::as_bytes(std::span(v)));
  EXPECT_EQ(chunk_keys(*store), 1u);
  const Bytes got = a.read();
  EXPECT_EQ(std::memcmp(got.data(), v, sizeof v), 0);
}

TEST(Create, RefusesToOverwriteUnlessAsked) {
  auto store = make_memory_store();
  Array::create(store, "a", simple({4}, {2}, 0.0f));
  try {
    Array::create(store, "a", simple({4}, {2}, 0.0f));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
  const float v[4] = {1, 2, 3, 4};
  Array::open(store, "a").write({}, std::as_bytes(std::span(v)));
  Array b = Array::create(store, "a", simple({6}, {3}, 0.0f), true);
  EXPECT_EQ(b.shape(), std::vector<std::uint64_t>{6});
  EXPECT_EQ(chunk_keys(*store), 0u);  // the old chunks went with the old array
}

TEST(Create, FormatTwoWritesZarrayAndReadsBack) {
  auto store = make_memory_store();
  ArrayMetadata m = simple({6, 3}, {4, 2}, 0.0f);
  m.zarr_format = 2;
  m.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, '.'};
  m.v2.compressor = {{"id", "zstd"}, {"level", 1}};
  m.codecs.clear();  // derived from the v2 fields
  m.attributes = {{"units", "K"}};
  Array a = Array::create(store, "v2", m);
  EXPECT_TRUE(store->exists("v2/.zarray"));
  EXPECT_TRUE(store->exists("v2/.zattrs"));
  std::vector<float> v(18);
  std::iota(v.begin(), v.end(), 1.0f);
  a.write({}, std::as_bytes(std::span(v)));
  EXPECT_TRUE(store->exists("v2/1.1"));
  const Bytes got = Array::open(store, "v2").read();
  EXPECT_EQ(std::memcmp(got.data(), v.data(), got.size()), 0);
}

TEST(Create, FormatTwoDimensionNamesGoToZattrs) {
  auto store = make_memory_store();
  ArrayMetadata m = simple({6, 3}, {4, 2}, 0.0f);
  m.zarr_format = 2;
  m.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, '.'};
  m.codecs.clear();
  m.attributes = {{"units", "K"}};
  m.dimension_names = {{"y", "x"}};
  Array a = Array::create(store, "v2", m);
  const auto zattrs = store->get("v2/.zattrs");
  ASSERT_TRUE(zattrs.has_value());
  const json doc = json::parse(std::string(reinterpret_cast<const char*>(zattrs->data()), zattrs->size()));
  EXPECT_EQ(doc, (json{{"units", "K"}, {"_ARRAY_DIMENSIONS", {"y", "x"}}}));
  const Array back = Array::open(store, "v2");
  EXPECT_EQ(back.metadata().dimension_names, m.dimension_names);
  EXPECT_EQ(back.metadata(), a.metadata());  // create returns what a reopen reads
  // A null name has no format 2 form: refused before the store is touched.
  m.dimension_names = {{"y", std::nullopt}};
  try {
    Array::create(store, "v2b", m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
    EXPECT_EQ(e.context().array, "v2b");
  }
  EXPECT_FALSE(store->exists("v2b/.zarray"));
}

TEST(Groups, CreateOpenMembersAndTree) {
  auto store = make_memory_store();
  Group::create(store, "", GroupMetadata{3, {{"title", "t"}}});
  Group::create(store, "sub");
  Array::create(store, "sub/a", simple({4}, {2}, 0.0f));
  Array::create(store, "b", simple({4}, {2}, 0.0f));
  const Group root = Group::open(store);
  EXPECT_EQ(root.metadata().attributes["title"], "t");
  EXPECT_EQ(root.members(), (std::vector<std::string>{"b", "sub"}));
  const auto tree = root.tree();
  ASSERT_EQ(tree.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<ArrayMetadata>(tree.at("sub/a")));
  EXPECT_EQ(root.open_group("sub").open_array("a").path(), "sub/a");
  EXPECT_THROW(root.open_array("sub"), Error);
  try {
    Group::open(store, "nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
    EXPECT_EQ(e.context().array, "nope");
    EXPECT_EQ(e.context().store, "memory://");
  }
}

TEST(Read, DeviceReadWithoutCudaIsUnsupported) {
#if !defined(ZARRGPU_HAVE_CUDA)
  auto store = make_memory_store();
  Array a = Array::create(store, "", simple({4}, {2}, 0.0f));
  float out[4];
  try {
    a.read({}, out, sizeof out, Device::cuda());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
#endif
}

}  // namespace
}  // namespace zarrgpu
