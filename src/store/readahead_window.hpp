// Read-ahead for a batch of reads consumed in order: while the threads that
// read (and decode) items i, i+1, … work, the store has already been told
// about the next items (hint(), below), so a cold read keeps more I/O in flight
// than there are reading threads, and the disk does not wait while they decode.
//
// Config::readahead_bytes (ZARRGPU_READAHEAD) sets how far ahead, in bytes of
// items: 0 turns read-ahead off (and the sequential-read advice on
// LocalStore's reads with it); the default is kDefaultReadaheadBytes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include <vector>

#include "zarrgpu/config.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

// 256 MiB: at 12 MB chunks ~21 chunks beyond those being read, ~100 ms of the
// benchmark VM's ~2.3 GB/s disk. On that VM (bench/cpu_read/NOTES.md) any
// budget from 64 MiB to 1 GiB gave the same cold rate; more only pins page
// cache and makes the hinting thread wait on a full request queue.
inline constexpr std::uint64_t kDefaultReadaheadBytes = Config{}.readahead_bytes;
// At most this many items ahead, however small they are.
inline constexpr std::size_t kMaxReadaheadItems = 1024;
// Hints for less than this (after merging neighbouring ranges of one key) are
// not made: each costs an open, two probes and a close on the hinting thread
// (~5 us), as much as 10% of the reading threads' work for 32 KiB chunks when
// they are cached, and the kernel reads a small file in one request anyway.
inline constexpr std::uint64_t kMinHintBytes = std::uint64_t(1) << 20;
// Ranges of one key at most this far apart are hinted as one.
inline constexpr std::uint64_t kMergeGapBytes = std::uint64_t(64) << 10;

// A store that can start fetching values in the background (LocalStore: a
// process-wide thread asks the kernel to read the ranges into the page cache).
class Prefetcher {
 public:
  virtual ~Prefetcher() = default;
  // Advice: `requests` will be read soon, roughly in this order. Starts
  // fetching them and returns at once, without waiting for the bytes. Missing
  // keys, ranges past the end and I/O errors are ignored: the read itself
  // reports them. False when the store has no use for these hints, so that
  // callers can stop making them.
  virtual bool hint(std::span<const ReadRequest> requests) noexcept = 0;
};

// Prefetcher::hint when `store` is one; false otherwise (memory stores).
bool hint(Store& store, std::span<const ReadRequest> requests) noexcept;

// The budget in force: config().readahead_bytes.
std::uint64_t readahead_bytes();

// Hints `requests` (in reading order) in one hint() call: neighbouring
// ranges of one key merged, then ranges under min_hint_bytes dropped (a
// request for a whole value counts as whole_value_bytes). Returns what
// hint() returned (false: the store has no use for hints), true when
// nothing was left to hint. Never throws.
bool hint_requests(Store& store, std::vector<ReadRequest> requests, std::uint64_t whole_value_bytes,
                   std::uint64_t min_hint_bytes = kMinHintBytes) noexcept;

class ReadaheadWindow {
 public:
  // Items 0..n-1, of about `item_bytes` each; request_of(i) names item i's
  // bytes (nullopt: nothing to fetch, e.g. a missing inner chunk). It is
  // called from the threads that call reached(), and must not throw.
  using RequestOf = std::function<std::optional<ReadRequest>(std::size_t)>;
  ReadaheadWindow(Store& store, std::size_t n, std::uint64_t item_bytes, RequestOf request_of,
                  std::uint64_t budget_bytes = readahead_bytes(), std::uint64_t min_hint_bytes = kMinHintBytes);

  // Item i is about to be read (any thread). When fewer than window() / 2
  // items from i on have been hinted, hints the items up to i + window() in
  // one hint() call: neighbouring ranges of one key merged, hints below
  // min_hint_bytes dropped (a whole value counts as item_bytes). Otherwise
  // returns at once (one atomic load).
  void reached(std::size_t i) noexcept;

  // Items hinted from the one reached on, at most; 0 when read-ahead is off.
  std::size_t window() const noexcept { return window_; }

 private:
  Store& store_;
  std::size_t n_;
  std::size_t window_;
  std::uint64_t item_bytes_;
  std::uint64_t min_hint_bytes_;
  RequestOf request_of_;
  std::atomic<std::size_t> hinted_{0};  // items [0, hinted_) have been hinted
  std::atomic<bool> off_{false};        // nothing to gain from hints in this batch
};

}  // namespace zarrgpu::store
