#include "zarrgpu/memory_limit.hpp"

#include <sys/resource.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
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

std::string describe_limit(std::uint64_t limit, std::uint64_t configured) {
  if (configured && configured <= limit) return "set by memory_limit (ZARRGPU_MEMORY_LIMIT)";
  return "the smallest of RAM plus swap, RLIMIT_AS, RLIMIT_DATA and the cgroup's memory.max";
}

}  // namespace

std::uint64_t machine_memory_limit() noexcept {
  static const std::uint64_t limit =
      std::min({ram_and_swap(), rlimit_of(RLIMIT_AS), rlimit_of(RLIMIT_DATA), cgroup_memory_max()});
  return limit;
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
  if (bytes <= limit) return;
  throw Error(ErrorKind::resource_exhausted,
              what + " needs " + std::to_string(bytes) + " bytes, more than the memory limit of " +
                  std::to_string(limit) + " bytes (" + describe_limit(machine, configured) + ")",
              context);
}

}  // namespace zarrgpu
