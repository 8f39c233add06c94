#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }
std::string str(const Bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

TEST(MemoryStore, ReadsRangesSuffixesAndMissingKeys) {
  auto s = make_memory_store();
  s->write("a/b", bytes_of("0123456789"));
  EXPECT_EQ(str(*s->get("a/b")), "0123456789");
  EXPECT_EQ(str(*s->get("a/b", ByteRange::of(2, 3))), "234");
  EXPECT_EQ(str(*s->get("a/b", ByteRange::suffix(4))), "6789");
  EXPECT_EQ(str(*s->get("a/b", ByteRange::of(10, 0))), "");
  EXPECT_EQ(str(*s->get("a/b", ByteRange::of(7, ByteRange::npos))), "789");
  EXPECT_FALSE(s->get("a/c").has_value());
  EXPECT_EQ(s->size("a/b"), 10u);
  EXPECT_FALSE(s->size("nope").has_value());
  EXPECT_TRUE(s->exists("a/b"));
  EXPECT_FALSE(s->exists("a"));
}

TEST(MemoryStore, RangePastTheEndIsAnIoErrorNamingTheKey) {
  auto s = make_memory_store();
  s->write("k", bytes_of("abc"));
  for (auto r : {ByteRange::of(2, 2), ByteRange::of(4, ByteRange::npos), ByteRange::suffix(4)}) {
    try {
      s->get("k", r);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::io);
      EXPECT_EQ(e.context().chunk_key, "k");
      EXPECT_EQ(e.context().store, "memory://");
    }
  }
}

TEST(MemoryStore, ReadsIntoDestination) {
  auto s = make_memory_store();
  s->write("k", bytes_of("hello world"));
  std::byte buf[5];
  std::vector<ReadInto> reqs{{{"k", ByteRange::of(6, 5)}, std::span(buf)}, {{"missing", ByteRange::of(0, 5)}, {}}};
  auto res = s->read(reqs);
  ASSERT_TRUE(res[0].found);
  EXPECT_TRUE(res[0].data.empty());
  EXPECT_EQ(res[0].size, 5u);
  EXPECT_EQ(std::memcmp(buf, "world", 5), 0);
  EXPECT_FALSE(res[1].found);
}

TEST(MemoryStore, ListsRecursivelyByPathComponentAndErases) {
  auto s = make_memory_store();
  for (auto k : {"a/zarr.json", "a/c/0", "ab/x", "b"}) s->write(k, bytes_of("x"));
  EXPECT_EQ(s->list("a"), (std::vector<std::string>{"a/c/0", "a/zarr.json"}));
  EXPECT_EQ(s->list("").size(), 4u);
  s->erase("a/c/0");
  s->erase("never-there");
  EXPECT_EQ(s->list("a"), (std::vector<std::string>{"a/zarr.json"}));
}

TEST(MemoryStore, RejectsBadKeys) {
  auto s = make_memory_store();
  for (auto k : {"", "/abs", "a//b", "a/../b", "./a"}) {
    EXPECT_THROW(s->write(k, bytes_of("x")), Error) << k;
  }
}

TEST(MemoryStore, ConcurrentWritersAndReaders) {
  auto s = make_memory_store();
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string v(100, char('a' + t));
        s->write("k" + std::to_string(i % 10), bytes_of(v));
        auto got = s->get("k" + std::to_string((i + 3) % 10));
        if (got) {
          ASSERT_EQ(got->size(), 100u);
          // Never a mix of two writers' bytes.
          ASSERT_EQ(str(*got), std::string(100, str(*got)[0]));
        }
      }
    });
  }
  for (auto& t : ts) t.join();
}

TEST(OpenStore, DispatchesOnScheme) {
  auto a = open_store("memory://shared-test");
  auto b = open_store("memory://shared-test");
  a->write("x", bytes_of("1"));
  EXPECT_TRUE(b->exists("x"));
  EXPECT_FALSE(open_store("memory://")->exists("x"));
  try {
    open_store("ftp://host/x");  // s3:// opens an S3 store (s3_store.cpp)
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
}

}  // namespace
}  // namespace zarrgpu
