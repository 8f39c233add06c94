#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "engine/thread_pool.hpp"

namespace zarrgpu::engine {
namespace {

TEST(ThreadPool, RunsEveryIndexOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  pool.parallel_for(hits.size(), [&](std::size_t i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPool, PropagatesTheFirstErrorAfterAllTasksFinish) {
  ThreadPool pool(4);
  std::atomic<int> running{0}, max_after{0};
  EXPECT_THROW(pool.parallel_for(200, [&](std::size_t i) {
    running++;
    if (i == 3) { running--; throw std::runtime_error("boom"); }
    running--;
  }), std::runtime_error);
  // No task is still running once parallel_for has returned.
  max_after = running.load();
  EXPECT_EQ(max_after.load(), 0);
}

TEST(ThreadPool, NestedCallsDoNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> n{0};
  pool.parallel_for(8, [&](std::size_t) { pool.parallel_for(8, [&](std::size_t) { n++; }); });
  EXPECT_EQ(n.load(), 64);
}

TEST(ThreadPool, LimitsParallelism) {
  ThreadPool pool(8);
  std::atomic<int> cur{0}, peak{0};
  pool.parallel_for(64, [&](std::size_t) {
    const int c = ++cur;
    int p = peak.load();
    while (c > p && !peak.compare_exchange_weak(p, c)) {}
    for (volatile int k = 0; k < 10000; ++k) {}
    --cur;
  }, 2);
  EXPECT_LE(peak.load(), 2);
}

}  // namespace
}  // namespace zarrgpu::engine
