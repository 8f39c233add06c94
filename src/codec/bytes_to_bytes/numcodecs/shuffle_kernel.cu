#include "codec/bytes_to_bytes/numcodecs/shuffle_kernel.hpp"

#include <algorithm>

#include "gpu/cuda_check.hpp"

namespace zarrgpu::codec {
namespace {

struct ShufflePolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr unsigned kMaxBlocksPerItem = 1024;
  static constexpr unsigned kMaxItemsPerLaunch = 65535;  // gridDim.y
};

// One thread per element: the loads of byte plane j are coalesced across the
// warp (consecutive i); the element's bytes are stored together.
__global__ void __launch_bounds__(ShufflePolicy::kBlockThreads)
unshuffle_kernel(const DeviceBytesItem* __restrict__ items, std::uint32_t item_offset, const std::byte* __restrict__ src,
                 std::byte* __restrict__ dst, unsigned elementsize) {
  const DeviceBytesItem it = items[item_offset + blockIdx.y];
  const std::byte* s = src + it.src_offset;
  std::byte* d = dst + it.dst_offset;
  const std::uint64_t count = it.bytes / elementsize;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    for (unsigned j = 0; j < elementsize; ++j) d[i * elementsize + j] = s[j * count + i];
  }
  const std::uint64_t done = count * elementsize;
  for (std::uint64_t i = done + std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < it.bytes; i += stride) d[i] = s[i];
}

}  // namespace

void unshuffle_async(const DeviceBytesItem* items, std::uint32_t num_items, std::uint64_t max_item_bytes,
                     const std::byte* src, std::byte* dst, unsigned elementsize, DeviceStream stream) {
  if (num_items == 0) return;
  elementsize = std::max(elementsize, 1u);
  const std::uint64_t per_item = std::max<std::uint64_t>(max_item_bytes / elementsize, 1);
  const auto bx = static_cast<unsigned>(std::min<std::uint64_t>(
      ShufflePolicy::kMaxBlocksPerItem, (per_item + ShufflePolicy::kBlockThreads - 1) / ShufflePolicy::kBlockThreads));
  for (std::uint32_t first = 0; first < num_items; first += ShufflePolicy::kMaxItemsPerLaunch) {
    const unsigned by = std::min<std::uint32_t>(ShufflePolicy::kMaxItemsPerLaunch, num_items - first);
    unshuffle_kernel<<<dim3(bx, by), ShufflePolicy::kBlockThreads, 0, stream>>>(items, first, src, dst, elementsize);
    ZARRGPU_CUDA_CHECK_LAUNCH("unshuffle_kernel");
  }
}

}  // namespace zarrgpu::codec
