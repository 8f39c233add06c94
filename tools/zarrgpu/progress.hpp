// A progress report for long commands (convert, generate): a bar redrawn in
// place at most ~10 times a second on a terminal; a plain line every few
// seconds when stderr is not a terminal; nothing with --quiet.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace zarrgpu::cli {

// One rendering: "[#######.......]  48%  1.20 GiB / 2.50 GiB  310 MiB/s  ETA 0:04".
// `width`: the bar's characters. Pure, for tests.
std::string format_progress(std::uint64_t done, std::uint64_t total, double elapsed_s, int width = 30);

class Progress {
 public:
  enum class Mode { bar, lines, off };
  // Mode for `out`: bar when it is a terminal, lines otherwise, off when quiet.
  static Mode mode_for(std::FILE* out, bool quiet);

  Progress(std::string label, std::uint64_t total, Mode mode, std::FILE* out = stderr,
           std::chrono::milliseconds line_period = std::chrono::seconds(5));
  ~Progress();  // finish()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(std::uint64_t bytes) noexcept { done_.fetch_add(bytes, std::memory_order_relaxed); }
  std::uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }
  // Stops the redraw thread and prints the final state once (ok = false: no final line).
  void finish(bool ok = true);

 private:
  void loop();
  void draw(bool final_line);

  std::string label_;
  std::uint64_t total_;
  Mode mode_;
  std::FILE* out_;
  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<std::uint64_t> done_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace zarrgpu::cli
