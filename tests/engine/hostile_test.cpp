// Hostile input and faults (issue 33) through the C++ API: sizes whose
// products overflow, allocations the metadata does not allow, special files,
// symbolic links, a shard rewritten while it is read. Every case expects a
// documented Error kind naming what is wrong, and runs under ASan/UBSan in CI
// (scripts/test.sh), where an overflow or a wild allocation fails it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "engine/codec_chains.hpp"
#include "engine/plan.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;
using testing::codec_chain;

ArrayMetadata metadata(std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks, DataType t,
                       std::vector<CodecSpec> codecs = codec_chain("bytes", {})) {
  ArrayMetadata m;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.data_type = t;
  m.codecs = std::move(codecs);
  return m;
}

ErrorKind kind_of_open(const ArrayMetadata& m) {
  try {
    Array::create(make_memory_store(), "a", m);
  } catch (const Error& e) {
    EXPECT_EQ(e.context().array, "a") << e.what();
    return e.kind();
  }
  return ErrorKind(0);
}

TEST(Hostile, SizesWhoseBytesOverflowAreInvalidMetadata) {
  // shape [2^62] float32 with a matching chunk: 2^64 bytes (UBSan once found place.cpp's strides wrap).
  EXPECT_EQ(kind_of_open(metadata({1ull << 62}, {1ull << 62}, DataType::float32)), ErrorKind::invalid_metadata);
  // Chunk shapes whose product overflows.
  EXPECT_EQ(kind_of_open(metadata({1ull << 32, 1ull << 32}, {1ull << 32, 1ull << 32}, DataType::uint8)),
            ErrorKind::invalid_metadata);
  // [2^31, 2^31] float32: a whole-array selection of 2^64 bytes would wrap to 0.
  EXPECT_EQ(kind_of_open(metadata({1ull << 31, 1ull << 31}, {1024, 1024}, DataType::float32)),
            ErrorKind::invalid_metadata);
  EXPECT_EQ(kind_of_open(metadata({~0ull}, {1}, DataType::uint8)), ErrorKind::invalid_metadata);
}

TEST(Hostile, ParsersNameTheFieldWhoseBytesOverflow) {
  json doc = {{"zarr_format", 3}, {"node_type", "array"}, {"shape", {1ull << 62}}, {"data_type", "float32"},
              {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {1}}}}}},
              {"chunk_key_encoding", {{"name", "default"}}}, {"fill_value", 0}, {"codecs", {"bytes"}}};
  auto field_error = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(field_error([&] { parse_zarr_json(doc, "x"); }).find("'shape'"), std::string::npos);
  doc["shape"] = {1ull << 32, 1ull << 32};
  doc["chunk_grid"]["configuration"]["chunk_shape"] = {1ull << 32, 1ull << 32};
  doc["data_type"] = "uint8";
  EXPECT_NE(field_error([&] { parse_zarr_json(doc, "x"); }).find("'shape'"), std::string::npos);
  doc["shape"] = {1, 1};
  EXPECT_NE(field_error([&] { parse_zarr_json(doc, "x"); }).find("chunk_shape"), std::string::npos);
  const json zarray = {{"zarr_format", 2}, {"shape", {1ull << 61}}, {"chunks", {1}}, {"dtype", "<f8"},
                       {"compressor", nullptr}, {"filters", nullptr}, {"fill_value", 0}, {"order", "C"}};
  EXPECT_NE(field_error([&] { parse_zarray(zarray, json::object(), "x"); }).find("'shape'"), std::string::npos);
}

TEST(Hostile, HugeArraysWithinTheLimitsReadMissingChunksWithoutAllocatingThem) {
  auto m = metadata({1ull << 61}, {1ull << 40}, DataType::uint8);
  m.fill_value = FillValue::of(std::uint8_t(9));
  Array a = Array::create(make_memory_store(), "a", m);
  Bytes got = a.read(Selection({DimSelection::slice((1ll << 60), (1ll << 60) + 4)}));
  ASSERT_EQ(got.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(std::to_integer<int>(got.data()[i]), 9);
}

TEST(Hostile, SelectionsWhoseBytesOverflowAreInvalidArguments) {
  const auto m = metadata({1ull << 31, 1ull << 31}, {1ull << 20, 1ull << 20}, DataType::uint8);
  // The planner is where a selection's size is computed; integer-list
  // selections may repeat positions, so only the planner can bound it.
  std::vector<DimRange> ranges = {{0, 1, 1ull << 31, true}, {0, 1, 1ull << 31, true}};
  EXPECT_NO_THROW(engine::Plan(m, "a", ranges));
  const auto f = metadata({1ull << 31, 1ull << 31}, {1ull << 20, 1ull << 20}, DataType::float64);
  try {
    engine::Plan(f, "a", ranges);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("2^63"), std::string::npos);
  }
}

