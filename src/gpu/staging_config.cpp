#include "gpu/staging_config.hpp"

#include <cctype>
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>

#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {

std::optional<std::uint64_t> parse_byte_size(std::string_view text) noexcept {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::uint64_t value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || p == text.data()) return std::nullopt;
  std::string_view unit = text.substr(static_cast<std::size_t>(p - text.data()));
  unsigned shift = 0;
  if (!unit.empty()) {
    switch (std::toupper(static_cast<unsigned char>(unit.front()))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': if (unit.size() == 1) break; return std::nullopt;
      default: return std::nullopt;
    }
    if (shift) {
      unit.remove_prefix(1);
      if (unit == "iB" || unit == "ib" || unit == "B" || unit == "b") unit = {};
      if (!unit.empty()) return std::nullopt;
    }
  }
  if (value == 0 || (shift && value > (~std::uint64_t{0} >> shift))) return std::nullopt;
  return value << shift;
}

namespace {
const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}
std::uint64_t env_bytes(const char* name, std::uint64_t fallback) {
  const char* v = env(name);
  if (!v) return fallback;
  auto n = parse_byte_size(v);
  if (!n) throw Error(ErrorKind::invalid_argument, std::string(name) + "='" + v + "' is not a byte size (e.g. 256M, 1G)");
  return *n;
}
}  // namespace

StagingConfig StagingConfig::from_environment(std::uint64_t device_bytes) {
  StagingConfig c;
  c.slots = default_slots(device_bytes);
  c.slot_bytes = env_bytes("ZARRGPU_STAGING_BYTES", c.slot_bytes);
  c.scratch_bytes = env_bytes("ZARRGPU_SCRATCH_BYTES", 2 * c.slot_bytes);
  c.read_piece_bytes = env_bytes("ZARRGPU_READ_PIECE_BYTES", c.read_piece_bytes);
  if (const char* v = env("ZARRGPU_STAGING_SLOTS")) {
    unsigned n = 0;
    std::string_view s(v);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc{} || p != s.data() + s.size() || n < 2 || n > 16)
      throw Error(ErrorKind::invalid_argument, std::string("ZARRGPU_STAGING_SLOTS='") + v + "' must be 2..16");
    c.slots = n;
  }
  return c;
}

StagingConfig StagingConfig::within(std::uint64_t device_bytes) const {
  StagingConfig c = *this;
  c.slots = std::min(slots, 2u);
  constexpr std::uint64_t kParts = 1 + 2 + 6;
  const std::uint64_t part = std::max<std::uint64_t>(device_bytes / c.slots / kParts, std::uint64_t{1} << 20);
  c.slot_bytes = std::min<std::uint64_t>(slot_bytes, part);
  c.scratch_bytes = std::min<std::uint64_t>(scratch_bytes, 2 * part);
  c.temp_bytes = 6 * part;
  return c;
}

std::uint64_t StagingConfig::device_footprint(std::size_t temp_per_scratch) const {
  const std::uint64_t temp = temp_bytes ? temp_bytes : temp_per_scratch * scratch_bytes;
  return std::uint64_t(slots) * (slot_bytes + scratch_bytes + temp);
}

}  // namespace zarrgpu::gpu
