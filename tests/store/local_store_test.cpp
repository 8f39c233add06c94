#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }
std::string str(const Bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("zarrgpu_store_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) {
      // Make sure a read-only directory from a test does not block cleanup.
      std::error_code ec;
      fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
      fs::remove_all(dir_, ec);
    }
  }
  fs::path dir_;
};

TEST_F(LocalStoreTest, OpenMissingDirectoryIsNotFoundUnlessCreated) {
  try {
    open_local_store(dir_.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
    EXPECT_NE(std::string(e.what()).find(dir_.string()), std::string::npos);
  }
  auto s = open_local_store(dir_.string(), true);
  EXPECT_EQ(s->describe(), "file://" + dir_.string());
  EXPECT_EQ(open_store("file://" + dir_.string())->describe(), s->describe());
  EXPECT_EQ(open_store(dir_.string() + "/")->describe(), s->describe());
}

TEST_F(LocalStoreTest, WritesCreateParentsAndReadRanges) {
  auto s = open_local_store(dir_.string(), true);
  s->write("g/a/c/0/1", bytes_of("0123456789"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "g/a/c/0/1"));
  EXPECT_EQ(str(*s->get("g/a/c/0/1")), "0123456789");
  EXPECT_EQ(str(*s->get("g/a/c/0/1", ByteRange::of(3, 4))), "3456");
  EXPECT_EQ(str(*s->get("g/a/c/0/1", ByteRange::suffix(3))), "789");
  EXPECT_EQ(str(*s->get("g/a/c/0/1", ByteRange::of(10, 0))), "");
  EXPECT_FALSE(s->get("g/a/c/0/2").has_value());
  EXPECT_FALSE(s->get("g/a/c/0/1/x").has_value());  // a file where a directory would be
  EXPECT_FALSE(s->get("g/a").has_value());          // a directory is no value
  EXPECT_EQ(s->size("g/a/c/0/1"), 10u);
  EXPECT_TRUE(s->exists("g/a/c/0/1"));
  EXPECT_FALSE(s->exists("g/a"));
}

TEST_F(LocalStoreTest, RangePastTheEndIsAnIoErrorNamingKeyAndStore) {
  auto s = open_local_store(dir_.string(), true);
  s->write("k", bytes_of("abc"));
  for (auto r : {ByteRange::of(1, 3), ByteRange::of(5, ByteRange::npos), ByteRange::suffix(4)}) {
    try {
      s->get("k", r);
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::io);
      EXPECT_EQ(e.context().chunk_key, "k");
      EXPECT_EQ(e.context().store, s->describe());
    }
  }
}

TEST_F(LocalStoreTest, AtomicWriteLeavesNoTemporaryFiles) {
  auto s = open_local_store(dir_.string(), true);
  s->write("a/k", bytes_of("old"));
  s->write("a/k", bytes_of("new value"));
  EXPECT_EQ(str(*s->get("a/k")), "new value");
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir_ / "a")) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"k"});
}

TEST_F(LocalStoreTest, FailedWriteKeepsTheOldValue) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  auto s = open_local_store(dir_.string(), true);
  s->write("a/k", bytes_of("old"));
  fs::permissions(dir_ / "a", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(s->write("a/k", bytes_of("new")), Error);
  fs::permissions(dir_ / "a", fs::perms::owner_all);
  EXPECT_EQ(str(*s->get("a/k")), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "a"), fs::directory_iterator()), 1);
}

TEST_F(LocalStoreTest, FailedWriteOverADirectoryLeavesNoTemporary) {
  auto s = open_local_store(dir_.string(), true);
  s->write("a/b/c", bytes_of("x"));
  try {
    s->write("a/b", bytes_of("y"));  // "a/b" is a directory: rename fails
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_EQ(e.context().chunk_key, "a/b");
  }
  EXPECT_EQ(s->list(""), std::vector<std::string>{"a/b/c"});
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "a"), fs::directory_iterator()), 1);
}

TEST_F(LocalStoreTest, ParallelBatchedReadsIntoDestinations) {
  auto s = open_local_store(dir_.string(), true);
  constexpr int n = 300;
  std::mt19937 rng(7);
  std::vector<std::string> values(n);
  for (int i = 0; i < n; ++i) {
    values[i].resize(1 + rng() % 5000);
    for (auto& c : values[i]) c = char(rng());
    s->write("c/" + std::to_string(i), bytes_of(values[i]));
  }
  std::vector<std::vector<std::byte>> dest(n);
  std::vector<ReadInto> reqs;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t off = values[i].size() / 3;
    if (i % 3 == 0) {
      dest[i].resize(values[i].size() - off);
      reqs.push_back({{"c/" + std::to_string(i), ByteRange::of(off, dest[i].size())}, std::span(dest[i])});
    } else if (i % 3 == 1) {
      reqs.push_back({{"c/" + std::to_string(i), ByteRange::suffix(values[i].size() - off)}, {}});
    } else {
      reqs.push_back({{"c/" + std::to_string(i + n), {}}, {}});  // missing
    }
  }
  auto res = s->read(reqs);
  ASSERT_EQ(res.size(), std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const std::uint64_t off = values[i].size() / 3;
    if (i % 3 == 2) { EXPECT_FALSE(res[i].found); continue; }
    ASSERT_TRUE(res[i].found);
    EXPECT_EQ(res[i].size, values[i].size() - off);
    const std::byte* got = i % 3 == 0 ? dest[i].data() : res[i].data.data();
    EXPECT_EQ(std::memcmp(got, values[i].data() + off, values[i].size() - off), 0) << i;
  }
}

TEST_F(LocalStoreTest, ListAndErase) {
  auto s = open_local_store(dir_.string(), true);
  for (auto k : {"zarr.json", "a/zarr.json", "a/c/0/0", "ab/zarr.json"}) s->write(k, bytes_of("x"));
  EXPECT_EQ(s->list("a"), (std::vector<std::string>{"a/c/0/0", "a/zarr.json"}));
  EXPECT_EQ(s->list("a/"), (std::vector<std::string>{"a/c/0/0", "a/zarr.json"}));
  EXPECT_EQ(s->list("").size(), 4u);
  EXPECT_TRUE(s->list("missing").empty());
  s->erase("a/c/0/0");
  s->erase("a/c/0/0");  // erasing a missing key is fine
  EXPECT_EQ(s->list("a"), (std::vector<std::string>{"a/zarr.json"}));
}

TEST_F(LocalStoreTest, RejectsKeysEscapingTheRoot) {
  auto s = open_local_store(dir_.string(), true);
  EXPECT_THROW(s->write("../escape", bytes_of("x")), Error);
  EXPECT_THROW(s->get("/etc/passwd"), Error);
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escape"));
}

}  // namespace
}  // namespace zarrgpu

namespace zarrgpu {
namespace {

TEST_F(LocalStoreTest, ListDirIsOneLevelAndHidesTemporaryFiles) {
  auto s = open_local_store(dir_.string(), true);
  for (const char* k : {"zarr.json", "a/zarr.json", "a/c/0/0", "b/x/zarr.json"}) s->write(k, bytes_of("x"));
  std::ofstream(dir_ / "a" / ".zarr.json.zarrgpu-tmp.1.2") << "partial";
  EXPECT_EQ(s->list_dir(""), (std::vector<std::string>{"a/", "b/", "zarr.json"}));
  EXPECT_EQ(s->list_dir("a/"), (std::vector<std::string>{"c/", "zarr.json"}));
  EXPECT_TRUE(s->list_dir("missing").empty());
}

}  // namespace
}  // namespace zarrgpu
