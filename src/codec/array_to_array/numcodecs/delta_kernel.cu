#include "codec/array_to_array/numcodecs/delta_kernel.hpp"

#include <algorithm>
#include <string>

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include "gpu/cuda_check.hpp"
#include "gpu/vec16.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::codec {
namespace {

struct DeltaPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kItemsPerThread = 8;
  static constexpr unsigned kMaxItemsPerLaunch = 0x7fffffffu;
};

// Carries the running total of the tiles before the current one.
template <class T>
struct RunningPrefix {
  T total;
  __device__ T operator()(T tile_aggregate) {
    const T before = total;
    total = static_cast<T>(total + tile_aggregate);
    return before;
  }
};

// One block per chunk: tiles of kBlockThreads x kItemsPerThread elements,
// each an inclusive block scan seeded with the previous tiles' total.
template <class T>
__global__ void __launch_bounds__(DeltaPolicy::kBlockThreads)
delta_kernel(const DeviceArrayItem* __restrict__ items, std::uint32_t item_offset, std::byte* __restrict__ data, unsigned swap) {
  constexpr int kThreads = DeltaPolicy::kBlockThreads;
  constexpr int kItems = DeltaPolicy::kItemsPerThread;
  constexpr std::uint64_t kTile = std::uint64_t{kThreads} * kItems;
  using Load = cub::BlockLoad<T, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<T, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE>;
  using Scan = cub::BlockScan<T, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } temp;

  const DeviceArrayItem it = items[item_offset + blockIdx.x];
  T* values = reinterpret_cast<T*>(data + it.offset);
  RunningPrefix<T> prefix{T(0)};
  for (std::uint64_t base = 0; base < it.elements; base += kTile) {
    const std::uint64_t left = it.elements - base;
    const int valid = static_cast<int>(left < kTile ? left : kTile);
    T v[kItems];
    Load(temp.load).Load(values + base, v, valid, T(0));
#pragma unroll
    for (int i = 0; i < kItems; ++i) v[i] = gpu::swap_components(v[i], swap);
    __syncthreads();
    Scan(temp.scan).InclusiveSum(v, v, prefix);
    __syncthreads();
    Store(temp.store).Store(values + base, v, valid);
    __syncthreads();
  }
}

template <class T>
void dispatch(const DeviceArrayItem* items, std::uint32_t n, std::byte* data, unsigned swap, DeviceStream stream) {
  for (std::uint32_t first = 0; first < n; first += std::min<std::uint32_t>(n - first, DeltaPolicy::kMaxItemsPerLaunch)) {
    const unsigned blocks = std::min<std::uint32_t>(n - first, DeltaPolicy::kMaxItemsPerLaunch);
    delta_kernel<T><<<blocks, DeltaPolicy::kBlockThreads, 0, stream>>>(items, first, data, swap);
    ZARRGPU_CUDA_CHECK_LAUNCH("delta_kernel");
  }
}

}  // namespace

void delta_decode_async(const DeviceArrayItem* items, std::uint32_t num_items, std::byte* data, unsigned element_size,
                        unsigned swap, DeviceStream stream) {
  if (num_items == 0) return;
  switch (element_size) {
    case 1: return dispatch<std::uint8_t>(items, num_items, data, swap, stream);
    case 2: return dispatch<std::uint16_t>(items, num_items, data, swap, stream);
    case 4: return dispatch<std::uint32_t>(items, num_items, data, swap, stream);
    case 8: return dispatch<std::uint64_t>(items, num_items, data, swap, stream);
    default:
      throw Error(ErrorKind::unsupported, "delta decode on the GPU: element size " + std::to_string(element_size));
  }
}

}  // namespace zarrgpu::codec
