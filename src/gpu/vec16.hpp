// A 16-byte value: the widest access a thread makes (one LDG.128/STG.128),
// and a fill value of any element size up to complex128.
#pragma once

#include <cstdint>

#include "gpu/hd.hpp"

namespace zarrgpu::gpu {

struct alignas(16) Vec16 {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
};

ZARRGPU_HD std::uint16_t bswap16(std::uint16_t x) { return static_cast<std::uint16_t>((x >> 8) | (x << 8)); }
ZARRGPU_HD std::uint32_t bswap32(std::uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0x0000ff00u) | ((x << 8) & 0x00ff0000u) | (x << 24);
}
ZARRGPU_HD std::uint64_t bswap64(std::uint64_t x) {
  return (static_cast<std::uint64_t>(bswap32(static_cast<std::uint32_t>(x))) << 32) |
         bswap32(static_cast<std::uint32_t>(x >> 32));
}

// Reverses the bytes of every `component`-byte component of a 64-bit word
// (component 0 or 1: nothing; 2, 4, 8). Complex numbers swap each of their
// two parts in place; parts never move.
ZARRGPU_HD std::uint64_t swap_components64(std::uint64_t x, unsigned component) {
  switch (component) {
    case 8: return bswap64(x);
    case 4: return (static_cast<std::uint64_t>(bswap32(static_cast<std::uint32_t>(x >> 32))) << 32) |
                   bswap32(static_cast<std::uint32_t>(x));
    case 2: {
      const std::uint64_t m = 0x00ff00ff00ff00ffull;
      return ((x >> 8) & m) | ((x & m) << 8);
    }
    default: return x;
  }
}

// The same for an element of type T (1, 2, 4, 8 bytes, or Vec16); T's size
// is a multiple of `component`.
ZARRGPU_HD std::uint8_t swap_components(std::uint8_t x, unsigned) { return x; }
ZARRGPU_HD std::uint16_t swap_components(std::uint16_t x, unsigned c) { return c == 2 ? bswap16(x) : x; }
ZARRGPU_HD std::uint32_t swap_components(std::uint32_t x, unsigned c) {
  return c >= 2 ? static_cast<std::uint32_t>(swap_components64(x, c) & 0xffffffffu) : x;
}
ZARRGPU_HD std::uint64_t swap_components(std::uint64_t x, unsigned c) { return swap_components64(x, c); }
ZARRGPU_HD Vec16 swap_components(Vec16 x, unsigned c) {
  return Vec16{swap_components64(x.lo, c), swap_components64(x.hi, c)};
}

// The element-size pattern `value` (first `element_size` bytes, little-endian
// memory order) repeated over 16 bytes; element_size divides 16.
ZARRGPU_HD Vec16 replicate_pattern(Vec16 value, unsigned element_size) {
  if (element_size >= 16) return value;
  if (element_size == 8) return Vec16{value.lo, value.lo};
  std::uint64_t p = value.lo & ((std::uint64_t{1} << (8 * element_size)) - 1);
  for (unsigned w = element_size; w < 8; w *= 2) p |= p << (8 * w);
  return Vec16{p, p};
}

}  // namespace zarrgpu::gpu
