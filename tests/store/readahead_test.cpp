// Read-ahead: store::hint (LocalStore's page-cache advice on a background
// thread, the no-op default), the window the read engine keeps, and the
// ZARRGPU_READAHEAD setting. A hint is advice: it must never fail, leak a
// descriptor, or change the bytes a read returns.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "store/page_cache_readahead.hpp"
#include "store/readahead_window.hpp"
#include "store/reusing_read.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;
using store::Advice;

std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

bool same(std::span<const std::byte> a, std::span<const std::byte> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

Bytes random_bytes(std::size_t n, unsigned seed) {
  Bytes b(n);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < n; ++i) b.data()[i] = std::byte(rng() & 0xff);
  return b;
}

// Drops a file from the page cache where the file system allows it. Returns
// whether its first and last pages are out of the cache afterwards (tmpfs
// keeps them).
bool evict(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) return false;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  const bool evicted = size > 0 && !store::page_cached(fd, 0) && !store::page_cached(fd, std::uint64_t(size - 1));
  ::close(fd);
  return evicted;
}

class Readahead : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zarrgpu_readahead_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    store_ = open_local_store(dir_.string(), true);
    big_ = random_bytes(3 << 20, 1);  // spans many advice segments
    store_->write("a/big", big_.span());
    store_->write("a/small", random_bytes(100, 2).span());
    store_->write("a/empty", {});
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::shared_ptr<Store> store_;
  Bytes big_;
};

TEST_F(Readahead, AdviceOnMissingFilesAndRangesPastTheEndIsHarmless) {
  const std::string big = (dir_ / "a/big").string();
  EXPECT_EQ(store::advise_file_range((dir_ / "nope").string(), ByteRange::all()), Advice::nothing);
  EXPECT_EQ(store::advise_file_range((dir_ / "a").string(), ByteRange::all()), Advice::nothing);  // a directory
  EXPECT_EQ(store::advise_file_range((dir_ / "a/empty").string(), ByteRange::all()), Advice::nothing);
  EXPECT_EQ(store::advise_file_range(big, ByteRange::of(big_.size(), 10)), Advice::nothing);
  EXPECT_EQ(store::advise_file_range(big, ByteRange::of(big_.size() + 5, 10)), Advice::nothing);
  EXPECT_EQ(store::advise_file_range(big, ByteRange::of(10, 0)), Advice::nothing);
  // Partly past the end, or a suffix longer than the file: what lies inside.
  EXPECT_NE(store::advise_file_range(big, ByteRange::of(big_.size() - 5, 1 << 30)), Advice::nothing);
  EXPECT_NE(store::advise_file_range(big, ByteRange::suffix(big_.size() * 2)), Advice::nothing);
  EXPECT_NE(store::advise_file_range(big, ByteRange::of(0, ByteRange::npos - 1)), Advice::nothing);
}

TEST_F(Readahead, CachedRangesAreSkippedAndEvictedOnesAdvised) {
  const fs::path big = dir_ / "a/big";
  ASSERT_TRUE(store_->get("a/big"));  // now in the page cache
  EXPECT_EQ(store::advise_file_range(big.string(), ByteRange::all()), Advice::cached);
  if (!evict(big)) GTEST_SKIP() << "this file system keeps the file in memory (tmpfs?)";
  EXPECT_EQ(store::advise_file_range(big.string(), ByteRange::all()), Advice::started);
  const auto got = store_->get("a/big");
  ASSERT_TRUE(got);
  EXPECT_TRUE(same(got->span(), big_.span()));
}

TEST_F(Readahead, LocalStoreHintsAnythingAndReadsGiveTheSameBytes) {
  evict(dir_ / "a/big");
  const std::vector<ReadRequest> hints = {
      {"a/big", ByteRange::all()},
      {"a/big", ByteRange::of(1000, 2 << 20)},
      {"a/big", ByteRange::of(std::uint64_t(big_.size()) + 1, 7)},  // past the end
      {"a/big", ByteRange::suffix(std::uint64_t(big_.size()) + 1)},  // longer than the value
      {"a/small", ByteRange::of(50, 500)},                           // runs past the end
      {"a/empty", ByteRange::all()},
      {"a/none", ByteRange::all()},  // missing
      {"a/big/x", ByteRange::all()},  // under a file
      {"../escape", ByteRange::all()},  // not a valid key: skipped
      {"", ByteRange::all()},
  };
  EXPECT_TRUE(store::hint(*store_, hints));
  store::wait_for_background_advice();
  Bytes buf;
  ASSERT_TRUE(store::read_reusing(*store_, {"a/big", ByteRange::all()}, buf));
  EXPECT_TRUE(same(buf.span(), big_.span()));
  ASSERT_TRUE(store::read_reusing(*store_, {"a/big", ByteRange::of(1000, 2 << 20)}, buf));
  EXPECT_TRUE(same(buf.span(), big_.span().subspan(1000, 2 << 20)));
  EXPECT_FALSE(store_->get("a/none"));
  // Reads report what hints ignored.
  EXPECT_THROW(store_->get("a/small", ByteRange::of(50, 500)), Error);
}

