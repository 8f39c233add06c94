#include "store/readahead_window.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace zarrgpu::store {

std::uint64_t readahead_bytes() { return config().readahead_bytes; }

ReadaheadWindow::ReadaheadWindow(Store& store, std::size_t n, std::uint64_t item_bytes, RequestOf request_of,
                                 std::uint64_t budget_bytes, std::uint64_t min_hint_bytes)
    : store_(store), n_(n), item_bytes_(item_bytes), min_hint_bytes_(min_hint_bytes),
      request_of_(std::move(request_of)) {
  if (budget_bytes == 0 || n == 0) {
    window_ = 0;
    off_ = true;
    return;
  }
  // An item larger than the whole budget is still hinted when it is reached:
  // its read then has all its bytes in flight at once.
  const std::uint64_t items = budget_bytes / std::max<std::uint64_t>(item_bytes, 1);
  window_ = std::size_t(std::clamp<std::uint64_t>(items, 1, kMaxReadaheadItems));
}

namespace {

bool bounded(const ByteRange& r) { return r.suffix_length == 0 && r.length != ByteRange::npos; }

// Merges b into a when both are bounded ranges of one key, b starting inside
// a or at most kMergeGapBytes after it.
bool merge(ReadRequest& a, const ReadRequest& b) {
  if (a.key != b.key || !bounded(a.range) || !bounded(b.range)) return false;
  const std::uint64_t a_end = a.range.offset + a.range.length;
  if (b.range.offset < a.range.offset || b.range.offset > a_end + kMergeGapBytes) return false;
  a.range.length = std::max(a_end, b.range.offset + b.range.length) - a.range.offset;
  return true;
}

}  // namespace

void ReadaheadWindow::reached(std::size_t i) noexcept {
  if (off_.load(std::memory_order_relaxed)) return;
  const std::size_t low = std::min(n_, i + std::max<std::size_t>(1, window_ / 2));
  std::size_t from = hinted_.load(std::memory_order_relaxed);
  if (from >= low) return;
  const std::size_t target = std::min(n_, i + window_);
  // Claim [from, target) so that each item is hinted by one thread only.
  while (!hinted_.compare_exchange_weak(from, target, std::memory_order_relaxed)) {
    if (from >= low) return;
  }
  try {
    std::vector<ReadRequest> requests;
    for (std::size_t k = from; k < target; ++k) {
      auto r = request_of_(k);
      if (!r) continue;
      if (r->range.is_all() && item_bytes_ < min_hint_bytes_) {
        // Whole values, all estimated at item_bytes: none is worth a hint.
        off_ = true;
        return;
      }
      requests.push_back(std::move(*r));
    }
    if (!hint_requests(store_, std::move(requests), item_bytes_, min_hint_bytes_)) off_ = true;
  } catch (...) {
    off_ = true;  // advice only: the reads go on without it
  }
}

bool hint_requests(Store& store, std::vector<ReadRequest> requests, std::uint64_t whole_value_bytes,
                   std::uint64_t min_hint_bytes) noexcept {
  try {
    // Merge in place: requests[0, kept) are the merged ranges so far.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (kept > 0 && merge(requests[kept - 1], requests[i])) continue;
      if (kept != i) requests[kept] = std::move(requests[i]);
      ++kept;
    }
    requests.resize(kept);
    std::erase_if(requests, [&](const ReadRequest& r) {
      const std::uint64_t bytes = bounded(r.range) ? r.range.length
                                  : r.range.suffix_length ? r.range.suffix_length
                                                          : whole_value_bytes;
      return bytes < min_hint_bytes;
    });
    return requests.empty() || hint(store, requests);
  } catch (...) {
    return false;  // advice only
  }
}

}  // namespace zarrgpu::store
