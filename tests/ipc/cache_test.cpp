// The cache's accounting: LRU eviction within the budget, leases that pin
// entries, named arrays, a failed make returning its reservation, and one
// make for concurrent requests of the same key, and requests that wait for
// another connection's release rather than being refused a full budget.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "ipc/cache.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {

CacheEntry host_entry(std::uint64_t bytes) {
  CacheEntry e;
  e.memory = SharedMemory::create_host(bytes);
  e.descriptor = e.memory.describe(DataType::uint8, {bytes});
  return e;
}

// Long enough for nothing: the tests of a full budget that others hold.
constexpr std::chrono::milliseconds kShortWait{20};

// Whether `n` requests are waiting for the budget within a minute (a loaded
// machine may be slow to start a thread; a fixed sleep would race it).
bool wait_for_waiters(const Cache& c, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (c.stats().waiting < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind::internal;
}

TEST(IpcCache, EvictsLeastRecentlyUsedUnleasedEntries) {
  Cache c(300, "t", kShortWait);
  auto make = [] { return host_entry(100); };
  Lease a = c.lease_or_make("a", 100, 1, make);
  Lease b = c.lease_or_make("b", 100, 1, make);
  Lease d = c.lease_or_make("c", 100, 1, make);
  c.release(b.id, 1);
  c.release(d.id, 1);
  EXPECT_TRUE(c.lease_or_make("c", 100, 1, make).hit);  // c used after b
  c.release_connection(1);
  Lease pinned = c.lease_or_make("a", 100, 2, make);
  EXPECT_TRUE(pinned.hit);
  c.lease_or_make("d", 100, 2, make);  // evicts b (least recent, unleased)
  EXPECT_EQ(c.stats().evictions, 1u);
  EXPECT_TRUE(c.lease_existing("c", 3).entry);
  EXPECT_FALSE(c.lease_existing("b", 3).entry);
  EXPECT_TRUE(c.lease_existing("a", 3).entry);
  // Everything leased now: no room.
  EXPECT_EQ(kind_of([&] { c.lease_or_make("e", 100, 2, make); }), ErrorKind::device);
  EXPECT_EQ(kind_of([&] { c.lease_or_make("f", 301, 2, make); }), ErrorKind::invalid_argument);
  c.release_connection(2);
  c.release_connection(3);
  EXPECT_EQ(c.stats().leases, 0u);
  EXPECT_LE(c.stats().bytes, 300u);
}

TEST(IpcCache, LeasedEntriesKeepTheirMemory) {
  Cache c(100, "t", kShortWait);
  Lease a = c.lease_or_make("a", 100, 1, [] { return host_entry(100); });
  static_cast<std::uint8_t*>(a.entry->memory.data())[0] = 42;
  EXPECT_EQ(kind_of([&] { c.lease_or_make("b", 100, 2, [] { return host_entry(100); }); }), ErrorKind::device);
  EXPECT_EQ(static_cast<std::uint8_t*>(a.entry->memory.data())[0], 42);
  EXPECT_EQ(kind_of([&] { c.release(a.id, 2); }), ErrorKind::not_found);  // another connection's lease
  c.release(a.id, 1);
  EXPECT_EQ(kind_of([&] { c.release(a.id, 1); }), ErrorKind::not_found);  // released once only
  EXPECT_FALSE(c.lease_or_make("b", 100, 2, [] { return host_entry(100); }).hit);
}

TEST(IpcCache, AFullBudgetWaitsForAnotherConnectionsRelease) {
  Cache c(100, "t", std::chrono::seconds(30));
  Lease a = c.lease_or_make("a", 100, 1, [] { return host_entry(100); });
  // Connection 1 releases only once connection 2 is seen waiting: the request
  // cannot have been served before the release, however the threads are scheduled.
  std::atomic<bool> released{false};
  std::thread releaser([&] {
    ASSERT_TRUE(wait_for_waiters(c, 1));
    released = true;
    c.release(a.id, 1);
  });
  const auto t0 = std::chrono::steady_clock::now();
  Lease b = c.lease_or_make("b", 100, 2, [] { return host_entry(100); });  // waits, then evicts a
  const auto waited = std::chrono::steady_clock::now() - t0;
  releaser.join();
  EXPECT_TRUE(released.load());
  EXPECT_FALSE(b.hit);
  EXPECT_LT(waited, std::chrono::seconds(20));
  EXPECT_EQ(c.stats().evictions, 1u);
  EXPECT_EQ(c.stats().waiting, 0u);
}

TEST(IpcCache, WaitersHoldingLeasesDoNotWaitOnEachOther) {
  Cache c(200, "t", std::chrono::seconds(30));
  Lease a = c.lease_or_make("a", 100, 1, [] { return host_entry(100); });
  Lease b = c.lease_or_make("b", 100, 2, [] { return host_entry(100); });
  std::atomic<bool> first_served{false};
  std::thread first([&] {  // connection 1 waits: connection 2 may release
    c.lease_or_make("c", 100, 1, [] { return host_entry(100); });
    first_served = true;
  });
  ASSERT_TRUE(wait_for_waiters(c, 1));
  // Connection 1 waits and holds a lease: none but connection 2 could free
  // room, so connection 2 is refused at once, not after the 30 s.
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(kind_of([&] { c.lease_or_make("d", 100, 2, [] { return host_entry(100); }); }), ErrorKind::device);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_FALSE(first_served.load());
  c.release_connection(2);  // connection 2 gives up its lease: connection 1 goes on
  first.join();
  EXPECT_TRUE(first_served.load());
}

TEST(IpcCache, FailedMakeReturnsItsReservation) {
  Cache c(100, "t");
  EXPECT_EQ(kind_of([&] { c.lease_or_make("a", 100, 1, []() -> CacheEntry { throw Error(ErrorKind::io, "store failed"); }); }),
            ErrorKind::io);
  EXPECT_EQ(c.stats().bytes, 0u);
  EXPECT_EQ(c.stats().entries, 0u);
  EXPECT_FALSE(c.lease_or_make("a", 100, 1, [] { return host_entry(100); }).hit);
}

TEST(IpcCache, ConcurrentMissesMakeOnce) {
  Cache c(1000, "t");
  std::atomic<int> makes{0};
  std::vector<std::thread> threads;
  std::atomic<int> hits{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      Lease l = c.lease_or_make("k", 100, std::uint64_t(i), [&] {
        ++makes;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return host_entry(100);
      });
      hits += l.hit;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(makes.load(), 1);
  EXPECT_EQ(hits.load(), 7);
  EXPECT_EQ(c.stats().leases, 8u);
}

TEST(IpcCache, NamedEntriesArePrivateUntilPublishedAndNeverEvicted) {
  Cache c(200, "t");
  Lease w = c.create_named("name\nn", 100, 1, [] { return host_entry(100); });
  EXPECT_FALSE(c.lease_existing("name\nn", 2).entry);
  EXPECT_EQ(kind_of([&] { c.publish("name\nn", 2); }), ErrorKind::invalid_argument);
  EXPECT_EQ(kind_of([&] { c.create_named("name\nn", 1, 2, [] { return host_entry(1); }); }), ErrorKind::invalid_argument);
  c.publish("name\nn", 1);
  Lease r = c.lease_existing("name\nn", 2);
  ASSERT_TRUE(r.entry);
  c.release_connection(1);
  c.release_connection(2);
  c.lease_or_make("x", 100, 3, [] { return host_entry(100); });
  c.release_connection(3);
  EXPECT_EQ(kind_of([&] { c.lease_or_make("y", 150, 3, [] { return host_entry(150); }); }), ErrorKind::device);  // named stays
  EXPECT_TRUE(c.lease_existing("name\nn", 4).entry);
  EXPECT_EQ(kind_of([&] { c.remove_named("name\nn"); }), ErrorKind::invalid_argument);
  c.release_connection(4);
  c.remove_named("name\nn");
  EXPECT_EQ(kind_of([&] { c.remove_named("name\nn"); }), ErrorKind::not_found);
}

}  // namespace
}  // namespace zarrgpu::ipc
