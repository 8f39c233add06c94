#include "progress.hpp"

#include <algorithm>
#include <unistd.h>

#include "byte_size.hpp"

namespace zarrgpu::cli {

std::string format_progress(std::uint64_t done, std::uint64_t total, double elapsed_s, int width) {
  double frac = total ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 1.0;
  int filled = static_cast<int>(frac * width);
  std::string s = "[";
  s.append(static_cast<std::size_t>(filled), '#');
  s.append(static_cast<std::size_t>(width - filled), '.');
  s += "] ";
  char pct[16];
  std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(frac * 100));
  s += pct;
  s += "  " + format_bytes(static_cast<double>(done)) + " / " + format_bytes(static_cast<double>(total));
  double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  s += "  " + (rate > 0 ? format_bytes(rate) + "/s" : std::string("-- B/s"));
  double eta = rate > 0 ? static_cast<double>(total - std::min(done, total)) / rate : -1;
  s += "  ETA " + format_duration(eta);
  return s;
}

Progress::Mode Progress::mode_for(std::FILE* out, bool quiet) {
  if (quiet) return Mode::off;
  return ::isatty(::fileno(out)) ? Mode::bar : Mode::lines;
}

Progress::Progress(std::string label, std::uint64_t total, Mode mode, std::FILE* out,
                   std::chrono::milliseconds line_period)
    : label_(std::move(label)), total_(total), mode_(mode), out_(out),
      period_(mode == Mode::bar ? std::chrono::milliseconds(100) : line_period),
      start_(std::chrono::steady_clock::now()) {
  if (mode_ != Mode::off) thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() { finish(); }

void Progress::loop() {
  std::unique_lock lk(mu_);
  while (!stop_) {
    if (cv_.wait_for(lk, period_, [this] { return stop_; })) break;
    draw(false);
  }
}

void Progress::draw(bool final_line) {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = label_ + " " + format_progress(done(), total_, elapsed);
  if (mode_ == Mode::bar) {
    std::fprintf(out_, "\r%s\033[K%s", line.c_str(), final_line ? "\n" : "");
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

void Progress::finish(bool ok) {
  {
    std::lock_guard lk(mu_);
    if (finished_) return;
    finished_ = true;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (mode_ == Mode::off) return;
  if (ok) draw(true);
  else if (mode_ == Mode::bar) { std::fprintf(out_, "\n"); std::fflush(out_); }
}

}  // namespace zarrgpu::cli
