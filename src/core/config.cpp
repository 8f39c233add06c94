// The process's settings (zarrgpu/config.hpp): parsed from the environment
// once, at the first config() call, then replaced only by set_config().
#include <charconv>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <string>

#include "core/config_environment.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {

std::string_view to_string(IoMode mode) noexcept {
  switch (mode) {
    case IoMode::auto_: return "auto";
    case IoMode::posix: return "posix";
    case IoMode::gds: return "gds";
    case IoMode::gds_compat: return "gds-compat";
  }
  return "?";
}

std::string_view to_string(DecoderChoice choice) noexcept {
  switch (choice) {
    case DecoderChoice::auto_: return "auto";
    case DecoderChoice::cpu: return "cpu";
    case DecoderChoice::gpu: return "gpu";
  }
  return "?";
}

std::optional<IoMode> parse_io_mode(std::string_view s) noexcept {
  if (s == "auto" || s.empty()) return IoMode::auto_;
  if (s == "posix") return IoMode::posix;
  if (s == "gds") return IoMode::gds;
  if (s == "gds-compat") return IoMode::gds_compat;
  return std::nullopt;
}

std::optional<DecoderChoice> parse_decoder_choice(std::string_view s) noexcept {
  if (s == "auto" || s.empty()) return DecoderChoice::auto_;
  if (s == "cpu" || s == "0") return DecoderChoice::cpu;
  if (s == "gpu" || s == "1") return DecoderChoice::gpu;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) noexcept {
  std::uint64_t n = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;  // no sign, no space
  const auto [p, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc{}) return std::nullopt;
  std::string_view unit(p, std::size_t(end - p));
  int shift = 0;
  if (!unit.empty()) {
    switch (unit.front()) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      default: break;
    }
    if (shift) unit.remove_prefix(1);
    if (!(unit.empty() || unit == "B" || unit == "b" || (shift && (unit == "iB" || unit == "ib")))) return std::nullopt;
  }
  if (shift && n > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return n << shift;
}

namespace core {

namespace {

[[noreturn]] void bad_variable(const char* name, const char* value, const char* expected) {
  throw Error(ErrorKind::invalid_argument, std::string(name) + "='" + value + "': " + expected);
}

}  // namespace

Config config_from(const EnvironmentLookup& lookup) {
  Config c;
  // An empty variable counts as unset, as a shell's `VAR= cmd` means.
  auto get = [&](const char* name) -> const char* {
    const char* v = lookup(name);
    return v && *v ? v : nullptr;
  };
  auto bytes = [&](const char* name, std::uint64_t& field) {
    if (const char* v = get(name)) {
      const auto n = parse_byte_size(v);
      if (!n) bad_variable(name, v, "not a byte size (e.g. 0, 64K, 256M, 1G)");
      field = *n;
    }
  };
  auto count = [&](const char* name, unsigned& field) {
    if (const char* v = get(name)) {
      const std::string_view s(v);
      unsigned n = 0;
      const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (ec != std::errc{} || p != s.data() + s.size()) bad_variable(name, v, "not a whole number");
      field = n;
    }
  };
  count("ZARRGPU_THREADS", c.threads);
  if (const char* v = get("ZARRGPU_IO")) {
    const auto m = parse_io_mode(v);
    if (!m) bad_variable("ZARRGPU_IO", v, "not auto, posix, gds or gds-compat");
    c.io = *m;
  }
  auto decoder = [&](const char* name, DecoderChoice& field) {
    if (const char* v = get(name)) {
      const auto d = parse_decoder_choice(v);
      if (!d) bad_variable(name, v, "must be 0, 1 or auto (or cpu, gpu)");
      field = *d;
    }
  };
  decoder("ZARRGPU_GPU_ZSTD", c.zstd_decoder);
  decoder("ZARRGPU_GPU_LZ4", c.lz4_decoder);
  decoder("ZARRGPU_GPU_BLOSC", c.blosc_decoder);
  bytes("ZARRGPU_READAHEAD", c.readahead_bytes);
  bytes("ZARRGPU_STAGING_BYTES", c.staging_bytes);
  count("ZARRGPU_STAGING_SLOTS", c.staging_slots);
  bytes("ZARRGPU_SCRATCH_BYTES", c.scratch_bytes);
  bytes("ZARRGPU_READ_PIECE_BYTES", c.read_piece_bytes);
  bytes("ZARRGPU_MEMORY_LIMIT", c.memory_limit);
  if (const char* v = get("ZARRGPU_KEEP_DEVICE_BUFFERS")) {
    const std::string_view s(v);
    if (s != "0" && s != "1") bad_variable("ZARRGPU_KEEP_DEVICE_BUFFERS", v, "must be 0 or 1");
    c.keep_device_buffers = s == "1";
  }
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(ErrorKind::invalid_argument, "environment: " + e.cause());
  }
  return c;
}

void validate(const Config& c) {
  if (c.staging_slots != 0 && (c.staging_slots < 2 || c.staging_slots > 16))
    throw Error(ErrorKind::invalid_argument,
                "staging_slots (ZARRGPU_STAGING_SLOTS) must be 0 (the default) or 2..16, not " +
                    std::to_string(c.staging_slots));
  if (c.staging_bytes == 0) throw Error(ErrorKind::invalid_argument, "staging_bytes (ZARRGPU_STAGING_BYTES) must be > 0");
  if (c.read_piece_bytes == 0)
    throw Error(ErrorKind::invalid_argument, "read_piece_bytes (ZARRGPU_READ_PIECE_BYTES) must be > 0");
}

}  // namespace core

Config Config::from_environment() {
  return core::config_from([](const char* name) { return std::getenv(name); });
}

namespace {

std::mutex g_mutex;
bool g_loaded = false;          // guarded by g_mutex
Config g_config;                // guarded by g_mutex
std::exception_ptr g_env_error; // the environment's error, until set_config

}  // namespace

Config config() {
  std::lock_guard lk(g_mutex);
  if (!g_loaded) {
    g_loaded = true;
    try {
      g_config = Config::from_environment();
    } catch (...) {
      g_env_error = std::current_exception();
    }
  }
  if (g_env_error) std::rethrow_exception(g_env_error);
  return g_config;
}

void set_config(const Config& c) {
  core::validate(c);
  std::lock_guard lk(g_mutex);
  g_loaded = true;
  g_env_error = nullptr;
  g_config = c;
}

}  // namespace zarrgpu
