// The shard-index module (codec/array_to_bytes/sharding_indexed/
// shard_layout.hpp, shard_index.hpp) and its three callers: the
// sharding_indexed codec (whole shards), the CPU read path (partial reads
// from an open shard) and the device read path's item source (host code,
// tested here without a GPU). Every valid or invalid index must be taken or
// refused the same way by all three.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>

#include "codec/array_to_bytes/sharding_indexed/shard_index.hpp"
#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"
#include "codec/bytes_to_bytes/crc32c/crc32c.hpp"
#include "engine/device_read/item_source.hpp"
#include "engine/plan.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

using codec::IndexLocation;
using codec::ShardIndex;
using codec::ShardIndexFormat;
using codec::ShardLayout;

json bytes_codec() { return {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}; }

CodecSpec sharding(const std::string& location, json chunk_shape = {4, 4}) {
  return {"sharding_indexed",
          {{"chunk_shape", chunk_shape},
           {"codecs", json::array({bytes_codec()})},
           {"index_codecs", json::array({bytes_codec(), {{"name", "crc32c"}}})},
           {"index_location", location}}};
}

// An 8x8 int32 array of one shard of 2x2 inner chunks of 4x4 (64 bytes each,
// stored as plain bytes); inner chunk 3 is all fill and left out.
struct ShardCase {
  explicit ShardCase(const std::string& location) : location(location) {
    metadata.shape = {8, 8};
    metadata.chunk_shape = {8, 8};
    metadata.data_type = DataType::int32;
    metadata.fill_value = FillValue::of(std::int32_t{0});
    metadata.codecs = {sharding(location)};
    for (std::size_t r = 0; r < 8; ++r)
      for (std::size_t c = 0; c < 8; ++c) values[r * 8 + c] = (r >= 4 && c >= 4) ? 0 : std::int32_t(r * 8 + c + 1);
    shard = codec().encode(std::as_bytes(std::span(values)), repr());
  }

  codec::ChunkRepresentation repr() const { return {{8, 8}, DataType::int32, metadata.fill_value}; }
  codec::ShardingIndexedCodec codec() const { return codec::ShardingIndexedCodec(metadata.codecs[0], repr()); }
  std::size_t index_at() const { return location == "start" ? 0 : shard.size() - index_size; }

  // The shard with index entry `slot`'s offset and nbytes replaced, the
  // index's crc32c recomputed so that only the entry's validation can fail.
  Bytes with_entry(std::size_t slot, std::uint64_t offset, std::uint64_t nbytes) const {
    Bytes b(shard.size());
    std::memcpy(b.data(), shard.data(), shard.size());
    std::memcpy(b.data() + index_at() + 16 * slot, &offset, 8);
    std::memcpy(b.data() + index_at() + 16 * slot + 8, &nbytes, 8);
    const std::uint32_t crc = codec::crc32c(std::span(b.data() + index_at(), index_size - 4));
    std::memcpy(b.data() + index_at() + index_size - 4, &crc, 4);
    return b;
  }

  std::string location;
  ArrayMetadata metadata;
  std::int32_t values[64];
  Bytes shard;
  static constexpr std::size_t index_size = 4 * 16 + 4;
};

// How a caller reacts to a shard: nullopt when it reads it, else the error.
using Outcome = std::optional<Error>;

template <class F>
Outcome outcome(F&& f) {
  try {
    f();
    return std::nullopt;
  } catch (const Error& e) {
    return e;
  }
}

Outcome codec_decodes(const ShardCase& c, std::span<const std::byte> shard) {
  return outcome([&] {
    std::vector<std::byte> out(c.repr().nbytes());
    c.codec().decode(shard, out, c.repr());
  });
}

Outcome cpu_path_reads(const ShardCase& c, std::span<const std::byte> shard, const Selection& selection) {
  auto store = make_memory_store();
  Array a = Array::create(store, "a", c.metadata);
  store->write("a/c/0/0", shard);
  return outcome([&] { (void)a.read(selection); });
}

