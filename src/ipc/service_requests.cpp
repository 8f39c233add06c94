// The cache service's requests (docs/ipc.md lists them): each checked member
// by member before anything is read or allocated.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "ipc/cache_service.hpp"
#include "ipc/service_protocol.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/selection.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::ipc {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxPath = 4096;
constexpr std::size_t kMaxSelection = 64 * 1024;

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorKind::invalid_argument, "request: " + what); }

std::string text(const json& r, const char* name, std::size_t max, bool required = true) {
  auto it = r.find(name);
  if (it == r.end()) {
    if (required) bad(std::string("\"") + name + "\" is missing");
    return {};
  }
  if (!it->is_string()) bad(std::string("\"") + name + "\" must be a string");
  std::string s = it->get<std::string>();
  if (s.size() > max) bad(std::string("\"") + name + "\" is longer than " + std::to_string(max) + " bytes");
  if (s.find('\0') != std::string::npos) bad(std::string("\"") + name + "\" contains a NUL byte");
  return s;
}

// Names of named arrays: what a file name may safely be, and short.
std::string array_name(const json& r) {
  std::string n = text(r, "name", 128);
  if (n.empty()) bad("\"name\" is empty");
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      bad("\"name\" may hold letters, digits, '.', '_' and '-' only");
  return n;
}

std::uint64_t byte_count(const std::vector<std::uint64_t>& shape, DataType t) {
  std::uint64_t n = size_of(t);
  for (auto e : shape)
    if (__builtin_mul_overflow(n, e, &n)) bad("the array's size in bytes overflows");
  return n;
}

int duplicate(int fd) {
  const int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (d < 0) throw Error(ErrorKind::io, std::string("dup: ") + std::strerror(errno));
  return d;
}

// A lease's answer: the descriptor with the lease id, and the fd to send: a
// read-only one unless `writer`.
json lease_answer(const Lease& l, bool writer, std::vector<FileDescriptor>& fds) {
  Descriptor d = l.entry->descriptor;
  d.lease = l.id;
  d.read_only = !writer;
  const SharedMemory& m = l.entry->memory;
  if (m.handle_kind() == HandleKind::memfd) fds.emplace_back(writer ? duplicate(m.fd()) : m.reopen_read_only());
  else if (m.fd() >= 0) fds.emplace_back(duplicate(m.fd()));
  return {{"ok", true}, {"lease", l.id}, {"hit", l.hit}, {"descriptor", json::parse(to_json(d))}};
}

}  // namespace

