// The `bytes` codec's byte swap on the GPU, in place over a contiguous
// device range of elements (endian "big" on a little-endian machine).
// `component` is the swapped unit: the element size, or half of it for
// complex numbers (component_size in data_type.hpp). The read path fuses
// the swap into what loads the elements first (placement, gpu/place.cu, and
// the delta kernel), so only the kernel tests call this at present. Built
// only with CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

void byte_swap_async(std::byte* data, std::uint64_t elements, unsigned element_size, unsigned component,
                     DeviceStream stream);

}  // namespace zarrgpu::codec