// The device path's items (byte ranges in the shard); nullopt on error.
Outcome device_items(const ShardCase& c, std::span<const std::byte> shard, const Selection& selection,
                     std::deque<engine::device_read::ReadItem>* items = nullptr) {
  auto store = make_memory_store();
  store->write("a/c/0/0", shard);
  const engine::Plan plan(c.metadata, "a", selection.resolve(c.metadata.shape));
  return outcome([&] {
    engine::device_read::ItemSource source(*store, c.metadata, "a", plan);
    std::deque<engine::device_read::ReadItem> got;
    while (source.next(1 << 20, got)) {}
    if (items) *items = std::move(got);
  });
}

void expect_refused(const Outcome& o, const char* caller, const std::string& codec_name, bool names_key) {
  ASSERT_TRUE(o.has_value()) << caller << " accepted the shard";
  EXPECT_EQ(o->kind(), ErrorKind::corrupt_data) << caller << ": " << o->what();
  EXPECT_EQ(o->context().codec, codec_name) << caller << ": " << o->what();
  if (names_key) EXPECT_EQ(o->context().chunk_key, "a/c/0/0") << caller << ": " << o->what();
}

// Every caller refuses `shard` as corrupt, naming `codec_name`.
void expect_all_refuse(const ShardCase& c, std::span<const std::byte> shard, const std::string& codec_name = "sharding_indexed") {
  expect_refused(codec_decodes(c, shard), "codec", codec_name, false);
  // A selection of one inner chunk: the whole index is validated all the same.
  for (const Selection& s : {Selection(), Selection::parse("0:1,0:1")}) {
    expect_refused(cpu_path_reads(c, shard, s), "CPU read", codec_name, true);
    expect_refused(device_items(c, shard, s), "device items", codec_name, true);
  }
}

class ShardIndexCallers : public ::testing::TestWithParam<std::string> {};

TEST_P(ShardIndexCallers, AValidShardReadsTheSameThroughEveryCaller) {
  const ShardCase c(GetParam());
  EXPECT_FALSE(codec_decodes(c, c.shard.span()));
  auto store = make_memory_store();
  Array a = Array::create(store, "a", c.metadata);
  store->write("a/c/0/0", c.shard.span());
  const Bytes got = a.read(Selection());
  ASSERT_EQ(got.size(), sizeof(c.values));
  EXPECT_EQ(std::memcmp(got.data(), c.values, sizeof(c.values)), 0);

  // The index as the module decodes it: chunks in C order after (start) or
  // before (end) the index; inner chunk 3 missing.
  const ShardIndex index = c.codec().decode_index(c.shard.span());
  const std::uint64_t first = GetParam() == "start" ? ShardCase::index_size : 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto r = index.range(i);
    EXPECT_FALSE(r.missing);
    EXPECT_EQ(r.offset, first + 64 * i);
    EXPECT_EQ(r.nbytes, 64u);
  }
  EXPECT_TRUE(index.range(3).missing);
  try {
    (void)index.range(4);
    FAIL() << "an inner chunk past the grid";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal);
  }

  // The device path's partial plan: the inner chunks the selection touches,
  // with the index's byte ranges.
  std::deque<engine::device_read::ReadItem> items;
  ASSERT_FALSE(device_items(c, c.shard.span(), Selection::parse("2:6,3:7"), &items));
  ASSERT_EQ(items.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(items[i].chunk.linear_index, i);
    EXPECT_EQ(items[i].missing, index.range(i).missing);
    EXPECT_EQ(items[i].offset, index.range(i).offset);
    EXPECT_EQ(items[i].length, index.range(i).nbytes);
    EXPECT_EQ(items[i].shard != nullptr, !items[i].missing);
  }
  EXPECT_EQ(items[1].name, "a/c/0/0[0,1]");
}

TEST_P(ShardIndexCallers, AShardShorterThanItsIndexIsRefusedByEveryCaller) {
  const ShardCase c(GetParam());
  expect_all_refuse(c, c.shard.span().first(ShardCase::index_size - 1));
}

