#include "ipc/hex.hpp"

namespace zarrgpu::ipc {
namespace {
int digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string to_hex(const void* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  auto* p = static_cast<const unsigned char*>(bytes);
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

bool is_hex(std::string_view s) noexcept {
  if (s.size() % 2) return false;
  for (char c : s)
    if (digit(c) < 0) return false;
  return true;
}

bool from_hex(std::string_view s, void* bytes, std::size_t n) noexcept {
  if (s.size() != 2 * n || !is_hex(s)) return false;
  auto* p = static_cast<unsigned char*>(bytes);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(digit(s[2 * i]) * 16 + digit(s[2 * i + 1]));
  return true;
}

}  // namespace zarrgpu::ipc
