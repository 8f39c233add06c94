// The `numcodecs.delta` codec's GPU kernel (its device form is
// delta_device_step.hpp), batched and in place: each item is a chunk of
// integers, stored as first value then differences, wrapping in the type's
// width; decoding is an inclusive prefix sum over the chunk in C order.
// Integers only: their wrapping sums are associative, so a parallel scan
// gives exactly numcodecs' result (a float cumsum is order-dependent; the
// read path decodes float deltas on the CPU instead).
//
// `swap` > 1 byte-swaps each element as it is loaded (the `bytes` codec's
// big-endian order), so the chunk is touched once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

// `items` in device memory. element_size 1, 2, 4 or 8. Built only with CUDA.
void delta_decode_async(const DeviceArrayItem* items, std::uint32_t num_items, std::byte* data, unsigned element_size,
                        unsigned swap, DeviceStream stream);

}  // namespace zarrgpu::codec
