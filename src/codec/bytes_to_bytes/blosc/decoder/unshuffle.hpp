// The inverse of Blosc's two filters on one block (c-blosc shuffle.c),
// out of place. Byte shuffle stores byte j of element i at j * count + i
// (count = size / typesize), trailing size % typesize bytes unchanged. Bit
// shuffle (bitshuffle's bit transpose) stores bit k of byte j of element i
// at bit i % 8 of byte (8 * j + k) * count / 8 + i / 8; c-blosc applies it
// only when count is a multiple of 8 and copies the block unchanged otherwise.
#pragma once

#include "status.hpp"

namespace zarrgpu::blosc {

ZARRGPU_HD_INLINE void byte_unshuffle(uint32_t typesize, size_t size, const uint8_t* src, uint8_t* dst) {
  const size_t count = size / typesize;
  for (size_t i = 0; i < count; ++i)
    for (uint32_t j = 0; j < typesize; ++j) dst[i * typesize + j] = src[j * count + i];
  for (size_t b = count * typesize; b < size; ++b) dst[b] = src[b];
}

ZARRGPU_HD_INLINE void bit_unshuffle(uint32_t typesize, size_t size, const uint8_t* src, uint8_t* dst) {
  const size_t count = size / typesize;
  if (count % 8 != 0) {
    for (size_t b = 0; b < size; ++b) dst[b] = src[b];
    return;
  }
  const size_t row_bytes = count / 8;  // one bit of every element
  for (size_t i = 0; i < count; ++i)
    for (uint32_t j = 0; j < typesize; ++j) {
      uint32_t byte = 0;
      for (uint32_t k = 0; k < 8; ++k)
        byte |= ((static_cast<uint32_t>(src[(8 * j + k) * row_bytes + i / 8]) >> (i % 8)) & 1u) << k;
      dst[i * typesize + j] = static_cast<uint8_t>(byte);
    }
  for (size_t b = count * typesize; b < size; ++b) dst[b] = src[b];
}

}  // namespace zarrgpu::blosc
