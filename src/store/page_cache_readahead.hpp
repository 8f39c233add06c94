// Asking the kernel to read file ranges into the page cache ahead of the
// reads that will want them, so that a cold read keeps the disk busy while
// the reading threads decode.
//
// posix_fadvise(POSIX_FADV_WILLNEED) (and readahead(2), the same kernel path)
// starts the reads and returns, but Linux reads at most max(read_ahead_kb,
// max_sectors_kb) of the range per call (force_page_cache_ra): a single call
// over a 12 MB chunk file fetched its first 128 KiB on a default NVMe set-up
// and its first 8 MiB on the benchmark VM (read_ahead_kb = 8192). So a range
// is advised in kSegmentBytes pieces, no larger than that cap on any common
// set-up. A range whose first and last bytes are already cached is skipped
// (two mincore() probes, page_cached()), which keeps warm reads from paying
// the kernel's page-by-page walk of ranges that need no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

inline constexpr std::uint64_t kSegmentBytes = std::uint64_t(128) << 10;

// Whether the page of open file `fd` holding `offset` is in the page cache,
// without starting I/O. False where the file cannot be mapped (then a range
// is advised anyway).
bool page_cached(int fd, std::uint64_t offset) noexcept;

// What advise_file_range did.
enum class Advice : std::uint8_t {
  started,  // WILLNEED issued over the range
  cached,   // first and last bytes already in the page cache: nothing to do
  nothing,  // missing file, not a regular file, empty range, or an error
};

// Advises WILLNEED over `range` of the file at `path`, clipped to the file's
// size (a range past the end advises what lies inside it, if anything), on
// the calling thread. Opens and closes the file; never throws.
Advice advise_file_range(const std::string& path, const ByteRange& range) noexcept;

struct FileRange {
  std::string path;
  ByteRange range;
};

// Queues ranges for advise_file_range on a process-wide background thread
// (started on first use, restarted in a child after fork) and returns at once.
// Hints beyond kMaxQueued waiting ones are dropped: they are advice.
inline constexpr std::size_t kMaxQueued = 4096;
void advise_in_background(std::vector<FileRange> ranges) noexcept;

// Blocks until every range queued so far has been advised (tests, benches).
void wait_for_background_advice();

// Tells the kernel that `fd` will be read sequentially (doubles its readahead
// window for this open file). Never throws.
void advise_sequential(int fd) noexcept;

}  // namespace zarrgpu::store