TEST(Hostile, ShardIndexIsNotBuiltAtOpenAndIsBoundedByTheShardFile) {
  // 2^31 inner chunks: a 32 GiB index by the metadata.
  auto store = make_memory_store();
  auto m = metadata({1ull << 31}, {1ull << 31}, DataType::uint8, codec_chain("shard", {1}));
  const auto t0 = std::chrono::steady_clock::now();
  Array a = Array::create(store, "a", m);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  const std::string tiny(100, '\0');
  store->write("a/c/0", std::as_bytes(std::span(tiny.data(), tiny.size())));
  try {
    a.read(Selection({DimSelection::slice(0, 1)}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::corrupt_data);
    EXPECT_EQ(e.context().chunk_key, "a/c/0");
    EXPECT_EQ(e.context().codec, "sharding_indexed");
  }
  // Shards [128, 2^32] of inner chunks [64, 64] open at once too.
  const auto t1 = std::chrono::steady_clock::now();
  Array::create(make_memory_store(), "b",
                metadata({128, 1ull << 32}, {128, 1ull << 32}, DataType::uint8, codec_chain("shard", {64, 64})));
  EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::seconds(2));
}

// A zstd frame of RLE blocks: 4 bytes for each 128 KiB of zeros, no content size.
std::string zstd_rle_frame(std::uint64_t blocks) {
  std::string f = {'\x28', '\xb5', '\x2f', '\xfd', '\x00', '\x38'};
  for (std::uint64_t i = 0; i < blocks; ++i) {
    const std::uint32_t h = (i + 1 == blocks ? 1u : 0u) | (1u << 1) | ((128u << 10) << 3);
    f += {char(h & 0xff), char((h >> 8) & 0xff), char((h >> 16) & 0xff), '\0'};
  }
  return f;
}

TEST(Hostile, OuterCompressorDecodesNoMoreThanTheInnerOneCouldHaveMade) {
  // [bytes, zstd, zstd]: the outer frame claims 4 GiB of zeros; what the inner
  // zstd could make of a 1 KiB chunk bounds it to about 66 KiB.
  auto store = make_memory_store();
  auto codecs = codec_chain("zstd", {});
  codecs.push_back(codecs.back());
  Array a = Array::create(store, "a", metadata({1024}, {1024}, DataType::uint8, codecs));
  const std::string bomb = zstd_rle_frame(32768);
  store->write("a/c/0", std::as_bytes(std::span(bomb.data(), bomb.size())));
  try {
    a.read(Selection({DimSelection::slice(0, 1)}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::corrupt_data);
    EXPECT_EQ(e.context().codec, "zstd");
    EXPECT_EQ(e.context().chunk_key, "a/c/0");
    EXPECT_NE(std::string(e.what()).find("metadata allows"), std::string::npos) << e.what();
  }
}

// Chunks declared larger than the process can hold: [32, 2^32 - 1] of float64
// is 1 TiB (mutation fuzzing found it), [2^20, 2^27] 1 PiB (beyond any machine).
// Decoding or encoding one needs its whole buffer: refused before it is
// allocated, as resource_exhausted naming store, array and chunk; under ASan a
// failed 1 TiB allocation would abort, in Release it was a bare std::bad_alloc.
ErrorContext expect_resource_exhausted(const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource_exhausted) << e.what();
    EXPECT_NE(std::string(e.what()).find("memory limit"), std::string::npos) << e.what();
    return e.context();
  }
  return {};
}

