// In-place byte swap of a contiguous device range of elements (the `bytes`
// codec with endian "big" on a little-endian machine). `component` is the
// swapped unit: the element size, or half of it for complex numbers
// (component_size in data_type.hpp). The read path usually fuses the swap
// into place(); this kernel serves paths that need native values first
// (delta decoding) and tests.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace zarrgpu::gpu {

void byte_swap(std::byte* data, std::uint64_t elements, unsigned element_size, unsigned component, cudaStream_t stream);

}  // namespace zarrgpu::gpu
