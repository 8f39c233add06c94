#include "staged_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPartialTag = ".partial-";
constexpr const char* kOldTag = ".old-";

fs::path normal_destination(const std::string& destination) {
  fs::path d = fs::path(destination).lexically_normal();
  if (!d.has_filename()) d = d.parent_path();
  return d;
}

std::string sibling_temp(const std::string& destination, const char* tag) {
  std::string templ = normal_destination(destination).string() + tag + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    throw Error(ErrorKind::io, "cannot create a directory beside '" + destination + "': " + std::strerror(errno));
  return std::string(buf.data());
}

// Opens `dir` and takes its lock without waiting; -1 when another live run
// holds it (or it cannot be opened).
int lock_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// mkdtemp makes 0700; a store is as readable as anything else the user creates.
void apply_umask(const std::string& dir) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(dir.c_str(), 0777 & ~mask);
}

void fsync_path(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorKind::io, "cannot open '" + p.string() + "' to sync it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  if (rc != 0) throw Error(ErrorKind::io, "cannot sync '" + p.string() + "': " + std::strerror(e));
}

// Every file and directory below `root`, then `root`: their data and their
// entries reach the disk before the rename that publishes them.
void fsync_tree(const fs::path& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_symlink(ec)) continue;
    if (it->is_regular_file(ec)) fsync_path(it->path(), O_RDONLY);
    else if (it->is_directory(ec)) fsync_path(it->path(), O_RDONLY | O_DIRECTORY);
  }
  if (ec) throw Error(ErrorKind::io, "cannot walk '" + root.string() + "' to sync it: " + ec.message());
  fsync_path(root, O_RDONLY | O_DIRECTORY);
}

}  // namespace

std::vector<std::string> repair_leftovers(const std::string& destination_arg) {
  const fs::path destination = normal_destination(destination_arg);
  std::vector<std::string> done;
  const fs::path parent = destination.has_parent_path() ? destination.parent_path() : fs::path(".");
  const std::string base = destination.filename().string();
  std::vector<fs::path> olds, partials;
  std::error_code ec;
  for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(base)) continue;
    const std::string_view rest = std::string_view(name).substr(base.size());
    if (rest.starts_with(kOldTag)) olds.push_back(it->path());
    else if (rest.starts_with(kPartialTag)) partials.push_back(it->path());
  }
  auto remove_unowned = [&](const fs::path& p, const std::string& why) {
    const int fd = lock_directory(p.string());
    if (fd < 0) return;  // a live run owns it
    std::error_code e;
    fs::remove_all(p, e);
    ::close(fd);
    if (!e) done.push_back("removed '" + p.string() + "', " + why);
  };
  for (const auto& old : olds) {
    if (!fs::exists(fs::symlink_status(destination, ec))) {
      const int fd = lock_directory(old.string());
      if (fd < 0) continue;
      std::error_code e;
      fs::rename(old, destination, e);
      ::close(fd);
      if (!e) done.push_back("restored '" + destination.string() + "' from '" + old.string() +
                             "', which an interrupted overwrite had moved aside");
      continue;
    }
    remove_unowned(old, "the replaced store of an interrupted overwrite");
  }
  for (const auto& p : partials) remove_unowned(p, "the unfinished output of an interrupted run");
  return done;
}

StagedDirectory::StagedDirectory(std::string destination, bool overwrite, bool durable)
    : destination_(std::move(destination)), overwrite_(overwrite), durable_(durable) {
  std::error_code ec;
  fs::path parent = fs::absolute(fs::path(destination_), ec).parent_path();
  if (!fs::is_directory(parent, ec))
    throw Error(ErrorKind::not_found, "the directory '" + parent.string() + "' for '" + destination_ + "' does not exist");
  if (fs::exists(destination_, ec) && !overwrite_)
    throw Error(ErrorKind::invalid_argument, "'" + destination_ + "' exists; pass --overwrite to replace it");
  staging_ = sibling_temp(destination_, kPartialTag);
  lock_fd_ = lock_directory(staging_);
  apply_umask(staging_);
}

StagedDirectory::~StagedDirectory() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void StagedDirectory::commit() {
  std::error_code ec;
  if (durable_) fsync_tree(staging_);
  const fs::path dst = normal_destination(destination_);
  const fs::path parent = fs::absolute(dst, ec).parent_path();
  if (fs::exists(fs::symlink_status(dst, ec))) {
    if (!overwrite_)
      throw Error(ErrorKind::invalid_argument, "'" + destination_ + "' appeared while writing; not replacing it");
    // One atomic step: DST is the old store or the new one, never missing.
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, dst.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      if (durable_) fsync_path(parent, O_RDONLY | O_DIRECTORY);
      fs::remove_all(staging_, ec);  // now the old store
      return;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
      throw Error(ErrorKind::io, "cannot swap '" + staging_ + "' with '" + destination_ + "': " + std::strerror(errno));
    // No exchange on this file system: move DST aside under a name the next
    // run recognises, locked so that a concurrent run leaves it alone.
    const std::string old = sibling_temp(destination_, kOldTag);
    const int old_lock = lock_directory(dst.string());
    fs::remove(old, ec);
    fs::rename(dst, old, ec);
    if (ec) {
      if (old_lock >= 0) ::close(old_lock);
      throw Error(ErrorKind::io, "cannot move '" + destination_ + "' aside: " + ec.message());
    }
    fs::rename(staging_, dst, ec);
    if (ec) {
      std::error_code ec2;
      fs::rename(old, dst, ec2);
      if (old_lock >= 0) ::close(old_lock);
      throw Error(ErrorKind::io, "cannot rename '" + staging_ + "' to '" + destination_ + "': " + ec.message());
    }
    committed_ = true;
    if (durable_) fsync_path(parent, O_RDONLY | O_DIRECTORY);
    fs::remove_all(old, ec);
    if (old_lock >= 0) ::close(old_lock);
    return;
  }
  fs::rename(staging_, dst, ec);
  if (ec) throw Error(ErrorKind::io, "cannot rename '" + staging_ + "' to '" + destination_ + "': " + ec.message());
  committed_ = true;
  if (durable_) fsync_path(parent, O_RDONLY | O_DIRECTORY);
}

namespace {
std::atomic<bool> g_cancelled{false};
extern "C" void on_signal(int sig) {
  if (g_cancelled.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}
}  // namespace

void install_cancel_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool cancelled() noexcept { return g_cancelled.load(std::memory_order_relaxed); }

}  // namespace zarrgpu::cli