TEST_P(ShardIndexCallers, ABadIndexChecksumIsRefusedByEveryCaller) {
  const ShardCase c(GetParam());
  Bytes b(c.shard.size());
  std::memcpy(b.data(), c.shard.data(), b.size());
  b.data()[c.index_at() + 3] ^= std::byte{1};
  expect_all_refuse(c, b.span(), "crc32c");
}

TEST_P(ShardIndexCallers, AHalfMissingEntryIsRefusedByEveryCaller) {
  const ShardCase c(GetParam());
  const auto r = c.codec().decode_index(c.shard.span()).range(1);
  expect_all_refuse(c, c.with_entry(1, ShardIndex::missing, r.nbytes).span());
  expect_all_refuse(c, c.with_entry(1, r.offset, ShardIndex::missing).span());
}

TEST_P(ShardIndexCallers, AnEntryOutsideTheShardIsRefusedByEveryCaller) {
  const ShardCase c(GetParam());
  // Past the end, running past the end, and wrapping around 2^64.
  expect_all_refuse(c, c.with_entry(1, c.shard.size() + 1, 1).span());
  expect_all_refuse(c, c.with_entry(1, c.shard.size() - 10, 64).span());
  expect_all_refuse(c, c.with_entry(1, 100, ~std::uint64_t{0} - 50).span());
}

TEST_P(ShardIndexCallers, OnlyAStartIndexRefusesAnEntryPointingIntoIt) {
  const ShardCase c(GetParam());
  // Inner chunk 0 moved onto the first 64 bytes of the shard.
  const Bytes b = c.with_entry(0, 0, 64);
  if (GetParam() == "start") {
    expect_all_refuse(c, b.span());
  } else {
    // At the end, offset 0 is where inner chunk 0 is anyway.
    EXPECT_FALSE(codec_decodes(c, b.span()));
    EXPECT_FALSE(cpu_path_reads(c, b.span(), Selection()));
    EXPECT_FALSE(device_items(c, b.span(), Selection()));
  }
}

INSTANTIATE_TEST_SUITE_P(IndexLocations, ShardIndexCallers, ::testing::Values("start", "end"));

TEST(ShardIndexItems, InnerChunksAreReadFromTheShardAsOpenedForItsIndex) {
  // A shard replaced after its index was read: the device path's items still
  // read the version their index described (the host path: hostile_test's
  // ReadersSeeOneVersionOfAShardBeingReplaced).
  const ShardCase c("end");
  auto store = make_memory_store();
  store->write("a/c/0/0", c.shard.span());
  const engine::Plan plan(c.metadata, "a", Selection().resolve(c.metadata.shape));
  engine::device_read::ItemSource source(*store, c.metadata, "a", plan);
  std::deque<engine::device_read::ReadItem> items;
  ASSERT_TRUE(source.next(1 << 20, items));
  const std::vector<std::byte> other(c.shard.size() + 100, std::byte{0x5a});
  store->write("a/c/0/0", other);
  const auto& it = items[1];
  ASSERT_TRUE(it.shard);
  std::vector<std::byte> got(it.length);
  it.shard->read(it.offset, got);
  EXPECT_EQ(std::memcmp(got.data(), c.shard.data() + it.offset, it.length), 0);
}

TEST(ShardIndexItems, OpenShardsAreBounded) {
  // 300 shards of one touched inner chunk each: the items of one call hold at
  // most kMaxOpenShards shards open, and more open once they are released.
  ShardCase c("end");
  c.metadata.shape = {8, 8 * 300};
  auto store = make_memory_store();
  for (int s = 0; s < 300; ++s) store->write("a/c/0/" + std::to_string(s), c.shard.span());
  const engine::Plan plan(c.metadata, "a", Selection::parse("0:1,:").resolve(c.metadata.shape));
  engine::device_read::ItemSource source(*store, c.metadata, "a", plan);
  std::deque<engine::device_read::ReadItem> items;
  ASSERT_TRUE(source.next(std::size_t(1) << 30, items));
  EXPECT_FALSE(source.can_open_shards());
  EXPECT_EQ(items.size(), 2 * engine::device_read::ItemSource::kMaxOpenShards);
  items.clear();
  EXPECT_TRUE(source.can_open_shards());
  ASSERT_TRUE(source.next(std::size_t(1) << 30, items));
  EXPECT_EQ(items.size(), 2 * (300 - engine::device_read::ItemSource::kMaxOpenShards));
}

