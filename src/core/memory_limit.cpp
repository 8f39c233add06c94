#include "zarrgpu/memory_limit.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include "zarrgpu/config.hpp"

namespace zarrgpu {

namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

std::uint64_t ram_and_swap() noexcept {
  struct sysinfo si {};
  if (sysinfo(&si) != 0) return kUnlimited;
  const std::uint64_t unit = si.mem_unit ? si.mem_unit : 1;
  std::uint64_t total = 0;
  if (__builtin_mul_overflow(std::uint64_t(si.totalram) + std::uint64_t(si.totalswap), unit, &total)) return kUnlimited;
  return total ? total : kUnlimited;
}

std::uint64_t rlimit_of(int resource) noexcept {
  struct rlimit r {};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return std::uint64_t(r.rlim_cur);
}

// cgroup v2: the memory.max of the cgroup this process is in ("max" when unset).
std::uint64_t cgroup_memory_max() noexcept {
  try {
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line)) {
      if (line.rfind("0::", 0) != 0) continue;  // the v2 hierarchy's line
      std::ifstream max("/sys/fs/cgroup" + line.substr(3) + "/memory.max");
      std::string text;
      if (!(max >> text) || text == "max") return kUnlimited;
      std::uint64_t v = 0;
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      return ec == std::errc{} && p == text.data() + text.size() && v > 0 ? v : kUnlimited;
    }
  } catch (...) {
  }
  return kUnlimited;
}

// What this process has mapped, the sums its rlimits are compared with
// (proc(5), /proc/self/statm: "size resident shared text lib data dt", pages).
struct Mapped {
  std::uint64_t total = 0;  // VmSize, which RLIMIT_AS bounds
  std::uint64_t data = 0;   // data and stack, a bound on what RLIMIT_DATA counts
};

std::optional<Mapped> mapped_now() noexcept {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char text[256];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  std::uint64_t fields[6] = {};
  const char* p = text;
  const char* end = text + n;
  for (std::uint64_t& f : fields) {
    while (p < end && *p == ' ') ++p;
    const auto [next, ec] = std::from_chars(p, end, f);
    if (ec != std::errc{}) return std::nullopt;
    p = next;
  }
  const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
  return Mapped{fields[0] * page, fields[5] * page};
}

// The room an rlimit leaves: the kernel refuses a mapping that would take
// what is mapped past the limit, so an allocation within the limit fails once
// the process holds the difference.
struct Room {
  std::uint64_t left;
  std::uint64_t limit;
  std::uint64_t mapped;
  const char* name;
};

std::optional<Room> tightest_rlimit_room() noexcept {
  const std::uint64_t as = rlimit_of(RLIMIT_AS);
  const std::uint64_t data = rlimit_of(RLIMIT_DATA);
  if (as == kUnlimited && data == kUnlimited) return std::nullopt;  // the usual case: no file read
  const std::optional<Mapped> mapped = mapped_now();
  if (!mapped) return std::nullopt;
  std::optional<Room> room;
  const auto consider = [&](std::uint64_t limit, std::uint64_t used, const char* name) {
    if (limit == kUnlimited) return;
    const std::uint64_t left = used < limit ? limit - used : 0;
    if (!room || left < room->left) room = Room{left, limit, used, name};
  };
  consider(as, mapped->total, "RLIMIT_AS");
  consider(data, mapped->data, "RLIMIT_DATA");
  return room;
}

std::string describe_limit(std::uint64_t limit, std::uint64_t configured) {
  if (configured && configured <= limit) return "set by memory_limit (ZARRGPU_MEMORY_LIMIT)";
  return "the smallest of RAM plus swap, RLIMIT_AS, RLIMIT_DATA and the cgroup's memory.max";
}

}  // namespace

std::uint64_t machine_memory_limit() noexcept {
  // RAM, swap and the cgroup are read once; the rlimits each time (setrlimit
  // may lower them, and they are a system call away).
  static const std::uint64_t machine = std::min(ram_and_swap(), cgroup_memory_max());
  return std::min({machine, rlimit_of(RLIMIT_AS), rlimit_of(RLIMIT_DATA)});
}

std::uint64_t memory_limit() {
  const std::uint64_t configured = config().memory_limit;
  const std::uint64_t machine = machine_memory_limit();
  return configured ? std::min(configured, machine) : machine;
}

void check_allocation(std::uint64_t bytes, const std::string& what, const ErrorContext& context) {
  const std::uint64_t configured = config().memory_limit;
  const std::uint64_t machine = machine_memory_limit();
  const std::uint64_t limit = configured ? std::min(configured, machine) : machine;
  if (bytes > limit) {
    throw Error(ErrorKind::resource_exhausted,
                what + " needs " + std::to_string(bytes) + " bytes, more than the memory limit of " +
                    std::to_string(limit) + " bytes (" + describe_limit(machine, configured) + ")",
                context);
  }
  const std::optional<Room> room = tightest_rlimit_room();
  if (!room || bytes <= room->left) return;
  throw Error(ErrorKind::resource_exhausted,
              what + " needs " + std::to_string(bytes) + " bytes, more than the " + std::to_string(room->left) +
                  " bytes left of the memory limit of " + std::to_string(room->limit) + " bytes (" + room->name +
                  ", of which this process holds " + std::to_string(room->mapped) + ")",
              context);
}

}  // namespace zarrgpu