TEST_F(Readahead, HintsCloseEveryDescriptor) {
  std::vector<ReadRequest> hints;
  for (int i = 0; i < 64; ++i) {
    hints.push_back({"a/big", ByteRange::of(std::uint64_t(i) << 16, 1 << 16)});
    hints.push_back({"a/none" + std::to_string(i), ByteRange::all()});
    hints.push_back({"a/small", ByteRange::of(200, 1)});
  }
  store::hint(*store_, hints);  // starts the background thread, if it was not running
  store::wait_for_background_advice();
  const std::size_t before = open_descriptors();
  for (int k = 0; k < 4; ++k) store::hint(*store_, hints);
  store::wait_for_background_advice();
  EXPECT_EQ(open_descriptors(), before);
}

TEST(ReadaheadStores, MemoryStoreHasNoUseForHints) {
  auto s = make_memory_store();
  const ReadRequest r{"x", ByteRange::all()};
  EXPECT_FALSE(store::hint(*s, std::span(&r, 1)));
}

// A store that records hints (and answers nothing else).
class RecordingStore final : public Store, public store::Prefetcher {
 public:
  explicit RecordingStore(bool useful) : useful_(useful) {}
  std::vector<ReadResult> read(std::span<const ReadInto> r) override { return std::vector<ReadResult>(r.size()); }
  void write(std::string_view, std::span<const std::byte>) override {}
  void erase(std::string_view) override {}
  bool exists(std::string_view) override { return false; }
  std::vector<std::string> list(std::string_view) override { return {}; }
  std::optional<std::uint64_t> size(std::string_view) override { return std::nullopt; }
  std::string describe() const override { return "recording://"; }
  bool hint(std::span<const ReadRequest> requests) noexcept override {
    std::lock_guard lk(m_);
    ++calls_;
    hints_.insert(hints_.end(), requests.begin(), requests.end());
    return useful_;
  }
  std::vector<std::string> keys() {
    std::lock_guard lk(m_);
    std::vector<std::string> k;
    for (const auto& h : hints_) k.push_back(h.key);
    return k;
  }
  std::vector<ReadRequest> hints() {
    std::lock_guard lk(m_);
    return hints_;
  }
  int calls() {
    std::lock_guard lk(m_);
    return calls_;
  }

 private:
  bool useful_;
  std::mutex m_;
  std::vector<ReadRequest> hints_;
  int calls_ = 0;
};

store::ReadaheadWindow::RequestOf numbered() {
  return [](std::size_t i) -> std::optional<ReadRequest> { return ReadRequest{std::to_string(i), ByteRange::all()}; };
}

std::vector<std::string> names(std::size_t from, std::size_t to) {
  std::vector<std::string> v;
  for (std::size_t i = from; i < to; ++i) v.push_back(std::to_string(i));
  return v;
}

TEST(ReadaheadWindow, KeepsTheBudgetsWorthOfItemsHintedAheadOnce) {
  RecordingStore s(true);
  store::ReadaheadWindow w(s, 100, 10, numbered(), 50, 0);
  EXPECT_EQ(w.window(), 5u);
  w.reached(0);
  EXPECT_EQ(s.keys(), names(0, 5));
  for (std::size_t i : {1, 2, 3, 0}) w.reached(i);  // at least window / 2 ahead: nothing new
  EXPECT_EQ(s.keys(), names(0, 5));
  w.reached(4);  // refilled in one call
  EXPECT_EQ(s.keys(), names(0, 9));
  w.reached(40);
  EXPECT_EQ(s.keys(), names(0, 45));
  w.reached(99);
  w.reached(99);
  EXPECT_EQ(s.keys(), names(0, 100));
  EXPECT_EQ(s.calls(), 4);
}

TEST(ReadaheadWindow, WindowSizeFollowsTheBudget) {
  RecordingStore s(true);
  EXPECT_EQ(store::ReadaheadWindow(s, 10, 1000, numbered(), 0, 0).window(), 0u);   // off
  EXPECT_EQ(store::ReadaheadWindow(s, 10, 1000, numbered(), 10, 0).window(), 1u);  // items larger than the budget
  EXPECT_EQ(store::ReadaheadWindow(s, 10, 0, numbered(), 1 << 30, 0).window(), store::kMaxReadaheadItems);
  store::ReadaheadWindow off(s, 10, 1000, numbered(), 0, 0);
  off.reached(0);
  off.reached(5);
  EXPECT_EQ(s.calls(), 0);
  store::ReadaheadWindow big(s, 10, 1000, numbered(), 10, 0);
  big.reached(3);  // the item itself: its bytes in flight at once
  EXPECT_EQ(s.keys(), names(0, 4));
}

