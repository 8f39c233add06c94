#include "byte_size.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

namespace zarrgpu::cli {

std::optional<std::uint64_t> parse_byte_size(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  std::string number(s.substr(0, i));
  if (number.find('.') != number.rfind('.')) return std::nullopt;
  double v = std::strtod(number.c_str(), nullptr);
  std::string_view unit = s.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  double mult = 1;
  if (!unit.empty()) {
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit.front())));
    std::string_view rest = unit.substr(1);
    if (u == 'B' && rest.empty()) mult = 1;
    else {
      switch (u) {
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1024.0 * 1024; break;
        case 'G': mult = 1024.0 * 1024 * 1024; break;
        case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
        default: return std::nullopt;
      }
      if (!(rest.empty() || rest == "B" || rest == "iB" || rest == "b")) return std::nullopt;
    }
  }
  double r = v * mult;
  if (!(r >= 0) || r > 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(r));
}

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) { bytes /= 1024; ++u; }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  else std::snprintf(buf, sizeof buf, bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  if (u == 0) return buf;
  return buf;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 360000) return "--:--";
  long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

}  // namespace zarrgpu::cli
