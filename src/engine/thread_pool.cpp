#include "engine/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zarrgpu/config.hpp"

namespace zarrgpu::engine {

namespace {

// One parallel_for call. Workers hold it by shared_ptr, so a worker that
// arrives after the last index was taken only touches the job's own atomics,
// never the caller's function or stack.
struct Job {
  const std::function<void(std::size_t)>* fn = nullptr;
  std::size_t n = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // guarded by m
  std::size_t done = 0;      // guarded by m
  std::mutex m;
  std::condition_variable cv;
  unsigned tickets = 0;  // helpers still allowed to join (guarded by the pool's mutex)

  void work() {
    std::size_t finished = 0;
    std::exception_ptr local;
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          (*fn)(i);
        } catch (...) {
          if (!local) local = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
      ++finished;
    }
    if (finished == 0) return;
    std::lock_guard lk(m);
    if (local && !error) error = local;
    done += finished;
    if (done == n) cv.notify_all();
  }
};

}  // namespace

struct ThreadPool::Impl {
  std::vector<std::thread> workers;
  std::deque<std::shared_ptr<Job>> queue;
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;

  void run() {
    while (true) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return stop || !queue.empty(); });
        if (stop && queue.empty()) return;
        job = queue.front();
        if (--job->tickets == 0) queue.pop_front();
      }
      job->work();
    }
  }
};

ThreadPool::ThreadPool(unsigned threads) : impl_(new Impl) {
  // The caller participates, so `threads` workers give threads + 1 at run time;
  // keep the total at `threads`.
  const unsigned workers = threads > 1 ? threads - 1 : 0;
  impl_->workers.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) impl_->workers.emplace_back([this] { impl_->run(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lk(impl_->m);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  for (auto& t : impl_->workers) t.join();
  delete impl_;
}

unsigned ThreadPool::size() const noexcept { return unsigned(impl_->workers.size()) + 1; }

void ThreadPool::parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned max_parallelism) {
  if (n == 0) return;
  unsigned helpers = unsigned(impl_->workers.size());
  if (max_parallelism > 0) helpers = std::min(helpers, max_parallelism - 1);
  helpers = unsigned(std::min<std::size_t>(helpers, n - 1));
  if (helpers == 0) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->n = n;
  job->tickets = helpers;
  {
    std::lock_guard lk(impl_->m);
    impl_->queue.push_back(job);
  }
  if (helpers == 1) impl_->cv.notify_one(); else impl_->cv.notify_all();
  job->work();
  std::unique_lock lk(job->m);
  job->cv.wait(lk, [&] { return job->done == job->n; });
  if (job->error) std::rethrow_exception(job->error);
}

namespace {
std::mutex g_shared_mutex;
unsigned g_default_threads = 0;
std::unique_ptr<ThreadPool> g_shared;
}  // namespace

ThreadPool& ThreadPool::shared() {
  std::lock_guard lk(g_shared_mutex);
  if (!g_shared) {
    unsigned n = g_default_threads;
    if (n == 0) n = config().threads;
    if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
    g_shared = std::make_unique<ThreadPool>(n);
  }
  return *g_shared;
}

void ThreadPool::set_default_threads(unsigned n) {
  std::lock_guard lk(g_shared_mutex);
  if (!g_shared) g_default_threads = n;
}

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned max_parallelism) {
  ThreadPool::shared().parallel_for(n, fn, max_parallelism);
}

}  // namespace zarrgpu::engine
