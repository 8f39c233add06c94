#include "store/page_cache_readahead.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace zarrgpu::store {

// mincore() on a one-page mapping, which starts no I/O. (A 1-byte RWF_NOWAIT
// read, the first probe used here, starts readahead on a miss and can find
// the page read by the time it looks: under load a cold range then passed
// for cached.)
bool page_cached(int fd, std::uint64_t offset) noexcept {
  static const long page = ::sysconf(_SC_PAGESIZE);
  const off_t base = off_t(offset - offset % std::uint64_t(page));
  void* m = ::mmap(nullptr, std::size_t(page), PROT_READ, MAP_SHARED, fd, base);
  if (m == MAP_FAILED) return false;
  unsigned char resident = 0;
  const bool in = ::mincore(m, std::size_t(page), &resident) == 0 && (resident & 1u) != 0;
  ::munmap(m, std::size_t(page));
  return in;
}

namespace {

// The background thread's queue. Never destroyed: the detached thread may
// still wait on it while static destructors run at exit. After fork() the
// child gets a fresh one (the parent's thread does not exist there, and its
// mutex may have been held when the process forked).
struct Background {
  std::mutex m;
  std::condition_variable work, idle;
  std::deque<FileRange> queue;
  bool running = false;  // a thread serves this queue
  std::size_t busy = 0;  // ranges taken off the queue, not yet advised
};

Background* g_background = nullptr;
std::once_flag g_background_once;

Background& background() {
  std::call_once(g_background_once, [] {
    g_background = new Background;
    ::pthread_atfork(nullptr, nullptr, [] { g_background = new Background; });
  });
  return *g_background;
}

void serve(Background* b) {
  std::unique_lock lk(b->m);
  while (true) {
    b->work.wait(lk, [&] { return !b->queue.empty(); });
    FileRange r = std::move(b->queue.front());
    b->queue.pop_front();
    ++b->busy;
    lk.unlock();
    advise_file_range(r.path, r.range);
    lk.lock();
    if (--b->busy == 0 && b->queue.empty()) b->idle.notify_all();
  }
}

}  // namespace

Advice advise_file_range(const std::string& path, const ByteRange& range) noexcept {
  // O_NONBLOCK: a FIFO named like a chunk must not block the advice thread
  // (it is not a regular file, so it gets no advice).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Advice::nothing;
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return Advice::nothing;
  const std::uint64_t size = std::uint64_t(st.st_size);
  std::uint64_t begin, end;
  if (range.suffix_length > 0) {
    begin = size - std::min(range.suffix_length, size);
    end = size;
  } else {
    begin = std::min(range.offset, size);
    end = range.length == ByteRange::npos ? size : begin + std::min(range.length, size - begin);
  }
  if (begin >= end) return Advice::nothing;
  if (page_cached(fd, end - 1) && page_cached(fd, begin)) return Advice::cached;
  for (std::uint64_t o = begin; o < end; o += kSegmentBytes) {
    ::posix_fadvise(fd, off_t(o), off_t(std::min(kSegmentBytes, end - o)), POSIX_FADV_WILLNEED);
  }
  return Advice::started;
}

void advise_in_background(std::vector<FileRange> ranges) noexcept {
  if (ranges.empty()) return;
  try {
    Background& b = background();
    std::lock_guard lk(b.m);
    for (auto& r : ranges) {
      if (b.queue.size() >= kMaxQueued) break;
      b.queue.push_back(std::move(r));
    }
    if (!b.running) {
      std::thread(serve, &b).detach();
      b.running = true;
    }
    b.work.notify_one();
  } catch (...) {
    // No memory or no thread: hints are advice, the reads go on without them.
  }
}

void wait_for_background_advice() {
  Background& b = background();
  std::unique_lock lk(b.m);
  if (!b.running) b.queue.clear();  // nothing serves it (a thread could not start)
  b.idle.wait(lk, [&] { return b.queue.empty() && b.busy == 0; });
}

void advise_sequential(int fd) noexcept { ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); }

}  // namespace zarrgpu::store
