// The numcodecs `lz4` codec's chunk: the decoded size as a 4-byte
// little-endian integer, then one LZ4 block holding exactly that many bytes
// (numcodecs.lz4.compress writes the size with store_le32, then the block).
#pragma once

#include "block.hpp"

namespace zarrgpu::lz4 {

inline constexpr size_t kNumcodecsHeaderBytes = 4;

// The size the header declares; src must hold kNumcodecsHeaderBytes.
ZARRGPU_HD_INLINE uint32_t numcodecs_declared_size(const uint8_t* src) {
  return static_cast<uint32_t>(src[0]) | (static_cast<uint32_t>(src[1]) << 8) |
         (static_cast<uint32_t>(src[2]) << 16) | (static_cast<uint32_t>(src[3]) << 24);
}

// Decodes a numcodecs lz4 chunk into dst[0, capacity). A block that decodes
// to another size than its header declares is size_mismatch: a truncated
// block can itself be a well-formed shorter block.
ZARRGPU_HD_INLINE Status decode_numcodecs_frame(const uint8_t* src, size_t src_size, uint8_t* dst, size_t capacity,
                                                size_t* decoded_size) {
  *decoded_size = 0;
  if (src == nullptr && src_size != 0) return Status::invalid_argument;
  if (src_size < kNumcodecsHeaderBytes) return Status::truncated_input;
  const size_t declared = numcodecs_declared_size(src);
  if (declared > capacity) return Status::output_too_small;
  size_t n = 0;
  const Status st = decode_block(src + kNumcodecsHeaderBytes, src_size - kNumcodecsHeaderBytes, dst, declared, &n);
  if (st != Status::ok) return st;
  if (n != declared) return Status::size_mismatch;
  *decoded_size = n;
  return Status::ok;
}

}  // namespace zarrgpu::lz4
