// store::read_reusing / read_whole_into: LocalStore's one-open path and the
// Store defaults over read() (MemoryStore) must agree.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "store/reusing_read.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }
std::string str(std::span<const std::byte> b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

class ReusingRead : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      dir_ = fs::temp_directory_path() / ("zarrgpu_reusing_read_" + std::to_string(::getpid()));
      fs::remove_all(dir_);
      store_ = open_local_store(dir_.string(), true);
    } else {
      store_ = make_memory_store();
    }
    store_->write("a/long", bytes_of("0123456789abcdef"));
    store_->write("a/short", bytes_of("xyz"));
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path dir_;
  std::shared_ptr<Store> store_;
};

TEST_P(ReusingRead, ReadsRangesIntoOneBufferOfChangingSize) {
  Bytes buf;
  ASSERT_TRUE(store::read_reusing(*store_, {"a/long", ByteRange::all()}, buf));
  EXPECT_EQ(str(buf.span()), "0123456789abcdef");
  ASSERT_TRUE(store::read_reusing(*store_, {"a/short", ByteRange::all()}, buf));
  EXPECT_EQ(str(buf.span()), "xyz");
  ASSERT_TRUE(store::read_reusing(*store_, {"a/long", ByteRange::of(4, 5)}, buf));
  EXPECT_EQ(str(buf.span()), "45678");
  ASSERT_TRUE(store::read_reusing(*store_, {"a/long", ByteRange::suffix(3)}, buf));
  EXPECT_EQ(str(buf.span()), "def");
  EXPECT_FALSE(store::read_reusing(*store_, {"a/none", ByteRange::all()}, buf));
  try {
    store::read_reusing(*store_, {"a/short", ByteRange::of(2, 5)}, buf);
    FAIL() << "a range past the end";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io) << e.what();
  }
}

TEST_P(ReusingRead, WholeValueLandsInDestinationOnlyAtItsExactSize) {
  std::string dest(16, '.');
  auto span = std::as_writable_bytes(std::span(dest.data(), dest.size()));
  EXPECT_EQ(store::read_whole_into(*store_, "a/long", span), 16u);
  EXPECT_EQ(dest, "0123456789abcdef");
  EXPECT_EQ(store::read_whole_into(*store_, "a/short", span), 3u);  // size differs: caller reads another way
  EXPECT_EQ(store::read_whole_into(*store_, "a/none", span), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(Stores, ReusingRead, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "local" : "memory"; });

}  // namespace
}  // namespace zarrgpu
