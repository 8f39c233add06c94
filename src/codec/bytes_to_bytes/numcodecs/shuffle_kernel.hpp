// The `numcodecs.shuffle` codec's GPU kernel (its device form is
// shuffle_device_step.hpp), batched: each item's `bytes` hold count =
// bytes / elementsize elements stored byte-plane by byte-plane (byte j of
// element i at j * count + i); decoding gathers them back to element order.
// Bytes past count * elementsize are copied unchanged. Built only with CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

// `items` in device memory; src and dst must not overlap.
void unshuffle_async(const DeviceBytesItem* items, std::uint32_t num_items, std::uint64_t max_item_bytes,
                     const std::byte* src, std::byte* dst, unsigned elementsize, DeviceStream stream);

}  // namespace zarrgpu::codec