TEST(ReadaheadWindow, StopsWhenTheStoreHasNoUseForHints) {
  RecordingStore s(false);
  store::ReadaheadWindow w(s, 100, 10, numbered(), 50, 0);
  w.reached(0);
  w.reached(10);
  w.reached(50);
  EXPECT_EQ(s.calls(), 1);
}

TEST(ReadaheadWindow, SkipsItemsWithNothingToFetch) {
  RecordingStore s(true);
  store::ReadaheadWindow w(s, 10, 1, [](std::size_t i) -> std::optional<ReadRequest> {
    if (i % 2) return std::nullopt;
    return ReadRequest{std::to_string(i), ByteRange::all()};
  }, 1000, 0);
  w.reached(0);
  EXPECT_EQ(s.keys(), (std::vector<std::string>{"0", "2", "4", "6", "8"}));
}

TEST(ReadaheadWindow, SmallWholeValuesAreNotHintedAtAll) {
  RecordingStore s(true);
  int asked = 0;
  store::ReadaheadWindow w(s, 100, 1000, [&](std::size_t i) -> std::optional<ReadRequest> {
    ++asked;
    return ReadRequest{std::to_string(i), ByteRange::all()};
  }, 5000, 4096);
  for (std::size_t i = 0; i < 100; ++i) w.reached(i);
  EXPECT_EQ(s.calls(), 0);
  EXPECT_EQ(asked, 1);  // the first one tells for all
}

TEST(ReadaheadWindow, MergesNeighbouringRangesOfAKeyBeforeTheMinimum) {
  // Inner chunks of shards: 4 ranges of 300 bytes per shard; shard 2 has a gap
  // too wide to merge across.
  auto inner = [](std::size_t i) -> std::optional<ReadRequest> {
    const std::uint64_t shard = i / 4, k = i % 4;
    std::uint64_t offset = k * 300;
    if (shard == 2 && k >= 2) offset += store::kMergeGapBytes + 1000;
    return ReadRequest{"s" + std::to_string(shard), ByteRange::of(offset, 300)};
  };
  RecordingStore s(true);
  store::ReadaheadWindow w(s, 12, 300, inner, 1 << 20, 1000);
  w.reached(0);
  const auto h = s.hints();
  ASSERT_EQ(h.size(), 2u) << "shard 2's two pieces of 600 bytes fall below the minimum";
  EXPECT_EQ(h[0].key, "s0");
  EXPECT_EQ(h[0].range.offset, 0u);
  EXPECT_EQ(h[0].range.length, 1200u);
  EXPECT_EQ(h[1].key, "s1");
  EXPECT_EQ(h[1].range.length, 1200u);
}

// The device read pipeline hints its planned items through hint_requests().
TEST(HintRequests, MergesDropsSmallRangesAndReportsTheStoresAnswer) {
  RecordingStore s(true);
  std::vector<ReadRequest> r = {
      {"a", ByteRange::of(0, 600)},     // merged with the next: 1200 bytes
      {"a", ByteRange::of(600, 600)},
      {"b", ByteRange::of(0, 999)},     // alone, under the minimum
      {"c", ByteRange::all()},          // a whole value, counted as 5000 bytes
  };
  EXPECT_TRUE(store::hint_requests(s, r, 5000, 1000));
  const auto h = s.hints();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].key, "a");
  EXPECT_EQ(h[0].range.length, 1200u);
  EXPECT_EQ(h[1].key, "c");
  // Whole values estimated below the minimum are dropped; nothing left: no call.
  RecordingStore t(false);
  EXPECT_TRUE(store::hint_requests(t, {{"c", ByteRange::all()}}, 10, 1000));
  EXPECT_EQ(t.calls(), 0);
  // A store with no use for hints says so.
  EXPECT_FALSE(store::hint_requests(t, {{"d", ByteRange::of(0, 4000)}}, 0, 1000));
  EXPECT_EQ(t.calls(), 1);
}

TEST(ReadaheadWindow, ConcurrentReachesHintEachItemOnce) {
  RecordingStore s(true);
  const std::size_t n = 20000;
  store::ReadaheadWindow w(s, n, 1, numbered(), 7, 0);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) w.reached(i);
    });
  }
  for (auto& t : threads) t.join();
  auto keys = s.keys();
  EXPECT_EQ(keys.size(), n);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), n);
}

TEST(ReadaheadSetting, FollowsTheConfiguration) {
  const Config saved = config();
  Config c = saved;
  c.readahead_bytes = 1 << 20;
  set_config(c);
  EXPECT_EQ(store::readahead_bytes(), std::uint64_t(1) << 20);
  c.readahead_bytes = 0;
  set_config(c);
  EXPECT_EQ(store::readahead_bytes(), 0u);
  set_config(saved);
  EXPECT_EQ(Config{}.readahead_bytes, store::kDefaultReadaheadBytes);
}

}  // namespace
}  // namespace zarrgpu