// Sets Config::memory_limit for a test's lifetime.
class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(std::uint64_t bytes) {
    Config c = saved_;
    c.memory_limit = bytes;
    set_config(c);
  }
  ~ScopedMemoryLimit() { set_config(saved_); }

 private:
  Config saved_ = config();
};

TEST(Hostile, ChunksLargerThanMemoryAreResourceExhaustedBeforeTheyAreAllocated) {
  for (const auto& [shape, chunks] :
       {std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>>{{64, 4294967295}, {32, 4294967295}},
        {{1ull << 21, 1ull << 27}, {1ull << 20, 1ull << 27}}}) {
    const bool tib = chunks[0] == 32;
    // The 1 TiB chunk fits some machines' memory: a limit keeps the test from allocating it.
    ScopedMemoryLimit limit(tib ? std::uint64_t(1) << 30 : 0);
    auto store = make_memory_store();
    Array a = Array::create(store, "a", metadata(shape, chunks, DataType::float64, codec_chain("zstd", {})));
    const std::string frame = zstd_rle_frame(1);
    store->write("a/c/0/0", std::as_bytes(std::span(frame.data(), frame.size())));
    const ErrorContext read = expect_resource_exhausted([&] {
      a.read(Selection({DimSelection::slice(0, 1), DimSelection::slice(0, 4)}));
    });
    EXPECT_EQ(read.chunk_key, "a/c/0/0");
    EXPECT_EQ(read.array, "a");
    EXPECT_EQ(read.store, store->describe());
    // A missing chunk reads as its fill value, with nothing decoded.
    const auto row = std::int64_t(chunks[0]) + 8;  // in chunk [1, 0], not stored
    EXPECT_EQ(a.read(Selection({DimSelection::slice(row, row + 1), DimSelection::slice(0, 4)})).size(), 32u);
    // Writing into a chunk encodes the whole chunk.
    const std::vector<double> four(4, 1.0);
    const ErrorContext write = expect_resource_exhausted([&] {
      a.write(Selection({DimSelection::slice(row, row + 1), DimSelection::slice(0, 4)}), std::as_bytes(std::span(four)));
    });
    EXPECT_EQ(write.chunk_key, "a/c/1/0");
  }
}

TEST(Hostile, ASelectionLargerThanTheMemoryLimitIsResourceExhaustedNamingTheArray) {
  ScopedMemoryLimit limit(1 << 20);
  auto store = make_memory_store();
  Array a = Array::create(store, "a", metadata({1 << 22}, {1 << 10}, DataType::uint8));
  EXPECT_EQ(a.read(Selection({DimSelection::slice(0, 1 << 20)})).size(), 1u << 20);
  const ErrorContext c = expect_resource_exhausted([&] { a.read(Selection({DimSelection::slice(0, (1 << 20) + 1)})); });
  EXPECT_EQ(c.array, "a");
  EXPECT_EQ(c.store, store->describe());
}

class HostileLocalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zarrgpu_hostile_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "store");
    fs::create_directories(dir_ / "outside");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::shared_ptr<Store> store() { return open_local_store((dir_ / "store").string()); }
  fs::path dir_;
};

