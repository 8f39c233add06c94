// Directories of a local store opened for writing without leaving its root.
// Every component below the root is opened with O_NOFOLLOW: a symbolic link
// inside a store (a chunk directory pointing elsewhere) must never lead a
// write, a rename or an unlink outside the store, so writes refuse to pass
// through one. Reads still follow links: they change nothing.
#pragma once

#include <unistd.h>

#include <string>
#include <string_view>

namespace zarrgpu::store {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) { if (fd_ >= 0) ::close(fd_); fd_ = o.release(); }
    return *this;
  }
  int get() const noexcept { return fd_; }
  int release() noexcept { int f = fd_; fd_ = -1; return f; }

 private:
  int fd_;
};

// Opens the directory that holds `key` (its components but the last) below
// `root`, creating missing ones when `create`. Returns an invalid Fd when a
// component is missing and !create. Throws Error(io) naming the key and the
// store `url` when a component is a symbolic link or not a directory, or the
// system refuses.
Fd open_parent_beneath(const std::string& root, std::string_view key, bool create, const std::string& url);

// Temporary files of writers that died before renaming them (a killed
// process) carry `marker` followed by the writer's process id: removes those
// of `dir` whose process no longer exists. Returns how many it removed.
std::size_t remove_stale_temporaries(int dir, std::string_view marker);

}  // namespace zarrgpu::store
