// A directory on the local file system. Batched reads run in parallel on the
// shared thread pool with pread (POSIX "compat mode" in KvikIO's words);
// writes go to a temporary file in the same directory and are renamed into
// place, so a reader never sees a half-written value under the final name,
// and each is durable once write() returns (fsync of the file before the
// rename and of its directory after, as a database commits), unless the
// store was opened with WriteSync::none (scratch output, or a staged tree
// synced as a whole before it is published);
// temporaries left by killed writers are removed by the next write into their
// directory. Writes and erases never pass through a symbolic link
// (beneath_root.hpp), and reads refuse FIFOs, sockets and devices rather than
// block on them.
// Reads into device memory go through cuFile (GPUDirect Storage) when the
// configuration and the machine allow it (device_reader.hpp).
// Hints become page-cache read-ahead on a background thread
// (page_cache_readahead.hpp), and reads of 1 MiB or more tell the kernel they
// are sequential, unless ZARRGPU_READAHEAD=0.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>

#include "engine/thread_pool.hpp"
#include "store/beneath_root.hpp"
#include "store/byte_range.hpp"
#include "store/cufile.hpp"
#include "store/device_reader.hpp"
#include "store/page_cache_readahead.hpp"
#include "store/readahead_window.hpp"
#include "store/reusing_read.hpp"
#include "store/stored_value.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {
namespace {

namespace fs = std::filesystem;

// Temporary files carry this marker so that list() can hide them.
constexpr std::string_view kTempMarker = ".zarrgpu-tmp.";

class LocalStore final : public Store, public ValueOpener, public ReusingReader, public Prefetcher, public DeviceReader {
 public:
  LocalStore(fs::path root, WriteSync sync)
      : root_(std::move(root)), url_("file://" + root_.string()), sequential_advice_(readahead_bytes() > 0),
        sync_(sync == WriteSync::each_write) {}

  bool read_reusing(const ReadRequest& request, Bytes& buffer) override {
    auto v = open_file(request.key);
    if (!v) return false;
    const auto r = resolve_range(request.range, v->size, request.key, url_);
    reset_bytes(buffer, r.length);
    pread_all(v->fd.get(), buffer.data(), r.length, r.offset, request.key);
    return true;
  }

  std::optional<std::uint64_t> read_whole_into(std::string_view key, std::span<std::byte> dest) override {
    const std::string k(key);
    auto v = open_file(k);
    if (!v) return std::nullopt;
    if (v->size == dest.size()) pread_all(v->fd.get(), dest.data(), v->size, 0, k);
    return v->size;
  }

  std::unique_ptr<StoredValue> open_value(std::string_view key) override {
    std::string k(key);
    auto v = open_file(k);
    if (!v) return nullptr;
    return std::make_unique<FileValue>(*this, std::move(k), std::move(*v));
  }

  bool hint(std::span<const ReadRequest> requests) noexcept override {
    try {
      std::vector<FileRange> ranges;
      ranges.reserve(requests.size());
      for (const auto& r : requests) {
        if (!valid_key(r.key)) continue;
        ranges.push_back({path_of(r.key).string(), r.range});
      }
      advise_in_background(std::move(ranges));
    } catch (...) {
      // Out of memory building paths: advice only.
    }
    return true;
  }

  std::vector<ReadResult> read(std::span<const ReadInto> requests) override {
    std::vector<ReadResult> out(requests.size());
    engine::parallel_for(requests.size(), [&](std::size_t i) { out[i] = read_one(requests[i]); });
    return out;
  }

  void write(std::string_view key, std::span<const std::byte> value) override {
    check_key(key, url_);
    const Fd dir = open_parent_beneath(root_.string(), key, true, url_);
    forget_stale_temporaries(dir.get(), parent_of(key));
    const std::string name = fs::path(std::string(key)).filename().string();
    static std::atomic<std::uint64_t> counter{0};
    const std::string tmp = "." + name + std::string(kTempMarker) + std::to_string(::getpid()) + "." +
                            std::to_string(counter.fetch_add(1));
    Fd fd(::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0) fail(key, "cannot create '" + tmp + "': " + std::strerror(errno));
    auto give_up = [&](const std::string& what) {
      const int e = errno;
      ::unlinkat(dir.get(), tmp.c_str(), 0);
      fail(key, what + ": " + std::strerror(e));
    };
    std::size_t done = 0;
    while (done < value.size()) {
      const ssize_t n = ::write(fd.get(), value.data() + done, value.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) give_up("write failed");
      done += std::size_t(n);
    }
    // Synced before the rename: after a crash the name holds the old value
    // or the whole new one, never an empty or torn file.
    if (sync_ && ::fsync(fd.get()) != 0) give_up("fsync failed");
    if (::close(fd.release()) != 0) give_up("close failed");
    // renameat within the directory opened beneath the root: the new value
    // lands in the store even if a component is swapped for a link meanwhile.
    if (::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0) give_up("rename failed");
    if (sync_ && ::fsync(dir.get()) != 0) fail(key, "fsync of its directory failed: " + std::string(std::strerror(errno)));
  }