void expect_io_error_naming(const std::function<void()>& f, const std::string& what) {
  try {
    f();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST_F(HostileLocalTest, SpecialFilesAreRefusedNotWaitedOn) {
  // A FIFO would block open() for reading until a writer came: forever.
  ASSERT_EQ(::mkfifo((dir_ / "store" / "zarr.json").c_str(), 0644), 0);
  expect_io_error_naming([&] { Array::open(store(), ""); }, "FIFO");
  fs::remove(dir_ / "store" / "zarr.json");
  Array a = Array::create(store(), "", metadata({8}, {8}, DataType::uint8));
  fs::create_directories(dir_ / "store" / "c");
  ASSERT_EQ(::mkfifo((dir_ / "store" / "c" / "0").c_str(), 0644), 0);
  expect_io_error_naming([&] { a.read(Selection()); }, "FIFO");
  fs::remove(dir_ / "store" / "c" / "0");
  fs::create_symlink("/dev/zero", dir_ / "store" / "c" / "0");
  expect_io_error_naming([&] { a.read(Selection()); }, "character device");
  fs::remove(dir_ / "store" / "c" / "0");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = (dir_ / "store" / "c" / "0").string();
  ASSERT_LT(path.size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(s);
  expect_io_error_naming([&] { a.read(Selection()); }, "socket");
}

TEST_F(HostileLocalTest, WritesDoNotFollowSymlinksOutOfTheStore) {
  Array a = Array::create(store(), "arr", metadata({8}, {4}, DataType::uint8));
  fs::create_directory_symlink(dir_ / "outside", dir_ / "store" / "arr" / "c");
  const std::vector<std::uint8_t> data = {1, 2, 3, 4, 5, 6, 7, 8};
  expect_io_error_naming([&] { a.write(Selection(), std::as_bytes(std::span(data))); }, "symbolic link");
  EXPECT_TRUE(fs::is_empty(dir_ / "outside"));
}

TEST_F(HostileLocalTest, OverwriteDoesNotDeleteThroughASymlinkedArrayDirectory) {
  std::ofstream(dir_ / "outside" / "precious.txt") << "not zarr";
  std::ofstream(dir_ / "outside" / "zarr.json") << "{}";
  fs::create_directory_symlink(dir_ / "outside", dir_ / "store" / "arr");
  expect_io_error_naming([&] { Array::create(store(), "arr", metadata({4}, {4}, DataType::uint8), true); },
                         "symbolic link");
  EXPECT_TRUE(fs::exists(dir_ / "outside" / "precious.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "outside" / "zarr.json"));
}

TEST_F(HostileLocalTest, StaleTemporariesOfDeadWritersAreRemovedByTheNextWrite) {
  Array a = Array::create(store(), "", metadata({8}, {8}, DataType::uint8));
  fs::create_directories(dir_ / "store" / "c");
  // A process id that no process has: the writer died before its rename.
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  int status = 0;
  ::waitpid(dead, &status, 0);
  const fs::path stale = dir_ / "store" / "c" / (".0.zarrgpu-tmp." + std::to_string(dead) + ".0");
  const fs::path live = dir_ / "store" / "c" / (".0.zarrgpu-tmp." + std::to_string(::getpid()) + ".999");
  std::ofstream(stale) << "half";
  std::ofstream(live) << "in progress";
  const std::vector<std::uint8_t> data(8, 1);
  a.write(Selection(), std::as_bytes(std::span(data)));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
}

TEST_F(HostileLocalTest, ShardShorterThanItsIndexIsCorruptData) {
  Array a = Array::create(store(), "", metadata({64}, {16}, DataType::uint8, codec_chain("shard", {4})));
  fs::create_directories(dir_ / "store" / "c");
  std::ofstream(dir_ / "store" / "c" / "0") << "abc";
  try {
    a.read(Selection());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
    EXPECT_EQ(e.context().codec, "sharding_indexed");
    EXPECT_EQ(e.context().chunk_key, "c/0");
  }
}

TEST_F(HostileLocalTest, ReadersSeeOneVersionOfAShardBeingReplaced) {
  auto s = store();
  Array a = Array::create(s, "", metadata({4096}, {4096}, DataType::int32, codec_chain("shard", {64})));
  std::vector<std::int32_t> v1(4096, 1), v2(4096);
  for (int i = 0; i < 4096; ++i) v2[i] = 2 + i;
  a.write(Selection(), std::as_bytes(std::span(v1)));
  const Bytes shard1 = *s->get("c/0");
  a.write(Selection(), std::as_bytes(std::span(v2)));
  const Bytes shard2 = *s->get("c/0");
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    // Another writer replacing the whole shard file, as a second process would.
    auto w = open_local_store((dir_ / "store").string());
    for (int i = 0; !stop; ++i) w->write("c/0", (i % 2 ? shard1 : shard2).span());
  });
  int mixed = 0;
  for (int r = 0; r < 300; ++r) {
    Bytes got = a.read(Selection());
    const auto* p = reinterpret_cast<const std::int32_t*>(got.data());
    const bool is1 = std::equal(p, p + 4096, v1.begin()), is2 = std::equal(p, p + 4096, v2.begin());
    mixed += !(is1 || is2);
  }
  stop = true;
  writer.join();
  EXPECT_EQ(mixed, 0);
}

}  // namespace
}  // namespace zarrgpu
