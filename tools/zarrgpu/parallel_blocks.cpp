#include "parallel_blocks.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "staged_directory.hpp"

namespace zarrgpu::cli {

void for_each_block(std::uint64_t count, unsigned workers, const std::function<void(std::uint64_t)>& fn) {
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex mu;
  auto work = [&] {
    for (;;) {
      if (stop.load() ) return;
      if (cancelled()) { stop = true; return; }
      std::uint64_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lk(mu);
        if (!error) error = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  if (workers <= 1 || count <= 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers && w < count; ++w) threads.emplace_back(work);
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  if (cancelled()) throw Interrupted();
}

}  // namespace zarrgpu::cli
