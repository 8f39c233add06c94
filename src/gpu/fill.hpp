// Fills a contiguous device range with one value of any element size up to
// 16 bytes (16-byte stores where the range is aligned). For strided regions
// (a missing chunk's part of the output) place() takes fill boxes.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gpu/vec16.hpp"

namespace zarrgpu::gpu {

// `out` aligned to element_size (1, 2, 4, 8, 16); `value`'s first
// element_size bytes are the element. Throws Error(unsupported) for other sizes.
void fill(std::byte* out, std::uint64_t elements, unsigned element_size, Vec16 value, cudaStream_t stream);

}  // namespace zarrgpu::gpu