json CacheService::answer(const json& r, std::uint64_t connection, std::vector<FileDescriptor>& fds) {
  const std::string op = text(r, "op", 32);
  // The memory a request's entry lives in: the service's device, or another it serves.
  Device device = options_.device;
  if (r.contains("device")) {
    const Device asked = Device::parse(text(r, "device", 16));
    bool served = asked == options_.device;
    for (const Device& d : options_.more_devices) served = served || asked == d;
    if (!served) bad("device " + asked.to_string() + " is not one this service serves (see zarrgpu serve --device)");
    device = asked;
  }
  const bool on_device = device.kind == Device::Kind::cuda;
  auto allocate = [&](std::uint64_t bytes) {
    return on_device ? SharedMemory::create_device(bytes, device, /*vmm=*/true)
                     : SharedMemory::create_host(bytes, "zarrgpu-cache");
  };

  if (op == "hello") {
    json devices = json::array({options_.device.to_string()});
    for (const Device& d : options_.more_devices) devices.push_back(d.to_string());
    return {{"ok", true}, {"service", "zarrgpu"}, {"protocol", kProtocolVersion}, {"instance", instance_},
            {"memory", on_device ? "device" : "host"}, {"device", options_.device.to_string()}, {"devices", devices},
            {"budget", options_.budget}, {"pid", static_cast<long>(getpid())}};
  }
  if (op == "read") {
    std::string store_url = text(r, "store", kMaxPath);
    const std::string path = text(r, "array", kMaxPath, false);
    const std::string selection_text = text(r, "selection", kMaxSelection, false);
    if (store_url.find("://") == std::string::npos) {
      std::error_code ec;
      auto canonical = std::filesystem::weakly_canonical(store_url, ec);
      if (ec) throw Error(ErrorKind::not_found, "store " + store_url + ": " + ec.message());
      store_url = canonical.string();
      if (!options_.store_root.empty()) {
        auto root = std::filesystem::weakly_canonical(options_.store_root).string();
        if (store_url != root && store_url.rfind(root + "/", 0) != 0)
          throw Error(ErrorKind::invalid_argument, "store " + store_url + " lies outside the service's store root " + root);
      }
    } else if (!options_.store_root.empty()) {
      throw Error(ErrorKind::invalid_argument, "the service reads local stores beneath its store root only");
    }
    const Array array = Array::open(open_store(store_url), path);
    if (!is_numeric(array.dtype()))
      throw Error(ErrorKind::unsupported, "the cache shares numeric arrays only, not " + describe(array.dtype()), {path, "", "", store_url});
    const Selection selection = Selection::parse(selection_text);
    const auto shape_vec = array.shape();
    const auto shape = Selection::result_shape(selection.resolve(shape_vec));
    const std::uint64_t bytes = byte_count(shape, array.dtype());
    const std::string key = "read\n" + device.to_string() + "\n" + store_url + "\n" + path + "\n" + selection.to_string();
    Lease l = cache_.lease_or_make(key, bytes, connection, [&] {
      CacheEntry e;
      e.memory = allocate(bytes);
      if (on_device) array.read(selection, e.memory.data(), bytes, device);
      else array.read(selection, std::span<std::byte>(static_cast<std::byte*>(e.memory.data()), bytes));
      // A device read returns with its work queued on the legacy default stream
      // (ReadOptions::cuda_stream null): importers wait on an event recorded after it.
      e.descriptor = e.memory.describe(array.dtype(), shape, 0, {}, /*record_event=*/on_device, nullptr);
      return e;
    });
    return lease_answer(l, false, fds);
  }
  if (op == "create") {
    const std::string name = array_name(r);
    const std::string type_name = text(r, "data_type", 32);
    const auto t = from_v3_name(type_name);
    if (!t || !is_numeric(*t)) bad("\"data_type\" \"" + type_name + "\" is not a numeric type");
    const auto it = r.find("shape");
    if (it == r.end() || !it->is_array() || it->size() > kMaxRank) bad("\"shape\" must be an array of at most 64 integers");
    std::vector<std::uint64_t> shape;
    for (const json& e : *it) {
      if (!e.is_number_unsigned()) bad("\"shape\" entries must be non-negative integers");
      shape.push_back(e.get<std::uint64_t>());
    }
    const std::uint64_t bytes = byte_count(shape, *t);
    Lease l = cache_.create_named("name\n" + name, bytes, connection, [&] {
      CacheEntry e;
      e.memory = allocate(bytes);
      e.descriptor = e.memory.describe(*t, shape);
      return e;
    });
    return lease_answer(l, true, fds);
  }
  if (op == "open") {
    const std::string name = array_name(r);
    Lease l = cache_.lease_existing("name\n" + name, connection);
    if (!l.entry) throw Error(ErrorKind::not_found, "no published array named \"" + name + "\"");
    return lease_answer(l, l.entry->creator == connection && !l.entry->published, fds);
  }
  if (op == "publish") {
    cache_.publish("name\n" + array_name(r), connection);
    return {{"ok", true}};
  }
  if (op == "remove") {
    cache_.remove_named("name\n" + array_name(r));
    return {{"ok", true}};
  }
  if (op == "release") {
    cache_.release(text(r, "lease", 160), connection);
    return {{"ok", true}};
  }
  if (op == "stats") {
    const CacheStats s = cache_.stats();
    return {{"ok", true}, {"entries", s.entries}, {"leases", s.leases}, {"bytes", s.bytes}, {"budget", s.budget},
            {"leased_bytes", s.leased_bytes}, {"hits", s.hits}, {"misses", s.misses}, {"evictions", s.evictions},
            {"waiting", s.waiting}};
  }
  bad("unknown op \"" + op + "\" (hello, read, create, publish, open, remove, release, stats)");
}

}  // namespace zarrgpu::ipc
