// One process-wide pool of worker threads (sized to the hardware by default)
// shared by the stores' batched reads and the engine's decode/encode work.
//
// parallel_for is the only entry point: it returns after every task has
// finished (no detached work can outlive the memory it touches) and rethrows
// the first exception. The calling thread works too, so a parallel_for issued
// from inside a task (a store read inside a decode task) cannot deadlock.
#pragma once

#include <cstddef>
#include <functional>

namespace zarrgpu::engine {

class ThreadPool {
 public:
  // The shared pool. Its size is hardware_concurrency unless set_default_threads
  // (or the environment variable ZARRGPU_THREADS) says otherwise before first use.
  static ThreadPool& shared();
  // Sets the shared pool's size; only before its first use (later calls are
  // ignored: replacing a pool under running work would be unsafe).
  static void set_default_threads(unsigned n);

  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const noexcept;  // worker threads (plus the caller at run time)

  // Runs fn(i) for i in [0, n), using at most `max_parallelism` threads
  // including the caller (0: all). Returns when all have run; rethrows the
  // first exception thrown (the remaining indices are skipped once one fails).
  void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned max_parallelism = 0);

 private:
  struct Impl;
  Impl* impl_;
};

// ThreadPool::shared().parallel_for(...).
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned max_parallelism = 0);

}  // namespace zarrgpu::engine
