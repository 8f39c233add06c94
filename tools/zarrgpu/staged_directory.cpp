#include "staged_directory.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

namespace fs = std::filesystem;

namespace {
std::string sibling_temp(const std::string& destination, const char* tag) {
  fs::path d = fs::path(destination).lexically_normal();
  if (!d.has_filename()) d = d.parent_path();
  std::string templ = d.string() + tag + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    throw Error(ErrorKind::io, "cannot create a directory beside '" + destination + "': " + std::strerror(errno));
  return std::string(buf.data());
}
}  // namespace

StagedDirectory::StagedDirectory(std::string destination, bool overwrite)
    : destination_(std::move(destination)), overwrite_(overwrite) {
  std::error_code ec;
  if (fs::exists(destination_, ec) && !overwrite_)
    throw Error(ErrorKind::invalid_argument, "'" + destination_ + "' exists; pass --overwrite to replace it");
  fs::path parent = fs::absolute(fs::path(destination_), ec).parent_path();
  if (!fs::is_directory(parent, ec))
    throw Error(ErrorKind::not_found, "the directory '" + parent.string() + "' for '" + destination_ + "' does not exist");
  staging_ = sibling_temp(destination_, ".partial-");
}

StagedDirectory::~StagedDirectory() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

void StagedDirectory::commit() {
  std::error_code ec;
  std::string old;
  if (fs::exists(destination_, ec)) {
    if (!overwrite_)
      throw Error(ErrorKind::invalid_argument, "'" + destination_ + "' appeared while writing; not replacing it");
    old = sibling_temp(destination_, ".old-");
    fs::remove(old, ec);
    fs::rename(destination_, old, ec);
    if (ec) throw Error(ErrorKind::io, "cannot move '" + destination_ + "' aside: " + ec.message());
  }
  fs::rename(staging_, destination_, ec);
  if (ec) {
    std::error_code ec2;
    if (!old.empty()) fs::rename(old, destination_, ec2);
    throw Error(ErrorKind::io, "cannot rename '" + staging_ + "' to '" + destination_ + "': " + ec.message());
  }
  committed_ = true;
  if (!old.empty()) fs::remove_all(old, ec);
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
