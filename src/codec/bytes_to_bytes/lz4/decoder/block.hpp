// LZ4 block decoding (lz4's doc/lz4_Block_format.md, "Compressed block
// format"): a block is a run of sequences, each a token, literal length,
// literals, offset and match length; the last sequence has literals only and
// ends where the block's compressed bytes end. Every read stays inside
// [src, src + src_size) and every write inside [dst, dst + capacity), on any
// input. One thread decodes one block (a GPU thread or a host thread).
#pragma once

#include "status.hpp"

namespace zarrgpu::lz4 {

// "End of block restrictions" 2 and 3.
inline constexpr size_t kLastLiterals = 5;
inline constexpr size_t kLastMatchDistance = 12;
// "Match length": the 4-bit field and its extension count from this minimum.
inline constexpr size_t kMinMatch = 4;

// A length whose 4-bit field is 15 continues with bytes that are added to it,
// each 255 announcing one more ("Token", "Match length"). Fails on an input
// that ends before the byte that is not 255.
ZARRGPU_HD_INLINE Status read_length_extension(const uint8_t* src, size_t src_size, size_t* ip, size_t* length) {
  for (;;) {
    if (*ip >= src_size) return Status::truncated_input;
    const uint8_t b = src[(*ip)++];
    *length += b;
    if (b != 255) return Status::ok;
  }
}

// Copies a match of `length` bytes from `offset` bytes back. The source may
// overlap the destination ("overlap match"): byte order matters, so the copy
// goes forward one byte at a time.
ZARRGPU_HD_INLINE void copy_match(uint8_t* dst, size_t op, size_t offset, size_t length) {
  const uint8_t* from = dst + (op - offset);
  uint8_t* to = dst + op;
  for (size_t i = 0; i < length; ++i) to[i] = from[i];
}

// Decodes the block in src[0, src_size) into dst[0, capacity). On success sets
// *decoded_size; on failure it is 0 and dst's contents are unspecified (but
// nothing past capacity is written). An empty src is truncated: even an empty
// block holds one token ("End of block restrictions" 2, special case).
ZARRGPU_HD_INLINE Status decode_block(const uint8_t* src, size_t src_size, uint8_t* dst, size_t capacity,
                                      size_t* decoded_size) {
  *decoded_size = 0;
  if ((src == nullptr && src_size != 0) || (dst == nullptr && capacity != 0)) return Status::invalid_argument;
  size_t ip = 0;
  size_t op = 0;
  bool has_match = false;
  size_t last_match_start = 0;
  for (;;) {
    if (ip >= src_size) return Status::truncated_input;
    const uint8_t token = src[ip++];
    size_t literals = token >> 4;
    if (literals == 15) {
      const Status st = read_length_extension(src, src_size, &ip, &literals);
      if (st != Status::ok) return st;
    }
    if (literals > src_size - ip) return Status::truncated_input;
    if (literals > capacity - op) return Status::output_too_small;
    for (size_t i = 0; i < literals; ++i) dst[op + i] = src[ip + i];
    ip += literals;
    op += literals;
    if (ip == src_size) {
      // The last sequence: its token's match field is not used. A block with
      // a match ends with at least 5 literals, and its last match starts at
      // least 12 bytes before the end (restrictions 2 and 3).
      if (has_match && (literals < kLastLiterals || op - last_match_start < kLastMatchDistance))
        return Status::end_conditions;
      // Restriction 2, special case: an empty block is the one byte 0 (liblz4
      // rejects any other into a capacity of 0).
      if (op == 0 && (src_size != 1 || token != 0)) return Status::end_conditions;
      *decoded_size = op;
      return Status::ok;
    }
    // "Offset": 2 bytes, little endian, 1 = the previous byte.
    if (src_size - ip < 2) return Status::truncated_input;
    const size_t offset = static_cast<size_t>(src[ip]) | (static_cast<size_t>(src[ip + 1]) << 8);
    ip += 2;
    if (offset == 0) return Status::zero_offset;
    if (offset > op) return Status::offset_before_output;
    size_t match = token & 15u;
    if (match == 15) {
      const Status st = read_length_extension(src, src_size, &ip, &match);
      if (st != Status::ok) return st;
    }
    match += kMinMatch;
    if (match > capacity - op) return Status::output_too_small;
    copy_match(dst, op, offset, match);
    has_match = true;
    last_match_start = op;
    op += match;
  }
}

}  // namespace zarrgpu::lz4