  void erase(std::string_view key) override {
    check_key(key, url_);
    const Fd dir = open_parent_beneath(root_.string(), key, false, url_);
    if (dir.get() < 0) return;
    const std::string name = fs::path(std::string(key)).filename().string();
    // unlinkat removes a link itself, never what it points to.
    if (::unlinkat(dir.get(), name.c_str(), 0) != 0 && errno != ENOENT && errno != ENOTDIR) {
      fail(key, "cannot erase: " + std::string(std::strerror(errno)));
    }
  }

  bool exists(std::string_view key) override {
    check_key(key, url_);
    struct stat st;
    return ::stat(path_of(key).c_str(), &st) == 0 && S_ISREG(st.st_mode);
  }

  std::vector<std::string> list(std::string_view prefix) override {
    std::vector<std::string> keys;
    std::string p(prefix);
    while (!p.empty() && p.back() == '/') p.pop_back();
    const fs::path start = p.empty() ? root_ : path_of(p);
    std::error_code ec;
    if (fs::is_regular_file(start, ec)) return {p};
    if (!fs::is_directory(start, ec)) return keys;
    for (auto it = fs::recursive_directory_iterator(start, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const std::string name = it->path().filename().string();
      if (name.find(kTempMarker) != std::string::npos) continue;
      keys.push_back(it->path().lexically_relative(root_).generic_string());
    }
    if (ec) fail(p, "cannot list: " + ec.message());
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  std::vector<std::string> list_dir(std::string_view prefix) override {
    std::string p(prefix);
    while (!p.empty() && p.back() == '/') p.pop_back();
    const fs::path start = p.empty() ? root_ : path_of(p);
    std::vector<std::string> names;
    std::error_code ec;
    if (!fs::is_directory(start, ec)) return names;
    for (auto it = fs::directory_iterator(start, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.find(kTempMarker) != std::string::npos) continue;
      std::error_code tec;
      if (it->is_directory(tec)) names.push_back(name + "/");
      else if (it->is_regular_file(tec)) names.push_back(std::move(name));
    }
    if (ec) fail(p, "cannot list: " + ec.message());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::optional<std::uint64_t> size(std::string_view key) override {
    check_key(key, url_);
    struct stat st;
    if (::stat(path_of(key).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return std::uint64_t(st.st_size);
  }

  std::string describe() const override { return url_; }

  DeviceReadPath device_read_path(IoMode request) override {
    if (request == IoMode::posix) return {IoPath::posix, "posix pread into the pinned ring"};
    if (request == IoMode::auto_ && !CuFile::nvidia_fs_present()) {
      // auto takes posix unless true GDS is there: do not even open cuFile
      // (its driver state and bounce buffers would live until exit for nothing).
      return {IoPath::posix,
              "posix pread into the pinned ring (no nvidia-fs driver: cuFile would only run in compatibility mode)"};
    }
    const CuFile& lib = CuFile::instance();
    DeviceReadPath p{resolve_io_path(request, lib.available(), lib.true_gds(), true), lib.why()};
    if (p.path == IoPath::posix && request == IoMode::auto_ && lib.available())
      p.why += "; posix is faster than cuFile compatibility mode";
    return p;
  }

  void read_into_device(std::span<const DeviceReadInto> reads) override {
    for (const DeviceReadInto& r : reads) {
      check_key(r.key, url_);
      CuFile::File f(CuFile::instance(), path_of(r.key).string());
      f.read(r.device, r.length, r.offset);
    }
  }

 private:
  fs::path path_of(std::string_view key) const { return root_ / fs::path(std::string(key)); }

  bool valid_key(std::string_view key) const {
    try {
      check_key(key, url_);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  [[noreturn]] void fail(std::string_view key, const std::string& why) const {
    throw Error(ErrorKind::io, "'" + std::string(key) + "': " + why, {"", std::string(key), "", url_});
  }

  // An open file: its descriptor and size; nullopt when the key is missing.
  struct OpenFile {
    Fd fd;
    std::uint64_t size;
  };
  std::optional<OpenFile> open_file(const std::string& key) const {
    check_key(key, url_);
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
    // writer, forever; it is refused below. Regular files ignore the flag.
    Fd fd(::open(path_of(key).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) {
      // A missing chunk (or a directory where a file would be) is not an error.
      if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
      const int e = errno;
      // A socket cannot be opened at all (ENXIO): name what it is.
      struct stat st;
      if (::stat(path_of(key).c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        fail(key, std::string("is a ") + special_file_kind(st.st_mode) + ", not a regular file");
      fail(key, "cannot open: " + std::string(std::strerror(e)));
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) fail(key, "cannot stat: " + std::string(std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) return std::nullopt;  // a directory: no value under this key
    if (!S_ISREG(st.st_mode)) fail(key, std::string("is a ") + special_file_kind(st.st_mode) + ", not a regular file");
    return OpenFile{Fd(fd.release()), std::uint64_t(st.st_size)};
  }

  static const char* special_file_kind(mode_t mode) {
    if (S_ISFIFO(mode)) return "FIFO";
    if (S_ISSOCK(mode)) return "socket";
    if (S_ISCHR(mode)) return "character device";
    if (S_ISBLK(mode)) return "block device";
    return "special file";
  }

  // The directory of `key` relative to the root ("" for the root).
  static std::string parent_of(std::string_view key) {
    const auto slash = key.rfind('/');
    return slash == std::string_view::npos ? std::string() : std::string(key.substr(0, slash));
  }

  // The first write into a directory removes the temporary files that killed
  // writers left there (once per directory and store instance).
  void forget_stale_temporaries(int dir, const std::string& rel) {
    {
      std::lock_guard lk(cleaned_mutex_);
      if (!cleaned_.insert(rel).second) return;
    }
    remove_stale_temporaries(dir, kTempMarker);
  }

  void pread_all(int fd, std::byte* dst, std::uint64_t length, std::uint64_t offset, const std::string& key) const {
    // A larger kernel read-ahead window for this open file (twice the
    // device's): fewer, larger reads where no hint came first.
    if (sequential_advice_ && length >= kSequentialAdviceBytes) advise_sequential(fd);
    std::uint64_t done = 0;
    while (done < length) {
      const ssize_t n = ::pread(fd, dst + done, length - done, off_t(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(key, "read failed: " + std::string(std::strerror(errno)));
      if (n == 0) fail(key, "file shrank while being read");
      done += std::uint64_t(n);
    }
  }

  // A value read through the descriptor opened once: a file renamed over the
  // key meanwhile is not seen.
  class FileValue final : public StoredValue {
   public:
    FileValue(const LocalStore& store, std::string key, OpenFile file)
        : store_(store), key_(std::move(key)), file_(std::move(file)) {}
    std::uint64_t size() const noexcept override { return file_.size; }
    void read(std::uint64_t offset, std::span<std::byte> dest) const override {
      resolve_range(ByteRange::of(offset, dest.size()), file_.size, key_, store_.url_);
      store_.pread_all(file_.fd.get(), dest.data(), dest.size(), offset, key_);
    }

   private:
    const LocalStore& store_;
    std::string key_;
    OpenFile file_;
  };

  ReadResult read_one(const ReadInto& req) const {
    const std::string& key = req.request.key;
    ReadResult res;
    auto v = open_file(key);
    if (!v) return res;
    const auto r = resolve_range(req.request.range, v->size, key, url_);
    std::byte* dst;
    if (!req.dest.empty()) {
      if (req.dest.size() != r.length) {
        throw Error(ErrorKind::invalid_argument, "read of '" + key + "': destination holds " +
                                                     std::to_string(req.dest.size()) + " bytes, range " +
                                                     std::to_string(r.length),
                    {"", key, "", url_});
      }
      dst = req.dest.data();
    } else {
      res.data = Bytes(r.length);
      dst = res.data.data();
    }
    pread_all(v->fd.get(), dst, r.length, r.offset, key);
    res.found = true;
    res.size = r.length;
    return res;
  }

  static constexpr std::uint64_t kSequentialAdviceBytes = std::uint64_t(1) << 20;

  fs::path root_;
  std::string url_;
  bool sequential_advice_;
  bool sync_;
  std::mutex cleaned_mutex_;
  std::set<std::string> cleaned_;
};

}  // namespace
}  // namespace zarrgpu::store

namespace zarrgpu {

std::shared_ptr<Store> open_local_store(const std::string& root, bool create, WriteSync sync) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(root), ec).lexically_normal();
  if (ec) throw Error(ErrorKind::io, "bad path '" + root + "': " + ec.message(), {"", "", "", "file://" + root});
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  p = s;
  if (fs::is_directory(p, ec)) return std::make_shared<store::LocalStore>(p, sync);
  const std::string url = "file://" + p.string();
  if (fs::exists(p, ec)) throw Error(ErrorKind::invalid_argument, "'" + p.string() + "' is not a directory", {"", "", "", url});
  if (!create) throw Error(ErrorKind::not_found, "no directory '" + p.string() + "'", {"", "", "", url});
  fs::create_directories(p, ec);
  if (ec) throw Error(ErrorKind::io, "cannot create '" + p.string() + "': " + ec.message(), {"", "", "", url});
  return std::make_shared<store::LocalStore>(p, sync);
}

}  // namespace zarrgpu