TEST(ShardLayout, ParsesTheConfigurationWithZarrPythonsDefaults) {
  const ShardLayout l = ShardLayout::parse({"sharding_indexed", {{"chunk_shape", {2, 5}}}}, std::vector<std::uint64_t>{8, 10});
  EXPECT_EQ(l.chunks_per_shard, (std::vector<std::uint64_t>{4, 2}));
  EXPECT_EQ(l.num_inner_chunks(), 8u);
  EXPECT_EQ(l.index_location, IndexLocation::end);
  ASSERT_EQ(l.inner_codecs.size(), 1u);
  EXPECT_EQ(l.inner_codecs[0].name, "bytes");
  ASSERT_EQ(l.index_codecs.size(), 2u);
  EXPECT_EQ(l.index_codecs[1].name, "crc32c");
  EXPECT_EQ(ShardIndexFormat(l).encoded_size(), 8u * 16 + 4);
  EXPECT_EQ(l.index_array().shape, (std::vector<std::uint64_t>{4, 2, 2}));
}

TEST(ShardLayout, TheCodecAndThePlannerRefuseTheSameConfigurations) {
  const std::vector<json> bad = {
      json::object(),                                                     // no chunk_shape
      {{"chunk_shape", 4}},                                               // not a list
      {{"chunk_shape", {4, 0}}},                                          // not positive
      {{"chunk_shape", {4}}},                                             // another rank
      {{"chunk_shape", {3, 4}}},                                          // does not divide 8
      {{"chunk_shape", {4, 4}}, {"index_location", "middle"}},
      {{"chunk_shape", {4, 4}}, {"codecs", "bytes"}},                     // not a list
      {{"chunk_shape", {4, 4}}, {"index_codecs", json::array({7})}},      // not a codec
      {{"chunk_shape", {1, 1}}, {"index_location", 3}},
  };
  ArrayMetadata m;
  m.shape = {16, 16};
  m.chunk_shape = {8, 8};
  m.data_type = DataType::uint8;
  const codec::ChunkRepresentation shard{{8, 8}, DataType::uint8, FillValue::of(std::uint8_t{0})};
  for (const json& config : bad) {
    SCOPED_TRACE(config.dump());
    m.codecs = {{"sharding_indexed", config}};
    const Outcome by_codec = outcome([&] { (void)codec::ShardingIndexedCodec(m.codecs[0], shard); });
    const Outcome by_plan = outcome([&] { (void)engine::partial_shard_layout(m, "x"); });
    for (const Outcome* o : {&by_codec, &by_plan}) {
      ASSERT_TRUE(o->has_value());
      EXPECT_EQ((*o)->kind(), ErrorKind::invalid_metadata) << (*o)->what();
      EXPECT_EQ((*o)->context().codec, "sharding_indexed") << (*o)->what();
    }
    EXPECT_EQ(by_codec->cause(), by_plan->cause());
  }
}

TEST(ShardLayout, AnIndexOfMoreThan2To63BytesIsRefused) {
  const std::vector<std::uint64_t> huge = {std::uint64_t(1) << 60};
  try {
    (void)ShardLayout::parse({"sharding_indexed", {{"chunk_shape", {1}}}}, huge);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
    EXPECT_NE(e.cause().find("2^63"), std::string::npos) << e.what();
  }
}

TEST(ShardIndexFormat, IndexCodecsOfNoFixedSizeAreUnsupported) {
  ShardLayout l = ShardLayout::parse({"sharding_indexed", {{"chunk_shape", {2}}}}, std::vector<std::uint64_t>{4});
  l.index_codecs = {{"bytes", {{"endian", "little"}}}, {"zstd", json::object()}};
  try {
    ShardIndexFormat f(l);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_EQ(e.context().codec, "sharding_indexed");
  }
}

}  // namespace
}  // namespace zarrgpu
