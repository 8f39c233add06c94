// BloscLZ stream decoding: the LZ77 format of c-blosc's blosclz.c (FastLZ
// level 2's layout; c-blosc documents it only in code). A stream is a run of
// instructions, each starting with a control byte:
//   - ctrl < 32: a literal run of ctrl + 1 bytes follows. The first
//     instruction is always one; its top 3 bits are a level mark, ignored.
//   - ctrl >= 32: a match. Length = (ctrl >> 5) + 2; a 3-bit field of 7
//     continues with bytes added to it, each 255 announcing one more. Then
//     one byte `code`: distance = ((ctrl & 31) << 8) + code + 1, except when
//     (ctrl & 31) == 31 and code == 255: a 16-bit big-endian distance follows,
//     plus 8192 ("far" matches).
// The stream ends after a literal run: c-blosc stops at the end of the input
// without executing a match whose bytes end there, so such a stream decodes
// short and Blosc rejects it; we call it truncated.
#pragma once

#include "status.hpp"

namespace zarrgpu::blosc {

enum class BloscLzStatus : uint32_t {
  ok = 0,
  truncated_input = 1,
  offset_before_output = 2,
  output_too_small = 3,
};

inline constexpr uint32_t kBloscLzNearDistanceMax = 8192;  // blosclz.c MAX_DISTANCE + 1

// Decodes src[0, src_size) into dst[0, capacity); *decoded_size on success.
ZARRGPU_HD_INLINE BloscLzStatus decode_blosclz(const uint8_t* src, size_t src_size, uint8_t* dst, size_t capacity,
                                               size_t* decoded_size) {
  *decoded_size = 0;
  if (src_size == 0) return BloscLzStatus::ok;  // c-blosc: an empty stream decodes to nothing
  size_t ip = 0;
  size_t op = 0;
  uint32_t ctrl = src[ip++] & 31u;
  for (;;) {
    if (ctrl < 32) {
      const size_t literals = ctrl + 1;
      if (literals > capacity - op) return BloscLzStatus::output_too_small;
      if (literals > src_size - ip) return BloscLzStatus::truncated_input;
      for (size_t i = 0; i < literals; ++i) dst[op + i] = src[ip + i];
      op += literals;
      ip += literals;
      if (ip == src_size) break;
      ctrl = src[ip++];
      continue;
    }
    size_t length = (ctrl >> 5) - 1;
    if (length == 6) {
      for (;;) {
        if (ip >= src_size) return BloscLzStatus::truncated_input;
        const uint8_t b = src[ip++];
        length += b;
        if (b != 255) break;
      }
    }
    if (ip >= src_size) return BloscLzStatus::truncated_input;
    const uint32_t code = src[ip++];
    length += 3;
    size_t distance = (static_cast<size_t>(ctrl & 31u) << 8) + code + 1;
    if (code == 255 && (ctrl & 31u) == 31) {
      if (src_size - ip < 2) return BloscLzStatus::truncated_input;
      distance = ((static_cast<size_t>(src[ip]) << 8) | src[ip + 1]) + kBloscLzNearDistanceMax;
      ip += 2;
    }
    if (length > capacity - op) return BloscLzStatus::output_too_small;
    if (distance > op) return BloscLzStatus::offset_before_output;
    if (ip >= src_size) return BloscLzStatus::truncated_input;  // see the header comment
    ctrl = src[ip++];
    // Forward, one byte at a time: the source may overlap the bytes written.
    const uint8_t* from = dst + (op - distance);
    for (size_t i = 0; i < length; ++i) dst[op + i] = from[i];
    op += length;
  }
  *decoded_size = op;
  return BloscLzStatus::ok;
}

}  // namespace zarrgpu::blosc
