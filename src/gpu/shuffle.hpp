// numcodecs Shuffle decode, batched: each item's `bytes` hold count =
// bytes / elementsize elements stored byte-plane by byte-plane (byte j of
// element i at j * count + i); decoding gathers them back to element order.
// Bytes past count * elementsize are copied unchanged.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace zarrgpu::gpu {

struct ShuffleItem {
  std::uint64_t src_offset = 0;  // bytes into src
  std::uint64_t dst_offset = 0;  // bytes into dst
  std::uint64_t bytes = 0;
};

// `items` in device memory; src and dst must not overlap.
void unshuffle(const ShuffleItem* items, std::uint32_t num_items, std::uint64_t max_item_bytes,
               const std::byte* src, std::byte* dst, unsigned elementsize, cudaStream_t stream);

}  // namespace zarrgpu::gpu
