// Reversing the bytes of each `width`-byte word of a buffer (the `bytes`
// codec's endianness; complex numbers swap each component).
#pragma once

#include <cstddef>
#include <span>

namespace zarrgpu::codec {

// out[i] = in[i] with each `width`-byte word reversed; width is 1, 2, 4, 8 or
// 16; in and out have the same size, a multiple of width, and may be the same.
void byte_swap(std::span<const std::byte> in, std::span<std::byte> out, std::size_t width) noexcept;

}  // namespace zarrgpu::codec
