#include "gpu/place.hpp"

#include <algorithm>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/place_agent.cuh"
#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {
namespace {

// Policy: 256 threads x 8 vectors of 16 bytes = 32 KiB per tile; enough
// loads in flight per SM to cover HBM latency with a few resident blocks.
struct PlacePolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kVectorsPerThread = 8;
};

template <class T>
using Agent = PlaceAgent<T, PlacePolicy::kBlockThreads, PlacePolicy::kVectorsPerThread>;

template <class T>
__global__ void __launch_bounds__(PlacePolicy::kBlockThreads)
place_kernel(const PlaceBox* __restrict__ boxes, std::uint32_t num_boxes, std::uint64_t tile_offset,
             const std::byte* __restrict__ src, std::byte* __restrict__ out, Vec16 fill) {
  // The box's strides are read for every element: keep one copy in shared memory
  // (raw storage: a __shared__ variable may not have a constructor).
  __shared__ alignas(PlaceBox) unsigned char storage[sizeof(PlaceBox)];
  PlaceBox& box = *reinterpret_cast<PlaceBox*>(storage);
  const std::uint64_t tile = tile_offset + blockIdx.x;
  if (threadIdx.x == 0) box = boxes[find_box(boxes, num_boxes, tile)];
  __syncthreads();
  Agent<T>::run(box, tile - box.tile_begin, src, out, fill);
}

template <class T>
void dispatch(const PlaceLaunch& l, cudaStream_t stream) {
  constexpr std::uint64_t kMaxGrid = 0x7fffffffu;
  for (std::uint64_t t = 0; t < l.num_tiles; t += kMaxGrid) {
    const auto blocks = static_cast<unsigned>(std::min(kMaxGrid, l.num_tiles - t));
    place_kernel<T><<<blocks, PlacePolicy::kBlockThreads, 0, stream>>>(l.boxes, l.num_boxes, t, l.src, l.out, l.fill);
    ZARRGPU_CUDA_CHECK_LAUNCH("place_kernel");
  }
}

}  // namespace

std::uint64_t place_tile_elements(unsigned element_size) {
  return Agent<std::uint8_t>::kTileBytes / element_size;
}

void place(const PlaceLaunch& l, cudaStream_t stream) {
  if (l.num_boxes == 0 || l.num_tiles == 0) return;
  switch (l.element_size) {
    case 1: return dispatch<std::uint8_t>(l, stream);
    case 2: return dispatch<std::uint16_t>(l, stream);
    case 4: return dispatch<std::uint32_t>(l, stream);
    case 8: return dispatch<std::uint64_t>(l, stream);
    case 16: return dispatch<Vec16>(l, stream);
    default:
      throw Error(ErrorKind::unsupported, "place: element size " + std::to_string(l.element_size) +
                                              " (1, 2, 4, 8 or 16 bytes)");
  }
}

}  // namespace zarrgpu::gpu
