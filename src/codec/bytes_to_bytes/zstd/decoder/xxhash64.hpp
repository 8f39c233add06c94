// XXH64 (seed 0), whose low 32 bits are a frame's Content_Checksum
// (RFC 8878 §3.1.1). Written from the XXH64 specification.
#pragma once

#include "bit_reader.hpp"
#include "config.hpp"

namespace zarrgpu::zstd {

inline constexpr uint64_t kXxhPrime1 = 0x9E3779B185EBCA87ull;
inline constexpr uint64_t kXxhPrime2 = 0xC2B2AE3D27D4EB4Full;
inline constexpr uint64_t kXxhPrime3 = 0x165667B19E3779F9ull;
inline constexpr uint64_t kXxhPrime4 = 0x85EBCA77C2B2AE63ull;
inline constexpr uint64_t kXxhPrime5 = 0x27D4EB2F165667C5ull;

ZARRGPU_HD_INLINE uint64_t xxh_rotl(uint64_t x, uint32_t r) { return (x << r) | (x >> (64 - r)); }

ZARRGPU_HD_INLINE uint64_t xxh_round(uint64_t acc, uint64_t input) {
  acc += input * kXxhPrime2;
  acc = xxh_rotl(acc, 31);
  return acc * kXxhPrime1;
}

ZARRGPU_HD_INLINE uint64_t xxh_merge(uint64_t h, uint64_t acc) {
  h ^= xxh_round(0, acc);
  return h * kXxhPrime1 + kXxhPrime4;
}

ZARRGPU_HD_INLINE uint64_t xxh_lane_init(uint32_t lane, uint64_t seed) {
  return lane == 0 ? seed + kXxhPrime1 + kXxhPrime2 : lane == 1 ? seed + kXxhPrime2 : lane == 2 ? seed : seed - kXxhPrime1;
}

// Everything after the 32-byte stripes: converge, length, tail, avalanche.
ZARRGPU_HD_INLINE uint64_t xxh_finish(const uint64_t acc[4], bool had_stripes, const uint8_t* p, size_t len,
                                      size_t tail_start, uint64_t seed) {
  uint64_t h;
  if (had_stripes) {
    h = xxh_rotl(acc[0], 1) + xxh_rotl(acc[1], 7) + xxh_rotl(acc[2], 12) + xxh_rotl(acc[3], 18);
    h = xxh_merge(h, acc[0]);
    h = xxh_merge(h, acc[1]);
    h = xxh_merge(h, acc[2]);
    h = xxh_merge(h, acc[3]);
  } else {
    h = seed + kXxhPrime5;
  }
  h += static_cast<uint64_t>(len);
  size_t i = tail_start;
  for (; i + 8 <= len; i += 8) {
    h ^= xxh_round(0, load_le64_zero_filled(p, static_cast<int64_t>(i), len));
    h = xxh_rotl(h, 27) * kXxhPrime1 + kXxhPrime4;
  }
  if (i + 4 <= len) {
    h ^= static_cast<uint64_t>(load_le32(p + i)) * kXxhPrime1;
    h = xxh_rotl(h, 23) * kXxhPrime2 + kXxhPrime3;
    i += 4;
  }
  for (; i < len; ++i) {
    h ^= static_cast<uint64_t>(p[i]) * kXxhPrime5;
    h = xxh_rotl(h, 11) * kXxhPrime1;
  }
  h ^= h >> 33;
  h *= kXxhPrime2;
  h ^= h >> 29;
  h *= kXxhPrime3;
  h ^= h >> 32;
  return h;
}

ZARRGPU_HD_INLINE uint64_t xxh64(const uint8_t* p, size_t len, uint64_t seed = 0) {
  uint64_t acc[4] = {xxh_lane_init(0, seed), xxh_lane_init(1, seed), xxh_lane_init(2, seed), xxh_lane_init(3, seed)};
  const size_t stripes = len / 32;
  for (size_t s = 0; s < stripes; ++s) {
    for (uint32_t k = 0; k < 4; ++k) {
      acc[k] = xxh_round(acc[k], load_le64_zero_filled(p, static_cast<int64_t>(32 * s + 8 * k), len));
    }
  }
  return xxh_finish(acc, stripes > 0, p, len, stripes * 32, seed);
}

// The same hash with the four accumulators on ranks 0-3 of a group; every rank gets the result.
template <class G>
ZARRGPU_HD uint64_t xxh64_group(G g, const uint8_t* p, size_t len) {
  if constexpr (G::kSize == 1) {
    return xxh64(p, len, 0);
  } else {
    const uint32_t lane = g.rank() & 3u;
    uint64_t acc = xxh_lane_init(lane, 0);
    const size_t stripes = len / 32;
    if (g.rank() < 4) {
      for (size_t s = 0; s < stripes; ++s) {
        acc = xxh_round(acc, load_le64_zero_filled(p, static_cast<int64_t>(32 * s + 8 * lane), len));
      }
    }
    const uint64_t all[4] = {g.shuffle64(acc, 0), g.shuffle64(acc, 1), g.shuffle64(acc, 2), g.shuffle64(acc, 3)};
    return xxh_finish(all, stripes > 0, p, len, stripes * 32, 0);
  }
}

}  // namespace zarrgpu::zstd
