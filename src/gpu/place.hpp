// Batched placement (scatter) of decoded chunks into the output, and fill of
// the regions of missing chunks, in one launch: each box of the batch is a
// chunk's selected region (place_box.hpp); a box with src_offset ==
// kFillSource writes the fill value. Transpose codecs (permuted source
// strides) and the `bytes` codec's byte order (PlaceBox::swap) are fused, so
// a decoded chunk is read exactly once.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gpu/place_box.hpp"
#include "gpu/vec16.hpp"

namespace zarrgpu::gpu {

struct PlaceLaunch {
  const PlaceBox* boxes = nullptr;  // device memory, tile_begin assigned with place_tile_elements()
  std::uint32_t num_boxes = 0;
  std::uint64_t num_tiles = 0;      // assign_tiles' result
  const std::byte* src = nullptr;   // the batch's decoded chunks (device); boxes index it by src_offset
  std::byte* out = nullptr;         // the output (device), aligned to element_size
  unsigned element_size = 0;        // 1, 2, 4, 8 or 16
  Vec16 fill;                       // the fill value, native byte order
};

// Elements per tile (one thread block's share of a box) for an element size.
std::uint64_t place_tile_elements(unsigned element_size);

// Enqueues the launch on `stream`; checks the launch. Throws Error(unsupported)
// for element sizes other than 1, 2, 4, 8, 16.
void place(const PlaceLaunch& launch, cudaStream_t stream);

}  // namespace zarrgpu::gpu
